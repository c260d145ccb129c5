//! File writing shared by every layer: whole files replaced atomically.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed
/// to disk, then renamed over `path`. A crash leaves either the old file or the new one.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        // A full disk or a vanished folder: the old file stays, the temporary goes.
        let _ = fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("writing {}", path.display()));
    }
    Ok(())
}

/// Removes the temporary files [`atomic_write`] leaves when its process is killed
/// mid-write (`.NAME.tmp-PID` whose process is gone), and the temporary folders of a
/// checkpoint save killed the same way (`NAME.tmp-PID-NANOS`), in `dir` and the folders
/// below it.
/// Those of a live process (another writer at work) are left alone. Returns how many
/// went.
pub fn remove_stale_temps(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.filter_map(|e| e.ok()) {
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if kind.is_dir() {
            // A checkpoint's temporary folder (`NAME.tmp-PID-NANOS`, net::checkpoint).
            let pid = name
                .rsplit_once(".tmp-")
                .and_then(|(_, rest)| rest.split_once('-'))
                .and_then(|(pid, _)| pid.parse::<i32>().ok());
            match pid {
                Some(pid) if !process_alive(pid) => {
                    if fs::remove_dir_all(&path).is_ok() {
                        removed += 1;
                    }
                }
                Some(_) => {}
                None => removed += remove_stale_temps(&path),
            }
            continue;
        }
        let Some(pid) = name
            .strip_prefix('.')
            .and_then(|n| n.rsplit_once(".tmp-"))
            .and_then(|(_, pid)| pid.parse::<i32>().ok())
        else {
            continue;
        };
        if !process_alive(pid) && fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Whether a process with this id exists (its own process counts as alive).
pub fn process_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    if pid as u32 == std::process::id() {
        return true;
    }
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_temporary_files_go_and_live_ones_stay() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("samples");
        fs::create_dir_all(&sub).unwrap();
        // A process id that cannot exist (above Linux's pid_max limit of 2^22).
        let dead = 5_000_000;
        let mine = std::process::id();
        let files = [
            d.path().join(format!(".metrics.csv.tmp-{dead}")),
            sub.join(format!(".main-iter-0003.bin.tmp-{dead}")),
            sub.join(format!(".worker.bin.tmp-{mine}")),
            sub.join("main-iter-0002.bin"),
            d.path().join(".hidden"),
        ];
        for f in &files {
            fs::write(f, b"x").unwrap();
        }
        // Checkpoint folders being written: a killed writer's, a live one's.
        let cks = d.path().join("checkpoints");
        let dead_ck = cks.join(format!("iter-0003.tmp-{dead}-123456"));
        let live_ck = cks.join(format!("iter-0004.tmp-{mine}-123456"));
        for c in [&dead_ck, &live_ck] {
            fs::create_dir_all(c).unwrap();
            fs::write(c.join("model.bpk"), b"x").unwrap();
        }
        assert_eq!(remove_stale_temps(d.path()), 3);
        let left: Vec<bool> = files.iter().map(|f| f.exists()).collect();
        assert_eq!(left, [false, false, true, true, true]);
        assert!(!dead_ck.exists() && live_ck.exists());
        assert!(process_alive(mine as i32) && !process_alive(dead));
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("state.json");
        atomic_write(&p, b"old").unwrap();
        // The rename fails: the target is a non-empty folder now.
        let q = d.path().join("dir");
        fs::create_dir_all(q.join("x")).unwrap();
        let e = atomic_write(&q, b"new").unwrap_err();
        assert!(format!("{e:#}").contains(&q.display().to_string()), "{e:#}");
        assert_eq!(fs::read(&p).unwrap(), b"old");
        let names: Vec<String> = fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.iter().all(|n| !n.contains(".tmp")), "{names:?}");
    }
}

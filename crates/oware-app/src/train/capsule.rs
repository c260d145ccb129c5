//! The capsule: a run directory without its replay window, small enough to commit or
//! copy anywhere, from which the run goes on on another machine.
//!
//! ```text
//! CAPSULE/capsule.json                 format, rules, encoding, model, iteration, and
//!                                      every other file's size and hash (written last)
//! CAPSULE/config.toml                  the effective config
//! CAPSULE/state.json                   the run's state, its window emptied and `refill` set
//! CAPSULE/checkpoints/iter-NNNN/       the latest checkpoint, with its optimizer state
//! CAPSULE/checkpoints/latest
//! CAPSULE/metrics.csv.gz               the metrics rows and the rating pool, gzipped
//! CAPSULE/pool.jsonl.gz
//! CAPSULE/machines.jsonl               the machine of each leg of the run so far
//! CAPSULE/accuracy-suite.txt, workers/*, ray/*     when the run has them
//! ```
//!
//! Sample chunks, self-play game records, older checkpoints and the plot stay behind:
//! self-play plays the window again, and the plot is redrawn from the metrics.
//!
//! A capsule is written whole into a temporary sibling folder, then exchanged with the
//! old one in one step (`renameat2` with `RENAME_EXCHANGE`; elsewhere two renames), so
//! a kill at any moment leaves the previous capsule loadable.
//!
//! `oware train --resume --run-dir COPY` on a copy of a capsule finds `capsule.json`,
//! checks every file against it before writing anything, unpacks the gzipped files and
//! removes `capsule.json`: from then on the copy is an ordinary run directory whose
//! state asks self-play to refill the window before gradient steps resume.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::config::Config;
use super::machine;
use super::refill::Refill;
use super::rundir::{RunDir, RunState};
use oware_core::files::{atomic_write, process_alive};
use oware_net::net::checkpoint::{FileEntry, fnv1a64, read_manifest};
use oware_net::net::model::ModelConfig;

/// The capsule's own manifest, inside it.
pub const CAPSULE_FILE: &str = "capsule.json";

/// The capsule format this program writes and reads.
pub const CAPSULE_FORMAT: u32 = 1;

/// Files stored gzipped in a capsule (the two that grow with the run's length).
const GZIPPED: [&str; 2] = ["metrics.csv", "pool.jsonl"];

/// Small files copied as they are, when the run has them (`machines.jsonl`: the
/// machines of the run's legs so far; the next appends its own where it resumes).
const PLAIN: [&str; 3] = ["config.toml", "accuracy-suite.txt", machine::MACHINES_FILE];

/// Folders whose files are copied as they are, when the run has them (self-play
/// workers' next chunk numbers, `oware-ray`'s start count and chunk log).
const FOLDERS: [&str; 2] = ["workers", "ray"];

/// `capsule.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapsuleManifest {
    /// [`CAPSULE_FORMAT`] when written.
    pub format: u32,
    /// The run's rule set.
    pub rules: String,
    /// The network's shape and input encoding.
    pub model: ModelConfig,
    /// Iterations the run had completed.
    pub iteration: u32,
    /// The checkpoint carried (directory name under `checkpoints/`).
    pub checkpoint: String,
    /// Samples the window held; self-play plays them again before learning resumes.
    pub window_samples: u64,
    /// Every other file of the capsule (paths relative to it, `/`-separated).
    pub files: Vec<FileEntry>,
}

/// Writes the capsule of `run` as committed in `state` (whose window held
/// `window_samples` samples) to `dest`, replacing the capsule there in one step. Returns
/// the capsule's size in bytes.
pub fn write(
    run: &RunDir,
    config: &Config,
    state: &RunState,
    window_samples: u64,
    dest: &Path,
) -> Result<u64> {
    let parent = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let name = dest
        .file_name()
        .and_then(|n| n.to_str())
        .with_context(|| format!("--capsule {}: not a folder name", dest.display()))?;
    remove_stale(parent, name);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = parent.join(format!(".{name}.tmp-{}-{nanos}", std::process::id()));
    let built = fill(run, config, state, window_samples, &tmp).and_then(|bytes| {
        swap_into_place(&tmp, dest)?;
        Ok(bytes)
    });
    // Whether it landed or failed, the temporary (now the old capsule, if any) goes.
    let _ = fs::remove_dir_all(&tmp);
    built.with_context(|| format!("writing the capsule {}", dest.display()))
}

/// The capsule's files into `dir` (a new folder), `capsule.json` last; its size.
fn fill(
    run: &RunDir,
    config: &Config,
    state: &RunState,
    window_samples: u64,
    dir: &Path,
) -> Result<u64> {
    fs::create_dir_all(dir)?;
    let mut files = Vec::new();
    let mut put = |rel: &str, bytes: &[u8]| -> Result<()> {
        let path = dir.join(rel);
        if let Some(p) = path.parent() {
            fs::create_dir_all(p)?;
        }
        let mut f = fs::File::create(&path).with_context(|| format!("creating {rel}"))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        files.push(entry(rel, bytes));
        Ok(())
    };
    for rel in PLAIN {
        if let Some(bytes) = read_if_present(&run.root.join(rel))? {
            put(rel, &bytes)?;
        }
    }
    for rel in GZIPPED {
        if let Some(bytes) = read_if_present(&run.root.join(rel))? {
            put(&format!("{rel}.gz"), &gzip(&bytes)?)?;
        }
    }
    for folder in FOLDERS {
        for (rel, bytes) in folder_files(&run.root, folder)? {
            put(&rel, &bytes)?;
        }
    }
    let ck = format!("checkpoints/{}", state.checkpoint);
    for (rel, bytes) in folder_files(&run.root, &ck)? {
        put(&rel, &bytes)?;
    }
    put(
        "checkpoints/latest",
        format!("{}\n", state.checkpoint).as_bytes(),
    )?;
    let carried = RunState {
        window: Vec::new(),
        refill: Refill::carried(config, state, window_samples),
        ..state.clone()
    };
    put(
        "state.json",
        serde_json::to_string_pretty(&carried)?.as_bytes(),
    )?;
    let manifest = CapsuleManifest {
        format: CAPSULE_FORMAT,
        rules: config.game.rules.to_string(),
        model: config.model.clone(),
        iteration: state.iteration,
        checkpoint: state.checkpoint.clone(),
        window_samples: carried.refill,
        files,
    };
    let text = serde_json::to_string_pretty(&manifest)?;
    atomic_write(&dir.join(CAPSULE_FILE), text.as_bytes())?;
    sync_dir(dir);
    Ok(manifest.files.iter().map(|f| f.bytes).sum::<u64>() + text.len() as u64)
}

/// Puts the finished capsule `tmp` at `dest`; the old one, if any, ends up at `tmp`.
fn swap_into_place(tmp: &Path, dest: &Path) -> Result<()> {
    if !dest.exists() {
        fs::rename(tmp, dest)?;
        return Ok(());
    }
    if !dest.join(CAPSULE_FILE).exists() && fs::read_dir(dest)?.next().is_some() {
        bail!(
            "{} exists and is not a capsule: not replaced",
            dest.display()
        );
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let a = std::ffi::CString::new(tmp.as_os_str().as_bytes())?;
        let b = std::ffi::CString::new(dest.as_os_str().as_bytes())?;
        // SAFETY: two valid C strings; the call swaps the two names atomically.
        let r = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if r == 0 {
            return Ok(());
        }
    }
    // No exchange here (another system, or a file system without it): the old capsule
    // steps aside first, so a kill between the two renames leaves it beside the new name.
    let mut aside = tmp.as_os_str().to_owned();
    aside.push(".old");
    let aside = PathBuf::from(aside);
    fs::rename(dest, &aside)?;
    fs::rename(tmp, dest)?;
    fs::rename(&aside, tmp)?;
    Ok(())
}

/// Removes temporary folders of capsule writes whose process is gone.
fn remove_stale(parent: &Path, name: &str) {
    let prefix = format!(".{name}.tmp-");
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for e in entries.filter_map(|e| e.ok()) {
        let n = e.file_name().to_string_lossy().into_owned();
        let pid = n
            .strip_prefix(&prefix)
            .and_then(|rest| rest.split(['-', '.']).next())
            .and_then(|p| p.parse::<i32>().ok());
        if let Some(pid) = pid
            && !process_alive(pid)
        {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// Whether `run` holds a capsule not yet unpacked.
pub fn is_capsule(run: &Path) -> bool {
    run.join(CAPSULE_FILE).exists()
}

/// Checks the capsule in `run` against its `capsule.json` and the config it holds,
/// before anything is written; then unpacks its gzipped files and removes
/// `capsule.json`, so `run` is a run directory whose state asks for the window again.
pub fn unpack(run: &Path) -> Result<CapsuleManifest> {
    let m = check(run)?;
    for rel in GZIPPED {
        let gz = run.join(format!("{rel}.gz"));
        if gz.exists() {
            let bytes = gunzip(&fs::read(&gz)?).with_context(|| format!("{}", gz.display()))?;
            atomic_write(&run.join(rel), &bytes)?;
        }
    }
    fs::remove_file(run.join(CAPSULE_FILE))?;
    for rel in GZIPPED {
        let _ = fs::remove_file(run.join(format!("{rel}.gz")));
    }
    Ok(m)
}

/// Every check a capsule passes before it is used, each failure one line naming it.
pub fn check(run: &Path) -> Result<CapsuleManifest> {
    let path = run.join(CAPSULE_FILE);
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let probe: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{} is damaged: {e}", path.display()))?;
    let format = probe.get("format").and_then(|f| f.as_u64());
    if format != Some(CAPSULE_FORMAT as u64) {
        bail!(
            "{} is a capsule of format {}; this oware reads format {CAPSULE_FORMAT}",
            run.display(),
            format.map_or("(none)".to_string(), |f| f.to_string())
        );
    }
    let m: CapsuleManifest = serde_json::from_value(probe)
        .map_err(|e| anyhow::anyhow!("{} is damaged: {e}", path.display()))?;
    for f in &m.files {
        check_file(run, f)?;
    }
    let config = Config::load_saved(&run.join("config.toml"))?;
    if config.game.rules.to_string() != m.rules || config.model != m.model {
        bail!(
            "{}: capsule.json says rules {} and model {}, its config.toml rules {} and model {}: \
             a foreign or mixed-up capsule",
            run.display(),
            m.rules,
            serde_json::to_string(&m.model)?,
            config.game.rules,
            serde_json::to_string(&config.model)?
        );
    }
    let ck = run.join("checkpoints").join(&m.checkpoint);
    let manifest = read_manifest(&ck)?;
    if manifest.rules != m.rules || manifest.model != m.model {
        bail!(
            "{}: its checkpoint is a {} network of rules {}, capsule.json says {} of rules {}: \
             a foreign or mixed-up capsule",
            run.display(),
            serde_json::to_string(&manifest.model)?,
            manifest.rules,
            serde_json::to_string(&m.model)?,
            m.rules
        );
    }
    Ok(m)
}

/// One file of the capsule against its entry: present, its size, its hash.
fn check_file(run: &Path, f: &FileEntry) -> Result<()> {
    if f.name.split('/').any(|p| p.is_empty() || p == "..") {
        bail!(
            "{}: capsule.json names a bad path {:?}",
            run.display(),
            f.name
        );
    }
    let path = run.join(&f.name);
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("{} is missing: the capsule is incomplete", path.display())
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    if bytes.len() as u64 != f.bytes {
        bail!(
            "{} is {} bytes but capsule.json says {}: the capsule is truncated or damaged",
            path.display(),
            bytes.len(),
            f.bytes
        );
    }
    let h = format!("{:016x}", fnv1a64(&bytes));
    if h != f.fnv1a64 {
        bail!(
            "{} is corrupted: its hash {h} differs from capsule.json's {}",
            path.display(),
            f.fnv1a64
        );
    }
    Ok(())
}

fn entry(rel: &str, bytes: &[u8]) -> FileEntry {
    FileEntry {
        name: rel.to_string(),
        bytes: bytes.len() as u64,
        fnv1a64: format!("{:016x}", fnv1a64(bytes)),
    }
}

fn read_if_present(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// The plain files directly in `root/folder` (not temporaries), as (`folder/name`, bytes),
/// in name order; none when the folder is absent.
fn folder_files(root: &Path, folder: &str) -> Result<Vec<(String, Vec<u8>)>> {
    let dir = root.join(folder);
    let Ok(entries) = fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut names: Vec<(String, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .filter(|(n, _)| !n.starts_with('.') && !n.contains(".tmp"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|(n, p)| {
            let bytes = fs::read(&p).with_context(|| format!("reading {}", p.display()))?;
            Ok((format!("{folder}/{n}"), bytes))
        })
        .collect()
}

fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes)?;
    Ok(e.finish()?)
}

fn gunzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .context("not a whole gzip file")?;
    Ok(out)
}

/// Flushes a folder's entries (its new names) to disk; best effort.
fn sync_dir(dir: &Path) {
    if let Ok(f) = fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_round_trips_and_a_cut_stream_is_refused() {
        let text: Vec<u8> = (0..5000u32)
            .flat_map(|i| format!("{i},{}\n", i * 7).into_bytes())
            .collect();
        let z = gzip(&text).unwrap();
        assert!(z.len() < text.len() / 2, "{} of {}", z.len(), text.len());
        assert_eq!(gunzip(&z).unwrap(), text);
        assert!(gunzip(&z[..z.len() / 2]).is_err());
    }

    #[test]
    fn the_exchange_leaves_the_new_capsule_in_place_and_the_old_at_the_temporary_name() {
        let d = tempfile::tempdir().unwrap();
        let (old, new) = (d.path().join("cap"), d.path().join(".cap.tmp-1-2"));
        for (dir, text) in [(&old, "old"), (&new, "new")] {
            fs::create_dir_all(dir).unwrap();
            fs::write(dir.join(CAPSULE_FILE), text).unwrap();
        }
        swap_into_place(&new, &old).unwrap();
        assert_eq!(fs::read_to_string(old.join(CAPSULE_FILE)).unwrap(), "new");
        assert_eq!(fs::read_to_string(new.join(CAPSULE_FILE)).unwrap(), "old");
        // A folder that is not a capsule is never replaced.
        let other = d.path().join("other");
        fs::create_dir_all(&other).unwrap();
        fs::write(other.join("notes.txt"), "mine").unwrap();
        assert!(swap_into_place(&new, &other).is_err());
        assert_eq!(fs::read_to_string(other.join("notes.txt")).unwrap(), "mine");
    }

    #[test]
    fn stale_temporaries_of_dead_writers_go_and_live_ones_stay() {
        let d = tempfile::tempdir().unwrap();
        let dead = d.path().join(".cap.tmp-999999999-5");
        let live = d.path().join(format!(".cap.tmp-{}-5", std::process::id()));
        let unrelated = d.path().join(".other.tmp-999999999-5");
        for p in [&dead, &live, &unrelated] {
            fs::create_dir_all(p).unwrap();
        }
        remove_stale(d.path(), "cap");
        assert!(!dead.exists() && live.exists() && unrelated.exists());
    }
}

//! `RUN/machines.jsonl`: the machine each leg of a run trained on, one JSON line per
//! start or resume, so that a run moved between machines (a capsule carries the file)
//! keeps its history, and its clock and speeds can be read knowing what ran them.
//!
//! ```text
//! {"iteration":0,"run_seconds":0.0,"started_unix":1796000000,"cpu":"Intel(R) Xeon(R) …",
//!  "logical_cores":2,"vector":["avx2","avx512bw",…],"os":"Ubuntu 22.04.4 LTS, Linux 6.8.0"}
//! ```

use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use oware_core::files::atomic_write;

/// The file's name in a run directory.
pub const MACHINES_FILE: &str = "machines.jsonl";

/// One leg of a run: where and when it started or resumed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Leg {
    /// Iterations completed before the leg (0: the run's start).
    pub iteration: u32,
    /// The run clock when the leg began, in seconds (earlier legs' time).
    pub run_seconds: f64,
    /// When the leg began, in seconds since 1970 (UTC).
    pub started_unix: u64,
    /// The CPU's model name (`/proc/cpuinfo`), empty where unknown.
    pub cpu: String,
    /// Logical cores the system has.
    pub logical_cores: usize,
    /// Its vector extensions, as `grep -o 'avx512[a-z]*\|avx2' /proc/cpuinfo | sort -u`
    /// lists them (the matrix kernels differ by them, and so do the run's speed and its
    /// exact numbers).
    pub vector: Vec<String>,
    /// The operating system and kernel.
    pub os: String,
}

impl Leg {
    /// This machine, now, for a leg starting after `iteration` iterations at `run_seconds`
    /// of run clock.
    pub fn here(iteration: u32, run_seconds: f64) -> Leg {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let processors = cpuinfo
            .lines()
            .filter(|l| field(l, "processor").is_some())
            .count();
        let logical_cores = if processors > 0 {
            processors
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        };
        Leg {
            iteration,
            run_seconds,
            started_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            cpu: cpuinfo
                .lines()
                .find_map(|l| field(l, "model name"))
                .unwrap_or_default()
                .to_string(),
            logical_cores,
            vector: vector_extensions(&cpuinfo),
            os: os_name(),
        }
    }
}

/// The value of a `/proc/cpuinfo` line `key<tabs>: value`.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let (k, v) = line.split_once(':')?;
    (k.trim() == key).then(|| v.trim())
}

/// What `grep -o 'avx512[a-z]*\|avx2' | sort -u` prints of `text`, as a list.
pub fn vector_extensions(text: &str) -> Vec<String> {
    let mut found = std::collections::BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("avx") {
        let after = &rest[i..];
        if let Some(tail) = after.strip_prefix("avx512") {
            let letters = tail.bytes().take_while(u8::is_ascii_lowercase).count();
            found.insert(after[..6 + letters].to_string());
            rest = &after[6 + letters..];
        } else if let Some(tail) = after.strip_prefix("avx2") {
            found.insert("avx2".to_string());
            rest = tail;
        } else {
            rest = &after[3..];
        }
    }
    found.into_iter().collect()
}

/// `PRETTY_NAME` of `/etc/os-release` and the kernel's release, as far as known.
fn os_name() -> String {
    let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    let pretty = release.lines().find_map(|l| {
        l.strip_prefix("PRETTY_NAME=")
            .map(|v| v.trim().trim_matches('"').to_string())
    });
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|k| format!("{} {}", capitalised(std::env::consts::OS), k.trim()));
    match (pretty, kernel) {
        (Some(p), Some(k)) => format!("{p}, {k}"),
        (Some(p), None) => p,
        (None, Some(k)) => k,
        (None, None) => std::env::consts::OS.to_string(),
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Appends `leg` to the run's `machines.jsonl` (rewritten whole, atomically: a kill
/// leaves the old file or the new one). Lines of an older file that do not read are
/// kept as they are.
pub fn append(run: &Path, leg: &Leg) -> Result<()> {
    let path = run.join(MACHINES_FILE);
    let mut text = std::fs::read_to_string(&path).unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&serde_json::to_string(leg)?);
    text.push('\n');
    atomic_write(&path, text.as_bytes())
}

/// The legs recorded in `run` (none where it has no file), skipping lines that do not
/// read.
pub fn read(run: &Path) -> Vec<Leg> {
    std::fs::read_to_string(run.join(MACHINES_FILE))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_extensions_are_what_grep_lists() {
        // Two processors of a Xeon's flags, cut down; `avx512_vnni` and `avx512_bf16`
        // give grep's `avx512` (an underscore is not a letter), `avx_vnni` nothing.
        let flags = "flags\t\t: fpu sse4_2 avx avx2 avx512f avx512dq avx_vnni \
                     avx512_vnni avx512vl avx512_bf16 xsave\n";
        let text = format!("processor\t: 0\n{flags}processor\t: 1\n{flags}");
        assert_eq!(
            vector_extensions(&text),
            ["avx2", "avx512", "avx512dq", "avx512f", "avx512vl"]
        );
        assert!(vector_extensions("flags : fpu sse2 avx\n").is_empty());
    }

    #[test]
    fn this_machine_s_extensions_are_grep_s() {
        let Ok(out) = std::process::Command::new("grep")
            .args(["-o", "avx512[a-z]*\\|avx2", "/proc/cpuinfo"])
            .output()
        else {
            return;
        };
        let mut want: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect();
        want.sort();
        want.dedup();
        let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        assert_eq!(vector_extensions(&text), want);
    }

    #[test]
    fn legs_are_appended_and_read_back() {
        let d = tempfile::tempdir().unwrap();
        assert!(read(d.path()).is_empty());
        let a = Leg::here(0, 0.0);
        assert!(a.logical_cores >= 1 && !a.os.is_empty());
        let b = Leg {
            iteration: 12,
            run_seconds: 340.5,
            cpu: "another".into(),
            ..a.clone()
        };
        append(d.path(), &a).unwrap();
        // A line cut off by an older writer is kept, and skipped when read.
        let path = d.path().join(MACHINES_FILE);
        let cut = std::fs::read_to_string(&path).unwrap() + "{\"iteration\":";
        std::fs::write(&path, cut).unwrap();
        append(d.path(), &b).unwrap();
        assert_eq!(read(d.path()), vec![a, b]);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 3);
    }
}

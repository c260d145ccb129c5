//! Finding the run directories under the runs root: a bounded walk that never follows a
//! symbolic link, never enters a run's bulky folders, and names each run by its path
//! relative to the root (its id in the API).

use std::collections::VecDeque;
use std::fs;
use std::path::{Path, PathBuf};

/// What kind of thing a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A run directory (`oware train --run-dir`), training or not.
    Run,
    /// A capsule (`capsule.json`; its metrics gzipped).
    Capsule,
    /// A lone metrics file (`NAME-metrics.csv`, as `experiments/ab/` keeps them).
    MetricsFile,
}

impl Kind {
    /// Its name in the API.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Run => "run",
            Kind::Capsule => "capsule",
            Kind::MetricsFile => "metrics-file",
        }
    }
}

/// One run found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Its path relative to the root, `/`-separated (`.` for the root itself).
    pub id: String,
    /// Its directory (a run, a capsule) or file (a metrics file).
    pub path: PathBuf,
    /// What it is.
    pub kind: Kind,
}

/// The bounds of one walk.
#[derive(Clone, Copy, Debug)]
pub struct ScanLimits {
    /// Deepest folder level below the root that is looked into.
    pub depth: usize,
    /// Most directory entries looked at in all.
    pub entries: usize,
    /// Most runs listed.
    pub runs: usize,
}

impl Default for ScanLimits {
    fn default() -> Self {
        ScanLimits {
            depth: 8,
            entries: 50_000,
            runs: 500,
        }
    }
}

/// Folders of a run that hold no run and may hold thousands of files.
const BULKY: [&str; 6] = [
    "samples",
    "checkpoints",
    "games",
    "workers",
    "ray",
    "progress",
];

/// Files whose presence makes a directory a run.
const MARKS: [&str; 5] = [
    "metrics.csv",
    "state.json",
    "capsule.json",
    "lock",
    "metrics.csv.gz",
];

/// Every run under `root`, sorted by id; `true` when a limit cut the walk short.
pub fn scan(root: &Path, limits: ScanLimits) -> (Vec<Found>, bool) {
    let mut found = Vec::new();
    let mut queue = VecDeque::from([(root.to_path_buf(), String::new(), 0usize)]);
    let mut seen = 0usize;
    let mut cut = false;
    while let Some((dir, rel, depth)) = queue.pop_front() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        for e in entries.flatten() {
            seen += 1;
            if seen > limits.entries {
                cut = true;
                break;
            }
            // The entry's own type: a symbolic link is neither a file nor a folder here.
            let Ok(t) = e.file_type() else { continue };
            let Some(name) = e.file_name().to_str().map(String::from) else {
                continue;
            };
            if t.is_dir() {
                dirs.push((name, e.path()));
            } else if t.is_file() {
                if name.ends_with("-metrics.csv") || name.ends_with(".metrics.csv") {
                    found.push(Found {
                        id: join_id(&rel, &name),
                        path: e.path(),
                        kind: Kind::MetricsFile,
                    });
                }
                files.push(name);
            }
        }
        let kind = run_kind(&files);
        for (name, path) in dirs {
            // A run's own folders hold no run, and may hold thousands of files.
            if depth < limits.depth && !(kind.is_some() && BULKY.contains(&name.as_str())) {
                queue.push_back((path, join_id(&rel, &name), depth + 1));
            }
        }
        if let Some(kind) = kind {
            let id = if rel.is_empty() { ".".into() } else { rel };
            found.push(Found {
                id,
                path: dir,
                kind,
            });
        }
        if seen > limits.entries {
            break;
        }
    }
    found.sort_by(|a, b| a.id.cmp(&b.id));
    if found.len() > limits.runs {
        found.truncate(limits.runs);
        cut = true;
    }
    (found, cut)
}

/// Whether a directory holding `files` is a run, and which kind.
fn run_kind(files: &[String]) -> Option<Kind> {
    let has = |n: &str| files.iter().any(|f| f == n);
    if has("capsule.json") {
        Some(Kind::Capsule)
    } else if MARKS.iter().any(|m| has(m)) {
        Some(Kind::Run)
    } else {
        None
    }
}

fn join_id(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_string()
    } else {
        format!("{rel}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_runs_capsules_and_metrics_files_but_not_inside_bulky_folders() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for dir in [
            "a/samples/x",
            "b/capsule/checkpoints",
            "c/d",
            "empty",
            "ray/run2",
        ] {
            fs::create_dir_all(r.join(dir)).unwrap();
        }
        fs::write(r.join("a/metrics.csv"), "iteration\n").unwrap();
        fs::write(r.join("a/samples/x/metrics.csv"), "iteration\n").unwrap();
        fs::write(r.join("b/capsule/capsule.json"), "{}").unwrap();
        fs::write(r.join("c/d/lock"), "1").unwrap();
        fs::write(r.join("c/arm-metrics.csv"), "iteration\n").unwrap();
        // A folder named as a run's own is looked into where it is no run's.
        fs::write(r.join("ray/run2/state.json"), "{}").unwrap();
        let (runs, cut) = scan(r, ScanLimits::default());
        let ids: Vec<(&str, Kind)> = runs.iter().map(|f| (f.id.as_str(), f.kind)).collect();
        assert_eq!(
            ids,
            [
                ("a", Kind::Run),
                ("b/capsule", Kind::Capsule),
                ("c/arm-metrics.csv", Kind::MetricsFile),
                ("c/d", Kind::Run),
                ("ray/run2", Kind::Run),
            ]
        );
        assert!(!cut);
        let (few, cut) = scan(
            r,
            ScanLimits {
                runs: 2,
                ..ScanLimits::default()
            },
        );
        assert_eq!((few.len(), cut), (2, true));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_not_followed() {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("metrics.csv"), "iteration\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join("away")).unwrap();
        assert!(scan(d.path(), ScanLimits::default()).0.is_empty());
    }
}

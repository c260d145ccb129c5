//! The training runs `oware serve --runs DIR` shows: found under one root (`scan`), each
//! one's state (`status`), its metrics as columns (`metrics`), its latest self-play
//! games and its checkpoints (`games`).
//!
//! Read only, and cheap for a run that trains: nothing is written or locked; a run's
//! lock is judged from `/proc/locks`; a metrics file is read again only when its size or
//! time changed (the trainer rewrites it once an iteration), and the walk of the root is
//! kept [`SCAN_EVERY`]. Every path read comes from the walk, which does not follow
//! links, and no file that is a link is read, so nothing outside the root is reached.

pub mod games;
pub mod metrics;
pub mod scan;
pub mod status;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

use self::metrics::Metrics;
use self::scan::{Found, Kind, ScanLimits};

/// How long a walk of the root is kept before the next request walks it again.
pub const SCAN_EVERY: Duration = Duration::from_secs(3);

/// Metrics files kept parsed at once.
const CACHED_FILES: usize = 256;

/// A metrics file read, or why it could not be.
pub type MetricsRead = Arc<Result<Metrics, String>>;

/// The runs under one root, with what was read of them.
pub struct RunsIndex {
    root: PathBuf,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    walk: Option<(Instant, Arc<Vec<Found>>, bool)>,
    metrics: HashMap<PathBuf, (u64, SystemTime, MetricsRead)>,
}

/// Why a run cannot be answered: the id is not one (400) or names no run (404).
#[derive(Debug, PartialEq, Eq)]
pub enum RunError {
    /// Not a path inside the root.
    Outside(String),
    /// No run by that id.
    Unknown(String),
}

impl RunsIndex {
    /// The runs under `root` (which need not exist yet).
    pub fn new(root: PathBuf) -> RunsIndex {
        RunsIndex {
            root,
            cache: Mutex::new(Cache::default()),
        }
    }

    /// The root, as given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The runs found (a walk at most [`SCAN_EVERY`] old, or a fresh one with `fresh`)
    /// and whether a limit cut the walk short.
    pub fn runs(&self, fresh: bool) -> (Arc<Vec<Found>>, bool) {
        if let Some((at, runs, cut)) = &self.lock().walk
            && !fresh
            && at.elapsed() < SCAN_EVERY
        {
            return (runs.clone(), *cut);
        }
        let (runs, cut) = scan::scan(&self.root, ScanLimits::default());
        let runs = Arc::new(runs);
        self.lock().walk = Some((Instant::now(), runs.clone(), cut));
        (runs, cut)
    }

    /// The run `id` (its path under the root, `/`-separated).
    pub fn find(&self, id: &str) -> Result<Found, RunError> {
        let p = Path::new(id);
        let inside = !id.is_empty()
            && id.len() <= 1000
            && !id.contains('\\')
            && p.components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(RunError::Outside(format!(
                "run {id:?}: not a path inside the runs directory {}",
                self.root.display()
            )));
        }
        let look = |runs: &[Found]| runs.iter().find(|f| f.id == id).cloned();
        if let Some(f) = look(&self.runs(false).0) {
            return Ok(f);
        }
        look(&self.runs(true).0).ok_or_else(|| {
            RunError::Unknown(format!(
                "no run {id:?} under {} (GET /api/v1/runs lists them)",
                self.root.display()
            ))
        })
    }

    /// The run's metrics (an empty table where it has no file yet).
    pub fn metrics(&self, run: &Found) -> MetricsRead {
        let file = metrics_file(run);
        let Ok(meta) = std::fs::symlink_metadata(&file) else {
            return Arc::new(Ok(Metrics::default()));
        };
        let key = (
            meta.len(),
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        );
        if let Some((len, time, m)) = self.lock().metrics.get(&file)
            && (*len, *time) == key
        {
            return m.clone();
        }
        let m = Arc::new(if meta.is_file() {
            metrics::read(&file)
        } else {
            Err(format!("{}: not a plain file, not read", file.display()))
        });
        let mut cache = self.lock();
        if cache.metrics.len() >= CACHED_FILES {
            cache.metrics.clear();
        }
        cache.metrics.insert(file, (key.0, key.1, m.clone()));
        m
    }

    /// `GET /api/v1/runs`: every run with its summary.
    pub fn list_json(&self) -> Value {
        let t0 = Instant::now();
        let (runs, cut) = self.runs(false);
        let list: Vec<Value> = runs
            .iter()
            .map(|f| {
                let m = self.metrics(f);
                let mut v =
                    status::summary(f.kind, &f.path, m.as_ref().as_ref().map_err(String::as_str));
                v["id"] = json!(f.id);
                v
            })
            .collect();
        json!({
            "root": self.root.display().to_string(),
            "exists": self.root.is_dir(),
            "truncated": cut,
            "read_ms": t0.elapsed().as_secs_f64() * 1000.0,
            "runs": list,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Where a run keeps its metrics.
fn metrics_file(run: &Found) -> PathBuf {
    match run.kind {
        Kind::Run => run.path.join("metrics.csv"),
        Kind::Capsule => run.path.join("metrics.csv.gz"),
        Kind::MetricsFile => run.path.clone(),
    }
}

/// Whether `path` is a folder itself, not a link to one (which could lead out of the
/// root): a run's `games/` and `checkpoints/` are listed only then.
pub fn real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// The text of `path`, a plain file (not a link) of at most `max` bytes.
pub fn read_capped(path: &Path, max: u64) -> Result<String, String> {
    use std::io::Read;
    let say = |e: String| format!("{}: {e}", path.display());
    let meta = std::fs::symlink_metadata(path).map_err(|e| say(e.to_string()))?;
    if !meta.is_file() {
        return Err(say("not a plain file, not read".into()));
    }
    if meta.len() > max {
        return Err(say(format!("larger than {max} bytes, not read")));
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max).read_to_string(&mut text))
        .map_err(|e| say(e.to_string()))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_outside_the_root_are_refused_and_unknown_ones_not_found() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("a")).unwrap();
        std::fs::write(d.path().join("a/metrics.csv"), "iteration\n1\n").unwrap();
        let ix = RunsIndex::new(d.path().to_path_buf());
        assert_eq!(ix.find("a").unwrap().kind, Kind::Run);
        for bad in ["../a", "/etc", "a/../../x", "", "a\\..\\b"] {
            assert!(matches!(ix.find(bad), Err(RunError::Outside(_))), "{bad}");
        }
        assert!(matches!(ix.find("b"), Err(RunError::Unknown(_))));
        // A run made after the walk is found at once.
        std::fs::create_dir(d.path().join("b")).unwrap();
        std::fs::write(d.path().join("b/lock"), "").unwrap();
        assert!(ix.find("b").is_ok());
    }

    #[test]
    fn metrics_are_read_again_only_when_the_file_changes() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("metrics.csv");
        std::fs::write(&p, "iteration\n1\n").unwrap();
        let ix = RunsIndex::new(d.path().to_path_buf());
        let run = ix.find(".").unwrap();
        let a = ix.metrics(&run);
        assert!(Arc::ptr_eq(&a, &ix.metrics(&run)));
        std::fs::write(&p, "iteration\n1\n2\n").unwrap();
        let b = ix.metrics(&run);
        assert_eq!(b.as_ref().as_ref().unwrap().rows(), 2);
        let listed = ix.list_json();
        assert_eq!(listed["runs"][0]["id"], ".");
        assert_eq!(listed["runs"][0]["iteration"], 2.0);
    }
}

//! What a run is doing: running, stopped or finished, how far it went and how far it has
//! to go, and the config it runs, all from its files without writing or locking any.

use std::path::Path;
use std::time::SystemTime;

use serde_json::{Value, json};

use super::metrics::Metrics;
use super::scan::Kind;

/// A run's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// An `oware train` holds its lock now.
    Running,
    /// Not training, short of its limits (it resumes with the same command).
    Stopped,
    /// Not training, at one of its limits.
    Finished,
    /// Not training, no iteration yet.
    Empty,
    /// A lone metrics file: no config, no lock, so neither stopped nor finished is known.
    Recorded,
}

impl State {
    /// Its name in the API.
    pub fn name(self) -> &'static str {
        match self {
            State::Running => "running",
            State::Stopped => "stopped",
            State::Finished => "finished",
            State::Empty => "empty",
            State::Recorded => "recorded",
        }
    }
}

/// The limits of a run, from its config.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// `train.iterations` (0: none).
    pub iterations: u64,
    /// `train.time_limit_minutes` (0: none).
    pub minutes: f64,
}

/// The config keys a run's summary shows.
const SHOWN: [&str; 12] = [
    "game.rules",
    "model.width",
    "model.blocks",
    "model.encoding",
    "search.algorithm",
    "search.simulations",
    "selfplay.games_per_iteration",
    "threads",
    "train.batch_size",
    "train.learning_rate",
    "train.iterations",
    "train.time_limit_minutes",
];

/// The shown keys of a run's `config.toml` (flat, dotted names) and its limits; `None`
/// where it has none or it cannot be read (a config of any older trainer reads: only
/// these keys are looked at).
pub fn config_summary(dir: &Path) -> Option<(Value, Limits)> {
    let text = super::read_capped(&dir.join("config.toml"), 1 << 20).ok()?;
    let root = toml::Value::Table(text.parse::<toml::Table>().ok()?);
    let lookup = |key: &str| {
        key.split('.')
            .try_fold(&root, |v, part| v.get(part))
            .and_then(|v| serde_json::to_value(v).ok())
    };
    let shown: serde_json::Map<String, Value> = SHOWN
        .iter()
        .filter_map(|k| Some((k.to_string(), lookup(k)?)))
        .collect();
    let num = |k: &str| shown.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let limits = Limits {
        iterations: num("train.iterations").max(0.0) as u64,
        minutes: num("train.time_limit_minutes").max(0.0),
    };
    Some((Value::Object(shown), limits))
}

/// Whether an `oware train` holds `dir`'s lock now: the process named in `lock` is
/// alive and, where the system lists its locks (`/proc/locks`), holds a lock on that
/// very file. Read only: taking the lock, even for a moment, could turn a starting
/// trainer away.
pub fn training(dir: &Path) -> bool {
    let lock = dir.join("lock");
    let Ok(text) = super::read_capped(&lock, 64) else {
        return false;
    };
    let Ok(pid) = text.trim().parse::<i32>() else {
        return false;
    };
    if !oware_core::files::process_alive(pid) {
        return false;
    }
    match std::fs::read_to_string("/proc/locks") {
        Ok(locks) => holds_lock(&locks, pid, &lock),
        Err(_) => true,
    }
}

/// Whether `/proc/locks` (its text `locks`) shows process `pid` holding a lock on `file`.
fn holds_lock(locks: &str, pid: i32, file: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(file) else {
        return false;
    };
    let inode = meta.ino().to_string();
    let pid = pid.to_string();
    locks.lines().any(|l| {
        // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() >= 6
            && f[1] == "FLOCK"
            && f[4] == pid
            && f[5].rsplit(':').next() == Some(inode.as_str())
    })
}

/// The summary of one run for `GET /api/v1/runs`.
pub fn summary(kind: Kind, path: &Path, m: Result<&Metrics, &str>) -> Value {
    let running = kind == Kind::Run && training(path);
    let config = (kind != Kind::MetricsFile)
        .then(|| config_summary(path))
        .flatten();
    let limits = config.as_ref().map(|c| c.1).unwrap_or_default();
    let (iteration, wall, games, positions) = match m {
        Ok(m) => (
            m.last("iteration"),
            m.last("wall_seconds"),
            m.last("total_games"),
            m.last("total_positions"),
        ),
        Err(_) => (None, None, None, None),
    };
    let it = iteration.unwrap_or(0.0);
    let secs = wall.unwrap_or(0.0);
    let at_limit = (limits.iterations > 0 && it >= limits.iterations as f64)
        || (limits.minutes > 0.0 && secs >= limits.minutes * 60.0);
    let state = if running {
        State::Running
    } else if kind == Kind::MetricsFile {
        State::Recorded
    } else if iteration.is_none() {
        State::Empty
    } else if at_limit {
        State::Finished
    } else {
        State::Stopped
    };
    let unfinished = matches!(state, State::Running | State::Stopped | State::Empty);
    let seconds_left =
        (unfinished && limits.minutes > 0.0).then(|| (limits.minutes * 60.0 - secs).max(0.0));
    let iterations_left =
        (unfinished && limits.iterations > 0).then(|| (limits.iterations as f64 - it).max(0.0));
    let file = match kind {
        Kind::MetricsFile => path.to_path_buf(),
        Kind::Capsule => path.join("metrics.csv.gz"),
        Kind::Run => path.join("metrics.csv"),
    };
    json!({
        "kind": kind.name(),
        "state": state.name(),
        "iteration": iteration,
        "wall_seconds": wall,
        "games": games,
        "positions": positions,
        "seconds_left": seconds_left,
        "iterations_left": iterations_left,
        "updated_seconds_ago": age_seconds(&file),
        "config": config.map(|c| c.0),
        "machines": machines(kind, path),
        "bad_rows": m.map(|m| m.bad_rows).unwrap_or(0),
        "problem": m.err(),
    })
}

/// The largest `machines.jsonl` read (thousands of legs).
const MACHINES_BYTES: u64 = 1 << 20;

/// The machines of the run's legs (`machines.jsonl`, which `oware train` appends to at
/// each start and resume), oldest first: every line that reads as a JSON object, as it
/// is; none for a lone metrics file, or a run from before the file.
fn machines(kind: Kind, path: &Path) -> Vec<Value> {
    if kind == Kind::MetricsFile {
        return Vec::new();
    }
    let Ok(text) = super::read_capped(&path.join("machines.jsonl"), MACHINES_BYTES) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(Value::is_object)
        .collect()
}

/// Seconds since `file` last changed (`null` if it cannot be told).
fn age_seconds(file: &Path) -> Option<f64> {
    let t = std::fs::metadata(file).ok()?.modified().ok()?;
    Some(
        SystemTime::now()
            .duration_since(t)
            .ok()?
            .as_secs_f64()
            .round(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_of_any_age_gives_its_shown_keys_and_limits() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("config.toml"),
            "threads = 2\nold_key = 1\n[model]\nwidth = 128\n[train]\niterations = 0\ntime_limit_minutes = 12.0\n",
        )
        .unwrap();
        let (v, l) = config_summary(d.path()).unwrap();
        assert_eq!(v["model.width"], 128);
        assert_eq!(v["threads"], 2);
        assert!(v.get("old_key").is_none());
        assert_eq!(
            l,
            Limits {
                iterations: 0,
                minutes: 12.0
            }
        );
    }

    #[test]
    fn a_lock_is_read_from_proc_locks() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("lock");
        std::fs::write(&f, "77").unwrap();
        use std::os::unix::fs::MetadataExt;
        let ino = std::fs::metadata(&f).unwrap().ino();
        let locks = format!("1: FLOCK  ADVISORY  WRITE 77 08:01:{ino} 0 EOF\n");
        assert!(holds_lock(&locks, 77, &f));
        assert!(!holds_lock(&locks, 78, &f));
        assert!(!holds_lock(
            "1: POSIX  ADVISORY  WRITE 77 08:01:1 0 EOF\n",
            77,
            &f
        ));
        // No process holds a lock in a fresh folder.
        assert!(!training(d.path()));
    }

    #[test]
    fn states_follow_the_limits() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("config.toml"),
            "[train]\niterations = 2\ntime_limit_minutes = 0\n",
        )
        .unwrap();
        let one = super::super::metrics::parse(b"iteration,wall_seconds\n1,5\n").unwrap();
        let two = super::super::metrics::parse(b"iteration,wall_seconds\n1,5\n2,9\n").unwrap();
        let s = summary(Kind::Run, d.path(), Ok(&one));
        assert_eq!(
            (s["state"].as_str(), s["iterations_left"].as_f64()),
            (Some("stopped"), Some(1.0))
        );
        assert_eq!(summary(Kind::Run, d.path(), Ok(&two))["state"], "finished");
        assert_eq!(
            summary(Kind::Run, d.path(), Ok(&Metrics::default()))["state"],
            "empty"
        );
        assert_eq!(
            summary(Kind::MetricsFile, d.path(), Ok(&two))["state"],
            "recorded"
        );
        let bad = summary(Kind::Run, d.path(), Err("metrics.csv: broken"));
        assert_eq!(bad["problem"], "metrics.csv: broken");
    }

    #[test]
    fn the_machines_of_a_run_s_legs_are_listed_and_a_bad_line_skipped() {
        let d = tempfile::tempdir().unwrap();
        let none = summary(Kind::Run, d.path(), Ok(&Metrics::default()));
        assert_eq!(none["machines"], json!([]));
        std::fs::write(
            d.path().join("machines.jsonl"),
            "{\"iteration\":0,\"cpu\":\"A\"}\n{\"iteration\":\n[1]\n{\"iteration\":7,\"cpu\":\"B\"}\n",
        )
        .unwrap();
        let s = summary(Kind::Run, d.path(), Ok(&Metrics::default()));
        assert_eq!(
            s["machines"],
            json!([{"iteration": 0, "cpu": "A"}, {"iteration": 7, "cpu": "B"}])
        );
        let m = summary(Kind::MetricsFile, d.path(), Ok(&Metrics::default()));
        assert_eq!(m["machines"], json!([]));
    }
}

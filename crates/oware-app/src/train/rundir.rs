//! The run directory: its layout, its lock, its state file (the commit point of an
//! iteration), and the files the loop writes and removes there.
//!
//! ```text
//! RUN/config.toml              the effective config
//! RUN/state.json               the commit point of an iteration (see below)
//! RUN/metrics.csv              one row per iteration
//! RUN/pool.jsonl               every evaluation game (the rating pool, `oware rate`)
//! RUN/learning-curves.png      losses, evaluation score and Elo against wall time
//! RUN/checkpoints/iter-NNNN/   model.bpk, optimizer.bpk, manifest.json
//! RUN/checkpoints/latest       name of the newest checkpoint
//! RUN/samples/*.bin            sample chunks (self-play output, the replay window's data)
//! RUN/games/iter-NNNN.txt      the iteration's self-play games (`oware replay` input)
//! RUN/lock                     held by the one `oware train` writing the run
//! ```
//!
//! Crash safety: every file is written to a temporary name and renamed. An iteration's
//! checkpoint, then its metrics row, then `state.json` are written; `state.json` names
//! the checkpoint and the window's chunks, so a run killed at any moment resumes from
//! the last iteration whose `state.json` landed, losing at most the iteration in flight.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::config::Config;
use crate::selfplay::SelfPlayOutput;
use oware_core::files::atomic_write;
use oware_core::game::{Game, Position, RuleSet, move_letter};
use oware_net::net::checkpoint::checkpoints_dir;

/// The run directory's lock file: held (flock) by the one `oware train` writing the run,
/// with its process id inside. The kernel drops the lock when the process ends, however it
/// ends, so a stale file never blocks a new session.
pub const LOCK_FILE: &str = "lock";

/// Takes the run directory's lock, or says which process holds it.
pub fn lock_run(run: &Path) -> Result<fs::File> {
    use std::io::{Read, Seek, Write};
    use std::os::fd::AsRawFd;
    let path = run.join(LOCK_FILE);
    let mut f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    // SAFETY: flock on a file descriptor this function owns.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r != 0 {
        let mut pid = String::new();
        let _ = f.read_to_string(&mut pid);
        bail!(
            "{} is in use by another `oware train` (pid {}): one writer per run; wait for it \
             to finish or stop it",
            run.display(),
            pid.trim()
        );
    }
    f.set_len(0)?;
    f.rewind()?;
    writeln!(f, "{}", std::process::id())?;
    f.flush()?;
    Ok(f)
}

/// What `state.json` records: enough to resume exactly.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Iterations completed.
    pub iteration: u32,
    /// The checkpoint of that iteration (directory name under `checkpoints/`).
    pub checkpoint: String,
    /// Every chunk file already taken into the window (so it is not taken twice). The
    /// files of those that left the window are deleted.
    pub consumed: std::collections::BTreeSet<String>,
    /// The chunks in the window, oldest first.
    pub window: Vec<String>,
    /// Samples ever added to the window.
    pub total_seen: u64,
    /// Wall seconds spent over all sessions.
    pub wall_seconds: f64,
    /// Self-play games over all iterations.
    pub total_games: u64,
    /// Wall seconds spent in periodic evaluations over all sessions.
    #[serde(default)]
    pub eval_seconds: f64,
    /// Samples the last iteration's intake brought (what the next learn phase trains
    /// for under `train.overlap`).
    #[serde(default)]
    pub last_new_samples: u64,
    /// Samples the window held when the run was carried in a capsule, which did not
    /// carry them: self-play plays them again (`train.refill_fraction` of them) before
    /// gradient steps resume. 0 once the window is full again, and in a run never moved.
    #[serde(default)]
    pub refill: u64,
}

/// Paths inside a run directory.
pub struct RunDir {
    /// The run directory.
    pub root: PathBuf,
}

impl RunDir {
    /// `RUN/config.toml`.
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    /// `RUN/state.json`.
    pub fn state(&self) -> PathBuf {
        self.root.join("state.json")
    }
    /// `RUN/metrics.csv`.
    pub fn metrics(&self) -> PathBuf {
        self.root.join("metrics.csv")
    }
    /// `RUN/samples`.
    pub fn samples(&self) -> PathBuf {
        self.root.join("samples")
    }
    /// `RUN/checkpoints/NAME`.
    pub fn checkpoint(&self, name: &str) -> PathBuf {
        checkpoints_dir(&self.root).join(name)
    }
    /// `RUN/games`.
    pub fn games(&self) -> PathBuf {
        self.root.join("games")
    }
    /// `RUN/learning-curves.png`.
    pub fn plot(&self) -> PathBuf {
        self.root.join("learning-curves.png")
    }
    /// The run's name: its directory's (`quick` for `experiments/quick`).
    pub fn name(&self) -> String {
        let abs = std::path::absolute(&self.root).unwrap_or_else(|_| self.root.clone());
        abs.file_name()
            .map_or_else(|| "run".to_string(), |n| n.to_string_lossy().into_owned())
    }

    /// Commits `state` as `state.json` (atomically: the iteration it names is complete).
    pub fn write_state(&self, state: &RunState) -> Result<()> {
        atomic_write(
            &self.state(),
            serde_json::to_string_pretty(state)?.as_bytes(),
        )
    }

    /// Reads `state.json`, if the run has one.
    pub fn read_state(&self) -> Result<Option<RunState>> {
        let p = self.state();
        if !p.exists() {
            return Ok(None);
        }
        let text = fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
        let s =
            serde_json::from_str(&text).with_context(|| format!("{} is damaged", p.display()))?;
        Ok(Some(s))
    }
}

/// Loads the config a run should use: a new run takes `config`; an existing run
/// (with `state.json`) keeps its own `config.toml`, and `config`, if given, must equal it
/// except for the limits in `[train]` (iterations, time limit), which may be extended,
/// and `train.refill_fraction`, which applies where the run resumes.
pub fn effective_config(run: &RunDir, config: Option<Config>) -> Result<Config> {
    let saved = if run.config().exists() && run.state().exists() {
        Some(Config::load_saved(&run.config())?)
    } else {
        None
    };
    match (saved, config) {
        (None, Some(c)) => Ok(c),
        (None, None) => bail!(
            "{} holds no run to resume (no state.json); give --config to start one",
            run.root.display()
        ),
        (Some(s), None) => Ok(s),
        (Some(s), Some(c)) => {
            let mut a = s.clone();
            let mut b = c.clone();
            a.train.iterations = 0;
            b.train.iterations = 0;
            a.train.time_limit_minutes = 0.0;
            b.train.time_limit_minutes = 0.0;
            // How a moved run refills its window is decided where it resumes.
            a.train.refill_fraction = 0.0;
            b.train.refill_fraction = 0.0;
            if a != b {
                bail!(
                    "{} was started with a different config ({}); resume it without --config, \
                     or start a new run with another --run-dir",
                    run.root.display(),
                    run.config().display()
                );
            }
            Ok(c)
        }
    }
}

/// The chunk files in `RUN/samples` not taken yet, in name order.
pub(super) fn new_chunk_names(
    run: &RunDir,
    consumed: &std::collections::BTreeSet<String>,
) -> Result<Vec<String>> {
    let mut names: Vec<String> = fs::read_dir(run.samples())
        .with_context(|| format!("reading {}", run.samples().display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".bin") && !n.starts_with('.') && !consumed.contains(n))
        .collect();
    names.sort();
    Ok(names)
}

/// Writes the iteration's games, one per line as `FEN;moves`, replayable by `oware replay`.
pub(super) fn write_games(path: &Path, rules: RuleSet, out: &SelfPlayOutput) -> Result<()> {
    let mut text = String::new();
    for g in &out.games {
        // Replayed to know each mover (in ouril a player can move twice in a row).
        let mut game = Game::new(rules, Position::start());
        let start = *game.position();
        let mut moves = String::with_capacity(g.moves.len());
        for &a in &g.moves {
            moves.push(move_letter(game.position().side, a as usize));
            game.play(a as usize)
                .context("replaying a self-play game")?;
        }
        text.push_str(&format!("{start};{moves}\n"));
    }
    atomic_write(path, text.as_bytes())
}

/// Deletes the named chunk files from `RUN/samples` (a failure is logged: a chunk left
/// behind costs disk, not correctness).
pub(super) fn delete_chunks(run: &RunDir, names: &[String], log: &dyn Fn(String)) {
    for n in names {
        let p = run.samples().join(n);
        if let Err(e) = fs::remove_file(&p)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            log(format!("could not delete {}: {e}", p.display()));
        }
    }
}

/// Removes the oldest `iter-*` checkpoints while more than `keep` remain, never
/// `current` nor those in `needed`.
pub(super) fn prune_checkpoints(
    run: &RunDir,
    keep: usize,
    current: &str,
    needed: &[String],
) -> Result<()> {
    if keep == 0 {
        return Ok(());
    }
    let dir = checkpoints_dir(&run.root);
    let mut names: Vec<String> = fs::read_dir(&dir)?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("iter-") && !n.contains(".tmp"))
        .collect();
    names.sort();
    while names.len() > keep {
        let Some(i) = names
            .iter()
            .position(|n| n != current && !needed.contains(n))
        else {
            break;
        };
        let n = names.remove(i);
        fs::remove_dir_all(dir.join(&n)).with_context(|| format!("removing old checkpoint {n}"))?;
    }
    Ok(())
}

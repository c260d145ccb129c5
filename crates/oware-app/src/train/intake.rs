//! Intake: the sample chunks in `RUN/samples/` into the replay window. A resumed run
//! reads back the window its state names; each iteration takes every chunk not taken yet
//! (its own self-play's and any worker's), in name order, and may first wait for
//! workers' chunks.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fs;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::replay::{Chunk, ReplayWindow, WindowRule};
use super::report::duration_text;
use super::rundir::{RunDir, RunState, delete_chunks, new_chunk_names};
use super::stop::stop_requested;
use crate::dataio::chunk::read_chunk;
use oware_core::game::RuleSet;

/// The window `state` names, read back from its chunk files; chunks a killed session
/// evicted but had not deleted yet are deleted now.
pub(super) fn restore_window(
    run: &RunDir,
    state: &RunState,
    rules: RuleSet,
    log: &dyn Fn(String),
) -> Result<ReplayWindow> {
    let mut window = ReplayWindow::new();
    for name in &state.window {
        let samples = read_chunk(&run.samples().join(name), rules)?;
        window.push_existing(Chunk {
            name: name.clone(),
            samples,
        });
    }
    window.total_seen = state.total_seen;
    let keep: HashSet<&String> = state.window.iter().collect();
    let stale: Vec<String> = fs::read_dir(run.samples())?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| state.consumed.contains(n) && !keep.contains(n))
        .collect();
    delete_chunks(run, &stale, log);
    Ok(window)
}

/// What an intake changed.
pub(super) struct Intake {
    /// Samples that came in.
    pub new_samples: u64,
    /// Chunks that left the window (their files are deleted once the state is committed).
    pub evicted: Vec<String>,
}

/// Takes every chunk not consumed yet into `window`, in name order (deterministic),
/// marking each consumed. A chunk that cannot be read is set aside as `NAME.bad`.
pub(super) fn take_new_chunks(
    run: &RunDir,
    consumed: &mut BTreeSet<String>,
    window: &mut ReplayWindow,
    rule: &WindowRule,
    rules: RuleSet,
    log: &dyn Fn(String),
) -> Result<Intake> {
    let before: Vec<String> = window.chunk_names();
    let mut new_samples = 0u64;
    for n in &new_chunk_names(run, consumed)? {
        match read_chunk(&run.samples().join(n), rules) {
            Ok(samples) => {
                new_samples += samples.len() as u64;
                window.add(
                    Chunk {
                        name: n.clone(),
                        samples,
                    },
                    rule,
                );
            }
            Err(e) => {
                // Kept aside under another name, for a look, never read again.
                let bad = run.samples().join(format!("{n}.bad"));
                let _ = fs::rename(run.samples().join(n), &bad);
                log(format!(
                    "skipping sample chunk (kept as {}): {e:#}",
                    bad.display()
                ))
            }
        }
        consumed.insert(n.clone());
    }
    let now_in: HashSet<String> = window.chunk_names().into_iter().collect();
    let evicted = before.into_iter().filter(|n| !now_in.contains(n)).collect();
    Ok(Intake {
        new_samples,
        evicted,
    })
}

/// How a wait for workers' samples ended.
#[derive(Debug, PartialEq)]
pub(super) enum Waited {
    /// The new chunks hold enough samples.
    Enough,
    /// A stop was requested (Ctrl-C, SIGTERM).
    Stopped,
    /// The run's time limit passed.
    TimeUp,
}

/// Waits until the chunks in `RUN/samples` not taken yet hold at least `need` valid
/// samples, looking every 100 ms, answering a stop request at once, and saying every 30
/// seconds how many it has. A chunk that cannot be read counts nothing (the trainer sets
/// it aside when it takes the new chunks).
pub(super) fn wait_for_samples(
    run: &RunDir,
    consumed: &BTreeSet<String>,
    rules: RuleSet,
    need: u64,
    deadline: Option<Duration>,
    log: &dyn Fn(String),
) -> Result<Waited> {
    let start = Instant::now();
    let mut counted: HashMap<String, u64> = HashMap::new();
    let mut said = Instant::now();
    loop {
        for n in new_chunk_names(run, consumed)? {
            let path = run.samples().join(&n);
            counted
                .entry(n)
                .or_insert_with(|| read_chunk(&path, rules).map_or(0, |s| s.len() as u64));
        }
        let have: u64 = counted.values().sum();
        if have >= need {
            return Ok(Waited::Enough);
        }
        if stop_requested().is_some() {
            return Ok(Waited::Stopped);
        }
        if deadline.is_some_and(|d| start.elapsed() >= d) {
            return Ok(Waited::TimeUp);
        }
        if said.elapsed() >= Duration::from_secs(30) {
            log(format!(
                "waiting for samples from workers: {have} of {need} after {}",
                duration_text(start.elapsed().as_secs_f64())
            ));
            said = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

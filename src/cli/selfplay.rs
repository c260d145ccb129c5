//! `oware selfplay`: an extra self-play worker for a training run. It reads the run's
//! config and newest checkpoint, writes sample chunks into `RUN/samples/`, and picks up
//! each new checkpoint the trainer publishes. Run several, on this machine or others
//! that mount the same directory.

use std::path::PathBuf;

use anyhow::{Context, Result};

use oware_app::dataio::chunk::write_chunk;
use oware_app::selfplay::{self, Players, Progress};
use oware_app::train::config::Config;
use oware_app::train::rundir::RunDir;
use oware_core::files::atomic_write;
use oware_core::rng::splitmix64;
use oware_core::search::Evaluator;
use oware_net::net::{DeviceKind, NetEvaluator};

/// Arguments of `oware selfplay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The training run's directory (shared with the trainer).
    #[arg(long)]
    run_dir: PathBuf,
    /// This worker's name in its chunk files (default: host-pid).
    #[arg(long)]
    worker: Option<String>,
    /// Batches of games to play before exiting (0 = until killed).
    #[arg(long, default_value_t = 0)]
    batches: u64,
    /// Games per batch (default: the config's selfplay.games_per_iteration).
    #[arg(long)]
    games: Option<usize>,
    /// Threads (default: the config's `threads`).
    #[arg(long)]
    threads: Option<usize>,
}

pub fn run(a: Args) -> Result<()> {
    let dir = RunDir {
        root: a.run_dir.clone(),
    };
    let config = Config::load_saved(&dir.config())
        .with_context(|| format!("{} is not a training run directory", a.run_dir.display()))?;
    let worker = a.worker.clone().unwrap_or_else(|| {
        let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
        format!("{}-{}", host.trim(), std::process::id())
    });
    if worker.is_empty() || worker.contains(['/', '\\', '.']) {
        anyhow::bail!("--worker '{worker}': use letters, digits, '-' or '_'");
    }
    let threads = a
        .threads
        .unwrap_or_else(|| config.selfplay_threads())
        .max(1);
    let games = a
        .games
        .unwrap_or(config.selfplay.games_per_iteration)
        .max(1);
    let mut worker_seed = config.seed;
    for b in worker.bytes() {
        worker_seed = worker_seed.rotate_left(8) ^ b as u64;
    }
    // Chunk numbers never repeat, across restarts too: the next one is kept in
    // RUN/workers/NAME.next and claimed before its games are played (a number claimed by
    // a killed worker is skipped). The trainer takes each chunk name once, and deletes a
    // chunk's file when it leaves the replay window, so a name used again would be lost.
    let counter = dir.root.join("workers").join(format!("{worker}.next"));
    std::fs::create_dir_all(counter.parent().expect("has a parent"))
        .with_context(|| format!("creating {}", dir.root.join("workers").display()))?;
    let mut n = first_free_number(&dir, &worker, &counter)?;
    let mut played = 0u64;
    loop {
        if a.batches > 0 && played >= a.batches {
            return Ok(());
        }
        played += 1;
        atomic_write(&counter, format!("{}\n", n + 1).as_bytes())
            .with_context(|| format!("writing {}", counter.display()))?;
        // The newest network each batch.
        let mut evaluators: Vec<Box<dyn Evaluator>> = Vec::with_capacity(threads);
        let mut step = 0;
        for _ in 0..threads {
            let (e, manifest) = NetEvaluator::from_checkpoint(&a.run_dir, DeviceKind::Cpu)?;
            step = manifest.step;
            evaluators.push(Box::new(e));
        }
        let mut s = worker_seed ^ n.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        let out = selfplay::play(
            &config.selfplay,
            &config.search,
            config.game.rules,
            games,
            splitmix64(&mut s),
            Players::own(evaluators),
            &Progress::default(),
        );
        let name = format!("worker-{worker}-{n:05}.bin");
        write_chunk(&dir.samples().join(&name), config.game.rules, &out.samples)?;
        eprintln!(
            "{name}: {} games, {} samples with the network of step {step} ({:.0} sims/s)",
            out.games.len(),
            out.samples.len(),
            out.simulations as f64 / out.seconds.max(1e-9)
        );
        n += 1;
    }
}

/// The worker's next chunk number: after the one its counter file names, after any of its
/// chunks still in `RUN/samples`, and after any the trainer has recorded as taken (runs
/// from before the counter file existed).
fn first_free_number(dir: &RunDir, worker: &str, counter: &std::path::Path) -> Result<u64> {
    let mut next = 1u64;
    if counter.exists() {
        let text = std::fs::read_to_string(counter)
            .with_context(|| format!("reading {}", counter.display()))?;
        next = text.trim().parse::<u64>().map_err(|_| {
            anyhow::anyhow!(
                "{}: expected a chunk number, found '{}'",
                counter.display(),
                text.trim()
            )
        })?;
    }
    let prefix = format!("worker-{worker}-");
    let number = |name: &str| -> Option<u64> {
        name.strip_prefix(&prefix)?
            .split('.')
            .next()?
            .parse::<u64>()
            .ok()
    };
    let mut names: Vec<String> = std::fs::read_dir(dir.samples())
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    if let Ok(Some(state)) = dir.read_state() {
        names.extend(state.consumed);
    }
    for name in &names {
        if let Some(k) = number(name) {
            next = next.max(k + 1);
        }
    }
    Ok(next)
}

//! `oware selfplay`: an extra self-play worker for a training run. It reads the run's
//! config and newest checkpoint, writes sample chunks into `RUN/samples/`, and picks up
//! each new checkpoint the trainer publishes. Run several, on this machine or others
//! that mount the same directory.

use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::net::{DeviceKind, NetEvaluator};
use crate::rng::splitmix64;
use crate::search::Evaluator;
use crate::selfplay::{self, Progress};
use crate::train::config::Config;
use crate::train::run::RunDir;
use crate::train::samples::write_chunk;

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
    let config = Config::load(&dir.config(), &[])
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
    let mut n = 0u64;
    loop {
        if a.batches > 0 && n >= a.batches {
            return Ok(());
        }
        n += 1;
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
            evaluators,
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
    }
}

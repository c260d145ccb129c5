//! `oware engine`: the engine text protocol (shared/ENGINE-PROTOCOL.md) on stdin/stdout,
//! played by alpha-beta or, with `--model`, by MCTS with the network.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::engine::{AlphaBetaSearcher, MctsSearcher, serve};
use crate::net::{DeviceKind, NetEvaluator};

/// Arguments of `oware engine`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set until the GUI sets the `Rules` option: abapa, awari,
    /// grand-slam-captures, ouril, traditional. Default: the model's, else abapa.
    #[arg(long)]
    rules: Option<String>,
    /// Transposition table size in MiB (the `Hash` option; alpha-beta only).
    #[arg(long, default_value_t = 64)]
    tt_mb: usize,
    /// Play MCTS with this network: a checkpoint directory or a run directory (its
    /// latest checkpoint). Without it the engine is alpha-beta.
    #[arg(long)]
    model: Option<PathBuf>,
    /// With --model: at most this many simulations per move (the `Simulations` option).
    /// `go nodes N` is N simulations, `go depth D` is 100·D.
    #[arg(long, conflicts_with = "movetime")]
    sims: Option<u32>,
    /// With --model: at most this many milliseconds per move (the `MoveTime` option).
    #[arg(long)]
    movetime: Option<u64>,
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    let stdin = std::io::stdin();
    let Some(model) = &a.model else {
        if a.sims.is_some() || a.movetime.is_some() {
            bail!("--sims and --movetime need --model (alpha-beta takes `go depth`/`go movetime`)");
        }
        let rules = super::parse_rules(a.rules.as_deref().unwrap_or("abapa"))?;
        if a.tt_mb == 0 || a.tt_mb > 65_536 {
            bail!("--tt-mb {}: expected 1 to 65536 MiB", a.tt_mb);
        }
        let searcher = AlphaBetaSearcher::new(rules, a.tt_mb);
        return serve(searcher, rules, stdin.lock(), std::io::stdout()).context("reading stdin");
    };
    if a.sims == Some(0) {
        bail!("--sims 0: expected at least 1 simulation");
    }
    if a.movetime == Some(0) {
        bail!("--movetime 0: expected at least 1 ms");
    }
    let (evaluator, manifest) = NetEvaluator::from_checkpoint(model, DeviceKind::Cpu)?;
    let rules = super::parse_rules(a.rules.as_deref().unwrap_or(&manifest.rules))?;
    let searcher = MctsSearcher::new(
        Box::new(evaluator),
        rules,
        a.sims,
        a.movetime.map(Duration::from_millis),
    );
    serve(searcher, rules, stdin.lock(), std::io::stdout()).context("reading stdin")
}

//! `oware engine`: the engine text protocol (shared/ENGINE-PROTOCOL.md) on stdin/stdout.

use anyhow::{Context, Result, bail};

use crate::engine::{AlphaBetaSearcher, serve};

/// Arguments of `oware engine`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set until the GUI sets the `Rules` option: abapa, awari,
    /// grand-slam-captures, ouril, traditional.
    #[arg(long, default_value = "abapa")]
    rules: String,
    /// Transposition table size in MiB (the `Hash` option).
    #[arg(long, default_value_t = 64)]
    tt_mb: usize,
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    let rules = super::parse_rules(&a.rules)?;
    if a.tt_mb == 0 || a.tt_mb > 65_536 {
        bail!("--tt-mb {}: expected 1 to 65536 MiB", a.tt_mb);
    }
    // Later players (a network with --model) plug in here as other `EngineSearcher`s.
    let searcher = AlphaBetaSearcher::new(rules, a.tt_mb);
    let stdin = std::io::stdin();
    serve(searcher, rules, stdin.lock(), std::io::stdout()).context("reading stdin")
}

//! `oware engine`: the engine text protocol (docs/engine-protocol.md) on stdin/stdout,
//! played by MCTS with a network (the shipped `checkpoints/oware-abapa` unless `--model`
//! names another) or, with `--alphabeta`, by the alpha-beta search.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use oware_app::engine::{AlphaBetaSearcher, serve};
use oware_app::player::MctsSearcher;
use oware_net::net::{DeviceKind, NetEvaluator};

/// Arguments of `oware engine`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set until the GUI sets the `Rules` option: abapa, awari,
    /// grand-slam-captures, ouril, traditional. Default: the model's, else abapa.
    #[arg(long)]
    rules: Option<String>,
    /// Play with the alpha-beta search instead of the network.
    #[arg(long, conflicts_with_all = ["model", "sims", "movetime", "threads", "hash", "shipped_tb", "no_tb", "minibatch", "c_puct", "policy_temp"])]
    alphabeta: bool,
    /// With --alphabeta: transposition table size in MiB (the `Hash` option).
    #[arg(long, requires = "alphabeta")]
    tt_mb: Option<usize>,
    /// The network MCTS plays with: a checkpoint directory or a run directory (its latest
    /// checkpoint). Default: the shipped network, checkpoints/oware-abapa.
    #[arg(long)]
    model: Option<PathBuf>,
    /// At most this many simulations per move (the `Simulations` option).
    /// `go nodes N` is N simulations, `go depth D` is 100·D.
    #[arg(long, conflicts_with = "movetime")]
    sims: Option<u32>,
    /// At most this many milliseconds per move (the `MoveTime` option).
    #[arg(long)]
    movetime: Option<u64>,
    /// Endgame tables (`oware tablebase build`): positions they cover get their exact
    /// result, in the alpha-beta search and in MCTS alike.
    #[arg(long, alias = "tb", value_name = "DIR")]
    tablebase: Option<PathBuf>,
    /// MCTS with the shipped tables of its rules (`tablebases/RULES`), if present: the
    /// default, which this states.
    #[arg(long, conflicts_with = "tablebase")]
    shipped_tb: bool,
    /// MCTS without endgame tables (by default it opens the shipped ones of its rules,
    /// if present, and ends lines only where they prove the result).
    #[arg(long, conflicts_with_all = ["tablebase", "shipped_tb"])]
    no_tb: bool,
    /// MCTS worker threads (the `Threads` option). Default: the machine's cores.
    #[arg(long)]
    threads: Option<usize>,
    /// MCTS memory for the tree and the evaluation cache, MiB (the `Hash` option).
    #[arg(long, value_name = "MIB")]
    hash: Option<usize>,
    /// MCTS leaves per network call (the `MinibatchSize` option).
    #[arg(long)]
    minibatch: Option<usize>,
    /// MCTS exploration constant of PUCT (the `CPuct` option).
    #[arg(long)]
    c_puct: Option<f32>,
    /// MCTS policy softmax temperature: priors become softmax(logits / T) (the
    /// `PolicyTemp` option; 1 leaves the network's priors as they are).
    #[arg(long)]
    policy_temp: Option<f32>,
}

/// The shipped tables of `rules` (`tablebases/RULES` here, else beside the sources),
/// if present.
pub(crate) fn shipped_tables(rules: oware_core::game::RuleSet) -> Option<PathBuf> {
    let name = rules.to_string();
    let local = PathBuf::from("tablebases").join(&name);
    let beside = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tablebases")
        .join(&name);
    [local, beside]
        .into_iter()
        .find(|d| d.join("manifest.json").is_file())
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    let stdin = std::io::stdin();
    if a.alphabeta {
        let rules = super::parse_rules(a.rules.as_deref().unwrap_or("abapa"))?;
        let tt_mb = a.tt_mb.unwrap_or(64);
        if tt_mb == 0 || tt_mb > 65_536 {
            bail!("--tt-mb {tt_mb}: expected 1 to 65536 MiB");
        }
        let tb = super::open_tablebase(a.tablebase.as_deref(), rules)?;
        let searcher = AlphaBetaSearcher::new(rules, tt_mb).with_tablebase(tb);
        return serve(searcher, rules, stdin.lock(), std::io::stdout()).context("reading stdin");
    }
    let model = a
        .model
        .unwrap_or_else(oware_net::net::checkpoint::default_model_path);
    if a.sims == Some(0) {
        bail!("--sims 0: expected at least 1 simulation");
    }
    if a.movetime == Some(0) {
        bail!("--movetime 0: expected at least 1 ms");
    }
    let (evaluator, manifest) = NetEvaluator::from_checkpoint(&model, DeviceKind::Cpu)?;
    let rules = super::rules_for_network(a.rules.as_deref(), &manifest.rules)?;
    let dir = match (&a.tablebase, a.no_tb) {
        (Some(d), _) => Some(d.clone()),
        (None, true) => None,
        (None, false) => shipped_tables(rules),
    };
    let tb = super::open_tablebase(dir.as_deref(), rules)?;
    let mut searcher = MctsSearcher::new(
        Box::new(evaluator),
        rules,
        a.sims,
        a.movetime.map(Duration::from_millis),
    )
    .with_settings(&manifest.search_settings())
    .with_tablebase(tb);
    use oware_app::engine::EngineSearcher;
    if let Some(t) = a.threads {
        searcher
            .set_option("Threads", &t.to_string())
            .map_err(|e| anyhow::anyhow!("--threads: {e}"))?;
    }
    if let Some(b) = a.minibatch {
        searcher
            .set_option("MinibatchSize", &b.to_string())
            .map_err(|e| anyhow::anyhow!("--minibatch: {e}"))?;
    }
    if let Some(c) = a.c_puct {
        searcher
            .set_option("CPuct", &c.to_string())
            .map_err(|e| anyhow::anyhow!("--c-puct: {e}"))?;
    }
    if let Some(t) = a.policy_temp {
        searcher
            .set_option("PolicyTemp", &t.to_string())
            .map_err(|e| anyhow::anyhow!("--policy-temp: {e}"))?;
    }
    if let Some(h) = a.hash {
        searcher
            .set_option("Hash", &h.to_string())
            .map_err(|e| anyhow::anyhow!("--hash: {e}"))?;
    }
    serve(searcher, rules, stdin.lock(), std::io::stdout()).context("reading stdin")
}

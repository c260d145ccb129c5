//! `oware search`: the alpha-beta engine's best move for one position.

use anyhow::{Result, bail};

use oware_core::search::{AlphaBeta, Limits};

/// Arguments of `oware search`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("limit").required(true).args(["depth", "movetime", "nodes"])))]
pub struct Args {
    #[command(flatten)]
    position: super::PositionArgs,
    /// Search exactly this many plies (1 to 64; deterministic).
    #[arg(long)]
    depth: Option<u32>,
    /// Search for this many milliseconds.
    #[arg(long)]
    movetime: Option<u64>,
    /// Search about this many nodes (deterministic).
    #[arg(long)]
    nodes: Option<u64>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64)]
    tt_mb: usize,
    /// Endgame tables (`oware tablebase build`): positions below the root that they
    /// cover score their exact result.
    #[arg(long, value_name = "DIR")]
    tb: Option<std::path::PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    if let Some(d) = a.depth
        && !(1..=oware_core::search::alphabeta::MAX_DEPTH).contains(&d)
    {
        bail!("--depth {d}: expected a depth from 1 to 64 plies");
    }
    if a.movetime == Some(0) {
        bail!("--movetime 0: expected a positive number of milliseconds");
    }
    if a.nodes == Some(0) {
        bail!("--nodes 0: expected a positive number of nodes");
    }
    if a.tt_mb == 0 || a.tt_mb > 65_536 {
        bail!("--tt-mb {}: expected 1 to 65536 MiB", a.tt_mb);
    }
    let game = a.position.game()?;
    let rules = game.rules();
    let limits = Limits {
        depth: a.depth,
        nodes: a.nodes,
        movetime: a.movetime.map(std::time::Duration::from_millis),
        soft: None,
    };
    let mut ab = AlphaBeta::new(rules, a.tt_mb);
    ab.set_tablebase(super::open_tablebase(a.tb.as_deref(), rules)?);
    let r = ab.search(&game, &limits);
    let best = r.best_letter().map(|c| c.to_string());
    if a.json {
        let v = serde_json::json!({
            "best": best, "score": r.score_cp, "depth": r.depth, "nodes": r.nodes,
            "nps": r.nps, "time_ms": r.elapsed.as_millis() as u64,
            "seconds": r.elapsed.as_secs_f64(), "pv": r.pv, "tb_hits": ab.tb_hits,
        });
        super::out(&format!("{v}\n"))
    } else {
        let over = match game.outcome() {
            Some(o) => format!(" (game over: {})", o.reason.name()),
            None => String::new(),
        };
        super::out(&format!(
            "best {}{over}\nscore {} cp (mover's view)\ndepth {}\nnodes {}\nnps {}\ntime {} ms\npv {}\n",
            best.as_deref().unwrap_or("none"),
            r.score_cp,
            r.depth,
            r.nodes,
            r.nps,
            r.elapsed.as_millis(),
            r.pv
        ))
    }
}

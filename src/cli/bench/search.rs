//! `oware bench search`: alpha-beta speed (nodes per second, time to a depth) on a
//! fixed suite, single-threaded.

use std::time::Duration;

use anyhow::{Result, bail};

use oware_core::game::{Position, RuleSet};
use oware_core::search::{AlphaBeta, Limits};

/// The suite: the start, then ten middle-game positions reached by random play from the
/// start (16 to 39 plies; `oware-zero` Rng seeds 101 and up), chosen with at least 30
/// seeds on the board and stores within 4 seeds of each other. Searched without history.
pub const SUITE: [&str; 11] = [
    "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S",
    "0-3-0-17-11-0-1-4-1-4-4-0-0-3-N",
    "2-0-0-4-1-3-0-15-3-1-5-12-2-0-S",
    "1-8-7-0-5-3-0-0-11-1-0-0-7-5-S",
    "6-2-1-8-10-0-5-1-2-4-5-0-2-2-S",
    "3-2-1-3-12-3-0-2-11-1-0-1-5-4-S",
    "1-3-4-1-13-2-1-2-4-12-3-0-2-0-S",
    "0-7-3-1-4-10-1-1-11-1-7-0-0-2-N",
    "2-15-5-0-1-7-1-0-2-7-0-6-2-0-S",
    "1-1-1-4-5-10-1-0-0-5-12-4-4-0-S",
    "10-0-2-4-0-3-1-5-0-14-2-3-4-0-N",
];

/// Arguments of `oware bench search`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Depth to search each position to, in plies.
    #[arg(long, default_value_t = 14)]
    depth: u32,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64)]
    tt_mb: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// One suite position's figures.
struct Row {
    fen: &'static str,
    best: String,
    score: i32,
    nodes: u64,
    time: Duration,
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    if !(1..=oware_core::search::alphabeta::MAX_DEPTH).contains(&a.depth) {
        bail!("--depth {}: expected a depth from 1 to 64 plies", a.depth);
    }
    if a.tt_mb == 0 || a.tt_mb > 65_536 {
        bail!("--tt-mb {}: expected 1 to 65536 MiB", a.tt_mb);
    }
    let rules = RuleSet::abapa();
    let mut ab = AlphaBeta::new(rules, a.tt_mb);
    let mut rows = Vec::new();
    for fen in SUITE {
        let pos: Position = fen.parse()?;
        let r = ab.search_position(&pos, &Limits::depth(a.depth));
        rows.push(Row {
            fen,
            best: r.best_letter().map(String::from).unwrap_or_default(),
            score: r.score_cp,
            nodes: r.nodes,
            time: r.elapsed,
        });
    }
    let nodes: u64 = rows.iter().map(|r| r.nodes).sum();
    let secs: f64 = rows.iter().map(|r| r.time.as_secs_f64()).sum();
    let nps = nodes as f64 / secs.max(1e-9);
    if a.json {
        let per: Vec<_> = rows
            .iter()
            .map(|r| {
                serde_json::json!({"fen": r.fen, "best": r.best, "score": r.score,
                    "nodes": r.nodes, "seconds": r.time.as_secs_f64()})
            })
            .collect();
        let v = serde_json::json!({"depth": a.depth, "nodes": nodes, "seconds": secs,
            "nodes_per_second": nps, "positions": per});
        super::super::out(&format!("{v}\n"))
    } else {
        let mut s = format!("depth {}, single thread, {} MiB table\n", a.depth, a.tt_mb);
        for r in &rows {
            s.push_str(&format!(
                "{:<34} best {:<1} score {:>6}  {:>12} nodes {:>9.3} s {:>6.1} M nodes/s\n",
                r.fen,
                r.best,
                r.score,
                r.nodes,
                r.time.as_secs_f64(),
                r.nodes as f64 / r.time.as_secs_f64().max(1e-9) / 1e6
            ));
        }
        s.push_str(&format!(
            "total {nodes} nodes in {secs:.3} s: {:.2} M nodes/s\n",
            nps / 1e6
        ));
        super::super::out(&s)
    }
}

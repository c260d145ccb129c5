//! `oware bench game`: perft and random-playout speed, single-threaded.

use std::time::Instant;

use anyhow::Result;

use oware_core::game::{History, Position, RuleSet, perft, random_playout};
use oware_core::rng::Rng;

/// Arguments of `oware bench game`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Perft depth from the start.
    #[arg(long, default_value_t = 10)]
    depth: u32,
    /// Random games to play.
    #[arg(long, default_value_t = 100_000)]
    games: u32,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Single-threaded perft leaves per second from the start at `depth`.
pub fn perft_rate(depth: u32) -> (u64, f64) {
    let t = Instant::now();
    let n = perft(&Position::start(), RuleSet::abapa(), depth);
    (n, n as f64 / t.elapsed().as_secs_f64().max(1e-9))
}

pub fn run(a: Args) -> Result<()> {
    let (leaves, perft_rate) = perft_rate(a.depth.clamp(1, 14));
    let mut rng = Rng::new(1);
    let mut h = History::default();
    let t = Instant::now();
    let mut plies = 0u64;
    for _ in 0..a.games {
        plies += random_playout(&Position::start(), RuleSet::abapa(), &mut rng, &mut h).1 as u64;
    }
    let secs = t.elapsed().as_secs_f64();
    let playout_rate = plies as f64 / secs.max(1e-9);
    if a.json {
        let v = serde_json::json!({
            "perft_depth": a.depth, "perft_leaves": leaves, "perft_moves_per_second": perft_rate,
            "playout_games": a.games, "playout_moves": plies, "playout_moves_per_second": playout_rate,
        });
        super::super::out(&format!("{v}\n"))
    } else {
        super::super::out(&format!(
            "perft({}) {leaves} leaves: {:.1} M moves/s (bulk-counted leaves)\n\
             random playouts: {} games, {plies} moves: {:.1} M moves/s (every move played)\n",
            a.depth,
            perft_rate / 1e6,
            a.games,
            playout_rate / 1e6
        ))
    }
}

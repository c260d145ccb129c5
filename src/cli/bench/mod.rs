//! `oware bench`: the speed of every hot path, as text or one JSON object.

use anyhow::Result;
use clap::Subcommand;

mod env;
mod game;

/// Which hot path to measure.
#[derive(Subcommand, Debug)]
pub enum Bench {
    /// Rules engine: perft from the start and random playouts, single-threaded.
    Game(game::Args),
    /// Batched environment: random-game steps per second on all cores, vs perft.
    Env(env::Args),
}

pub fn run(b: Bench) -> Result<()> {
    match b {
        Bench::Game(a) => game::run(a),
        Bench::Env(a) => env::run(a),
    }
}

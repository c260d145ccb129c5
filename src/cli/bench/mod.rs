//! `oware bench`: the speed of every hot path, as text or one JSON object.

use anyhow::Result;
use clap::Subcommand;

mod game;

/// Which hot path to measure.
#[derive(Subcommand, Debug)]
pub enum Bench {
    /// Rules engine: perft from the start and random playouts, single-threaded.
    Game(game::Args),
}

pub fn run(b: Bench) -> Result<()> {
    match b {
        Bench::Game(a) => game::run(a),
    }
}

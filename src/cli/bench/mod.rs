//! `oware bench`: the speed of every hot path, as text or one JSON object.

use anyhow::Result;
use clap::Subcommand;

mod game;
mod search;

/// Which hot path to measure.
#[derive(Subcommand, Debug)]
pub enum Bench {
    /// Rules engine: perft from the start and random playouts, single-threaded.
    Game(game::Args),
    /// Alpha-beta: nodes per second and time to a depth on a fixed suite, one thread.
    Search(search::Args),
}

pub fn run(b: Bench) -> Result<()> {
    match b {
        Bench::Game(a) => game::run(a),
        Bench::Search(a) => search::run(a),
    }
}

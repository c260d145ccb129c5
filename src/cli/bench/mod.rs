//! `oware bench`: the speed of every hot path, as text or one JSON object.

use anyhow::Result;
use clap::Subcommand;

mod engine;
mod env;
mod game;
mod mcts;
mod net;
mod search;
mod tablebase;

/// Which hot path to measure.
#[derive(Subcommand, Debug)]
pub enum Bench {
    /// Rules engine: perft from the start and random playouts, single-threaded.
    Game(game::Args),
    /// The engine's search with the shipped network: simulations per second by threads
    /// and leaves per network call, the evaluation cache's hit rate, collisions.
    Engine(engine::Args),
    /// Batched environment: random-game steps per second on all cores, vs perft.
    Env(env::Args),
    /// Batched MCTS with the default network: simulations per second by games in flight.
    Mcts(mcts::Args),
    /// Network: evaluations per second by batch size (fast and burn paths, 1 and 2
    /// threads), per-call overhead, training steps per second.
    Net(net::Args),
    /// Alpha-beta: nodes per second and time to a depth on a fixed suite, one thread.
    Search(search::Args),
    /// Endgame tables: boards solved per second (built in memory) and time per probe.
    Tablebase(tablebase::Args),
}

pub fn run(b: Bench) -> Result<()> {
    match b {
        Bench::Game(a) => game::run(a),
        Bench::Engine(a) => engine::run(a),
        Bench::Env(a) => env::run(a),
        Bench::Mcts(a) => mcts::run(a),
        Bench::Net(a) => net::run(a),
        Bench::Search(a) => search::run(a),
        Bench::Tablebase(a) => tablebase::run(a),
    }
}

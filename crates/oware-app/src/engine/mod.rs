//! The engine text protocol of `docs/engine-protocol.md` (UCI-like lines on stdin and
//! stdout): the server loop, generic over any [`EngineSearcher`], and the client that
//! drives an external engine process ([`client::EngineProcess`]). The loop's own player
//! is [`AlphaBetaSearcher`]; the network's (`MctsSearcher`), the play levels and game
//! review live a floor up, in `crate::player`.
//!
//! The loop reads commands on one thread and runs each search on another, so `stop`,
//! `isready` and `quit` are answered while a search runs. Malformed or illegal input is
//! answered with `info string error: …` and changes nothing.

pub mod client;
mod server;

pub use server::{
    AlphaBetaSearcher, Go, MAX_LINE, parse_go, parse_position, read_line_bounded, serve,
};

use std::sync::atomic::AtomicBool;

use oware_core::game::Game;
use oware_core::search::{Limits, SearchResult};

/// An option an engine advertises in its answer to `uci`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOption {
    /// The option's name, as `setoption name NAME` gives it.
    pub name: String,
    /// The rest of the `option` line after the name: `type spin default 64 min 1 max 65536`.
    pub spec: String,
}

/// A player the protocol loop can drive: alpha-beta or MCTS with a network.
/// Implementations run on the search thread, hence `Send + 'static`.
pub trait EngineSearcher: Send + 'static {
    /// The engine's name for `id name`.
    fn name(&self) -> String;

    /// The options to advertise (the loop adds `Rules` itself).
    fn options(&self) -> Vec<EngineOption>;

    /// Sets an advertised option. `Err` carries a message naming what was wrong
    /// (an unknown name or a bad value); the option is then left unchanged.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String>;

    /// A new game starts: drop any state kept between moves.
    fn new_game(&mut self);

    /// The deepest `go depth` this searcher takes; a deeper one searches this deep, and
    /// the engine says so. Alpha-beta's deepest search by default.
    fn max_depth(&self) -> u32 {
        oware_core::search::alphabeta::MAX_DEPTH
    }

    /// Searches `game` (never over) within `limits` until done or until `stop` becomes
    /// true, calling `info` with the result so far (at least once per finished
    /// iteration, as the searcher defines it). Returns the final result, whose
    /// `best_move` must be a legal action.
    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchResult),
    ) -> SearchResult;
}

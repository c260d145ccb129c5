//! Evaluation: matches between players with paired openings and honest statistics
//! (`oware eval`, `oware ladder`, and the trainer's periodic evaluation).
//!
//! - `stats`: W/D/L, Elo with a 95% interval (pentanomial and trinomial), LOS, SPRT.
//! - `player`: player SPECs (`alphabeta:depth=4`, `mcts:sims=64`, `model:PATH`, …) and
//!   the players built from them.
//! - `match`: a match between two players, all games in flight at once, the MCTS
//!   players' evaluations batched.
//! - `rating`: maximum-likelihood Elo of every player of a pool of games, anchored,
//!   with bootstrap or Hessian intervals.
//! - `pool`: the pool file (one game record per line, appended atomically).
//! - `ladder`: the model against alpha-beta at increasing depths, on a fixed Elo scale.
//! - `accuracy`: the share of a player's moves that keep the best result, judged by the
//!   endgame tables on positions from self-play games.

pub mod accuracy;
pub mod gauntlet;
mod ladder;
mod r#match;
pub mod player;
pub mod pool;
pub mod rating;
pub mod stats;

pub use ladder::{LadderConfig, LadderReport, LadderRung, run_ladder, run_ladder_with};
pub use r#match::{
    GameEnd, GameRecord, MatchConfig, MatchError, MatchProgress, MatchReport, Opening, Openings,
    check_engine, choose_moves, parse_openings, random_openings, run_match, run_match_with,
};
pub use player::{AlphaBetaLimit, MctsEval, Player, PlayerError, PlayerSpec, SpecError};
pub use stats::{Decision, Pentanomial, Sprt, SprtConfig, Summary, Wdl};

//! Evaluation: matches between players with paired openings and honest statistics
//! (`oware eval`, `oware ladder`, and the trainer's periodic evaluation).
//!
//! - `stats`: W/D/L, Elo with a 95% interval (pentanomial and trinomial), LOS, SPRT.
//! - `player`: player SPECs (`alphabeta:depth=4`, `mcts:sims=64`, `model:PATH`, …) and
//!   the players built from them.
//! - `openings`: the openings of a match's pairs, read from text or drawn at random.
//! - `match_config`: a match's settings and the checks that refuse bad ones.
//! - `record`: what a match produces: game records, progress, the report.
//! - `clock`: players on a clock: time left, charged move by move.
//! - `external_engine`: an external engine process as a match player.
//! - `schedule`: the games of a match in the order they start, each game in flight.
//! - `driver`: each player's move-making machinery (random, MCTS, alpha-beta, engine).
//! - `tally`: the figures kept as games finish (W/D/L, pentanomial, the SPRT).
//! - `match`: a match between two players, all games in flight at once, the MCTS
//!   players' evaluations batched.
//! - `rating_fit`: the maximum-likelihood fit (Newton's method, anchored) and the
//!   clamping of perfect matchups.
//! - `rating`: Elo of every player of a pool of games, anchored, with bootstrap or
//!   Hessian intervals, and the rating table.
//! - `rating_pool`: the rating pool file (one game record per line, appended
//!   atomically) and topping it up with new games.
//! - `ladder`: the model against alpha-beta at increasing depths, on a fixed Elo scale.
//! - `accuracy`: the share of a player's moves that keep the best result, judged by the
//!   endgame tables on positions from self-play games.

pub mod accuracy;
mod clock;
mod driver;
mod external_engine;
pub mod gauntlet;
mod ladder;
mod r#match;
mod match_config;
mod openings;
pub mod player;
pub mod rating;
mod rating_fit;
pub mod rating_pool;
mod record;
mod schedule;
pub mod stats;
mod tally;

pub use driver::choose_moves;
pub use external_engine::check_engine;
pub use ladder::{LadderConfig, LadderReport, LadderRung, run_ladder, run_ladder_with};
pub use r#match::{run_match, run_match_with};
pub use match_config::{MatchConfig, MatchError};
pub use openings::{Opening, Openings, parse_openings, random_openings};
pub use player::{AlphaBetaLimit, MctsEval, Player, PlayerError, PlayerSpec, SpecError};
pub use record::{GameEnd, GameRecord, MatchProgress, MatchReport};
pub use stats::{Decision, Pentanomial, Sprt, SprtConfig, Summary, Wdl};

//! oware-zero: a self-play reinforcement-learning trainer for Oware.
//!
//! The program is four crates in dependency order, as `src/README.md` says: `oware-core`
//! (the rules, the tables, the batched games, the searches; no burn), `oware-net` (the
//! network and its export), `oware-app` (engine protocol, players, training data,
//! self-play, matches, training, the web app) and this one, the command line (`cli`).
//! Every room of the crates below is re-exported here under its own name
//! (`oware_zero::game`, `oware_zero::train`, …), so a program using the library names
//! one crate.

pub use oware_app::{arena, dataio, engine, player, selfplay, serve, train};
pub use oware_core::{env, files, game, rng, search, tablebase};
pub use oware_net::{export, net};

pub mod cli;

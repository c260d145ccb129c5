//! oware-app: what the program does with the game and the network — the engine text
//! protocol, the players, training data, self-play, matches and ratings, the training
//! loop, and `oware serve`'s web app and HTTP API.
//!
//! Modules in dependency order (each uses only those above it), as `src/README.md` says:
//! `engine` → `player` → `dataio` → `selfplay` → `arena` → `train` → `serve`.

#![allow(clippy::needless_range_loop)]

pub mod engine;

pub mod player;

pub mod dataio;

pub mod selfplay;

pub mod arena;

pub mod train;

pub mod serve;

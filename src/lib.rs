//! oware-zero: a self-play reinforcement-learning trainer for Oware.
//!
//! Modules in dependency order (each uses only those above it), as `src/README.md` says:
//! `rng` → `files` → `game` → `tablebase` → `env` → `search` → `net` → `engine` → `player` → `export` → `dataio` → `selfplay` → `arena`
//! → `train` → `serve` → `cli`.

// Per-action code indexes several parallel [_; 6] arrays by action; index loops read
// clearer there than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod rng;

pub mod files;

pub mod game;

pub mod tablebase;

pub mod env;

pub mod search;

pub mod net;

pub mod engine;

pub mod player;

pub mod export;

pub mod dataio;

pub mod selfplay;

pub mod arena;

pub mod train;

pub mod serve;

pub mod cli;

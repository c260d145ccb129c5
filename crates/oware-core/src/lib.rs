//! oware-core: the game and everything that plays it without a network — the rules, the
//! endgame tables, many games stepped at once, and the searches (alpha-beta, and the MCTS
//! behind an `Evaluator` any network can implement). It never depends on burn, so its
//! tests build and run without compiling the network's crates.
//!
//! Modules in dependency order (each uses only those above it), as `src/README.md` says:
//! `rng` → `files` → `game` → `tablebase` → `env` → `search`.

// Per-action code indexes several parallel [_; 6] arrays by action; index loops read
// clearer there than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod rng;

pub mod files;

pub mod game;

pub mod tablebase;

pub mod env;

pub mod search;

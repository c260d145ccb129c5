//! oware-zero: a self-play reinforcement-learning trainer for Oware.
//!
//! Modules in dependency order (each uses only those above it), as `src/README.md` says:
//! `rng` → `game` → `env` → `search` → `engine` → `cli`.

pub mod rng;

pub mod game;

pub mod env;

pub mod search;

pub mod engine;

pub mod cli;

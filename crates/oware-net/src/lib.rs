//! oware-net: the policy/value network built with burn — the model, its plain-Rust
//! inference copy, the batched evaluator the searches of `oware-core` call, checkpoints,
//! the training step — and its export (ONNX, safetensors). The one crate of the program
//! that compiles burn's backends; a GPU feature (`wgpu`, `cuda`) rebuilds only this crate
//! and those above it.
//!
//! Modules in dependency order, as `src/README.md` says: `net` → `export`.

#![allow(clippy::needless_range_loop)]

pub mod net;

pub mod export;

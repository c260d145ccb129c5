//! Search: the alpha-beta baseline and the batched MCTS. Sees positions through the
//! `Evaluator` trait only, never burn.

pub mod alphabeta;
pub mod cache;
pub mod evaluator;
pub mod mcts;
pub mod prefetch;

pub use alphabeta::{AlphaBeta, Limits, SearchResult};
pub use evaluator::{Evaluation, Evaluator, RolloutEvaluator, UniformEvaluator, uniform_priors};

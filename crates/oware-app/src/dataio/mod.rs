//! Training data, written in one place: what a finished self-play game leaves behind
//! (its [`Sample`]s), how samples are kept on disk (`chunk`), and every training target
//! a sample gives the learner (`targets`).
//!
//! Self-play records a [`Searched`] position after each full search and hands the game's
//! list to [`label_game`] when the game ends; the trainer draws samples from its window
//! and turns them into a training batch with [`targets::fill_batch`]. Nothing else
//! builds a target.

pub mod chunk;
pub mod label;
pub mod targets;

pub use label::{LabelRule, label_game};

use oware_core::game::Position;

/// One training sample: a position searched with a full search, labelled with its game's
/// result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The position (features are computed from it by the trainer's encoding).
    pub position: Position,
    /// Legal moves there (6-bit mask of mover-relative actions).
    pub legal: u8,
    /// The search's policy target over the six actions (0 on illegal moves).
    pub policy: [f32; 6],
    /// The game's result for the mover here: +1 win, 0 draw, −1 loss.
    pub outcome: i8,
    /// Final store difference (own − opponent) for the mover here, in seeds.
    pub store_diff: f32,
    /// The search's value for the mover, [−1, 1], mixed into the value target: the root
    /// value, or with `selfplay.value_lambda` > 0 the λ-weighted blend of the later root
    /// values and the result ([`label::lambda_values`]).
    pub search_value: f32,
}

/// What a full search says about a position of a game still in progress: a sample
/// waiting for its game's result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Searched {
    /// The position searched.
    pub position: Position,
    /// Plies played in the game before this position (random openings included).
    pub ply: u32,
    /// Legal moves there.
    pub legal: u8,
    /// The search's policy target.
    pub policy: [f32; 6],
    /// The network's own policy at the root (before the search and its noise).
    pub prior: [f32; 6],
    /// The search's root value for the mover.
    pub search_value: f32,
}

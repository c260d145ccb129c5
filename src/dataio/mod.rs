//! Training data, written in one place: what a finished self-play game leaves behind
//! (its [`Sample`]s), how samples are kept on disk (`chunk`), and every training target
//! a sample gives the learner (`targets`).
//!
//! Self-play records a [`Searched`] position after each full search and hands the game's
//! list to [`label_game`] when the game ends; the trainer draws samples from its window
//! and turns them into a training batch with [`targets::fill_batch`]. Nothing else
//! builds a target.

pub mod chunk;
pub mod targets;

use crate::game::{Outcome, Position};

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
    /// The search's root value for the mover, [−1, 1] (for mixing into the value target).
    pub search_value: f32,
}

/// What a full search says about a position of a game still in progress: a sample
/// waiting for its game's result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Searched {
    /// The position searched.
    pub position: Position,
    /// Legal moves there.
    pub legal: u8,
    /// The search's policy target.
    pub policy: [f32; 6],
    /// The search's root value for the mover.
    pub search_value: f32,
}

/// The samples of a finished game: each searched position labelled with the result and
/// the final store difference from its mover's view, in the order they were searched.
pub fn label_game(searched: &[Searched], outcome: Outcome) -> Vec<Sample> {
    searched
        .iter()
        .map(|s| Sample {
            position: s.position,
            legal: s.legal,
            policy: s.policy,
            outcome: outcome.score_for(s.position.side),
            store_diff: outcome.store_diff_for(s.position.side),
            search_value: s.search_value,
        })
        .collect()
}

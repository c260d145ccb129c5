//! The rules of Oware (every rule set of `docs/rules.md`): positions, moves, endings,
//! position text, perft. No dependencies on any other layer.

mod ending;
mod history;
mod perft;
mod position;
mod rules;
mod text;

pub use history::{Game, History, MoveError, after_moves, mask_letters};
pub use perft::{perft, perft_all, random_playout};
pub use position::{EndReason, MoveInfo, Outcome, Position, Side, move_letter, parse_move_letter};
pub use rules::{GrandSlam, Leftover, Preset, RuleSet, SEEDS_PER_PIT, TOTAL_SEEDS, UnknownRuleSet};
pub use text::{TextError, diagram, diagram_for, ending_words, move_words, parse_moves};

#[cfg(test)]
mod tests;

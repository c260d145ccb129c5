//! The one rule for how a move ends the game, which every player of moves calls (`Game`,
//! the batched environment's lanes, the MCTS tree, alpha-beta, random playouts), each with
//! its own fast history: a move ends the game by repetition when the position it reached
//! occurred since the last capture, and otherwise by that position's own endings
//! ([`Position::status`]).

use super::position::{EndReason, Outcome, Position};
use super::rules::RuleSet;

impl Position {
    /// The game's end when the move that reached this position repeated one seen since
    /// the last capture: the seeds on the board are shared as the rule set's repetition
    /// rule says.
    #[inline]
    pub fn end_by_repetition(&self, rules: RuleSet) -> Outcome {
        self.share_out(EndReason::Repetition, rules.repetition)
    }

    /// How the move that reached this position, capturing `captured` seeds, ends the
    /// game, if it does.
    /// `repeated`: whether this position occurred since the last capture (the caller's
    /// history answers; a capture never repeats). `legal`: this position's legal mask
    /// ([`Position::legal_moves`]), which the caller needs anyway. Only a capture changes
    /// the stores, and only an empty mask ends the game otherwise, so the position's own
    /// (slower) endings are looked at only after one of the two.
    #[inline]
    pub fn end_after_move(
        &self,
        rules: RuleSet,
        captured: u8,
        legal: u8,
        repeated: bool,
    ) -> Option<Outcome> {
        if repeated {
            Some(self.end_by_repetition(rules))
        } else if captured > 0 || legal == 0 {
            self.status(rules)
        } else {
            None
        }
    }
}

//! Game history for the repetition rule, and `Game`: a position with its history,
//! its rules and its moves, which knows every way a game can end.

use super::position::{MoveInfo, Outcome, Position, Side, move_letter};
use super::rules::RuleSet;
use super::text::{TextError, parse_moves};

/// The positions seen since the last capture, as exact keys ([`Position::key`]).
///
/// No hashing: two keys are equal iff the positions are, so repetition is detected
/// without any chance of a false alarm. Cleared on capture; the storage is kept, so in
/// steady state recording a move allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct History {
    keys: Vec<u128>,
}

impl History {
    /// A history starting at `pos`.
    pub fn new(pos: &Position) -> History {
        let mut h = History {
            keys: Vec::with_capacity(64),
        };
        h.keys.push(pos.key());
        h
    }

    /// Forgets everything and starts again at `pos` (keeps the storage).
    pub fn reset(&mut self, pos: &Position) {
        self.keys.clear();
        self.keys.push(pos.key());
    }

    /// Records the position reached by a move that captured `captured` seeds; returns
    /// `true` if that position already occurred since the last capture.
    #[inline]
    pub fn record(&mut self, pos: &Position, captured: u8) -> bool {
        let k = pos.key();
        if captured > 0 {
            self.keys.clear();
            self.keys.push(k);
            return false;
        }
        let repeated = self.keys.contains(&k);
        self.keys.push(k);
        repeated
    }

    /// A history holding exactly `keys` ([`Position::key`] values, oldest first, the
    /// current position last): how a game kept elsewhere (the batched environment)
    /// hands its history to the search. Allocates.
    pub fn from_keys(keys: &[u128]) -> History {
        History {
            keys: keys.to_vec(),
        }
    }

    /// The recorded keys ([`Position::key`]), oldest first, the current position last.
    pub fn keys(&self) -> &[u128] {
        &self.keys
    }

    /// Positions recorded since the last capture, the current one included.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Never true after `new`/`reset`; here for completeness of the API.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether `pos` occurred since the last capture.
    pub fn contains(&self, pos: &Position) -> bool {
        self.keys.contains(&pos.key())
    }
}

/// A move that may not be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The game has already ended.
    #[error("move {letter} cannot be played: the game is over")]
    GameOver {
        /// The move tried.
        letter: char,
    },
    /// The move belongs to the player not on move.
    #[error("move {letter} is {owner}'s, but {to_move} is to move")]
    WrongSide {
        /// The move tried.
        letter: char,
        /// Whose pit it is.
        owner: Side,
        /// Who is to move.
        to_move: Side,
    },
    /// The pit may not be played here.
    #[error("move {letter} is illegal here (legal: {legal})")]
    Illegal {
        /// The move tried.
        letter: char,
        /// The legal moves' letters.
        legal: String,
    },
    /// The move text could not be read.
    #[error(transparent)]
    Text(#[from] TextError),
}

/// Where in a move list something went wrong: "after 1 move", "after 3 moves".
pub fn after_moves(n: usize) -> String {
    format!("after {n} move{}", if n == 1 { "" } else { "s" })
}

/// Letters of the moves in `mask` for `side`, in pit order (`ACF`).
pub fn mask_letters(side: Side, mask: u8) -> String {
    (0..6)
        .filter(|a| mask & (1 << a) != 0)
        .map(|a| move_letter(side, a))
        .collect()
}

/// A game in progress: rules, position, history and outcome.
#[derive(Clone, Debug)]
pub struct Game {
    rules: RuleSet,
    start: Position,
    position: Position,
    history: History,
    moves: Vec<(Side, u8)>,
    outcome: Option<Outcome>,
}

impl Game {
    /// A game from `start` under `rules` (the start itself may already be over).
    pub fn new(rules: RuleSet, start: Position) -> Game {
        Game {
            rules,
            start,
            position: start,
            history: History::new(&start),
            moves: Vec::new(),
            outcome: start.status(rules),
        }
    }

    /// The rules played.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// Where the game started.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The history since the last capture.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The outcome, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// Moves played so far as (side, action).
    pub fn moves(&self) -> &[(Side, u8)] {
        &self.moves
    }

    /// The moves played so far as letters (`FfBe`).
    pub fn move_text(&self) -> String {
        self.moves
            .iter()
            .map(|&(s, a)| move_letter(s, a as usize))
            .collect()
    }

    /// Legal moves as a 6-bit mask of actions; 0 when the game is over.
    pub fn legal_moves(&self) -> u8 {
        if self.is_over() {
            0
        } else {
            self.position.legal_moves(self.rules)
        }
    }

    /// Plays `action` (0..5) for the side to move.
    pub fn play(&mut self, action: usize) -> Result<MoveInfo, MoveError> {
        let side = self.position.side;
        let letter = move_letter(side, action.min(5));
        if self.is_over() {
            return Err(MoveError::GameOver { letter });
        }
        let legal = self.position.legal_moves(self.rules);
        if action >= 6 || legal & (1 << action) == 0 {
            return Err(MoveError::Illegal {
                letter,
                legal: mask_letters(side, legal),
            });
        }
        let info = self.position.apply(self.rules, action);
        self.moves.push((side, action as u8));
        let repeated = self.history.record(&self.position, info.captured);
        let legal = self.position.legal_moves(self.rules);
        self.outcome = self
            .position
            .end_after_move(self.rules, info.captured, legal, repeated);
        Ok(info)
    }

    /// Plays a move given by its letter, checking that it is the mover's.
    pub fn play_letter(&mut self, letter: char) -> Result<MoveInfo, MoveError> {
        let Some((owner, action)) = super::position::parse_move_letter(letter) else {
            return Err(MoveError::Text(TextError::BadMove {
                index: self.moves.len() + 1,
                token: letter,
            }));
        };
        if self.is_over() {
            return Err(MoveError::GameOver { letter });
        }
        let to_move = self.position.side;
        if owner != to_move {
            return Err(MoveError::WrongSide {
                letter,
                owner,
                to_move,
            });
        }
        self.play(action)
    }

    /// Plays a move list (`FfBe` or `F f B e`); stops at the first bad move, leaving
    /// the moves before it played.
    pub fn play_text(&mut self, text: &str) -> Result<(), MoveError> {
        for (side, action) in parse_moves(text)? {
            self.play_letter(move_letter(side, action))?;
        }
        Ok(())
    }
}

//! What decides how a batch plays, what a step fills in for the caller, and bad input.

use thiserror::Error;

use super::encoding::Encoding;
use crate::game::RuleSet;

/// The action value meaning "do not step this game" in [`BatchEnv::step`](super::BatchEnv::step).
pub const SKIP: u8 = u8::MAX;
/// What happens to a game when it ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AutoReset {
    /// A new game starts in the slot at once (from the start or a random opening); the
    /// finished game's result stays readable in [`BatchEnv::last_outcome`](super::BatchEnv::last_outcome).
    #[default]
    On,
    /// The finished game stays parked (legal mask 0, actions ignored) until
    /// [`BatchEnv::reset_game`](super::BatchEnv::reset_game) or [`BatchEnv::restart_game`](super::BatchEnv::restart_game) starts a new one.
    Off,
}

/// How new games begin: `min_plies..=max_plies` uniformly random legal plies from the
/// start, drawn from the game's own RNG stream (`0..=0` = the start position).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Openings {
    /// Fewest random plies.
    pub min_plies: u32,
    /// Most random plies (≥ `min_plies`, at most [`Openings::MAX_PLIES`]).
    pub max_plies: u32,
}

impl Openings {
    /// The largest `max_plies` accepted (random games last 97 plies at the median).
    pub const MAX_PLIES: u32 = 200;

    /// Every game from the start position.
    pub const fn start() -> Openings {
        Openings {
            min_plies: 0,
            max_plies: 0,
        }
    }

    /// Exactly `k` random plies.
    pub const fn exactly(k: u32) -> Openings {
        Openings {
            min_plies: k,
            max_plies: k,
        }
    }
}

/// Everything that decides how a batch plays, apart from the actions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EnvConfig {
    /// The rule set every game is played under.
    pub rules: RuleSet,
    /// Seed of every per-game RNG stream (game `i` uses `Rng::stream(seed, i)`).
    pub seed: u64,
    /// How new games begin.
    pub openings: Openings,
    /// Whether finished games restart at once.
    pub auto_reset: AutoReset,
    /// Whether each game's actions are kept ([`BatchEnv::moves`](super::BatchEnv::moves)), for a caller that
    /// records whole games.
    pub record_moves: bool,
}

/// Bad input to the batched environment. Nothing is changed when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EnvError {
    /// A batch needs at least one game.
    #[error("a batch needs at least one game (got 0)")]
    NoGames,
    /// The openings range is empty or too long.
    #[error(
        "openings: {min}..={max} plies is not a valid range (need min ≤ max ≤ {limit})",
        limit = Openings::MAX_PLIES
    )]
    BadOpenings {
        /// `min_plies` asked for.
        min: u32,
        /// `max_plies` asked for.
        max: u32,
    },
    /// A caller buffer has the wrong length.
    #[error(
        "buffer '{name}' holds {got} values, expected {expected} ({per_game} per game × {games} games)"
    )]
    BufferLength {
        /// Which buffer.
        name: &'static str,
        /// Its length.
        got: usize,
        /// The length needed.
        expected: usize,
        /// Values per game.
        per_game: usize,
        /// Games in the batch.
        games: usize,
    },
    /// An action that may not be played in its game.
    #[error(
        "game {game}: action {action} is illegal (legal actions: [{legal}], moves {letters}; {skip} skips a game)",
        skip = SKIP
    )]
    IllegalAction {
        /// The game's index.
        game: usize,
        /// The action given.
        action: u8,
        /// The legal actions, comma-separated.
        legal: String,
        /// The legal moves' letters.
        letters: String,
    },
    /// A game index past the end of the batch.
    #[error("game {game} does not exist (the batch has {games} games)")]
    NoSuchGame {
        /// The index given.
        game: usize,
        /// Games in the batch.
        games: usize,
    },
    /// A start position whose seeds do not add up to the game's total.
    #[error("game {game}: the start position holds {seeds} seeds, expected {expected}")]
    BadSeedCount {
        /// The game's index.
        game: usize,
        /// Seeds in the pits and stores.
        seeds: u32,
        /// The game's total (48).
        expected: u8,
    },
    /// A start position in which the game is already over.
    #[error("game {game}: the start position {fen} is already over")]
    StartIsOver {
        /// The game's index.
        game: usize,
        /// The position, as text.
        fen: String,
    },
}

/// Caller buffers a step fills; an empty slice means "not wanted". Lengths are checked.
///
/// All are row-major over games, game `i` first in its row:
/// - `legal`: N masks of the new current positions (bit `a` = action `a`; 0 = parked);
/// - `features`: N × `encoding.dim()` floats, game `i`'s new current position encoded
///   by `encoding` from the mover's view (after an auto-reset: the new game's);
/// - `rewards`: N floats, the finished game's result for the player who made this
///   step's move (+1 win, 0 draw, −1 loss); 0 for games that did not end or were not
///   stepped;
/// - `done`: N flags, true iff the game ended at this step (its outcome is then in
///   [`BatchEnv::last_outcome`](super::BatchEnv::last_outcome)).
#[derive(Debug, Default)]
pub struct StepOut<'a> {
    /// Legal masks, N bytes.
    pub legal: &'a mut [u8],
    /// Input features, N × `encoding.dim()` floats.
    pub features: &'a mut [f32],
    /// The layout of `features`.
    pub encoding: Encoding,
    /// Rewards, N floats.
    pub rewards: &'a mut [f32],
    /// Done flags, N bools.
    pub done: &'a mut [bool],
}

/// What a step did, summed over the batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepSummary {
    /// Games in which a move was played.
    pub stepped: usize,
    /// Games that ended at this step.
    pub finished: usize,
}

impl std::ops::Add for StepSummary {
    type Output = StepSummary;
    fn add(self, o: StepSummary) -> StepSummary {
        StepSummary {
            stepped: self.stepped + o.stepped,
            finished: self.finished + o.finished,
        }
    }
}

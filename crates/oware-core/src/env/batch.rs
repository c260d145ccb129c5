//! `BatchEnv`: N Oware games (1 to well over 100 000) stepped together, one action each,
//! split over all cores.
//!
//! Storage is flat and preallocated, one lane per quantity (structure of arrays), so a
//! step streams through memory once and allocates nothing:
//!
//! | lane | per game | what |
//! |---|---|---|
//! | positions | 16 B | the current [`Position`] (`positions()` is the `&[Position]` an evaluator takes) |
//! | legal | 1 B | legal-move mask of the current position, bit `a` = action `a`; 0 = parked (over) |
//! | meta | 48 B | the game's RNG stream, ply counter, history length and filter |
//! | keys | [`HISTORY_SLOTS`] × 8 B | the repetition history (exact keys, see `stretch_key`) |
//! | overflow | 24 B | a `Vec` used only by the rare game going more than [`HISTORY_SLOTS`] plies without a capture; its storage is kept |
//! | outcomes | 8 B | the result of the last game finished in this slot |
//! | moves | 24 B + its plies | the game's actions from its start position, openings included (only with [`EnvConfig::record_moves`]; storage kept) |
//!
//! One step of one game is exactly the scalar [`Game::play`](crate::game::Game::play):
//! apply the move, record the position in the history (a repeat ends the game by
//! repetition), else check the position's own endings. The legal mask computed for the
//! ending check is kept and reused for the next step's validation and random choice,
//! so each step computes it once.
//!
//! Game `i` draws every random number (opening plies, random actions) from its own
//! stream `Rng::stream(seed, i)`, which it keeps across the games it plays: results do
//! not depend on the number of threads or on the other games. A caller that numbers its
//! games (self-play) starts game `g` in a slot with [`BatchEnv::start_game`]: that game
//! draws from stream `g` instead, wherever and whenever it is played.
use crate::game::{History, Outcome, Position, RuleSet, TOTAL_SEEDS, mask_letters};
use crate::rng::Rng;

use super::config::{EnvConfig, EnvError, Openings, SKIP, StepOut, StepSummary};
use super::encoding::Encoding;
use super::lanes::{
    Actions, GameMut, GameRange, HISTORY_SLOTS, Io, Meta, chunk_size, fill_random, filter_bit,
    full_key, history_slice, par_run, step_chunk, stretch_key,
};

/// N games stepped together. See the module documentation for the layout.
///
/// The work runs on the current rayon pool (the global one, one thread per core, unless
/// called inside `ThreadPool::install`), in tasks of at least 256 games.
#[derive(Debug)]
pub struct BatchEnv {
    config: EnvConfig,
    positions: Vec<Position>,
    legal: Vec<u8>,
    meta: Vec<Meta>,
    keys: Vec<u64>,
    overflow: Vec<Vec<u64>>,
    outcomes: Vec<Option<Outcome>>,
    moves: Vec<Vec<u8>>,
    finished_total: u64,
    /// Whether steps split the games over the rayon pool (else they run on the caller's
    /// thread).
    parallel: bool,
}
impl BatchEnv {
    /// `games` games under `config`, each starting as `config.openings` says.
    pub fn new(games: usize, config: EnvConfig) -> Result<BatchEnv, EnvError> {
        if games == 0 {
            return Err(EnvError::NoGames);
        }
        let o = config.openings;
        if o.min_plies > o.max_plies || o.max_plies > Openings::MAX_PLIES {
            return Err(EnvError::BadOpenings {
                min: o.min_plies,
                max: o.max_plies,
            });
        }
        let mut env = BatchEnv {
            config,
            positions: vec![Position::start(); games],
            legal: vec![0; games],
            meta: (0..games)
                .map(|i| Meta {
                    rng: Rng::stream(config.seed, i as u64),
                    ply: 0,
                    hist_len: 0,
                    record: config.record_moves,
                    filter: 0,
                })
                .collect(),
            keys: vec![0; games * HISTORY_SLOTS],
            overflow: (0..games).map(|_| Vec::new()).collect(),
            outcomes: vec![None; games],
            moves: (0..games).map(|_| Vec::new()).collect(),
            finished_total: 0,
            parallel: true,
        };
        let cfg = env.config;
        let n = env.len();
        par_run(
            env.lanes(),
            Io {
                actions: Actions::Random,
                out: StepOut::default(),
            },
            chunk_size(n),
            &|lanes: GameRange<'_>, _io| {
                lanes.for_each_game(|_, mut g| g.begin_random(cfg.rules, cfg.openings));
                StepSummary::default()
            },
        );
        Ok(env)
    }

    fn lanes(&mut self) -> GameRange<'_> {
        GameRange {
            positions: &mut self.positions,
            legal: &mut self.legal,
            meta: &mut self.meta,
            keys: &mut self.keys,
            overflow: &mut self.overflow,
            outcomes: &mut self.outcomes,
            moves: &mut self.moves,
        }
    }

    fn game_mut(&mut self, i: usize) -> GameMut<'_> {
        GameMut {
            pos: &mut self.positions[i],
            legal: &mut self.legal[i],
            meta: &mut self.meta[i],
            keys: &mut self.keys[i * HISTORY_SLOTS..(i + 1) * HISTORY_SLOTS],
            overflow: &mut self.overflow[i],
            outcome: &mut self.outcomes[i],
            moves: &mut self.moves[i],
        }
    }

    /// The same batch stepped on the caller's thread only: for a caller that already
    /// runs one batch per core (self-play's workers).
    pub fn serial(mut self) -> BatchEnv {
        self.parallel = false;
        self
    }

    /// Games per task of a step: all of them when serial.
    fn chunk(&self) -> usize {
        if self.parallel {
            chunk_size(self.len())
        } else {
            usize::MAX
        }
    }

    /// Number of games N.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Never true: a batch holds at least one game.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The configuration the batch was made with.
    pub fn config(&self) -> &EnvConfig {
        &self.config
    }

    /// The rule set played.
    pub fn rules(&self) -> RuleSet {
        self.config.rules
    }

    /// The current positions, N of them (what an `Evaluator` takes).
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The legal masks of the current positions, N bytes (bit `a` = action `a`); 0 marks
    /// a parked game (over, `AutoReset::Off`).
    pub fn legal_masks(&self) -> &[u8] {
        &self.legal
    }

    fn check_game(&self, i: usize) -> Result<(), EnvError> {
        if i < self.len() {
            Ok(())
        } else {
            Err(EnvError::NoSuchGame {
                game: i,
                games: self.len(),
            })
        }
    }

    /// Game `i`'s current position. Panics if `i ≥ len()` (as slice indexing does).
    pub fn position(&self, i: usize) -> &Position {
        &self.positions[i]
    }

    /// Game `i`'s legal mask (0 = parked). Panics if `i ≥ len()`.
    pub fn legal(&self, i: usize) -> u8 {
        self.legal[i]
    }

    /// Whether game `i` is over and parked (only with `AutoReset::Off`). Panics if `i ≥ len()`.
    pub fn is_parked(&self, i: usize) -> bool {
        self.legal[i] == 0
    }

    /// Plies played in game `i` since its start position (opening plies included).
    /// Panics if `i ≥ len()`.
    pub fn ply(&self, i: usize) -> u32 {
        self.meta[i].ply
    }

    /// Positions in game `i`'s repetition history (since the last capture, the current
    /// one included). Panics if `i ≥ len()`.
    pub fn history_len(&self, i: usize) -> usize {
        self.meta[i].hist_len as usize
    }

    /// Game `i`'s repetition history as a [`History`] for a search: the positions since
    /// the last capture, the current one last (allocates). Panics if `i ≥ len()`.
    pub fn history(&self, i: usize) -> History {
        let stores = self.positions[i].stores;
        let keys: Vec<u128> = history_slice(
            &self.keys[i * HISTORY_SLOTS..(i + 1) * HISTORY_SLOTS],
            &self.overflow[i],
            self.meta[i].hist_len,
        )
        .iter()
        .map(|&k| full_key(k, stores))
        .collect();
        History::from_keys(&keys)
    }

    /// Whether `pos` occurred in game `i` since its last capture (the current position
    /// included): the repetition rule's question, asked by a search of the game. Exact:
    /// every position since the last capture has the current stores, and between them
    /// the stretch key is one-to-one. Panics if `i ≥ len()`.
    #[inline]
    pub fn seen(&self, i: usize, pos: &Position) -> bool {
        if pos.stores != self.positions[i].stores {
            return false;
        }
        let k = stretch_key(pos);
        let meta = &self.meta[i];
        meta.filter & filter_bit(k) != 0
            && history_slice(
                &self.keys[i * HISTORY_SLOTS..(i + 1) * HISTORY_SLOTS],
                &self.overflow[i],
                meta.hist_len,
            )
            .contains(&k)
    }

    /// Game `i`'s actions from its start position, openings included (empty unless
    /// [`EnvConfig::record_moves`]). Panics if `i ≥ len()`.
    pub fn moves(&self, i: usize) -> &[u8] {
        &self.moves[i]
    }

    /// Game `i`'s random stream as it stands. Panics if `i ≥ len()`.
    pub fn rng(&self, i: usize) -> &Rng {
        &self.meta[i].rng
    }

    /// Game `i`'s random stream, for a caller that goes on drawing for the game (a
    /// search's noise, its move choice): the game stays one stream from its opening to
    /// its end. Panics if `i ≥ len()`.
    pub fn rng_mut(&mut self, i: usize) -> &mut Rng {
        &mut self.meta[i].rng
    }

    /// The outcome of the last game that ended in slot `i` (kept until the next one
    /// ends there), `None` if none has yet. Panics if `i ≥ len()`.
    pub fn last_outcome(&self, i: usize) -> Option<Outcome> {
        self.outcomes[i]
    }

    /// Every slot's last outcome, N of them.
    pub fn outcomes(&self) -> &[Option<Outcome>] {
        &self.outcomes
    }

    /// Games finished in this batch since it was made.
    pub fn games_finished(&self) -> u64 {
        self.finished_total
    }

    /// Starts a new game in slot `i` at `start` (history and ply counter reset). The
    /// slot's RNG stream and last outcome are kept. `start` must hold the game's 48 seeds
    /// and not be over.
    pub fn reset_game(&mut self, i: usize, start: Position) -> Result<(), EnvError> {
        self.check_game(i)?;
        // The engine's packed arithmetic relies on at most 48 seeds per pit.
        let seeds = start
            .pits
            .iter()
            .chain(&start.stores)
            .map(|&s| s as u32)
            .sum();
        if seeds != TOTAL_SEEDS as u32 {
            return Err(EnvError::BadSeedCount {
                game: i,
                seeds,
                expected: TOTAL_SEEDS,
            });
        }
        let rules = self.config.rules;
        if start.status(rules).is_some() {
            return Err(EnvError::StartIsOver {
                game: i,
                fen: start.to_string(),
            });
        }
        self.game_mut(i)
            .begin(rules, start)
            .expect("checked not over above");
        Ok(())
    }

    /// Starts a new game in slot `i` as `config.openings` says, from the slot's RNG.
    pub fn restart_game(&mut self, i: usize) -> Result<(), EnvError> {
        self.check_game(i)?;
        let (rules, openings) = (self.config.rules, self.config.openings);
        self.game_mut(i).begin_random(rules, openings);
        Ok(())
    }

    /// Starts game number `game` in slot `i` as `config.openings` says: the slot's
    /// stream becomes `Rng::stream(seed, game)`, so the game is the same whichever slot
    /// and moment it is played in.
    pub fn start_game(&mut self, i: usize, game: u64) -> Result<(), EnvError> {
        self.check_game(i)?;
        self.meta[i].rng = Rng::stream(self.config.seed, game);
        self.restart_game(i)
    }

    fn check_len(&self, name: &'static str, got: usize, per_game: usize) -> Result<(), EnvError> {
        let games = self.len();
        if got == games * per_game {
            Ok(())
        } else {
            Err(EnvError::BufferLength {
                name,
                got,
                expected: games * per_game,
                per_game,
                games,
            })
        }
    }

    fn check_out(&self, out: &StepOut<'_>) -> Result<(), EnvError> {
        if !out.legal.is_empty() {
            self.check_len("legal", out.legal.len(), 1)?;
        }
        if !out.features.is_empty() {
            self.check_len("features", out.features.len(), out.encoding.dim())?;
        }
        if !out.rewards.is_empty() {
            self.check_len("rewards", out.rewards.len(), 1)?;
        }
        if !out.done.is_empty() {
            self.check_len("done", out.done.len(), 1)?;
        }
        Ok(())
    }

    /// Steps every game with its action (`actions`: N values, mover-relative 0..5).
    /// [`SKIP`] leaves a game as it is; the action of a parked game is ignored. Fills
    /// the buffers of `out` (see [`StepOut`]).
    ///
    /// Every action is checked before anything changes: an illegal one (or a buffer of
    /// the wrong length) returns an error and leaves the batch untouched.
    pub fn step(&mut self, actions: &[u8], out: StepOut<'_>) -> Result<StepSummary, EnvError> {
        self.check_len("actions", actions.len(), 1)?;
        self.check_out(&out)?;
        // Branch-free over the batch so it vectorises; the slow search for the culprit
        // runs only when something is wrong.
        let bad = actions
            .iter()
            .zip(&self.legal)
            .fold(false, |bad, (&a, &m)| {
                bad | (a != SKIP && m != 0 && (a >= 6 || (m >> (a & 7)) & 1 == 0))
            });
        if bad {
            let (game, (&action, &m)) = actions
                .iter()
                .zip(&self.legal)
                .enumerate()
                .find(|(_, (a, m))| **a != SKIP && **m != 0 && (**a >= 6 || (**m >> **a) & 1 == 0))
                .expect("a bad action was seen");
            let side = self.positions[game].side;
            return Err(EnvError::IllegalAction {
                game,
                action,
                legal: (0..6)
                    .filter(|b| m & (1 << b) != 0)
                    .map(|b| b.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                letters: mask_letters(side, m),
            });
        }
        Ok(self.run_step(Actions::Given(actions), out))
    }

    /// Steps every live game with a uniformly random legal action drawn from its own RNG
    /// stream, in the same pass (the fast path of random play and benchmarks). The same
    /// as [`BatchEnv::random_actions`] followed by [`BatchEnv::step`].
    pub fn step_random(&mut self, out: StepOut<'_>) -> Result<StepSummary, EnvError> {
        self.check_out(&out)?;
        Ok(self.run_step(Actions::Random, out))
    }

    fn run_step(&mut self, actions: Actions<'_>, out: StepOut<'_>) -> StepSummary {
        let config = self.config;
        let chunk = self.chunk();
        let s = par_run(self.lanes(), Io { actions, out }, chunk, &|l, io| {
            step_chunk(&config, l, io)
        });
        self.finished_total += s.finished as u64;
        s
    }

    /// Writes a uniformly random legal action for every game into `actions` (N values),
    /// drawn from the game's RNG stream; [`SKIP`] for parked games.
    pub fn random_actions(&mut self, actions: &mut [u8]) -> Result<(), EnvError> {
        self.check_len("actions", actions.len(), 1)?;
        let chunk = self.chunk();
        let (meta, legal) = (&mut self.meta[..], &self.legal[..]);
        fill_random(meta, legal, actions, chunk);
        Ok(())
    }

    /// Writes the features of every current position into `out` (N × `encoding.dim()`
    /// floats, from each mover's view), e.g. for the first observation.
    pub fn encode(&self, encoding: Encoding, out: &mut [f32]) -> Result<(), EnvError> {
        self.check_len("features", out.len(), encoding.dim())?;
        let d = encoding.dim();
        let chunk = chunk_size(self.len());
        use rayon::prelude::*;
        self.positions
            .par_chunks(chunk)
            .zip(out.par_chunks_mut(chunk * d))
            .for_each(|(p, o)| encoding.encode_batch(p, o));
        Ok(())
    }
}

#[cfg(test)]
mod tests;

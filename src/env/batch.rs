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

use thiserror::Error;

use crate::game::{EndReason, History, Outcome, Position, RuleSet, TOTAL_SEEDS, mask_letters};
use crate::rng::Rng;

use super::encoding::Encoding;

/// Keys of the repetition history stored in place per game. Random games rarely go
/// this long without a capture; longer stretches spill into a per-game `Vec` whose
/// storage is then kept, so steady state still allocates nothing.
pub const HISTORY_SLOTS: usize = 32;

/// The action value meaning "do not step this game" in [`BatchEnv::step`].
pub const SKIP: u8 = u8::MAX;

/// Games at least per parallel task: below this, splitting costs more than it saves.
/// Small in tests, so that small batches exercise the splitting too.
const MIN_CHUNK: usize = if cfg!(test) { 8 } else { 256 };

/// Most restarts of a random opening that keeps ending the game before it is complete;
/// after that the game starts from the start position (deterministically).
const OPENING_TRIES: u32 = 64;

/// What happens to a game when it ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AutoReset {
    /// A new game starts in the slot at once (from the start or a random opening); the
    /// finished game's result stays readable in [`BatchEnv::last_outcome`].
    #[default]
    On,
    /// The finished game stays parked (legal mask 0, actions ignored) until
    /// [`BatchEnv::reset_game`] or [`BatchEnv::restart_game`] starts a new one.
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
    /// Whether each game's actions are kept ([`BatchEnv::moves`]), for a caller that
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
///   [`BatchEnv::last_outcome`]).
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

/// Per-game bookkeeping kept together because every step touches all of it.
#[derive(Clone, Debug)]
struct Meta {
    rng: Rng,
    /// Plies since the game's start position (random opening plies included).
    ply: u32,
    /// Keys in the history (in `keys` while ≤ `HISTORY_SLOTS`, else in `overflow`).
    hist_len: u32,
    /// Whether `moves` records this game's actions.
    record: bool,
    /// One bit per key hash: a key whose bit is clear is certainly not in the history,
    /// which spares the scan on most moves. Exact: a set bit only means "look".
    filter: u64,
}

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

/// The actions of one step: given by the caller, or drawn from each game's RNG.
#[derive(Clone, Copy)]
enum Actions<'a> {
    Given(&'a [u8]),
    Random,
}

/// Mutable views of a contiguous range of games, in every lane.
struct Lanes<'a> {
    positions: &'a mut [Position],
    legal: &'a mut [u8],
    meta: &'a mut [Meta],
    keys: &'a mut [u64],
    overflow: &'a mut [Vec<u64>],
    outcomes: &'a mut [Option<Outcome>],
    moves: &'a mut [Vec<u8>],
}

/// Splits `s` at game `mid` of a lane with `per` values per game (empty stays empty).
fn split<T>(s: &mut [T], mid: usize, per: usize) -> (&mut [T], &mut [T]) {
    if s.is_empty() {
        (&mut [], &mut [])
    } else {
        s.split_at_mut(mid * per)
    }
}

impl<'a> Lanes<'a> {
    /// Calls `f(i, game)` for every game of the range, `i` counted from its start.
    #[inline(always)]
    fn for_each_game(self, mut f: impl FnMut(usize, GameMut<'_>)) {
        let games = self
            .positions
            .iter_mut()
            .zip(self.legal.iter_mut())
            .zip(self.meta.iter_mut())
            .zip(self.keys.chunks_exact_mut(HISTORY_SLOTS))
            .zip(self.overflow.iter_mut().zip(self.outcomes.iter_mut()))
            .zip(self.moves.iter_mut());
        for (i, (((((pos, legal), meta), keys), (overflow, outcome)), moves)) in games.enumerate() {
            f(
                i,
                GameMut {
                    pos,
                    legal,
                    meta,
                    keys,
                    overflow,
                    outcome,
                    moves,
                },
            );
        }
    }

    fn len(&self) -> usize {
        self.positions.len()
    }

    fn split_at(self, mid: usize) -> (Lanes<'a>, Lanes<'a>) {
        let (p0, p1) = self.positions.split_at_mut(mid);
        let (l0, l1) = self.legal.split_at_mut(mid);
        let (m0, m1) = self.meta.split_at_mut(mid);
        let (k0, k1) = self.keys.split_at_mut(mid * HISTORY_SLOTS);
        let (v0, v1) = self.overflow.split_at_mut(mid);
        let (o0, o1) = self.outcomes.split_at_mut(mid);
        let (g0, g1) = self.moves.split_at_mut(mid);
        (
            Lanes {
                positions: p0,
                legal: l0,
                meta: m0,
                keys: k0,
                overflow: v0,
                outcomes: o0,
                moves: g0,
            },
            Lanes {
                positions: p1,
                legal: l1,
                meta: m1,
                keys: k1,
                overflow: v1,
                outcomes: o1,
                moves: g1,
            },
        )
    }
}

/// The caller's side of a step for a range of games.
struct Io<'a> {
    actions: Actions<'a>,
    out: StepOut<'a>,
}

impl<'a> Io<'a> {
    fn split_at(self, mid: usize) -> (Io<'a>, Io<'a>) {
        let actions = match self.actions {
            Actions::Given(a) => {
                let (a0, a1) = a.split_at(mid);
                (Actions::Given(a0), Actions::Given(a1))
            }
            Actions::Random => (Actions::Random, Actions::Random),
        };
        let o = self.out;
        let (l0, l1) = split(o.legal, mid, 1);
        let (f0, f1) = split(o.features, mid, o.encoding.dim());
        let (r0, r1) = split(o.rewards, mid, 1);
        let (d0, d1) = split(o.done, mid, 1);
        (
            Io {
                actions: actions.0,
                out: StepOut {
                    legal: l0,
                    features: f0,
                    encoding: o.encoding,
                    rewards: r0,
                    done: d0,
                },
            },
            Io {
                actions: actions.1,
                out: StepOut {
                    legal: l1,
                    features: f1,
                    encoding: o.encoding,
                    rewards: r1,
                    done: d1,
                },
            },
        )
    }
}

/// Games per parallel task for a batch of `n`: 16 tasks per thread, so that when the
/// scheduler stalls one thread the others can steal most of its share, never fewer
/// than `MIN_CHUNK` games each.
fn chunk_size(n: usize) -> usize {
    let tasks = 16 * rayon::current_num_threads().max(1);
    n.div_ceil(tasks).max(MIN_CHUNK)
}

/// Runs `f` over `lanes` and `io` split into chunks of at most `chunk` games, in
/// parallel, summing the results. Splitting by halves keeps the work free of
/// allocation and of `unsafe`.
fn par_run<F>(lanes: Lanes<'_>, io: Io<'_>, chunk: usize, f: &F) -> StepSummary
where
    F: Fn(Lanes<'_>, Io<'_>) -> StepSummary + Sync,
{
    let n = lanes.len();
    if n <= chunk {
        return f(lanes, io);
    }
    let mid = n / 2;
    let (l0, l1) = lanes.split_at(mid);
    let (i0, i1) = io.split_at(mid);
    let (a, b) = rayon::join(|| par_run(l0, i0, chunk, f), || par_run(l1, i1, chunk, f));
    a + b
}

/// The key of `pos` in the history of its stretch of play since the last capture: exact
/// within that stretch, in 8 bytes instead of the 16 of [`Position::key`].
///
/// Between captures the stores, and so the seeds on the board, do not change, so the
/// pits and the side to move identify the position. The pits are written "stars and
/// bars": bit `s_i + i` is set, where `s_i` is the number of seeds in pits `0..=i`,
/// marking where pit `i` ends; at most 48 + 11 = 59, so bits 0..59 hold the board and
/// bit 63 the side. Two boards with the same total differ in some pit, hence in the
/// first separator that moves: the map is one-to-one.
#[inline(always)]
fn stretch_key(pos: &Position) -> u64 {
    let mut b = [0u8; 16];
    b[..12].copy_from_slice(&pos.pits);
    // Byte i of the product is the sum of pits 0..=i (at most 48: no carries), plus i.
    let ones = u128::from_le_bytes([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]);
    let index = u128::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 0, 0, 0]);
    let ends = (u128::from_le_bytes(b).wrapping_mul(ones) + index).to_le_bytes();
    // Independent shifts rather than a running sum: no long dependency chain.
    let mut k = (pos.side as u64) << 63;
    for &e in &ends[..12] {
        k |= 1u64 << e;
    }
    k
}

/// The [`Position::key`] of the position with stretch key `k` and stores `stores`.
fn full_key(k: u64, stores: [u8; 2]) -> u128 {
    let mut pos = Position::start();
    let mut bits = k & ((1u64 << 60) - 1);
    let mut prev = 0u32;
    for pit in pos.pits.iter_mut() {
        let at = bits.trailing_zeros();
        *pit = (at - prev) as u8;
        prev = at + 1;
        bits &= bits - 1;
    }
    pos.stores = stores;
    pos.side = crate::game::Side::from_index((k >> 63) as usize);
    pos.key()
}

/// A cheap hash of a key to one of 64 filter bits.
#[inline(always)]
fn filter_bit(key: u64) -> u64 {
    1u64 << (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// The keys of one game's history: in place, or spilled into its overflow `Vec`.
#[inline]
fn history_slice<'k>(keys: &'k [u64], overflow: &'k [u64], len: u32) -> &'k [u64] {
    let len = len as usize;
    if len <= HISTORY_SLOTS {
        &keys[..len]
    } else {
        &overflow[..len]
    }
}

/// One game's state during a step, borrowed from the lanes.
struct GameMut<'g> {
    pos: &'g mut Position,
    legal: &'g mut u8,
    meta: &'g mut Meta,
    keys: &'g mut [u64],
    overflow: &'g mut Vec<u64>,
    outcome: &'g mut Option<Outcome>,
    moves: &'g mut Vec<u8>,
}

impl GameMut<'_> {
    /// Forgets the history and starts it at the current position.
    #[inline]
    fn reset_history(&mut self) {
        self.restart_history(stretch_key(self.pos));
    }

    /// Forgets the history and starts it at the position with key `k`.
    #[inline(always)]
    fn restart_history(&mut self, k: u64) {
        self.keys[0] = k;
        self.meta.hist_len = 1;
        self.meta.filter = filter_bit(k);
        // The overflow is left alone (its header lives elsewhere in memory): it is read
        // only past `HISTORY_SLOTS` keys, and `spill` refills it from the slots first.
    }

    /// Records the position with key `k`, reached by a move capturing `captured` seeds;
    /// `true` if it occurred since the last capture (as `History::record`).
    #[inline(always)]
    fn record(&mut self, k: u64, captured: u8) -> bool {
        if captured > 0 {
            self.restart_history(k);
            return false;
        }
        let bit = filter_bit(k);
        let len = self.meta.hist_len as usize;
        let repeated = self.meta.filter & bit != 0
            && history_slice(self.keys, self.overflow, self.meta.hist_len).contains(&k);
        if len < HISTORY_SLOTS {
            self.keys[len] = k;
        } else {
            self.spill(k);
        }
        self.meta.hist_len += 1;
        self.meta.filter |= bit;
        repeated
    }

    /// Appends `k` to a history too long for its slots (rare: kept out of line).
    #[cold]
    #[inline(never)]
    fn spill(&mut self, k: u64) {
        if self.meta.hist_len as usize == HISTORY_SLOTS {
            self.overflow.clear();
            self.overflow.extend_from_slice(self.keys);
        }
        self.overflow.push(k);
    }

    /// Plays `action` (legal: checked by the caller) and returns the outcome if the game
    /// ended; the legal mask is updated (0 if it ended).
    #[inline(always)]
    fn play(&mut self, rules: RuleSet, action: usize) -> Option<Outcome> {
        // Work on a copy in registers: through the reference the compiler would keep
        // every pit in memory.
        let mut pos = *self.pos;
        let info = pos.apply(rules, action);
        *self.pos = pos;
        self.meta.ply += 1;
        if self.meta.record {
            self.moves.push(action as u8);
        }
        if self.record(stretch_key(&pos), info.captured) {
            *self.legal = 0;
            return Some(pos.share_out(EndReason::Repetition, rules.repetition));
        }
        let legal = pos.legal_moves(rules);
        *self.legal = legal;
        // Only a capture changes the stores, and only an empty mask ends the game
        // otherwise, so the full (slower) status check runs only then.
        if info.captured > 0 || legal == 0 {
            let o = pos.status(rules);
            if o.is_some() {
                *self.legal = 0;
            }
            return o;
        }
        None
    }

    /// Starts a new game at `start`; `None` if the start is already over.
    fn begin(&mut self, rules: RuleSet, start: Position) -> Option<()> {
        *self.pos = start;
        self.meta.ply = 0;
        self.moves.clear();
        self.reset_history();
        if start.status(rules).is_some() {
            *self.legal = 0;
            return None;
        }
        *self.legal = start.legal_moves(rules);
        Some(())
    }

    /// Starts a new game from the start position plus a random opening drawn from the
    /// game's RNG: `k` uniform in `min..=max` (one draw, even when the range holds one
    /// value), then `k` uniform legal plies; an opening that ends the game is thrown away
    /// and drawn again (at most `OPENING_TRIES` times, then the start position is used).
    #[inline(never)]
    fn begin_random(&mut self, rules: RuleSet, openings: Openings) {
        let span = openings.max_plies - openings.min_plies;
        for _ in 0..OPENING_TRIES {
            self.begin(rules, Position::start())
                .expect("the start position is never over");
            let k = openings.min_plies + self.meta.rng.below(span + 1);
            let mut ended = false;
            for _ in 0..k {
                let a = self.meta.rng.pick_bit(*self.legal);
                if self.play(rules, a).is_some() {
                    ended = true;
                    break;
                }
            }
            if !ended {
                return;
            }
        }
        self.begin(rules, Position::start())
            .expect("the start position is never over");
    }
}

/// Steps every game of `lanes` (one task's share). Actions are already validated.
fn step_chunk(config: &EnvConfig, lanes: Lanes<'_>, io: Io<'_>) -> StepSummary {
    let rules = config.rules;
    let Io { actions, out } = io;
    let want_legal = !out.legal.is_empty();
    let want_features = !out.features.is_empty();
    let want_rewards = !out.rewards.is_empty();
    let want_done = !out.done.is_empty();
    let dim = out.encoding.dim();
    let mut summary = StepSummary::default();
    lanes.for_each_game(|i, mut g| {
        let mask = *g.legal;
        let action = match actions {
            // Parked games and `SKIP` are not stepped.
            Actions::Given(a) if a[i] == SKIP || mask == 0 => None,
            Actions::Given(a) => Some(a[i] as usize),
            Actions::Random if mask == 0 => None,
            Actions::Random => Some(g.meta.rng.pick_bit(mask)),
        };
        let mut reward = 0.0;
        let mut done = false;
        if let Some(a) = action {
            summary.stepped += 1;
            let mover = g.pos.side;
            if let Some(o) = g.play(rules, a) {
                summary.finished += 1;
                done = true;
                reward = o.score_for(mover) as f32;
                *g.outcome = Some(o);
                if config.auto_reset == AutoReset::On {
                    g.begin_random(rules, config.openings);
                }
            }
        }
        if want_legal {
            out.legal[i] = *g.legal;
        }
        if want_features {
            out.encoding
                .encode(g.pos, &mut out.features[i * dim..(i + 1) * dim]);
        }
        if want_rewards {
            out.rewards[i] = reward;
        }
        if want_done {
            out.done[i] = done;
        }
    });
    summary
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
            &|lanes: Lanes<'_>, _io| {
                lanes.for_each_game(|_, mut g| g.begin_random(cfg.rules, cfg.openings));
                StepSummary::default()
            },
        );
        Ok(env)
    }

    fn lanes(&mut self) -> Lanes<'_> {
        Lanes {
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

    /// Game `i`'s random stream as it stands: a caller that goes on drawing for the
    /// game (a search's noise, its move choice) continues it from here. Panics if
    /// `i ≥ len()`.
    pub fn rng(&self, i: usize) -> &Rng {
        &self.meta[i].rng
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

/// Random legal actions for a range of games, in parallel.
fn fill_random(meta: &mut [Meta], legal: &[u8], actions: &mut [u8], chunk: usize) {
    if meta.len() <= chunk {
        for ((m, &mask), a) in meta.iter_mut().zip(legal).zip(actions) {
            *a = if mask == 0 {
                SKIP
            } else {
                m.rng.pick_bit(mask) as u8
            };
        }
        return;
    }
    let mid = meta.len() / 2;
    let (m0, m1) = meta.split_at_mut(mid);
    let (l0, l1) = legal.split_at(mid);
    let (a0, a1) = actions.split_at_mut(mid);
    rayon::join(
        || fill_random(m0, l0, a0, chunk),
        || fill_random(m1, l1, a1, chunk),
    );
}

#[cfg(test)]
mod tests;

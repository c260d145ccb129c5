//! One game's state during a step (its slice of every lane), the step itself, and the
//! split of a batch's lanes into parallel tasks.

use crate::game::{Outcome, Position, RuleSet};
use crate::rng::Rng;

use super::config::{AutoReset, EnvConfig, Openings, SKIP, StepOut, StepSummary};

/// Keys of the repetition history stored in place per game. Random games rarely go
/// this long without a capture; longer stretches spill into a per-game `Vec` whose
/// storage is then kept, so steady state still allocates nothing.
pub const HISTORY_SLOTS: usize = 32;
/// Games at least per parallel task: below this, splitting costs more than it saves.
/// Small in tests, so that small batches exercise the splitting too.
const MIN_CHUNK: usize = if cfg!(test) { 8 } else { 256 };
/// Most restarts of a random opening that keeps ending the game before it is complete;
/// after that the game starts from the start position (deterministically).
pub(super) const OPENING_TRIES: u32 = 64;
/// Per-game bookkeeping kept together because every step touches all of it.
#[derive(Clone, Debug)]
pub(super) struct Meta {
    pub(super) rng: Rng,
    /// Plies since the game's start position (random opening plies included).
    pub(super) ply: u32,
    /// Keys in the history (in `keys` while ≤ `HISTORY_SLOTS`, else in `overflow`).
    pub(super) hist_len: u32,
    /// Whether `moves` records this game's actions.
    pub(super) record: bool,
    /// One bit per key hash: a key whose bit is clear is certainly not in the history,
    /// which spares the scan on most moves. Exact: a set bit only means "look".
    pub(super) filter: u64,
}
/// The actions of one step: given by the caller, or drawn from each game's RNG.
#[derive(Clone, Copy)]
pub(super) enum Actions<'a> {
    Given(&'a [u8]),
    Random,
}

/// Mutable views of a contiguous range of games, in every lane.
pub(super) struct GameRange<'a> {
    pub(super) positions: &'a mut [Position],
    pub(super) legal: &'a mut [u8],
    pub(super) meta: &'a mut [Meta],
    pub(super) keys: &'a mut [u64],
    pub(super) overflow: &'a mut [Vec<u64>],
    pub(super) outcomes: &'a mut [Option<Outcome>],
    pub(super) moves: &'a mut [Vec<u8>],
}

/// Splits `s` at game `mid` of a lane with `per` values per game (empty stays empty).
pub(super) fn split<T>(s: &mut [T], mid: usize, per: usize) -> (&mut [T], &mut [T]) {
    if s.is_empty() {
        (&mut [], &mut [])
    } else {
        s.split_at_mut(mid * per)
    }
}

impl<'a> GameRange<'a> {
    /// Calls `f(i, game)` for every game of the range, `i` counted from its start.
    #[inline(always)]
    pub(super) fn for_each_game(self, mut f: impl FnMut(usize, GameMut<'_>)) {
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

    pub(super) fn len(&self) -> usize {
        self.positions.len()
    }

    pub(super) fn split_at(self, mid: usize) -> (GameRange<'a>, GameRange<'a>) {
        let (p0, p1) = self.positions.split_at_mut(mid);
        let (l0, l1) = self.legal.split_at_mut(mid);
        let (m0, m1) = self.meta.split_at_mut(mid);
        let (k0, k1) = self.keys.split_at_mut(mid * HISTORY_SLOTS);
        let (v0, v1) = self.overflow.split_at_mut(mid);
        let (o0, o1) = self.outcomes.split_at_mut(mid);
        let (g0, g1) = self.moves.split_at_mut(mid);
        (
            GameRange {
                positions: p0,
                legal: l0,
                meta: m0,
                keys: k0,
                overflow: v0,
                outcomes: o0,
                moves: g0,
            },
            GameRange {
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
pub(super) struct Io<'a> {
    pub(super) actions: Actions<'a>,
    pub(super) out: StepOut<'a>,
}

impl<'a> Io<'a> {
    pub(super) fn split_at(self, mid: usize) -> (Io<'a>, Io<'a>) {
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
pub(super) fn chunk_size(n: usize) -> usize {
    let tasks = 16 * rayon::current_num_threads().max(1);
    n.div_ceil(tasks).max(MIN_CHUNK)
}

/// Runs `f` over `lanes` and `io` split into chunks of at most `chunk` games, in
/// parallel, summing the results. Splitting by halves keeps the work free of
/// allocation and of `unsafe`.
pub(super) fn par_run<F>(lanes: GameRange<'_>, io: Io<'_>, chunk: usize, f: &F) -> StepSummary
where
    F: Fn(GameRange<'_>, Io<'_>) -> StepSummary + Sync,
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
pub(super) fn stretch_key(pos: &Position) -> u64 {
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
pub(super) fn full_key(k: u64, stores: [u8; 2]) -> u128 {
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
pub(super) fn filter_bit(key: u64) -> u64 {
    1u64 << (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// The keys of one game's history: in place, or spilled into its overflow `Vec`.
#[inline]
pub(super) fn history_slice<'k>(keys: &'k [u64], overflow: &'k [u64], len: u32) -> &'k [u64] {
    let len = len as usize;
    if len <= HISTORY_SLOTS {
        &keys[..len]
    } else {
        &overflow[..len]
    }
}

/// One game's state during a step, borrowed from the lanes.
pub(super) struct GameMut<'g> {
    pub(super) pos: &'g mut Position,
    pub(super) legal: &'g mut u8,
    pub(super) meta: &'g mut Meta,
    pub(super) keys: &'g mut [u64],
    pub(super) overflow: &'g mut Vec<u64>,
    pub(super) outcome: &'g mut Option<Outcome>,
    pub(super) moves: &'g mut Vec<u8>,
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
        let repeated = self.record(stretch_key(&pos), info.captured);
        let legal = if repeated { 0 } else { pos.legal_moves(rules) };
        let end = pos.end_after_move(rules, info.captured, legal, repeated);
        *self.legal = if end.is_some() { 0 } else { legal };
        end
    }

    /// Starts a new game at `start`; `None` if the start is already over.
    pub(super) fn begin(&mut self, rules: RuleSet, start: Position) -> Option<()> {
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
    pub(super) fn begin_random(&mut self, rules: RuleSet, openings: Openings) {
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
pub(super) fn step_chunk(config: &EnvConfig, lanes: GameRange<'_>, io: Io<'_>) -> StepSummary {
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
/// Random legal actions for a range of games, in parallel.
pub(super) fn fill_random(meta: &mut [Meta], legal: &[u8], actions: &mut [u8], chunk: usize) {
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

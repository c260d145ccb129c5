//! Retrograde analysis of one seed count.
//!
//! # What is solved
//! Every board with `n` seeds, seen from the player to move (his pits are 0..5). A move
//! either captures (or ends the game), leaving fewer seeds: its value is known from the
//! finished tables of lower counts, and we call it an *exit*. Or it captures nothing and
//! leads to another board with `n` seeds: an *inner* move. Inner moves form a graph with
//! cycles, and a cycle is where the repetition rule decides the game.
//!
//! For each board two numbers are computed, both exact:
//! - `L`: the margin the mover can force if every endless line counted as the worst for
//!   him (he must reach an exit);
//! - `H`: the margin he can force if every endless line counted as the best for him.
//!
//! The value with no history since the last capture lies in `[L, H]` whatever the
//! repetition rule gives: a player forcing an exit does it along a line on which no
//! position repeats. Where `L == H` the value is exact ("decided without repetition").
//! Elsewhere the table stores the repetition score clamped into `[L, H]`: 0 when the
//! seeds left are split evenly (`awari`, `traditional`, where this is exact: both sides
//! can hold the game to the cycle's even split), and under the own-row rules the
//! margin of the rows on the board now (what a repetition right here would give), which
//! is the one approximation in the table (see the module docs of `tablebase`).
//!
//! # How
//! `L` and `H` are the values of one game on a doubled graph: node `(P, A)` holds `L(P)`,
//! node `(P, B)` holds `−H(P)` (from A's side); an inner move `P → Q` links `(P, A)` to
//! `(Q, B)` and `(P, B)` to `(Q, A)`; A maximises, B minimises, endless play is −∞ for
//! A. Such a game is solved in one sweep over the values from the highest down (a
//! bucket queue, as Dijkstra's algorithm): an A node takes the first value a child or
//! exit reaches; a B node waits until all of its children are known. Each node and each
//! predecessor edge is touched once, so the cost is linear in the size of the graph.
//! The predecessor lists are built from forward move generation (two passes: count,
//! then fill), so no un-move generator is needed.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::index::{boards_with, rank, unrank};
use crate::game::{Leftover, Position, RuleSet, Side};

/// No exit (a sentinel for `exit_max`) or a value not found yet.
pub(super) const NONE: i8 = i8::MIN;
/// Boards handled by one parallel task.
const CHUNK: usize = 1 << 14;

/// One stored entry: the value (margin of future captures for the mover, −48..48) in
/// the low 7 bits, offset by 48; bit 7 set when the value was decided without repetition.
#[inline]
pub fn encode(value: i8, exact: bool) -> u8 {
    debug_assert!((-48..=48).contains(&value));
    (value + 48) as u8 | ((exact as u8) << 7)
}

/// The inverse of [`encode`]: (value, decided without repetition).
#[inline]
pub fn decode(byte: u8) -> (i8, bool) {
    ((byte & 0x7F) as i8 - 48, byte & 0x80 != 0)
}

/// The board of `pos` from the mover's view: his pits first.
#[inline]
pub fn mover_pits(pos: &Position) -> [u8; 12] {
    match pos.side {
        Side::South => pos.pits,
        Side::North => {
            let mut p = [0u8; 12];
            p[..6].copy_from_slice(&pos.pits[6..]);
            p[6..].copy_from_slice(&pos.pits[..6]);
            p
        }
    }
}

/// What a move from a table board leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A capture or an ending: the mover's margin from here on, exact given the lower
    /// tables.
    Exit(i32),
    /// No capture: the board (rank among boards with the same count) where the opponent
    /// is now to move.
    Inner(u32),
}

/// Seen from the mover (South, stores empty) on the board `pits` with `n` seeds: the
/// terminal margin if the game is over, else each legal move's [`Step`] passed to `each`.
/// `lower[m]` are the finished tables of `m < n` seeds.
#[inline]
pub fn steps(
    rules: RuleSet,
    pits: &[u8; 12],
    n: usize,
    lower: &[Vec<u8>],
    mut each: impl FnMut(usize, Step),
) -> Option<i32> {
    steps_bounded(rules, pits, n, lower, None, |a, s, _| each(a, s))
}

/// Bounds on a board's value (with no position played since the last capture, the
/// table's definition) that no repetition score can break, one `[low, high]` per board of a count in rank
/// order: the `L` and `H` of the analysis with every exit valued by the bounds of the
/// smaller boards it reaches, clamped to `[−n, n]`. Kept in memory during a build only.
pub type Bounds = Vec<[i8; 2]>;

/// [`steps`], and with `bounds` (those of the counts below `n`) each exit's value bounds
/// from the mover's view, passed as the third argument (`[v, v]` without `bounds`).
#[inline]
fn steps_bounded(
    rules: RuleSet,
    pits: &[u8; 12],
    n: usize,
    lower: &[Vec<u8>],
    bounds: Option<&[Bounds]>,
    mut each: impl FnMut(usize, Step, [i32; 2]),
) -> Option<i32> {
    let p = Position {
        pits: *pits,
        stores: [0, 0],
        side: Side::South,
    };
    let mask = p.legal_moves(rules);
    if mask == 0 {
        let o = p
            .status(rules)
            .expect("no legal move means the game is over");
        return Some((o.halves[0] as i32 - o.halves[1] as i32) / 2);
    }
    for a in 0..6 {
        if mask & (1 << a) == 0 {
            continue;
        }
        let mut q = p;
        q.apply(rules, a);
        let left = q.board_seeds() as usize;
        if left < n {
            let gain = q.stores[0] as i32 - q.stores[1] as i32;
            let r = rank(&mover_pits(&q)) as usize;
            let (v, _) = decode(lower[left][r]);
            let v = v as i32;
            // Ouril: after a grand slam the mover moves again, so the next board's
            // value is his own.
            let sign = if q.side == Side::South { 1 } else { -1 };
            let [lo, hi] = match bounds {
                Some(b) => b[left][r].map(i32::from),
                None => [v, v],
            };
            let range = if sign == 1 {
                [gain + lo, gain + hi]
            } else {
                [gain - hi, gain - lo]
            };
            each(a, Step::Exit(gain + sign * v), range);
        } else {
            // A move that captures nothing always hands the move over (only a capture
            // of the whole row lets an ouril player move again).
            debug_assert_eq!(q.side, Side::North);
            let r = rank(&mover_pits(&q)) as u32;
            each(a, Step::Inner(r), [0, 0]);
        }
    }
    None
}

/// The repetition score of a board from the mover's view: what the rules give if the
/// game ends by repetition here.
#[inline]
fn repetition_score(rules: RuleSet, pits: &[u8; 12]) -> i32 {
    match rules.repetition {
        Leftover::SplitEvenly => 0,
        Leftover::OwnRow => {
            let own: i32 = pits[..6].iter().map(|&s| s as i32).sum();
            let opp: i32 = pits[6..].iter().map(|&s| s as i32).sum();
            own - opp
        }
    }
}

/// Figures of one solved seed count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CountStats {
    /// Boards in the table.
    pub boards: u64,
    /// Boards whose value is proven (the exact bit): no repetition score enters it, here
    /// or in any smaller table its lines reach.
    pub exact: u64,
    /// Boards decided without repetition at this count, given the smaller tables'
    /// values (`L == H`, both clamped to [−n, n]): a superset of the exact ones.
    pub decided: u64,
    /// Inner (non-capturing) moves: edges of the graph solved.
    pub inner_moves: u64,
}

/// Solves every board with `n` seeds; `lower` holds the tables of 0..n seeds and
/// `lower_bounds` their [`Bounds`]. Returns one encoded byte per board, in rank order,
/// the bounds of this count, and the figures. With `cycles`, the bounds are narrowed by
/// the repetition rule as well ([`cycle_bounds`]). Runs on the current rayon pool.
pub fn solve_count(
    rules: RuleSet,
    n: usize,
    lower: &[Vec<u8>],
    lower_bounds: &[Bounds],
    cycles: bool,
) -> (Vec<u8>, Bounds, CountStats) {
    assert_eq!(lower.len(), n, "tables of 0..{n} seeds needed");
    assert_eq!(lower_bounds.len(), n, "bounds of 0..{n} seeds needed");
    let total = boards_with(n) as usize;
    assert!(total < (1 << 30), "at most 2^30 boards per count");

    // Pass 1: best exit (by the smaller tables' values, and by their lower and upper
    // bounds), inner-move count and in-degree of every board.
    let mut exit_max = vec![NONE; total];
    let mut exit_lo = vec![NONE; total];
    let mut exit_hi = vec![NONE; total];
    let mut out_deg = vec![0u8; total];
    let in_deg: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
    exit_max
        .par_chunks_mut(CHUNK)
        .zip(exit_lo.par_chunks_mut(CHUNK))
        .zip(exit_hi.par_chunks_mut(CHUNK))
        .zip(out_deg.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (((ex, lo), hi), od))| {
            for i in 0..ex.len() {
                let pits = unrank(n, (c * CHUNK + i) as u64);
                let mut best = [i32::MIN; 3];
                let mut deg = 0u8;
                let terminal = steps_bounded(
                    rules,
                    &pits,
                    n,
                    lower,
                    Some(lower_bounds),
                    |_, s, [l, h]| match s {
                        Step::Exit(v) => {
                            best = [best[0].max(v), best[1].max(l), best[2].max(h)];
                        }
                        Step::Inner(q) => {
                            deg += 1;
                            in_deg[q as usize].fetch_add(1, Ordering::Relaxed);
                        }
                    },
                );
                if let Some(t) = terminal {
                    best = [t; 3];
                }
                let byte = |b: i32| if b == i32::MIN { NONE } else { b as i8 };
                ex[i] = byte(best[0]);
                lo[i] = byte(best[1]);
                hi[i] = byte(best[2]);
                od[i] = deg;
            }
        });

    // Pass 2: predecessor lists (CSR). `cursor[q]` is where q's next predecessor goes.
    let mut start = Vec::with_capacity(total + 1);
    let mut sum = 0u64;
    for d in &in_deg {
        start.push(sum as u32);
        sum += d.load(Ordering::Relaxed) as u64;
    }
    start.push(sum as u32);
    assert!(
        sum < u32::MAX as u64,
        "too many inner moves for 32-bit offsets"
    );
    let edges = sum as usize;
    for (c, s) in in_deg.iter().zip(&start) {
        c.store(*s, Ordering::Relaxed);
    }
    let cursor = in_deg;
    let preds: Vec<AtomicU32> = (0..edges).map(|_| AtomicU32::new(0)).collect();
    (0..total.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
        let end = ((c + 1) * CHUNK).min(total);
        for i in c * CHUNK..end {
            if out_deg[i] == 0 {
                continue;
            }
            let pits = unrank(n, i as u64);
            steps(rules, &pits, n, lower, |_, s| {
                if let Step::Inner(q) = s {
                    let at = cursor[q as usize].fetch_add(1, Ordering::Relaxed);
                    preds[at as usize].store(i as u32, Ordering::Relaxed);
                }
            });
        }
    });
    drop(cursor);
    let preds: Vec<u32> = preds.into_iter().map(AtomicU32::into_inner).collect();

    // Pass 3: the sweeps from the highest value down. First `L` and `H` with the
    // smaller tables' values; then the same game with the mover's exits at their lower
    // bounds and the opponent's at their upper ones: bounds no repetition score can break.
    let mut remaining = out_deg.clone();
    let (low, high) = sweep(n, &exit_max, &exit_max, &mut remaining, &start, &preds);
    drop(exit_max);
    let (safe_low, safe_high) = sweep(n, &exit_lo, &exit_hi, &mut out_deg, &start, &preds);
    let cycle = cycles.then(|| {
        let rep: Vec<i8> = (0..total)
            .into_par_iter()
            .map(|k| repetition_score(rules, &unrank(n, k as u64)) as i8)
            .collect();
        cycle_bounds(n, &rep, &exit_lo, &exit_hi, &start, &preds)
    });
    drop(preds);
    drop(start);

    // The stored value and the bounds.
    let mut out = vec![0u8; total];
    let mut bounds: Bounds = vec![[0, 0]; total];
    let cap = n as i32;
    let (exact, decided) = out
        .par_chunks_mut(CHUNK)
        .zip(bounds.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(c, (o, bo))| {
            let (mut exact, mut decided) = (0u64, 0u64);
            for i in 0..o.len() {
                let k = c * CHUNK + i;
                let (l, h) = (low[k] as i32, high[k] as i32);
                let (sl, sh) = (safe_low[k] as i32, safe_high[k] as i32);
                debug_assert!(sl <= l && h <= sh, "bounds inside out at {k}");
                let pits = unrank(n, k as u64);
                let f = repetition_score(rules, &pits);
                let v = f.clamp(l, h);
                // Every margin lies in [−n, n], so the bounds are clamped there: an
                // endless line the mover would like (H* = +∞) cannot give him more than
                // the n seeds on the board.
                let (mut sl, mut sh) = (sl.clamp(-cap, cap), sh.clamp(-cap, cap));
                if let Some([cl, ch]) = &cycle {
                    (sl, sh) = (sl.max(cl[k] as i32), sh.min(ch[k] as i32));
                    assert!(
                        sl <= sh,
                        "cycle bounds disjoint from the safe bounds at {k}"
                    );
                }
                let is_exact = sl == sh;
                exact += is_exact as u64;
                decided += (l.clamp(-cap, cap) == h.clamp(-cap, cap)) as u64;
                // Where the cycle bounds narrowed the interval, the stored value stays
                // inside it (it is the value wherever they meet).
                let v = v.clamp(sl, sh);
                o[i] = encode(v as i8, is_exact);
                bo[i] = [sl as i8, sh as i8];
            }
            (exact, decided)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    (
        out,
        bounds,
        CountStats {
            boards: total as u64,
            exact,
            decided,
            inner_moves: edges as u64,
        },
    )
}

/// Bounds on the value with no history that the repetition rule itself proves: per
/// board, `[low, high]`, to be met with the bounds of the sweep.
///
/// The game with no history ends at its first exit or at the first position that
/// recurs, with that position's repetition score (`rep`, from its mover's view). Take
/// the doubled graph of [`sweep`] (A moves at `(P, A)`, B at `(P, B)`; exits valued by
/// `exit_lo` for A, by `exit_hi` for B, as the safe sweep does) and, for a threshold
/// `x`, the endless game in which A wins a line that reaches an exit worth at least `x`
/// to him, or that never exits and visits only finitely often the nodes whose
/// repetition score (for A) is below `x` (a co-Büchi game, so its winner has a
/// positional winning strategy). **If A wins it from a node with a positional
/// strategy, he forces at least `x` in the real game from there with no history**:
/// he plays that strategy; a line that ends at an exit is a line of the endless game,
/// so the exit is worth at least `x`; a line that ends by repetition at `s` closes a
/// cycle through `s` on which A's moves are his strategy's, so B repeating his moves
/// round it makes an endless line consistent with the strategy that visits `s`
/// infinitely often, and A winning it means the score at `s` is at least `x`. So the
/// value of `P` is at least the largest `x` A wins at `(P, A)`, and at most minus the
/// largest `x` A wins at `(P, B)` (there A is the opponent of `P`'s mover).
///
/// `x` runs from `−n + 1` up until A wins nowhere ([`Cycles::wins`] for each).
fn cycle_bounds(
    n: usize,
    rep: &[i8],
    exit_lo: &[i8],
    exit_hi: &[i8],
    start: &[u32],
    preds: &[u32],
) -> [Vec<i8>; 2] {
    let total = rep.len();
    let mut c = Cycles::new(rep, exit_lo, exit_hi, start, preds);
    let mut best = vec![-(n as i8); 2 * total];
    for x in -(n as i32) + 1..=n as i32 {
        let win = c.wins(x, None);
        let mut any = false;
        for (b, w) in best.iter_mut().zip(win) {
            if w {
                *b = x as i8;
                any = true;
            }
        }
        if !any {
            break;
        }
    }
    let low = (0..total).map(|k| best[2 * k]).collect();
    let high = (0..total).map(|k| -best[2 * k + 1]).collect();
    [low, high]
}

/// A node's state in [`Cycles`]: the count of its children (and good exit) that an
/// attractor has yet to take (at most 7), and three flags.
const CNT: u8 = 0x0f;
/// In B's attractor this round.
const IN_R: u8 = 0x10;
/// Won by A.
const WON: u8 = 0x20;
/// A position of the history: the game ends there by repetition.
const SINK: u8 = 0x40;

/// The co-Büchi games of [`cycle_bounds`] on one count's doubled graph: node `2k` is
/// `(k, A)`, `2k + 1` is `(k, B)`, for board `k` (rank, mover's view). Scratch space is
/// kept between thresholds.
pub(super) struct Cycles<'g> {
    rep: &'g [i8],
    exit_lo: &'g [i8],
    exit_hi: &'g [i8],
    start: &'g [u32],
    preds: &'g [u32],
    /// Inner out-degree of each board (at most 6).
    out: Vec<u8>,
    /// Each node's state in one byte ([`CNT`], [`IN_R`], [`WON`], [`SINK`]): the
    /// attractors read and write one byte a node they reach, a 2.7 MB array at 12
    /// seeds instead of four.
    st: Vec<u8>,
    queue: Vec<u32>,
    /// Rounds of the Büchi loop before a game stops with what A has won so far (each
    /// round only adds nodes A wins, so that is a proof too, only weaker).
    max_rounds: usize,
}

impl<'g> Cycles<'g> {
    fn new(
        rep: &'g [i8],
        exit_lo: &'g [i8],
        exit_hi: &'g [i8],
        start: &'g [u32],
        preds: &'g [u32],
    ) -> Cycles<'g> {
        let total = rep.len();
        let mut out = vec![0u8; total];
        for &p in preds {
            out[p as usize] += 1;
        }
        Cycles {
            rep,
            exit_lo,
            exit_hi,
            start,
            preds,
            out,
            st: vec![0; 2 * total],
            queue: Vec::new(),
            max_rounds: usize::MAX,
        }
    }

    /// The repetition score of node `v` for A.
    #[inline]
    fn rep_a(&self, v: usize) -> i32 {
        let r = self.rep[v / 2] as i32;
        if v.is_multiple_of(2) { r } else { -r }
    }

    /// A has an exit worth at least `x` at A node `v`.
    #[inline]
    fn good_exit(&self, v: usize, x: i32) -> bool {
        v.is_multiple_of(2) && self.exit_lo[v / 2] != NONE && self.exit_lo[v / 2] as i32 >= x
    }

    /// B has an exit worth less than `x` to A at B node `v`.
    #[inline]
    fn bad_exit(&self, v: usize, x: i32) -> bool {
        !v.is_multiple_of(2) && self.exit_hi[v / 2] != NONE && -(self.exit_hi[v / 2] as i32) < x
    }

    /// The nodes A wins in the game of threshold `x` (see [`cycle_bounds`]). A node of
    /// `sink` ends the game where play reaches it, with its repetition score: a position
    /// of the history, where the game ends by repetition (the proof of [`cycle_bounds`]
    /// holds with them: a line of the strategy that reaches one ends there in both
    /// games, and a cycle closed later holds none of them). The classic algorithm for
    /// Büchi games: B's attractor to the low-score nodes and the bad exits, A's
    /// attractor to the rest, repeated until B's covers what is left; each attractor is
    /// linear in the graph.
    pub(super) fn wins(&mut self, x: i32, sink: Option<&[bool]>) -> impl Iterator<Item = bool> {
        self.wins_from(x, sink, [None, None])
    }

    /// [`Cycles::wins`], starting from what games of the same sinks proved: `won`, the
    /// nodes A wins at a higher threshold (he wins them at `x`, so the game starts with
    /// them won), and `won_lower`, those A wins at a lower one (every other node he
    /// loses at `x`, so it is a target of his opponent's attractor from the start). Both
    /// one bit a node ([`pack`]). Every round only adds nodes A wins and only takes
    /// nodes he loses out of his reach, so the game ends where it would from nothing;
    /// it gets there in smaller attractors. Where those games stopped at
    /// [`Cycles::max_rounds`], `won` is still won (a proof, only weaker) and a node
    /// wrongly taken as lost can only leave A's region smaller: what is won stays
    /// proven.
    pub(super) fn wins_from(
        &mut self,
        x: i32,
        sink: Option<&[bool]>,
        [won, won_lower]: [Option<&[u64]>; 2],
    ) -> impl Iterator<Item = bool> {
        let nodes = self.st.len();
        let lost = |v: usize| won_lower.is_some_and(|w| !bit(w, v));
        for v in 0..nodes {
            let is_sink = sink.is_some_and(|s| s[v]);
            let is_won = won.is_some_and(|b| bit(b, v));
            self.st[v] = if is_sink { SINK } else { 0 } | if is_won { WON } else { 0 };
        }
        for _ in 0..self.max_rounds {
            // B's attractor, inside what A has not won, to the nodes scored below x
            // and the exits bad for A. An A node's count: its children not in it yet
            // (and a good exit, which never is).
            self.queue.clear();
            for v in 0..nodes {
                let s = self.st[v] & !(IN_R | CNT);
                self.st[v] = s;
                if s & WON != 0 {
                    continue;
                }
                let target = if s & SINK != 0 {
                    self.rep_a(v) < x
                } else if lost(v) {
                    true
                } else {
                    let c = self.out[v / 2] + self.good_exit(v, x) as u8;
                    self.st[v] = s | c;
                    self.rep_a(v) < x || self.bad_exit(v, x) || (v.is_multiple_of(2) && c == 0)
                };
                if target {
                    self.st[v] |= IN_R;
                    self.queue.push(v as u32);
                }
            }
            while let Some(u) = self.queue.pop() {
                for w in self.preds_of(u as usize) {
                    let s = self.st[w];
                    if s & (WON | IN_R | SINK) != 0 {
                        continue;
                    }
                    if !w.is_multiple_of(2) {
                        self.st[w] = s | IN_R;
                        self.queue.push(w as u32);
                    } else {
                        debug_assert!(s & CNT > 0, "an A node counted out twice");
                        let s = s - 1; // one child fewer outside
                        self.st[w] = if s & CNT == 0 { s | IN_R } else { s };
                        if s & CNT == 0 {
                            self.queue.push(w as u32);
                        }
                    }
                }
            }
            // What B cannot force there, A holds forever: add A's attractor to it.
            let mut grew = false;
            for s in self.st.iter_mut() {
                if *s & (WON | IN_R) == 0 {
                    *s |= WON;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
            // B nodes count their children not yet won by A (every won node is queued
            // once below and takes itself off its predecessors' counts).
            self.queue.clear();
            for v in 0..nodes {
                let s = self.st[v] & !CNT;
                if s & WON != 0 {
                    self.st[v] = s;
                    self.queue.push(v as u32);
                    continue;
                }
                let c = self.out[v / 2];
                let joins = if s & SINK != 0 {
                    self.rep_a(v) >= x
                } else if v.is_multiple_of(2) {
                    self.good_exit(v, x)
                } else {
                    !self.bad_exit(v, x) && c == 0
                };
                self.st[v] = s | c | if joins { WON } else { 0 };
                if joins {
                    self.queue.push(v as u32);
                }
            }
            while let Some(u) = self.queue.pop() {
                for w in self.preds_of(u as usize) {
                    let s = self.st[w];
                    if s & (WON | SINK) != 0 {
                        continue;
                    }
                    if w.is_multiple_of(2) {
                        self.st[w] = s | WON;
                        self.queue.push(w as u32);
                    } else if !self.bad_exit(w, x) {
                        let s = s - 1;
                        self.st[w] = if s & CNT == 0 { s | WON } else { s };
                        if s & CNT == 0 {
                            self.queue.push(w as u32);
                        }
                    }
                }
            }
        }
        self.won()
    }

    /// What A wins, node by node, read out of the state bytes of the game just played.
    fn won(&self) -> impl Iterator<Item = bool> {
        self.st.iter().map(|&s| s & WON != 0)
    }

    /// The predecessors of node `v`: `(p, the other side)` for `p` among board `v / 2`'s.
    fn preds_of(&self, v: usize) -> impl Iterator<Item = usize> + use<'g> {
        let (k, flip) = (v / 2, 1 - v % 2);
        let (preds, start): (&'g [u32], &'g [u32]) = (self.preds, self.start);
        preds[start[k] as usize..start[k + 1] as usize]
            .iter()
            .map(move |&p| 2 * p as usize + flip)
    }
}

/// Flags packed one bit each, the first in the low bit of the first word.
pub(super) fn pack(flags: impl IntoIterator<Item = bool>) -> Vec<u64> {
    let mut flags = flags.into_iter().peekable();
    let mut words = Vec::new();
    while flags.peek().is_some() {
        let word = flags.by_ref().take(64).enumerate();
        words.push(word.fold(0u64, |w, (j, f)| w | (f as u64) << j));
    }
    words
}

/// Flag `i` of [`pack`]'s bits.
pub(super) fn bit(bits: &[u64], i: usize) -> bool {
    bits[i / 64] >> (i % 64) & 1 == 1
}

/// Rounds of each of the prover's games over a count ([`Cycles::max_rounds`]): a game
/// with a history over the 2.7 M positions of 12 seeds can take hundreds of rounds of
/// about 0.1 s (the build's games run to the end).
const PROVER_ROUNDS: usize = 24;

/// One count's graph of non-capturing moves with its exits valued by the smaller
/// tables' bounds, for bounds on the value of a position **with a history**: the
/// repetition rule's bounds of [`cycle_bounds`], the history's positions ending the
/// game where play reaches them. Built from forward move generation on one thread.
pub struct CountGraph {
    pub(super) n: usize,
    /// Each board's repetition score for its mover.
    pub(super) rep: Vec<i8>,
    /// Bounds on the mover's best exit (`NONE` where he has none).
    pub(super) exit_lo: Vec<i8>,
    pub(super) exit_hi: Vec<i8>,
    /// The boards each board is reached from (`preds[start[k]..start[k + 1]]`).
    pub(super) start: Vec<u32>,
    pub(super) preds: Vec<u32>,
    /// The boards each board leads to (`succ[succ_start[k]..succ_start[k + 1]]`).
    pub(super) succ_start: Vec<u32>,
    pub(super) succ: Vec<u32>,
    /// Between two margins that can occur: 2 under the own-row rules (every ending
    /// splits the count's seeds, so a margin has the count's parity), else 1.
    pub(super) step: i32,
}

impl CountGraph {
    /// The graph of count `n` under `rules`; `lower` and `lower_bounds` are the tables
    /// and bounds of the counts below `n`.
    pub fn new(rules: RuleSet, n: usize, lower: &[Vec<u8>], lower_bounds: &[Bounds]) -> CountGraph {
        let total = boards_with(n) as usize;
        let mut exit_lo = vec![NONE; total];
        let mut exit_hi = vec![NONE; total];
        let mut rep = vec![0i8; total];
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for k in 0..total {
            let pits = unrank(n, k as u64);
            rep[k] = repetition_score(rules, &pits) as i8;
            let (mut lo, mut hi) = (i32::MIN, i32::MIN);
            let terminal = steps_bounded(
                rules,
                &pits,
                n,
                lower,
                Some(lower_bounds),
                |_, s, [l, h]| match s {
                    Step::Exit(_) => (lo, hi) = (lo.max(l), hi.max(h)),
                    Step::Inner(q) => edges.push((q, k as u32)),
                },
            );
            if let Some(t) = terminal {
                (lo, hi) = (t, t);
            }
            if lo != i32::MIN {
                (exit_lo[k], exit_hi[k]) = (lo as i8, hi as i8);
            }
        }
        // Edges come by board `k` rising, so each board's predecessors are in rising
        // order; and read back from them, each board's successors are too.
        let (start, preds) = adjacency(total, &edges);
        drop(edges);
        let back: Vec<(u32, u32)> = (0..total)
            .flat_map(|q| {
                preds[start[q] as usize..start[q + 1] as usize]
                    .iter()
                    .map(move |&k| (k, q as u32))
            })
            .collect();
        let (succ_start, succ) = adjacency(total, &back);
        CountGraph {
            n,
            rep,
            exit_lo,
            exit_hi,
            start,
            preds,
            succ_start,
            succ,
            step: if rules.repetition == Leftover::OwnRow {
                2
            } else {
                1
            },
        }
    }

    /// The game's solver over this count's graph.
    pub(super) fn cycles(&self) -> Cycles<'_> {
        let mut c = Cycles::new(
            &self.rep,
            &self.exit_lo,
            &self.exit_hi,
            &self.start,
            &self.preds,
        );
        c.max_rounds = PROVER_ROUNDS;
        c
    }
}

/// The edges `(from, to)` grouped by `from`, in their order within a group: each
/// node's start in the list, and the list (a counting sort: two passes).
fn adjacency(total: usize, edges: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; total + 1];
    for &(q, _) in edges {
        start[q as usize + 1] += 1;
    }
    for k in 0..total {
        start[k + 1] += start[k];
    }
    let mut next = start.clone();
    let mut list = vec![0u32; edges.len()];
    for &(q, p) in edges {
        list[next[q as usize] as usize] = p;
        next[q as usize] += 1;
    }
    (start, list)
}

/// The strongly connected components of the positions with `n` seeds under
/// non-capturing moves: node `2k + s` is board `k` (rank, mover's view) with side `s`
/// to move (`Side::index`: 0 South); the two sides' positions are different ones for
/// the repetition rule. A position of the history outside the component of the
/// position now cannot recur, so it changes nothing (the lemma of docs/tablebase.md,
/// "Components of a count"). Components close downstream first: a line of
/// non-capturing moves only ever goes to components of equal or smaller number. Built
/// from forward move generation on one thread (0.6 s at 12 seeds, 2.7 M positions).
pub fn count_components(rules: RuleSet, n: usize) -> super::scc::Components {
    let total = boards_with(n) as usize;
    // Each board's inner moves from South's side: a North position is the same board
    // seen from its mover, its moves the same with the sides swapped.
    let mut start = Vec::with_capacity(total + 1);
    let mut next: Vec<u32> = Vec::new();
    for k in 0..total {
        start.push(next.len() as u32);
        let p = Position {
            pits: unrank(n, k as u64),
            stores: [0, 0],
            side: Side::South,
        };
        let mask = p.legal_moves(rules);
        for a in (0..6).filter(|a| mask & (1 << a) != 0) {
            let mut q = p;
            q.apply(rules, a);
            if q.board_seeds() as usize == n && q.stores == [0, 0] {
                next.push(rank(&mover_pits(&q)) as u32);
            }
        }
    }
    start.push(next.len() as u32);
    super::scc::strongly_connected(
        2 * total,
        |v| (start[v / 2 + 1] - start[v / 2]) as usize,
        |v, i| 2 * next[start[v / 2] as usize + i] as usize + 1 - v % 2,
    )
}

/// The bucket-queue sweep over the doubled graph. Returns `L` and `H` per board, with
/// ∓(n+1) standing for ∓∞ (endless play).
fn sweep(
    n: usize,
    exit_a: &[i8],
    exit_b: &[i8],
    remaining: &mut [u8],
    start: &[u32],
    preds: &[u32],
) -> (Vec<i8>, Vec<i8>) {
    let total = exit_a.len();
    let levels = 2 * n + 1;
    let level = |v: i32| (v + n as i32) as usize;
    // Entries: board index, bit 31 = B node, bit 30 = A node already given its value.
    const B: u32 = 1 << 31;
    const SET: u32 = 1 << 30;
    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); levels];
    for k in 0..total {
        if exit_a[k] != NONE {
            buckets[level(exit_a[k] as i32)].push(k as u32);
        }
        if exit_b[k] != NONE && remaining[k] == 0 {
            buckets[level(-(exit_b[k] as i32))].push(k as u32 | B);
        }
    }
    let mut a = vec![NONE; total];
    let mut b = vec![NONE; total];
    for li in (0..levels).rev() {
        let v = li as i32 - n as i32;
        while let Some(e) = buckets[li].pop() {
            let k = (e & !(B | SET)) as usize;
            let (s, t) = (start[k] as usize, start[k + 1] as usize);
            if e & B != 0 {
                // B node k is known: every A predecessor not yet known takes v.
                b[k] = v as i8;
                for &p in &preds[s..t] {
                    if a[p as usize] == NONE {
                        a[p as usize] = v as i8;
                        buckets[li].push(p | SET);
                    }
                }
            } else {
                if e & SET == 0 {
                    if a[k] != NONE {
                        continue; // reached earlier through a child
                    }
                    a[k] = v as i8;
                }
                // A node k is known: B predecessors wait for all of their children.
                for &p in &preds[s..t] {
                    let p = p as usize;
                    remaining[p] -= 1;
                    if remaining[p] == 0 {
                        let bv = if exit_b[p] == NONE {
                            v
                        } else {
                            v.min(-(exit_b[p] as i32))
                        };
                        buckets[level(bv)].push(p as u32 | B);
                    }
                }
            }
        }
        buckets[li] = Vec::new();
    }
    let inf = n as i8 + 1;
    for x in a.iter_mut() {
        if *x == NONE {
            *x = -inf;
        }
    }
    for x in b.iter_mut() {
        *x = if *x == NONE { inf } else { -*x };
    }
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::adjacency;

    #[test]
    fn adjacency_groups_edges_as_a_sort_would() {
        // Pseudo-random edges pushed by target rising (as the graph pushes them), with
        // repeats: grouped by source, each group's targets in rising order, exactly as
        // sorting the pairs gives.
        let total = 50;
        let mut x = 12345u64;
        let mut edges = Vec::new();
        for k in 0..total as u32 {
            for _ in 0..(k % 5) {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                edges.push(((x >> 33) as u32 % total as u32, k));
            }
        }
        let (start, list) = adjacency(total, &edges);
        let mut sorted = edges.clone();
        sorted.sort_unstable();
        let grouped: Vec<(u32, u32)> = (0..total)
            .flat_map(|q| {
                list[start[q] as usize..start[q + 1] as usize]
                    .iter()
                    .map(move |&p| (q as u32, p))
            })
            .collect();
        assert_eq!(grouped, sorted);
        assert!(edges.len() > 50);
    }
}

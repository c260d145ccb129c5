//! The proof search of [`super::prove`]: the exact margin of a position *with its
//! history*, sharing work between transpositions only where that is sound.
//!
//! A position's value under the repetition rule depends on the positions played since
//! the last capture (the graph-history interaction problem): the brute-force
//! [`super::solve::Solver`] therefore keeps no transposition table inside a cycle and
//! grows exponentially with it. This search returns the same values and proves them
//! with three facts, each a theorem about the game rather than a heuristic:
//!
//! 1. **A capture clears the history**, so the position after it is worth its value
//!    with no history, `V0`: the table's bounds `[L*, H*]` hold there (an exact entry
//!    is the value), and so does anything proven about `V0` before.
//! 2. **A bound on `V0` bounds every history.** If the mover of `Y` can force at least
//!    `ℓ` from `Y` with no history, then with the positions `S` behind him he can force
//!    at least `min(ℓ, min over s in S of rep(s))`, where `rep(s)` is what a repetition
//!    at `s` gives him (under the own-row rules his row at `s` minus his opponent's;
//!    0 where the seeds are split). He plays the strategy that forces `ℓ`: along its
//!    lines the game goes exactly as it would with no history until it reaches a
//!    position of `S`, where it ends with `rep(s)`. The same holds for an upper bound
//!    `h` with `max`. So every node, whatever its history, starts with the bounds
//!    `[min(ℓ, min rep), max(h, max rep)]`, which are also valid for any part of `S`.
//! 3. **A result that used no repetition of an earlier position is a fact about `V0`.**
//!    A search result at `Y` is a proof built from exits, repetitions and bounds of the
//!    kind of fact 2 (which only get weaker as the history shrinks). If no repetition in
//!    it closes on a position played before `Y`, the same proof holds with no history
//!    before `Y`: the result bounds `V0(Y)` and is kept (keyed by the board from the
//!    mover's side), for every later node that meets `Y` with any history (fact 2).
//! 4. **Only the history play can reach again matters.** Before its first capture a
//!    line from the root meets only positions that non-capturing moves reach from it;
//!    where there are few enough to list, the history's other positions are dropped.
//!
//! Each search is alpha-beta with fail-soft bounds inside MTD(f) null windows from the
//! table's value as the first guess; positions on the line since the last capture are
//! found in a map from key to line index, so a step allocates nothing once the map and
//! the line have grown.

use super::Tablebase;
use super::build::mover_pits;
use super::keys::{KeyMap, key};
use super::solve::Unsolved;
use crate::game::{Leftover, Position, RuleSet, Side};

/// Proven bounds on `V0` kept before the map is cleared (about 32 bytes each).
const LEARNED_CAP: usize = 1 << 21;

/// Most positions the search looks through for those of the history that play can reach.
const REACH_CAP: u64 = 100_000;

/// No repetition of an earlier position entered a result.
const FREE: u32 = u32::MAX;

/// A move of a node: the position after it (stores empty), what it gained, whether the
/// same side moves next (`sign` 1) or the other (−1), and its place in the order.
#[derive(Clone, Copy)]
struct Child {
    score: i32,
    pos: Position,
    gain: i32,
    sign: i32,
    capture: bool,
}

/// One position on the current line.
#[derive(Clone, Copy, Debug)]
struct Step {
    /// Its key (pits and side).
    key: u128,
    /// The line index the key had in `on_line` before this step (a capture starts a
    /// new segment, in which the same position may occur again).
    prev: Option<u32>,
    /// Lowest and highest South-row-minus-North-row over the segment up to here: what
    /// a repetition at those positions can give South (0 when the seeds are split).
    rep: [i32; 2],
}

/// The exact margin of future captures with the history, within a node budget.
pub struct HistorySearch<'a> {
    tb: &'a Tablebase,
    rules: RuleSet,
    line: Vec<Step>,
    on_line: KeyMap<u32>,
    /// Index in `line` where the current segment (positions since the last capture)
    /// starts.
    base: usize,
    /// Proven bounds on `V0` of boards seen from the mover (packed pits).
    learned: KeyMap<(i8, i8)>,
    /// The positions non-capturing play can reach from the root, and the queue that
    /// finds them.
    reached: KeyMap<()>,
    queue: Vec<Position>,
    nodes: u64,
    limit: u64,
    max_line: usize,
}

fn board_key(p: &Position) -> u128 {
    let mut b = [0u8; 16];
    b[..12].copy_from_slice(&mover_pits(p));
    u128::from_le_bytes(b)
}

impl<'a> HistorySearch<'a> {
    /// A search over `tb`'s rules whose every `solve` gives up after `node_limit` nodes.
    /// The bounds it proves are kept from one `solve` to the next.
    pub fn new(tb: &'a Tablebase, node_limit: u64) -> HistorySearch<'a> {
        HistorySearch {
            tb,
            rules: tb.rules(),
            line: Vec::with_capacity(256),
            on_line: KeyMap::with_capacity_and_hasher(256, Default::default()),
            base: 0,
            learned: KeyMap::default(),
            reached: KeyMap::default(),
            queue: Vec::new(),
            nodes: 0,
            limit: node_limit,
            max_line: 20_000,
        }
    }

    /// Every `solve` from now gives up after `node_limit` nodes.
    pub fn set_limit(&mut self, node_limit: u64) {
        self.limit = node_limit;
    }

    /// Nodes of the last `solve`.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The margin of future captures the mover of `pos` can force (stores ignored),
    /// with `history` (the positions since the last capture, oldest first, `pos`
    /// excluded) behind it; the table's value of the board is the first guess.
    pub fn solve(&mut self, pos: &Position, history: &[Position]) -> Result<i32, Unsolved> {
        self.nodes = 0;
        let mut p = *pos;
        p.stores = [0, 0];
        let guess = self.tb.probe(&p).map_or(0, |e| e.value);
        self.line.clear();
        self.on_line.clear();
        self.base = 0;
        if history.iter().any(|h| key(h) == key(&p)) {
            // The game ended here by repetition.
            let r = self.south_rep(&p);
            return Ok(if p.side == Side::South { r } else { -r });
        }
        // Only the positions of the history that play can reach again matter.
        let reach = if history.is_empty() {
            false
        } else {
            self.reachable(&p, (self.limit / 8).min(REACH_CAP))
        };
        for h in history {
            let mut h = *h;
            h.stores = [0, 0];
            if !reach || self.reached.contains_key(&key(&h)) {
                self.push(&h);
            }
        }
        // MTD(f): null windows from the guess until the bounds meet.
        let (mut lower, mut upper) = (i32::MIN, i32::MAX);
        let mut g = guess;
        while lower < upper {
            let beta = if g == lower { g + 1 } else { g };
            let r = self.node(&p, beta - 1, beta);
            if self.nodes > self.limit {
                return Err(Unsolved::Nodes);
            }
            let (v, _) = r?;
            if v < beta {
                upper = v;
            } else {
                lower = v;
            }
            g = v;
        }
        Ok(g)
    }

    /// Every position that non-capturing play from `p` can reach, into `reached`, if
    /// there are at most `cap` (each counted as a node); `false` when there are more.
    /// A line from `p` meets no other position before its first capture, so a position
    /// of the history outside this set can never repeat: the value is the same without
    /// it.
    fn reachable(&mut self, p: &Position, cap: u64) -> bool {
        let rules = self.rules;
        self.reached.clear();
        self.queue.clear();
        self.reached.insert(key(p), ());
        self.queue.push(*p);
        let mut next = 0;
        while next < self.queue.len() {
            let y = self.queue[next];
            next += 1;
            self.nodes += 1;
            if next as u64 > cap {
                return false;
            }
            let mask = y.legal_moves(rules);
            for a in 0..6 {
                if mask & (1 << a) == 0 {
                    continue;
                }
                let mut q = y;
                q.apply(rules, a);
                if q.board_seeds() < y.board_seeds() || q.stores != y.stores {
                    continue;
                }
                if self.reached.insert(key(&q), ()).is_none() {
                    self.queue.push(q);
                }
            }
        }
        true
    }

    /// What a repetition at `q` gives South.
    #[inline]
    fn south_rep(&self, q: &Position) -> i32 {
        match self.rules.repetition {
            Leftover::SplitEvenly => 0,
            Leftover::OwnRow => q.row_seeds(Side::South) as i32 - q.row_seeds(Side::North) as i32,
        }
    }

    /// Puts `p` on the line (at index `line.len()`).
    #[inline]
    fn push(&mut self, p: &Position) {
        let k = key(p);
        let i = self.line.len() as u32;
        let r = self.south_rep(p);
        let rep = if self.line.len() > self.base {
            let [lo, hi] = self.line[self.line.len() - 1].rep;
            [lo.min(r), hi.max(r)]
        } else {
            [r, r]
        };
        let prev = self.on_line.insert(k, i);
        self.line.push(Step { key: k, prev, rep });
    }

    /// Takes the last position off the line.
    #[inline]
    fn pop(&mut self) {
        let s = self.line.pop().expect("a position on the line");
        match s.prev {
            Some(i) => self.on_line.insert(s.key, i),
            None => self.on_line.remove(&s.key),
        };
    }

    /// Proven bounds on the value of `p` with no history: the table's, narrowed by
    /// what this search proved.
    #[inline]
    fn v0(&self, p: &Position) -> (i32, i32) {
        let n = p.board_seeds() as i32;
        let (mut lo, mut hi) = match self.tb.probe(p) {
            Some(e) => (e.bounds[0], e.bounds[1]),
            None => (-n, n),
        };
        if let Some(&(l, h)) = self.learned.get(&board_key(p)) {
            lo = lo.max(l as i32);
            hi = hi.min(h as i32);
        }
        (lo, hi)
    }

    fn learn(&mut self, p: &Position, best: i32, alpha: i32, beta: i32) {
        if self.learned.len() >= LEARNED_CAP {
            self.learned.clear();
        }
        let n = p.board_seeds() as i8;
        let b = best as i8;
        let e = self.learned.entry(board_key(p)).or_insert((-n, n));
        if best <= alpha {
            e.1 = e.1.min(b);
        } else if best >= beta {
            e.0 = e.0.max(b);
        } else {
            *e = (b, b);
        }
    }

    /// Fail-soft alpha-beta at `p` (stores empty) with the current line behind it:
    /// the value (a bound outside the window) and the lowest line index of a position
    /// a repetition in its proof closed on ([`FREE`] if none).
    fn node(&mut self, p: &Position, alpha: i32, beta: i32) -> Result<(i32, u32), Unsolved> {
        self.nodes += 1;
        if self.nodes > self.limit {
            return Err(Unsolved::Nodes);
        }
        if self.line.len() - self.base > self.max_line {
            return Err(Unsolved::Depth);
        }
        let rules = self.rules;
        let mask = p.legal_moves(rules);
        let me = p.side;
        if mask == 0 {
            let o = p.status(rules).expect("no legal move: the game is over");
            let v = (o.halves[me.index()] as i32 - o.halves[1 - me.index()] as i32) / 2;
            return Ok((v, FREE));
        }
        // Fact 2: bounds from V0 and from what a repetition of the segment can give.
        let (l0, h0) = self.v0(p);
        let (lo, hi) = if self.line.len() > self.base {
            let [a, b] = self.line[self.line.len() - 1].rep;
            let (mn, mx) = if me == Side::South { (a, b) } else { (-b, -a) };
            (l0.min(mn), h0.max(mx))
        } else {
            (l0, h0)
        };
        if lo >= beta || lo == hi {
            return Ok((lo, FREE));
        }
        if hi <= alpha {
            return Ok((hi, FREE));
        }
        let mut alpha = alpha.max(lo);
        let beta = beta.min(hi);
        let (alpha0, beta0) = (alpha, beta);
        let here = self.line.len() as u32;
        self.push(p);
        // The moves, best first by the table's values (a guess that only orders them).
        let mut kids = [Child {
            score: i32::MIN,
            pos: *p,
            gain: 0,
            sign: 1,
            capture: false,
        }; 6];
        let mut count = 0;
        for a in 0..6 {
            if mask & (1 << a) == 0 {
                continue;
            }
            let mut q = *p;
            q.apply(rules, a);
            let gain = q.stores[me.index()] as i32 - q.stores[1 - me.index()] as i32;
            let sign = if q.side == me { 1 } else { -1 };
            let capture = gain != 0 || q.board_seeds() < p.board_seeds();
            q.stores = [0, 0];
            let guess = self.tb.value(&q).map_or(0, |(v, _)| v);
            kids[count] = Child {
                score: gain + sign * guess,
                pos: q,
                gain,
                sign,
                capture,
            };
            count += 1;
        }
        kids[..count].sort_by_key(|c| -c.score);
        let mut best = i32::MIN;
        let mut dep = FREE;
        let mut result = Ok(());
        for c in &kids[..count] {
            let (q, gain, sign) = (c.pos, c.gain, c.sign);
            let v = if c.capture {
                // Fact 1: a capture starts a new segment.
                let (lo, hi) = if sign > 0 {
                    (alpha - gain, beta - gain)
                } else {
                    (gain - beta, gain - alpha)
                };
                let saved = self.base;
                self.base = self.line.len();
                let r = self.node(&q, lo, hi);
                self.base = saved;
                match r {
                    Ok((x, _)) => gain + sign * x,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            } else if let Some(&j) = self.on_line.get(&key(&q))
                && j as usize >= self.base
            {
                dep = dep.min(j);
                let r = self.south_rep(&q);
                if me == Side::South { r } else { -r }
            } else {
                let (lo, hi) = if sign > 0 {
                    (alpha, beta)
                } else {
                    (-beta, -alpha)
                };
                match self.node(&q, lo, hi) {
                    Ok((x, d)) => {
                        dep = dep.min(d);
                        sign * x
                    }
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            };
            best = best.max(v);
            alpha = alpha.max(best);
            if alpha >= beta {
                break;
            }
        }
        self.pop();
        result?;
        // Fact 3.
        if dep >= here {
            self.learn(p, best, alpha0, beta0);
        }
        Ok((best, dep))
    }
}

/// Nodes of each search in the first pass of [`prove_top_count`].
const FIRST_PASS_NODES: u64 = 1_000;

/// Proves the value with no history of every board of the top count of `tables` (the
/// last one, finished by the retrograde analysis) whose bounds do not meet, each search
/// within at most `node_limit` nodes, and marks those entries exact (value and bounds
/// the proven value), so that larger counts take them as exits. Returns how many were
/// proved. Runs on the current rayon pool.
///
/// It works in passes over the boards still open, the budget of a search growing four
/// times a pass from [`FIRST_PASS_NODES`] to `node_limit`, then passes at `node_limit`
/// while one proves something. Each pass first commits what the last one proved: a
/// proven value is `V0` of its board, so (fact 2 of the module docs) it bounds that
/// board under every history, and the next pass's searches stop there sooner wherever
/// a line meets it. Boards are searched in fixed chunks, each with its own search, so
/// the result does not depend on the threads.
pub fn prove_top_count(
    rules: RuleSet,
    tables: &mut Vec<Vec<u8>>,
    bounds: &mut Vec<super::build::Bounds>,
    node_limit: u64,
) -> u64 {
    use rayon::prelude::*;
    let n = tables.len() - 1;
    let mut open: Vec<u32> = (0..bounds[n].len() as u32)
        .filter(|&r| {
            let [lo, hi] = bounds[n][r as usize];
            lo < hi
        })
        .collect();
    let mut budget = FIRST_PASS_NODES.min(node_limit);
    let mut total = 0;
    while !open.is_empty() && node_limit > 0 {
        let tb = Tablebase::from_tables(rules, std::mem::take(tables), std::mem::take(bounds));
        let proved: Vec<(u32, i8)> = open
            .par_chunks(256)
            .flat_map_iter(|chunk| {
                let mut s = HistorySearch::new(&tb, budget);
                let mut out = Vec::new();
                for &r in chunk {
                    let pos = Position {
                        pits: super::index::unrank(n, r as u64),
                        stores: [0, 0],
                        side: Side::South,
                    };
                    if let Ok(v) = s.solve(&pos, &[]) {
                        out.push((r, v as i8));
                    }
                }
                out
            })
            .collect();
        let Tablebase {
            tables: t,
            bounds: b,
            ..
        } = tb;
        *tables = t;
        *bounds = b;
        for &(r, v) in &proved {
            let [lo, hi] = bounds[n][r as usize];
            assert!((lo..=hi).contains(&v), "a proof outside the bounds");
            tables[n][r as usize] = super::build::encode(v, true);
            bounds[n][r as usize] = [v, v];
        }
        total += proved.len() as u64;
        // `proved` follows the order of `open`.
        let mut done = proved.iter().map(|&(r, _)| r).peekable();
        open.retain(|&r| {
            let hit = done.peek() == Some(&r);
            if hit {
                done.next();
            }
            !hit
        });
        if budget < node_limit {
            budget = budget.saturating_mul(4).min(node_limit);
        } else if proved.is_empty() {
            break;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Preset;
    use crate::rng::Rng;
    use crate::tablebase::solve::Solver;
    use crate::tablebase::{build_in_memory, index};

    /// Every board with `n` seeds, South to move, stores empty.
    fn boards_with(n: usize) -> impl Iterator<Item = Position> {
        (0..index::boards_with(n)).map(move |r| Position {
            pits: index::unrank(n, r),
            stores: [0, 0],
            side: Side::South,
        })
    }

    /// A random line of non-capturing moves from `start` (at most `len` positions, the
    /// last one where it stopped): a history the search must honour.
    fn random_history(
        rules: RuleSet,
        start: &Position,
        len: usize,
        rng: &mut Rng,
    ) -> (Vec<Position>, Position) {
        let mut h = Vec::new();
        let mut p = *start;
        for _ in 0..len {
            let mask = p.legal_moves(rules);
            let quiet: Vec<usize> = (0..6)
                .filter(|&a| {
                    mask & (1 << a) != 0 && {
                        let mut q = p;
                        q.apply(rules, a);
                        q.board_seeds() == p.board_seeds()
                            && q.stores == p.stores
                            && !h.contains(&q)
                            && q != *start
                    }
                })
                .collect();
            if quiet.is_empty() {
                break;
            }
            let a = quiet[rng.below(quiet.len() as u32) as usize];
            h.push(p);
            p.apply(rules, a);
        }
        (h, p)
    }

    /// The search against the brute-force solver on every board with at most `max`
    /// seeds (and `extra` random boards of `max + 1..=max + 3`), with no history, with
    /// each move's history, and with a random history: returns (checked, compared,
    /// proven by the search, unfinished by brute force). Panics on any disagreement.
    ///
    /// The brute force tries the moves in the table's order and starts from the table's
    /// value, as `verify` does: both change its work, never its result, and without them
    /// it finishes only about a third of the 4-seed boards even with a million nodes.
    fn against_brute_force(rules: RuleSet, max: usize, extra: usize) -> [u64; 4] {
        let tb = build_in_memory(rules, max + 3);
        let order = |p: &Position| -> [i32; 6] {
            let mv = tb.move_values(p).unwrap_or([None; 6]);
            std::array::from_fn(|i| mv[i].unwrap_or(i32::MIN / 2))
        };
        let mut fast = HistorySearch::new(&tb, 200_000);
        let mut brute = Solver::new(rules, 20_000).with_order(&order);
        let mut rng = Rng::new(7);
        let mut boards: Vec<Position> = (1..=max).flat_map(boards_with).collect();
        for _ in 0..extra {
            let n = max + 1 + rng.below(3) as usize;
            let r = rng.bits() % index::boards_with(n);
            boards.push(Position {
                pits: index::unrank(n, r),
                stores: [0, 0],
                side: Side::South,
            });
        }
        let mut counts = [0u64; 4];
        let mut check = |pos: &Position, h: &[Position]| {
            let guess = tb.value(pos).map_or(0, |(v, _)| v);
            let b = brute.solve_near(pos, h, guess);
            let f = fast.solve(pos, h);
            counts[0] += 1;
            counts[2] += f.is_ok() as u64;
            match (f, b) {
                (Ok(f), Ok(b)) => {
                    counts[1] += 1;
                    assert_eq!(f, b, "{} {pos} history {h:?}", rules.name());
                }
                (_, Err(_)) => counts[3] += 1,
                _ => {}
            }
        };
        for pos in &boards {
            check(pos, &[]);
            // Each move: the position after it, with `pos` behind it.
            for a in 0..6 {
                if pos.legal_moves(rules) & (1 << a) == 0 {
                    continue;
                }
                let mut q = *pos;
                q.apply(rules, a);
                if q.board_seeds() == pos.board_seeds() && q.stores == [0, 0] {
                    check(&q, &[*pos]);
                }
            }
            let len = 1 + rng.below(20) as usize;
            let (h, end) = random_history(rules, pos, len, &mut rng);
            if end.legal_moves(rules) != 0 {
                check(&end, &h);
            }
        }
        counts
    }

    #[test]
    fn agrees_with_brute_force_under_every_rule_set() {
        for preset in Preset::ALL {
            let rules = RuleSet::from_preset(preset);
            let t = std::time::Instant::now();
            let [checked, compared, proven, unfinished] = against_brute_force(rules, 4, 100);
            eprintln!(
                "{}: {checked} checked, {compared} compared, {proven} proven by the search, \
                 {unfinished} unfinished by brute force, {:.1} s",
                preset.name(),
                t.elapsed().as_secs_f64()
            );
            // Not vacuous: most of the checks are compared.
            assert!(compared > 3_000, "{} compared {compared}", preset.name());
        }
    }

    #[test]
    fn a_position_in_its_own_history_is_over() {
        // A position already in its history: the game ended there by repetition, each
        // player taking his row (South 1, North 2; after F, South 0, North 3).
        let tb = build_in_memory(RuleSet::abapa(), 3);
        let p: Position = "0-0-0-0-0-1-0-0-0-0-0-2-22-23-S".parse().unwrap();
        let mut s = HistorySearch::new(&tb, 1000);
        let mut q = p;
        q.apply(RuleSet::abapa(), 5);
        assert_eq!(s.solve(&p, &[p, q]), Ok(-1));
        assert_eq!(s.solve(&q, &[q]), Ok(3));
    }
}

//! The repetition rule's game searched exactly where its bounds do not meet.
//!
//! Under the own-row rules a game ends at the *first* position that recurs since the
//! last capture, scored by that position's rows.
//! [`CountGames::value`](super::games::CountGames::value) bounds a value by two
//! co-Büchi games over the count, each a proof for one side, and where the
//! bounds do not meet neither side can keep every cycle on its own scores. This search
//! plays the real game there, line by line, and asks the co-Büchi games again at every
//! node with the line's positions as ends, over only the positions still open:
//!
//! Fix a threshold `x` and call A the root's mover. A node is a position (board and
//! side to move). At a node with the line `π` behind it (the history, then the line
//! from the root), solve the two games of
//! [`CountGames::value`](super::games::CountGames::value) with `π`'s positions as sinks:
//! A's, which he wins only with a positional strategy that forces at least `x` (every
//! cycle it allows scores at least `x`, every exit and sink it reaches is worth
//! at least `x`), and his opponent's, the same for "below `x`". A node either game wins
//! is decided for every longer line through it: the winner's strategy stays inside his
//! winning region (a trap for the loser), and every position the line adds later was
//! open when the node was decided, so outside that region; play never reaches it, and
//! the proof with the longer line's sinks is the same proof. So the search marks what
//! each node's games decide, adds the node to the line (a sink scored by its rows),
//! and looks only at the moves into positions still open; a move into a position of
//! the line ends the game there by repetition. What it returns is the game's value at
//! the threshold, proven, or nothing where its budget runs out or an exit's bounds
//! straddle `x`. Each node's games run only over the open positions it reaches through
//! open positions (every other successor is decided, and counts as an exit), which
//! shrink as the line grows.

use super::build::{Bounds, CountGraph, NONE, decode, encode};
use crate::game::{Leftover, RuleSet};
use std::collections::HashMap;

/// What a node is worth to A at the threshold: not known yet, at least `x`, below `x`.
const OPEN: u8 = 0;
const WON: u8 = 1;
const LOST: u8 = 2;

/// No local index.
const NO: u32 = u32::MAX;

/// Most open positions in one node's games by default: the positions beyond count as
/// escapes for whichever side a game is not solving, so its proofs hold, only weaker.
const REGION_CAP: usize = 1 << 15;

/// Deepest line the search follows (each level is one frame of the call stack).
const MAX_DEPTH: usize = 4_096;

/// The search of one count's game at one threshold after another (see the module).
pub struct KnotSearch<'g> {
    g: &'g CountGraph,
    /// The count's table entries: their values order the moves, best first.
    table: &'g [u8],
    /// Node `2k + b`: board `k` (rank, mover's view) with A to move (`b = 0`) or his
    /// opponent (`b = 1`).
    status: Vec<u8>,
    /// Nodes whose status was set, to undo on the way back.
    undo: Vec<u32>,
    x: i32,
    /// Open positions visited by the games since the search was made; it gives up past
    /// `budget`.
    work: u64,
    budget: u64,
    /// Most open positions in one node's games.
    cap: usize,
    out_of_budget: bool,
    region: Region,
    /// Per threshold from `−n + 1` (index 0): what the two games with no history decide
    /// over the whole count, to start each search from (see [`KnotSearch::with_bases`]).
    bases: Option<&'g [Vec<u8>]>,
    /// The base of the search under way (no history): a node `status` leaves open is
    /// what it says.
    base: Option<&'g [u8]>,
    /// Proven results of nodes by a digest of everything their search reads (see
    /// [`KnotSearch::digest`]): a node reached again by another line, or from another
    /// root, whose open region and its decided edges are the same, is the same game.
    proven: HashMap<u128, bool>,
    /// Nodes answered from `proven` since the search was made.
    reused: u64,
}

/// Most results kept in [`KnotSearch::proven`] before it is cleared.
const PROVEN_CAP: usize = 1 << 20;

/// Scratch of one node's games: the open nodes it reaches and their moves between them.
#[derive(Default)]
struct Region {
    /// Global node → index in `ids` (`NO` outside).
    local: Vec<u32>,
    ids: Vec<u32>,
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    pred_start: Vec<u32>,
    pred: Vec<u32>,
    /// Per local node: decided successors for A, against A.
    for_a: Vec<u32>,
    against_a: Vec<u32>,
    /// Open successors beyond the region (past the cap).
    beyond: Vec<u32>,
    cnt: Vec<u32>,
    in_r: Vec<bool>,
    /// The side being solved's winning nodes; A's and his opponent's once solved.
    win: Vec<bool>,
    win_a: Vec<bool>,
    win_b: Vec<bool>,
    /// Per local node: its mover is the side being solved, its score is his, he surely
    /// wins there, his opponent may escape there.
    info: Vec<(bool, bool, bool, bool)>,
    queue: Vec<u32>,
}

impl<'g> KnotSearch<'g> {
    /// A search over `g`'s count within `budget` units of work (a unit is one open
    /// position in one node's games: about the cost of a move in the history search).
    pub fn new(g: &'g CountGraph, table: &'g [u8], budget: u64) -> KnotSearch<'g> {
        let nodes = 2 * g.rep.len();
        assert_eq!(table.len(), g.rep.len(), "the count's table");
        KnotSearch {
            g,
            table,
            status: vec![OPEN; nodes],
            undo: Vec::new(),
            x: 0,
            work: 0,
            budget,
            cap: REGION_CAP,
            out_of_budget: false,
            bases: None,
            base: None,
            proven: HashMap::new(),
            reused: 0,
            region: Region {
                local: vec![NO; nodes],
                ..Region::default()
            },
        }
    }

    /// What the two games with no history decide over the whole count at every
    /// threshold from `−n + 1` to `n`: for the searches of many boards with no history
    /// (a build), each then starts from the open positions alone.
    pub fn bases(g: &CountGraph, table: &[u8]) -> Vec<Vec<u8>> {
        let n = g.n as i32;
        let mut s = KnotSearch::new(g, table, u64::MAX);
        (-n + 1..=n)
            .map(|x| {
                s.x = x;
                let r = &mut s.region;
                r.ids.clear();
                r.ids.extend(0..2 * g.rep.len() as u32);
                for (i, &u) in r.ids.iter().enumerate() {
                    r.local[u as usize] = i as u32;
                }
                s.build_region();
                s.solve(true);
                s.solve(false);
                let r = &s.region;
                let base = (0..r.ids.len())
                    .map(|i| {
                        if r.win_a[i] {
                            WON
                        } else if r.win_b[i] {
                            LOST
                        } else {
                            OPEN
                        }
                    })
                    .collect();
                s.clear_region();
                base
            })
            .collect()
    }

    /// The same search starting, with no history, from `bases` ([`KnotSearch::bases`]).
    pub fn with_bases(self, bases: &'g [Vec<u8>]) -> KnotSearch<'g> {
        KnotSearch {
            bases: Some(bases),
            ..self
        }
    }

    /// A new budget of `budget` units of work from now.
    pub fn restart(&mut self, budget: u64) {
        self.work = 0;
        self.budget = budget;
    }

    /// The same search with at most `cap` open positions in one node's games.
    pub fn with_cap(self, cap: usize) -> KnotSearch<'g> {
        KnotSearch {
            cap: cap.max(1),
            ..self
        }
    }

    /// Nodes whose proven result was taken from another line's or root's search of the
    /// same games since the search was made.
    pub fn reused(&self) -> u64 {
        self.reused
    }

    /// Whether the last [`KnotSearch::value`] ran out of its budget.
    pub fn out_of_budget(&self) -> bool {
        self.out_of_budget
    }

    /// The margin the mover of board `root` (rank, his view) can force with the
    /// positions `history` behind him (`(rank, same mover as the root)`), searched for
    /// the thresholds above `low` up to `high`, proven bounds on it; `None` where the
    /// budget runs out or an exit's bounds leave a threshold open.
    ///
    /// Every way a game ends (a repetition, a side out of moves, a capture's exit) splits
    /// the count's `n` seeds between the two sides (own-row rules), so the margin has
    /// `n`'s parity: only the thresholds of that parity are searched ("at least `x`"
    /// for the other parity is "at least `x + 1`").
    pub fn value(
        &mut self,
        root: u32,
        history: &[(u32, bool)],
        low: i32,
        high: i32,
    ) -> Option<i32> {
        let (n, step) = (self.g.n as i32, self.g.step);
        let mut low = low + (low - n).rem_euclid(step);
        let high = high - (high - n).rem_euclid(step);
        while low < high {
            match self.wins(root, history, low + step)? {
                true => low += step,
                false => return Some(low),
            }
        }
        Some(low)
    }

    /// Whether the mover of `root` forces at least `x` (`None`: not decided).
    pub fn wins(&mut self, root: u32, history: &[(u32, bool)], x: i32) -> Option<bool> {
        self.x = x;
        self.out_of_budget = false;
        let at = (x + self.g.n as i32 - 1) as usize;
        self.base = self
            .bases
            .filter(|_| history.is_empty())
            .map(|b| b[at].as_slice());
        match self.state(2 * root) {
            OPEN => {}
            s => return Some(s == WON),
        }
        for &(k, same) in history {
            let v = 2 * k + (!same) as u32;
            self.set(v, self.sink(v));
        }
        let r = self.node(2 * root, 0);
        self.undo_to(0);
        r
    }

    /// What node `v` is known to be worth: its status, else its base's.
    fn state(&self, v: u32) -> u8 {
        known(&self.status, self.base, v)
    }

    /// A's repetition score at node `v`.
    fn rep_a(&self, v: u32) -> i32 {
        let r = self.g.rep[(v / 2) as usize] as i32;
        if v.is_multiple_of(2) { r } else { -r }
    }

    /// What reaching node `v` again is worth: the game ends there by repetition.
    fn sink(&self, v: u32) -> u8 {
        if self.rep_a(v) >= self.x { WON } else { LOST }
    }

    /// Bounds, for A, on the value of the best exit of `v`'s mover.
    fn exit(&self, v: u32) -> Option<(i32, i32)> {
        let k = (v / 2) as usize;
        let (lo, hi) = (self.g.exit_lo[k], self.g.exit_hi[k]);
        if lo == NONE {
            None
        } else if v.is_multiple_of(2) {
            Some((lo as i32, hi as i32))
        } else {
            Some((-(hi as i32), -(lo as i32)))
        }
    }

    fn set(&mut self, v: u32, s: u8) {
        self.status[v as usize] = s;
        self.undo.push(v);
    }

    fn undo_to(&mut self, mark: usize) {
        for v in self.undo.drain(mark..) {
            self.status[v as usize] = OPEN;
        }
    }

    /// The game at open node `v` with the line's positions marked as sinks.
    fn node(&mut self, v: u32, depth: usize) -> Option<bool> {
        if self.out_of_budget || depth > MAX_DEPTH {
            return None;
        }
        // The first node's games run over every open position it reaches: what they
        // decide bounds every node below.
        let cap = if depth == 0 { usize::MAX } else { self.cap };
        self.collect(v, cap);
        self.work += self.region.ids.len() as u64;
        if self.work > self.budget {
            self.out_of_budget = true;
            self.clear_region();
            return None;
        }
        self.build_region();
        // A region cut at the cap lets the deeper nodes reach beyond it: not a digest.
        let digest = (self.region.ids.len() < cap).then(|| self.digest());
        if let Some(&r) = digest.and_then(|d| self.proven.get(&d)) {
            self.clear_region();
            self.reused += 1;
            return Some(r);
        }
        let r = self.node_searched(v, depth);
        if let (Some(d), Some(r)) = (digest, r) {
            if self.proven.len() >= PROVEN_CAP {
                self.proven.clear();
            }
            self.proven.insert(d, r);
        }
        r
    }

    /// [`KnotSearch::node`] once its region is built: its games, then its moves.
    fn node_searched(&mut self, v: u32, depth: usize) -> Option<bool> {
        self.solve(true);
        self.solve(false);
        let (a, b) = (self.region.win_a[0], self.region.win_b[0]);
        let mark = self.undo.len();
        if !a && !b {
            // Keep what the games decided for the deeper nodes.
            for i in 0..self.region.ids.len() {
                let u = self.region.ids[i];
                if self.region.win_a[i] {
                    self.set(u, WON);
                } else if self.region.win_b[i] {
                    self.set(u, LOST);
                }
            }
        }
        self.clear_region();
        if a || b {
            return Some(a);
        }
        let mine = v.is_multiple_of(2);
        // An exit that may, but need not, win for the mover leaves the node open
        // unless a move wins (one that surely wins decided it above).
        let mut unknown = self
            .exit(v)
            .is_some_and(|(lo, hi)| if mine { hi >= self.x } else { lo < self.x });
        self.set(v, self.sink(v));
        let mut won = false;
        // The moves in the table's order: the opponent's worst entry first.
        let g: &'g CountGraph = self.g;
        let k = (v / 2) as usize;
        let mut order = [(0i8, 0u32); 6];
        let next = &g.succ[g.succ_start[k] as usize..g.succ_start[k + 1] as usize];
        for (o, &q) in order.iter_mut().zip(next) {
            *o = (decode(self.table[q as usize]).0, q);
        }
        let order = &mut order[..next.len()];
        order.sort_unstable();
        for &(_, q) in order.iter() {
            let w = 2 * q + 1 - v % 2;
            let r = match self.state(w) {
                WON => Some(true),
                LOST => Some(false),
                _ => self.node(w, depth + 1),
            };
            match r {
                Some(r) if r == mine => {
                    won = true;
                    break;
                }
                Some(_) => {}
                None => {
                    unknown = true;
                    if self.out_of_budget {
                        break;
                    }
                }
            }
        }
        self.undo_to(mark);
        if won {
            Some(mine)
        } else if unknown {
            None
        } else {
            Some(!mine)
        }
    }

    /// The open nodes `v` reaches through open nodes, `v` first.
    fn collect(&mut self, v: u32, cap: usize) {
        let (status, base) = (&self.status, self.base);
        let r = &mut self.region;
        r.ids.clear();
        r.ids.push(v);
        r.local[v as usize] = 0;
        let mut i = 0;
        while i < r.ids.len() {
            let u = r.ids[i];
            let k = (u / 2) as usize;
            let flip = 1 - u % 2;
            for &q in &self.g.succ[self.g.succ_start[k] as usize..self.g.succ_start[k + 1] as usize]
            {
                let w = 2 * q + flip;
                if known(status, base, w) == OPEN && r.local[w as usize] == NO && r.ids.len() < cap
                {
                    r.local[w as usize] = r.ids.len() as u32;
                    r.ids.push(w);
                }
            }
            i += 1;
        }
    }

    fn clear_region(&mut self) {
        let r = &mut self.region;
        for &u in &r.ids {
            r.local[u as usize] = NO;
        }
    }

    /// The region's moves between open nodes (both ways) and its decided successors.
    fn build_region(&mut self) {
        let m = self.region.ids.len();
        let (status, base) = (&self.status, self.base);
        let r = &mut self.region;
        r.succ_start.clear();
        r.succ.clear();
        r.for_a.clear();
        r.against_a.clear();
        r.beyond.clear();
        for i in 0..m {
            r.succ_start.push(r.succ.len() as u32);
            let u = r.ids[i];
            let k = (u / 2) as usize;
            let flip = 1 - u % 2;
            let (mut fa, mut aa, mut beyond) = (0, 0, 0);
            for &q in &self.g.succ[self.g.succ_start[k] as usize..self.g.succ_start[k + 1] as usize]
            {
                let w = 2 * q + flip;
                match known(status, base, w) {
                    WON => fa += 1,
                    LOST => aa += 1,
                    _ if r.local[w as usize] == NO => beyond += 1,
                    _ => r.succ.push(r.local[w as usize]),
                }
            }
            r.for_a.push(fa);
            r.against_a.push(aa);
            r.beyond.push(beyond);
        }
        r.succ_start.push(r.succ.len() as u32);
        // Predecessors: counting sort of the edges by their head.
        r.pred_start.clear();
        r.pred_start.resize(m + 1, 0);
        for &w in &r.succ {
            r.pred_start[w as usize + 1] += 1;
        }
        for i in 0..m {
            r.pred_start[i + 1] += r.pred_start[i];
        }
        r.pred.clear();
        r.pred.resize(r.succ.len(), 0);
        r.cnt.clear();
        r.cnt.extend_from_slice(&r.pred_start[..m]);
        for i in 0..m {
            for e in r.succ_start[i]..r.succ_start[i + 1] {
                let w = r.succ[e as usize] as usize;
                r.pred[r.cnt[w] as usize] = i as u32;
                r.cnt[w] += 1;
            }
        }
    }

    /// A digest (128 bits) of everything the search of the region's first node reads:
    /// the threshold, the region's positions in the order they were reached (which fixes
    /// their moves, scores, exits and table order), and per position how many of its
    /// moves lead to positions decided for and against A (the line's positions among
    /// them, as the ends they are). Every deeper node's region lies inside this one
    /// (when it was not cut at the cap) and the search only ever decides positions in
    /// it, so two nodes with one digest are the same game, and a proven value of one is
    /// the other's.
    fn digest(&self) -> u128 {
        const K: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835;
        let mut h: u128 = self.x as u32 as u128;
        let mut add = |w: u64| {
            h = (h ^ w as u128).wrapping_mul(K);
            h ^= h >> 67;
        };
        let r = &self.region;
        add(r.ids.len() as u64);
        for i in 0..r.ids.len() {
            add(r.ids[i] as u64
                | (r.for_a[i] as u64) << 32
                | (r.against_a[i] as u64) << 40
                | (r.beyond[i] as u64) << 48);
        }
        h
    }

    /// The co-Büchi game of one side `p` (A if `for_a`) over the region: `p` wins a
    /// line that reaches a position decided for him, or an exit surely worth his
    /// threshold, or that stays in the region and meets his opponent's scores only
    /// finitely often. `p`'s exits count only where their bounds decide them; his
    /// opponent's wherever they may escape. The classic algorithm, as in
    /// [`CountGames::value`](super::games::CountGames::value): the opponent's attractor
    /// to his scores and escapes, `p`'s attractor to the rest, until the opponent's
    /// covers what is left.
    fn solve(&mut self, for_a: bool) {
        let m = self.region.ids.len();
        let x = self.x;
        // Per local node: whose it is, whether its score is p's, p's sure win there,
        // the opponent's escape there.
        let mut info = std::mem::take(&mut self.region.info);
        info.clear();
        info.extend((0..m).map(|i| {
            let u = self.region.ids[i];
            let p_moves = u.is_multiple_of(2) == for_a;
            let good = (self.rep_a(u) >= x) == for_a;
            // A move beyond the region counts against the side solved.
            let (for_p, against_p) = if for_a {
                (self.region.for_a[i], self.region.against_a[i])
            } else {
                (self.region.against_a[i], self.region.for_a[i])
            };
            let against_p = against_p + self.region.beyond[i];
            let exit = self.exit(u);
            // Exits for A: [lo, hi]; p's sure win, the opponent's possible escape.
            let sure = p_moves
                && (for_p > 0 || exit.is_some_and(|(lo, hi)| if for_a { lo >= x } else { hi < x }));
            let escape = !p_moves
                && (against_p > 0
                    || exit.is_some_and(|(lo, hi)| if for_a { lo < x } else { hi >= x }));
            (p_moves, good, sure, escape)
        }));
        let r = &mut self.region;
        r.win.clear();
        r.win.resize(m, false);
        r.in_r.clear();
        r.in_r.resize(m, false);
        r.cnt.clear();
        r.cnt.resize(m, 0);
        let inner = |r: &Region, i: usize| r.succ_start[i + 1] - r.succ_start[i];
        loop {
            // The opponent's attractor, inside what p has not won, to his scores,
            // his escapes and p's dead ends.
            r.queue.clear();
            for i in 0..m {
                r.in_r[i] = false;
                if r.win[i] {
                    continue;
                }
                let (p_moves, good, sure, escape) = info[i];
                r.cnt[i] = inner(r, i) + sure as u32;
                if !good || escape || (p_moves && r.cnt[i] == 0) {
                    r.in_r[i] = true;
                    r.queue.push(i as u32);
                }
            }
            while let Some(u) = r.queue.pop() {
                for e in r.pred_start[u as usize]..r.pred_start[u as usize + 1] {
                    let w = r.pred[e as usize] as usize;
                    if r.win[w] || r.in_r[w] {
                        continue;
                    }
                    if !info[w].0 {
                        r.in_r[w] = true;
                        r.queue.push(w as u32);
                    } else {
                        r.cnt[w] -= 1;
                        if r.cnt[w] == 0 {
                            r.in_r[w] = true;
                            r.queue.push(w as u32);
                        }
                    }
                }
            }
            let mut grew = false;
            for i in 0..m {
                if !r.win[i] && !r.in_r[i] {
                    r.win[i] = true;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
            // p's attractor to what he holds.
            r.queue.clear();
            for i in 0..m {
                if r.win[i] {
                    r.queue.push(i as u32);
                    continue;
                }
                let (p_moves, _, sure, escape) = info[i];
                r.cnt[i] = inner(r, i);
                let joins = if p_moves {
                    sure
                } else {
                    !escape && r.cnt[i] == 0
                };
                if joins {
                    r.win[i] = true;
                    r.queue.push(i as u32);
                }
            }
            while let Some(u) = r.queue.pop() {
                for e in r.pred_start[u as usize]..r.pred_start[u as usize + 1] {
                    let w = r.pred[e as usize] as usize;
                    if r.win[w] {
                        continue;
                    }
                    let (p_moves, _, _, escape) = info[w];
                    if p_moves {
                        r.win[w] = true;
                        r.queue.push(w as u32);
                    } else if !escape {
                        r.cnt[w] -= 1;
                        if r.cnt[w] == 0 {
                            r.win[w] = true;
                            r.queue.push(w as u32);
                        }
                    }
                }
            }
        }
        std::mem::swap(&mut r.win, if for_a { &mut r.win_a } else { &mut r.win_b });
        r.info = info;
    }
}

/// What node `v` is known to be worth: `status`, else `base` where there is one.
fn known(status: &[u8], base: Option<&[u8]>, v: u32) -> u8 {
    match status[v as usize] {
        OPEN => base.map_or(OPEN, |b| b[v as usize]),
        s => s,
    }
}

/// Proves, with no history, the boards of the top count of `tables` whose bounds do
/// not meet, by the search of the repetition rule's game within `work` units each
/// (own-row rules; under the split-evenly rules a repetition scores 0 wherever it
/// closes and the games already settle what their exits allow). A proven board is
/// exact and its bounds meet; returns how many.
pub fn prove_count(
    rules: RuleSet,
    tables: &mut [Vec<u8>],
    bounds: &mut [Bounds],
    work: u64,
) -> u64 {
    use rayon::prelude::*;
    let n = tables.len() - 1;
    let open: Vec<u32> = (0..bounds[n].len() as u32)
        .filter(|&r| bounds[n][r as usize][0] < bounds[n][r as usize][1])
        .collect();
    if open.is_empty() || rules.repetition != Leftover::OwnRow {
        return 0;
    }
    let graph = CountGraph::new(rules, n, &tables[..n], &bounds[..n]);
    let (table, b) = (&tables[n], &bounds[n]);
    let bases = KnotSearch::bases(&graph, table);
    let proved: Vec<(u32, i8)> = open
        .par_chunks(64)
        .flat_map_iter(|chunk| {
            let mut s = KnotSearch::new(&graph, table, work).with_bases(&bases);
            let mut out = Vec::new();
            for &r in chunk {
                s.restart(work);
                let [lo, hi] = b[r as usize];
                if let Some(v) = s.value(r, &[], lo as i32, hi as i32) {
                    out.push((r, v as i8));
                }
            }
            out
        })
        .collect();
    for &(r, v) in &proved {
        let [lo, hi] = bounds[n][r as usize];
        assert!((lo..=hi).contains(&v), "a proof outside the bounds");
        tables[n][r as usize] = encode(v, true);
        bounds[n][r as usize] = [v, v];
    }
    proved.len() as u64
}

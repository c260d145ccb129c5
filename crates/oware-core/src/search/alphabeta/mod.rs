//! The alpha-beta baseline: negamax with principal-variation search, iterative
//! deepening, a transposition table and move ordering (hash move, captures, history).
//!
//! Scores are in centi-seeds (1 seed = 100) from the mover's view. A finished game scores
//! `WIN - ply` for a win (`ply` plies below the root: sooner wins score higher), 0 for a
//! draw and `-(WIN - ply)` for a loss; no seed count comes near `WIN`.
//!
//! # Evaluation
//! The store difference (mover's store minus the opponent's) in centi-seeds, plus
//! [`ROW_WEIGHT`] = 10 centi-seeds per seed of row difference (seeds in the mover's row
//! minus seeds in the opponent's). Seeds kept at home are future moves and future
//! captures; seeds handed over are the opponent's. The term stays because it wins
//! matches at equal depth against the store difference alone (every 2-ply opening, each
//! side once, 72 games; `row_term_match` in the tests): depth 8 +51 =7 −14, depth 10
//! +58 =5 −9, depth 12 +53 =5 −14. Heavier weights do worse (50: depth 10 +29 =7 −36).
//!
//! # Repetition and the transposition table
//! A position that recurs since the last capture ends the game (docs/rules.md), so a value can
//! depend on the path that led to a position, not only on the position. The search keeps
//! the exact keys of the positions since the last capture (those of the game before the
//! root included) and ends a line exactly as `Game` would. For the table:
//! - an entry is stored only if no repetition was met anywhere below the node, so a stored
//!   score never depends on the path it was searched from;
//! - an entry cuts the search off only if (positions since the last capture before this
//!   node) + (its draft) < 12, the shortest cycle of the game: then no position of its
//!   subtree can repeat one of the current path, and the stored score is this path's
//!   score too. Otherwise it only supplies the first move to try.
//!
//! Entries are used for cutoffs only at the draft they were searched to (not deeper
//! ones), so a fixed-depth search returns exactly the depth-N minimax value. Together
//! this makes the search exact: the tests compare it with plain minimax. The guard is
//! cheap: without it the bench suite at depth 18 takes 47.1 M nodes instead of 47.7 M.
//! The errors it prevents are rare but real: over 300 000 sparse endgames searched to
//! depths 10 to 16 (`guard_scan` in the tests), switching the cycle guard off changed
//! the score of 141 and switching the store guard off that of 3, some from a win to
//! a small edge. Tests pin two positions of each kind.
//!
//! # Endgame tables
//! With a tablebase ([`AlphaBeta::set_tablebase`]), a node below the root whose board
//! the table covers takes the table's bounds: the lowest and highest final margin no
//! repetition can break, scored `TB_WIN + final margin` for a win (a loss the negation
//! of the opponent's, a draw 0), so the search prefers the win with the larger margin
//! and a table win counts as a decided game. Where both bounds give one outcome (always
//! for an exact entry) the node ends with the lower one; where they straddle it, a bound
//! that falls outside the window ends the node, and otherwise the search goes on below:
//! an entry a repetition may decide is never taken as a result. At depth 0 the
//! evaluation is kept inside the bounds. The bounds are those of the board with no
//! history since the last capture; the search checks repetition against its line before
//! it probes, so a move that repeats a position is scored as the repetition it is.
//! Taking the table only after captures (where the history is empty) played weaker than
//! no table at all, while taking it everywhere plays far stronger
//! (`experiments/ab/tablebase-proven.md`): a proven draw scored 0 beside
//! store-difference evaluations of its non-capturing siblings steers the search away
//! from it.
//!
//! # Determinism
//! One thread; each search trusts only table entries it wrote itself (a generation
//! number, so nothing is cleared), and the history heuristic starts from zero. The same
//! game with the same depth or node limit gives the same move, score, PV and node count
//! every time, whatever was searched before: the baseline `alphabeta:depth=N`.
//!
//! Nothing is allocated per node: the table is allocated once, move lists live on the
//! stack, and the key stack is reserved before each search.

mod tt;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::game::{Game, Outcome, Position, RuleSet, Side, move_letter};
use crate::tablebase::Tablebase;
use tt::{Bound, NO_MOVE, Table};

/// Evaluation weight of the row term: centi-seeds per seed of (own row − opponent's row).
pub const ROW_WEIGHT: i32 = 10;
/// Score of a game won at the root, in centi-seeds; a win `p` plies ahead scores `WIN - p`.
pub const WIN: i32 = 10_000;
/// The deepest iteration a search runs (plies).
pub const MAX_DEPTH: u32 = 64;
/// Scores at least this large (in absolute value) are finished games.
pub const WIN_BOUND: i32 = WIN - MAX_PLY as i32;
/// Score of a position the endgame table wins, before the final margin (1..48 seeds) is
/// added: above every evaluation, at `WIN_BOUND` or more, so it counts as decided.
pub const TB_WIN: i32 = WIN_BOUND;
/// The score of a table position whose final margin (stores and future captures, the
/// mover's minus the opponent's) is `margin`: `TB_WIN + margin` for a win, the negation
/// of the opponent's for a loss, 0 for a draw. Increasing in `margin`.
fn table_score(margin: i32) -> i32 {
    match margin.signum() {
        1 => TB_WIN + margin,
        -1 => margin - TB_WIN,
        _ => 0,
    }
}

/// Plies a line may reach below the root.
const MAX_PLY: usize = MAX_DEPTH as usize + 1;
/// The shortest cycle of positions (plies) with no capture (docs/rules.md).
const MIN_CYCLE: usize = 12;
const INFINITY: i32 = 30_000;
/// Nodes this close to the frontier neither read nor write the table: the entry would
/// save a handful of leaf evaluations but costs a cache miss (measured: 70% of the time
/// went to table loads when every interior node probed).
const TABLE_MIN_DEPTH: i32 = 3;
/// Nodes between two looks at the clock and the stop flag.
const POLL_EVERY: u64 = 1024;

/// When a search stops. Several limits may be combined; the first reached wins. With no
/// limit at all the search runs to `MAX_DEPTH` (or until a stop flag is raised).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration, in plies (1..=64).
    pub depth: Option<u32>,
    /// Stop after about this many nodes (checked every 1 024 nodes); the result is
    /// that of the last finished iteration. Deterministic.
    pub nodes: Option<u64>,
    /// Wall-clock time for the whole search (with a clock: the most it may take).
    pub movetime: Option<Duration>,
    /// With a clock, the time the search aims at; an engine that manages its time may
    /// go past it, up to `movetime`. Alpha-beta takes it as its time.
    pub soft: Option<Duration>,
}

impl Limits {
    /// Search exactly `depth` plies (deterministic).
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Search about `nodes` nodes (deterministic).
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Search for `ms` milliseconds of wall-clock time.
    pub fn movetime_ms(ms: u64) -> Limits {
        Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The side to move at the root.
    pub side: Side,
    /// The best action (0..5, mover-relative); `None` when the game is already over.
    pub best_move: Option<u8>,
    /// Score in centi-seeds from the mover's view (`±(WIN - plies)` for a finished game).
    pub score_cp: i32,
    /// Depth of the last finished iteration, in plies (0 when the game is over).
    pub depth: u32,
    /// Nodes visited by the whole search (every iteration, aborted one included).
    pub nodes: u64,
    /// Nodes per second over the whole search.
    pub nps: u64,
    /// Wall-clock time of the whole search.
    pub elapsed: Duration,
    /// The principal variation as move letters (`CfD…`); the first is `best_move`.
    pub pv: String,
    /// The principal variation as actions (0..5, each relative to its mover).
    pub pv_moves: Vec<u8>,
}

impl SearchResult {
    /// The best move's letter (`C`, `f`), if any.
    pub fn best_letter(&self) -> Option<char> {
        self.best_move.map(|a| move_letter(self.side, a as usize))
    }

    /// Whether the score is a finished game (a forced win or loss).
    pub fn is_decided(&self) -> bool {
        self.score_cp.abs() >= WIN_BOUND
    }
}

/// A child of a node, on the stack.
#[derive(Clone, Copy)]
struct Child {
    pos: Position,
    action: u8,
    captured: u8,
    order: u64,
}

/// The limits of one search in force, resolved to absolute values.
struct Budget<'a> {
    deadline: Option<Instant>,
    nodes: u64,
    stop: Option<&'a AtomicBool>,
}

/// The alpha-beta searcher. Single-threaded; owns its transposition table. Create once
/// and call `search` for every move: nothing is allocated per node.
pub struct AlphaBeta {
    table: Table,
    rules: RuleSet,
    /// Keys of the positions since the last capture, root included, then the line.
    keys: Vec<u128>,
    /// History heuristic: cutoff credit per absolute pit (0..11).
    history: [u64; 12],
    /// Triangular principal-variation table.
    pv: [[u8; MAX_PLY + 1]; MAX_PLY + 1],
    pv_len: [usize; MAX_PLY + 1],
    nodes: u64,
    /// Node count at which to look at the limits next.
    next_poll: u64,
    /// Set when a limit was hit: every node returns at once.
    aborted: bool,
    /// Whether the current iteration may be aborted (the first one always finishes).
    abortable: bool,
    /// A repetition ended a line somewhere below the current node.
    repetition_seen: bool,
    /// Centi-seeds per seed of row difference in the evaluation (0: store difference only).
    row_weight: i32,
    /// Endgame tables probed below the root.
    tablebase: Option<Arc<Tablebase>>,
    /// Table probes that ended a line.
    pub tb_hits: u64,
    /// Tests switch the table's repetition guards off to show what they prevent.
    #[cfg(test)]
    guards: Guards,
}

/// The two guards of the table against path-dependent scores (module docs).
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
struct Guards {
    /// Store only scores with no repetition below them.
    store: bool,
    /// Cut off only when the subtree cannot reach back into the path.
    cycle: bool,
}

impl AlphaBeta {
    /// A searcher for `rules` with a transposition table of `tt_mb` mebibytes (at least
    /// 24 KiB are used whatever the figure).
    pub fn new(rules: RuleSet, tt_mb: usize) -> AlphaBeta {
        AlphaBeta {
            table: Table::new(tt_mb),
            rules,
            keys: Vec::with_capacity(512),
            history: [0; 12],
            pv: [[0; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            nodes: 0,
            next_poll: POLL_EVERY,
            aborted: false,
            abortable: false,
            repetition_seen: false,
            row_weight: ROW_WEIGHT,
            tablebase: None,
            tb_hits: 0,
            #[cfg(test)]
            guards: Guards {
                store: true,
                cycle: true,
            },
        }
    }

    /// Probes `tb` at every node below the root whose board it covers (`None`: no
    /// tables). Tables of other rules are never probed.
    pub fn set_tablebase(&mut self, tb: Option<Arc<Tablebase>>) {
        self.tablebase = tb;
    }

    /// The table probed, if any.
    pub fn tablebase(&self) -> Option<&Arc<Tablebase>> {
        self.tablebase.as_ref()
    }

    /// The lowest and highest score the table allows at `pos` (mover's view), if it covers
    /// the board: the scores of its bounds (equal where the entry is exact). For a
    /// position with no history since the last capture, the table's definition.
    #[inline]
    fn table_bounds(&mut self, pos: &Position) -> Option<[i32; 2]> {
        let tb = self.tablebase.as_ref()?;
        if tb.rules() != self.rules {
            return None;
        }
        let p = tb.probe(pos)?;
        self.tb_hits += 1;
        let me = pos.side.index();
        let stores = pos.stores[me] as i32 - pos.stores[1 - me] as i32;
        Some(p.bounds.map(|m| table_score(stores + m)))
    }

    /// The score that ends a node from the table's bounds: a bound outside the window
    /// `(alpha, beta)`, or the lower one where both give the same outcome; `None` where
    /// the search must go on (or the table does not cover `pos`).
    #[inline]
    fn table_cut(&mut self, pos: &Position, alpha: i32, beta: i32) -> Option<i32> {
        let [low, high] = self.table_bounds(pos)?;
        if high <= alpha {
            Some(high)
        } else if low >= beta || low.signum() == high.signum() {
            Some(low)
        } else {
            None
        }
    }

    /// The rule set searched.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// Reallocates the transposition table with `mb` mebibytes.
    pub fn resize_table(&mut self, mb: usize) {
        self.table = Table::new(mb);
    }

    /// Searches `game`'s position (its history since the last capture counts for
    /// repetition) under the game's rules.
    pub fn search(&mut self, game: &Game, limits: &Limits) -> SearchResult {
        self.search_with(game, limits, None, |_| {})
    }

    /// Searches a bare position with no history (as if the game started there).
    pub fn search_position(&mut self, pos: &Position, limits: &Limits) -> SearchResult {
        let game = Game::new(self.rules, *pos);
        self.search(&game, limits)
    }

    /// `search`, stopping early when `stop` becomes true, and calling `on_iteration`
    /// after every finished iteration with the result so far.
    pub fn search_with(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: Option<&AtomicBool>,
        mut on_iteration: impl FnMut(&SearchResult),
    ) -> SearchResult {
        let t0 = Instant::now();
        self.rules = game.rules();
        let root = *game.position();
        self.nodes = 0;
        self.next_poll = POLL_EVERY;
        self.aborted = false;
        self.repetition_seen = false;
        self.tb_hits = 0;
        self.history = [0; 12];
        self.table.new_search();
        self.load_history(game);

        let mut result = SearchResult {
            side: root.side,
            best_move: None,
            score_cp: 0,
            depth: 0,
            nodes: 0,
            nps: 0,
            elapsed: Duration::ZERO,
            pv: String::new(),
            pv_moves: Vec::new(),
        };
        if let Some(o) = game.outcome() {
            result.score_cp = terminal_score(&o, root.side, 0);
            return result;
        }
        let budget = Budget {
            deadline: limits.soft.or(limits.movetime).map(|d| t0 + d),
            nodes: limits.nodes.unwrap_or(u64::MAX),
            stop,
        };
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let since = 0; // `keys` starts at the last capture
        for depth in 1..=max_depth {
            self.abortable = depth > 1;
            self.poll(&budget);
            if self.aborted {
                break;
            }
            let score = self.node(&root, depth as i32, -INFINITY, INFINITY, 0, since, &budget);
            if self.aborted {
                break;
            }
            result.depth = depth;
            result.score_cp = score;
            result.best_move = (self.pv_len[0] > 0).then(|| self.pv[0][0]);
            result.pv = self.pv_text(&root);
            result.pv_moves = self.pv[0][..result.pv.len()].to_vec();
            let elapsed = t0.elapsed();
            result.nodes = self.nodes;
            result.elapsed = elapsed;
            result.nps = nps(self.nodes, elapsed);
            on_iteration(&result);
            // A decided game cannot change with depth: every shorter line was seen.
            if score.abs() >= WIN_BOUND {
                break;
            }
        }
        result.nodes = self.nodes;
        result.elapsed = t0.elapsed();
        result.nps = nps(self.nodes, result.elapsed);
        result
    }

    /// Loads the keys of the positions since the last capture of `game`.
    fn load_history(&mut self, game: &Game) {
        self.keys.clear();
        let rules = game.rules();
        let mut p = *game.start();
        self.keys.push(p.key());
        for &(_, a) in game.moves() {
            let info = p.apply(rules, a as usize);
            if info.captured > 0 {
                self.keys.clear();
            }
            self.keys.push(p.key());
        }
        // The line below the root never outgrows this: no allocation during the search.
        self.keys.reserve(MAX_PLY + 2);
    }

    /// The principal variation of the last iteration as letters.
    fn pv_text(&self, root: &Position) -> String {
        let mut p = *root;
        let mut s = String::new();
        for &a in &self.pv[0][..self.pv_len[0]] {
            if p.legal_moves(self.rules) & (1 << a) == 0 {
                break; // cannot happen; a defence against a corrupt line
            }
            s.push(move_letter(p.side, a as usize));
            p.apply(self.rules, a as usize);
        }
        s
    }

    /// Checks the clock, the node budget and the stop flag.
    #[cold]
    fn poll(&mut self, b: &Budget) {
        if !self.abortable {
            return;
        }
        if self.nodes >= b.nodes
            || b.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || b.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.aborted = true;
        }
    }

    /// Negamax with PVS. `ply`: distance from the root; `since`: index in `keys` of the
    /// first position after the last capture; the node's own key is `keys.last()`.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        since: usize,
        b: &Budget,
    ) -> i32 {
        self.pv_len[ply] = 0;
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.next_poll = self.nodes + POLL_EVERY;
            self.poll(b);
        }
        if self.aborted {
            return 0;
        }
        let rules = self.rules;
        if let Some(o) = self.ended_by_stores(pos) {
            return terminal_score(&o, pos.side, ply);
        }
        let mask = pos.legal_moves(rules);
        if mask == 0 {
            return match pos.status(rules) {
                Some(o) => terminal_score(&o, pos.side, ply),
                None => self.evaluate(pos), // unreachable: no legal move means the game is over
            };
        }
        if ply > 0
            && let Some(s) = self.table_cut(pos, alpha, beta)
        {
            return s;
        }
        if depth <= 0 || ply >= MAX_PLY {
            return self.evaluate(pos);
        }

        if depth == 1 {
            return self.frontier(pos, mask, alpha, beta, ply, since);
        }
        let index = self.keys.len() - 1;
        let key = self.keys[index];
        let use_table = depth >= TABLE_MIN_DEPTH;
        let mut hash_move = NO_MOVE;
        if use_table {
            let (m, cut) = self.probe(key, index, since, depth, ply, alpha, beta);
            if let Some(s) = cut {
                return s;
            }
            hash_move = m;
        }
        let (mut kids, n) = self.children(pos, mask, hash_move, depth);

        let outer_repetition = self.repetition_seen;
        self.repetition_seen = false;
        let alpha0 = alpha;
        let mut best = -INFINITY;
        let mut best_move = NO_MOVE;
        let base = pos.side.base();
        for i in 0..n {
            // Selection sort step: bring the most promising remaining child to `i`.
            let mut j = i;
            for k in i + 1..n {
                if kids[k].order > kids[j].order {
                    j = k;
                }
            }
            kids.swap(i, j);
            let c = kids[i];
            self.pv_len[ply + 1] = 0;
            let score = self.child_score(pos, &c, i == 0, depth, alpha, beta, ply, since, b);
            if self.aborted {
                self.repetition_seen |= outer_repetition;
                return 0;
            }
            if score > best {
                best = score;
                best_move = c.action;
                if score > alpha {
                    alpha = score;
                    self.extend_pv(ply, c.action);
                    if alpha >= beta {
                        self.history[base + c.action as usize] += (depth * depth) as u64;
                        break;
                    }
                }
            }
        }
        let below = self.repetition_seen;
        self.repetition_seen = outer_repetition || below;
        #[cfg(test)]
        let below = below && self.guards.store;
        if use_table && !below {
            let bound = if best <= alpha0 {
                Bound::Upper
            } else if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.table.store(
                key,
                depth as u32,
                score_to_table(best, ply),
                bound,
                best_move,
            );
        }
        best
    }

    /// The table's entry for the node at `keys[index]`: its best move (`NO_MOVE` if
    /// none), and its score when the entry's bound decides the node at this depth and no
    /// repetition within its horizon could make it stale (never at the root).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn probe(
        &mut self,
        key: u128,
        index: usize,
        since: usize,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> (u8, Option<i32>) {
        let Some(hit) = self.table.probe(key) else {
            return (NO_MOVE, None);
        };
        let no_cycle = (index - since) + (hit.depth as usize) < MIN_CYCLE;
        #[cfg(test)]
        let no_cycle = no_cycle || !self.guards.cycle;
        if ply > 0 && hit.depth == depth as u32 && no_cycle {
            let s = score_from_table(hit.score, ply);
            match hit.bound {
                Bound::Exact => return (hit.best, Some(s)),
                Bound::Lower if s >= beta => return (hit.best, Some(s)),
                Bound::Upper if s <= alpha => return (hit.best, Some(s)),
                _ => {}
            }
        }
        (hit.best, None)
    }

    /// The children of `pos` (legal moves `mask`), on the stack, with their ordering
    /// keys: the table's move first, then captures by size, then the history heuristic.
    /// Deep enough that the children will probe the table, their entries start loading.
    #[inline(always)]
    fn children(&self, pos: &Position, mask: u8, hash_move: u8, depth: i32) -> ([Child; 6], usize) {
        let mut kids = [Child {
            pos: *pos,
            action: 0,
            captured: 0,
            order: 0,
        }; 6];
        let mut n = 0;
        let mut m = mask;
        let base = pos.side.base();
        while m != 0 {
            let a = m.trailing_zeros() as usize;
            m &= m - 1;
            let mut c = *pos;
            let info = c.apply(self.rules, a);
            let order = if a as u8 == hash_move {
                u64::MAX
            } else if info.captured > 0 {
                (1 << 48) + info.captured as u64
            } else {
                self.history[base + a]
            };
            kids[n] = Child {
                pos: c,
                action: a as u8,
                captured: info.captured,
                order,
            };
            n += 1;
        }
        if depth > TABLE_MIN_DEPTH {
            for c in &kids[..n] {
                self.table.prefetch(c.pos.key());
            }
        }
        (kids, n)
    }

    /// Child `c`'s score from `pos`'s mover's view, by PVS: the `first` child with the
    /// full window, the others with a null window first and again with the full one if
    /// they beat `alpha`. A capture-free move back to a position of this stretch ends the
    /// game by repetition.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn child_score(
        &mut self,
        pos: &Position,
        c: &Child,
        first: bool,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        since: usize,
        b: &Budget,
    ) -> i32 {
        let k = c.pos.key();
        if c.captured == 0 && self.keys[since..].contains(&k) {
            self.repetition_seen = true;
            let o = c.pos.end_by_repetition(self.rules);
            return terminal_score(&o, pos.side, ply + 1);
        }
        let since = if c.captured > 0 {
            self.keys.len()
        } else {
            since
        };
        let same = c.pos.side == pos.side;
        self.keys.push(k);
        let s = if first {
            self.child(&c.pos, same, depth - 1, alpha, beta, ply, since, b)
        } else {
            let s = self.child(&c.pos, same, depth - 1, alpha, alpha + 1, ply, since, b);
            if s > alpha && s < beta {
                self.child(&c.pos, same, depth - 1, alpha, beta, ply, since, b)
            } else {
                s
            }
        };
        self.keys.pop();
        s
    }

    /// Makes `action` followed by the child's line the principal variation at `ply`.
    #[inline(always)]
    fn extend_pv(&mut self, ply: usize, action: u8) {
        self.pv[ply][0] = action;
        let len = self.pv_len[ply + 1];
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][1..=len].copy_from_slice(&tail[0][..len]);
        self.pv_len[ply] = len + 1;
    }

    /// A node one ply above the leaves: each child is valued as it is made, in pit
    /// order, and the loop stops at the first cutoff, so a cut node plays few moves.
    /// Leaf values are exact, so no null windows; nothing is read from or written to
    /// the table this close to the frontier.
    fn frontier(
        &mut self,
        pos: &Position,
        mask: u8,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        since: usize,
    ) -> i32 {
        let rules = self.rules;
        let mut best = -INFINITY;
        let mut m = mask;
        while m != 0 {
            let a = m.trailing_zeros() as usize;
            m &= m - 1;
            let mut c = *pos;
            let info = c.apply(rules, a);
            let score = if info.captured == 0 && self.keys[since..].contains(&c.key()) {
                self.repetition_seen = true;
                let o = c.end_by_repetition(rules);
                terminal_score(&o, pos.side, ply + 1)
            } else {
                let v = self.leaf(&c, ply + 1);
                if c.side == pos.side { v } else { -v }
            };
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.pv[ply][0] = a as u8;
                    self.pv_len[ply] = 1;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// A node at depth 0: a finished game's score, the table's outcome where its bounds
    /// decide it, or the evaluation (kept inside the bounds). Mover's view.
    #[inline]
    fn leaf(&mut self, pos: &Position, ply: usize) -> i32 {
        self.nodes += 1;
        let rules = self.rules;
        if let Some(o) = self.ended_by_stores(pos) {
            return terminal_score(&o, pos.side, ply);
        }
        if pos.legal_moves(rules) == 0
            && let Some(o) = pos.status(rules)
        {
            return terminal_score(&o, pos.side, ply);
        }
        let bounds = self.table_bounds(pos);
        match bounds {
            Some([low, high]) if low.signum() == high.signum() => low,
            Some([low, high]) => self.evaluate(pos).clamp(low, high),
            None => self.evaluate(pos),
        }
    }

    /// The outcome if a store threshold (or 24-24) has ended the game.
    #[inline]
    fn ended_by_stores(&self, pos: &Position) -> Option<Outcome> {
        let t = self.rules.win_threshold?;
        let [s, n] = pos.stores;
        if s >= t || n >= t || (s == n && s as u32 * 2 == crate::game::TOTAL_SEEDS as u32) {
            pos.status(self.rules)
        } else {
            None
        }
    }

    /// The evaluation with this searcher's row weight.
    #[inline]
    fn evaluate(&self, pos: &Position) -> i32 {
        evaluate_with(pos, self.row_weight)
    }

    /// Sets the row term's weight (centi-seeds per seed of own row − opponent's row);
    /// the default is [`ROW_WEIGHT`], 0 leaves the store difference alone. For
    /// experiments: the baseline `alphabeta:depth=N` uses the default.
    pub fn set_row_weight(&mut self, weight: i32) {
        self.row_weight = weight;
    }

    /// Searches a child, negating unless the mover moves again (`ouril`).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn child(
        &mut self,
        pos: &Position,
        same_side: bool,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        since: usize,
        b: &Budget,
    ) -> i32 {
        if same_side {
            self.node(pos, depth, alpha, beta, ply + 1, since, b)
        } else {
            -self.node(pos, depth, -beta, -alpha, ply + 1, since, b)
        }
    }
}

/// The static evaluation, mover's view, in centi-seeds: 100 per seed of store
/// difference plus [`ROW_WEIGHT`] per seed of row difference.
#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, ROW_WEIGHT)
}

/// The static evaluation with a row weight of `row_weight` centi-seeds per seed.
#[inline]
pub fn evaluate_with(pos: &Position, row_weight: i32) -> i32 {
    let me = pos.side;
    let stores = pos.stores[me.index()] as i32 - pos.stores[me.opponent().index()] as i32;
    let rows = pos.row_seeds(me) as i32 - pos.row_seeds(me.opponent()) as i32;
    100 * stores + row_weight * rows
}

/// The score of a finished game for `side`, `ply` plies below the root.
#[inline]
pub fn terminal_score(outcome: &Outcome, side: Side, ply: usize) -> i32 {
    match outcome.score_for(side) {
        1 => WIN - ply as i32,
        -1 => -(WIN - ply as i32),
        _ => 0,
    }
}

/// Win scores are stored relative to the node, so they stay right at any ply.
fn score_to_table(s: i32, ply: usize) -> i32 {
    if s >= WIN_BOUND {
        s + ply as i32
    } else if s <= -WIN_BOUND {
        s - ply as i32
    } else {
        s
    }
}

fn score_from_table(s: i32, ply: usize) -> i32 {
    if s >= WIN_BOUND {
        s - ply as i32
    } else if s <= -WIN_BOUND {
        s + ply as i32
    } else {
        s
    }
}

fn nps(nodes: u64, t: Duration) -> u64 {
    (nodes as f64 / t.as_secs_f64().max(1e-9)) as u64
}

#[cfg(test)]
mod tests;

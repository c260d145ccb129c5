//! An exact solver that carries the history: the reference the tables are checked
//! against.
//!
//! Plain negamax over the margin of future captures (the quantity the tables store),
//! with alpha-beta pruning and nothing else that could be wrong: no transposition table,
//! no depth limit, no evaluation. A position repeated since the last capture ends the
//! line exactly as the rules say (each his own row, or the seeds split evenly); a capture
//! clears the history. Stores are left out as in the tables (the outcome is the sign of
//! store difference + margin). Move ordering may come from anywhere (a table, for
//! speed): it changes the work, never the result.
//!
//! One cache is safe with history: a position reached by a capture has no history, so
//! its value depends on the board alone. Bounds found at such positions are kept (keyed
//! by board and side) and reused wherever the same board follows a capture again.

use super::keys::{KeyMap, KeySet, key};
use crate::game::{Leftover, Position, RuleSet, Side};

/// A move-ordering score: higher first, one per action.
pub type MoveOrder<'a> = &'a dyn Fn(&Position) -> [i32; 6];

/// A history-aware margin solver with a node budget.
pub struct Solver<'a> {
    rules: RuleSet,
    /// Keys (pits and side) of the positions since the last capture on the current line.
    seen: KeySet,
    nodes: u64,
    limit: u64,
    max_line: usize,
    order: Option<MoveOrder<'a>>,
    /// Bounds (low, high) of the value of positions with no history.
    fresh: KeyMap<(i32, i32)>,
}

/// Entries of the fresh-position cache before it is cleared.
const FRESH_CAP: usize = 1 << 22;

/// Why a solve gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsolved {
    /// The node budget ran out.
    Nodes,
    /// A line without capture grew past the depth limit.
    Depth,
}

impl<'a> Solver<'a> {
    /// A solver for `rules` giving up after `node_limit` nodes per `solve`.
    pub fn new(rules: RuleSet, node_limit: u64) -> Solver<'a> {
        Solver {
            rules,
            seen: KeySet::with_capacity_and_hasher(1024, Default::default()),
            nodes: 0,
            limit: node_limit,
            max_line: 20_000,
            order: None,
            fresh: KeyMap::default(),
        }
    }

    /// Tries moves in the order of `score` (higher first): a heuristic, or a table.
    pub fn with_order(mut self, score: MoveOrder<'a>) -> Solver<'a> {
        self.order = Some(score);
        self
    }

    /// Nodes visited by the last `solve`.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The margin of future captures the mover of `pos` can force with `history` (keys
    /// of the positions since the last capture, as `Position::key`, `pos` excluded) behind
    /// it. Stores are ignored.
    pub fn solve(&mut self, pos: &Position, history: &[Position]) -> Result<i32, Unsolved> {
        self.nodes = 0;
        self.seen.clear();
        for p in history {
            self.seen.insert(key(p));
        }
        let mut p = *pos;
        p.stores = [0, 0];
        let n = p.board_seeds() as i32;
        let r = self.node(&p, -n - 1, n + 1, 0);
        if self.nodes > self.limit {
            return Err(Unsolved::Nodes);
        }
        r
    }

    /// `solve` starting from a guess of the value (a table's): two null-window searches
    /// prove the guess right, and a wrong guess costs a search on the side it fails.
    /// Same result as `solve(pos, history)`, usually far fewer nodes.
    pub fn solve_near(
        &mut self,
        pos: &Position,
        history: &[Position],
        guess: i32,
    ) -> Result<i32, Unsolved> {
        self.nodes = 0;
        let mut p = *pos;
        p.stores = [0, 0];
        let n = p.board_seeds() as i32;
        let mut total = 0;
        let mut run = |s: &mut Self, lo: i32, hi: i32| -> Result<i32, Unsolved> {
            s.seen.clear();
            s.seen.extend(history.iter().map(key));
            s.nodes = total;
            let r = s.node(&p, lo, hi, 0);
            total = s.nodes;
            r
        };
        let r = if run(self, guess - 1, guess)? < guess {
            run(self, -n - 1, guess)?
        } else {
            let up = run(self, guess, guess + 1)?;
            if up <= guess {
                guess
            } else {
                run(self, guess, n + 1)?
            }
        };
        self.nodes = total;
        Ok(r)
    }

    /// Each legal move's margin for the mover of `pos` (stores ignored) with `history`
    /// behind it (as in [`Solver::solve`]): the move's gain plus what the position after
    /// it is worth to him, searched with `pos` added to the history, or with none after a
    /// capture. `None` for an illegal move.
    pub fn move_values(
        &mut self,
        pos: &Position,
        history: &[Position],
    ) -> [Option<Result<i32, Unsolved>>; 6] {
        let rules = self.rules;
        let mut p = *pos;
        p.stores = [0, 0];
        let legal = p.legal_moves(rules);
        let mut after = history.to_vec();
        after.push(p);
        let me = p.side;
        std::array::from_fn(|a| {
            if legal & (1 << a) == 0 {
                return None;
            }
            let mut q = p;
            q.apply(rules, a);
            let gain = q.stores[me.index()] as i32 - q.stores[1 - me.index()] as i32;
            let capture = gain != 0 || q.board_seeds() < p.board_seeds();
            let sign = if q.side == me { 1 } else { -1 };
            q.stores = [0, 0];
            if !capture && after.iter().any(|h| key(h) == key(&q)) {
                return Some(Ok(self.repetition_margin(&q, me)));
            }
            let h: &[Position] = if capture { &[] } else { &after };
            Some(self.solve(&q, h).map(|x| gain + sign * x))
        })
    }

    fn repetition_margin(&self, q: &Position, me: Side) -> i32 {
        match self.rules.repetition {
            Leftover::SplitEvenly => 0,
            Leftover::OwnRow => q.row_seeds(me) as i32 - q.row_seeds(me.opponent()) as i32,
        }
    }

    fn node(
        &mut self,
        p: &Position,
        mut alpha: i32,
        beta: i32,
        line: usize,
    ) -> Result<i32, Unsolved> {
        self.nodes += 1;
        if self.nodes > self.limit {
            return Err(Unsolved::Nodes);
        }
        if line > self.max_line {
            return Err(Unsolved::Depth);
        }
        let rules = self.rules;
        let mask = p.legal_moves(rules);
        let me = p.side;
        if mask == 0 {
            let o = p.status(rules).expect("no legal move: the game is over");
            return Ok((o.halves[me.index()] as i32 - o.halves[1 - me.index()] as i32) / 2);
        }
        let k = key(p);
        let fresh = self.seen.is_empty();
        let mut beta = beta;
        if fresh && let Some(&(lo, hi)) = self.fresh.get(&k) {
            if lo == hi || lo >= beta {
                return Ok(lo);
            }
            if hi <= alpha {
                return Ok(hi);
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        let (alpha0, beta0) = (alpha, beta);
        self.seen.insert(k);
        let mut order = [0usize, 1, 2, 3, 4, 5];
        if let Some(f) = self.order {
            let s = f(p);
            order.sort_by_key(|&a| -s[a]);
        }
        let mut best = i32::MIN;
        let mut result = Ok(0);
        for a in order {
            if mask & (1 << a) == 0 {
                continue;
            }
            let mut q = *p;
            q.apply(rules, a);
            let gain = q.stores[me.index()] as i32 - q.stores[1 - me.index()] as i32;
            let sign = if q.side == me { 1 } else { -1 };
            let v = if gain != 0 || q.board_seeds() < p.board_seeds() {
                // A capture: the history starts again.
                let saved = std::mem::take(&mut self.seen);
                q.stores = [0, 0];
                let (lo, hi) = if sign > 0 {
                    (alpha - gain, beta - gain)
                } else {
                    (gain - beta, gain - alpha)
                };
                let r = self.node(&q, lo, hi, 0);
                self.seen = saved;
                match r {
                    Ok(x) => gain + sign * x,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            } else if self.seen.contains(&key(&q)) {
                self.repetition_margin(&q, me)
            } else {
                let (lo, hi) = if sign > 0 {
                    (alpha, beta)
                } else {
                    (-beta, -alpha)
                };
                match self.node(&q, lo, hi, line + 1) {
                    Ok(x) => sign * x,
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            };
            if v > best {
                best = v;
            }
            if best > alpha {
                alpha = best;
            }
            if alpha >= beta {
                break;
            }
        }
        self.seen.remove(&k);
        if fresh && result.is_ok() {
            if self.fresh.len() >= FRESH_CAP {
                self.fresh.clear();
            }
            let n = p.board_seeds() as i32;
            let e = self.fresh.entry(k).or_insert((-n, n));
            if best <= alpha0 {
                e.1 = e.1.min(best);
            } else if best >= beta0 {
                e.0 = e.0.max(best);
            } else {
                *e = (best, best);
            }
        }
        result.map(|_| best)
    }
}

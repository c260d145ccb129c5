//! The value of a position with best play, proven: from the table where it holds for the
//! position, else by the search that carries the history ([`Solver`]), within a budget.
//!
//! A table entry is the value of its board met with no history since the last capture,
//! and it is proven only where it is *exact*. A position with history, or whose entry a
//! repetition may decide, is searched from its own history instead
//! ([`HistorySearch`]: the table's bounds, its value as the first guess and what earlier
//! searches proved about boards with no history). What the search cannot finish within
//! `node_limit` stays unproven, known only within the table's bounds (when there is no
//! history).

use std::cell::RefCell;
use std::collections::HashMap;

use super::build::mover_pits;
use super::games::CountGames;
use super::history_search::HistorySearch;
use super::index::{boards_with, rank};
use super::knot::KnotSearch;
use super::solve::Unsolved;
use super::{Tablebase, TbOutcome};
use crate::game::{Game, Leftover, Position, move_letter};

/// The positions of `game` since its last capture, oldest first, the current one left
/// out: the history a value depends on.
pub fn since_capture(game: &Game) -> Vec<Position> {
    let mut g = Game::new(game.rules(), *game.start());
    let mut seen = vec![*g.position()];
    for &(_, a) in game.moves() {
        if g.play(a as usize).is_ok_and(|info| info.captured > 0) {
            seen.clear();
        }
        seen.push(*g.position());
    }
    seen.pop();
    seen
}

/// What the tables (and the search behind them) say of a game's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The margin the mover can force, given the game's history.
    pub known: Known,
    /// Each legal move's, from the mover's side.
    pub moves: [Option<Known>; 6],
    /// The outcome with best play for the mover, where proven.
    pub outcome: Option<TbOutcome>,
    /// The legal moves whose proven outcome is `outcome` (none when it is unproven).
    pub keep: u8,
    /// Positions since the last capture.
    pub history: usize,
}

impl Verdict {
    /// One line for a player: "won with best play; moves that keep it: AB", or "not
    /// proven (…)".
    pub fn summary(&self, side: crate::game::Side) -> String {
        match (self.outcome, self.known) {
            (Some(o), _) => {
                let keep: String = (0..6)
                    .filter(|a| self.keep & (1 << a) != 0)
                    .map(|a| move_letter(side, a))
                    .collect();
                if keep.is_empty() {
                    format!("{} with best play", o.past())
                } else {
                    format!("{} with best play; moves that keep it: {keep}", o.past())
                }
            }
            (None, Known::Unproven { bounds, .. }) => format!(
                "not proven{}: a repetition may decide, so the value depends on the moves \
                 since the last capture",
                bounds.map_or(String::new(), |[lo, hi]| format!(
                    " (future captures between {lo:+} and {hi:+})"
                ))
            ),
            (None, Known::Proven(..)) => unreachable!("a proven value has an outcome"),
        }
    }
}

/// How a value was proven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// An exact table entry, the position having no history since the last capture.
    Table,
    /// The search that carries the history, with the nodes it took.
    Search(u64),
}

/// What is known of the margin of future captures the mover can force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// The margin, proven.
    Proven(i32, Source),
    /// Not proven: the search gave up after the nodes given; `bounds` are the table's
    /// where they apply (a position with no history since the last capture).
    Unproven {
        /// The lowest and highest margin no repetition can break.
        bounds: Option<[i32; 2]>,
        /// Nodes searched before giving up.
        nodes: u64,
        /// Why it gave up.
        why: Unsolved,
    },
}

impl Known {
    /// The proven margin, if any.
    pub fn value(&self) -> Option<i32> {
        match *self {
            Known::Proven(v, _) => Some(v),
            Known::Unproven { .. } => None,
        }
    }

    /// The outcome with best play given `stores` (the mover's store minus the
    /// opponent's): proven, or decided by the bounds.
    pub fn outcome(&self, stores: i32) -> Option<TbOutcome> {
        match *self {
            Known::Proven(v, _) => Some(TbOutcome::of(stores + v)),
            Known::Unproven {
                bounds: Some([lo, hi]),
                ..
            } => {
                let (a, b) = (TbOutcome::of(stores + lo), TbOutcome::of(stores + hi));
                (a == b).then_some(a)
            }
            Known::Unproven { .. } => None,
        }
    }

    /// Seen from the other side after a move that gained `gain` (`same`: the mover moves
    /// again, as in `ouril`).
    fn after_move(self, gain: i32, same: bool) -> Known {
        let turn = |v: i32| if same { gain + v } else { gain - v };
        match self {
            Known::Proven(v, s) => Known::Proven(turn(v), s),
            Known::Unproven { bounds, nodes, why } => Known::Unproven {
                bounds: bounds.map(|[lo, hi]| {
                    if same {
                        [turn(lo), turn(hi)]
                    } else {
                        [turn(hi), turn(lo)]
                    }
                }),
                nodes,
                why,
            },
        }
    }
}

/// The most seeds on a board whose value the prover always also bounds by the
/// repetition rule's game over the whole count ([`CountGraph`](super::build::CountGraph)) where the search gives
/// up (75 582 boards at 8 seeds). A larger count's game is played where its boards are
/// no more than the prover's node limit ([`Prover::plays_count`]).
pub const CYCLE_PROOF_SEEDS: usize = 8;

/// The share of its node limit (one part in this many) the prover's history search
/// first runs within, before the repetition rule's games are asked.
const QUICK_SHARE: u64 = 16;

/// Work units of the repetition rule's game search ([`KnotSearch`]) per node of the
/// prover's limit (a unit, one open position in one node's games, costs about a tenth
/// of a history-search node).
const KNOT_WORK: u64 = 4;

/// Proves values with `tb`, each search within `node_limit` nodes. Its searches share
/// what they prove about boards with no history.
pub struct Prover<'a> {
    tb: &'a Tablebase,
    search: RefCell<HistorySearch<'a>>,
    /// The repetition rule's games of each count played so far, their winning regions
    /// kept: a position's moves share their history's games.
    games: RefCell<HashMap<usize, CountGames<'a>>>,
    node_limit: u64,
}

impl<'a> Prover<'a> {
    /// A prover over `tb`.
    pub fn new(tb: &'a Tablebase, node_limit: u64) -> Prover<'a> {
        Prover {
            tb,
            search: RefCell::new(HistorySearch::new(tb, node_limit)),
            games: RefCell::default(),
            node_limit,
        }
    }

    /// Whether the prover plays the repetition rule's game over count `n`: up to
    /// [`CYCLE_PROOF_SEEDS`] always, above where the count's boards are at most the node
    /// limit (each of the game's thresholds visits every board a few times: at 12
    /// seeds, 1.35 M boards, about 0.25 s a threshold; the CLI's 2 M nodes play up to
    /// 12 seeds, the web app's 100 000 up to 8).
    pub fn plays_count(&self, n: usize) -> bool {
        n > 0
            && n <= self.tb.max_seeds()
            && (n <= CYCLE_PROOF_SEEDS || boards_with(n) <= self.node_limit)
    }

    /// The value of `pos` (stores ignored) with `history` behind it where the bounds
    /// of the repetition rule's game over its count meet ([`CountGames::value`]: the
    /// history's positions end the game where play reaches them), for the counts
    /// [`Prover::plays_count`] allows, or where they do not meet, the game itself
    /// searched ([`KnotSearch`]); `None` elsewhere. With no history on a count the
    /// build narrowed by the same game, the game's bounds are the table's and only the
    /// search is run.
    fn by_cycles(&self, pos: &Position, history: &[Position]) -> Option<i32> {
        let n = pos.board_seeds() as usize;
        if !self.plays_count(n) {
            return None;
        }
        let graph = self.tb.count_graph(n);
        let mut games = self.games.borrow_mut();
        let games = games.entry(n).or_insert_with(|| graph.games());
        // A position with other seeds can never recur (the count only falls).
        let hist: Vec<(u32, bool)> = history
            .iter()
            .filter(|h| h.board_seeds() as usize == n)
            .map(|h| (rank(&mover_pits(h)) as u32, h.side == pos.side))
            .collect();
        let no_history = self.tb.probe(pos)?.bounds;
        let root = rank(&mover_pits(pos)) as u32;
        // With no history on a count the build narrowed by the same games, they prove
        // nothing more: its bounds are theirs.
        let [low, high] = if hist.is_empty() && self.tb.narrowed_at(n) {
            no_history
        } else {
            games.proven(root, &hist, no_history)
        };
        if low == high || self.tb.rules().repetition != Leftover::OwnRow {
            return (low == high).then_some(low);
        }
        // Where the games' bounds do not meet, the game itself, searched with the
        // games asked again at every node ([`KnotSearch`]; under the split-evenly rules
        // a repetition scores 0 wherever it closes and the games settle what their
        // exits allow), on the counts whose boards fit a quarter of the node limit
        // (above, its first node's games alone take longer than the history search).
        if boards_with(n) > self.node_limit / 4 {
            return None;
        }
        KnotSearch::new(graph, &self.tb.tables[n], KNOT_WORK * self.node_limit)
            .value(root, &hist, low, high)
    }

    /// What is known of `pos` (stores ignored) with `history`: the positions since the
    /// last capture, oldest first, `pos` excluded. `None` beyond the table.
    ///
    /// The history search runs first within a [`QUICK_SHARE`] of the limit, then the
    /// repetition rule's games, and only then the search within the whole limit: where
    /// the games settle a value at once, a search that would spend its whole limit and
    /// give up is cut short.
    pub fn position(&self, pos: &Position, history: &[Position]) -> Option<Known> {
        let p = self.tb.probe(pos)?;
        if history.is_empty() && p.exact {
            return Some(Known::Proven(p.value, Source::Table));
        }
        let mut nodes = 0;
        let mut search = |limit: u64| {
            let mut solver = self.search.borrow_mut();
            solver.set_limit(limit);
            let r = solver.solve(pos, history);
            nodes += solver.nodes();
            r
        };
        let quick = search(self.node_limit / QUICK_SHARE);
        let result = match quick {
            Err(Unsolved::Nodes) => match self.by_cycles(pos, history) {
                Some(v) => Ok(v),
                None => search(self.node_limit).map_err(|why| (why, true)),
            },
            Err(why) => Err((why, false)),
            Ok(v) => Ok(v),
        };
        Some(match result {
            Ok(v) => Known::Proven(v, Source::Search(nodes)),
            Err((why, tried)) => match (!tried).then(|| self.by_cycles(pos, history)).flatten() {
                Some(v) => Known::Proven(v, Source::Search(nodes)),
                None => Known::Unproven {
                    bounds: history.is_empty().then_some(p.bounds),
                    nodes,
                    why,
                },
            },
        })
    }

    /// What is known of `pos` (stores ignored) with `history` and of each of its legal
    /// moves: [`Prover::position`] and [`Prover::moves`], the position proven by its
    /// moves where its own search gave up. It is worth its best move, each move valued
    /// with the history it adds (a move's search has the position behind it, which cuts
    /// the cycles back to it, and often finishes where the position's does not): where
    /// every legal move is proven, the best is its value, and where the best proven move
    /// reaches the top of its bounds, that is.
    pub fn position_and_moves(
        &self,
        pos: &Position,
        history: &[Position],
    ) -> Option<(Known, [Option<Known>; 6])> {
        let known = self.position(pos, history)?;
        let moves = self.moves(pos, history)?;
        Some((by_moves(known, &moves), moves))
    }

    /// What is known of `game`'s position and its moves, given its history; `None`
    /// beyond the table or when the game is over.
    pub fn game(&self, game: &Game) -> Option<Verdict> {
        if game.is_over() {
            return None;
        }
        let pos = game.position();
        let history = since_capture(game);
        let (known, moves) = self.position_and_moves(pos, &history)?;
        let me = pos.side.index();
        let stores = pos.stores[me] as i32 - pos.stores[1 - me] as i32;
        let outcome = known.outcome(stores);
        let keep = (0..6)
            .filter(|&a| {
                outcome.is_some() && moves[a].is_some_and(|m| m.outcome(stores) == outcome)
            })
            .fold(0u8, |m, a| m | (1 << a));
        Some(Verdict {
            known,
            moves,
            outcome,
            keep,
            history: history.len(),
        })
    }

    /// What is known of each legal move of `pos` (with `history` as in
    /// [`Prover::position`]), from the mover's side: the move's gain plus what the
    /// position after it is worth to him. A capture starts the history again; any other
    /// move adds `pos` to it. `None` beyond the table; illegal moves `None`.
    pub fn moves(&self, pos: &Position, history: &[Position]) -> Option<[Option<Known>; 6]> {
        self.tb.probe(pos)?;
        let rules = self.tb.rules();
        let mut p = *pos;
        p.stores = [0, 0];
        let legal = p.legal_moves(rules);
        let mut after = history.to_vec();
        after.push(p);
        Some(std::array::from_fn(|a| {
            if legal & (1 << a) == 0 {
                return None;
            }
            let mut q = p;
            q.apply(rules, a);
            let me = p.side.index();
            let gain = q.stores[me] as i32 - q.stores[1 - me] as i32;
            let capture = gain != 0 || q.board_seeds() < p.board_seeds();
            q.stores = [0, 0];
            let same = q.side == p.side;
            let known = if q.legal_moves(rules) == 0 {
                let o = q.status(rules).expect("no legal move: the game is over");
                let m = (o.halves[q.side.index()] as i32 - o.halves[1 - q.side.index()] as i32) / 2;
                Known::Proven(m, Source::Table)
            } else {
                let history: &[Position] = if capture { &[] } else { &after };
                self.position(&q, history)?
            };
            Some(known.after_move(gain, same))
        }))
    }
}

/// `known`, the value of a position, proven by its moves' (`moves`, from its mover's
/// side) where it is not: the best of them where all are proven, or where the best
/// proven one reaches the top of the position's bounds.
fn by_moves(known: Known, moves: &[Option<Known>; 6]) -> Known {
    let Known::Unproven { bounds, nodes, .. } = known else {
        return known;
    };
    let best = moves.iter().flatten().filter_map(Known::value).max();
    let all = moves.iter().flatten().all(|m| m.value().is_some());
    let v = match (best, bounds) {
        (Some(b), _) if all => Some(b),
        (Some(b), Some([_, hi])) if b >= hi => Some(b),
        _ => None,
    };
    if let (Some(v), Some([lo, hi])) = (v, bounds) {
        debug_assert!((lo..=hi).contains(&v), "the best move outside the bounds");
    }
    v.map_or(known, |v| Known::Proven(v, Source::Search(nodes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, RuleSet};
    use crate::tablebase::build_in_memory;

    #[test]
    fn the_forced_repetition_is_proven_lost() {
        // North's only move starts fAbBcCdDeEfFa, which repeats with one seed in each row:
        // each takes his own, a margin of 0 for North, who loses 23–25. The table's entry
        // (the repetition score at this board) is not proven.
        let tb = build_in_memory(RuleSet::abapa(), 3);
        let pos: Position = "0-0-0-0-0-0-0-1-0-0-0-1-24-22-N".parse().unwrap();
        assert!(!tb.probe(&pos).unwrap().exact);
        let prover = Prover::new(&tb, 1_000_000);
        let k = prover.position(&pos, &[]).unwrap();
        assert!(matches!(k, Known::Proven(0, Source::Search(_))), "{k:?}");
        assert_eq!(k.outcome(22 - 24), Some(TbOutcome::Loss));
        let moves = prover.moves(&pos, &[]).unwrap();
        assert_eq!(moves[5].and_then(|m| m.value()), Some(0));
        assert!(moves[..5].iter().all(Option::is_none));
        // The game itself agrees.
        let mut g = Game::new(RuleSet::abapa(), pos);
        g.play_text("fAbBcCdDeEfFa").unwrap();
        assert_eq!(g.outcome().unwrap().halves, [50, 46]);
    }

    #[test]
    fn the_counts_whose_game_is_played_follow_the_node_limit() {
        // Up to 8 seeds always; 9 seeds (167 960 boards) from 167 960 nodes; never
        // beyond the tables.
        let tb = build_in_memory(RuleSet::abapa(), 9);
        let plays = |nodes: u64| -> Vec<usize> {
            let prover = Prover::new(&tb, nodes);
            (0..=10).filter(|&n| prover.plays_count(n)).collect()
        };
        assert_eq!(plays(1_000), (1..=8).collect::<Vec<_>>());
        assert_eq!(plays(167_959), (1..=8).collect::<Vec<_>>());
        assert_eq!(plays(167_960), (1..=9).collect::<Vec<_>>());
        assert_eq!(plays(2_000_000), (1..=9).collect::<Vec<_>>());
    }

    #[test]
    fn a_position_is_worth_its_best_move_given_the_same_history() {
        // Every board with at most 4 seeds under the own-row rules: the position's
        // proven value is the best of its moves' (each move's after the history grows).
        for preset in [
            crate::game::Preset::Abapa,
            crate::game::Preset::GrandSlamCaptures,
            crate::game::Preset::Ouril,
        ] {
            let rules = RuleSet::from_preset(preset);
            let tb = build_in_memory(rules, 4);
            let prover = Prover::new(&tb, 30_000);
            let (mut checked, mut searched) = (0, 0);
            for n in 1..=4 {
                for r in 0..crate::tablebase::index::boards_with(n) {
                    let pos = Position {
                        pits: crate::tablebase::index::unrank(n, r),
                        stores: [0, 0],
                        side: crate::game::Side::South,
                    };
                    let Some(Known::Proven(v, src)) = prover.position(&pos, &[]) else {
                        continue;
                    };
                    let moves = prover.moves(&pos, &[]).unwrap();
                    let vals: Option<Vec<i32>> =
                        moves.iter().flatten().map(|m| m.value()).collect();
                    let Some(vals) = vals else { continue };
                    if let Some(best) = vals.iter().max() {
                        assert_eq!(*best, v, "{} {pos}", preset.name());
                        checked += 1;
                        searched += matches!(src, Source::Search(_)) as usize;
                    }
                }
            }
            assert!(checked > 500 && searched > 10, "{checked} {searched}");
        }
    }

    #[test]
    fn a_position_proven_by_its_moves_agrees_with_brute_force() {
        // Every board of 3 to 5 seeds under each rule set, searches of 100 to 3 000
        // nodes: where the position's search gives up but its moves prove it, the value
        // agrees with the brute-force search wherever that finishes.
        use crate::game::{Preset, Side};
        use crate::tablebase::index::{boards_with, unrank};
        use crate::tablebase::solve::Solver;
        let (mut by_moves, mut compared) = (0u64, 0u64);
        for preset in Preset::ALL {
            let rules = RuleSet::from_preset(preset);
            let tb = build_in_memory(rules, 5);
            let order = |p: &Position| -> [i32; 6] {
                let mv = tb.move_values(p).unwrap();
                std::array::from_fn(|a| mv[a].unwrap_or(i32::MIN / 2))
            };
            let mut solver = Solver::new(rules, 100_000).with_order(&order);
            for nodes in [100, 300, 1_000, 3_000] {
                let prover = Prover::new(&tb, nodes);
                for n in 3..=5 {
                    for r in 0..boards_with(n) {
                        let pos = Position {
                            pits: unrank(n, r),
                            stores: [0, 0],
                            side: Side::South,
                        };
                        if prover.position(&pos, &[]).unwrap().value().is_some() {
                            continue;
                        }
                        let (k, _) = prover.position_and_moves(&pos, &[]).unwrap();
                        let Some(v) = k.value() else { continue };
                        by_moves += 1;
                        if let Ok(s) = solver.solve_near(&pos, &[], v) {
                            compared += 1;
                            assert_eq!(s, v, "{} {pos} ({nodes} nodes)", preset.name());
                        }
                    }
                }
            }
        }
        println!("{by_moves} positions proven by their moves, {compared} compared");
        assert!(
            compared > 0,
            "{by_moves} proven by their moves, none compared"
        );
    }
}

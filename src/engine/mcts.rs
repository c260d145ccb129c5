//! [`MctsSearcher`]: the batched MCTS with an evaluator (a network) as an engine player.
//!
//! One game, one tree (a one-slot [`BatchSearch`] with PUCT and no root noise: the engine
//! plays its best, it does not explore). The search steps one simulation at a time and
//! looks at the clock and the stop flag between steps, so `go movetime`, clock times,
//! `go infinite` and `stop` all work.
//!
//! How `go` limits map to simulations:
//!
//! | `go` word | meaning here |
//! |---|---|
//! | `nodes N` | N simulations |
//! | `depth D` | [`SIMS_PER_DEPTH`]·D simulations (MCTS has no fixed depth; this keeps `go depth` usable) |
//! | `movetime`, `wtime`… | simulate until the time is up |
//! | `infinite` | simulate until `stop` |
//!
//! The `Simulations` option (`--sims`) caps every search, and `MoveTime` (`--movetime`)
//! caps its time; the tree's size caps both at [`MAX_SIMULATIONS`].
//!
//! Info lines: `depth` is the depth the search reached (the deepest position in the tree,
//! in plies from the root; MCTS grows unevenly, so this is a selective depth), `nodes`
//! the simulations, `pv` the most-visited line (at most 16 moves),
//! and `score cp` the root value v ∈ [−1, 1] (mover's view, P(win) − P(loss)) mapped
//! linearly: cp = round([`CP_PER_VALUE`]·v). A sure win (v = 1) reads as 24 seeds ahead,
//! half the seeds, and stays below the ±10 000 the alpha-beta engine reserves for
//! proven results, because a network value is never a proof.
//!
//! Tree reuse: when the next position is the last one searched plus the moves played
//! since (the usual `position … moves …` of a game in progress), the subtree of those
//! moves is kept.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{EngineOption, EngineSearcher};
use crate::game::{Game, Position, RuleSet, move_letter};
use crate::search::mcts::{Algorithm, BatchSearch, MctsConfig};
use crate::search::{Evaluator, Limits, SearchResult};
use crate::tablebase::Tablebase;

/// Simulations per unit of `go depth`.
pub const SIMS_PER_DEPTH: u32 = 100;
/// Centi-seeds per unit of value in `score cp`.
pub const CP_PER_VALUE: f32 = 2400.0;
/// The most simulations one search may run (sizes the preallocated tree, ~300 bytes a
/// node, three nodes a simulation at most).
pub const MAX_SIMULATIONS: u32 = 200_000;
/// Time between two info lines during a long search.
const INFO_EVERY: Duration = Duration::from_millis(500);
/// Moves of the principal variation reported.
const PV_LEN: usize = 16;

/// MCTS with an evaluator, for the engine protocol. Options: `Simulations`, `MoveTime`,
/// `CPuct`.
pub struct MctsSearcher {
    evaluator: Box<dyn Evaluator>,
    cfg: MctsConfig,
    search: BatchSearch,
    /// The game the tree's root belongs to, for reuse.
    searched: Option<Game>,
    /// Cap on simulations per move (`None`: the limits decide).
    max_sims: Option<u32>,
    /// Cap on time per move.
    max_time: Option<Duration>,
    seed: u64,
    /// Endgame tables: covered positions are finished games in the tree.
    tablebase: Option<Arc<Tablebase>>,
}

/// The letters of a line of `actions` played from `pos` under `rules` (`CfA`): each
/// letter is its mover's, so a player who moves again (`ouril`) keeps his case.
pub fn line_letters(
    pos: &Position,
    rules: RuleSet,
    actions: impl IntoIterator<Item = usize>,
) -> String {
    let mut p = *pos;
    actions
        .into_iter()
        .map(|a| {
            let c = move_letter(p.side, a);
            p.apply(rules, a);
            c
        })
        .collect()
}

impl MctsSearcher {
    /// A searcher over `evaluator` for `rules`; `sims` caps the simulations of every
    /// search, `movetime` its time (both optional; the `go` limits apply too).
    pub fn new(
        evaluator: Box<dyn Evaluator>,
        rules: RuleSet,
        sims: Option<u32>,
        movetime: Option<Duration>,
    ) -> MctsSearcher {
        let cfg = MctsConfig {
            algorithm: Algorithm::Puct,
            simulations: MAX_SIMULATIONS,
            cheap_simulations: 1,
            tree_reuse: true,
            ..MctsConfig::default()
        };
        let seed = 0x5eed;
        MctsSearcher {
            evaluator,
            search: BatchSearch::new(cfg.clone(), rules, 1, seed),
            cfg,
            searched: None,
            max_sims: sims.map(|s| s.clamp(1, MAX_SIMULATIONS)),
            max_time: movetime,
            seed,
            tablebase: None,
        }
    }

    /// Searches with the constants of the settings a model was trained with (its
    /// manifest's `search`), as an anytime PUCT search ([`MctsConfig::anytime`]).
    pub fn with_settings(mut self, trained: &MctsConfig) -> MctsSearcher {
        self.cfg = trained.anytime(MAX_SIMULATIONS, true);
        self.search = self.fresh_search(self.search.rules());
        self
    }

    /// Ends the search at every position `tb` covers, with the table's result.
    pub fn with_tablebase(mut self, tb: Option<Arc<Tablebase>>) -> MctsSearcher {
        self.tablebase = tb;
        self.search.set_tablebase(self.tablebase.clone());
        self
    }

    /// A fresh batch of one search under `rules`, with the tables.
    fn fresh_search(&self, rules: RuleSet) -> BatchSearch {
        let mut s = BatchSearch::new(self.cfg.clone(), rules, 1, self.seed);
        s.set_tablebase(self.tablebase.clone());
        s
    }

    /// Puts `game` at the root, keeping the subtree if `game` continues the last one.
    fn set_root(&mut self, game: &Game) {
        if self.search.rules() != game.rules() {
            self.search = self.fresh_search(game.rules());
            self.searched = None;
        }
        if let Some(prev) = &self.searched
            && prev.start() == game.start()
            && game.moves().starts_with(prev.moves())
        {
            let extra = game.moves()[prev.moves().len()..].to_vec();
            if extra
                .iter()
                .all(|&(_, a)| self.search.play(0, a as usize).is_ok())
            {
                self.searched = Some(game.clone());
                return;
            }
        }
        self.search.set_game(0, game.clone());
        self.searched = Some(game.clone());
    }

    /// The simulations `limits` allow, after the caps.
    fn budget(&self, limits: &Limits) -> u32 {
        let mut sims = MAX_SIMULATIONS;
        if let Some(n) = limits.nodes {
            sims = sims.min(n.min(u32::MAX as u64) as u32);
        }
        if let Some(d) = limits.depth {
            sims = sims.min(d.saturating_mul(SIMS_PER_DEPTH));
        }
        if let Some(m) = self.max_sims {
            sims = sims.min(m);
        }
        sims.max(1)
    }

    fn report(&self, game: &Game, started: Instant, sims: u32) -> SearchResult {
        let r = self.search.result(0);
        let side = game.position().side;
        let pv_moves: Vec<u8> = self
            .search
            .principal_variation(0, PV_LEN)
            .into_iter()
            .map(|a| a as u8)
            .collect();
        let pv = line_letters(
            game.position(),
            game.rules(),
            pv_moves.iter().map(|&a| a as usize),
        );
        let elapsed = started.elapsed();
        let legal = game.legal_moves();
        // Before any simulation (a search stopped at once) the tree's choice may be
        // unvisited; any legal move is a valid answer then.
        let best = if legal & (1 << r.best) != 0 {
            r.best
        } else {
            legal.trailing_zeros() as usize
        };
        SearchResult {
            side,
            best_move: Some(best as u8),
            score_cp: (r.value.clamp(-1.0, 1.0) * CP_PER_VALUE).round() as i32,
            depth: tree_depth(self.search.tree(0)),
            nodes: sims as u64,
            nps: (sims as f64 / elapsed.as_secs_f64().max(1e-6)) as u64,
            elapsed,
            pv,
            pv_moves,
        }
    }
}

/// The deepest node of `tree`, in plies below the root (0 before any simulation).
fn tree_depth(tree: &crate::search::mcts::SearchTree) -> u32 {
    let mut deepest = 0;
    let mut stack = vec![(tree.root(), 0u32)];
    while let Some((id, d)) = stack.pop() {
        deepest = deepest.max(d);
        for &c in &tree.node(id).children {
            if c != 0 {
                stack.push((c, d + 1));
            }
        }
    }
    deepest
}

impl EngineSearcher for MctsSearcher {
    fn name(&self) -> String {
        format!(
            "oware-zero mcts {} ({})",
            env!("CARGO_PKG_VERSION"),
            self.evaluator.name()
        )
    }

    fn options(&self) -> Vec<EngineOption> {
        vec![
            EngineOption {
                name: "Simulations".into(),
                spec: format!(
                    "type spin default {} min 0 max {MAX_SIMULATIONS}",
                    self.max_sims.unwrap_or(0)
                ),
            },
            EngineOption {
                name: "MoveTime".into(),
                spec: format!(
                    "type spin default {} min 0 max 3600000",
                    self.max_time.map_or(0, |d| d.as_millis())
                ),
            },
            EngineOption {
                name: "CPuct".into(),
                spec: format!("type string default {}", self.cfg.c_puct),
            },
        ]
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let int = |max: u64| {
            value
                .parse::<u64>()
                .ok()
                .filter(|v| *v <= max)
                .ok_or_else(|| {
                    format!("option {name}: '{value}' is not a whole number from 0 to {max}")
                })
        };
        match name.to_ascii_lowercase().as_str() {
            // 0 means "no cap" for both.
            "simulations" => {
                let v = int(MAX_SIMULATIONS as u64)?;
                self.max_sims = (v > 0).then_some(v as u32);
            }
            "movetime" => {
                let v = int(3_600_000)?;
                self.max_time = (v > 0).then(|| Duration::from_millis(v));
            }
            "cpuct" => match value.parse::<f32>() {
                Ok(c) if c.is_finite() && c > 0.0 => {
                    self.cfg.c_puct = c;
                    let rules = self.search.rules();
                    self.search = self.fresh_search(rules);
                    self.searched = None;
                }
                _ => return Err(format!("option CPuct: '{value}' is not a positive number")),
            },
            _ => return Err(format!("unknown option '{name}'")),
        }
        Ok(())
    }

    fn new_game(&mut self) {
        self.searched = None;
    }

    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchResult),
    ) -> SearchResult {
        let started = Instant::now();
        self.set_root(game);
        let sims = self.budget(limits);
        let time = match (limits.movetime, self.max_time) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let deadline = time.map(|t| started + t);
        if !self.search.begin(0, sims, false) {
            // The server never asks about a finished game; answer sensibly anyway.
            return self.report(game, started, 0);
        }
        let before = self.search.simulations;
        let mut last_info = started;
        loop {
            let searching = self.search.step(self.evaluator.as_mut());
            if searching == 0 || stop.load(Ordering::Relaxed) {
                break;
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                break;
            }
            if now.duration_since(last_info) >= INFO_EVERY {
                last_info = now;
                let done = (self.search.simulations - before) as u32;
                info(&self.report(game, started, done));
            }
        }
        let done = (self.search.simulations - before) as u32;
        let r = self.report(game, started, done);
        info(&r);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::UniformEvaluator;

    fn searcher(sims: Option<u32>) -> MctsSearcher {
        MctsSearcher::new(Box::new(UniformEvaluator), RuleSet::abapa(), sims, None)
    }

    #[test]
    fn finds_the_winning_capture() {
        // docs/rules.md example 4: C captures 11 and wins at once (terminal values are exact).
        let pos: Position = "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S".parse().unwrap();
        let game = Game::new(RuleSet::abapa(), pos);
        let mut s = searcher(None);
        let stop = AtomicBool::new(false);
        let mut infos = 0;
        let r = s.search(&game, &Limits::nodes(400), &stop, &mut |_| infos += 1);
        assert_eq!(r.best_letter(), Some('C'), "{r:?}");
        assert!(r.score_cp > 0, "{r:?}");
        assert_eq!(r.nodes, 400);
        assert!(infos >= 1);
        assert!(r.pv.starts_with('C'));
    }

    #[test]
    fn caps_and_stop_bound_the_search() {
        let game = Game::new(RuleSet::abapa(), Position::start());
        let stop = AtomicBool::new(false);
        let mut s = searcher(Some(30));
        let r = s.search(&game, &Limits::nodes(1000), &stop, &mut |_| {});
        assert_eq!(r.nodes, 30);
        assert_eq!(s.budget(&Limits::depth(2)), 30);
        let s2 = searcher(None);
        assert_eq!(s2.budget(&Limits::depth(2)), 2 * SIMS_PER_DEPTH);
        // A raised stop flag ends the search after one step with a legal move.
        let stop = AtomicBool::new(true);
        let r = s.search(&game, &Limits::default(), &stop, &mut |_| {});
        assert!(r.best_move.is_some_and(|a| a < 6));
        assert!(r.nodes <= 1);
    }

    #[test]
    fn reuses_the_tree_of_a_continued_game() {
        let mut game = Game::new(RuleSet::abapa(), Position::start());
        let stop = AtomicBool::new(false);
        let mut s = searcher(None);
        s.search(&game, &Limits::nodes(300), &stop, &mut |_| {});
        game.play_text("Ff").unwrap();
        s.set_root(&game);
        // The subtree of F, f was kept: its root already has visits.
        assert!(s.search.tree(0).root_node().visits() > 0);
        assert_eq!(s.search.game(0).move_text(), "Ff");
        // A different game starts fresh.
        let other = Game::new(
            RuleSet::abapa(),
            "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S".parse().unwrap(),
        );
        s.set_root(&other);
        assert_eq!(s.search.tree(0).root_node().visits(), 0);
    }

    #[test]
    fn lines_alternate_letters_with_the_mover() {
        let start = Position::start();
        assert_eq!(line_letters(&start, RuleSet::abapa(), [5, 5, 1, 4]), "FfBe");
        assert_eq!(line_letters(&start, RuleSet::abapa(), []), "");
    }

    #[test]
    fn options_parse_and_reject_bad_values() {
        let mut s = searcher(None);
        assert!(s.set_option("Simulations", "500").is_ok());
        assert_eq!(s.max_sims, Some(500));
        assert!(s.set_option("simulations", "0").is_ok());
        assert_eq!(s.max_sims, None);
        assert!(s.set_option("Simulations", "-3").is_err());
        assert!(s.set_option("CPuct", "2.5").is_ok());
        assert!(s.set_option("CPuct", "nan").is_err());
        assert!(s.set_option("Hash", "1").unwrap_err().contains("unknown"));
    }
}

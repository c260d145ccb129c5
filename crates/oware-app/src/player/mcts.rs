//! [`MctsSearcher`]: the network's MCTS as an engine player.
//!
//! One game, one tree, searched by [`ParallelSearch`]: `Threads` workers (default: the
//! machine's cores), each sending the network batches of `MinibatchSize` leaves chosen
//! with virtual loss; an evaluation cache shared by the workers and kept across moves;
//! a tree bounded by `Hash` that keeps the subtree of the moves played and, when full,
//! drops its least-visited branches instead of stopping. PUCT with no root noise: the
//! engine plays its best. With `Threads 1`, `go nodes N` is deterministic.
//!
//! How `go` limits map to simulations:
//!
//! | `go` word | meaning here |
//! |---|---|
//! | `nodes N` | N simulations |
//! | `depth D` | [`SIMS_PER_DEPTH`]·D simulations (MCTS has no fixed depth; this keeps `go depth` usable) |
//! | `movetime` | simulate until the time is up |
//! | `wtime`… | clock management (below) |
//! | `infinite` | simulate until `stop` |
//!
//! The `Simulations` option (`--sims`) caps every search, and `MoveTime` (`--movetime`)
//! caps its time.
//!
//! Clock management: the protocol loop turns the clock into a target time (the time
//! left over the moves to go, plus most of the increment) and a hard limit (never more
//! than a quarter of the time left, and a margin for the transport). At the target the
//! search stops unless the position is unclear (the most-visited move has a lower value
//! than the runner-up, or not 30% more visits), in which case it goes on, up to 2.5× the
//! target or the hard limit. Before the target it stops early once the runner-up could
//! not catch the best move in the time left at the current speed.
//!
//! Info lines: `depth` is the depth the search reached (the deepest position in the tree,
//! in plies from the root; MCTS grows unevenly, so this is a selective depth), `nodes`
//! the simulations, `pv` the most-visited line (at most 16 moves),
//! and `score cp` the root value v ∈ [−1, 1] (mover's view, P(win) − P(loss)) mapped
//! linearly: cp = round([`CP_PER_VALUE`]·v). A sure win (v = 1) reads as 24 seeds ahead,
//! half the seeds, and stays below the ±10 000 the alpha-beta engine reserves for
//! proven results, because a network value is never a proof.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::engine::{EngineOption, EngineSearcher};
use oware_core::game::{Game, Position, RuleSet, move_letter};
use oware_core::search::cache::{CachedEvaluator, EvalCache};
use oware_core::search::mcts::{MctsConfig, Node, ParallelSearch, SharedTree};
use oware_core::search::{Evaluator, Limits, SearchResult};
use oware_core::tablebase::Tablebase;

/// Simulations per unit of `go depth`.
pub const SIMS_PER_DEPTH: u32 = 100;
/// Centi-seeds per unit of value in `score cp`.
pub const CP_PER_VALUE: f32 = 2400.0;
/// The most simulations `serve` lets one request run.
pub const MAX_SIMULATIONS: u32 = 200_000;
/// The largest `Simulations` option.
const MAX_SIMULATIONS_OPTION: u32 = 1_000_000_000;
/// Default memory for the tree and the evaluation cache, MiB.
pub const DEFAULT_HASH_MB: usize = 256;
/// The largest `Hash`, MiB.
const MAX_HASH_MB: usize = 65_536;
/// Default leaves per network call.
pub const DEFAULT_MINIBATCH: usize = 8;
/// The largest `MinibatchSize`.
const MAX_MINIBATCH: usize = 1024;
/// The most worker threads.
const MAX_THREADS: usize = 256;
/// The share of `Hash` that goes to the evaluation cache (the rest holds the tree).
const CACHE_SHARE: usize = 8;
/// Time between two info lines during a long search.
const INFO_EVERY: Duration = Duration::from_millis(500);
/// Moves of the principal variation reported.
const PV_LEN: usize = 16;
/// How far past its target time an unclear position may search.
const EXTEND: f64 = 2.5;
/// The engine's policy softmax temperature (`PolicyTemp`): the shipped network's priors,
/// learnt from 64-simulation searches, are sharper than a deep search wants, and at
/// thousands of simulations a move 2 beat both 1 and 3 (the matches:
/// `experiments/recorded/engine/`). `play`, `analyze` and `serve` keep the trained
/// temperature: their levels' strengths were measured with it.
pub const ENGINE_POLICY_TEMPERATURE: f32 = 2.0;

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

/// The engine's settings (its options).
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSettings {
    /// Worker threads.
    pub threads: usize,
    /// Memory for the tree and the cache, MiB.
    pub hash_mb: usize,
    /// Leaves per network call.
    pub minibatch: usize,
    /// Cap on simulations per move (`None`: the limits decide).
    pub max_sims: Option<u32>,
    /// Cap on time per move.
    pub max_time: Option<Duration>,
    /// Whether the tables (if loaded) end the search at the positions they cover.
    pub use_tables: bool,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            threads: default_threads(),
            hash_mb: DEFAULT_HASH_MB,
            minibatch: DEFAULT_MINIBATCH,
            max_sims: None,
            max_time: None,
            use_tables: true,
        }
    }
}

/// The engine's search constants for a model trained with `trained`: its anytime PUCT
/// search ([`MctsConfig::anytime`]) with the engine's policy temperature.
pub fn engine_config(trained: &MctsConfig) -> MctsConfig {
    MctsConfig {
        policy_temperature: ENGINE_POLICY_TEMPERATURE,
        ..trained.anytime(1, true)
    }
}

/// The machine's cores (what `Threads` defaults to).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))
}

/// Bytes of the evaluation cache under `Hash` = `hash_mb` MiB.
pub fn cache_bytes(hash_mb: usize) -> usize {
    hash_mb * (1 << 20) / CACHE_SHARE
}

/// Nodes a tree of `hash_mb` MiB holds (its two arenas, less the cache's share).
pub fn tree_nodes(hash_mb: usize) -> usize {
    let bytes = hash_mb * (1 << 20) / CACHE_SHARE * (CACHE_SHARE - 1);
    bytes / (2 * std::mem::size_of::<oware_core::search::mcts::atomic::AtomicNode>())
}

/// MCTS with an evaluator, for the engine protocol.
pub struct MctsSearcher {
    /// The evaluator the workers' copies are made from.
    base: Box<dyn Evaluator>,
    cfg: MctsConfig,
    rules: RuleSet,
    settings: EngineSettings,
    search: ParallelSearch,
    cache: Arc<EvalCache>,
    seed: u64,
    /// Endgame tables: covered positions are finished games in the tree.
    tablebase: Option<Arc<Tablebase>>,
}
impl MctsSearcher {
    /// A searcher over `evaluator` for `rules` with the default settings; `sims` caps the
    /// simulations of every search, `movetime` its time (both optional; the `go` limits
    /// apply too).
    pub fn new(
        evaluator: Box<dyn Evaluator>,
        rules: RuleSet,
        sims: Option<u32>,
        movetime: Option<Duration>,
    ) -> MctsSearcher {
        let settings = EngineSettings {
            max_sims: sims.map(|s| s.clamp(1, MAX_SIMULATIONS_OPTION)),
            max_time: movetime,
            ..EngineSettings::default()
        };
        MctsSearcher::with(
            evaluator,
            rules,
            engine_config(&MctsConfig::default()),
            settings,
        )
    }

    /// A searcher with `cfg`'s constants (PUCT) and `settings`.
    pub fn with(
        evaluator: Box<dyn Evaluator>,
        rules: RuleSet,
        cfg: MctsConfig,
        settings: EngineSettings,
    ) -> MctsSearcher {
        let cache = Arc::new(EvalCache::with_bytes(
            settings.hash_mb * (1 << 20) / CACHE_SHARE,
        ));
        let seed = 0x5eed;
        let search = build_search(&*evaluator, &cfg, rules, &settings, &cache, seed);
        MctsSearcher {
            base: evaluator,
            cfg,
            rules,
            settings,
            search,
            cache,
            seed,
            tablebase: None,
        }
    }

    /// Searches with the constants of the settings a model was trained with (its
    /// manifest's `search`), as the engine's anytime PUCT search ([`engine_config`]).
    pub fn with_settings(mut self, trained: &MctsConfig) -> MctsSearcher {
        self.cfg = engine_config(trained);
        self.rebuild();
        self
    }

    /// Ends the search at every position `tb` covers, with the table's result.
    pub fn with_tablebase(mut self, tb: Option<Arc<Tablebase>>) -> MctsSearcher {
        self.tablebase = tb;
        self.attach_tables();
        self
    }

    /// The settings in force.
    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// The evaluation cache's lookups and hits since the last `ucinewgame` (or start).
    pub fn cache_counts(&self) -> (u64, u64) {
        self.cache.counts()
    }

    /// Each search thread's times in the last search; see
    /// [`oware_core::search::mcts::ParallelSearch::work_spans`].
    pub fn work_spans(&self) -> Vec<oware_core::search::mcts::WorkSpan> {
        self.search.work_spans().collect()
    }

    /// The last search's counters (tree size, collisions, prunes, network calls).
    pub fn counters(&self) -> oware_core::search::mcts::TreeCounters {
        self.search.tree().counters()
    }

    fn attach_tables(&mut self) {
        let tb = self.tablebase.clone().filter(|_| self.settings.use_tables);
        self.search.set_tablebase(tb);
    }

    /// A fresh search (and cache) after a change of settings; the tree starts afresh.
    fn rebuild(&mut self) {
        let bytes = cache_bytes(self.settings.hash_mb);
        if self.cache.bytes().abs_diff(bytes) > bytes / 4 {
            self.cache = Arc::new(EvalCache::with_bytes(bytes));
        }
        let s = &self.settings;
        self.search = build_search(
            &*self.base,
            &self.cfg,
            self.rules,
            s,
            &self.cache,
            self.seed,
        );
        self.attach_tables();
    }

    /// The simulations `limits` allow, after the caps.
    fn budget(&self, limits: &Limits) -> u32 {
        let mut sims = u32::MAX;
        if let Some(n) = limits.nodes {
            sims = sims.min(n.min(u32::MAX as u64) as u32);
        }
        if let Some(d) = limits.depth {
            sims = sims.min(d.saturating_mul(SIMS_PER_DEPTH));
        }
        if let Some(m) = self.settings.max_sims {
            sims = sims.min(m);
        }
        sims.max(1)
    }

    fn report(&self, game: &Game, started: Instant) -> SearchResult {
        let tree = self.search.tree();
        report(tree, game, started)
    }
}

/// The workers' evaluators (copies of `base`, each behind the shared cache) and the
/// search over them, with `settings`' threads, batch and memory: the engine's searcher,
/// which `play` uses too.
pub fn build_search(
    base: &dyn Evaluator,
    cfg: &MctsConfig,
    rules: RuleSet,
    settings: &EngineSettings,
    cache: &Arc<EvalCache>,
    seed: u64,
) -> ParallelSearch {
    let mut evaluators: Vec<Box<dyn Evaluator>> = Vec::new();
    for _ in 0..settings.threads.max(1) {
        match base.boxed_clone() {
            Some(e) => evaluators.push(Box::new(CachedEvaluator::new(e, cache.clone()))),
            None => break,
        }
    }
    if evaluators.is_empty() {
        panic!("the engine's evaluator cannot be copied for its workers");
    }
    let nodes = tree_nodes(settings.hash_mb);
    ParallelSearch::new(
        cfg.clone(),
        rules,
        evaluators,
        settings.minibatch,
        nodes,
        seed,
    )
}

/// The search's result so far, as the protocol reports it.
fn report(tree: &SharedTree, game: &Game, started: Instant) -> SearchResult {
    let r = tree.result();
    let side = game.position().side;
    let pv_moves: Vec<u8> = tree
        .principal_variation(PV_LEN)
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
    let sims = r.simulations;
    SearchResult {
        side,
        best_move: Some(best as u8),
        score_cp: (r.value.clamp(-1.0, 1.0) * CP_PER_VALUE).round() as i32,
        depth: tree.depth(),
        nodes: sims as u64,
        nps: (sims as f64 / elapsed.as_secs_f64().max(1e-6)) as u64,
        elapsed,
        pv,
        pv_moves,
    }
}

/// When a search stops, from its limits and what the tree says.
struct Stopper {
    started: Instant,
    /// The hard limit (`movetime`, the clock's cap, the `MoveTime` option).
    hard: Option<Instant>,
    /// The clock's target, when playing on a clock.
    soft: Option<Duration>,
    /// The simulation budget.
    budget: u32,
}

impl Stopper {
    /// Whether to go on, given the root's visits and values after `done` simulations.
    fn go_on(&self, root: &Node, done: u32, now: Instant) -> bool {
        if self.hard.is_some_and(|h| now >= h) || done >= self.budget {
            return false;
        }
        let Some(soft) = self.soft else {
            return true;
        };
        let elapsed = now.duration_since(self.started);
        let (best, second) = top_two(root);
        let (nb, ns) = (root.n[best], second.map_or(0, |a| root.n[a]));
        if elapsed < soft {
            // Stop early when the runner-up cannot catch up in the target time.
            let rate = done as f64 / elapsed.as_secs_f64().max(1e-3);
            let left = rate * (soft - elapsed).as_secs_f64();
            return (nb - ns) as f64 <= left || done < 100;
        }
        let unclear = second.is_some_and(|a| {
            let q = |x: usize| root.q(x).unwrap_or(-1.0);
            q(a) > q(best) || (nb as f64) < 1.3 * ns as f64
        });
        unclear && elapsed.as_secs_f64() < EXTEND * soft.as_secs_f64()
    }
}

/// The most-visited legal move and the runner-up, if any.
fn top_two(root: &Node) -> (usize, Option<usize>) {
    let (mut best, mut second) = (None::<usize>, None::<usize>);
    for a in (0..6).filter(|a| root.legal & (1 << a) != 0) {
        match best {
            Some(b) if root.n[a] <= root.n[b] => {
                if second.is_none_or(|s| root.n[a] > root.n[s]) {
                    second = Some(a);
                }
            }
            _ => {
                second = best;
                best = Some(a);
            }
        }
    }
    (best.unwrap_or(0), second)
}

impl EngineSearcher for MctsSearcher {
    fn name(&self) -> String {
        format!(
            "oware-zero mcts {} ({})",
            env!("CARGO_PKG_VERSION"),
            self.base.name()
        )
    }

    fn options(&self) -> Vec<EngineOption> {
        let s = &self.settings;
        let mut o = vec![
            spin("Threads", s.threads as u64, 1, MAX_THREADS as u64),
            spin("Hash", s.hash_mb as u64, 1, MAX_HASH_MB as u64),
            spin("MinibatchSize", s.minibatch as u64, 1, MAX_MINIBATCH as u64),
            spin(
                "Simulations",
                s.max_sims.unwrap_or(0) as u64,
                0,
                MAX_SIMULATIONS_OPTION as u64,
            ),
            spin(
                "MoveTime",
                s.max_time.map_or(0, |d| d.as_millis() as u64),
                0,
                3_600_000,
            ),
            EngineOption {
                name: "CPuct".into(),
                spec: format!("type string default {}", self.cfg.c_puct),
            },
            EngineOption {
                name: "PolicyTemp".into(),
                spec: format!("type string default {}", self.cfg.policy_temperature),
            },
        ];
        if self.tablebase.is_some() {
            o.push(EngineOption {
                name: "UseTables".into(),
                spec: format!("type check default {}", s.use_tables),
            });
        }
        o
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let int = |min: u64, max: u64| {
            value
                .parse::<u64>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .ok_or_else(|| {
                    format!("option {name}: '{value}' is not a whole number from {min} to {max}")
                })
        };
        let positive = || {
            value
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| format!("option {name}: '{value}' is not a positive number"))
        };
        let s = &mut self.settings;
        match name.to_ascii_lowercase().as_str() {
            "threads" => s.threads = int(1, MAX_THREADS as u64)? as usize,
            "hash" => s.hash_mb = int(1, MAX_HASH_MB as u64)? as usize,
            "minibatchsize" => s.minibatch = int(1, MAX_MINIBATCH as u64)? as usize,
            // 0 means "no cap" for both.
            "simulations" => {
                let v = int(0, MAX_SIMULATIONS_OPTION as u64)?;
                s.max_sims = (v > 0).then_some(v as u32);
                return Ok(());
            }
            "movetime" => {
                let v = int(0, 3_600_000)?;
                s.max_time = (v > 0).then(|| Duration::from_millis(v));
                return Ok(());
            }
            "cpuct" => self.cfg.c_puct = positive()?,
            "policytemp" => self.cfg.policy_temperature = positive()?,
            "usetables" if self.tablebase.is_some() => {
                s.use_tables = match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("option UseTables: '{value}' is not true or false")),
                };
                self.attach_tables();
                self.search.clear();
                return Ok(());
            }
            _ => return Err(format!("unknown option '{name}'")),
        }
        self.rebuild();
        Ok(())
    }

    fn new_game(&mut self) {
        self.search.clear();
        self.cache.clear();
    }

    /// `go depth D` is D·[`SIMS_PER_DEPTH`] simulations, not a depth: any D the
    /// `Simulations` option could run is taken as asked.
    fn max_depth(&self) -> u32 {
        MAX_SIMULATIONS_OPTION / SIMS_PER_DEPTH
    }

    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        info: &mut dyn FnMut(&SearchResult),
    ) -> SearchResult {
        let started = Instant::now();
        if game.rules() != self.rules {
            self.rules = game.rules();
            self.rebuild();
        }
        self.search.set_game(game);
        let hard = [limits.movetime, self.settings.max_time]
            .into_iter()
            .flatten()
            .min();
        let stopper = Stopper {
            started,
            hard: hard.map(|t| started + t),
            soft: limits.soft.filter(|_| limits.nodes.is_none()),
            budget: self.budget(limits),
        };
        let mut last_info = started;
        self.search
            .run_until(stopper.hard, stopper.budget, false, |tree| {
                if stop.load(Ordering::Relaxed) {
                    return false;
                }
                let now = Instant::now();
                let r = tree.root_and_done();
                if !stopper.go_on(&r.0, r.1, now) {
                    return false;
                }
                if now.duration_since(last_info) >= INFO_EVERY {
                    last_info = now;
                    info(&report(tree, game, started));
                }
                true
            });
        let r = self.report(game, started);
        info(&r);
        r
    }
}

/// A `type spin` option.
fn spin(name: &str, default: u64, min: u64, max: u64) -> EngineOption {
    EngineOption {
        name: name.into(),
        spec: format!("type spin default {default} min {min} max {max}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::search::UniformEvaluator;
    use oware_core::search::mcts::SearchTree;

    fn searcher(sims: Option<u32>) -> MctsSearcher {
        MctsSearcher::new(Box::new(UniformEvaluator), RuleSet::abapa(), sims, None)
    }

    fn with_threads(threads: usize, hash_mb: usize) -> MctsSearcher {
        let mut s = searcher(None);
        s.set_option("Threads", &threads.to_string()).unwrap();
        s.set_option("Hash", &hash_mb.to_string()).unwrap();
        s
    }

    /// docs/rules.md example 4: C captures 11 and wins at once.
    fn winning_capture() -> Game {
        let pos: Position = "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S".parse().unwrap();
        Game::new(RuleSet::abapa(), pos)
    }

    #[test]
    fn finds_the_winning_capture_with_one_and_two_threads() {
        for threads in [1, 2] {
            let mut s = with_threads(threads, 16);
            let stop = AtomicBool::new(false);
            let mut infos = 0;
            let r = s.search(&winning_capture(), &Limits::nodes(400), &stop, &mut |_| {
                infos += 1
            });
            assert_eq!(r.best_letter(), Some('C'), "{threads} threads: {r:?}");
            assert!(r.score_cp > 0, "{r:?}");
            assert_eq!(r.nodes, 400, "the budget is exact with {threads} threads");
            assert!(infos >= 1);
            assert!(r.pv.starts_with('C'));
        }
    }

    #[test]
    fn one_thread_is_deterministic() {
        let game = Game::new(RuleSet::abapa(), Position::start());
        let run = || {
            let mut s = with_threads(1, 16);
            let stop = AtomicBool::new(false);
            s.search(&game, &Limits::nodes(3000), &stop, &mut |_| {});
            s.search.result()
        };
        let (a, b) = (run(), run());
        assert_eq!(a, b);
        assert_eq!(a.simulations, 3000);
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
        // A raised stop flag ends the search before it starts, with a legal move.
        let stop = AtomicBool::new(true);
        let r = s.search(&game, &Limits::default(), &stop, &mut |_| {});
        assert!(r.best_move.is_some_and(|a| a < 6));
        assert_eq!(r.nodes, 0);
    }

    #[test]
    fn stop_ends_an_infinite_search() {
        let game = Game::new(RuleSet::abapa(), Position::start());
        let stop = AtomicBool::new(false);
        let mut s = with_threads(2, 16);
        let r = std::thread::scope(|sc| {
            sc.spawn(|| {
                std::thread::sleep(Duration::from_millis(30));
                stop.store(true, Ordering::Relaxed);
            });
            s.search(&game, &Limits::default(), &stop, &mut |_| {})
        });
        assert!(r.best_move.is_some_and(|a| a < 6));
        assert!(r.nodes > 0);
    }

    #[test]
    fn a_timed_search_where_every_line_ends_at_once_still_stops() {
        // South's only move F takes 2 and reaches 26: every descent ends at once in a
        // finished game (as every line ending in a table position did when the tables
        // ended lines without a capture), and the search must still notice its time.
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tablebases/abapa");
        let tb = oware_core::tablebase::open_shared(&dir).expect("the shipped tables");
        let mut s = with_threads(2, 16).with_tablebase(Some(tb));
        let pos: Position = "0-0-0-0-0-1-1-0-0-0-0-1-24-21-S".parse().unwrap();
        let game = Game::new(RuleSet::abapa(), pos);
        let stop = AtomicBool::new(false);
        let r = s.search(&game, &Limits::movetime_ms(50), &stop, &mut |_| {});
        assert!(
            r.best_move
                .is_some_and(|a| game.legal_moves() & (1 << a) != 0)
        );
        assert!(r.nodes > 0);
    }

    #[test]
    fn the_tables_end_only_proven_lines() {
        // North's only move starts a forced line that repeats after 13 plies, and South
        // wins 25–23 (see the tablebase tests); the plain tables' entry, a guess about
        // the history, calls it a draw (the shipped tables, built proving, hold the
        // loss). The search with the plain tables must find the loss.
        let tb = Arc::new(oware_core::tablebase::build_in_memory(RuleSet::abapa(), 3));
        let pos: Position = "0-0-0-0-0-0-0-1-0-0-0-1-24-22-N".parse().unwrap();
        assert_eq!(tb.probe(&pos).map(|p| p.exact), Some(false));
        let game = Game::new(RuleSet::abapa(), pos);
        let mut s = with_threads(1, 16).with_tablebase(Some(tb));
        let r = s.search(
            &game,
            &Limits::nodes(400),
            &AtomicBool::new(false),
            &mut |_| {},
        );
        assert_eq!(r.best_move, Some(5));
        assert!(r.score_cp < -2000, "North loses: {}", r.score_cp);
    }

    #[test]
    fn a_full_tree_is_pruned_and_the_search_goes_on() {
        // 1 MiB holds a few thousand nodes; 30 000 simulations need many more.
        let mut s = with_threads(2, 1);
        let cap = tree_nodes(1);
        assert!(cap > 1000 && cap < 10_000, "{cap}");
        let stop = AtomicBool::new(false);
        let game = Game::new(RuleSet::abapa(), Position::start());
        let r = s.search(&game, &Limits::nodes(30_000), &stop, &mut |_| {});
        assert_eq!(r.nodes, 30_000);
        assert!(r.best_move.is_some_and(|a| a < 6));
        let c = s.search.tree().counters();
        assert!(c.prunes > 0, "{c:?}");
        assert!(c.nodes <= c.capacity, "{c:?}");
        // Visits stay consistent: the root's edges hold every simulation.
        let (root, done) = s.search.tree().root_and_done();
        assert_eq!(done, 30_000);
        assert_eq!(root.visits(), 30_000);
    }

    #[test]
    fn reuses_the_tree_of_a_continued_game() {
        let mut game = Game::new(RuleSet::abapa(), Position::start());
        let stop = AtomicBool::new(false);
        let mut s = with_threads(1, 16);
        s.search(&game, &Limits::nodes(300), &stop, &mut |_| {});
        game.play_text("Ff").unwrap();
        // The subtree of F, f was kept: its root already has visits.
        assert!(s.search.set_game(&game));
        assert!(s.search.tree().root_and_done().0.visits() > 0);
        assert_eq!(s.search.game().move_text(), "Ff");
        // A different game starts fresh.
        assert!(!s.search.set_game(&winning_capture()));
        assert_eq!(s.search.tree().root_and_done().0.visits(), 0);
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
        assert_eq!(s.settings.max_sims, Some(500));
        assert!(s.set_option("simulations", "0").is_ok());
        assert_eq!(s.settings.max_sims, None);
        assert!(s.set_option("Simulations", "-3").is_err());
        assert!(s.set_option("CPuct", "2.5").is_ok());
        assert!(s.set_option("CPuct", "nan").is_err());
        assert_eq!(s.cfg.policy_temperature, ENGINE_POLICY_TEMPERATURE);
        assert!(s.set_option("PolicyTemp", "1.6").is_ok());
        assert_eq!(s.cfg.policy_temperature, 1.6);
        assert!(s.set_option("PolicyTemp", "0").is_err());
        assert!(s.set_option("PolicyTemp", "warm").is_err());
        assert_eq!(s.cfg.policy_temperature, 1.6);
        assert!(s.set_option("Threads", "3").is_ok());
        assert_eq!(s.search.threads(), 3);
        assert!(s.set_option("Threads", "0").is_err());
        assert!(s.set_option("Hash", "0").is_err());
        assert!(s.set_option("MinibatchSize", "8").is_ok());
        assert_eq!(s.search.batch(), 8);
        // No tables loaded: no UseTables option.
        assert!(
            s.set_option("UseTables", "false")
                .unwrap_err()
                .contains("unknown")
        );
        assert!(s.set_option("Bogus", "1").unwrap_err().contains("unknown"));
    }

    /// A root whose visits and values are given, all six moves legal.
    fn root(n: [u32; 6], q: [f32; 6]) -> Node {
        let mut t = SearchTree::new(8);
        t.reset(Position::start());
        let mut r = *t.root_node();
        r.legal = 0b111111;
        r.n = n;
        r.w = std::array::from_fn(|a| q[a] * n[a] as f32);
        r
    }

    #[test]
    fn the_clock_stops_early_and_extends_when_unclear() {
        let t0 = Instant::now();
        let stopper = Stopper {
            started: t0,
            hard: Some(t0 + Duration::from_millis(1000)),
            soft: Some(Duration::from_millis(200)),
            budget: u32::MAX,
        };
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        // 100 ms in, 10 000 simulations done (100 a ms): the runner-up is 9 000 behind
        // with 100 ms (10 000 simulations) to go: it could still catch up.
        let close = root([9500, 500, 0, 0, 0, 0], [0.1, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert!(stopper.go_on(&close, 10_000, at(100)));
        // 150 ms in, 15 000 done: 50 ms (5 000) left, 14 000 behind: stop.
        let decided = root([14_500, 500, 0, 0, 0, 0], [0.1, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert!(!stopper.go_on(&decided, 15_000, at(150)));
        // Past the target: a clear best move stops, an unclear one goes on to 2.5×.
        let clear = root([15_000, 5_000, 0, 0, 0, 0], [0.2, 0.1, 0.0, 0.0, 0.0, 0.0]);
        assert!(!stopper.go_on(&clear, 20_000, at(210)));
        let tied = root([11_000, 9_000, 0, 0, 0, 0], [0.1, 0.1, 0.0, 0.0, 0.0, 0.0]);
        assert!(stopper.go_on(&tied, 20_000, at(210)));
        let better_second = root([15_000, 5_000, 0, 0, 0, 0], [0.1, 0.3, 0.0, 0.0, 0.0, 0.0]);
        assert!(stopper.go_on(&better_second, 20_000, at(400)));
        assert!(!stopper.go_on(&better_second, 20_000, at(510)));
        // The hard limit always wins.
        let hard = Stopper {
            soft: None,
            ..stopper
        };
        assert!(hard.go_on(&tied, 20_000, at(999)));
        assert!(!hard.go_on(&tied, 20_000, at(1000)));
    }
}

//! [`SearchPool`]: a fixed number of search threads, each with its own network copy,
//! fed from one bounded queue. A request that finds the queue full is turned away at
//! once (the caller answers HTTP 503) instead of piling up work.
//!
//! An infinite analysis ([`SearchPool::analyse`]) holds its thread until its client goes
//! away or its time is up; at most [`SearchPool::max_analyses`] run at once, so that
//! (with two threads or more) one is always left for the other requests. Its tree is
//! kept when it ends ([`AnalysisTrees`]): the next analysis of a game that continues the
//! one searched (a user stepping forward along the analysed line) starts from the
//! subtree of the moves played, as `oware engine` does between moves.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::player::analysis::{MoveReview, ReviewConfig, review};
use crate::player::mcts::{DEFAULT_HASH_MB, EngineSettings, build_search, cache_bytes};
use oware_core::game::Game;
use oware_core::search::Evaluator;
use oware_core::search::alphabeta::AlphaBeta;
use oware_core::search::cache::EvalCache;
use oware_core::search::mcts::{MctsConfig, ParallelSearch, SharedTree};
use oware_core::tablebase::Tablebase;

use super::puzzles::{Solution, solve};

/// The transposition table of each thread's alpha-beta (`solve`), in MiB.
const SOLVE_TABLE_MB: usize = 16;
/// Memory of an infinite analysis's tree (which prunes itself when full) and of the
/// evaluation cache the analyses share, in MiB: a quarter of `oware engine`'s default
/// `Hash` (about a minute of search before the first pruning), kept by each thread that
/// has run an analysis.
const ANALYSIS_HASH_MB: usize = DEFAULT_HASH_MB / 4;
/// Moves of each line an analysis reports.
const LINE_LEN: usize = 12;

/// One MCTS search asked for by a request.
#[derive(Clone, Debug)]
pub struct SearchJob {
    /// The game whose current position is searched (never over).
    pub game: Game,
    /// Simulations (already capped).
    pub simulations: u32,
    /// Dirichlet noise on the root priors.
    pub noise: bool,
    /// Move choice temperature (0: the most visited move).
    pub temperature: f32,
    /// Policy softmax temperature (`None`: the model's trained one).
    pub policy_temperature: Option<f32>,
    /// Wall-clock cap of the search (already capped).
    pub movetime: Duration,
}

/// What a search found at the root.
#[derive(Clone, Debug)]
pub struct SearchAnswer {
    /// The chosen action (0..5, mover-relative), legal.
    pub action: usize,
    /// The root value, mover's view, [−1, 1].
    pub value: f32,
    /// The visit distribution over actions (0 on illegal ones).
    pub policy: [f32; 6],
    /// Root visits per action.
    pub visits: [u32; 6],
    /// Mean value per action, mover's view (`None`: unvisited).
    pub q: [Option<f32>; 6],
    /// The most-visited line from the root, as actions.
    pub pv: Vec<usize>,
    /// For each visited root move, most visited first: the move and the line it starts
    /// (the move, then the most visited replies), as actions.
    pub lines: Vec<Vec<usize>>,
    /// Simulations run.
    pub simulations: u32,
    /// Time the search took.
    pub elapsed: Duration,
    /// The deepest leaf the search evaluated, in plies below the root.
    pub depth: u32,
}

/// An infinite analysis asked for by a request: one position searched until the
/// receiver of `updates` is dropped (the client went away) or `max_time` has passed.
#[derive(Debug)]
pub struct AnalysisJob {
    /// The game whose current position is searched (never over).
    pub game: Game,
    /// The longest the search runs (already capped).
    pub max_time: Duration,
    /// Time between two updates.
    pub every: Duration,
    /// Where the updates go: the search so far every `every` (skipped while the
    /// receiver is full: a slow client gets fewer, never stale ones queued), then a last
    /// one with `done` set once the time is up.
    pub updates: tokio::sync::mpsc::Sender<AnalysisUpdate>,
}

/// What an infinite analysis found so far.
#[derive(Clone, Debug)]
pub struct AnalysisUpdate {
    /// The search at the root; `action` is its most visited move.
    pub answer: SearchAnswer,
    /// Visits the root already had when this analysis began, carried over from an
    /// earlier analysis of a game this one continues (0: it started from an empty tree).
    pub reused: u32,
    /// The last update: the time limit was reached and the search stopped.
    pub done: bool,
}

/// An alpha-beta proof of every move asked for by a request (`solve`).
#[derive(Clone, Debug)]
pub struct SolveJob {
    /// The game whose current position is searched.
    pub game: Game,
    /// Horizon in plies.
    pub depth: u32,
    /// Node cap of each search.
    pub nodes: u64,
}

/// The work one queue entry asks for.
enum Work {
    Search(SearchJob),
    Review(Box<Game>, ReviewConfig),
    Solve(SolveJob),
    Analysis(AnalysisJob, AnalysisSlot),
}

/// The answer to one queue entry.
enum Answer {
    Search(SearchAnswer),
    Review(Vec<MoveReview>),
    Solve(Option<Solution>),
    /// An analysis sends its own answers; this says it ended.
    Analysed,
}

/// One of the [`SearchPool::max_analyses`] places of an analysis, given back when it is
/// dropped: when the analysis ends, or with its job if no thread ever took it.
struct AnalysisSlot(Arc<AtomicUsize>);

impl Drop for AnalysisSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

struct Job {
    work: Work,
    reply: tokio::sync::oneshot::Sender<Answer>,
}

/// Why the pool did not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    /// Every search thread is busy and the queue is full.
    #[error("server busy: {0} searches are already queued; try again shortly")]
    Busy(usize),
    /// A search thread ended (it panicked); the pool has fewer threads now.
    #[error("the search failed on the server")]
    Failed,
    /// As many infinite analyses as may run at once are running.
    #[error(
        "server busy: the infinite analyses this server runs at once ({0}) are all running; stop one or try again later"
    )]
    AnalysesBusy(usize),
}

/// The trees of the infinite analyses that are not running, kept for the next ones. An
/// analysis takes the tree whose game its own continues if there is one, else any kept
/// tree (whose memory it reuses, starting afresh), else it makes one; it gives its tree
/// back when it ends. So there are never more trees than analyses ever ran at once, at
/// most [`SearchPool::max_analyses`].
#[derive(Default)]
struct AnalysisTrees(Mutex<Vec<ParallelSearch>>);

impl AnalysisTrees {
    /// A kept tree for an analysis of `game`: the one `game` continues (the same rules and
    /// start, and the moves it searched then more), else the one kept longest.
    fn take(&self, game: &Game) -> Option<ParallelSearch> {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let continued = kept.iter().position(|s| {
            let old = s.game();
            s.rules() == game.rules()
                && old.start() == game.start()
                && game.moves().starts_with(old.moves())
        });
        match continued {
            Some(i) => Some(kept.swap_remove(i)),
            None if kept.is_empty() => None,
            None => Some(kept.remove(0)),
        }
    }

    /// Keeps `search` for the analyses to come.
    fn give_back(&self, search: ParallelSearch) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(search);
    }
}

/// Search threads behind a bounded queue.
pub struct SearchPool {
    jobs: SyncSender<Job>,
    /// Kept so the queue stays open even with no thread (the tests' pool).
    _jobs_out: Arc<Mutex<Receiver<Job>>>,
    queue: usize,
    max_simulations: u32,
    /// Infinite analyses running or queued.
    analyses: Arc<AtomicUsize>,
    max_analyses: usize,
}

impl SearchPool {
    /// Starts one search thread per evaluator, taking jobs from a queue that holds at
    /// most `queue` waiting jobs. `max_simulations` sizes each thread's search tree: no
    /// job may ask for more. The searches are anytime PUCT with the constants of
    /// `trained` (the model's manifest, [`MctsConfig::anytime`]), and end at every
    /// position `tablebase` covers (for a game under the table's rules).
    pub fn new(
        evaluators: Vec<Box<dyn Evaluator>>,
        queue: usize,
        max_simulations: u32,
        trained: &MctsConfig,
        tablebase: Option<Arc<Tablebase>>,
    ) -> Self {
        let (jobs, rx) = sync_channel::<Job>(queue);
        let rx = Arc::new(Mutex::new(rx));
        // The engine's searcher, one thread each (the pool is the parallelism), with a
        // tree that holds a whole search and one evaluation cache for the pool.
        let tree_bytes = (max_simulations as usize + 64) * 2 * 128;
        let settings = EngineSettings {
            threads: 1,
            hash_mb: ((tree_bytes * 8 / 7) >> 20) + 1,
            ..EngineSettings::default()
        };
        let cache = Arc::new(EvalCache::with_bytes(cache_bytes(settings.hash_mb)));
        let analysis_cache = Arc::new(EvalCache::with_bytes(cache_bytes(ANALYSIS_HASH_MB)));
        let analysis_trees = Arc::new(AnalysisTrees::default());
        let threads = evaluators.len();
        for (i, evaluator) in evaluators.into_iter().enumerate() {
            let rx = Arc::clone(&rx);
            let w = Worker {
                cfg: trained.anytime(max_simulations, false),
                tablebase: tablebase.clone(),
                settings: settings.clone(),
                cache: cache.clone(),
                analysis_cache: analysis_cache.clone(),
                analysis_trees: analysis_trees.clone(),
                seed: i as u64,
            };
            std::thread::Builder::new()
                .name(format!("search-{i}"))
                .spawn(move || w.run(rx, evaluator))
                .expect("spawning a search thread");
        }
        SearchPool {
            jobs,
            _jobs_out: rx,
            queue,
            max_simulations,
            analyses: Arc::new(AtomicUsize::new(0)),
            max_analyses: threads.saturating_sub(1).max(1),
        }
    }

    /// The most infinite analyses that run at once: one less than the threads (at least
    /// one), so that another request always finds a thread.
    pub fn max_analyses(&self) -> usize {
        self.max_analyses
    }

    /// The most simulations a job may ask for.
    pub fn max_simulations(&self) -> u32 {
        self.max_simulations
    }

    /// Queues `work` (or turns it away when the queue is full); the receiver gets the
    /// answer.
    fn enqueue(&self, work: Work) -> Result<tokio::sync::oneshot::Receiver<Answer>, PoolError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        match self.jobs.try_send(Job { work, reply }) {
            Ok(()) => Ok(answer),
            Err(TrySendError::Full(_)) => Err(PoolError::Busy(self.queue)),
            Err(TrySendError::Disconnected(_)) => Err(PoolError::Failed),
        }
    }

    async fn submit(&self, work: Work) -> Result<Answer, PoolError> {
        self.enqueue(work)?.await.map_err(|_| PoolError::Failed)
    }

    /// Runs `job` on a search thread.
    pub async fn search(&self, mut job: SearchJob) -> Result<SearchAnswer, PoolError> {
        job.simulations = job.simulations.clamp(1, self.max_simulations);
        match self.submit(Work::Search(job)).await? {
            Answer::Search(a) => Ok(a),
            _ => Err(PoolError::Failed),
        }
    }

    /// Starts an infinite analysis on a search thread (turned away when
    /// [`Self::max_analyses`] already run, or when the queue is full). Its updates go to
    /// `job.updates`; the thread is free again once that channel's receiver is dropped or
    /// the job's time is up (a channel closed without a last update: the thread failed).
    pub fn analyse(&self, job: AnalysisJob) -> Result<(), PoolError> {
        let taken = self.analyses.fetch_add(1, Ordering::AcqRel);
        let slot = AnalysisSlot(self.analyses.clone());
        if taken >= self.max_analyses {
            return Err(PoolError::AnalysesBusy(self.max_analyses));
        }
        // Nobody waits for the answer: the updates are the answer.
        self.enqueue(Work::Analysis(job, slot)).map(drop)
    }

    /// Proves each legal move of `job`'s position on a search thread (see [`solve`]);
    /// `None` when the game is over.
    pub async fn solve(&self, job: SolveJob) -> Result<Option<Solution>, PoolError> {
        match self.submit(Work::Solve(job)).await? {
            Answer::Solve(s) => Ok(s),
            _ => Err(PoolError::Failed),
        }
    }

    /// Reviews every move of `game` on a search thread (see [`review`]).
    pub async fn review(
        &self,
        game: Game,
        cfg: ReviewConfig,
    ) -> Result<Vec<MoveReview>, PoolError> {
        match self.submit(Work::Review(Box::new(game), cfg)).await? {
            Answer::Review(r) => Ok(r),
            _ => Err(PoolError::Failed),
        }
    }
}

/// What a search thread needs to build its searcher.
struct Worker {
    cfg: MctsConfig,
    tablebase: Option<Arc<Tablebase>>,
    settings: EngineSettings,
    cache: Arc<EvalCache>,
    analysis_cache: Arc<EvalCache>,
    analysis_trees: Arc<AnalysisTrees>,
    seed: u64,
}

impl Worker {
    /// A searcher for `rules` with `hash_mb` of tree and `cache`, ending at every
    /// position the tables cover.
    fn searcher(
        &self,
        evaluator: &dyn Evaluator,
        rules: oware_core::game::RuleSet,
        hash_mb: usize,
        cache: &Arc<EvalCache>,
    ) -> ParallelSearch {
        let settings = EngineSettings {
            hash_mb,
            ..self.settings.clone()
        };
        let mut s = build_search(evaluator, &self.cfg, rules, &settings, cache, self.seed);
        s.set_tablebase(self.tablebase.clone());
        s
    }

    /// Takes jobs until the queue closes.
    fn run(self, rx: Arc<Mutex<Receiver<Job>>>, mut evaluator: Box<dyn Evaluator>) {
        let mut search: Option<ParallelSearch> = None;
        let mut prover: Option<AlphaBeta> = None;
        loop {
            // The lock is held only while waiting for the next job.
            let job = match rx.lock() {
                Ok(r) => match r.recv() {
                    Ok(j) => j,
                    Err(_) => return,
                },
                Err(_) => return,
            };
            let answer = match job.work {
                Work::Search(j) => {
                    let rules = j.game.rules();
                    if search.as_ref().is_some_and(|s| s.rules() != rules) {
                        search = None;
                    }
                    let s = search.get_or_insert_with(|| {
                        self.searcher(&*evaluator, rules, self.settings.hash_mb, &self.cache)
                    });
                    let t = j.policy_temperature.unwrap_or(self.cfg.policy_temperature);
                    Answer::Search(run_search(s, &j, t, self.seed))
                }
                Work::Analysis(j, slot) => {
                    let rules = j.game.rules();
                    let mut s = match self.analysis_trees.take(&j.game) {
                        Some(s) if s.rules() == rules => s,
                        _ => {
                            let cache = &self.analysis_cache;
                            self.searcher(&*evaluator, rules, ANALYSIS_HASH_MB, cache)
                        }
                    };
                    run_analysis(&mut s, &j, self.cfg.policy_temperature, self.seed);
                    // Back before the analysis's place is: the next one finds it.
                    self.analysis_trees.give_back(s);
                    drop(slot);
                    Answer::Analysed
                }
                Work::Review(game, cfg) => Answer::Review(review(&game, evaluator.as_mut(), &cfg)),
                Work::Solve(j) => {
                    let rules = j.game.rules();
                    if prover.as_ref().is_some_and(|a| a.rules() != rules) {
                        prover = None;
                    }
                    let ab = prover.get_or_insert_with(|| {
                        let mut ab = AlphaBeta::new(rules, SOLVE_TABLE_MB);
                        ab.set_tablebase(self.tablebase.clone());
                        ab
                    });
                    Answer::Solve(solve(&j.game, ab, j.depth, j.nodes))
                }
            };
            // The requester may have gone away; nothing to do then.
            let _ = job.reply.send(answer);
        }
    }
}

/// One search of `job` with policy temperature `policy_t`, until its simulations are
/// done or its time is up. Each request starts from an empty tree and the same random
/// stream: the answer depends on the request alone, never on what this thread searched
/// before, and its simulations are the ones asked for.
fn run_search(
    search: &mut ParallelSearch,
    job: &SearchJob,
    policy_t: f32,
    seed: u64,
) -> SearchAnswer {
    let started = Instant::now();
    let deadline = started + job.movetime;
    search.set_policy_temperature(policy_t);
    search.clear();
    search.reseed(seed);
    search.set_game(&job.game);
    search.run_until(Some(deadline), job.simulations, job.noise, |_| true);
    let action = search.choose(job.temperature);
    answer_of(search.tree(), &job.game, Some(action), started)
}

/// An infinite analysis of `job` with policy temperature `policy_t`: simulations until
/// the client goes away or the time is up, an update every `job.every`. When `job`'s game
/// continues the one `search` analysed last, it goes on from the subtree of the moves
/// played (its updates say how many visits it found there); otherwise it starts from an
/// empty tree and a fresh random stream, as [`run_search`] does.
fn run_analysis(search: &mut ParallelSearch, job: &AnalysisJob, policy_t: f32, seed: u64) {
    let started = Instant::now();
    let deadline = started + job.max_time;
    search.set_policy_temperature(policy_t);
    let reused = if search.set_game(&job.game) {
        search.tree().root_and_done().0.visits()
    } else {
        search.reseed(seed);
        0
    };
    let mut next = started + job.every;
    search.run_until(Some(deadline), u32::MAX, false, |tree| {
        if job.updates.is_closed() {
            return false;
        }
        let now = Instant::now();
        if now >= next {
            next = now + job.every;
            // A client that reads slowly misses updates rather than queueing them.
            let answer = answer_of(tree, &job.game, None, started);
            let _ = job.updates.try_send(AnalysisUpdate {
                answer,
                reused,
                done: false,
            });
        }
        now < deadline
    });
    let answer = answer_of(search.tree(), &job.game, None, started);
    let _ = job.updates.try_send(AnalysisUpdate {
        answer,
        reused,
        done: true,
    });
}

/// What the search of `tree` over `game`'s position found so far, with `action` its
/// move (`None`: the most visited); `started`: when it began.
fn answer_of(
    tree: &SharedTree,
    game: &Game,
    action: Option<usize>,
    started: Instant,
) -> SearchAnswer {
    let r = tree.result();
    let action = action.unwrap_or(r.best);
    let legal = game.legal_moves();
    // A search cut off before its first simulation has no visits; any legal move is
    // an answer then.
    let action = if legal & (1 << action) == 0 {
        legal.trailing_zeros().min(5) as usize
    } else {
        action
    };
    SearchAnswer {
        action,
        value: r.value.clamp(-1.0, 1.0),
        policy: r.policy,
        visits: r.visits,
        q: r.q,
        pv: tree.principal_variation(LINE_LEN),
        lines: top_lines(tree, &r.visits, legal),
        simulations: r.simulations,
        elapsed: started.elapsed(),
        depth: tree.depth(),
    }
}

/// The line of every legal root move, most visited first (an unvisited move's line is
/// the move alone), so the move played is always among them.
fn top_lines(tree: &SharedTree, visits: &[u32; 6], legal: u8) -> Vec<Vec<usize>> {
    let mut moves: Vec<usize> = (0..6).filter(|&a| legal & (1 << a) != 0).collect();
    moves.sort_by_key(|&a| std::cmp::Reverse(visits[a]));
    moves
        .into_iter()
        .map(|a| tree.line_from(a, LINE_LEN))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::game::{Position, RuleSet};
    use oware_core::search::UniformEvaluator;

    fn pool(threads: usize, queue: usize) -> SearchPool {
        let evs: Vec<Box<dyn Evaluator>> = (0..threads)
            .map(|_| Box::new(UniformEvaluator) as Box<dyn Evaluator>)
            .collect();
        SearchPool::new(evs, queue, 1000, &MctsConfig::default(), None)
    }

    fn job(fen: &str, sims: u32) -> SearchJob {
        SearchJob {
            game: Game::new(RuleSet::abapa(), fen.parse::<Position>().unwrap()),
            simulations: sims,
            noise: false,
            temperature: 0.0,
            policy_temperature: None,
            movetime: Duration::from_secs(10),
        }
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn finds_the_winning_capture_and_caps_simulations() {
        let p = pool(1, 4);
        // docs/rules.md example 4: C captures 11 and wins at once.
        let a = block_on(p.search(job("0-0-8-0-0-1-1-1-1-1-2-3-15-15-S", 5000))).unwrap();
        assert_eq!(a.action, 2, "{a:?}");
        assert_eq!(a.simulations, 1000, "capped at the pool's maximum");
        assert!(a.value > 0.5);
        assert_eq!(a.pv.first(), Some(&2));
    }

    #[test]
    fn an_analysis_searches_until_its_client_goes_and_then_frees_its_place() {
        let p = pool(2, 4);
        assert_eq!(p.max_analyses(), 1, "one thread is kept for other requests");
        let start = job("4-4-4-4-4-4-4-4-4-4-4-4-0-0-S", 1).game;
        let analysis = |secs| {
            let (updates, rx) = tokio::sync::mpsc::channel(4);
            let job = AnalysisJob {
                game: start.clone(),
                max_time: Duration::from_secs(secs),
                every: Duration::from_millis(20),
                updates,
            };
            (job, rx)
        };
        let (j, mut rx) = analysis(600);
        p.analyse(j).unwrap();
        let first = rx.blocking_recv().unwrap();
        let second = rx.blocking_recv().unwrap();
        assert!(!second.done);
        let (a, b) = (&first.answer, &second.answer);
        assert!(b.simulations > a.simulations, "{a:?} then {b:?}");
        assert_eq!(b.lines.len(), 6, "every legal move has its line");
        assert!(b.depth > 0 && b.elapsed > a.elapsed);
        // While it runs, a second one is turned away.
        let (j, _rx) = analysis(600);
        assert_eq!(p.analyse(j).err(), Some(PoolError::AnalysesBusy(1)));
        // The client goes away: the thread sees it and its place comes back.
        drop(rx);
        let t0 = Instant::now();
        let mut rx = loop {
            let (j, rx) = analysis(1);
            match p.analyse(j) {
                Ok(()) => break rx,
                Err(PoolError::AnalysesBusy(_)) if t0.elapsed() < Duration::from_secs(10) => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Err(e) => panic!("{e} after {:?}", t0.elapsed()),
            }
        };
        // That one stops by itself at its time limit, with a last update that says so.
        let mut last = None;
        while let Some(u) = rx.blocking_recv() {
            last = Some(u);
        }
        let last = last.expect("updates");
        assert!(last.done && last.answer.elapsed >= Duration::from_secs(1));
    }

    /// Runs an analysis of `game` for `every`·3 or so, then goes away; its updates.
    fn analyse_briefly(p: &SearchPool, game: &Game) -> Vec<AnalysisUpdate> {
        let t0 = Instant::now();
        loop {
            let (updates, mut rx) = tokio::sync::mpsc::channel(4);
            let job = AnalysisJob {
                game: game.clone(),
                max_time: Duration::from_millis(300),
                every: Duration::from_millis(20),
                updates,
            };
            match p.analyse(job) {
                Ok(()) => return std::iter::from_fn(|| rx.blocking_recv()).collect(),
                // The analysis before may still hold its place for a moment.
                Err(e) => assert!(t0.elapsed() < Duration::from_secs(10), "{e}"),
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn an_analysis_of_the_next_position_on_the_line_keeps_its_subtree() {
        // Three threads, two analyses at once: the next analysis may land on a thread
        // other than the one that searched before, and still finds the tree.
        let p = pool(3, 4);
        let mut game = job("4-4-4-4-4-4-4-4-4-4-4-4-0-0-S", 1).game;
        let first = analyse_briefly(&p, &game);
        let last = first.last().expect("updates");
        assert!(
            last.done && first.iter().all(|u| u.reused == 0),
            "an empty tree at first"
        );
        let best = last.answer.action;
        let child_visits = last.answer.visits[best];
        assert!(child_visits > 10, "{:?}", last.answer);
        // One step along the analysed line: the visits below that move are still there.
        game.play(best).unwrap();
        let next = analyse_briefly(&p, &game);
        let reused = next[0].reused;
        assert!(
            reused + 1 >= child_visits && reused <= child_visits + 1,
            "{reused} visits kept, the move had {child_visits}"
        );
        assert!(next.iter().all(|u| u.reused == reused));
        let root_visits: u32 = next.last().unwrap().answer.visits.iter().sum();
        assert!(root_visits >= reused + next.last().unwrap().answer.simulations - 1);
        // Another position (not a continuation) starts from an empty tree.
        let other = job("0-0-8-0-0-1-1-1-1-1-2-3-15-15-S", 1).game;
        assert!(analyse_briefly(&p, &other).iter().all(|u| u.reused == 0));
        // And a step back along the line is not a continuation either.
        let back = job("4-4-4-4-4-4-4-4-4-4-4-4-0-0-S", 1).game;
        assert!(analyse_briefly(&p, &back).iter().all(|u| u.reused == 0));
    }

    #[test]
    fn a_full_queue_turns_work_away() {
        // No thread takes jobs, so the queue of one is full after one job.
        let p = SearchPool::new(Vec::new(), 1, 100, &MctsConfig::default(), None);
        let start = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S";
        assert!(p.enqueue(Work::Search(job(start, 10))).is_ok());
        let second = p.enqueue(Work::Search(job(start, 10)));
        assert_eq!(second.err(), Some(PoolError::Busy(1)));
    }
}

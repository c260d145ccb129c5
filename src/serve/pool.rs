//! [`SearchPool`]: a fixed number of search threads, each with its own network copy,
//! fed from one bounded queue. A request that finds the queue full is turned away at
//! once (the caller answers HTTP 503) instead of piling up work.

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::game::Game;
use crate::player::analysis::{MoveReview, ReviewConfig, review};
use crate::player::mcts::{EngineSettings, build_search, cache_bytes};
use crate::search::Evaluator;
use crate::search::alphabeta::AlphaBeta;
use crate::search::cache::EvalCache;
use crate::search::mcts::{MctsConfig, ParallelSearch};
use crate::tablebase::Tablebase;

use super::puzzles::{Solution, solve};

/// The transposition table of each thread's alpha-beta (`solve`), in MiB.
const SOLVE_TABLE_MB: usize = 16;

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
}

/// The answer to one queue entry.
enum Answer {
    Search(SearchAnswer),
    Review(Vec<MoveReview>),
    Solve(Option<Solution>),
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
}

/// Search threads behind a bounded queue.
pub struct SearchPool {
    jobs: SyncSender<Job>,
    /// Kept so the queue stays open even with no thread (the tests' pool).
    _jobs_out: Arc<Mutex<Receiver<Job>>>,
    queue: usize,
    max_simulations: u32,
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
        for (i, evaluator) in evaluators.into_iter().enumerate() {
            let rx = Arc::clone(&rx);
            let w = Worker {
                cfg: trained.anytime(max_simulations, false),
                tablebase: tablebase.clone(),
                settings: settings.clone(),
                cache: cache.clone(),
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
        }
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
    seed: u64,
}

impl Worker {
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
                        let (cfg, st) = (&self.cfg, &self.settings);
                        let mut s =
                            build_search(&*evaluator, cfg, rules, st, &self.cache, self.seed);
                        s.set_tablebase(self.tablebase.clone());
                        s
                    });
                    let t = j.policy_temperature.unwrap_or(self.cfg.policy_temperature);
                    Answer::Search(run_search(s, &j, t, self.seed))
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
    search.run(job.simulations, job.noise, |_| Instant::now() < deadline);
    let r = search.result();
    let legal = job.game.legal_moves();
    let mut action = search.choose(job.temperature);
    // A search cut off before its first simulation has no visits; any legal move is
    // an answer then.
    if legal & (1 << action) == 0 {
        action = legal.trailing_zeros().min(5) as usize;
    }
    SearchAnswer {
        action,
        value: r.value.clamp(-1.0, 1.0),
        policy: r.policy,
        visits: r.visits,
        q: r.q,
        pv: search.tree().principal_variation(12),
        lines: top_lines(search, &r.visits, legal),
        simulations: r.simulations,
        elapsed: started.elapsed(),
    }
}

/// The line of every legal root move, most visited first (an unvisited move's line is
/// the move alone), so the move played is always among them.
fn top_lines(search: &ParallelSearch, visits: &[u32; 6], legal: u8) -> Vec<Vec<usize>> {
    let mut moves: Vec<usize> = (0..6).filter(|&a| legal & (1 << a) != 0).collect();
    moves.sort_by_key(|&a| std::cmp::Reverse(visits[a]));
    moves
        .into_iter()
        .map(|a| search.tree().line_from(a, 12))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Position, RuleSet};
    use crate::search::UniformEvaluator;

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
    fn a_full_queue_turns_work_away() {
        // No thread takes jobs, so the queue of one is full after one job.
        let p = SearchPool::new(Vec::new(), 1, 100, &MctsConfig::default(), None);
        let start = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S";
        assert!(p.enqueue(Work::Search(job(start, 10))).is_ok());
        let second = p.enqueue(Work::Search(job(start, 10)));
        assert_eq!(second.err(), Some(PoolError::Busy(1)));
    }
}

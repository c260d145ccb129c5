//! `ParallelSearch`: one game's tree searched by several threads at once, each sending
//! the network a batch of leaves (as lc0 does on a CPU).
//!
//! - **Leaf batching with virtual loss.** A worker descends up to `batch` times and marks
//!   each edge it takes with a virtual loss (a visit counted as a loss for the mover),
//!   so that the next descent, its own or the other thread's, turns elsewhere; it
//!   evaluates the leaves in one call, then turns each virtual loss into the leaf's
//!   value. A descent that meets a leaf already in flight (a collision) takes its
//!   virtual loss back and ends the batch early.
//! - **Threads without a lock.** The workers share an [`AtomicTree`]: they descend, add
//!   nodes and back up at the same time. Each has its own evaluator (the network's
//!   buffers are per thread); they share an evaluation cache if their evaluators wrap
//!   one. With one thread the search is deterministic: the same position, budget and
//!   batch give the same tree.
//! - **A tree bounded in memory that never stops growing.** When a batch would not fit,
//!   the workers pause (a write lock they otherwise share for reading) and one of them
//!   drops the least-visited subtrees ([`AtomicTree::prune`]): their edges keep their
//!   visits and values in the parent, and a later visit creates the node again (the
//!   cache answers its evaluation). A search can run for minutes.
//! - **A controller.** The calling thread is the first worker and watches the search
//!   between its batches: a callback, at most every millisecond, decides whether to go on
//!   (clock, `stop`, info lines). The other workers are threads of a [`WorkerPool`] kept
//!   between searches: spawning them cost 60–100 µs a search, a tenth of `go movetime 1`.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

use super::atomic::{AtomicTree, CLAIMED, EXPANDED, NewChild, TERMINAL, UNEXPANDED};
use super::batch::{most_visited_line, root_result};
use super::pool::WorkerPool;
use super::root::{Puct, RootState, Schedules, SearchRule, Start};
use super::root::{RootStats, sample_by_visits};
use super::tree::NodeId;
use super::{Algorithm, MctsConfig, Node};
use crate::game::{Game, Position, RuleSet};
use crate::rng::Rng;
use crate::search::{Evaluation, Evaluator};
use crate::tablebase::Tablebase;

/// The virtual loss of a simulation in flight, in value units (a loss for the mover).
pub const VIRTUAL_LOSS: f32 = 1.0;
/// How often (at most) the controller looks at the search.
const POLL: Duration = Duration::from_millis(1);

/// How a descent ended.
enum Descent {
    /// A new leaf (or the unevaluated root) to evaluate; its path carries a virtual loss.
    Leaf(NodeId),
    /// A finished game, backed up already.
    Terminal,
    /// A leaf already in flight: nothing was changed.
    Collision,
    /// No room for the new leaf: the tree must be pruned.
    Full,
}

/// The search's counters, shared by the workers.
#[derive(Default)]
struct Counts {
    /// Simulations started (finished or in flight), against the budget.
    started: AtomicU32,
    /// Simulations finished.
    done: AtomicU32,
    collisions: AtomicU64,
    prunes: AtomicU32,
    batches: AtomicU64,
    leaves: AtomicU64,
    /// Edges on the paths of the evaluated leaves.
    path_edges: AtomicU64,
    /// The deepest new leaf, in plies below the root.
    depth: AtomicU32,
}

/// The tree and what the workers and the controller share.
pub struct SharedTree {
    cfg: MctsConfig,
    rules: RuleSet,
    tb: Option<Arc<Tablebase>>,
    tree: RwLock<AtomicTree>,
    game: Game,
    target: u32,
    counts: Counts,
    /// The root's noise state and the search's generator (drawn from when a search
    /// begins with noise and when a move is sampled; the state is read when the root is
    /// expanded).
    root: Mutex<(RootState, Rng)>,
    prune_wanted: AtomicBool,
    halt: AtomicBool,
    running: AtomicUsize,
    batch: usize,
    /// When the search in progress must end (`None`: when its `watch` says): the workers
    /// stop at it by themselves.
    deadline: Option<Instant>,
}

/// One worker: its evaluator and its buffers (kept between searches).
struct Worker {
    evaluator: Box<dyn Evaluator>,
    positions: Vec<Position>,
    legal: Vec<u8>,
    leaves: Vec<NodeId>,
    paths: Vec<Vec<(NodeId, u8)>>,
    out: Vec<Evaluation>,
    /// This worker's times in the last search (`ParallelSearch::work_spans`).
    span: WorkSpan,
}

/// One worker's times in a search: what it spent outside its batches is the search's
/// fixed cost (`oware bench engine --budgets` reports it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkSpan {
    /// When the worker began its part of the search (a pool thread: once woken).
    pub entered: Option<Instant>,
    /// When it began its first batch below the evaluated root, and ended its last
    /// batch (None if it ran none).
    pub work: Option<(Instant, Instant)>,
}

/// A game's tree searched by one worker per evaluator.
pub struct ParallelSearch {
    shared: SharedTree,
    workers: Vec<Worker>,
    /// The threads of every worker but the first (which runs on the calling thread).
    pool: WorkerPool,
}

/// Counters of a search, for reports and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeCounters {
    /// Nodes in the tree.
    pub nodes: usize,
    /// Nodes it can hold.
    pub capacity: usize,
    /// Descents that met a leaf in flight.
    pub collisions: u64,
    /// Times the tree was pruned to make room.
    pub prunes: u32,
    /// Evaluator calls.
    pub batches: u64,
    /// Leaves those calls carried.
    pub leaves: u64,
    /// Edges on their paths (÷ leaves: the mean depth of a new leaf).
    pub path_edges: u64,
}

impl SharedTree {
    fn read(&self) -> RwLockReadGuard<'_, AtomicTree> {
        self.tree.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Simulations finished in the current (or last) search.
    pub fn done(&self) -> u32 {
        self.counts.done.load(Ordering::Relaxed)
    }

    /// A copy of the root node and the simulations finished so far.
    pub fn root_and_done(&self) -> (Node, u32) {
        let t = self.read();
        (t.snapshot(t.root()), self.done())
    }

    /// The result so far.
    pub fn result(&self) -> RootStats {
        let (root, done) = self.root_and_done();
        let raw = self.raw_prior();
        let state = self.root.lock().unwrap_or_else(|e| e.into_inner());
        root_result(&self.cfg, &Puct, &root, raw, &state.0, done)
    }

    /// The root's priors as the evaluator gave them, without root noise.
    pub fn raw_prior(&self) -> [f32; 6] {
        self.read().root_raw_prior()
    }

    /// The most-visited line from the root, at most `max_len` moves.
    pub fn principal_variation(&self, max_len: usize) -> Vec<usize> {
        let t = self.read();
        most_visited_line(t.root(), max_len, |id| t.node(id).snapshot())
    }

    /// The line that starts with `action` at the root and then follows the most visited
    /// moves, at most `max_len` moves (the engine's "top lines", one per root move).
    pub fn line_from(&self, action: usize, max_len: usize) -> Vec<usize> {
        if max_len == 0 {
            return Vec::new();
        }
        let t = self.read();
        let mut line = vec![action];
        match t.node(t.root()).child(action) {
            0 => {}
            child => line.extend(most_visited_line(child, max_len - 1, |id| {
                t.node(id).snapshot()
            })),
        }
        line
    }

    /// The deepest leaf this search evaluated, in plies below the root (kept as the
    /// search goes: no walk over the tree).
    pub fn depth(&self) -> u32 {
        self.counts.depth.load(Ordering::Relaxed)
    }

    /// Nodes in the tree, its capacity, and this search's counters.
    pub fn counters(&self) -> TreeCounters {
        let (nodes, capacity) = {
            let t = self.read();
            (t.len(), t.capacity())
        };
        let c = &self.counts;
        TreeCounters {
            nodes,
            capacity,
            collisions: c.collisions.load(Ordering::Relaxed),
            prunes: c.prunes.load(Ordering::Relaxed),
            batches: c.batches.load(Ordering::Relaxed),
            leaves: c.leaves.load(Ordering::Relaxed),
            path_edges: c.path_edges.load(Ordering::Relaxed),
        }
    }

    /// Takes up to `want` simulations of the budget at once (one update of a counter
    /// both workers write, instead of one per simulation); returns how many, 0 when the
    /// budget is spent. What a batch does not use goes back with [`SharedTree::give_back`].
    fn take(&self, want: u32) -> u32 {
        let s = &self.counts.started;
        let before = s.fetch_add(want, Ordering::Relaxed);
        let got = want.min(self.target.saturating_sub(before));
        if got < want {
            s.fetch_sub(want - got, Ordering::Relaxed);
        }
        got
    }

    /// Returns `n` simulations taken and not run.
    fn give_back(&self, n: u32) {
        if n > 0 {
            self.counts.started.fetch_sub(n, Ordering::Relaxed);
        }
    }

    /// One descent from the root. Each edge carries the descent's virtual loss from the
    /// moment it is taken (not once the leaf is found), so a descent of the other thread
    /// right behind this one already turns elsewhere; a descent that finds no leaf takes
    /// its virtual loss back.
    fn descend(&self, t: &AtomicTree, path: &mut Vec<(NodeId, u8)>) -> Descent {
        path.clear();
        let root = t.root();
        let mut id = root;
        loop {
            let node = t.node(id);
            match node.kind() {
                TERMINAL => {
                    t.backup(path, id, node.value(), VIRTUAL_LOSS);
                    return Descent::Terminal;
                }
                UNEXPANDED if id == root && t.claim_root() => return Descent::Leaf(id),
                // Below the root an unexpanded node is always in flight.
                UNEXPANDED | CLAIMED => {
                    t.remove_virtual(path, VIRTUAL_LOSS);
                    return Descent::Collision;
                }
                _ => {}
            }
            let a = node.puct_select(self.cfg.c_puct, self.cfg.fpu_reduction);
            path.push((id, a as u8));
            t.add_virtual_edge(id, a as u8, VIRTUAL_LOSS);
            let child = node.child(a);
            if child != 0 {
                id = child;
                continue;
            }
            let tb = self.tb.as_deref();
            match t.add_child(self.rules, id, a, path, self.game.history(), tb) {
                NewChild::Created(c) if t.node(c).kind() == TERMINAL => {
                    t.backup(path, c, t.node(c).value(), VIRTUAL_LOSS);
                    return Descent::Terminal;
                }
                NewChild::Created(c) => return Descent::Leaf(c),
                NewChild::Existing(c) => id = c,
                NewChild::Full => {
                    t.remove_virtual(path, VIRTUAL_LOSS);
                    return Descent::Full;
                }
            }
        }
    }

    /// Prunes the tree if it is still short of room, with every worker paused.
    fn prune(&self, room: usize) {
        let mut t = self.tree.write().unwrap_or_else(|e| e.into_inner());
        if !t.has_room(room) {
            let keep = t.capacity() / 2;
            t.prune(keep);
            self.counts.prunes.fetch_add(1, Ordering::Relaxed);
        }
        self.prune_wanted.store(false, Ordering::Relaxed);
    }
}

impl Worker {
    /// Runs batches until the budget is spent or the search is halted. The worker on the
    /// calling thread carries the controller's `watch`: called between batches, at most
    /// every [`POLL`], it halts the search when it returns false.
    fn run(&mut self, t: &SharedTree, mut watch: Option<&mut dyn FnMut(&SharedTree) -> bool>) {
        let batch = t.batch.max(1);
        if self.paths.len() < batch {
            self.paths.resize_with(batch, || Vec::with_capacity(64));
        }
        // `running` counts this worker until it returns, or unwinds.
        struct Leave<'a>(&'a AtomicUsize);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::AcqRel);
            }
        }
        let _leave = Leave(&t.running);
        let entered = Instant::now();
        self.span = WorkSpan {
            entered: Some(entered),
            work: None,
        };
        let mut next_watch = entered + POLL;
        while !t.halt.load(Ordering::Relaxed) {
            // One clock reading a batch (about 20 ns against a batch's tens of µs).
            let now = Instant::now();
            if t.deadline.is_some_and(|d| now >= d) {
                break;
            }
            if let Some(w) = watch.as_mut().filter(|_| now >= next_watch) {
                next_watch = now + POLL;
                if !w(t) {
                    t.halt.store(true, Ordering::Relaxed);
                    break;
                }
            }
            if t.prune_wanted.load(Ordering::Relaxed) {
                let capacity = t.read().capacity();
                t.prune(batch.min(capacity / 4).max(1));
            }
            let tree = t.read();
            // The root's own first evaluation is part of the start, not of the work.
            let below_root = self.span.work.is_some() || tree.node(tree.root()).kind() == EXPANDED;
            let (n, more) = self.gather(t, &tree, batch);
            if n > 0 {
                self.evaluate_and_backup(t, &tree, n);
                if below_root {
                    let first = self.span.work.map_or(now, |(first, _)| first);
                    self.span.work = Some((first, Instant::now()));
                }
            }
            drop(tree);
            if !more {
                break;
            }
            if n == 0 {
                std::thread::yield_now();
            }
        }
    }

    /// Takes up to `batch` leaves. Returns how many, and whether there is more to do.
    /// The first collision ends the batch (measured: giving collided paths a virtual
    /// loss too and going on, as lc0 can, made two threads slower here: the tree is
    /// narrow, and the detours cost whole descents).
    fn gather(&mut self, t: &SharedTree, tree: &AtomicTree, batch: usize) -> (usize, bool) {
        self.positions.clear();
        self.legal.clear();
        self.leaves.clear();
        if tree.node(tree.root()).kind() == TERMINAL {
            return (0, false);
        }
        // A batch never needs more than a quarter of the tree, so a pruned tree always
        // has room for the next one.
        let batch = batch.min(tree.capacity() / 4).max(1);
        if !tree.has_room(batch) {
            t.prune_wanted.store(true, Ordering::Relaxed);
            return (0, true);
        }
        // At most `batch` descents: a tree whose every line ends in a finished game
        // would otherwise keep a worker here for ever, deaf to the halt flag.
        let claimed = t.take(batch as u32);
        if claimed == 0 {
            return (0, false);
        }
        // The shared counters are written once a batch, not once a descent: both
        // workers write them, and each write takes the line from the other core.
        let (mut edges, mut deepest, mut finished) = (0u64, 0u32, 0u32);
        for _ in 0..claimed {
            let path = &mut self.paths[self.leaves.len()];
            match t.descend(tree, path) {
                Descent::Leaf(id) => {
                    edges += path.len() as u64;
                    deepest = deepest.max(path.len() as u32);
                    let n = tree.node(id).snapshot();
                    self.positions.push(n.pos);
                    self.legal.push(n.legal);
                    self.leaves.push(id);
                }
                Descent::Terminal => finished += 1,
                Descent::Collision => {
                    t.counts.collisions.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                Descent::Full => {
                    t.prune_wanted.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
        let n = self.leaves.len();
        t.give_back(claimed - n as u32 - finished);
        let c = &t.counts;
        if finished > 0 {
            c.done.fetch_add(finished, Ordering::Relaxed);
        }
        if n > 0 {
            c.batches.fetch_add(1, Ordering::Relaxed);
            c.leaves.fetch_add(n as u64, Ordering::Relaxed);
            c.path_edges.fetch_add(edges, Ordering::Relaxed);
            c.depth.fetch_max(deepest, Ordering::Relaxed);
        }
        (n, true)
    }

    /// Evaluates the gathered leaves, expands them and backs them up.
    fn evaluate_and_backup(&mut self, t: &SharedTree, tree: &AtomicTree, n: usize) {
        if self.out.len() < n {
            self.out.resize(n, Evaluation::default());
        }
        self.evaluator
            .evaluate(t.rules, &self.positions, &self.legal, &mut self.out[..n]);
        for e in &mut self.out[..n] {
            super::policy::temper(&mut e.priors, t.cfg.policy_temperature);
        }
        let mut done = 0;
        for k in 0..n {
            let id = self.leaves[k];
            let path = &self.paths[k];
            if path.is_empty() {
                // The root: its noise (if due) goes into its priors before it is open.
                let mut root = tree.node(id).snapshot();
                root.prior = super::tree::legal_priors(root.legal, &self.out[k]);
                let mut g = t.root.lock().unwrap_or_else(|e| e.into_inner());
                Puct.root_expanded(&t.cfg, &mut root, &mut g.0);
                tree.expand(id, &self.out[k], Some(&root.prior));
                // The root's evaluation is not a simulation.
                t.counts.started.fetch_sub(1, Ordering::Relaxed);
            } else {
                tree.expand(id, &self.out[k], None);
                let v = tree.node(id).value();
                tree.backup(path, id, v, VIRTUAL_LOSS);
                done += 1;
            }
        }
        if done > 0 {
            t.counts.done.fetch_add(done, Ordering::Relaxed);
        }
    }
}

impl ParallelSearch {
    /// A search under `rules` and `cfg` (PUCT) with one worker per evaluator, each
    /// sending batches of up to `batch` leaves, in a tree of at most `nodes` nodes.
    pub fn new(
        cfg: MctsConfig,
        rules: RuleSet,
        evaluators: Vec<Box<dyn Evaluator>>,
        batch: usize,
        nodes: usize,
        seed: u64,
    ) -> ParallelSearch {
        assert!(
            !evaluators.is_empty(),
            "a search needs at least one evaluator"
        );
        let cfg = MctsConfig {
            algorithm: Algorithm::Puct,
            ..cfg
        };
        let game = Game::new(rules, Position::start());
        let mut tree = AtomicTree::new(nodes.max(64));
        tree.reset(*game.position(), rules);
        let workers: Vec<Worker> = evaluators
            .into_iter()
            .map(|evaluator| Worker {
                evaluator,
                positions: Vec::with_capacity(batch),
                legal: Vec::with_capacity(batch),
                leaves: Vec::with_capacity(batch),
                paths: Vec::new(),
                out: Vec::new(),
                span: WorkSpan::default(),
            })
            .collect();
        ParallelSearch {
            shared: SharedTree {
                cfg,
                rules,
                tb: None,
                tree: RwLock::new(tree),
                game,
                target: 0,
                counts: Counts::default(),
                root: Mutex::new((RootState::default(), Rng::new(seed))),
                prune_wanted: AtomicBool::new(false),
                halt: AtomicBool::new(false),
                running: AtomicUsize::new(0),
                deadline: None,
                batch: batch.max(1),
            },
            pool: WorkerPool::new(workers.len() - 1),
            workers,
        }
    }

    /// Ends the search at every position whose result `tb` proves, with that result
    /// (unproven entries are searched as usual; tables of other rules are ignored).
    pub fn set_tablebase(&mut self, tb: Option<Arc<Tablebase>>) {
        self.shared.tb = tb.filter(|t| t.rules() == self.shared.rules);
    }

    /// The rules.
    pub fn rules(&self) -> RuleSet {
        self.shared.rules
    }

    /// The settings.
    pub fn config(&self) -> &MctsConfig {
        &self.shared.cfg
    }

    /// Sets the policy softmax temperature of the positions evaluated from now on;
    /// those already in the tree keep theirs, so call it before [`Self::clear`].
    pub fn set_policy_temperature(&mut self, t: f32) {
        self.shared.cfg.policy_temperature = t;
    }

    /// Worker threads.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Leaves per batch.
    pub fn batch(&self) -> usize {
        self.shared.batch
    }

    /// The tree and its readings.
    pub fn tree(&self) -> &SharedTree {
        &self.shared
    }

    /// The game at the root.
    pub fn game(&self) -> &Game {
        &self.shared.game
    }

    fn tree_mut(&mut self) -> &mut AtomicTree {
        self.shared
            .tree
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Puts `game` at the root. When it continues the game at the root (the same start
    /// and more moves), the subtree of the moves played is kept and the rest freed;
    /// otherwise the tree starts afresh. Returns whether a searched subtree was kept.
    pub fn set_game(&mut self, game: &Game) -> bool {
        let rules = self.shared.rules;
        let old = &self.shared.game;
        let continues = old.start() == game.start()
            && game.moves().starts_with(old.moves())
            && game.rules() == rules;
        let extra: Vec<usize> = if continues {
            game.moves()[old.moves().len()..]
                .iter()
                .map(|&(_, a)| a as usize)
                .collect()
        } else {
            Vec::new()
        };
        let mut replay = self.shared.game.clone();
        let mut kept = continues;
        for a in extra {
            if replay.play(a).is_err() {
                kept = false;
                break;
            }
            let pos = *replay.position();
            if kept && !self.tree_mut().advance(a, pos, rules) {
                kept = false;
            }
        }
        self.shared.game = game.clone();
        let t = self.tree_mut();
        if kept && t.node(t.root()).pos() == *game.position() {
            return t.node(t.root()).snapshot().visits() > 0;
        }
        t.reset(*game.position(), rules);
        false
    }

    /// Forgets the tree (a new game).
    pub fn clear(&mut self) {
        let g = Game::new(self.shared.rules, Position::start());
        let rules = self.shared.rules;
        self.tree_mut().reset(*g.position(), rules);
        self.shared.game = g;
    }

    /// Restarts the root's random stream (noise, sampled moves) from `seed`, so a search
    /// after [`ParallelSearch::clear`] is the same as the first one of a new searcher.
    pub fn reseed(&mut self, seed: u64) {
        if let Ok(mut g) = self.shared.root.lock() {
            *g = (RootState::default(), Rng::new(seed));
        }
    }

    /// Searches the root for at most `simulations` more simulations (reused visits not
    /// counted), with Dirichlet noise at the root if `noise`. Between batches the workers
    /// look at a halt flag; `watch` is called on the calling thread (the first worker)
    /// between its batches, at most every millisecond, and the search ends when it
    /// returns false. Returns when every worker has stopped.
    /// A finished game is not searched.
    pub fn run(&mut self, simulations: u32, noise: bool, watch: impl FnMut(&SharedTree) -> bool) {
        self.run_until(None, simulations, noise, watch)
    }

    /// [`ParallelSearch::run`] that also ends at `deadline`: the workers look at the
    /// clock between batches, so a search of a millisecond takes about a millisecond.
    pub fn run_until(
        &mut self,
        deadline: Option<Instant>,
        simulations: u32,
        noise: bool,
        mut watch: impl FnMut(&SharedTree) -> bool,
    ) {
        if self.shared.game.is_over() || !self.begin(simulations, noise) {
            return;
        }
        self.shared.deadline = deadline;
        let shared = &self.shared;
        if !watch(shared) {
            return;
        }
        shared.halt.store(false, Ordering::Relaxed);
        shared.running.store(self.workers.len(), Ordering::Release);
        let (first, rest) = self.workers.split_first_mut().expect("one worker or more");
        let each = |w: &mut Worker| w.run(shared, None);
        self.pool.scope(rest, &each, || {
            // Whatever ends this thread's part (a panic too) halts the others.
            struct Halt<'a>(&'a AtomicBool);
            impl Drop for Halt<'_> {
                fn drop(&mut self) {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
            let _halt = Halt(&shared.halt);
            first.run(shared, Some(&mut watch));
            // The other workers end within a batch of this one, unless the budget they
            // gave back keeps them going: `watch` still watches them.
            let mut next_watch = Instant::now() + POLL;
            while shared.running.load(Ordering::Acquire) > 0 {
                let now = Instant::now();
                if deadline.is_some_and(|d| now >= d) {
                    break;
                }
                if now >= next_watch && !shared.halt.load(Ordering::Relaxed) {
                    next_watch = now + POLL;
                    if !watch(shared) {
                        shared.halt.store(true, Ordering::Relaxed);
                    }
                }
                std::thread::yield_now();
            }
        });
    }

    /// Resets the counters and prepares the root (noise). False if the root is over.
    fn begin(&mut self, simulations: u32, noise: bool) -> bool {
        let legal = self.shared.game.legal_moves();
        let sh = &mut self.shared;
        sh.target = simulations.max(1);
        sh.counts = Counts::default();
        sh.prune_wanted.store(false, Ordering::Relaxed);
        let t = sh.tree.get_mut().unwrap_or_else(|e| e.into_inner());
        let r = t.root();
        if t.node(r).kind() == TERMINAL {
            return false;
        }
        let mut root = t.snapshot(r);
        root.prior = t.root_raw_prior();
        let g = sh.root.get_mut().unwrap_or_else(|e| e.into_inner());
        g.0 = RootState::default();
        let (state, rng) = (&mut g.0, &mut g.1);
        let start = Start {
            root: &mut root,
            legal,
            simulations: sh.target,
            noise,
            rng,
            state,
        };
        Puct.begin(&sh.cfg, &mut Schedules::default(), start);
        t.set_root_priors(&root.prior);
        true
    }

    /// Each worker's times in the last search (the calling thread's first). What a call
    /// spends outside their batches (waking, the tree's reset, the root's first
    /// evaluation, stopping) is the search's fixed cost.
    pub fn work_spans(&self) -> impl Iterator<Item = WorkSpan> + '_ {
        self.workers.iter().map(|w| w.span)
    }

    /// The result of the last search.
    pub fn result(&self) -> RootStats {
        self.shared.result()
    }

    /// A move from the last search: with `temperature` > 0 a sample ∝ N^(1/T) over the
    /// root's visits (from the search's generator), else the most-visited move.
    pub fn choose(&mut self, temperature: f32) -> usize {
        let r = self.result();
        let g = self
            .shared
            .root
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        sample_by_visits(&r, temperature, &mut g.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::UniformEvaluator;

    fn search(threads: usize, batch: usize, nodes: usize) -> ParallelSearch {
        let evs: Vec<Box<dyn Evaluator>> = (0..threads)
            .map(|_| Box::new(UniformEvaluator) as Box<dyn Evaluator>)
            .collect();
        let cfg = MctsConfig::default().anytime(1, true);
        ParallelSearch::new(cfg, RuleSet::abapa(), evs, batch, nodes, 7)
    }

    #[test]
    fn a_deadline_ends_the_search_without_the_watch() {
        for threads in [1, 2] {
            let mut s = search(threads, 8, 1 << 16);
            s.set_game(&Game::new(RuleSet::abapa(), Position::start()));
            // Passed before the search starts: no worker runs a batch.
            let past = Instant::now() - Duration::from_millis(1);
            s.run_until(Some(past), 10_000, false, |_| true);
            assert_eq!(s.tree().root_and_done().1, 0, "{threads} threads");
            // Far away: the budget ends it, exactly, as without a deadline.
            let far = Instant::now() + Duration::from_secs(3600);
            s.run_until(Some(far), 3_000, false, |_| true);
            assert_eq!(s.tree().root_and_done().1, 3_000, "{threads} threads");
            // Soon, with a watch that never stops it and a budget it cannot spend: the
            // deadline alone ends it, once every worker has seen the clock.
            let soon = Instant::now() + Duration::from_millis(20);
            s.run_until(Some(soon), u32::MAX, false, |_| true);
            assert!(Instant::now() >= soon);
            let done = s.tree().root_and_done().1;
            assert!(done > 0 && done < u32::MAX, "{threads} threads: {done}");
        }
    }

    /// Uniform answers that note when each call ended and how many positions it had.
    struct Noting(Arc<Mutex<Vec<(Instant, usize)>>>);

    impl Evaluator for Noting {
        fn evaluate(&mut self, r: RuleSet, p: &[Position], l: &[u8], out: &mut [Evaluation]) {
            UniformEvaluator.evaluate(r, p, l, out);
            self.0.lock().unwrap().push((Instant::now(), p.len()));
        }

        fn name(&self) -> String {
            "noting".into()
        }
    }

    #[test]
    fn work_spans_begin_after_the_roots_evaluation_and_order_their_times() {
        for threads in [1, 2] {
            let calls = Arc::new(Mutex::new(Vec::new()));
            let evs: Vec<Box<dyn Evaluator>> = (0..threads)
                .map(|_| Box::new(Noting(calls.clone())) as Box<dyn Evaluator>)
                .collect();
            let cfg = MctsConfig::default().anytime(1, true);
            let mut s = ParallelSearch::new(cfg, RuleSet::abapa(), evs, 8, 1 << 16, 7);
            let t0 = Instant::now();
            s.run(4_000, false, |_| true);
            let t1 = Instant::now();
            // The first call is the root's, alone; every worker's work begins after it.
            let (root_done, n) = calls.lock().unwrap()[0];
            assert_eq!(n, 1, "the root is evaluated alone");
            let spans: Vec<WorkSpan> = s.work_spans().collect();
            assert_eq!(spans.len(), threads);
            let (entered, _) = (spans[0].entered.unwrap(), spans[0].work.unwrap());
            assert!(t0 <= entered && entered <= root_done, "{spans:?}");
            for w in &spans {
                if let (Some(e), Some((b, x))) = (w.entered, w.work) {
                    assert!(
                        t0 <= e && root_done <= b && e <= b && b < x && x <= t1,
                        "{w:?}"
                    );
                }
            }
            // Searched again from the evaluated root: the work starts with the first batch
            // (one thread: with two, the other's call may come first).
            if threads > 1 {
                continue;
            }
            calls.lock().unwrap().clear();
            s.run(1_000, false, |_| true);
            let first_call = calls.lock().unwrap()[0].0;
            let w = s.work_spans().next().unwrap();
            assert!(w.work.unwrap().0 < first_call, "{w:?}");
        }
    }

    #[test]
    fn a_tiny_tree_with_a_big_batch_still_searches() {
        let mut s = search(2, 1024, 64);
        s.run(5000, false, |_| true);
        let (root, done) = s.tree().root_and_done();
        assert_eq!(done, 5000);
        assert_eq!(root.visits(), 5000);
        let c = s.tree().counters();
        assert!(c.prunes > 0 && c.nodes <= c.capacity, "{c:?}");
    }

    /// A searcher over the skewed test evaluator with policy temperature `t`.
    fn skewed_search(t: f32) -> ParallelSearch {
        let cfg = MctsConfig {
            policy_temperature: t,
            ..MctsConfig::default().anytime(1, true)
        };
        let evs: Vec<Box<dyn Evaluator>> = vec![Box::new(crate::search::mcts::tests::Skewed)];
        ParallelSearch::new(cfg, RuleSet::abapa(), evs, 4, 1000, 7)
    }

    /// Runs `s` and checks that its root's priors are the skewed ones at temperature `t`.
    fn assert_root_tempered(s: &mut ParallelSearch, t: f32) {
        use crate::search::mcts::tests::{SKEW, tempered};
        s.run(100, false, |_| true);
        let got = s.tree().raw_prior();
        let want = tempered(SKEW, t);
        for a in 0..6 {
            assert!(
                (got[a] - want[a]).abs() < 1e-5,
                "t {t}: {got:?} vs {want:?}"
            );
        }
    }

    #[test]
    fn the_policy_temperature_reaches_the_shared_tree() {
        for t in [1.0f32, 2.0] {
            assert_root_tempered(&mut skewed_search(t), t);
        }
    }

    #[test]
    fn a_policy_temperature_set_between_searches_reaches_the_next() {
        let mut s = skewed_search(2.0);
        for t in [1.0f32, 2.0, 1.0] {
            s.set_policy_temperature(t);
            s.clear();
            assert_root_tempered(&mut s, t);
        }
    }

    #[test]
    fn root_noise_and_temperature_follow_the_seed() {
        let run = || {
            let mut s = search(1, 8, 10_000);
            s.run(200, true, |_| true);
            let root = s.tree().root_and_done().0;
            let picks: Vec<usize> = (0..20).map(|_| s.choose(1.0)).collect();
            (root.prior, s.tree().raw_prior(), picks, s.result().visits)
        };
        let (prior, raw, picks, visits) = run();
        // Uniform raw priors at the start; the noise moved them.
        assert!(raw.iter().all(|&p| (p - 1.0 / 6.0).abs() < 1e-6), "{raw:?}");
        assert!(
            prior.iter().zip(&raw).any(|(p, r)| (p - r).abs() > 1e-3),
            "{prior:?}"
        );
        assert!((prior.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        // Sampling by visits picks visited moves, and not always the same one.
        assert!(picks.iter().all(|&a| visits[a] > 0));
        assert!(picks.iter().any(|&a| a != picks[0]), "{picks:?}");
        assert_eq!(run().2, picks, "same seed, same noise and samples");
    }
}

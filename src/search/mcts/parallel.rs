//! `ParallelSearch`: one game's tree searched by several threads at once, each sending
//! the network a batch of leaves (as lc0 does on a CPU).
//!
//! - **Leaf batching with virtual loss.** A worker takes the tree's lock, descends up to
//!   `batch` times, and marks each path with a virtual loss (a visit counted as a loss
//!   for the mover) so that the next descent turns elsewhere. It releases the lock while
//!   its evaluator runs, then takes it again to expand the leaves and turn each virtual
//!   loss into the leaf's value. A descent that meets a leaf already in flight (a
//!   collision) withdraws its virtual loss and ends the batch early.
//! - **Threads.** Each worker has its own evaluator (the network's buffers are per
//!   thread); they share the tree (one lock, held only for descents and backups) and an
//!   evaluation cache if their evaluators wrap one. With one thread the search is
//!   deterministic: the same position, budget and batch give the same tree.
//! - **A tree bounded in memory that never stops growing.** The tree holds a fixed number
//!   of nodes (the engine's `Hash`). When a batch would not fit, the least-visited
//!   subtrees are dropped ([`SearchTree::prune`]): their edges keep their visits and
//!   values in the parent, and a later visit creates the node again (the cache answers
//!   its evaluation). A search can run for minutes.
//! - **A controller.** The calling thread watches the search while the workers run: a
//!   callback every millisecond decides whether to go on (clock, `stop`, info lines).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use super::batch::{SearchResult, new_child, root_result};
use super::root::{Puct, RootState, Schedules, SearchRule, Start, most_visited};
use super::tree::{NodeId, NodeKind, SearchTree};
use super::{Algorithm, MctsConfig};
use crate::game::{Game, Position, RuleSet};
use crate::rng::Rng;
use crate::search::{Evaluation, Evaluator};
use crate::tablebase::Tablebase;
use std::sync::Arc;

/// The virtual loss of a simulation in flight, in value units (a loss for the mover).
pub const VIRTUAL_LOSS: f32 = 1.0;
/// How often the controller looks at the search.
const POLL: Duration = Duration::from_millis(1);

/// What the workers share: the tree and the search's counters, behind one lock.
struct State {
    tree: SearchTree,
    game: Game,
    /// Simulations finished in this search.
    done: u32,
    /// Leaves sent to an evaluator and not yet backed up.
    in_flight: u32,
    /// The root is being evaluated.
    root_pending: bool,
    /// Simulations this search may run.
    target: u32,
    root: RootState,
    rng: Rng,
    /// Descents that met a leaf in flight, this search.
    collisions: u64,
    /// Times the tree was pruned, this search.
    prunes: u32,
    /// Network calls and the leaves they carried, this search.
    batches: u64,
    leaves: u64,
}

/// How a descent ended.
enum Descent {
    /// A new leaf (or the unevaluated root) to evaluate; its path carries a virtual loss.
    Leaf(NodeId),
    /// A finished game, backed up already.
    Terminal,
    /// A leaf already in flight: nothing was changed.
    Collision,
}

/// The tree and what the workers and the controller share.
pub struct SharedTree {
    cfg: MctsConfig,
    rules: RuleSet,
    tb: Option<Arc<Tablebase>>,
    state: Mutex<State>,
    halt: AtomicBool,
    running: AtomicUsize,
    batch: usize,
}

/// One worker: its evaluator and its buffers (kept between searches).
struct Worker {
    evaluator: Box<dyn Evaluator>,
    positions: Vec<Position>,
    legal: Vec<u8>,
    leaves: Vec<NodeId>,
    paths: Vec<Vec<(NodeId, u8)>>,
    out: Vec<Evaluation>,
}

/// A game's tree searched by one worker per evaluator.
pub struct ParallelSearch {
    shared: SharedTree,
    workers: Vec<Worker>,
}

impl SharedTree {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Simulations finished in the current (or last) search.
    pub fn done(&self) -> u32 {
        self.lock().done
    }

    /// A copy of the root node and the simulations finished so far.
    pub fn root_and_done(&self) -> (super::tree::Node, u32) {
        let st = self.lock();
        (*st.tree.root_node(), st.done)
    }

    /// The result so far.
    pub fn result(&self) -> SearchResult {
        let st = self.lock();
        root_result(&self.cfg, &Puct, st.tree.root_node(), &st.root, st.done)
    }

    /// The most-visited line from the root, at most `max_len` moves.
    pub fn principal_variation(&self, max_len: usize) -> Vec<usize> {
        let st = self.lock();
        let t = &st.tree;
        let mut id = t.root();
        let mut pv = Vec::new();
        while pv.len() < max_len {
            let n = t.node(id);
            if n.kind != NodeKind::Expanded || n.visits() == 0 {
                break;
            }
            let a = most_visited(n.n, n.legal, |a| n.q(a).unwrap_or(f32::NEG_INFINITY));
            pv.push(a);
            match n.children[a] {
                0 => break,
                c => id = c,
            }
        }
        pv
    }

    /// The deepest node of the tree, in plies below the root.
    pub fn depth(&self) -> u32 {
        let st = self.lock();
        let t = &st.tree;
        let mut deepest = 0;
        let mut stack = vec![(t.root(), 0u32)];
        while let Some((id, d)) = stack.pop() {
            deepest = deepest.max(d);
            for &c in &t.node(id).children {
                if c != 0 {
                    stack.push((c, d + 1));
                }
            }
        }
        deepest
    }

    /// Nodes in the tree, its capacity, collisions and prunes of this search.
    pub fn counters(&self) -> TreeCounters {
        let st = self.lock();
        TreeCounters {
            nodes: st.tree.len(),
            capacity: st.tree.capacity(),
            collisions: st.collisions,
            prunes: st.prunes,
            batches: st.batches,
            leaves: st.leaves,
        }
    }

    /// One descent from the root under the lock, with virtual loss on a new leaf's path.
    fn descend(&self, st: &mut State, path: &mut Vec<(NodeId, u8)>) -> Descent {
        path.clear();
        let root = st.tree.root();
        let mut id = root;
        loop {
            let node = st.tree.node(id);
            match node.kind {
                NodeKind::Terminal => {
                    let v = node.value;
                    st.tree.backup(path, id, v);
                    return Descent::Terminal;
                }
                NodeKind::Unexpanded if id == root && !st.root_pending => {
                    st.root_pending = true;
                    return Descent::Leaf(id);
                }
                // Below the root an unexpanded node is always in flight.
                NodeKind::Unexpanded => return Descent::Collision,
                NodeKind::Expanded => {}
            }
            let a = super::policy::puct_select(node, &self.cfg);
            let child = node.children[a];
            path.push((id, a as u8));
            if child == 0 {
                let h = st.game.history();
                let tb = self.tb.as_deref();
                let c = new_child(&mut st.tree, self.rules, id, a, path, h, tb);
                let n = st.tree.node(c);
                if n.kind == NodeKind::Terminal {
                    let v = n.value;
                    st.tree.backup(path, c, v);
                    return Descent::Terminal;
                }
                st.tree.add_virtual(path, VIRTUAL_LOSS);
                return Descent::Leaf(c);
            }
            id = child;
        }
    }
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
}

impl Worker {
    /// Runs batches until the budget is spent or the search is halted.
    fn run(&mut self, t: &SharedTree) {
        let batch = t.batch.max(1);
        if self.paths.len() < batch {
            self.paths.resize_with(batch, || Vec::with_capacity(64));
        }
        while !t.halt.load(Ordering::Relaxed) {
            match self.gather(t, batch) {
                Some(0) => std::thread::yield_now(),
                Some(n) => self.evaluate_and_backup(t, n),
                None => break,
            }
        }
        t.running.fetch_sub(1, Ordering::AcqRel);
    }

    /// Takes up to `batch` leaves under the lock. `None`: nothing left to do.
    fn gather(&mut self, t: &SharedTree, batch: usize) -> Option<usize> {
        let mut st = t.lock();
        let quota = st.target.saturating_sub(st.done + st.in_flight) as usize;
        if quota == 0 || st.tree.root_node().kind == NodeKind::Terminal {
            return None;
        }
        let quota = quota.min(batch);
        if !st.tree.has_room(quota) {
            if st.in_flight > 0 {
                return Some(0);
            }
            let keep = st.tree.capacity() / 2;
            st.tree.prune(keep);
            st.prunes += 1;
        }
        self.positions.clear();
        self.legal.clear();
        self.leaves.clear();
        for _ in 0..quota {
            match t.descend(&mut st, &mut self.paths[self.leaves.len()]) {
                Descent::Leaf(id) => {
                    let n = st.tree.node(id);
                    self.positions.push(n.pos);
                    self.legal.push(n.legal);
                    self.leaves.push(id);
                }
                Descent::Terminal => st.done += 1,
                // The tree has no other leaf worth taking now: send what there is.
                Descent::Collision => {
                    st.collisions += 1;
                    break;
                }
            }
        }
        st.in_flight += self.leaves.len() as u32;
        if !self.leaves.is_empty() {
            st.batches += 1;
            st.leaves += self.leaves.len() as u64;
        }
        Some(self.leaves.len())
    }

    /// Evaluates the gathered leaves without the lock, then backs them up under it.
    fn evaluate_and_backup(&mut self, t: &SharedTree, n: usize) {
        if self.out.len() < n {
            self.out.resize(n, Evaluation::default());
        }
        self.evaluator
            .evaluate(t.rules, &self.positions, &self.legal, &mut self.out[..n]);
        let mut st = t.lock();
        let st = &mut *st;
        for k in 0..n {
            let id = self.leaves[k];
            st.tree.expand(id, &self.out[k]);
            let path = &self.paths[k];
            if path.is_empty() {
                st.root_pending = false;
                let root = st.tree.node_mut(id);
                Puct.root_expanded(&t.cfg, root, &mut st.rng, &mut st.root);
            } else {
                let v = st.tree.node(id).value;
                st.tree.backup_virtual(path, id, v, VIRTUAL_LOSS);
                st.done += 1;
            }
        }
        st.in_flight -= n as u32;
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
        let mut tree = SearchTree::new(nodes.max(64));
        tree.reset(*game.position());
        tree.prepare_root(rules);
        let state = State {
            tree,
            game,
            done: 0,
            in_flight: 0,
            root_pending: false,
            target: 0,
            root: RootState::default(),
            rng: Rng::new(seed),
            collisions: 0,
            prunes: 0,
            batches: 0,
            leaves: 0,
        };
        let workers = evaluators
            .into_iter()
            .map(|evaluator| Worker {
                evaluator,
                positions: Vec::with_capacity(batch),
                legal: Vec::with_capacity(batch),
                leaves: Vec::with_capacity(batch),
                paths: Vec::new(),
                out: Vec::new(),
            })
            .collect();
        ParallelSearch {
            shared: SharedTree {
                cfg,
                rules,
                tb: None,
                state: Mutex::new(state),
                halt: AtomicBool::new(false),
                running: AtomicUsize::new(0),
                batch: batch.max(1),
            },
            workers,
        }
    }

    /// Ends the search at every position `tb` covers, with the table's result (tables of
    /// other rules are ignored).
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
    pub fn game(&self) -> Game {
        self.shared.lock().game.clone()
    }

    /// Puts `game` at the root. When it continues the game at the root (the same start
    /// and more moves), the subtree of the moves played is kept and the rest freed;
    /// otherwise the tree starts afresh. Returns whether the subtree was kept.
    pub fn set_game(&mut self, game: &Game) -> bool {
        let st = self
            .shared
            .state
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        let rules = self.shared.rules;
        let continues = st.game.start() == game.start()
            && game.moves().starts_with(st.game.moves())
            && game.rules() == rules;
        if continues {
            let extra = game.moves()[st.game.moves().len()..].to_vec();
            let mut kept = true;
            for (_, a) in extra {
                let a = a as usize;
                if st.game.play(a).is_err() {
                    kept = false;
                    break;
                }
                let pos = *st.game.position();
                if kept && !st.tree.advance(a, pos, 0) {
                    kept = false;
                }
            }
            if kept && st.tree.root_node().pos == *game.position() {
                return st.tree.root_node().visits() > 0;
            }
        }
        st.game = game.clone();
        st.tree.reset(*game.position());
        st.tree.prepare_root(rules);
        false
    }

    /// Forgets the tree (a new game).
    pub fn clear(&mut self) {
        let g = Game::new(self.shared.rules, Position::start());
        let st = self
            .shared
            .state
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        st.game = g.clone();
        st.tree.reset(*g.position());
        st.tree.prepare_root(self.shared.rules);
    }

    /// Searches the root for at most `simulations` more simulations (reused visits not
    /// counted), with Dirichlet noise at the root if `noise`. Between batches the workers
    /// look at a halt flag; every millisecond `watch` is called on the calling thread
    /// and the search ends when it returns false. Returns when every worker has stopped.
    /// A finished game is not searched.
    pub fn run(
        &mut self,
        simulations: u32,
        noise: bool,
        mut watch: impl FnMut(&SharedTree) -> bool,
    ) {
        {
            let st = self
                .shared
                .state
                .get_mut()
                .unwrap_or_else(|e| e.into_inner());
            if st.game.is_over() || st.tree.root_node().kind == NodeKind::Terminal {
                return;
            }
            st.done = 0;
            st.target = simulations.max(1);
            st.collisions = 0;
            st.prunes = 0;
            st.batches = 0;
            st.leaves = 0;
            st.root = RootState::default();
            let legal = st.game.legal_moves();
            let root = st.tree.root();
            let node = st.tree.node_mut(root);
            node.prior = node.raw_prior;
            let start = Start {
                root: node,
                legal,
                simulations: st.target,
                noise,
                rng: &mut st.rng,
                state: &mut st.root,
            };
            Puct.begin(&self.shared.cfg, &mut Schedules::default(), start);
        }
        let shared = &self.shared;
        if !watch(shared) {
            return;
        }
        shared.halt.store(false, Ordering::Relaxed);
        shared.running.store(self.workers.len(), Ordering::Release);
        std::thread::scope(|scope| {
            for w in self.workers.iter_mut() {
                scope.spawn(move || w.run(shared));
            }
            while shared.running.load(Ordering::Acquire) > 0 {
                if !shared.halt.load(Ordering::Relaxed) && !watch(shared) {
                    shared.halt.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(POLL);
            }
        });
    }

    /// The result of the last search.
    pub fn result(&self) -> SearchResult {
        self.shared.result()
    }

    /// A move from the last search: with `temperature` > 0 a sample ∝ N^(1/T) over the
    /// root's visits (from the search's generator), else the most-visited move.
    pub fn choose(&mut self, temperature: f32) -> usize {
        let r = self.result();
        if temperature <= 0.0 || r.simulations == 0 {
            return r.best;
        }
        let w: [f64; 6] = std::array::from_fn(|a| {
            if r.legal & (1 << a) != 0 && r.visits[a] > 0 {
                (r.visits[a] as f64).powf(1.0 / temperature as f64)
            } else {
                0.0
            }
        });
        let total: f64 = w.iter().sum();
        let st = self
            .shared
            .state
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        let mut x = st.rng.unit_f64() * total;
        for (a, &wa) in w.iter().enumerate() {
            if wa > 0.0 {
                if x < wa {
                    return a;
                }
                x -= wa;
            }
        }
        r.best
    }
}

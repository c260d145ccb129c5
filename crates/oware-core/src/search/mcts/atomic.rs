//! `AtomicTree`: a search tree that several threads descend, grow and back up at once,
//! without a lock. The nodes live in a preallocated arena; every statistic is an atomic
//! (values as `f32` bits), so a descent reads a node while another thread adds to it.
//!
//! - A new node takes the next free slot (an atomic counter), is written whole, and is
//!   then published by a compare-and-swap on its parent's child link; a thread that loses
//!   the race uses the winner's node (its own slot stays unused until the next compaction).
//! - A node's priors and value are written before its kind becomes `EXPANDED` (release),
//!   and read after seeing that kind (acquire).
//! - A node created by a descent is `UNEXPANDED` until its leaf is backed up, so another
//!   descent that reaches it knows it is in flight. The root is claimed (`CLAIMED`) by the
//!   one descent that evaluates it.
//! - Moving the root and freeing room ([`AtomicTree::compact`]) take `&mut self`: no
//!   descent runs then.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU8, AtomicU32, AtomicUsize, Ordering};

use super::policy::{Edges, puct};
use super::tree::{Node, NodeId, NodeKind, judge_child, legal_priors};
use crate::game::{History, Position, RuleSet};
use crate::search::Evaluation;
use crate::tablebase::Tablebase;

/// Waiting for its evaluation (in flight below the root).
pub const UNEXPANDED: u8 = 0;
/// Evaluated: priors and value are set.
pub const EXPANDED: u8 = 1;
/// The game is over here; the value is exact.
pub const TERMINAL: u8 = 2;
/// The root, being evaluated by one descent.
pub const CLAIMED: u8 = 3;

/// A node whose fields threads share. All-zero bits are a valid (empty) node. What a
/// descent reads comes first, and a node is two whole cache lines (128 bytes, aligned),
/// which the processor fetches as a pair: one memory wait per node of a descent. The
/// evaluator's raw priors are kept for the root only ([`AtomicTree`]): below it, no noise
/// is added, so a node's priors are its raw priors.
#[repr(C, align(128))]
pub struct AtomicNode {
    kind: AtomicU8,
    legal: AtomicU8,
    /// Written once, before the node is published.
    pos: UnsafeCell<Position>,
    value: AtomicU32,
    n: [AtomicU32; 6],
    w: [AtomicU32; 6],
    prior: [AtomicU32; 6],
    children: [AtomicU32; 6],
}

// SAFETY: `pos` is written only by the thread that took the node's slot, before the
// node is published through a release compare-and-swap (or with `&mut` access); every
// other field is atomic.
unsafe impl Sync for AtomicNode {}

#[inline]
fn load_f(x: &AtomicU32) -> f32 {
    f32::from_bits(x.load(Ordering::Relaxed))
}

#[inline]
fn store_f(x: &AtomicU32, v: f32) {
    x.store(v.to_bits(), Ordering::Relaxed)
}

#[inline]
fn add_f(x: &AtomicU32, v: f32) {
    let _ = x.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
        Some((f32::from_bits(b) + v).to_bits())
    });
}

impl AtomicNode {
    /// The node's position.
    #[inline]
    pub fn pos(&self) -> Position {
        // SAFETY: see the `Sync` impl: published nodes' positions are never written.
        unsafe { *self.pos.get() }
    }

    /// Its kind (`UNEXPANDED`, `EXPANDED`, `TERMINAL`, `CLAIMED`), with acquire order.
    #[inline]
    pub fn kind(&self) -> u8 {
        self.kind.load(Ordering::Acquire)
    }

    /// Its value (evaluator's, or exact at a terminal node).
    #[inline]
    pub fn value(&self) -> f32 {
        load_f(&self.value)
    }

    /// The child by `action` (0: none).
    #[inline]
    pub fn child(&self, action: usize) -> NodeId {
        self.children[action].load(Ordering::Acquire)
    }

    /// PUCT's choice at this node ([`puct`]), read straight from the atomics (the hot
    /// path of a descent).
    #[inline]
    pub fn puct_select(&self, c_puct: f32, fpu_reduction: f32) -> usize {
        let e = Edges {
            legal: self.legal.load(Ordering::Relaxed),
            value: self.value(),
            prior: std::array::from_fn(|a| load_f(&self.prior[a])),
            n: std::array::from_fn(|a| self.n[a].load(Ordering::Relaxed)),
            w: std::array::from_fn(|a| load_f(&self.w[a])),
        };
        puct(&e, c_puct, fpu_reduction)
    }

    /// A plain copy, for the selection rules and reports.
    pub fn snapshot(&self) -> Node {
        let f6 = |x: &[AtomicU32; 6]| std::array::from_fn(|a| load_f(&x[a]));
        Node {
            pos: self.pos(),
            legal: self.legal.load(Ordering::Relaxed),
            kind: match self.kind() {
                EXPANDED => NodeKind::Expanded,
                TERMINAL => NodeKind::Terminal,
                _ => NodeKind::Unexpanded,
            },
            value: self.value(),
            children: std::array::from_fn(|a| self.child(a)),
            prior: f6(&self.prior),
            n: std::array::from_fn(|a| self.n[a].load(Ordering::Relaxed)),
            w: f6(&self.w),
        }
    }

    /// Writes a fresh node (the caller owns the slot).
    fn init(&self, pos: Position, legal: u8, end: Option<f32>) {
        // SAFETY: the slot is not published yet (or the caller has `&mut` access).
        unsafe { *self.pos.get() = pos };
        self.legal.store(legal, Ordering::Relaxed);
        store_f(&self.value, end.unwrap_or(0.0));
        for a in 0..6 {
            self.children[a].store(0, Ordering::Relaxed);
            store_f(&self.prior[a], 0.0);
            self.n[a].store(0, Ordering::Relaxed);
            store_f(&self.w[a], 0.0);
        }
        let kind = if end.is_some() { TERMINAL } else { UNEXPANDED };
        self.kind.store(kind, Ordering::Release);
    }

    /// Copies `from` (both quiescent) with its child links cleared.
    fn copy_from(&self, from: &AtomicNode) {
        let s = from.snapshot();
        // SAFETY: called with `&mut` access to the tree.
        unsafe { *self.pos.get() = s.pos };
        self.legal.store(s.legal, Ordering::Relaxed);
        store_f(&self.value, s.value);
        for a in 0..6 {
            self.children[a].store(0, Ordering::Relaxed);
            store_f(&self.prior[a], s.prior[a]);
            self.n[a].store(s.n[a], Ordering::Relaxed);
            store_f(&self.w[a], s.w[a]);
        }
        self.kind.store(from.kind(), Ordering::Relaxed);
    }
}

/// Zeroed nodes: the allocator hands out pages the system zeroes lazily.
fn zeroed(n: usize) -> Box<[AtomicNode]> {
    let n = n.max(8);
    let layout = std::alloc::Layout::array::<AtomicNode>(n).expect("tree size fits memory");
    // SAFETY: the layout has a non-zero size; all-zero bits are a valid `AtomicNode`
    // (integers, atomics, and a `Position` whose side 0 is South).
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut AtomicNode;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n))
    }
}

/// What taking a child gave.
pub enum NewChild {
    /// This descent created the child.
    Created(NodeId),
    /// Another thread created it first.
    Existing(NodeId),
    /// No free slot: the tree needs compacting.
    Full,
}

/// A tree several threads grow at once. Slot 0 is a sentinel (0 means "no child").
pub struct AtomicTree {
    /// The root's priors as the evaluator gave them (before noise).
    root_raw: [AtomicU32; 6],
    nodes: Box<[AtomicNode]>,
    spare: Box<[AtomicNode]>,
    next: AtomicUsize,
    root: NodeId,
    scratch: Vec<NodeId>,
}

impl AtomicTree {
    /// A tree of `capacity` nodes (and as many spare ones for compaction).
    pub fn new(capacity: usize) -> AtomicTree {
        AtomicTree {
            root_raw: Default::default(),
            nodes: zeroed(capacity + 2),
            spare: zeroed(capacity + 2),
            next: AtomicUsize::new(2),
            root: 1,
            scratch: Vec::with_capacity(64),
        }
    }

    /// Nodes it can hold.
    pub fn capacity(&self) -> usize {
        self.nodes.len() - 2
    }

    /// Nodes in use (slots lost to races included).
    pub fn len(&self) -> usize {
        self.next.load(Ordering::Relaxed).min(self.nodes.len()) - 1
    }

    /// True when only the root is there.
    pub fn is_empty(&self) -> bool {
        self.len() <= 1
    }

    /// Whether `more` new nodes fit.
    pub fn has_room(&self, more: usize) -> bool {
        self.next.load(Ordering::Relaxed) + more <= self.nodes.len()
    }

    /// The root's id.
    #[inline]
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// A node.
    #[inline]
    pub fn node(&self, id: NodeId) -> &AtomicNode {
        &self.nodes[id as usize]
    }

    /// A plain copy of node `id`.
    pub fn snapshot(&self, id: NodeId) -> Node {
        self.node(id).snapshot()
    }

    /// The root's priors as the evaluator gave them, without root noise.
    pub fn root_raw_prior(&self) -> [f32; 6] {
        std::array::from_fn(|a| load_f(&self.root_raw[a]))
    }

    /// Starts afresh at `pos`: the root is terminal or waits for its evaluation.
    pub fn reset(&mut self, pos: Position, rules: RuleSet) {
        self.root_raw.iter().for_each(|x| store_f(x, 0.0));
        let end = pos.status(rules).map(|o| o.score_for(pos.side) as f32);
        let legal = if end.is_some() {
            0
        } else {
            pos.legal_moves(rules)
        };
        self.nodes[1].init(pos, legal, end);
        self.root = 1;
        self.next.store(2, Ordering::Relaxed);
    }

    /// Takes the child of `parent` by `action`: decides whether the game is over there
    /// (see [`judge_child`]; `path` is the way down, `tb` the tables) and publishes it,
    /// unless another thread did first.
    pub fn add_child(
        &self,
        rules: RuleSet,
        parent: NodeId,
        action: usize,
        path: &[(NodeId, u8)],
        history: &History,
        tb: Option<&Tablebase>,
    ) -> NewChild {
        let on_path = |key| path.iter().any(|&(p, _)| self.node(p).pos().key() == key);
        let (pos, legal, end) = judge_child(
            &self.node(parent).pos(),
            rules,
            action,
            on_path,
            |p| history.contains(p),
            tb,
        );
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        if id >= self.nodes.len() {
            return NewChild::Full;
        }
        let node = &self.nodes[id];
        node.init(pos, if end.is_some() { 0 } else { legal }, end);
        let link = &self.node(parent).children[action];
        match link.compare_exchange(0, id as NodeId, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => NewChild::Created(id as NodeId),
            Err(other) => NewChild::Existing(other),
        }
    }

    /// Claims the unevaluated root for one descent; false if it is not waiting.
    pub fn claim_root(&self) -> bool {
        self.node(self.root)
            .kind
            .compare_exchange(UNEXPANDED, CLAIMED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Sets an evaluated node's priors (renormalised over its legal moves) and value, then
    /// marks it expanded. `search_prior` replaces the priors the search follows (the
    /// root's, with noise).
    pub fn expand(&self, id: NodeId, e: &Evaluation, search_prior: Option<&[f32; 6]>) {
        let n = self.node(id);
        let p = legal_priors(n.legal.load(Ordering::Relaxed), e);
        let sp = search_prior.unwrap_or(&p);
        for a in 0..6 {
            store_f(&n.prior[a], sp[a]);
            if id == self.root {
                store_f(&self.root_raw[a], p[a]);
            }
        }
        store_f(&n.value, e.value.clamp(-1.0, 1.0));
        n.kind.store(EXPANDED, Ordering::Release);
    }

    /// Sets the root's search priors (root noise).
    pub fn set_root_priors(&self, prior: &[f32; 6]) {
        let r = self.node(self.root);
        for (a, &p) in prior.iter().enumerate() {
            store_f(&r.prior[a], p);
        }
    }

    /// Counts a simulation in flight through the edge `(id, a)` as a loss of `vl` for its
    /// mover (a descent marks each edge as it takes it).
    #[inline]
    pub fn add_virtual_edge(&self, id: NodeId, a: u8, vl: f32) {
        let n = self.node(id);
        n.n[a as usize].fetch_add(1, Ordering::Relaxed);
        add_f(&n.w[a as usize], -vl);
    }

    /// Takes back the virtual loss of a descent that ended without a leaf.
    pub fn remove_virtual(&self, path: &[(NodeId, u8)], vl: f32) {
        for &(id, a) in path.iter().rev() {
            let n = self.node(id);
            n.n[a as usize].fetch_sub(1, Ordering::Relaxed);
            add_f(&n.w[a as usize], vl);
        }
    }

    /// Backs up `value` (the leaf mover's view) along `path`: with `vl` > 0 the path
    /// carries a virtual loss (its visits are counted; the loss becomes the value), with
    /// `vl` = 0 each edge gains a visit.
    pub fn backup(&self, path: &[(NodeId, u8)], leaf: NodeId, value: f32, vl: f32) {
        let leaf_side = self.node(leaf).pos().side;
        for &(id, a) in path.iter().rev() {
            let n = self.node(id);
            let v = if n.pos().side == leaf_side {
                value
            } else {
                -value
            };
            if vl == 0.0 {
                n.n[a as usize].fetch_add(1, Ordering::Relaxed);
            }
            add_f(&n.w[a as usize], v + vl);
        }
    }

    /// Keeps the subtree of `new_root` (the root's child by `action` when its position
    /// is `pos`) as the new tree. Returns false (and starts afresh at `pos`) otherwise.
    pub fn advance(&mut self, action: usize, pos: Position, rules: RuleSet) -> bool {
        let c = self.node(self.root).child(action);
        if c == 0 || self.node(c).pos() != pos || self.node(c).kind() == UNEXPANDED {
            self.reset(pos, rules);
            return false;
        }
        self.compact(c, 0);
        let r = self.node(self.root).snapshot();
        for a in 0..6 {
            store_f(&self.root_raw[a], r.prior[a]);
        }
        true
    }

    /// Frees room by dropping the subtrees below edges with fewer visits than a
    /// threshold, the smallest power of two (from 2) that keeps at most `keep` nodes. The
    /// edges keep their statistics; a later visit creates the child again. Returns the
    /// nodes kept.
    pub fn prune(&mut self, keep: usize) -> usize {
        // Visits never grow down a line (every simulation through a node came through
        // the edge into it), so a node stays exactly when the edge into it has enough
        // visits: one walk counts the nodes each threshold keeps.
        let mut by_log = [0usize; 33];
        let mut ids = std::mem::take(&mut self.scratch);
        ids.clear();
        ids.push(self.root);
        while let Some(id) = ids.pop() {
            let n = self.node(id);
            for a in 0..6 {
                let c = n.child(a);
                let visits = n.n[a].load(Ordering::Relaxed);
                if c != 0 && visits >= 2 && kept(self.node(c)) {
                    by_log[visits.ilog2() as usize] += 1;
                    ids.push(c);
                }
            }
        }
        self.scratch = ids;
        // Nodes kept at threshold 2^k: the root and every edge of at least 2^k visits.
        let mut k = 1;
        while k < 32 && 1 + by_log[k..].iter().sum::<usize>() > keep.max(2) {
            k += 1;
        }
        self.compact(self.root, 1u32 << k.min(31));
        self.len()
    }

    /// Copies the subtree of `from` (the new root) into the spare arena, breadth first,
    /// keeping children below edges of at least `min` visits, and swaps the arenas.
    fn compact(&mut self, from: NodeId, min: u32) {
        let (nodes, spare) = (&self.nodes, &self.spare);
        spare[1].copy_from(&nodes[from as usize]);
        let mut map = std::mem::take(&mut self.scratch);
        map.clear();
        map.extend([0, from]);
        let mut len = 2;
        let mut i = 1;
        while i < len {
            let old = &nodes[map[i] as usize];
            for a in 0..6 {
                let c = old.child(a);
                if c != 0 && old.n[a].load(Ordering::Relaxed) >= min && kept(&nodes[c as usize]) {
                    spare[len].copy_from(&nodes[c as usize]);
                    spare[i].children[a].store(len as NodeId, Ordering::Relaxed);
                    map.push(c);
                    len += 1;
                }
            }
            i += 1;
        }
        self.scratch = map;
        std::mem::swap(&mut self.nodes, &mut self.spare);
        self.root = 1;
        self.next.store(len, Ordering::Relaxed);
    }
}

/// Whether a compaction keeps `n` (a node in flight is never left in a quiet tree, but
/// an unevaluated one is dropped all the same).
fn kept(n: &AtomicNode) -> bool {
    matches!(n.kind(), EXPANDED | TERMINAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_grow_one_tree_without_losing_a_visit() {
        let rules = RuleSet::abapa();
        let mut t = AtomicTree::new(100_000);
        t.reset(Position::start(), rules);
        assert!(t.claim_root());
        assert!(!t.claim_root());
        t.expand(
            t.root(),
            &Evaluation {
                priors: [1.0 / 6.0; 6],
                value: 0.0,
            },
            None,
        );
        let history = History::default();
        // Four threads each run 2 000 descents down random edges with virtual loss.
        std::thread::scope(|sc| {
            for k in 0..4u64 {
                let t = &t;
                let history = &history;
                sc.spawn(move || {
                    let mut rng = crate::rng::Rng::new(k);
                    let mut path = Vec::new();
                    for _ in 0..2000 {
                        path.clear();
                        let mut id = t.root();
                        let mut created = false;
                        while t.node(id).kind() == EXPANDED {
                            let n = t.node(id);
                            let legal = n.legal.load(Ordering::Relaxed);
                            let moves: Vec<usize> =
                                (0..6).filter(|a| legal & (1 << a) != 0).collect();
                            let a = moves[rng.below(moves.len() as u32) as usize];
                            path.push((id, a as u8));
                            match n.child(a) {
                                0 => {
                                    match t.add_child(rules, id, a, &path, history, None) {
                                        NewChild::Created(c) => (id, created) = (c, true),
                                        NewChild::Existing(c) => id = c,
                                        NewChild::Full => unreachable!("room for all"),
                                    }
                                    break;
                                }
                                c => id = c,
                            }
                        }
                        if path.is_empty() {
                            continue;
                        }
                        for &(p, a) in &path {
                            t.add_virtual_edge(p, a, 1.0);
                        }
                        if created && t.node(id).kind() == UNEXPANDED {
                            t.expand(
                                id,
                                &Evaluation {
                                    priors: [1.0 / 6.0; 6],
                                    value: 0.5,
                                },
                                None,
                            );
                        }
                        t.backup(&path, id, 0.25, 1.0);
                    }
                });
            }
        });
        // Every descent with a path added exactly one visit at the root.
        let root = t.node(t.root()).snapshot();
        let visits = root.visits();
        assert_eq!(visits, 8000);
        // Values: each backup added ±0.25 and the virtual loss cancelled.
        assert!(
            root.w
                .iter()
                .all(|w| w.abs() <= 0.25 * visits as f32 + 1e-3)
        );
        // Pruning keeps the root's statistics and at most the asked nodes.
        let before = root.n;
        let kept = t.prune(500);
        assert!(kept <= 500, "{kept}");
        assert_eq!(t.node(t.root()).snapshot().n, before);
        // Every kept child link points at a node whose position follows from its parent.
        for id in 1..t.len() as NodeId {
            let n = t.node(id).snapshot();
            for a in 0..6 {
                if n.children[a] != 0 {
                    let mut p = n.pos;
                    p.apply(rules, a);
                    assert_eq!(t.node(n.children[a]).pos(), p);
                }
            }
        }
    }
}

//! One game's search tree, in a preallocated arena: nodes hold their position and the
//! statistics of their six outgoing edges (prior, visits, value sum), as mctx's
//! `[nodes, actions]` arrays do. No heap allocation per node.

use crate::game::{Position, RuleSet};
use crate::search::Evaluation;
use crate::tablebase::Tablebase;

/// Index of a node in its tree's arena. 0 is never a child, so it means "no child".
pub type NodeId = u32;
const NONE: NodeId = 0;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Created, waiting for the evaluator.
    Unexpanded,
    /// Evaluated: priors and value are set.
    Expanded,
    /// The game is over here; `value` is exact.
    Terminal,
}

/// A node: a position and the statistics of its outgoing edges.
///
/// 128 bytes on a 64-byte boundary, so two cache lines, laid out for the batched
/// search, whose thousands of trees live far outside the caches: the first line holds
/// all that a backup reads and writes (the visits, the value sums and the mover, in
/// `pos`), the second what only a descent reads besides (kind, value, children,
/// priors). A descent reads both lines of a node, a backup one. The root's priors as
/// the evaluator gave them (before root noise) are kept by its tree
/// ([`SearchTree::root_raw_prior`]), not here: below the root they equal `prior`.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Node {
    /// Visits through each edge.
    pub n: [u32; 6],
    /// Sum of backed-up values through each edge, from this node's mover's view.
    pub w: [f32; 6],
    /// The position at this node.
    pub pos: Position,
    /// Legal moves here (6-bit mask of actions); 0 at terminal nodes.
    pub legal: u8,
    /// The evaluator's value (or the exact result at terminal nodes), mover's view, [−1, 1].
    pub value: f32,
    /// Unexpanded, expanded or terminal.
    pub kind: NodeKind,
    /// Children by action; `NONE` (0) where not created yet.
    pub children: [NodeId; 6],
    /// Prior of each action (the search's, i.e. with root noise if any).
    pub prior: [f32; 6],
}

// The layout above: a backup's fields in the first line, the node in two.
const _: () = assert!(std::mem::size_of::<Node>() == 128);
const _: () = assert!(std::mem::offset_of!(Node, legal) == 63);

impl Node {
    fn new(pos: Position) -> Node {
        Node {
            pos,
            legal: 0,
            kind: NodeKind::Unexpanded,
            value: 0.0,
            children: [NONE; 6],
            prior: [0.0; 6],
            n: [0; 6],
            w: [0.0; 6],
        }
    }

    /// Visits of all edges together.
    #[inline]
    pub fn visits(&self) -> u32 {
        self.n.iter().sum()
    }

    /// Mean value of edge `a` from this node's mover's view (`None` if unvisited).
    #[inline]
    pub fn q(&self, a: usize) -> Option<f32> {
        (self.n[a] > 0).then(|| self.w[a] / self.n[a] as f32)
    }

    /// The node's value estimate: its own evaluation averaged with everything backed up
    /// through it, mover's view.
    #[inline]
    pub fn mean_value(&self) -> f32 {
        let n = self.visits();
        (self.value + self.w.iter().sum::<f32>()) / (1 + n) as f32
    }
}

/// The position after `action` from `parent`, its legal moves, and its exact value for
/// its mover if the game is over there: by the rules' endings, or by a repetition of a
/// position on the way down (`on_path(key)`) or of one the game was in since its last
/// capture (`seen(pos)`: its history, wherever the game is kept). Positions before
/// the last capture have other stores, so comparing whole keys against everything seen is
/// the rule "since the last capture".
///
/// With endgame tables `tb`, a position whose outcome the tables prove
/// ([`Tablebase::proven`]: an exact entry, or bounds that give one outcome) is decided
/// too; an entry a repetition may decide is searched as usual. The tables' bounds are
/// those of a game with no history since the last capture (exactly the situation after a
/// capture); elsewhere they are taken as they are, a position of the game since the last
/// capture being one the line they assume is not expected to meet. Taking them only
/// after captures measured no stronger (`experiments/ab/tablebase-proven.md`).
pub fn judge_child(
    parent: &Position,
    rules: RuleSet,
    action: usize,
    on_path: impl Fn(u128) -> bool,
    seen: impl Fn(&Position) -> bool,
    tb: Option<&Tablebase>,
) -> (Position, u8, Option<f32>) {
    let mut pos = *parent;
    let info = pos.apply(rules, action);
    let repeated = info.captured == 0 && (on_path(pos.key()) || seen(&pos));
    let legal = pos.legal_moves(rules);
    if let Some(o) = pos.end_after_move(rules, info.captured, legal, repeated) {
        return (pos, 0, Some(o.score_for(pos.side) as f32));
    }
    if let Some(o) = tb.and_then(|t| t.proven(&pos)) {
        return (pos, 0, Some(o.score() as f32));
    }
    (pos, legal, None)
}

/// An evaluation's priors on the `legal` moves, renormalised (uniform if they carry no
/// weight there).
pub fn legal_priors(legal: u8, e: &Evaluation) -> [f32; 6] {
    let mut p = [0.0f32; 6];
    let mut sum = 0.0;
    for a in 0..6 {
        if legal & (1 << a) != 0 {
            p[a] = e.priors[a].max(0.0);
            sum += p[a];
        }
    }
    if sum > 0.0 && sum.is_finite() {
        p.iter_mut().for_each(|x| *x /= sum);
        p
    } else {
        crate::search::uniform_priors(legal)
    }
}

/// Where a descent ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Leaf {
    /// A new node that needs the evaluator.
    NeedsEval(NodeId),
    /// A terminal node: its exact value was backed up already.
    Done,
}

/// One game's search tree.
#[derive(Clone, Debug)]
pub struct SearchTree {
    nodes: Vec<Node>,
    spare: Vec<Node>,
    scratch: Vec<NodeId>,
    root: NodeId,
    /// The root's priors as the evaluator gave them (its `prior` may carry root noise);
    /// 0 until the root is evaluated.
    root_raw: [f32; 6],
    capacity: usize,
}

impl SearchTree {
    /// A tree able to hold `capacity` nodes without reallocating.
    pub fn new(capacity: usize) -> SearchTree {
        SearchTree {
            nodes: Vec::with_capacity(capacity + 1),
            spare: Vec::with_capacity(capacity + 1),
            scratch: Vec::with_capacity(64),
            root: NONE,
            root_raw: [0.0; 6],
            capacity: capacity.max(8),
        }
    }

    /// Starts a fresh tree at `pos` (the root still needs evaluating).
    pub fn reset(&mut self, pos: Position) {
        self.nodes.clear();
        // Slot 0 is a sentinel so that 0 can mean "no child".
        self.nodes.push(Node::new(pos));
        self.nodes.push(Node::new(pos));
        self.root = 1;
        self.root_raw = [0.0; 6];
    }

    /// The root's id.
    #[inline]
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// A node.
    #[inline]
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// A node, mutably.
    #[inline]
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    /// Asks for node `id` (every cache line of it), which will be read soon.
    #[inline]
    pub fn prefetch(&self, id: NodeId) {
        if let Some(node) = self.nodes.get(id as usize) {
            crate::search::prefetch::prefetch(node);
        }
    }

    /// Asks for the first cache line of node `id`: all that a backup through it reads
    /// and writes (see [`Node`]).
    #[inline]
    pub fn prefetch_stats(&self, id: NodeId) {
        if let Some(node) = self.nodes.get(id as usize) {
            crate::search::prefetch::prefetch(node as *const Node as *const [u8; 64]);
        }
    }

    /// The root's priors as the evaluator gave them, without root noise (0 before the
    /// root is evaluated).
    #[inline]
    pub fn root_raw_prior(&self) -> [f32; 6] {
        self.root_raw
    }

    /// The root node.
    #[inline]
    pub fn root_node(&self) -> &Node {
        &self.nodes[self.root as usize]
    }

    /// Nodes in use.
    pub fn len(&self) -> usize {
        self.nodes.len() - 1
    }

    /// True before `reset`.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// Whether `more` new nodes fit without reallocating.
    #[inline]
    pub fn has_room(&self, more: usize) -> bool {
        self.nodes.len() + more <= self.capacity + 1
    }

    /// Creates the child of `parent` by `action`, deciding at once whether the game is
    /// over there (see [`judge_child`]: rules' endings, a repetition of a position on the
    /// path or in the game since its last capture (`seen`), or a result the tables `tb`
    /// prove).
    pub fn add_child(
        &mut self,
        rules: RuleSet,
        parent: NodeId,
        action: usize,
        path: &[(NodeId, u8)],
        seen: impl Fn(&Position) -> bool,
        tb: Option<&Tablebase>,
    ) -> NodeId {
        let id = self.nodes.len() as NodeId;
        let (pos, legal, end) = judge_child(
            &self.nodes[parent as usize].pos,
            rules,
            action,
            |key| {
                path.iter()
                    .any(|&(p, _)| self.nodes[p as usize].pos.key() == key)
            },
            seen,
            tb,
        );
        let mut node = Node::new(pos);
        match end {
            Some(v) => {
                node.kind = NodeKind::Terminal;
                node.value = v;
            }
            None => node.legal = legal,
        }
        self.nodes.push(node);
        self.nodes[parent as usize].children[action] = id;
        id
    }

    /// Marks the root terminal or computes its legal moves (call after `reset` when the
    /// game's history is known).
    pub fn prepare_root(&mut self, rules: RuleSet) {
        let r = self.root as usize;
        let pos = self.nodes[r].pos;
        match pos.status(rules) {
            Some(o) => {
                self.nodes[r].kind = NodeKind::Terminal;
                self.nodes[r].value = o.score_for(pos.side) as f32;
            }
            None => self.nodes[r].legal = pos.legal_moves(rules),
        }
    }

    /// Makes `new_pos` the root of a fresh tree, keeping only the evaluation of the
    /// root's child through `action` when it holds `new_pos`: its priors and value become
    /// the new root's, as if the root had just been evaluated (the evaluator is a
    /// function of the position, so evaluating it again would give the same). Returns
    /// whether the evaluation was kept; if not, the root waits for an evaluation.
    pub fn restart_at_child(&mut self, action: usize, new_pos: Position, rules: RuleSet) -> bool {
        let child = self.nodes[self.root as usize].children[action];
        let kept = (child != NONE)
            .then(|| &self.nodes[child as usize])
            .filter(|c| c.kind == NodeKind::Expanded && c.pos == new_pos)
            .map(|c| (c.legal, c.prior, c.value));
        self.reset(new_pos);
        self.prepare_root(rules);
        let Some((legal, raw_prior, value)) = kept else {
            return false;
        };
        let r = &mut self.nodes[self.root as usize];
        debug_assert_eq!(r.legal, legal);
        r.kind = NodeKind::Expanded;
        r.prior = raw_prior;
        r.value = value;
        self.root_raw = raw_prior;
        true
    }

    /// Sets an evaluated node's priors (renormalised over the legal moves) and value.
    pub fn expand(&mut self, id: NodeId, e: &Evaluation) {
        let n = &mut self.nodes[id as usize];
        debug_assert_eq!(n.kind, NodeKind::Unexpanded);
        n.prior = legal_priors(n.legal, e);
        n.value = e.value.clamp(-1.0, 1.0);
        n.kind = NodeKind::Expanded;
        if id == self.root {
            self.root_raw = n.prior;
        }
    }

    /// Adds `value` (from the view of the mover at the leaf, whose side is taken from the
    /// leaf node) to every edge of `path`.
    pub fn backup(&mut self, path: &[(NodeId, u8)], leaf: NodeId, value: f32) {
        let leaf_side = self.nodes[leaf as usize].pos.side;
        for &(id, a) in path.iter().rev() {
            let n = &mut self.nodes[id as usize];
            // The mover may stay the same across a move (ouril), so compare sides.
            let v = if n.pos.side == leaf_side {
                value
            } else {
                -value
            };
            n.n[a as usize] += 1;
            n.w[a as usize] += v;
        }
    }

    /// Makes the child by `action` the new root, keeping its subtree (tree reuse);
    /// `new_pos` is the position after the move. The subtree is copied into the spare
    /// arena, so memory stays bounded. Returns false (and starts a fresh tree at
    /// `new_pos`) if there was no such child or keeping it would leave less than
    /// `room_needed` free nodes.
    pub fn advance(&mut self, action: usize, new_pos: Position, room_needed: usize) -> bool {
        let child = self.nodes[self.root as usize].children[action];
        if child == NONE || self.nodes[child as usize].pos != new_pos {
            self.reset(new_pos);
            return false;
        }
        // Count the subtree first; drop it if it would not leave room for a search.
        let mut ids = std::mem::take(&mut self.scratch);
        ids.clear();
        ids.push(child);
        let mut count = 0usize;
        while let Some(id) = ids.pop() {
            count += 1;
            for &c in &self.nodes[id as usize].children {
                if c != NONE {
                    ids.push(c);
                }
            }
        }
        self.scratch = ids;
        if count + room_needed + 2 > self.capacity {
            self.reset(new_pos);
            return false;
        }
        // Breadth-first copy with remapped child ids.
        let mut copy = std::mem::take(&mut self.spare);
        copy.clear();
        copy.push(self.nodes[0]);
        copy.push(self.nodes[child as usize]);
        let mut i = 1;
        while i < copy.len() {
            let children = copy[i].children;
            for (a, &c) in children.iter().enumerate() {
                if c != NONE {
                    let new_id = copy.len() as NodeId;
                    copy.push(self.nodes[c as usize]);
                    copy[i].children[a] = new_id;
                }
            }
            i += 1;
        }
        self.spare = std::mem::replace(&mut self.nodes, copy);
        self.root = 1;
        // Noise only ever touches the root's priors, so the child's are the evaluator's.
        self.root_raw = self.nodes[1].prior;
        true
    }
}

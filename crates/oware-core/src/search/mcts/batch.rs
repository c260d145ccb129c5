//! `BatchSearch`: one search tree per game slot; each `step` runs one simulation in
//! every slot that is searching and evaluates all their leaves in one batch.
//!
//! The games themselves live elsewhere, behind [`SearchLanes`]: self-play's in the batched
//! environment ([`BatchEnv`], lane `i` searched by slot `i`), a match's or a review's
//! as whole [`Game`]s ([`super::SearchedGames`]). The search reads a lane's position,
//! legal moves and repetition history, and the caller plays the move it chooses. Each
//! game's random stream is the caller's too: the search draws its root noise and its
//! move choice from the stream it is handed.

use super::policy::completed_q;
use super::root::{Pick, RootState, RootStats, Schedules, SearchRule, Start, most_visited, rule};
use super::tree::{Leaf, NodeId, NodeKind, SearchTree};
use super::{MctsConfig, SearchValue};
use crate::env::BatchEnv;
use crate::game::{Game, Position, RuleSet};
use crate::rng::Rng;
use crate::search::prefetch::prefetch;
use crate::search::{Evaluation, Evaluator};
use crate::tablebase::Tablebase;
use std::sync::Arc;

/// Where the searched games are kept: what a search reads of game `i`.
pub trait SearchLanes {
    /// Game `i`'s current position.
    fn position(&self, i: usize) -> &Position;
    /// Game `i`'s legal moves as a mask of actions; 0 once it is over.
    fn legal(&self, i: usize) -> u8;
    /// Whether `pos` occurred in game `i` since its last capture (the repetition rule).
    fn seen(&self, i: usize, pos: &Position) -> bool;
}

impl SearchLanes for BatchEnv {
    #[inline]
    fn position(&self, i: usize) -> &Position {
        BatchEnv::position(self, i)
    }
    #[inline]
    fn legal(&self, i: usize) -> u8 {
        BatchEnv::legal(self, i)
    }
    #[inline]
    fn seen(&self, i: usize, pos: &Position) -> bool {
        BatchEnv::seen(self, i, pos)
    }
}

impl SearchLanes for [Game] {
    fn position(&self, i: usize) -> &Position {
        self[i].position()
    }
    fn legal(&self, i: usize) -> u8 {
        self[i].legal_moves()
    }
    fn seen(&self, i: usize, pos: &Position) -> bool {
        self[i].history().contains(pos)
    }
}

/// One game's search.
#[derive(Clone, Debug)]
struct Slot {
    tree: SearchTree,
    path: Vec<(NodeId, u8)>,
    /// Where this step's descent is (see `BatchSearch::descend_all`).
    at: NodeId,
    /// The leaf this step's descent reached for the evaluator; 0 if none.
    leaf: NodeId,
    searching: bool,
    target: u32,
    done: u32,
    noise: bool,
    root: RootState,
}

/// Many searches stepped together; the leaves of all of them form one evaluator batch.
pub struct BatchSearch {
    cfg: MctsConfig,
    /// The algorithm's decisions.
    rule: &'static dyn SearchRule,
    rules: RuleSet,
    slots: Vec<Slot>,
    schedules: Schedules,
    batch_pos: Vec<Position>,
    batch_legal: Vec<u8>,
    batch_at: Vec<(u32, NodeId)>,
    /// The slots still descending in this step.
    descending: Vec<u32>,
    evals: Vec<Evaluation>,
    /// Leaves evaluated so far (for speed reports).
    pub evaluated: u64,
    /// Simulations run so far.
    pub simulations: u64,
    /// Endgame tables: a new node whose result they prove is a finished game.
    tablebase: Option<Arc<Tablebase>>,
}

impl BatchSearch {
    /// `slots` searches under `rules` and `cfg`. Every slot's tree starts at the start
    /// position.
    pub fn new(cfg: MctsConfig, rules: RuleSet, slots: usize) -> BatchSearch {
        let budget = cfg.simulations.max(cfg.cheap_simulations) as usize;
        let capacity = 3 * budget + 64;
        let slots = (0..slots)
            .map(|_| {
                let mut tree = SearchTree::new(capacity);
                tree.reset(Position::start());
                tree.prepare_root(rules);
                Slot {
                    tree,
                    path: Vec::with_capacity(64),
                    at: 0,
                    leaf: 0,
                    searching: false,
                    target: 0,
                    done: 0,
                    noise: false,
                    root: RootState::default(),
                }
            })
            .collect::<Vec<_>>();
        let n = slots.len();
        BatchSearch {
            rule: rule(cfg.algorithm),
            cfg,
            rules,
            slots,
            schedules: Schedules::default(),
            batch_pos: Vec::with_capacity(n),
            batch_legal: Vec::with_capacity(n),
            batch_at: Vec::with_capacity(n),
            descending: Vec::with_capacity(n),
            evals: vec![Evaluation::default(); n],
            evaluated: 0,
            simulations: 0,
            tablebase: None,
        }
    }

    /// Treats every new node below the root whose board `tb` covers as a finished game
    /// with the table's result (+1, 0, −1 for its mover): exact values where the network
    /// would guess. Tables of other rules are ignored.
    pub fn set_tablebase(&mut self, tb: Option<Arc<Tablebase>>) {
        self.tablebase = tb.filter(|t| t.rules() == self.rules);
    }

    /// The search settings.
    pub fn config(&self) -> &MctsConfig {
        &self.cfg
    }

    /// The rules.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True with no slots.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Whether slot `i`'s current (or last) search was begun with root noise.
    pub fn root_noise(&self, i: usize) -> bool {
        self.slots[i].noise
    }

    /// Whether slot `i` is still searching.
    pub fn is_searching(&self, i: usize) -> bool {
        self.slots[i].searching
    }

    /// Slot `i`'s tree.
    pub fn tree(&self, i: usize) -> &SearchTree {
        &self.slots[i].tree
    }

    /// A fresh tree at `pos` for slot `i`: its lane holds a new game.
    pub fn set_root(&mut self, i: usize, pos: &Position) {
        let s = &mut self.slots[i];
        s.tree.reset(*pos);
        s.tree.prepare_root(self.rules);
        s.searching = false;
    }

    /// Starts a search of `simulations` at game `i`'s current position (the position
    /// slot `i`'s tree is at; `legal` its legal moves), with root noise (Dirichlet for
    /// PUCT, Gumbel sampling for Gumbel) drawn from the game's stream `rng` if `noise`.
    /// Returns false if the game is over (nothing to search).
    pub fn begin(
        &mut self,
        i: usize,
        legal: u8,
        simulations: u32,
        noise: bool,
        rng: &mut Rng,
    ) -> bool {
        let cfg = &self.cfg;
        let s = &mut self.slots[i];
        if legal == 0 {
            s.searching = false;
            return false;
        }
        s.target = simulations.max(1);
        s.done = 0;
        s.searching = true;
        s.noise = noise;
        s.root = RootState::default();
        let root = s.tree.root();
        let raw = s.tree.root_raw_prior();
        let node = s.tree.node_mut(root);
        node.prior = raw;
        let start = Start {
            root: node,
            legal,
            simulations: s.target,
            noise,
            rng,
            state: &mut s.root,
        };
        self.rule.begin(cfg, &mut self.schedules, start);
        true
    }

    /// Starts a self-play search at game `i` (see [`BatchSearch::begin`]) with playout
    /// cap randomisation (KataGo): with probability `full_search_fraction`, drawn from
    /// the game's stream `rng`, a full search of `simulations` with root noise, else a
    /// cheap one of `cheap_simulations`, with noise where the algorithm keeps it there.
    /// Returns whether the search is full (its position a training sample), `None` if
    /// the game is over.
    pub fn begin_capped(&mut self, i: usize, legal: u8, rng: &mut Rng) -> Option<bool> {
        let full = rng.unit_f32() < self.cfg.full_search_fraction;
        let simulations = if full {
            self.cfg.simulations
        } else {
            self.cfg.cheap_simulations
        };
        let noise = full || self.rule.cheap_search_noise();
        self.begin(i, legal, simulations, noise, rng)
            .then_some(full)
    }

    /// Runs one simulation in every searching slot, evaluating all new leaves in one
    /// call; slot `i` searches lane `i` of `lanes`. Returns how many slots are still
    /// searching afterwards.
    pub fn step<L: SearchLanes + ?Sized>(
        &mut self,
        lanes: &L,
        evaluator: &mut dyn Evaluator,
    ) -> usize {
        self.batch_pos.clear();
        self.batch_legal.clear();
        self.batch_at.clear();
        let rules = self.rules;
        self.descend_all(lanes);
        for (i, s) in self.slots.iter().enumerate() {
            if let Some(t) = self.slots.get(i + AHEAD)
                && t.searching
            {
                t.tree.prefetch_stats(t.leaf);
            }
            if s.searching && s.leaf != 0 {
                let n = s.tree.node(s.leaf);
                self.batch_pos.push(n.pos);
                self.batch_legal.push(n.legal);
                self.batch_at.push((i as u32, s.leaf));
            }
        }
        let n = self.batch_pos.len();
        if n > 0 {
            if self.evals.len() < n {
                self.evals.resize(n, Evaluation::default());
            }
            evaluator.evaluate(
                rules,
                &self.batch_pos,
                &self.batch_legal,
                &mut self.evals[..n],
            );
            for e in &mut self.evals[..n] {
                super::policy::temper(&mut e.priors, self.cfg.policy_temperature);
            }
            self.evaluated += n as u64;
        }
        for (k, &(i, id)) in self.batch_at.iter().enumerate() {
            prefetch_backup(&self.slots, &self.batch_at, k);
            let s = &mut self.slots[i as usize];
            let e = &self.evals[k];
            s.tree.expand(id, e);
            if id == s.tree.root() {
                let root = s.tree.node_mut(id);
                self.rule.root_expanded(&self.cfg, root, &mut s.root);
            }
            let v = s.tree.node(id).value;
            s.tree.backup(&s.path, id, v);
            if !s.path.is_empty() {
                s.done += 1;
                self.simulations += 1;
            }
        }
        let mut searching = 0;
        for s in &mut self.slots {
            if s.searching {
                // The count first: most slots are not done, and their roots are not in
                // the caches.
                if s.done >= s.target && s.tree.root_node().kind == NodeKind::Expanded {
                    s.searching = false;
                } else {
                    searching += 1;
                }
            }
        }
        searching
    }

    /// Descends every searching slot's tree to a leaf (`Slot::leaf`, 0 where the
    /// simulation ended at a finished game, which is counted here), the slots in
    /// lockstep: each pass takes every slot still descending one level down and asks
    /// for the next node of the slot `AHEAD` places on, so the trips to memory of
    /// different trees overlap. Each slot's descent is the same as alone.
    fn descend_all<L: SearchLanes + ?Sized>(&mut self, lanes: &L) {
        let how = &Descent {
            cfg: &self.cfg,
            rule: self.rule,
            rules: self.rules,
            schedules: &self.schedules,
            tb: self.tablebase.as_deref(),
        };
        let (slots, active) = (&mut self.slots, &mut self.descending);
        active.clear();
        for (i, s) in slots.iter_mut().enumerate() {
            if s.searching {
                s.path.clear();
                s.at = s.tree.root();
                s.leaf = 0;
                active.push(i as u32);
            }
        }
        while !active.is_empty() {
            let mut kept = 0;
            for k in 0..active.len() {
                // Two stages: the slot itself first, so that reading where its tree
                // and path are, `AHEAD` places on, waits for nothing.
                if let Some(&j) = active.get(k + 2 * AHEAD) {
                    prefetch(&slots[j as usize]);
                }
                if let Some(&j) = active.get(k + AHEAD) {
                    let t = &slots[j as usize];
                    t.tree.prefetch(t.at);
                }
                let i = active[k] as usize;
                let s = &mut slots[i];
                match descend_level(s, how, |p| lanes.seen(i, p)) {
                    None => {
                        active[kept] = i as u32;
                        kept += 1;
                    }
                    Some(Leaf::NeedsEval(id)) => s.leaf = id,
                    Some(Leaf::Done) => {
                        if !s.path.is_empty() {
                            s.done += 1;
                            self.simulations += 1;
                        }
                    }
                }
            }
            active.truncate(kept);
        }
    }

    /// Steps until no slot is searching.
    pub fn run<L: SearchLanes + ?Sized>(&mut self, lanes: &L, evaluator: &mut dyn Evaluator) {
        while self.step(lanes, evaluator) > 0 {}
    }

    /// The result of slot `i`'s last search.
    pub fn result(&self, i: usize) -> RootStats {
        let s = &self.slots[i];
        let (root, raw) = (s.tree.root_node(), s.tree.root_raw_prior());
        root_result(&self.cfg, self.rule, root, raw, &s.root, s.done)
    }

    /// The move a game plays from `r`, the result of one of this search's slots, as
    /// `pick` says ([`Pick`]: PUCT samples by temperature, Gumbel plays its own noisy
    /// choice or its policy target's argmax), drawing from the game's stream `rng`.
    pub fn choose(&self, r: &RootStats, pick: Pick, rng: &mut Rng) -> usize {
        self.rule.pick(r, pick, rng)
    }

    /// The principal variation of slot `i`: most-visited children from the root.
    pub fn principal_variation(&self, i: usize, max_len: usize) -> Vec<usize> {
        let t = &self.slots[i].tree;
        most_visited_line(t.root(), max_len, |id| *t.node(id))
    }

    /// Moves slot `i`'s tree along `action`, which the caller has just played in lane
    /// `i` of `lanes` (reusing the subtree when configured).
    pub fn advance<L: SearchLanes + ?Sized>(&mut self, i: usize, action: usize, lanes: &L) {
        let reuse = self.cfg.tree_reuse && self.rule.keeps_subtree();
        let room = self.cfg.simulations.max(self.cfg.cheap_simulations) as usize + 2;
        let s = &mut self.slots[i];
        s.searching = false;
        let pos = *lanes.position(i);
        if lanes.legal(i) == 0 {
            s.tree.reset(pos);
            return;
        }
        if reuse {
            if !s.tree.advance(action, pos, room) {
                s.tree.reset(pos);
                s.tree.prepare_root(self.rules);
            }
        } else {
            // No visits carry over, but the child's evaluation does: the next search
            // need not evaluate its root again.
            s.tree.restart_at_child(action, pos, self.rules);
        }
    }
}

/// What a descent needs besides its slot.
struct Descent<'a> {
    cfg: &'a MctsConfig,
    rule: &'static dyn SearchRule,
    rules: RuleSet,
    schedules: &'a Schedules,
    tb: Option<&'a Tablebase>,
}

/// How many slots ahead the descents and the backups ask for the nodes they will
/// read. A batch's trees are far larger than the caches, and each simulation of a slot
/// comes a whole batch (and a network call) after its last, so every node is a trip to
/// memory unless asked for early.
const AHEAD: usize = 8;

/// Asks for what the backups of the leaves `k + AHEAD / 2` (the leaf, which is expanded,
/// and the first line of each node on the way down, which is all a backup reads there)
/// and `k + AHEAD` (the list of those nodes) of `batch` will read, and the slot of
/// `k + 2 AHEAD`, where those are found.
fn prefetch_backup(slots: &[Slot], batch: &[(u32, NodeId)], k: usize) {
    if let Some(&(j, leaf)) = batch.get(k + AHEAD / 2) {
        let t = &slots[j as usize];
        t.tree.prefetch(leaf);
        t.path.iter().for_each(|&(p, _)| t.tree.prefetch_stats(p));
    }
    if let Some(&(j, _)) = batch.get(k + AHEAD) {
        prefetch(slots[j as usize].path.as_ptr());
    }
    if let Some(&(j, _)) = batch.get(k + 2 * AHEAD) {
        prefetch(&slots[j as usize]);
    }
}

/// Takes slot `s`'s descent one level down from `s.at` (a fresh descent starts at the
/// root with an empty `s.path`): `None` while it goes on (`s.at` is the next node), else
/// where it ended. A new leaf is created; terminal leaves are backed up here (`seen`:
/// the game's repetition history).
fn descend_level(
    s: &mut Slot,
    how: &Descent<'_>,
    seen: impl Fn(&Position) -> bool,
) -> Option<Leaf> {
    let tree = &mut s.tree;
    let id = s.at;
    let node = tree.node(id);
    match node.kind {
        NodeKind::Terminal => {
            let v = node.value;
            tree.backup(&s.path, id, v);
            return Some(Leaf::Done);
        }
        NodeKind::Unexpanded => return Some(Leaf::NeedsEval(id)),
        NodeKind::Expanded => {}
    }
    let at_root = id == tree.root();
    let a = how
        .rule
        .select(how.cfg, node, at_root, s.done, &s.root, how.schedules);
    let child = node.children[a];
    s.path.push((id, a as u8));
    if child != 0 {
        s.at = child;
        return None;
    }
    if !tree.has_room(1) {
        // Out of room (cannot happen with the capacity BatchSearch sets): count the
        // parent's own value again rather than grow.
        let v = tree.node(id).value;
        s.path.pop();
        tree.backup(&s.path, id, v);
        return Some(Leaf::Done);
    }
    let c = tree.add_child(how.rules, id, a, &s.path, &seen, how.tb);
    let n = tree.node(c);
    if n.kind == NodeKind::Terminal {
        let v = n.value;
        tree.backup(&s.path, c, v);
        return Some(Leaf::Done);
    }
    Some(Leaf::NeedsEval(c))
}

/// A finished search's result at `root` (whose priors before root noise are
/// `raw_prior`) under `rule`, after `done` simulations.
pub(super) fn root_result(
    cfg: &MctsConfig,
    rule: &dyn SearchRule,
    root: &super::tree::Node,
    raw_prior: [f32; 6],
    state: &RootState,
    done: u32,
) -> RootStats {
    let policy = rule.policy(cfg, root);
    let best = rule.best(cfg, root, state);
    RootStats {
        visits: root.n,
        policy,
        prior: raw_prior,
        q: std::array::from_fn(|a| root.q(a)),
        value: match cfg.search_value {
            SearchValue::Mean => root.mean_value(),
            SearchValue::Improved => {
                let q = completed_q(root);
                (0..6)
                    .map(|a| policy[a] * q[a])
                    .sum::<f32>()
                    .clamp(-1.0, 1.0)
            }
        },
        best,
        simulations: done,
        legal: root.legal,
    }
}

/// The most-visited line from `root` (at most `max_len` moves), reading nodes through
/// `node`: it stops at a node not expanded or not visited, or an edge with no child.
pub(super) fn most_visited_line(
    root: NodeId,
    max_len: usize,
    node: impl Fn(NodeId) -> super::tree::Node,
) -> Vec<usize> {
    let mut id = root;
    let mut pv = Vec::new();
    while pv.len() < max_len {
        let n = node(id);
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

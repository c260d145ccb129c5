//! The search's rule, one implementation per algorithm: how a search starts at its root
//! (noise, the visit schedule, whether a cheap search explores), which edge a simulation
//! follows at the root and below, what a finished search gives as its policy target and
//! its move, how a game's move is picked from it (by temperature, or the search's own
//! noisy choice) and whether the played move's subtree is kept. `BatchSearch` asks its
//! rule, and self-play asks `BatchSearch`: neither asks which algorithm runs.
//!
//! - [`Puct`]: AlphaZero's PUCT everywhere, Dirichlet noise at the root, the visit
//!   distribution as the policy target, the most-visited move (ties by Q).
//! - [`Gumbel`]: Gumbel AlphaZero: Gumbel top-k with sequential halving at the root,
//!   the deterministic improved-policy rule below it, the improved policy as the target.

use rand_distr::{Distribution, Gamma};

use super::policy::{
    considered_visits, gumbel_final_action, gumbel_interior_select, gumbel_root_select,
    improved_policy, puct_select, visit_policy,
};
use super::tree::{Node, NodeKind};
use super::{Algorithm, MctsConfig};
use crate::rng::Rng;

/// A slot's root state for its current search.
#[derive(Clone, Debug, Default)]
pub(crate) struct RootState {
    /// Gumbel noise per root action (0 without noise).
    pub gumbel: [f32; 6],
    /// Index of the search's visit schedule in [`Schedules`].
    pub schedule: usize,
    /// Dirichlet noise (normalised over the root's legal moves), drawn when the search
    /// began, to mix into the priors once the root is expanded.
    pub noise_pending: Option<[f32; 6]>,
}

/// How a game's move is picked from a finished search (each rule reads its own part).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pick {
    /// PUCT: a sample ∝ N^(1/T) over the root's visits at this temperature; 0 plays the
    /// most visited (ties by Q).
    pub temperature: f32,
    /// Gumbel: play the search's own choice, which its root noise shapes; false plays
    /// the argmax of its policy target (the improved policy, without noise).
    pub noisy: bool,
}

/// Sequential halving's visit schedules, one per (considered actions, simulations),
/// shared by the slots of a batch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Schedules(Vec<(usize, u32, Vec<u32>)>);

impl Schedules {
    /// The index of the schedule for `m` considered actions and `n` simulations, made
    /// on first use.
    fn index(&mut self, m: usize, n: u32) -> usize {
        match self.0.iter().position(|t| t.0 == m && t.1 == n) {
            Some(k) => k,
            None => {
                self.0.push((m, n, considered_visits(m, n as usize)));
                self.0.len() - 1
            }
        }
    }

    /// Schedule `k`.
    pub fn get(&self, k: usize) -> &[u32] {
        &self.0[k].2
    }
}

/// What a search's start needs of its slot.
pub(crate) struct Start<'a> {
    /// The root (expanded or not); its priors are its raw priors again.
    pub root: &'a mut Node,
    /// Legal moves at the root.
    pub legal: u8,
    /// Simulations the search will run.
    pub simulations: u32,
    /// Whether the search explores with root noise.
    pub noise: bool,
    /// The game's random stream.
    pub rng: &'a mut Rng,
    /// The slot's root state, reset to its default.
    pub state: &'a mut RootState,
}

/// One search algorithm's decisions.
pub(crate) trait SearchRule: Sync {
    /// Prepares a search at its root: noise and schedule.
    fn begin(&self, cfg: &MctsConfig, schedules: &mut Schedules, s: Start<'_>);

    /// Called when the root has just been expanded (its priors are known).
    fn root_expanded(&self, _cfg: &MctsConfig, _root: &mut Node, _state: &mut RootState) {}

    /// The edge a simulation follows at `node`; at the root, `done` simulations of the
    /// search have run.
    fn select(
        &self,
        cfg: &MctsConfig,
        node: &Node,
        at_root: bool,
        done: u32,
        state: &RootState,
        schedules: &Schedules,
    ) -> usize;

    /// The policy target of a finished search.
    fn policy(&self, cfg: &MctsConfig, root: &Node) -> [f32; 6];

    /// The move the search recommends without temperature.
    fn best(&self, cfg: &MctsConfig, root: &Node, state: &RootState) -> usize;

    /// The move a game plays from the finished search's result `r`, drawing from `rng`
    /// where the rule samples.
    fn pick(&self, r: &RootStats, pick: Pick, rng: &mut Rng) -> usize;

    /// Whether a cheap search of playout cap randomisation (one that records no sample)
    /// still searches with root noise.
    fn cheap_search_noise(&self) -> bool;

    /// Whether the played move's subtree may be kept for the next search.
    fn keeps_subtree(&self) -> bool;
}

/// The rule of `algorithm`.
pub(crate) fn rule(algorithm: Algorithm) -> &'static dyn SearchRule {
    match algorithm {
        Algorithm::Puct => &Puct,
        Algorithm::Gumbel => &Gumbel,
    }
}

/// AlphaZero's PUCT.
pub(crate) struct Puct;

impl SearchRule for Puct {
    fn begin(&self, cfg: &MctsConfig, _: &mut Schedules, s: Start<'_>) {
        // A terminal root is never expanded: no noise is drawn for it.
        if !s.noise || s.root.kind == NodeKind::Terminal {
            return;
        }
        let eta = draw_dirichlet(s.root.legal, cfg, s.rng);
        if s.root.kind == NodeKind::Expanded {
            mix_dirichlet(s.root, cfg, eta);
        } else {
            s.state.noise_pending = eta;
        }
    }

    fn root_expanded(&self, cfg: &MctsConfig, root: &mut Node, state: &mut RootState) {
        if let Some(eta) = state.noise_pending.take() {
            mix_dirichlet(root, cfg, Some(eta));
        }
    }

    fn select(
        &self,
        cfg: &MctsConfig,
        node: &Node,
        _: bool,
        _: u32,
        _: &RootState,
        _: &Schedules,
    ) -> usize {
        puct_select(node, cfg)
    }

    fn policy(&self, _: &MctsConfig, root: &Node) -> [f32; 6] {
        visit_policy(root)
    }

    fn best(&self, _: &MctsConfig, root: &Node, _: &RootState) -> usize {
        most_visited(root.n, root.legal, |a| {
            root.q(a).unwrap_or(f32::NEG_INFINITY)
        })
    }

    fn pick(&self, r: &RootStats, pick: Pick, rng: &mut Rng) -> usize {
        sample_by_visits(r, pick.temperature, rng)
    }

    fn cheap_search_noise(&self) -> bool {
        // A cheap search plays a move and records no sample: Dirichlet noise there would
        // only spoil the move.
        false
    }

    fn keeps_subtree(&self) -> bool {
        true
    }
}

/// Gumbel AlphaZero.
pub(crate) struct Gumbel;

impl SearchRule for Gumbel {
    fn begin(&self, cfg: &MctsConfig, schedules: &mut Schedules, s: Start<'_>) {
        if s.noise {
            for g in &mut s.state.gumbel {
                let u = s.rng.unit_f64().max(1e-300);
                *g = -(-(u.ln())).ln() as f32;
            }
        }
        let m = (cfg.gumbel_considered as usize)
            .min(s.legal.count_ones() as usize)
            .max(1);
        s.state.schedule = schedules.index(m, s.simulations);
    }

    fn select(
        &self,
        cfg: &MctsConfig,
        node: &Node,
        at_root: bool,
        done: u32,
        state: &RootState,
        schedules: &Schedules,
    ) -> usize {
        if at_root {
            let t = schedules.get(state.schedule);
            let k = (done as usize).min(t.len().saturating_sub(1));
            gumbel_root_select(node, cfg, &state.gumbel, t.get(k).copied().unwrap_or(0))
        } else {
            gumbel_interior_select(node, cfg)
        }
    }

    fn policy(&self, cfg: &MctsConfig, root: &Node) -> [f32; 6] {
        improved_policy(root, cfg)
    }

    fn best(&self, cfg: &MctsConfig, root: &Node, state: &RootState) -> usize {
        gumbel_final_action(root, cfg, &state.gumbel)
    }

    fn pick(&self, r: &RootStats, pick: Pick, _: &mut Rng) -> usize {
        if pick.noisy {
            r.best
        } else {
            argmax_legal(&r.policy, r.legal)
        }
    }

    fn cheap_search_noise(&self) -> bool {
        // The root's Gumbel sampling is how this algorithm picks among its considered
        // moves, so it stays.
        true
    }

    fn keeps_subtree(&self) -> bool {
        false
    }
}

/// Most visits among legal actions; ties by `tiebreak` (higher wins), then lowest action.
pub(crate) fn most_visited(n: [u32; 6], legal: u8, tiebreak: impl Fn(usize) -> f32) -> usize {
    let mut best = None::<usize>;
    for a in 0..6 {
        if legal & (1 << a) == 0 {
            continue;
        }
        best = match best {
            None => Some(a),
            Some(b) if n[a] > n[b] || (n[a] == n[b] && tiebreak(a) > tiebreak(b)) => Some(a),
            keep => keep,
        };
    }
    best.unwrap_or(0)
}

/// The legal action with the largest `p` (the lowest on ties).
pub(crate) fn argmax_legal(p: &[f32; 6], legal: u8) -> usize {
    (0..6)
        .filter(|&a| legal & (1 << a) != 0)
        .fold(None, |best: Option<usize>, a| match best {
            Some(b) if p[b] >= p[a] => Some(b),
            _ => Some(a),
        })
        .unwrap_or(0)
}

/// A Dirichlet(α) sample η over the `legal` moves (one Gamma draw each from `rng`), 0
/// elsewhere; `None` where it carries no weight (α invalid, or every draw 0).
fn draw_dirichlet(legal: u8, cfg: &MctsConfig, rng: &mut Rng) -> Option<[f32; 6]> {
    let gamma = Gamma::new(cfg.dirichlet_alpha as f64, 1.0).ok()?;
    let mut noise = [0.0f64; 6];
    let mut sum = 0.0;
    for (a, x) in noise.iter_mut().enumerate() {
        if legal & (1 << a) != 0 {
            *x = gamma.sample(rng);
            sum += *x;
        }
    }
    (sum > 0.0).then(|| std::array::from_fn(|a| (noise[a] / sum) as f32))
}

/// Mixes the noise η into the root's priors: `(1 − f)·P + f·η` on legal moves. `P` is
/// `node.prior`, the evaluator's here: every caller has just set it so.
fn mix_dirichlet(node: &mut Node, cfg: &MctsConfig, eta: Option<[f32; 6]>) {
    let Some(eta) = eta else {
        return;
    };
    let f = cfg.dirichlet_fraction;
    for a in 0..6 {
        if node.legal & (1 << a) != 0 {
            node.prior[a] = (1.0 - f) * node.prior[a] + f * eta[a];
        }
    }
}

/// What one finished search says about its root.
#[derive(Clone, Debug, PartialEq)]
pub struct RootStats {
    /// Visits of each root action.
    pub visits: [u32; 6],
    /// The policy training target: the visit distribution (PUCT) or the improved policy
    /// softmax(logits + σ(completed Q)) (Gumbel). 0 on illegal moves.
    pub policy: [f32; 6],
    /// The evaluator's prior at the root (after the policy temperature, before noise).
    pub prior: [f32; 6],
    /// Mean value of each root action from the mover's view (`None` if unvisited).
    pub q: [Option<f32>; 6],
    /// The root's value estimate, mover's view, [−1, 1].
    pub value: f32,
    /// The move the search recommends without temperature: most visits (PUCT, ties by
    /// Q) or Gumbel's sequential-halving winner.
    pub best: usize,
    /// Simulations run in this search (reused visits not counted).
    pub simulations: u32,
    /// Legal moves at the root.
    pub legal: u8,
}

/// A move from a finished search: with `temperature` > 0 a sample ∝ N^(1/T) over the
/// root's visits drawn from `rng`, else (or with no visits) the search's best.
pub(super) fn sample_by_visits(r: &RootStats, temperature: f32, rng: &mut Rng) -> usize {
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
    if total <= 0.0 {
        return r.best;
    }
    let mut x = rng.unit_f64() * total;
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

//! The search's rule, one implementation per algorithm: how a search starts at its root
//! (noise, the visit schedule), which edge a simulation follows at the root and below,
//! what a finished search gives as its policy target and its move, and whether a move is
//! sampled by temperature or the played move's subtree is kept. `BatchSearch` asks its
//! rule and never which algorithm runs.
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
    /// Dirichlet noise is due once the root is expanded.
    pub noise_pending: bool,
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
    /// The slot's generator.
    pub rng: &'a mut Rng,
    /// The slot's root state, reset to its default.
    pub state: &'a mut RootState,
}

/// One search algorithm's decisions.
pub(crate) trait SearchRule: Sync {
    /// Prepares a search at its root: noise and schedule.
    fn begin(&self, cfg: &MctsConfig, schedules: &mut Schedules, s: Start<'_>);

    /// Called when the root has just been expanded (its priors are known).
    fn root_expanded(
        &self,
        _cfg: &MctsConfig,
        _root: &mut Node,
        _rng: &mut Rng,
        _state: &mut RootState,
    ) {
    }

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

    /// Whether a move may be sampled by a temperature over visits (else the search's own
    /// choice is played).
    fn samples_by_temperature(&self) -> bool;

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
        if s.noise {
            if s.root.kind == NodeKind::Expanded {
                add_dirichlet(s.root, cfg, s.rng);
            } else {
                s.state.noise_pending = true;
            }
        }
    }

    fn root_expanded(
        &self,
        cfg: &MctsConfig,
        root: &mut Node,
        rng: &mut Rng,
        state: &mut RootState,
    ) {
        if state.noise_pending {
            add_dirichlet(root, cfg, rng);
            state.noise_pending = false;
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

    fn samples_by_temperature(&self) -> bool {
        true
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

    fn samples_by_temperature(&self) -> bool {
        false
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

/// Mixes Dirichlet(α) noise into the root's priors: `(1 − f)·P + f·η` on legal moves.
fn add_dirichlet(node: &mut Node, cfg: &MctsConfig, rng: &mut Rng) {
    let Ok(gamma) = Gamma::new(cfg.dirichlet_alpha as f64, 1.0) else {
        return;
    };
    let mut noise = [0.0f64; 6];
    let mut sum = 0.0;
    for (a, x) in noise.iter_mut().enumerate() {
        if node.legal & (1 << a) != 0 {
            *x = gamma.sample(rng);
            sum += *x;
        }
    }
    if sum <= 0.0 {
        return;
    }
    let f = cfg.dirichlet_fraction;
    for a in 0..6 {
        if node.legal & (1 << a) != 0 {
            node.prior[a] = (1.0 - f) * node.raw_prior[a] + f * (noise[a] / sum) as f32;
        }
    }
}

//! Batched Monte Carlo tree search: many games, one tree each; every simulation step
//! descends all trees, sends all their leaves to the `Evaluator` as one batch, then
//! expands and backs up (as mctx and KataGo's batched evaluation do).
//!
//! - `tree`: the arena-allocated tree of one game.
//! - `policy`: PUCT and Gumbel selection, improved policy, sequential halving.
//! - `batch`: `BatchSearch`, the driver over many trees, reading the games from their
//!   `SearchLanes` (self-play's batched environment, or whole games).
//! - `games`: `SearchedGames`, whole games kept beside their search (matches, reviews).
//! - `atomic`: `AtomicTree`, a tree that several threads grow at once without a lock.
//! - `parallel`: `ParallelSearch`, one tree searched by several threads with batched
//!   leaves and virtual loss, in bounded memory (the engine's search).
//! - `pool`: `WorkerPool`, the threads `ParallelSearch` keeps between searches.

pub mod atomic;
mod batch;
mod games;
pub mod parallel;
pub mod policy;
mod pool;
mod root;
pub mod tree;

pub use batch::{BatchSearch, SearchLanes};
pub use games::SearchedGames;
pub use parallel::{ParallelSearch, SharedTree, TreeCounters, WorkSpan};
pub use root::{Pick, RootStats};
pub use tree::{Leaf, Node, NodeId, NodeKind, SearchTree};

use serde::{Deserialize, Serialize};

/// Which search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// AlphaZero's PUCT with Dirichlet noise at the root.
    Puct,
    /// Gumbel AlphaZero: Gumbel top-k at the root, sequential halving, completed Q.
    Gumbel,
}

/// What a finished search reports as its root value (the search value that
/// `train.value_target_mix` mixes into the value target).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SearchValue {
    /// The root's mean value over every simulation, including those sequential halving
    /// spends on moves it then discards.
    Mean,
    /// Σ π(a)·Q̂(a): the policy target π weighting the completed Q of each move (its mean
    /// value if visited, else the value mixed from the network and the visited moves).
    Improved,
}

/// Search settings. Defaults are the published starting points of lc0 (c_puct) and
/// mctx (the Gumbel constants).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MctsConfig {
    /// `puct` or `gumbel`.
    pub algorithm: Algorithm,
    /// Simulations of a full search (one simulation = one leaf evaluated or one terminal reached).
    pub simulations: u32,
    /// Simulations of a cheap search (playout cap randomization).
    pub cheap_simulations: u32,
    /// Fraction of self-play moves that get a full search and become policy targets
    /// (KataGo: 0.25); 1.0 turns playout cap randomization off.
    pub full_search_fraction: f32,
    /// PUCT exploration constant.
    pub c_puct: f32,
    /// First-play urgency: unvisited children count as the parent's value minus this.
    pub fpu_reduction: f32,
    /// Policy softmax temperature: the network's priors become softmax(logits / T)
    /// before the search sees them (lc0's policy softmax temperature); 1 leaves them
    /// as they are, above 1 flattens them.
    pub policy_temperature: f32,
    /// Dirichlet noise concentration at the root (PUCT, self-play full searches only).
    pub dirichlet_alpha: f32,
    /// Weight of the Dirichlet noise in the root priors.
    pub dirichlet_fraction: f32,
    /// Gumbel: actions considered at the root (m; 6 = all of Oware's moves).
    pub gumbel_considered: u32,
    /// Gumbel: c_visit of σ(q) = (c_visit + max N)·c_scale·q.
    pub gumbel_c_visit: f32,
    /// Gumbel: c_scale of σ(q).
    pub gumbel_c_scale: f32,
    /// Keep the subtree of the played move for the next search (PUCT only: Gumbel's
    /// sequential halving assumes a fresh root, as in mctx).
    pub tree_reuse: bool,
    /// The root value a search reports: `mean` or `improved` ([`SearchValue`]).
    pub search_value: SearchValue,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            algorithm: Algorithm::Gumbel,
            simulations: 64,
            cheap_simulations: 16,
            full_search_fraction: 0.25,
            c_puct: 1.25,
            fpu_reduction: 0.2,
            policy_temperature: 1.0,
            dirichlet_alpha: 0.6,
            dirichlet_fraction: 0.25,
            gumbel_considered: 6,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 0.1,
            tree_reuse: true,
            search_value: SearchValue::Mean,
        }
    }
}

impl MctsConfig {
    /// The settings of an anytime search (an engine's `go movetime`, `play`'s levels and
    /// hints, `analyze`) for a model trained with `self`: PUCT, whose visits can stop at
    /// any moment (Gumbel's sequential halving needs its budget up front), with this
    /// config's PUCT constants (c_puct, first-play urgency, policy temperature) and search
    /// value, up to `simulations` per search, no playout caps.
    pub fn anytime(&self, simulations: u32, tree_reuse: bool) -> MctsConfig {
        MctsConfig {
            algorithm: Algorithm::Puct,
            simulations,
            cheap_simulations: 1,
            full_search_fraction: 1.0,
            c_puct: self.c_puct,
            fpu_reduction: self.fpu_reduction,
            policy_temperature: self.policy_temperature,
            search_value: self.search_value,
            tree_reuse,
            ..MctsConfig::default()
        }
    }

    /// Checks every value; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        if self.simulations == 0 {
            return Err("simulations must be at least 1".into());
        }
        if self.cheap_simulations == 0 {
            return Err("cheap_simulations must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.full_search_fraction) {
            return Err(format!(
                "full_search_fraction = {} must be in [0, 1]",
                self.full_search_fraction
            ));
        }
        for (k, v) in [
            ("c_puct", self.c_puct),
            ("policy_temperature", self.policy_temperature),
            ("dirichlet_alpha", self.dirichlet_alpha),
            ("gumbel_c_visit", self.gumbel_c_visit),
            ("gumbel_c_scale", self.gumbel_c_scale),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("{k} = {v} must be a positive number"));
            }
        }
        if !(0.0..=1.0).contains(&self.dirichlet_fraction) {
            return Err(format!(
                "dirichlet_fraction = {} must be in [0, 1]",
                self.dirichlet_fraction
            ));
        }
        if !self.fpu_reduction.is_finite() {
            return Err("fpu_reduction must be a number".into());
        }
        if !(1..=6).contains(&self.gumbel_considered) {
            return Err(format!(
                "gumbel_considered = {} must be from 1 to 6",
                self.gumbel_considered
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;

//! The learner's settings as plain data: the optimizer, its hyper-parameters, the loss
//! weights. A leaf of `net`: checkpoints record these, and the learner builds its
//! optimizer from them, so neither needs the other for them.

use serde::{Deserialize, Serialize};

use super::DeviceKind;

/// Which optimizer updates the weights.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OptimizerKind {
    /// AdamW (decoupled weight decay; β = 0.9, 0.999; ε = 1e-5).
    #[default]
    Adamw,
    /// SGD with momentum (`momentum`, dampening 0) and L2 weight decay.
    Sgd,
}

/// How training runs. Saved in the manifest of every checkpoint written by a [`Learner`].
///
/// Defaults: `optimizer` adamw, `learning_rate` 1e-3, `weight_decay` 1e-4, `momentum` 0.9
/// (SGD only), `grad_clip_norm` none, `threads` 1, `device` cpu, `seed` 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LearnerConfig {
    /// The optimizer.
    pub optimizer: OptimizerKind,
    /// Initial learning rate; change it per step with [`Learner::set_learning_rate`].
    pub learning_rate: f64,
    /// Weight decay (AdamW: decoupled, per unit learning rate; SGD: L2 penalty).
    pub weight_decay: f32,
    /// SGD momentum factor.
    pub momentum: f64,
    /// Clip the gradient to this global L2 norm, if set.
    pub grad_clip_norm: Option<f32>,
    /// rayon threads for a training step (the learner keeps its own pool; 0 = run in the
    /// caller's pool). On the 2-vCPU machine one thread trains as fast as two
    /// (`oware bench net`), and leaves the other core to self-play.
    pub threads: usize,
    /// Where the model trains.
    pub device: DeviceKind,
    /// Seed of the initial weights (a fresh model only).
    pub seed: u64,
}

impl Default for LearnerConfig {
    fn default() -> Self {
        LearnerConfig {
            optimizer: OptimizerKind::Adamw,
            learning_rate: 1e-3,
            weight_decay: 1e-4,
            momentum: 0.9,
            grad_clip_norm: None,
            threads: 1,
            device: DeviceKind::Cpu,
            seed: 0,
        }
    }
}

/// Weights of the three losses in the total.
///
/// Defaults: policy 1, value 1, store difference 0.25 (an auxiliary signal, kept smaller
/// as KataGo keeps its score head's).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LossWeights {
    /// Weight of the policy cross-entropy.
    pub policy: f32,
    /// Weight of the W/D/L cross-entropy.
    pub value: f32,
    /// Weight of the store-difference MSE.
    pub store_diff: f32,
}

impl Default for LossWeights {
    fn default() -> Self {
        LossWeights {
            policy: 1.0,
            value: 1.0,
            store_diff: 0.25,
        }
    }
}

//! The training step: a [`Learner`] holds the autodiff model and its optimizer and takes
//! one gradient step per [`TrainBatch`] of flat host buffers.
//!
//! Losses (each a mean over the batch):
//! - policy: cross-entropy `−Σ_a target[a]·log softmax(logits masked to the legal moves)[a]`;
//! - value: cross-entropy between the W/D/L target and `softmax(wdl_logits)`;
//! - store difference: mean squared error of `tanh` output against target/48 (both in
//!   [−1, 1], so no Huber clipping is needed).
//!
//! `total = policy_weight·policy + value_weight·value + store_diff_weight·store_diff` with
//! the [`LossWeights`] of the batch.

use burn::grad_clipping::GradientClippingConfig;
use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use serde::{Deserialize, Serialize};

use super::checkpoint::{self, Checkpoint, Manifest};
use super::evaluator::NetEvaluator;
pub use super::learner_config::{LearnerConfig, LossWeights, OptimizerKind};
use super::model::{ModelConfig, POLICY_DIM, PolicyValueNet, WDL_DIM};
use super::sparse::SparseBatch;
use super::{DeviceKind, NetError, catch_burn};
use oware_core::game::RuleSet;

/// The optimizer `config` describes, fresh.
fn build_optimizer(config: &LearnerConfig) -> ModuleOptimizer {
    let clip = config.grad_clip_norm.map(GradientClippingConfig::Norm);
    match config.optimizer {
        OptimizerKind::Adamw => AdamWConfig::new()
            .with_weight_decay(config.weight_decay)
            .with_grad_clipping(clip)
            .init(),
        OptimizerKind::Sgd => SgdConfig::new()
            .with_momentum(Some(MomentumConfig {
                momentum: config.momentum,
                dampening: 0.0,
                nesterov: false,
            }))
            .with_weight_decay((config.weight_decay > 0.0).then_some(WeightDecayConfig {
                penalty: config.weight_decay,
            }))
            .with_gradient_clipping(clip)
            .init(),
    }
}

/// One training batch of `n` samples as flat row-major host buffers. Keep one and refill
/// it (`clear` + [`TrainBatch::push`]) to avoid allocating per batch.
#[derive(Clone, Debug, Default)]
pub struct TrainBatch {
    /// `[n, dim]` encoded positions (the model's encoding).
    pub features: Vec<f32>,
    /// `[n, 6]` policy targets: a distribution over the legal moves (0 on illegal ones).
    pub policy: Vec<f32>,
    /// `[n]` legal-move bit masks (bit `a` set = action `a` legal), as
    /// `Position::legal_moves` gives them.
    pub legal: Vec<u8>,
    /// `[n, 3]` W/D/L targets from the mover's view (one-hot or soft; each row sums to 1).
    pub wdl: Vec<f32>,
    /// `[n]` final (own − opponent) store difference / 48, in [−1, 1].
    pub store_diff: Vec<f32>,
    /// Weights of the three losses.
    pub weights: LossWeights,
}

impl TrainBatch {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.legal.len()
    }

    /// Whether the batch holds no samples.
    pub fn is_empty(&self) -> bool {
        self.legal.is_empty()
    }

    /// Empties the buffers, keeping their memory.
    pub fn clear(&mut self) {
        self.features.clear();
        self.policy.clear();
        self.legal.clear();
        self.wdl.clear();
        self.store_diff.clear();
    }

    /// Appends one sample.
    pub fn push(
        &mut self,
        features: &[f32],
        policy: &[f32; POLICY_DIM],
        legal: u8,
        wdl: &[f32; WDL_DIM],
        store_diff: f32,
    ) {
        self.features.extend_from_slice(features);
        self.policy.extend_from_slice(policy);
        self.legal.push(legal);
        self.wdl.extend_from_slice(wdl);
        self.store_diff.push(store_diff);
    }

    /// Checks the buffer lengths against `n = legal.len()` and input width `dim`, and that
    /// the targets are finite and put no policy mass on illegal moves.
    pub fn validate(&self, dim: usize) -> Result<(), NetError> {
        let n = self.len();
        let bad = |what: &str, got: usize, want: usize| {
            NetError::Config(format!(
                "training batch of {n}: {what} has {got} floats, expected {want}"
            ))
        };
        if n == 0 {
            return Err(NetError::Config("training batch is empty".into()));
        }
        if self.features.len() != n * dim {
            return Err(bad("features", self.features.len(), n * dim));
        }
        if self.policy.len() != n * POLICY_DIM {
            return Err(bad("policy", self.policy.len(), n * POLICY_DIM));
        }
        if self.wdl.len() != n * WDL_DIM {
            return Err(bad("wdl", self.wdl.len(), n * WDL_DIM));
        }
        if self.store_diff.len() != n {
            return Err(bad("store_diff", self.store_diff.len(), n));
        }
        for (i, (row, &m)) in self
            .policy
            .chunks_exact(POLICY_DIM)
            .zip(&self.legal)
            .enumerate()
        {
            if m & 0b11_1111 == 0 {
                return Err(NetError::Config(format!("sample {i}: no legal move")));
            }
            for (a, &p) in row.iter().enumerate() {
                if !p.is_finite() || p < 0.0 || (p > 0.0 && m & (1 << a) == 0) {
                    return Err(NetError::Config(format!(
                        "sample {i}: policy target {p} on action {a} (legal mask {m:06b})"
                    )));
                }
            }
        }
        let all_finite = self
            .features
            .iter()
            .chain(&self.wdl)
            .chain(&self.store_diff)
            .all(|v| v.is_finite());
        if !all_finite {
            return Err(NetError::Config(
                "training batch holds a NaN or infinite value".into(),
            ));
        }
        Ok(())
    }
}

/// What one step measured (losses before the update), or, as `Losses<f64>`, the sum or
/// the mean of several steps' ([`Losses::add`], [`Losses::mean`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Losses<F = f32> {
    /// The weighted sum that was minimised.
    pub total: F,
    /// Policy cross-entropy (nats), mean over the samples.
    pub policy: F,
    /// W/D/L cross-entropy (nats).
    pub value: F,
    /// Store-difference mean squared error (in (seeds/48)²).
    pub store_diff: F,
    /// Mean entropy of the predicted (masked) policy, nats.
    pub policy_entropy: F,
    /// Fraction of samples whose arg-max W/D/L prediction equals the target's arg-max.
    pub value_accuracy: F,
    /// Fraction of samples whose likeliest legal move (the policy's arg-max) is the
    /// target's likeliest (the first of them where several tie).
    pub policy_accuracy: F,
    /// Samples in the batch (in a sum or a mean: in all its batches).
    pub samples: usize,
}

/// A step's losses as the step reads them back: the five scalars, then the W/D/L logits
/// and the masked policy log-probabilities, row by row.
struct Readout<'a> {
    total: f32,
    policy: f32,
    value: f32,
    store_diff: f32,
    policy_entropy: f32,
    /// `[n, 3]`.
    wdl_logits: &'a [f32],
    /// `[n, 6]`.
    policy_logp: &'a [f32],
}

impl<'a> Readout<'a> {
    /// Splits the flat buffer of a batch of `n` (laid out as [`Learner::step_inner`]
    /// concatenates it).
    fn split(flat: &'a [f32], n: usize) -> Result<Readout<'a>, NetError> {
        let [total, policy, value, store_diff, policy_entropy, rows @ ..] = flat else {
            return Err(NetError::Model("reading the losses: too few values".into()));
        };
        if rows.len() != n * (WDL_DIM + POLICY_DIM) {
            return Err(NetError::Model(format!(
                "reading the losses: {} values for a batch of {n}",
                flat.len()
            )));
        }
        let (wdl_logits, policy_logp) = rows.split_at(n * WDL_DIM);
        Ok(Readout {
            total: *total,
            policy: *policy,
            value: *value,
            store_diff: *store_diff,
            policy_entropy: *policy_entropy,
            wdl_logits,
            policy_logp,
        })
    }

    /// The losses, with the accuracies against `batch`'s targets.
    fn losses(&self, batch: &TrainBatch) -> Losses {
        let n = batch.len();
        let share = |predicted: &[f32], targets: &[f32], width: usize| {
            let hits = predicted
                .chunks_exact(width)
                .zip(targets.chunks_exact(width))
                .filter(|(p, t)| argmax(p) == argmax(t))
                .count();
            hits as f32 / n as f32
        };
        Losses {
            total: self.total,
            policy: self.policy,
            value: self.value,
            store_diff: self.store_diff,
            policy_entropy: self.policy_entropy,
            value_accuracy: share(self.wdl_logits, &batch.wdl, WDL_DIM),
            policy_accuracy: share(self.policy_logp, &batch.policy, POLICY_DIM),
            samples: n,
        }
    }
}

impl Losses<f64> {
    /// Adds one step's losses to this sum, field by field.
    pub fn add(&mut self, step: &Losses) {
        self.total += step.total as f64;
        self.policy += step.policy as f64;
        self.value += step.value as f64;
        self.store_diff += step.store_diff as f64;
        self.policy_entropy += step.policy_entropy as f64;
        self.value_accuracy += step.value_accuracy as f64;
        self.policy_accuracy += step.policy_accuracy as f64;
        self.samples += step.samples;
    }

    /// This sum of `steps` steps' losses as their mean (every loss NaN over no step).
    pub fn mean(&self, steps: u64) -> Losses<f64> {
        let m = |sum: f64| {
            if steps > 0 {
                sum / steps as f64
            } else {
                f64::NAN
            }
        };
        Losses {
            total: m(self.total),
            policy: m(self.policy),
            value: m(self.value),
            store_diff: m(self.store_diff),
            policy_entropy: m(self.policy_entropy),
            value_accuracy: m(self.value_accuracy),
            policy_accuracy: m(self.policy_accuracy),
            samples: self.samples,
        }
    }
}

/// Masking constant added to illegal logits: large enough that `exp` gives exactly 0,
/// small enough that `0 · mask` stays 0 (−∞ would give NaN).
const ILLEGAL_LOGIT: f32 = -1e9;

/// The model being trained and its optimizer.
pub struct Learner {
    model: PolicyValueNet,
    optim: ModuleOptimizer,
    model_config: ModelConfig,
    config: LearnerConfig,
    device: Device,
    step: u64,
    learning_rate: f64,
    pool: Option<rayon::ThreadPool>,
    parent: Option<String>,
    /// Reused host buffers for the mask, weights and targets.
    scratch: Vec<f32>,
    /// The input layer on the host for sparse features, and its buffers.
    sparse: SparseInput,
    /// Multiply every feature in burn even where the input is sparse (for measuring the
    /// one against the other, and as the reference in tests).
    dense_input: bool,
    /// Whether the optimizer state came from a checkpoint (false: it started fresh).
    optimizer_loaded: bool,
}

/// The input layer computed on the host ([`super::sparse`]) and its buffers.
#[derive(Debug, Default)]
struct SparseInput {
    batch: SparseBatch,
    /// `[n, width]` pre-activations.
    z: Vec<f32>,
    /// `[dim, width]` and `[width]` gradients.
    grad_w: Vec<f32>,
    grad_b: Vec<f32>,
}

impl Learner {
    /// A fresh model of shape `model_config`, initialised from `config.seed`.
    pub fn new(model_config: &ModelConfig, config: &LearnerConfig) -> Result<Learner, NetError> {
        model_config.validate().map_err(NetError::Config)?;
        let device = config.device.device()?.autodiff();
        device.seed(config.seed);
        let model = catch_burn("building the model", || model_config.init(&device))?;
        Learner::assemble(
            model,
            model_config.clone(),
            config.clone(),
            device,
            0,
            None,
            None,
        )
    }

    /// Resumes from a checkpoint directory: its weights, its step count, and its optimizer
    /// state if it has one. `config` overrides the training config saved in it (if any;
    /// one must exist somewhere).
    pub fn from_checkpoint(
        dir: &std::path::Path,
        config: Option<&LearnerConfig>,
    ) -> Result<Learner, NetError> {
        let manifest = checkpoint::read_manifest(dir)?;
        let config = config
            .cloned()
            .or_else(|| manifest.training.clone())
            .unwrap_or_default();
        let device = config.device.device()?.autodiff();
        let ck = Checkpoint::load(dir, &device)?;
        let optim = if ck.has_optimizer() {
            Some(ck.load_optimizer(build_optimizer(&config))?)
        } else {
            None
        };
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .or_else(|| Some(dir.display().to_string()));
        let step = ck.manifest.step;
        Learner::assemble(
            ck.model,
            ck.manifest.model,
            config,
            device,
            step,
            optim,
            name,
        )
    }

    fn assemble(
        model: PolicyValueNet,
        model_config: ModelConfig,
        config: LearnerConfig,
        device: Device,
        step: u64,
        optim: Option<ModuleOptimizer>,
        parent: Option<String>,
    ) -> Result<Learner, NetError> {
        let pool = if config.threads == 0 {
            None
        } else {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(config.threads)
                    .thread_name(|i| format!("learner-{i}"))
                    .build()
                    .map_err(|e| NetError::Config(format!("training thread pool: {e}")))?,
            )
        };
        Ok(Learner {
            model,
            optimizer_loaded: optim.is_some(),
            optim: optim.unwrap_or_else(|| build_optimizer(&config)),
            learning_rate: config.learning_rate,
            model_config,
            config,
            device,
            step,
            pool,
            parent,
            scratch: Vec::new(),
            sparse: SparseInput::default(),
            dense_input: false,
        })
    }

    /// Whether the optimizer state was loaded from a checkpoint (false: it started fresh,
    /// as for a checkpoint saved without one).
    pub fn has_optimizer_state(&self) -> bool {
        self.optimizer_loaded
    }

    /// Whether the input layer multiplies every feature in burn (`true`) or, for sparse
    /// features, runs on the host over the non-zero ones (`false`, the default). Both
    /// compute the same function and gradients up to the order of float sums; `oware bench
    /// net` times the one against the other.
    pub fn set_dense_input(&mut self, dense: bool) {
        self.dense_input = dense;
    }

    /// Sets the learning rate for the following steps (for schedules).
    pub fn set_learning_rate(&mut self, lr: f64) {
        self.learning_rate = lr;
    }

    /// The learning rate of the next step.
    pub fn learning_rate(&self) -> f64 {
        self.learning_rate
    }

    /// Optimizer steps taken so far (including those before a resume).
    pub fn steps(&self) -> u64 {
        self.step
    }

    /// The model's shape.
    pub fn model_config(&self) -> &ModelConfig {
        &self.model_config
    }

    /// The training config.
    pub fn config(&self) -> &LearnerConfig {
        &self.config
    }

    /// The model being trained (autodiff; use [`Learner::to_inference`] to evaluate).
    pub fn model(&self) -> &PolicyValueNet {
        &self.model
    }

    /// One gradient step on `batch`; returns the losses measured before the update.
    pub fn step(&mut self, batch: &TrainBatch) -> Result<Losses, NetError> {
        self.in_pool(batch, true)
    }

    /// The losses of the current weights on `batch`, without updating them (held-out
    /// evaluation). Runs the inference copy of the model.
    pub fn measure(&mut self, batch: &TrainBatch) -> Result<Losses, NetError> {
        self.in_pool(batch, false)
    }

    /// Checks `batch`, then runs [`Learner::step_inner`] in the learner's thread pool.
    fn in_pool(&mut self, batch: &TrainBatch, update: bool) -> Result<Losses, NetError> {
        batch.validate(self.model_config.input_dim())?;
        let pool = self.pool.take();
        let result = match &pool {
            Some(p) => p.install(|| self.step_inner(batch, update)),
            None => self.step_inner(batch, update),
        };
        self.pool = pool;
        result
    }

    fn step_inner(&mut self, batch: &TrainBatch, update: bool) -> Result<Losses, NetError> {
        let n = batch.len();
        let dim = self.model_config.input_dim();
        let weights = batch.weights;
        let device = if update {
            self.device.clone()
        } else {
            self.device.clone().inner()
        };
        // Host-side pieces: the additive mask, and the policy loss's mean over the batch as
        // a sum weighted 1/n per sample (this order of rounding is the one every recorded
        // run was trained with).
        let mut mask = std::mem::take(&mut self.scratch);
        mask.clear();
        for &m in &batch.legal {
            for a in 0..POLICY_DIM {
                mask.push(if m & (1 << a) != 0 {
                    0.0
                } else {
                    ILLEGAL_LOGIT
                });
            }
        }
        let pw = vec![1.0 / n as f32; n];
        let model = if update {
            self.model.clone()
        } else {
            self.model.valid()
        };
        let host_input = self.host_input_forward(batch, update)?;
        let width = self.model_config.width;
        let sparse_z = &self.sparse.z;
        let run = catch_burn("training step", || {
            let t2 = |v: &[f32], cols: usize| {
                Tensor::<2>::from_data(TensorData::new(v.to_vec(), [n, cols]), &device)
            };
            let z = host_input.then(|| t2(sparse_z, width).require_grad());
            let out = match &z {
                Some(z) => model.forward_from_input(z.clone()),
                None => model.forward(t2(&batch.features, dim)),
            };
            let logp = log_softmax(out.policy_logits + t2(&mask, POLICY_DIM), 1);
            let per_sample = (t2(&batch.policy, POLICY_DIM) * logp.clone())
                .sum_dim(1)
                .neg();
            let policy = (per_sample * t2(&pw, 1)).sum();
            let entropy = (logp.clone().exp() * logp.clone()).sum_dim(1).neg().mean();
            let wdl_logp = log_softmax(out.wdl_logits.clone(), 1);
            let value = (t2(&batch.wdl, WDL_DIM) * wdl_logp).sum_dim(1).neg().mean();
            let diff = out.store_diff - t2(&batch.store_diff, 1);
            let store = (diff.clone() * diff).mean();
            let total = policy.clone() * weights.policy
                + value.clone() * weights.value
                + store.clone() * weights.store_diff;
            let mut grads = update.then(|| total.backward());
            // ∂z for the host's input layer.
            let grad_z = match (&z, grads.as_mut()) {
                (Some(z), Some(g)) => z
                    .grad_remove(g)
                    .map(|t| t.into_data().try_into_vec::<f32>()),
                _ => None,
            };
            // One read back to the host for all of them, in `Readout`'s order.
            let readout = Tensor::cat(
                vec![
                    total,
                    policy,
                    value,
                    store,
                    entropy,
                    out.wdl_logits.reshape([n * WDL_DIM]),
                    logp.reshape([n * POLICY_DIM]),
                ],
                0,
            );
            (grads, grad_z, readout.into_data().try_into_vec::<f32>())
        });
        self.scratch = mask;
        let (grads, grad_z, flat) = run?;
        let flat = flat.map_err(|e| NetError::Model(format!("reading the losses: {e:?}")))?;
        let losses = Readout::split(&flat, n)?.losses(batch);
        if let Some(grads) = grads {
            let mut grads = GradientsParams::from_grads(grads, &self.model);
            if host_input {
                let grad_z = match grad_z {
                    Some(Ok(g)) if g.len() == n * width => g,
                    _ => return Err(NetError::Model("reading the input layer's gradient".into())),
                };
                self.host_input_backward(&grad_z, &mut grads)?;
            }
            let lr = self.learning_rate;
            let model = self.model.clone();
            let optim = &mut self.optim;
            self.model = catch_burn("optimizer step", || optim.step(lr, model, grads))?;
            self.step += 1;
        }
        if !losses.total.is_finite() {
            return Err(NetError::Model(format!(
                "the loss became {} at step {}; lower the learning rate",
                losses.total, self.step
            )));
        }
        Ok(losses)
    }

    /// The input layer on the host, `z = x·W + b` over the non-zero features, into
    /// `self.sparse.z`; whether it ran: only for a gradient step (a measurement runs the
    /// inference copy, where burn's product is as good), on the CPU backend (on a GPU the
    /// weights and `∂z` would cross the bus every step), and with one-hot features.
    fn host_input_forward(&mut self, batch: &TrainBatch, update: bool) -> Result<bool, NetError> {
        let host_input = update
            && !self.dense_input
            && self.config.device == DeviceKind::Cpu
            && self.model_config.encoding == oware_core::env::encoding::Encoding::Onehot;
        if host_input {
            let (n, dim) = (batch.len(), self.model_config.input_dim());
            let width = self.model_config.width;
            let inp = &self.model.input;
            let layer = catch_burn("reading the input layer", || {
                super::fast::dense(inp, "the input layer")
            })??;
            let sp = &mut self.sparse;
            sp.batch.gather(&batch.features, dim);
            sp.z.resize(n * width, 0.0);
            sp.batch.forward(&layer.w, &layer.b, &mut sp.z, width);
        }
        Ok(host_input)
    }

    /// The input layer's gradients from `∂z` (`∂W = xᵀ·∂z`, `∂b = Σ∂z`), registered in
    /// `grads` for the optimizer.
    fn host_input_backward(
        &mut self,
        grad_z: &[f32],
        grads: &mut GradientsParams,
    ) -> Result<(), NetError> {
        let (dim, width) = (self.model_config.input_dim(), self.model_config.width);
        let sp = &mut self.sparse;
        sp.grad_w.resize(dim * width, 0.0);
        sp.grad_b.resize(width, 0.0);
        sp.batch
            .backward(grad_z, &mut sp.grad_w, &mut sp.grad_b, width);
        let inner = self.device.clone().inner();
        let inp = &self.model.input;
        let sp = &self.sparse;
        catch_burn("the input layer's gradient", || {
            grads.register(
                inp.weight.id,
                Tensor::<2>::from_data(TensorData::new(sp.grad_w.clone(), [dim, width]), &inner),
            );
            if let Some(b) = &inp.bias {
                grads.register(
                    b.id,
                    Tensor::<1>::from_data(TensorData::new(sp.grad_b.clone(), [width]), &inner),
                );
            }
        })
    }

    /// `n` evaluators on the current weights (the fast path), one per self-play worker
    /// thread.
    pub fn evaluators(
        &self,
        n: usize,
    ) -> Result<Vec<Box<dyn oware_core::search::Evaluator>>, NetError> {
        (0..n)
            .map(|_| {
                self.to_inference()
                    .map(|e| Box::new(e) as Box<dyn oware_core::search::Evaluator>)
            })
            .collect()
    }

    /// An evaluator on the current weights (fast path, single-threaded).
    pub fn to_inference(&self) -> Result<NetEvaluator, NetError> {
        NetEvaluator::new(&self.model, &self.model_config)
    }

    /// Writes a checkpoint of the weights and optimizer state to `dir` (which must not
    /// exist), recording `rules`, the step count, the checkpoint this learner started
    /// from, and `search`, the settings of the search that trained it.
    pub fn save(
        &self,
        dir: &std::path::Path,
        rules: RuleSet,
        search: &oware_core::search::mcts::MctsConfig,
    ) -> Result<(), NetError> {
        let mut m = Manifest::new(&self.model_config, rules, self.step, self.parent.clone());
        m.training = Some(self.config.clone());
        m.search = Some(search.clone());
        checkpoint::save(dir, &m, &self.model.valid(), Some(&self.optim))
    }
}

fn argmax(v: &[f32]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[best] {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::evaluator::tests::random_positions;
    use oware_core::env::encoding::Encoding;
    use oware_core::game::Position;
    use oware_core::search::evaluator::Evaluator;

    /// Samples whose labels are decidable from the input: W/D/L is the sign of the store
    /// difference (win if ahead, loss if behind, draw if level), the store target is that
    /// difference / 48, and the policy target puts all mass on the lowest legal action.
    fn labelled(positions: &[Position], enc: Encoding) -> TrainBatch {
        let mut b = TrainBatch::default();
        let mut f = vec![0.0; enc.dim()];
        for p in positions {
            enc.encode(p, &mut f);
            let (_, stores) = p.relative();
            let d = stores[0] as f32 - stores[1] as f32;
            let wdl = if d > 0.0 {
                [1.0, 0.0, 0.0]
            } else if d < 0.0 {
                [0.0, 0.0, 1.0]
            } else {
                [0.0, 1.0, 0.0]
            };
            let legal = p.legal_moves(RuleSet::abapa()).max(1);
            let mut pol = [0.0; 6];
            pol[legal.trailing_zeros() as usize] = 1.0;
            b.push(&f, &pol, legal, &wdl, d / 48.0);
        }
        b
    }

    fn small() -> ModelConfig {
        ModelConfig {
            width: 64,
            ..ModelConfig::default()
        }
    }

    /// The input layer on the host computes what burn's product does, up to the order of
    /// the float sums: training with it follows the same trajectory step for step.
    #[test]
    fn the_host_input_layer_trains_as_burns_product_does() {
        for norm in [
            crate::net::model::Norm::None,
            crate::net::model::Norm::Layernorm,
        ] {
            let cfg = ModelConfig {
                width: 80,
                norm,
                ..ModelConfig::default()
            };
            let pos = random_positions(1024, 7);
            let batches: Vec<TrainBatch> =
                pos.chunks(256).map(|c| labelled(c, cfg.encoding)).collect();
            let lc = LearnerConfig {
                seed: 9,
                learning_rate: 3e-3,
                grad_clip_norm: Some(1.0),
                ..LearnerConfig::default()
            };
            // Both learners start from one saved network: two fresh ones need not match,
            // since burn draws each parameter at its first use from one process-wide
            // generator.
            let start = Learner::new(&cfg, &lc).unwrap();
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("start");
            start
                .save(&dir, RuleSet::abapa(), &Default::default())
                .unwrap();
            let mut host = Learner::from_checkpoint(&dir, Some(&lc)).unwrap();
            let mut burn = Learner::from_checkpoint(&dir, Some(&lc)).unwrap();
            burn.set_dense_input(true);
            for i in 0..20 {
                let a = host.step(&batches[i % 4]).unwrap();
                let b = burn.step(&batches[i % 4]).unwrap();
                assert!(
                    (a.total - b.total).abs() < 1e-4 * b.total.abs().max(1.0),
                    "{norm:?}, step {i}: loss {} on the host, {} in burn",
                    a.total,
                    b.total
                );
            }
            let weights = |l: &Learner| -> Vec<Vec<f32>> {
                let m = l.model();
                let v = |t: Tensor<2>| t.into_data().try_into_vec::<f32>().unwrap();
                vec![
                    v(m.input.weight.val()),
                    m.input
                        .bias
                        .as_ref()
                        .unwrap()
                        .val()
                        .into_data()
                        .try_into_vec::<f32>()
                        .unwrap(),
                    v(m.blocks[0].fc1.weight.val()),
                    v(m.value.weight.val()),
                ]
            };
            let apart = |a: &Learner, b: &Learner| {
                weights(a)
                    .iter()
                    .zip(&weights(b))
                    .map(|(x, y)| {
                        x.iter()
                            .zip(y)
                            .map(|(p, q)| (p - q).abs())
                            .fold(0.0, f32::max)
                    })
                    .fold(0.0, f32::max)
            };
            // Twenty steps move the weights by tens of learning rates; the two ways of
            // computing the input layer agree to far less than one.
            let moved = apart(&host, &start);
            let drift = apart(&host, &burn);
            assert!(moved > 1e-2, "{norm:?}: the weights barely moved ({moved})");
            assert!(
                drift < 1e-4,
                "{norm:?}: host and burn drifted apart by {drift}"
            );
        }
    }

    #[test]
    fn training_lowers_the_loss_and_learns_won_from_lost() {
        let cfg = small();
        let mut l = Learner::new(&cfg, &LearnerConfig::default()).unwrap();
        // Four fixed batches of 512, cycled: enough data that the value head must learn
        // the rule (the sign of the store difference) rather than memorise positions.
        let pos = random_positions(2048, 1);
        let train: Vec<TrainBatch> = pos.chunks(512).map(|c| labelled(c, cfg.encoding)).collect();
        let held_out = labelled(&random_positions(400, 2), cfg.encoding);
        let before = l.measure(&held_out).unwrap();
        let first = l.measure(&train[0]).unwrap();
        for i in 0..300 {
            l.step(&train[i % 4]).unwrap();
        }
        let last = l.measure(&train[0]).unwrap();
        assert_eq!(l.steps(), 300);
        assert!(last.total < 0.5 * first.total, "{first:?} -> {last:?}");
        assert!(last.policy < first.policy && last.value < first.value);
        assert!(last.store_diff < first.store_diff);
        let after = l.measure(&held_out).unwrap();
        // Random positions are mostly decisive; a chance-level model scores ~1/3.
        assert!(
            after.value_accuracy > 0.85 && after.value_accuracy > before.value_accuracy + 0.3,
            "held-out value accuracy {} -> {}",
            before.value_accuracy,
            after.value_accuracy
        );
        // The policy target (the lowest legal move) is read off the input too.
        assert!(
            after.policy_accuracy > 0.8 && after.policy_accuracy > before.policy_accuracy + 0.3,
            "held-out policy accuracy {} -> {}",
            before.policy_accuracy,
            after.policy_accuracy
        );

        // The evaluator built from the trained weights agrees on held-out positions: a
        // position whose mover leads by 2 or more seeds gets a positive value, one where
        // he trails by 2 or more a negative one.
        let mut e = l.to_inference().unwrap();
        let r = RuleSet::abapa();
        let pos: Vec<Position> = random_positions(400, 3)
            .into_iter()
            .filter(|p| (p.relative().1[0] as i32 - p.relative().1[1] as i32).abs() >= 2)
            .collect();
        let legal: Vec<u8> = pos.iter().map(|p| p.legal_moves(r).max(1)).collect();
        let mut out = vec![Default::default(); pos.len()];
        e.evaluate(r, &pos, &legal, &mut out);
        let right = pos
            .iter()
            .zip(&out)
            .filter(|(p, o)| (p.relative().1[0] > p.relative().1[1]) == (o.value > 0.0))
            .count();
        assert!(
            right as f32 > 0.9 * pos.len() as f32 && pos.len() > 100,
            "{right} of {} values have the right sign",
            pos.len()
        );
    }

    #[test]
    fn resuming_from_a_checkpoint_continues_exactly() {
        let cfg = ModelConfig {
            width: 16,
            encoding: Encoding::Counts,
            ..ModelConfig::default()
        };
        let batch = labelled(&random_positions(64, 4), cfg.encoding);
        let mut a = Learner::new(&cfg, &LearnerConfig::default()).unwrap();
        for _ in 0..3 {
            a.step(&batch).unwrap();
        }
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("iter-0001");
        // The manifest records the search that trained the model.
        let search = oware_core::search::mcts::MctsConfig {
            algorithm: oware_core::search::mcts::Algorithm::Puct,
            c_puct: 2.5,
            ..Default::default()
        };
        a.save(&dir, RuleSet::abapa(), &search).unwrap();
        let m = checkpoint::read_manifest(&dir).unwrap();
        assert_eq!(m.search_settings(), search);
        let mut b = Learner::from_checkpoint(&dir, None).unwrap();
        assert_eq!(b.steps(), 3);
        for _ in 0..2 {
            let la = a.step(&batch).unwrap();
            let lb = b.step(&batch).unwrap();
            assert_eq!(la.total.to_bits(), lb.total.to_bits(), "{la:?} {lb:?}");
        }
        // With the optimizer state lost, the same step from the same weights differs:
        // AdamW's first step has no moment estimates to follow.
        let mut b2 = Learner::from_checkpoint(&dir, None).unwrap();
        let mut c = Learner::from_checkpoint(&dir, None).unwrap();
        c.optim = build_optimizer(&c.config);
        let l2 = b2.step(&batch).unwrap();
        let lc = c.step(&batch).unwrap();
        assert_eq!(l2.total.to_bits(), lc.total.to_bits());
        let (m2, mc) = (b2.measure(&batch).unwrap(), c.measure(&batch).unwrap());
        assert_ne!(m2.total.to_bits(), mc.total.to_bits());
    }

    /// A readout of two samples by hand: each value lands in its named field, and the
    /// accuracies count the samples whose arg-maxes agree with the targets'.
    #[test]
    fn the_readout_names_each_value_and_scores_the_arg_maxes() {
        let mut b = TrainBatch::default();
        b.push(
            &[],
            &[0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
            0b11_1111,
            &[1.0, 0.0, 0.0],
            0.0,
        );
        b.push(
            &[],
            &[0.6, 0.4, 0.0, 0.0, 0.0, 0.0],
            0b00_0011,
            &[0.0, 0.0, 1.0],
            0.0,
        );
        let flat = [
            1.5, 0.5, 0.25, 0.125, 0.75, // total, policy, value, store, entropy
            2.0, 0.0, 0.0, 0.0, 1.0, 0.0, // W/D/L logits: a win (right), a draw (wrong)
            -3.0, -2.0, -0.1, -5.0, -5.0, -5.0, // move 2, the target's
            -0.5, -0.9, -1e9, -1e9, -1e9, -1e9, // move 0, the target's
        ];
        let l = Readout::split(&flat, 2).unwrap().losses(&b);
        let want = Losses {
            total: 1.5,
            policy: 0.5,
            value: 0.25,
            store_diff: 0.125,
            policy_entropy: 0.75,
            value_accuracy: 0.5,
            policy_accuracy: 1.0,
            samples: 2,
        };
        assert_eq!(l, want);
        assert!(Readout::split(&flat[..5], 2).is_err());
        assert!(Readout::split(&flat[..4], 0).is_err());
        // Sums and means of steps, field by field; no step: NaN.
        let mut sum = Losses::<f64>::default();
        sum.add(&l);
        sum.add(&Losses {
            policy_accuracy: 0.0,
            ..l
        });
        let mean = sum.mean(2);
        assert_eq!(
            (mean.policy, mean.policy_accuracy, mean.samples),
            (0.5, 0.5, 4)
        );
        assert!(Losses::<f64>::default().mean(0).value.is_nan());
    }

    #[test]
    fn bad_batches_are_rejected() {
        let cfg = ModelConfig {
            width: 8,
            encoding: Encoding::Counts,
            ..ModelConfig::default()
        };
        let mut l = Learner::new(&cfg, &LearnerConfig::default()).unwrap();
        let good = labelled(&random_positions(4, 4), cfg.encoding);
        let mut b = good.clone();
        b.features.pop();
        assert!(l.step(&b).is_err());
        let mut b = good.clone();
        b.legal[0] = 0b000001;
        b.policy[..6].copy_from_slice(&[0.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
        assert!(l.step(&b).unwrap_err().to_string().contains("action 1"));
        assert!(l.step(&TrainBatch::default()).is_err());
        assert_eq!(l.steps(), 0);
    }
}

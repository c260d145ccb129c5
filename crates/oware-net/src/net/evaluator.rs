//! [`NetEvaluator`]: the network behind the search's [`Evaluator`] trait.
//!
//! One forward call per batch; the feature, output and scratch buffers live in the
//! evaluator and are reused, so nothing is allocated per position (the burn path
//! allocates its tensors once per batch, which burn requires).

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};

use super::checkpoint::{Checkpoint, Manifest, resolve_model_path};
use super::fast::{FastNet, FastScratch, HEAD_DIM};
use super::model::{ModelConfig, POLICY_DIM, PolicyValueNet, WDL_DIM, masked_softmax, wdl_value};
use super::{DeviceKind, NetError, catch_burn};
use oware_core::env::encoding::Encoding;
use oware_core::game::{Position, RuleSet};
use oware_core::search::evaluator::{Evaluation, Evaluator};

/// Which implementation computes the forward pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InferencePath {
    /// The plain-Rust copy of the weights ([`FastNet`]); the default, several times faster
    /// on CPU.
    #[default]
    Fast,
    /// burn's forward pass on the model's device (the reference; the one for a GPU).
    Burn,
}

/// Evaluates batches of positions with the network.
#[derive(Clone)]
pub struct NetEvaluator {
    config: ModelConfig,
    encoding: Encoding,
    /// The inference copy of the burn model (`model.valid()`: no autodiff graph, which
    /// would leak without a backward pass).
    model: PolicyValueNet,
    device: Device,
    fast: FastNet,
    scratch: FastScratch,
    path: InferencePath,
    threads: usize,
    /// `[capacity, dim]` encoded features of the current batch.
    features: Vec<f32>,
    /// `[capacity, HEAD_DIM]` raw outputs of the current batch.
    heads: Vec<f32>,
}

impl NetEvaluator {
    /// An evaluator for `model` (autodiff or not; the inference copy is taken here) whose
    /// shape is `config`. Uses the fast path, single-threaded.
    pub fn new(model: &PolicyValueNet, config: &ModelConfig) -> Result<NetEvaluator, NetError> {
        let model = model.valid();
        if model.input_dim() != config.input_dim() {
            return Err(NetError::Config(format!(
                "model takes {} inputs but encoding {} gives {}",
                model.input_dim(),
                config.encoding,
                config.input_dim()
            )));
        }
        let device = model.input.weight.val().device();
        let fast = FastNet::from_model(&model)?;
        Ok(NetEvaluator {
            config: config.clone(),
            encoding: config.encoding,
            model,
            device,
            fast,
            scratch: FastScratch::default(),
            path: InferencePath::Fast,
            threads: 1,
            features: Vec::new(),
            heads: Vec::new(),
        })
    }

    /// Loads the checkpoint at `path` (a checkpoint directory, or a run directory meaning
    /// its latest checkpoint; see [`resolve_model_path`]) onto `device` and builds an
    /// evaluator on it (fast path, one thread). Also returns the checkpoint's manifest.
    pub fn from_checkpoint(
        path: &std::path::Path,
        device: DeviceKind,
    ) -> Result<(NetEvaluator, Manifest), NetError> {
        let dir = resolve_model_path(path)?;
        let ck = Checkpoint::load(&dir, &device.device()?)?;
        let e = NetEvaluator::new(&ck.model, &ck.manifest.model)?;
        Ok((e, ck.manifest))
    }

    /// Chooses the forward implementation.
    pub fn with_path(mut self, path: InferencePath) -> Self {
        self.path = path;
        self
    }

    /// Threads the fast path may use for one batch (1 = the calling thread only; more
    /// splits large batches over rayon's current pool). Self-play, with one evaluator per
    /// worker thread, wants 1.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The model's config.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The inference copy of the burn model.
    pub fn model(&self) -> &PolicyValueNet {
        &self.model
    }

    /// Encodes `positions` and runs the network, returning the raw outputs, `[n, 10]`
    /// row-major: 6 policy logits, 3 W/D/L logits, the store difference / 48 (in [−1, 1]).
    /// The slice lives in the evaluator until the next call.
    pub fn forward_positions(&mut self, positions: &[Position]) -> Result<&[f32], NetError> {
        let n = positions.len();
        let d = self.encoding.dim();
        if self.features.len() < n * d {
            self.features.resize(n * d, 0.0);
        }
        self.encoding
            .encode_batch(positions, &mut self.features[..n * d]);
        self.forward_encoded(n)
    }

    fn forward_encoded(&mut self, n: usize) -> Result<&[f32], NetError> {
        let d = self.encoding.dim();
        if self.heads.len() < n * HEAD_DIM {
            self.heads.resize(n * HEAD_DIM, 0.0);
        }
        if n == 0 {
            return Ok(&[]);
        }
        let x = &self.features[..n * d];
        let out = &mut self.heads[..n * HEAD_DIM];
        match self.path {
            InferencePath::Fast => self.fast.forward(x, out, &mut self.scratch, self.threads),
            InferencePath::Burn => {
                let v = burn_forward(&self.model, &self.device, x, n, d)?;
                out.copy_from_slice(&v);
            }
        }
        Ok(&self.heads[..n * HEAD_DIM])
    }
}

/// burn's forward pass on `[n, d]` host features, read back as `[n, 10]` raw outputs.
pub fn burn_forward(
    model: &PolicyValueNet,
    device: &Device,
    x: &[f32],
    n: usize,
    d: usize,
) -> Result<Vec<f32>, NetError> {
    catch_burn("forward", || {
        let input = Tensor::<2>::from_data(TensorData::new(x.to_vec(), [n, d]), device);
        let o = model.forward(input);
        let all = Tensor::cat(vec![o.policy_logits, o.wdl_logits, o.store_diff], 1);
        all.into_data().try_into_vec::<f32>()
    })?
    .map_err(|e| NetError::Model(format!("reading the forward output: {e:?}")))
}

/// Turns one row of raw outputs into priors over the legal moves and a value.
#[inline]
pub fn evaluation_from_heads(row: &[f32], legal: u8) -> Evaluation {
    let mut logits = [0.0f32; POLICY_DIM];
    logits.copy_from_slice(&row[..POLICY_DIM]);
    let mut wdl = [0.0f32; WDL_DIM];
    wdl.copy_from_slice(&row[POLICY_DIM..POLICY_DIM + WDL_DIM]);
    Evaluation {
        priors: masked_softmax(&logits, legal),
        value: wdl_value(&wdl).1,
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(
        &mut self,
        _rules: RuleSet,
        positions: &[Position],
        legal: &[u8],
        out: &mut [Evaluation],
    ) {
        debug_assert_eq!(positions.len(), legal.len());
        debug_assert_eq!(positions.len(), out.len());
        // The trait has no error channel; the forward pass only fails on a broken model,
        // which loading and construction already check, so a failure here is a bug.
        let heads = match self.forward_positions(positions) {
            Ok(h) => h,
            Err(e) => panic!("network evaluation failed: {e}"),
        };
        for ((o, row), &m) in out.iter_mut().zip(heads.chunks_exact(HEAD_DIM)).zip(legal) {
            *o = evaluation_from_heads(row, m);
        }
    }

    fn name(&self) -> String {
        format!(
            "net:{}x{}+{}:{}:{:?}",
            self.config.blocks, self.config.width, self.config.encoding, self.threads, self.path
        )
        .to_lowercase()
    }

    fn boxed_clone(&self) -> Option<Box<dyn Evaluator>> {
        Some(Box::new(self.clone()))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::model::{Activation, Norm};
    use oware_core::env::encoding::Encoding;
    use oware_core::game::TOTAL_SEEDS;
    use oware_core::rng::Rng;

    /// Random legal-looking positions (seed counts summing to 48).
    pub(crate) fn random_positions(n: usize, seed: u64) -> Vec<Position> {
        let mut rng = Rng::new(seed);
        (0..n)
            .map(|_| {
                let mut cells = [0u8; 14];
                for _ in 0..TOTAL_SEEDS {
                    cells[rng.below(14) as usize] += 1;
                }
                let side = if rng.below(2) == 0 { "S" } else { "N" };
                let text = cells
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join("-");
                format!("{text}-{side}").parse().unwrap()
            })
            .collect()
    }

    fn check_fast_equals_burn(cfg: ModelConfig, n: usize, threads: usize) {
        let device = Device::flex();
        device.seed(11);
        let model = cfg.init(&device);
        let pos = random_positions(n, 5);
        let mut fast = NetEvaluator::new(&model, &cfg)
            .unwrap()
            .with_threads(threads);
        let mut slow = NetEvaluator::new(&model, &cfg)
            .unwrap()
            .with_path(InferencePath::Burn);
        let a = fast.forward_positions(&pos).unwrap().to_vec();
        let b = slow.forward_positions(&pos).unwrap().to_vec();
        assert_eq!(a.len(), n * HEAD_DIM);
        let worst = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max);
        assert!(worst <= 1e-5, "{cfg:?}: fast and burn differ by {worst}");
        // The outputs are not all equal (a constant network would pass trivially).
        assert!(a.iter().any(|&v| (v - a[0]).abs() > 1e-4));
    }

    #[test]
    fn fast_path_equals_burn_path_default_model() {
        // 1 and 7 rows take the small-batch kernel, 300 the gemm one.
        check_fast_equals_burn(ModelConfig::default(), 1, 1);
        check_fast_equals_burn(ModelConfig::default(), 7, 1);
        check_fast_equals_burn(ModelConfig::default(), 300, 1);
        check_fast_equals_burn(ModelConfig::default(), 300, 2);
    }

    #[test]
    fn fast_path_equals_burn_path_other_shapes() {
        for (act, norm) in [
            (Activation::Gelu, Norm::Layernorm),
            (Activation::Silu, Norm::None),
            (Activation::Relu, Norm::Layernorm),
        ] {
            let cfg = ModelConfig {
                encoding: Encoding::Counts,
                width: 48,
                blocks: 2,
                activation: act,
                norm,
            };
            check_fast_equals_burn(cfg, 70, 2);
        }
    }

    #[test]
    fn evaluator_priors_follow_the_legal_mask() {
        let cfg = ModelConfig {
            width: 32,
            ..ModelConfig::default()
        };
        let model = cfg.init(&Device::flex());
        let mut e = NetEvaluator::new(&model, &cfg).unwrap();
        let pos = random_positions(40, 9);
        let legal: Vec<u8> = (0..40).map(|i| (i % 63 + 1) as u8).collect();
        let mut out = vec![Evaluation::default(); 40];
        e.evaluate(RuleSet::abapa(), &pos, &legal, &mut out);
        for (o, &m) in out.iter().zip(&legal) {
            assert!((o.priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            for a in 0..6 {
                assert_eq!(o.priors[a] == 0.0, m & (1 << a) == 0, "{o:?} {m:06b}");
            }
            assert!((-1.0..=1.0).contains(&o.value));
        }
    }
}

//! The policy/value network: a residual MLP in burn, its config, and the masked softmax.
//!
//! Architecture (every size from [`ModelConfig`]):
//!
//! ```text
//! x [n, dim]                                  dim = encoding.dim()
//! h = act(norm(x·W_in + b_in))                [n, width]   the input layer
//! repeat `blocks` times:
//!     t = act(norm(h·W1 + b1))                [n, width]
//!     h = act(h + norm(t·W2 + b2))            [n, width]   the residual block
//! policy_logits = h·W_p + b_p                 [n, 6]       mover-relative actions 0..5
//! wdl_logits    = h·W_v + b_v                 [n, 3]       win, draw, loss (mover's view)
//! store_diff    = tanh(h·W_s + b_s)           [n, 1]       (own − opponent final store) / 48
//! ```
//!
//! `norm` is the identity or a LayerNorm (`ModelConfig::norm`); `act` is one activation
//! for the whole trunk. The heads are single linear layers on the shared trunk: the trunk
//! is the expensive part and Oware's outputs are few. The store-difference head uses
//! `tanh` because its target, a seed difference divided by 48, always lies in [−1, 1].
//!
//! The default (`width` 256, `blocks` 1) is the "3×256" network of issue 5: three hidden
//! layers of 256 (the input layer and the two layers of one block).

use burn::module::Module;
use burn::nn::{LayerNorm, LayerNormConfig, Linear, LinearConfig};
use burn::tensor::activation::{gelu_approximate, relu, silu};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use oware_core::env::encoding::Encoding;

/// Number of policy outputs (mover-relative actions 0..5).
pub const POLICY_DIM: usize = 6;
/// Number of value outputs: win, draw, loss, in that order, from the mover's view.
pub const WDL_DIM: usize = 3;
/// Scale of the store-difference target: final (own − opponent) store difference / 48.
pub const STORE_DIFF_SCALE: f32 = 48.0;

/// The trunk's activation function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Activation {
    /// max(0, x).
    #[default]
    Relu,
    /// GELU, tanh approximation: `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`.
    Gelu,
    /// SiLU (swish): `x·sigmoid(x)`.
    Silu,
}

impl Activation {
    /// Applies the activation to a tensor of any rank.
    pub fn forward<const D: usize>(self, x: Tensor<D>) -> Tensor<D> {
        match self {
            Activation::Relu => relu(x),
            Activation::Gelu => gelu_approximate(x),
            Activation::Silu => silu(x),
        }
    }

    /// The same function on one float (the fast inference path uses it).
    #[inline]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Activation::Relu => x.max(0.0),
            Activation::Gelu => {
                const C: f32 = 0.797_884_6; // √(2/π)
                0.5 * x * (1.0 + (C * (x + 0.044715 * x * x * x)).tanh())
            }
            Activation::Silu => x / (1.0 + (-x).exp()),
        }
    }
}

/// Optional normalisation inside the trunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Norm {
    /// No normalisation (KataGo found training without batch norm faster).
    #[default]
    None,
    /// LayerNorm over the features of each position (ε = 1e-5, learned scale and bias).
    Layernorm,
}

/// LayerNorm's ε, shared by the burn model and the fast path.
pub const LAYERNORM_EPS: f64 = 1e-5;

/// Everything that fixes the network's shape. Saved in every checkpoint manifest.
///
/// Defaults (the one place they are written): `encoding` onehot (354 inputs), `width` 256,
/// `blocks` 1, `activation` relu, `norm` none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelConfig {
    /// Input encoding; fixes the input width (`encoding.dim()`).
    pub encoding: Encoding,
    /// Width of every hidden layer.
    pub width: usize,
    /// Number of residual blocks after the input layer (two linear layers each).
    pub blocks: usize,
    /// Trunk activation.
    pub activation: Activation,
    /// Trunk normalisation.
    pub norm: Norm,
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            encoding: Encoding::Onehot,
            width: 256,
            blocks: 1,
            activation: Activation::Relu,
            norm: Norm::None,
        }
    }
}

impl ModelConfig {
    /// Input features per position.
    pub fn input_dim(&self) -> usize {
        self.encoding.dim()
    }

    /// Checks the sizes are usable (a width of 0 would build an empty network).
    pub fn validate(&self) -> Result<(), String> {
        if self.width == 0 || self.width > 16_384 {
            return Err(format!("model width {} must be in 1..=16384", self.width));
        }
        if self.blocks > 256 {
            return Err(format!("model blocks {} must be at most 256", self.blocks));
        }
        Ok(())
    }

    /// Number of trainable parameters.
    pub fn parameters(&self) -> usize {
        let w = self.width;
        let ln = if self.norm == Norm::Layernorm {
            2 * w
        } else {
            0
        };
        let input = self.input_dim() * w + w + ln;
        let block = 2 * (w * w + w + ln);
        let heads = (w + 1) * (POLICY_DIM + WDL_DIM + 1);
        input + self.blocks * block + heads
    }

    /// Builds a freshly initialised network on `device` (burn's default initialisers:
    /// Kaiming-uniform weights and biases). Seed the device first for reproducibility.
    pub fn init(&self, device: &Device) -> PolicyValueNet {
        let w = self.width;
        let norm = |d: &Device| match self.norm {
            Norm::None => None,
            Norm::Layernorm => Some(LayerNormConfig::new(w).with_epsilon(LAYERNORM_EPS).init(d)),
        };
        PolicyValueNet {
            input: LinearConfig::new(self.input_dim(), w).init(device),
            input_norm: norm(device),
            blocks: (0..self.blocks)
                .map(|_| ResBlock {
                    fc1: LinearConfig::new(w, w).init(device),
                    norm1: norm(device),
                    fc2: LinearConfig::new(w, w).init(device),
                    norm2: norm(device),
                })
                .collect(),
            policy: LinearConfig::new(w, POLICY_DIM).init(device),
            value: LinearConfig::new(w, WDL_DIM).init(device),
            store_diff: LinearConfig::new(w, 1).init(device),
            activation: self.activation,
        }
    }
}

/// One residual block: `h ← act(h + norm2(fc2(act(norm1(fc1(h))))))`.
#[derive(Module, Debug)]
pub struct ResBlock {
    /// First linear layer, `[width, width]`.
    pub fc1: Linear,
    /// Normalisation after `fc1` (if configured).
    pub norm1: Option<LayerNorm>,
    /// Second linear layer, `[width, width]`.
    pub fc2: Linear,
    /// Normalisation after `fc2`, before the skip connection is added (if configured).
    pub norm2: Option<LayerNorm>,
}

/// The policy/value network. Build it with [`ModelConfig::init`]; see the module docs for
/// the exact function it computes.
#[derive(Module, Debug)]
pub struct PolicyValueNet {
    /// Input layer, `[dim, width]`.
    pub input: Linear,
    /// Normalisation after the input layer (if configured).
    pub input_norm: Option<LayerNorm>,
    /// The residual blocks.
    pub blocks: Vec<ResBlock>,
    /// Policy head, `[width, 6]`.
    pub policy: Linear,
    /// W/D/L head, `[width, 3]`.
    pub value: Linear,
    /// Store-difference head, `[width, 1]` (then tanh).
    pub store_diff: Linear,
    /// Trunk activation (not a parameter; comes from the config).
    #[module(skip)]
    pub activation: Activation,
}

/// The network's raw outputs for a batch of `n` positions.
#[derive(Debug, Clone)]
pub struct NetOutput {
    /// `[n, 6]` policy logits (unmasked).
    pub policy_logits: Tensor<2>,
    /// `[n, 3]` win/draw/loss logits.
    pub wdl_logits: Tensor<2>,
    /// `[n, 1]` predicted (own − opponent) final store difference / 48, in [−1, 1].
    pub store_diff: Tensor<2>,
}

fn maybe_norm(norm: &Option<LayerNorm>, x: Tensor<2>) -> Tensor<2> {
    match norm {
        Some(n) => n.forward(x),
        None => x,
    }
}

impl PolicyValueNet {
    /// The forward pass: `x` is `[n, dim]` encoded positions.
    pub fn forward(&self, x: Tensor<2>) -> NetOutput {
        self.forward_from_input(self.input.forward(x))
    }

    /// Everything after the input layer's affine map: `z = x·W_in + b_in`, `[n, width]`.
    /// The training step computes `z` itself when the input is sparse.
    pub fn forward_from_input(&self, z: Tensor<2>) -> NetOutput {
        let act = self.activation;
        let mut h = act.forward(maybe_norm(&self.input_norm, z));
        for b in &self.blocks {
            let t = act.forward(maybe_norm(&b.norm1, b.fc1.forward(h.clone())));
            let u = maybe_norm(&b.norm2, b.fc2.forward(t));
            h = act.forward(h + u);
        }
        NetOutput {
            policy_logits: self.policy.forward(h.clone()),
            wdl_logits: self.value.forward(h.clone()),
            store_diff: self.store_diff.forward(h).tanh(),
        }
    }

    /// The input width this network expects.
    pub fn input_dim(&self) -> usize {
        self.input.weight.val().dims()[0]
    }
}

/// Softmax of `logits` over the set bits of `legal` (bit `a` = action `a` legal): illegal
/// actions get exactly 0 and the legal ones sum to 1. With `legal == 0` every entry is 0.
/// Non-finite logits are treated as very unlikely moves rather than poisoning the sum.
#[inline]
pub fn masked_softmax(logits: &[f32; POLICY_DIM], legal: u8) -> [f32; POLICY_DIM] {
    let mut max = f32::NEG_INFINITY;
    for (a, &l) in logits.iter().enumerate() {
        if legal & (1 << a) != 0 && l.is_finite() {
            max = max.max(l);
        }
    }
    if !max.is_finite() {
        // No finite legal logit: fall back to uniform over the legal moves.
        return oware_core::search::evaluator::uniform_priors(legal);
    }
    let mut out = [0.0f32; POLICY_DIM];
    let mut sum = 0.0f32;
    for a in 0..POLICY_DIM {
        if legal & (1 << a) != 0 {
            let l = if logits[a].is_finite() {
                logits[a]
            } else {
                max - 100.0
            };
            let e = (l - max).exp();
            out[a] = e;
            sum += e;
        }
    }
    // sum ≥ 1 because the arg-max term is exp(0).
    for o in &mut out {
        *o /= sum;
    }
    out
}

/// Plain softmax of 3 W/D/L logits, then value = P(win) − P(loss) in [−1, 1].
#[inline]
pub fn wdl_value(logits: &[f32; WDL_DIM]) -> ([f32; WDL_DIM], f32) {
    let m = logits[0].max(logits[1]).max(logits[2]);
    let e = logits.map(|l| (l - m).exp());
    let s = e[0] + e[1] + e[2];
    let p = e.map(|x| x / s);
    (p, (p[0] - p[2]).clamp(-1.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_softmax_is_zero_on_illegal_and_sums_to_one() {
        let logits = [3.0, -1.0, 0.5, 10.0, 2.0, -7.0];
        for legal in 1u8..64 {
            let p = masked_softmax(&logits, legal);
            let sum: f32 = p.iter().sum();
            assert!((sum - 1.0).abs() < 1e-6, "legal {legal:06b}: sum {sum}");
            for (a, &pa) in p.iter().enumerate() {
                if legal & (1 << a) == 0 {
                    assert_eq!(pa, 0.0, "illegal action {a} of {legal:06b}");
                } else {
                    assert!(pa > 0.0);
                }
            }
        }
        // Hand-checked: two legal moves with logits 0 and ln 3 → 1/4 and 3/4.
        let p = masked_softmax(&[0.0, 9.0, 3f32.ln(), 0.0, 0.0, 0.0], 0b101);
        assert!(
            (p[0] - 0.25).abs() < 1e-6 && (p[2] - 0.75).abs() < 1e-6,
            "{p:?}"
        );
        assert_eq!(p[1], 0.0);
    }

    #[test]
    fn masked_softmax_survives_huge_and_nan_logits() {
        let p = masked_softmax(&[1e30, f32::NAN, -1e30, 0.0, 0.0, 0.0], 0b111);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{p:?}");
        assert!(p.iter().all(|x| x.is_finite()));
        let q = masked_softmax(&[f32::NAN; 6], 0b11);
        assert_eq!(q, [0.5, 0.5, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn wdl_value_is_win_minus_loss() {
        let (p, v) = wdl_value(&[2f32.ln(), 0.0, 0.0]);
        assert!(
            (p[0] - 0.5).abs() < 1e-6 && (v - 0.25).abs() < 1e-6,
            "{p:?} {v}"
        );
    }

    #[test]
    fn parameter_count_matches_the_module() {
        for cfg in [
            ModelConfig::default(),
            ModelConfig {
                encoding: Encoding::Counts,
                width: 32,
                blocks: 2,
                activation: Activation::Gelu,
                norm: Norm::Layernorm,
            },
        ] {
            let m = cfg.init(&Device::flex());
            assert_eq!(m.num_params(), cfg.parameters(), "{cfg:?}");
        }
    }

    #[test]
    fn config_rejects_unknown_fields_and_fills_defaults() {
        let c: ModelConfig = serde_json::from_str(r#"{"width": 64}"#).unwrap();
        assert_eq!(c.width, 64);
        assert_eq!(c.blocks, 1);
        assert!(serde_json::from_str::<ModelConfig>(r#"{"widht": 64}"#).is_err());
    }
}

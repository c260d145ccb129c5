//! Growing a trained network into a larger one that computes exactly what it did, so the
//! larger network starts where the smaller one stands instead of from random weights or
//! from a teacher's games (function-preserving growth in the manner of Net2Net).
//!
//! Two ways, both exact for a trunk without normalisation:
//!
//! - **Wider**: every hidden layer gains units. Their incoming weights and biases are the
//!   initialiser's; every weight from a new unit into an old unit or into a head is 0. The
//!   old units and the heads then see what they saw, while the new units are active from
//!   the first position, so the weights out of them get gradient at the first step. Any
//!   activation.
//! - **Deeper**: blocks are appended after the old ones, each with a fresh first layer and a
//!   second layer of zeros (weights and bias). The block adds 0 to the skip path, and
//!   `relu(h + 0) = h` because the trunk's `h` is itself a ReLU's output: the block is the
//!   identity until its second layer learns. ReLU only (GELU and SiLU change a
//!   nonnegative `h`).
//!
//! LayerNorm is refused: a wider layer has another mean and variance, and a LayerNorm of the
//! zero vector has a gradient of 1/√ε. `oware grow` writes the grown network as a checkpoint
//! without optimizer state; `train.init_from` starts a run from it.

use std::path::{Path, PathBuf};

use burn::module::Param;
use burn::nn::Linear;
use burn::tensor::{Device, Tensor, TensorData};

use super::checkpoint::{self, Checkpoint, Manifest, resolve_model_path};
use super::fast::{Dense, dense};
use super::model::{Activation, ModelConfig, Norm, PolicyValueNet};
use super::{NetError, catch_burn};

/// A network's size as the records write it: `2 blocks × 256`.
pub fn size(c: &ModelConfig) -> String {
    let s = if c.blocks == 1 { "" } else { "s" };
    format!("{} block{s} × {}", c.blocks, c.width)
}

/// Why `from` cannot grow into `to`, or `Ok` when it can.
pub fn check_growth(from: &ModelConfig, to: &ModelConfig) -> Result<(), String> {
    to.validate()?;
    if to.encoding != from.encoding || to.activation != from.activation || to.norm != from.norm {
        return Err("growing changes only the width and the blocks".into());
    }
    if to.width < from.width || to.blocks < from.blocks {
        return Err(format!(
            "cannot shrink a network of {} to {}",
            size(from),
            size(to)
        ));
    }
    if to.width == from.width && to.blocks == from.blocks {
        return Err(format!(
            "nothing to grow: the network is already {}",
            size(from)
        ));
    }
    if from.norm != Norm::None {
        return Err(
            "a network with LayerNorm cannot grow without changing what it computes".into(),
        );
    }
    if to.blocks > from.blocks && from.activation != Activation::Relu {
        return Err(format!(
            "only a ReLU network can gain blocks without changing what it computes (this one uses {:?})",
            from.activation
        ));
    }
    Ok(())
}

/// `model` (of shape `from`) grown to the shape `to`, computing the same outputs; the
/// new parameters that may be random are drawn on `device` (seed it first).
pub fn grow(
    model: &PolicyValueNet,
    from: &ModelConfig,
    to: &ModelConfig,
    device: &Device,
) -> Result<PolicyValueNet, NetError> {
    check_growth(from, to).map_err(NetError::Config)?;
    if model.blocks.len() != from.blocks || model.input_dim() != from.input_dim() {
        return Err(NetError::Config(
            "the network is not of the shape given".into(),
        ));
    }
    let fresh = catch_burn("building the grown network", || to.init(device))?;
    let mut blocks = Vec::with_capacity(to.blocks);
    for (i, mut b) in fresh.blocks.into_iter().enumerate() {
        if let Some(old) = model.blocks.get(i) {
            b.fc1 = embed(&old.fc1, b.fc1)?;
            b.fc2 = embed(&old.fc2, b.fc2)?;
        } else {
            b.fc2 = zeroed(b.fc2)?;
        }
        blocks.push(b);
    }
    Ok(PolicyValueNet {
        input: embed(&model.input, fresh.input)?,
        input_norm: None,
        blocks,
        policy: embed(&model.policy, fresh.policy)?,
        value: embed(&model.value, fresh.value)?,
        store_diff: embed(&model.store_diff, fresh.store_diff)?,
        activation: fresh.activation,
    })
}

/// `new` (at least as large as `old` both ways) with `old` in its top-left corner and 0
/// from every new input into an old output; the weights into new outputs stay as drawn.
fn embed(old: &Linear, new: Linear) -> Result<Linear, NetError> {
    let o = dense(old, "the weights")?;
    let Dense {
        mut w, mut b, m, ..
    } = dense(&new, "the weights")?;
    for (i, row) in w.chunks_mut(m).enumerate() {
        for (j, x) in row[..o.m].iter_mut().enumerate() {
            *x = if i < o.k { o.w[i * o.m + j] } else { 0.0 };
        }
    }
    b[..o.m].copy_from_slice(&o.b);
    set(new, w, b)
}

/// `l` with every weight and bias 0.
fn zeroed(l: Linear) -> Result<Linear, NetError> {
    let Dense { mut w, mut b, .. } = dense(&l, "the weights")?;
    w.fill(0.0);
    b.fill(0.0);
    set(l, w, b)
}

/// `l` holding the values `w` (row-major) and `b`.
fn set(l: Linear, w: Vec<f32>, b: Vec<f32>) -> Result<Linear, NetError> {
    fn to<const D: usize>(v: Vec<f32>) -> impl FnOnce(Tensor<D>) -> Tensor<D> {
        move |t| Tensor::from_data(TensorData::new(v, t.shape()), &t.device())
    }
    catch_burn("writing the grown weights", || Linear {
        weight: l.weight.map(to(w)),
        bias: l.bias.map(|p: Param<Tensor<1>>| p.map(to(b))),
    })
}

/// What [`grow_checkpoint`] wrote.
#[derive(Debug)]
pub struct Grown {
    /// The checkpoint grown, as resolved (a run directory means its latest).
    pub input: PathBuf,
    /// The network it was.
    pub from: ModelConfig,
    /// The new checkpoint's manifest.
    pub manifest: Manifest,
}

/// Grows the checkpoint (or a run directory's latest) at `input` to `width` and `blocks`
/// (each `None`: as it is) and saves it at `out` (which must not exist), without
/// optimizer state. The manifest keeps its rules, step, and training and search settings;
/// `seed` draws the new units' incoming weights and the new blocks' first layers.
pub fn grow_checkpoint(
    input: &Path,
    width: Option<usize>,
    blocks: Option<usize>,
    seed: u64,
    out: &Path,
) -> Result<Grown, NetError> {
    let device = Device::flex();
    let dir = resolve_model_path(input)?;
    let ck = Checkpoint::load(&dir, &device)?;
    let from = ck.manifest.model.clone();
    let to = ModelConfig {
        width: width.unwrap_or(from.width),
        blocks: blocks.unwrap_or(from.blocks),
        ..from.clone()
    };
    check_growth(&from, &to).map_err(|e| NetError::Config(format!("{}: {e}", dir.display())))?;
    device.seed(seed);
    let model = grow(&ck.model, &from, &to, &device)?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string());
    let mut m = Manifest::new(
        &to,
        ck.manifest.rule_set()?,
        ck.manifest.step,
        Some(format!(
            "{name} grown from {} to {}",
            size(&from),
            size(&to)
        )),
    );
    m.training = ck.manifest.training.clone();
    m.search = ck.manifest.search.clone();
    checkpoint::save(out, &m, &model, None)?;
    Ok(Grown {
        input: dir,
        from,
        manifest: checkpoint::read_manifest(out)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::module::Module;
    use oware_core::env::encoding::Encoding;

    /// A batch of `n` inputs in [0, 1), of a one-hot encoding's width, from a fixed LCG.
    fn inputs(n: usize, dim: usize, device: &Device) -> Tensor<2> {
        let mut s: u64 = 12345;
        let v: Vec<f32> = (0..n * dim)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 40) as f32 / (1u64 << 24) as f32
            })
            .collect();
        Tensor::from_data(TensorData::new(v, [n, dim]), device)
    }

    fn outputs(m: &PolicyValueNet, x: Tensor<2>) -> Vec<Vec<f32>> {
        let o = m.forward(x);
        [o.policy_logits, o.wdl_logits, o.store_diff]
            .into_iter()
            .map(|t| t.into_data().try_into_vec::<f32>().unwrap())
            .collect()
    }

    fn trained_like(cfg: &ModelConfig, seed: u64, device: &Device) -> PolicyValueNet {
        device.seed(seed);
        let m = cfg.init(device);
        // Biases of 0 would hide a bias copied to the wrong unit: make them all nonzero.
        let bumped = |l: Linear| {
            let Dense { w, b, .. } = dense(&l, "the weights").unwrap();
            set(
                l,
                w,
                b.iter()
                    .enumerate()
                    .map(|(i, x)| x + 0.01 * (i as f32 + 1.0))
                    .collect(),
            )
            .unwrap()
        };
        PolicyValueNet {
            input: bumped(m.input),
            input_norm: None,
            blocks: m
                .blocks
                .into_iter()
                .map(|mut b| {
                    b.fc1 = bumped(b.fc1);
                    b.fc2 = bumped(b.fc2);
                    b
                })
                .collect(),
            policy: bumped(m.policy),
            value: bumped(m.value),
            store_diff: bumped(m.store_diff),
            activation: m.activation,
        }
    }

    #[test]
    fn the_grown_network_computes_what_the_network_did() {
        let device = Device::flex();
        let small = |activation, blocks| ModelConfig {
            encoding: Encoding::Onehot,
            width: 24,
            blocks,
            activation,
            norm: Norm::None,
        };
        for (from, width, blocks) in [
            (small(Activation::Relu, 1), 40, 3), // wider and deeper
            (small(Activation::Relu, 2), 24, 3), // deeper only
            (small(Activation::Gelu, 1), 33, 1), // wider only, any activation
            (small(Activation::Silu, 0), 30, 0), // no block at all
        ] {
            let to = ModelConfig {
                width,
                blocks,
                ..from.clone()
            };
            let old = trained_like(&from, 7, &device);
            device.seed(8);
            let new = grow(&old, &from, &to, &device).unwrap();
            assert_eq!(new.num_params(), to.parameters(), "{to:?}");
            let x = inputs(64, from.input_dim(), &device);
            let (a, b) = (outputs(&old, x.clone()), outputs(&new, x));
            for (k, (a, b)) in a.iter().zip(&b).enumerate() {
                assert_eq!(a.len(), b.len());
                for (p, q) in a.iter().zip(b) {
                    assert!(
                        (p - q).abs() <= 1e-5 * (1.0 + p.abs()),
                        "{to:?} output {k}: {p} vs {q}"
                    );
                }
            }
            // The new units are not dead: their incoming weights are the initialiser's.
            if width > from.width {
                let Dense { w, m: cols, .. } = dense(&new.input, "the weights").unwrap();
                let fresh = (0..w.len() / cols)
                    .filter(|i| w[i * cols + from.width] != 0.0)
                    .count();
                assert!(fresh > 0, "{to:?}: a new unit's incoming weights are all 0");
            }
        }
    }

    #[test]
    fn a_change_of_shape_that_would_change_the_function_is_refused() {
        let relu = ModelConfig {
            width: 16,
            ..ModelConfig::default()
        };
        let with = |f: &dyn Fn(&mut ModelConfig)| {
            let mut c = relu.clone();
            f(&mut c);
            c
        };
        for (from, to, says) in [
            (relu.clone(), relu.clone(), "nothing to grow"),
            (relu.clone(), with(&|c| c.width = 8), "cannot shrink"),
            (with(&|c| c.blocks = 2), relu.clone(), "cannot shrink"),
            (
                relu.clone(),
                with(&|c| c.encoding = Encoding::Counts),
                "only the width",
            ),
            (
                with(&|c| c.norm = Norm::Layernorm),
                with(&|c| {
                    c.norm = Norm::Layernorm;
                    c.width = 32
                }),
                "LayerNorm",
            ),
            (
                with(&|c| c.activation = Activation::Gelu),
                with(&|c| {
                    c.activation = Activation::Gelu;
                    c.blocks = 2
                }),
                "only a ReLU network",
            ),
        ] {
            let e = check_growth(&from, &to).unwrap_err();
            assert!(e.contains(says), "{from:?} → {to:?}: {e}");
        }
    }
}

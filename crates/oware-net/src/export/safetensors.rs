//! The weights as a safetensors file in PyTorch's layout, for Python users.
//!
//! The format: an 8-byte little-endian header length, a JSON header mapping each tensor
//! name to `{dtype, shape, data_offsets}` (plus `__metadata__`, strings only), then the
//! raw little-endian data. It is simple enough to write by hand, which also lets the
//! names and layout be PyTorch's rather than burn's: burn's `Linear` keeps its weight as
//! `[in, out]`, PyTorch's `nn.Linear` as `[out, in]`, so every weight is transposed, and
//! LayerNorm's `gamma`/`beta` become `weight`/`bias`.

use burn::module::Param;
use burn::nn::{LayerNorm, Linear};
use burn::tensor::Tensor;

use crate::net::{Manifest, NetError, PolicyValueNet};

/// The function the weights compute, in PyTorch terms (also in the export manifest).
pub const ARCHITECTURE: &str = "h = act(norm(input(x))); for each block i: t = act(norm1(blocks.i.fc1(h))); h = act(h + norm2(blocks.i.fc2(t))); policy_logits = policy(h); wdl_logits = value(h); store_diff = tanh(store_diff(h)). Linear layers are nn.Linear; norm layers (only if model.norm is layernorm) are nn.LayerNorm(eps=1e-5); act is model.activation (relu, gelu with the tanh approximation, or silu).";

/// One tensor of the export: its name, shape and row-major data.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedTensor {
    /// PyTorch-style name (`blocks.0.fc1.weight`).
    pub name: String,
    /// Shape, PyTorch layout.
    pub shape: Vec<usize>,
    /// Row-major values.
    pub data: Vec<f32>,
}

fn values<const D: usize>(t: Tensor<D>, name: &str) -> Result<Vec<f32>, NetError> {
    t.into_data()
        .try_into_vec::<f32>()
        .map_err(|e| NetError::Model(format!("reading {name}: {e:?}")))
}

fn linear(out: &mut Vec<NamedTensor>, prefix: &str, l: &Linear) -> Result<(), NetError> {
    let name = format!("{prefix}.weight");
    let w = l.weight.val();
    let [k, m] = w.dims();
    let data = values(w, &name)?;
    // burn's [in = k, out = m] → PyTorch's [out, in].
    let mut t = vec![0.0f32; k * m];
    for i in 0..k {
        for j in 0..m {
            t[j * k + i] = data[i * m + j];
        }
    }
    out.push(NamedTensor {
        name,
        shape: vec![m, k],
        data: t,
    });
    let bias = match &l.bias {
        Some(b) => values(b.val(), prefix)?,
        // PyTorch's nn.Linear always has a bias; a missing one is zero.
        None => vec![0.0; m],
    };
    out.push(NamedTensor {
        name: format!("{prefix}.bias"),
        shape: vec![m],
        data: bias,
    });
    Ok(())
}

fn norm(out: &mut Vec<NamedTensor>, prefix: &str, n: &Option<LayerNorm>) -> Result<(), NetError> {
    let Some(n) = n else { return Ok(()) };
    let gamma = values(n.gamma.val(), prefix)?;
    let len = gamma.len();
    let beta = match &n.beta {
        Some(b) => values(Param::val(b), prefix)?,
        None => vec![0.0; len],
    };
    out.push(NamedTensor {
        name: format!("{prefix}.weight"),
        shape: vec![len],
        data: gamma,
    });
    out.push(NamedTensor {
        name: format!("{prefix}.bias"),
        shape: vec![len],
        data: beta,
    });
    Ok(())
}

/// Every parameter of `model` under its PyTorch name and layout, in forward order.
pub fn pytorch_tensors(model: &PolicyValueNet) -> Result<Vec<NamedTensor>, NetError> {
    let mut out = Vec::new();
    linear(&mut out, "input", &model.input)?;
    norm(&mut out, "input_norm", &model.input_norm)?;
    for (i, b) in model.blocks.iter().enumerate() {
        linear(&mut out, &format!("blocks.{i}.fc1"), &b.fc1)?;
        norm(&mut out, &format!("blocks.{i}.norm1"), &b.norm1)?;
        linear(&mut out, &format!("blocks.{i}.fc2"), &b.fc2)?;
        norm(&mut out, &format!("blocks.{i}.norm2"), &b.norm2)?;
    }
    linear(&mut out, "policy", &model.policy)?;
    linear(&mut out, "value", &model.value)?;
    linear(&mut out, "store_diff", &model.store_diff)?;
    Ok(out)
}

/// The safetensors bytes of `model`, with the checkpoint's facts as `__metadata__`.
pub fn to_safetensors(model: &PolicyValueNet, manifest: &Manifest) -> Result<Vec<u8>, NetError> {
    let tensors = pytorch_tensors(model)?;
    let config = serde_json::to_string(&manifest.model)
        .map_err(|e| NetError::Config(format!("serialising the model config: {e}")))?;
    let metadata = [
        ("format", "pt".to_string()),
        ("encoding", manifest.encoding.name.clone()),
        ("encoding_dim", manifest.encoding.dim.to_string()),
        ("rules", manifest.rules.clone()),
        ("step", manifest.step.to_string()),
        ("model", config),
    ];
    Ok(encode(&tensors, &metadata))
}

/// Writes `tensors` (float32) and string `metadata` in the safetensors format.
pub fn encode(tensors: &[NamedTensor], metadata: &[(&str, String)]) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let meta: serde_json::Map<String, serde_json::Value> = metadata
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.clone())))
        .collect();
    header.insert("__metadata__".into(), meta.into());
    let mut offset = 0usize;
    for t in tensors {
        let end = offset + 4 * t.data.len();
        header.insert(
            t.name.clone(),
            serde_json::json!({"dtype": "F32", "shape": t.shape, "data_offsets": [offset, end]}),
        );
        offset = end;
    }
    let mut text = serde_json::Value::Object(header).to_string().into_bytes();
    // Pad with spaces so the data starts 8-byte aligned (what the reference writer does).
    while !(8 + text.len()).is_multiple_of(8) {
        text.push(b' ');
    }
    let mut out = Vec::with_capacity(8 + text.len() + offset);
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(&text);
    for t in tensors {
        for v in &t.data {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Reads a safetensors file of float32 tensors back (for checks): the tensors in file
/// order and the metadata.
pub fn decode(bytes: &[u8]) -> Result<(Vec<NamedTensor>, serde_json::Value), String> {
    let len_bytes: [u8; 8] = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or("shorter than the 8-byte header length")?;
    let n = u64::from_le_bytes(len_bytes) as usize;
    let header = bytes
        .get(8..8usize.saturating_add(n))
        .ok_or("the header runs past the end")?;
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(header).map_err(|e| format!("header: {e}"))?;
    let data = &bytes[8 + n..];
    let mut out = Vec::new();
    let mut meta = serde_json::Value::Null;
    for (name, v) in header {
        if name == "__metadata__" {
            meta = v;
            continue;
        }
        if v["dtype"] != "F32" {
            return Err(format!("{name}: dtype {} is not F32", v["dtype"]));
        }
        let shape: Vec<usize> =
            serde_json::from_value(v["shape"].clone()).map_err(|e| format!("{name}: {e}"))?;
        let [a, b]: [usize; 2] = serde_json::from_value(v["data_offsets"].clone())
            .map_err(|e| format!("{name}: {e}"))?;
        let raw = data
            .get(a..b)
            .ok_or_else(|| format!("{name}: data {a}..{b} out of range"))?;
        if raw.len() != 4 * shape.iter().product::<usize>() {
            return Err(format!("{name}: {} bytes for shape {shape:?}", raw.len()));
        }
        let data = raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        out.push(NamedTensor { name, shape, data });
    }
    Ok((out, meta))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::model::{Activation, Norm};
    use crate::net::{ModelConfig, PolicyValueNet};
    use burn::tensor::Device;
    use oware_core::env::encoding::Encoding;
    use oware_core::game::RuleSet;

    fn model(norm: Norm) -> (ModelConfig, PolicyValueNet) {
        let cfg = ModelConfig {
            encoding: Encoding::Counts,
            width: 8,
            blocks: 2,
            activation: Activation::Relu,
            norm,
        };
        let device = Device::flex();
        device.seed(4);
        let m = cfg.init(&device);
        (cfg, m)
    }

    #[test]
    fn weights_round_trip_transposed_with_pytorch_names() {
        let (cfg, m) = model(Norm::Layernorm);
        let manifest = Manifest::new(&cfg, RuleSet::abapa(), 7, None);
        let bytes = to_safetensors(&m, &manifest).unwrap();
        let header_len = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        assert_eq!((8 + header_len) % 8, 0, "data must start aligned");
        let (back, meta) = decode(&bytes).unwrap();
        assert_eq!(meta["step"], "7");
        assert_eq!(meta["encoding"], "counts");
        let names: Vec<&str> = back.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names[..4],
            [
                "input.weight",
                "input.bias",
                "input_norm.weight",
                "input_norm.bias"
            ]
        );
        assert!(names.contains(&"blocks.1.fc2.weight"));
        assert!(names.contains(&"blocks.0.norm1.bias"));
        assert_eq!(names.last(), Some(&"store_diff.bias"));
        let count: usize = back.iter().map(|t| t.data.len()).sum();
        assert_eq!(count, cfg.parameters());

        // input.weight is PyTorch's [out, in]: element [j][i] is burn's [i][j].
        let w = &back[0];
        assert_eq!(w.shape, vec![8, 14]);
        let burn_w = m
            .input
            .weight
            .val()
            .into_data()
            .try_to_vec::<f32>()
            .unwrap();
        for i in 0..14 {
            for j in 0..8 {
                assert_eq!(w.data[j * 14 + i], burn_w[i * 8 + j]);
            }
        }
        let policy = back.iter().find(|t| t.name == "policy.weight").unwrap();
        assert_eq!(policy.shape, vec![6, 8]);
        let burn_p = m
            .policy
            .weight
            .val()
            .into_data()
            .try_to_vec::<f32>()
            .unwrap();
        assert_eq!(policy.data[8 + 3], burn_p[3 * 6 + 1]);
        let bias = back.iter().find(|t| t.name == "value.bias").unwrap();
        let burn_b = m
            .value
            .bias
            .as_ref()
            .unwrap()
            .val()
            .into_data()
            .try_to_vec::<f32>()
            .unwrap();
        assert_eq!(bias.data, burn_b);
    }

    #[test]
    fn truncated_files_are_errors() {
        let (cfg, m) = model(Norm::None);
        let bytes = to_safetensors(&m, &Manifest::new(&cfg, RuleSet::abapa(), 0, None)).unwrap();
        assert!(decode(&bytes[..4]).is_err());
        assert!(decode(&bytes[..bytes.len() - 4]).is_err());
        assert!(decode(&bytes).is_ok());
    }
}

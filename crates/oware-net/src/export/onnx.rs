//! The network as an ONNX model, through burn-onnx's exporter.
//!
//! burn-onnx traces the forward pass twice (two batch sizes) to mark the batch axis as
//! symbolic, and names the graph's inputs and outputs after internal tensor ids
//! (`tensor_123`). A frontend should not have to guess which output is which, so the
//! protobuf is decoded, the four boundary tensors are renamed everywhere they occur, and
//! the model is encoded again.
//!
//! burn-onnx 0.22 cannot lower burn's fused LayerNorm, `mean_dim` or `powi`, so the traced
//! function ([`export_forward`]) is the model's forward pass with LayerNorm and GELU
//! written out in elementary operations it does lower; the round-trip test checks the two agree.

use std::collections::HashMap;

use burn::module::Param;
use burn::nn::LayerNorm;
use burn::tensor::{Device, Tensor};
use burn_onnx::export::{AxisSpec, InputSpec, OnnxExporter};
use onnx_ir::{Message, ModelProto};

use crate::net::model::{Activation, LAYERNORM_EPS};
use crate::net::{NetError, PolicyValueNet, catch_burn};

/// The input's name: encoded positions, `[batch, dim]` float32.
pub const INPUT: &str = "features";
/// The outputs' names, in order: `[batch, 6]` policy logits, `[batch, 3]` W/D/L logits,
/// `[batch, 1]` store difference / 48.
pub const OUTPUTS: [&str; 3] = ["policy_logits", "wdl_logits", "store_diff"];
/// The lowest opset a model must declare (the floor; burn-onnx writes 18).
pub const MIN_OPSET: i64 = 13;
/// The opset burn-onnx 0.22 writes.
pub const OPSET: i64 = 18;
/// The symbolic name of the batch axis.
pub const BATCH_AXIS: &str = "batch";

/// The model-level metadata key holding the export manifest (JSON), so the `.onnx`
/// file describes itself even without `FILE.json` beside it.
pub const MANIFEST_KEY: &str = "oware_zero_manifest";

/// Exports `model` (input width `dim`) as ONNX bytes with a dynamic batch axis, the names
/// of [`INPUT`] and [`OUTPUTS`], and `metadata` as the model's metadata properties.
pub fn to_onnx(
    model: &PolicyValueNet,
    dim: usize,
    metadata: &[(&str, String)],
) -> Result<Vec<u8>, NetError> {
    let device = Device::flex();
    // Two traces of different batch sizes let the exporter tell the batch axis apart
    // from the constant feature axis.
    let sample = Tensor::<2>::zeros([2, dim], &device);
    let validation = Tensor::<2>::zeros([3, dim], &device);
    let specs = [InputSpec::new([
        AxisSpec::dynamic(BATCH_AXIS),
        AxisSpec::Static,
    ])];
    let onnx = catch_burn("exporting to ONNX", || {
        OnnxExporter::new().export_dynamic(model, sample, validation, &specs, export_forward)
    })?
    .map_err(|e| NetError::Model(format!("ONNX export: {e}")))?;
    rename_boundaries(onnx.as_bytes(), metadata)
}

/// LayerNorm over the last axis from elementary operations, as burn computes it: the
/// biased variance, ε inside the square root, then the learned scale and shift.
fn layer_norm(norm: &Option<LayerNorm>, x: Tensor<2>) -> Tensor<2> {
    let Some(n) = norm else { return x };
    // Means as sums divided by the width: the exporter lowers `SumDim`, not `MeanDim`.
    let width = x.dims()[1] as f64;
    let mean = x.clone().sum_dim(1) / width;
    let centred = x - mean;
    let var = (centred.clone() * centred.clone()).sum_dim(1) / width;
    let y = centred / (var + LAYERNORM_EPS).sqrt();
    let y = y * n.gamma.val().unsqueeze_dim::<2>(0);
    match &n.beta {
        Some(b) => y + Param::val(b).unsqueeze_dim::<2>(0),
        None => y,
    }
}

/// The trunk activation in operations the exporter lowers: GELU's cube as products
/// (burn computes it with `powi`, which the exporter lacks); the others as they are.
fn activation(act: Activation, x: Tensor<2>) -> Tensor<2> {
    match act {
        Activation::Gelu => {
            const C: f64 = 0.797_884_560_802_865_4; // √(2/π)
            let cube = x.clone() * x.clone() * x.clone();
            let inner = (x.clone() + cube * 0.044715) * C;
            x * 0.5 * (inner.tanh() + 1.0)
        }
        Activation::Relu | Activation::Silu => act.forward(x),
    }
}

/// [`PolicyValueNet::forward`] with LayerNorm and GELU decomposed (see the module docs); returns
/// (policy logits `[n, 6]`, W/D/L logits `[n, 3]`, store difference `[n, 1]`).
pub fn export_forward(m: &PolicyValueNet, x: Tensor<2>) -> (Tensor<2>, Tensor<2>, Tensor<2>) {
    let act = |x| activation(m.activation, x);
    let mut h = act(layer_norm(&m.input_norm, m.input.forward(x)));
    for b in &m.blocks {
        let t = act(layer_norm(&b.norm1, b.fc1.forward(h.clone())));
        let u = layer_norm(&b.norm2, b.fc2.forward(t));
        h = act(h + u);
    }
    (
        m.policy.forward(h.clone()),
        m.value.forward(h.clone()),
        m.store_diff.forward(h).tanh(),
    )
}

/// Renames the graph's single input to [`INPUT`] and its three outputs to [`OUTPUTS`],
/// in every node that reads or writes them, checks the opset, and adds `metadata`.
pub fn rename_boundaries(bytes: &[u8], metadata: &[(&str, String)]) -> Result<Vec<u8>, NetError> {
    let bad = |m: String| NetError::Model(format!("ONNX export: {m}"));
    let mut model =
        ModelProto::parse_from_bytes(bytes).map_err(|e| bad(format!("unreadable model: {e}")))?;
    let opset = default_opset(&model);
    if opset < MIN_OPSET {
        return Err(bad(format!(
            "the model declares opset {opset}; at least {MIN_OPSET} is needed"
        )));
    }
    let graph = model
        .graph
        .as_mut()
        .ok_or_else(|| bad("the model has no graph".into()))?;
    if graph.input.len() != 1 || graph.output.len() != OUTPUTS.len() {
        return Err(bad(format!(
            "expected 1 input and {} outputs, found {} and {}",
            OUTPUTS.len(),
            graph.input.len(),
            graph.output.len()
        )));
    }
    let mut names = HashMap::new();
    names.insert(graph.input[0].name.clone(), INPUT.to_string());
    for (o, &new) in graph.output.iter().zip(&OUTPUTS) {
        if names.insert(o.name.clone(), new.to_string()).is_some() {
            return Err(bad(format!(
                "tensor '{}' is two boundaries at once",
                o.name
            )));
        }
    }
    // The new names must not already name some other tensor.
    let taken = graph
        .initializer
        .iter()
        .map(|t| &t.name)
        .chain(graph.node.iter().flat_map(|n| n.output.iter()))
        .any(|n| !names.contains_key(n) && names.values().any(|v| v == n));
    if taken {
        return Err(bad("a tensor already carries one of the new names".into()));
    }
    let rename = |s: &mut String| {
        if let Some(n) = names.get(s.as_str()) {
            *s = n.clone();
        }
    };
    for v in graph
        .input
        .iter_mut()
        .chain(graph.output.iter_mut())
        .chain(graph.value_info.iter_mut())
    {
        rename(&mut v.name);
    }
    for n in graph.node.iter_mut() {
        n.input.iter_mut().for_each(rename);
        n.output.iter_mut().for_each(rename);
    }
    graph.name = "oware_policy_value".into();
    model.producer_name = "oware-zero (burn-onnx)".into();
    model.producer_version = env!("CARGO_PKG_VERSION").into();
    for (k, v) in metadata {
        // The entry type is private to onnx-ir; a default one is pushed, then filled.
        model.metadata_props.push(Default::default());
        if let Some(e) = model.metadata_props.last_mut() {
            e.key = k.to_string();
            e.value = v.clone();
        }
    }
    model
        .write_to_bytes()
        .map_err(|e| bad(format!("re-encoding the model: {e}")))
}

/// The version of the default (`ai.onnx`) operator set the model imports; 0 if none.
fn default_opset(model: &ModelProto) -> i64 {
    model
        .opset_import
        .iter()
        .filter(|o| o.domain.is_empty() || o.domain == "ai.onnx")
        .map(|o| o.version)
        .max()
        .unwrap_or(0)
}

/// What [`signature`] reads from an ONNX file.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    /// Input names.
    pub inputs: Vec<String>,
    /// Output names.
    pub outputs: Vec<String>,
    /// The default domain's opset.
    pub opset: i64,
    /// The model's metadata properties (key, value).
    pub metadata: Vec<(String, String)>,
}

/// The names of a model's inputs and outputs, its default-domain opset and metadata.
pub fn signature(bytes: &[u8]) -> Result<Signature, NetError> {
    let model = ModelProto::parse_from_bytes(bytes)
        .map_err(|e| NetError::Model(format!("unreadable ONNX model: {e}")))?;
    let opset = default_opset(&model);
    let g = model.graph.get_or_default();
    Ok(Signature {
        inputs: g.input.iter().map(|v| v.name.clone()).collect(),
        outputs: g.output.iter().map(|v| v.name.clone()).collect(),
        opset,
        metadata: model
            .metadata_props
            .iter()
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect(),
    })
}

//! `oware export` through the binary, checked by an independent runtime: the ONNX file
//! runs in tract (pure Rust) and must match the burn model on 1 000 positions from random
//! games at several batch sizes; the safetensors file must hold the model's weights in
//! PyTorch's layout.

mod common;

use std::path::Path;

use burn::tensor::Device;
use oware_zero::env::encoding::Encoding;
use oware_zero::export::onnx::{INPUT, MANIFEST_KEY, OUTPUTS, signature};
use oware_zero::export::safetensors::decode;
use oware_zero::game::{Game, Position, RuleSet};
use oware_zero::net::checkpoint::{Manifest, save};
use oware_zero::net::evaluator::burn_forward;
use oware_zero::net::model::{Activation, Norm};
use oware_zero::net::{ModelConfig, PolicyValueNet};
use oware_zero::rng::Rng;
use tract_onnx::prelude::*;

use common::oware;

fn checkpoint(dir: &Path, cfg: &ModelConfig, seed: u64) -> PolicyValueNet {
    let device = Device::flex();
    device.seed(seed);
    let model = cfg.init(&device);
    save(
        dir,
        &Manifest::new(cfg, RuleSet::abapa(), 42, None),
        &model,
        None,
    )
    .unwrap();
    model
}

/// `n` positions met in random games (each game played until it ends), start included.
fn game_positions(n: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut g = Game::new(RuleSet::abapa(), Position::start());
        while !g.is_over() && out.len() < n {
            out.push(*g.position());
            let a = rng.pick_bit(g.legal_moves());
            g.play(a).unwrap();
        }
    }
    out
}

/// Runs the ONNX bytes in tract on `x` (`[rows, dim]`) in batches of `batch` rows; one
/// runnable plan with a symbolic batch axis serves every batch size.
fn tract_outputs(bytes: &[u8], x: &[f32], dim: usize, batches: &[usize]) -> Vec<Vec<f32>> {
    let plan = tract_onnx::onnx()
        .model_for_read(&mut &bytes[..])
        .unwrap()
        .into_optimized()
        .unwrap()
        .into_runnable()
        .unwrap();
    let rows = x.len() / dim;
    batches
        .iter()
        .map(|&batch| {
            let mut all = vec![0.0f32; rows * 10];
            let mut r = 0;
            while r < rows {
                let n = batch.min(rows - r);
                let input = tract_ndarray::Array2::from_shape_vec(
                    (n, dim),
                    x[r * dim..(r + n) * dim].to_vec(),
                )
                .unwrap();
                let out = plan.run(tvec!(Tensor::from(input).into())).unwrap();
                assert_eq!(out.len(), 3);
                let widths = [6, 3, 1];
                let mut col = 0;
                for (o, &w) in out.iter().zip(&widths) {
                    let v = o.to_array_view::<f32>().unwrap();
                    assert_eq!(v.shape(), &[n, w]);
                    for i in 0..n {
                        for j in 0..w {
                            all[(r + i) * 10 + col + j] = v[[i, j]];
                        }
                    }
                    col += w;
                }
                r += n;
            }
            all
        })
        .collect()
}

fn check_onnx(cfg: ModelConfig, seed: u64) -> f32 {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    let model = checkpoint(&ck, &cfg, seed);
    let out = tmp.path().join("net.onnx");
    let (code, stdout, err) = oware(&[
        "export",
        "--model",
        ck.to_str().unwrap(),
        "--format",
        "onnx",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("net.onnx.json"), "{stdout}");
    let bytes = std::fs::read(&out).unwrap();
    let sig = signature(&bytes).unwrap();
    assert_eq!(sig.inputs, vec![INPUT.to_string()]);
    assert_eq!(sig.outputs, OUTPUTS.map(String::from).to_vec());
    assert!(sig.opset >= 13, "opset {}", sig.opset);

    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("net.onnx.json")).unwrap())
            .unwrap();
    let enc = cfg.encoding;
    assert_eq!(manifest["encoding"]["name"], enc.name());
    assert_eq!(manifest["encoding"]["dim"], enc.dim());
    assert_eq!(manifest["encoding"]["layout"], enc.layout());
    assert_eq!(manifest["step"], 42);
    assert_eq!(manifest["rules"], "abapa");
    assert_eq!(manifest["io"]["outputs"][1]["name"], "wdl_logits");
    // The same manifest rides inside the ONNX file.
    let (key, inner) = &sig.metadata[0];
    assert_eq!(key, MANIFEST_KEY);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(inner).unwrap(),
        manifest
    );

    let dim = enc.dim();
    let pos = game_positions(1000, seed);
    let mut x = vec![0.0f32; pos.len() * dim];
    enc.encode_batch(&pos, &mut x);
    let want = burn_forward(&model, &Device::flex(), &x, pos.len(), dim).unwrap();
    // Not a constant network: the check below could not pass by accident.
    assert!(want.chunks(10).any(|r| (r[0] - want[0]).abs() > 1e-3));
    let mut worst = 0.0f32;
    for got in tract_outputs(&bytes, &x, dim, &[1000, 37, 1]) {
        let d = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        worst = worst.max(d);
    }
    assert!(worst <= 1e-4, "{cfg:?}: ONNX and burn differ by {worst}");
    eprintln!("{cfg:?}: max |onnx - burn| = {worst:e} over 1000 positions, batches 1000/37/1");
    worst
}

#[test]
fn onnx_matches_burn_default_model() {
    check_onnx(ModelConfig::default(), 1);
}

#[test]
fn onnx_matches_burn_gelu_layernorm() {
    check_onnx(
        ModelConfig {
            encoding: Encoding::Counts,
            width: 64,
            blocks: 2,
            activation: Activation::Gelu,
            norm: Norm::Layernorm,
        },
        2,
    );
}

#[test]
fn onnx_matches_burn_silu() {
    check_onnx(
        ModelConfig {
            width: 32,
            blocks: 1,
            activation: Activation::Silu,
            ..ModelConfig::default()
        },
        3,
    );
}

#[test]
fn safetensors_holds_the_weights_transposed() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    let cfg = ModelConfig {
        width: 16,
        ..ModelConfig::default()
    };
    let model = checkpoint(&ck, &cfg, 5);
    let out = tmp.path().join("w.safetensors");
    let (code, _, err) = oware(&[
        "export",
        "--model",
        ck.to_str().unwrap(),
        "--format",
        "safetensors",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (tensors, meta) = decode(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(meta["encoding"], "onehot");
    let fc1 = tensors
        .iter()
        .find(|t| t.name == "blocks.0.fc1.weight")
        .unwrap();
    assert_eq!(fc1.shape, vec![16, 16]);
    let w = model.blocks[0]
        .fc1
        .weight
        .val()
        .into_data()
        .try_to_vec::<f32>()
        .unwrap();
    for i in 0..16 {
        for j in 0..16 {
            assert_eq!(fc1.data[j * 16 + i], w[i * 16 + j]);
        }
    }
    let input = tensors.iter().find(|t| t.name == "input.weight").unwrap();
    assert_eq!(input.shape, vec![16, 354]);
    let total: usize = tensors.iter().map(|t| t.data.len()).sum();
    assert_eq!(total, cfg.parameters());
    assert!(tmp.path().join("w.safetensors.json").is_file());
}

#[test]
fn bad_inputs_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nothing");
    let (code, _, err) = oware(&[
        "export",
        "--model",
        missing.to_str().unwrap(),
        "--out",
        "x.onnx",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("does not exist"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    let ck = tmp.path().join("ck");
    checkpoint(
        &ck,
        &ModelConfig {
            width: 8,
            ..ModelConfig::default()
        },
        1,
    );
    let ck = ck.to_str().unwrap();
    let (code, _, err) = oware(&["export", "--model", ck, "--format", "tflite", "--out", "x"]);
    assert_eq!(code, 1);
    assert!(err.contains("--format") && err.contains("onnx"), "{err}");

    let bad_out = tmp.path().join("no/such/dir/net.onnx");
    let (code, _, err) = oware(&["export", "--model", ck, "--out", bad_out.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("no/such/dir"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    // A corrupted weights file is named, not a panic.
    std::fs::write(Path::new(ck).join("model.bpk"), b"garbage").unwrap();
    let out = tmp.path().join("n.onnx");
    let (code, _, err) = oware(&["export", "--model", ck, "--out", out.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("model.bpk"), "{err}");
    assert!(!out.exists());
}

//! `oware export` through the binary, checked by an independent runtime: the ONNX file
//! runs in onnxruntime (Python, `tests/export_onnxruntime.py`) and must match the burn
//! model on 1 000 positions from random games at several batch sizes; the safetensors
//! file must hold the model's weights in PyTorch's layout.
//!
//! The ONNX checks need a Python with numpy and onnxruntime (`pip install onnxruntime`;
//! `OWARE_ONNX_PYTHON` names it, default `python3`). Without one they say so on the
//! terminal and pass, unless `OWARE_REQUIRE_ONNX=1` (set by CI), where it is a failure.
//! (The runtime was tract, a Rust crate, until its compile time, a minute and more of
//! every test build, moved it out: experiments/recorded/build-time/.)

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Command;

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

/// The Python that runs onnxruntime, or `None` (after saying why on the terminal) where
/// there is none and `OWARE_REQUIRE_ONNX=1` is not set.
fn onnx_python(test: &str) -> Option<String> {
    let python = std::env::var("OWARE_ONNX_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&python)
        .args(["-c", "import numpy, onnxruntime"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(python);
    }
    let required = std::env::var("OWARE_REQUIRE_ONNX").is_ok_and(|v| v == "1");
    assert!(
        !required,
        "OWARE_REQUIRE_ONNX=1 but `{python} -c 'import numpy, onnxruntime'` fails: \
         pip install onnxruntime"
    );
    // Straight to the terminal, past the test harness's capture.
    let _ = writeln!(
        std::io::stderr(),
        "\nSKIPPED {test}: `{python}` cannot import numpy and onnxruntime (pip install \
         onnxruntime, or set OWARE_ONNX_PYTHON; OWARE_REQUIRE_ONNX=1 makes this a failure)\n"
    );
    None
}

/// Runs the ONNX file `model` in onnxruntime on `x` (`[rows, dim]`) once for each batch
/// size in `batches`; each run's outputs are `[rows, 10]` (policy, W/D/L, store
/// difference), in the order of `batches`.
fn onnxruntime_outputs(
    python: &str,
    model: &Path,
    x: &[f32],
    dim: usize,
    batches: &[usize],
) -> Vec<Vec<f32>> {
    let tmp = tempfile::tempdir().unwrap();
    let (features, out) = (tmp.path().join("x.f32"), tmp.path().join("y.f32"));
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&features, bytes).unwrap();
    let list = batches.iter().map(usize::to_string).collect::<Vec<_>>();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/export_onnxruntime.py");
    let run = Command::new(python)
        .arg(&script)
        .arg(model)
        .arg(&features)
        .arg(dim.to_string())
        .arg(list.join(","))
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{script:?}: {err}");
    let y: Vec<f32> = std::fs::read(&out)
        .unwrap()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let rows = x.len() / dim;
    assert_eq!(y.len(), batches.len() * rows * 10);
    y.chunks(rows * 10).map(<[f32]>::to_vec).collect()
}

/// Exports a random checkpoint of shape `cfg` and checks the file: its names, manifest
/// and, in onnxruntime, its outputs against burn's (largest difference returned; `None`
/// when there is no onnxruntime to run it).
fn check_onnx(test: &str, cfg: ModelConfig, seed: u64) -> Option<f32> {
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

    let python = onnx_python(test)?;
    let dim = enc.dim();
    let pos = game_positions(1000, seed);
    let mut x = vec![0.0f32; pos.len() * dim];
    enc.encode_batch(&pos, &mut x);
    let want = burn_forward(&model, &Device::flex(), &x, pos.len(), dim).unwrap();
    // Not a constant network: the check below could not pass by accident.
    assert!(want.chunks(10).any(|r| (r[0] - want[0]).abs() > 1e-3));
    let mut worst = 0.0f32;
    for got in onnxruntime_outputs(&python, &out, &x, dim, &[1000, 37, 1]) {
        let d = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        worst = worst.max(d);
    }
    assert!(worst <= 1e-4, "{cfg:?}: ONNX and burn differ by {worst}");
    eprintln!("{cfg:?}: max |onnx - burn| = {worst:e} over 1000 positions, batches 1000/37/1");
    Some(worst)
}

#[test]
fn onnx_matches_burn_default_model() {
    check_onnx("onnx_matches_burn_default_model", ModelConfig::default(), 1);
}

#[test]
fn onnx_matches_burn_gelu_layernorm() {
    check_onnx(
        "onnx_matches_burn_gelu_layernorm",
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
        "onnx_matches_burn_silu",
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

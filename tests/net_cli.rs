//! `oware infer` and `oware bench net` through the command line.

mod common;

use std::path::Path;

use burn::tensor::Device;
use oware_zero::game::{Position, RuleSet};
use oware_zero::net::checkpoint::{Manifest, checkpoint_name, checkpoints_dir, save, write_latest};
use oware_zero::net::{InferencePath, ModelConfig, NetEvaluator};

use common::oware;

/// A run directory with one checkpoint, `iter-0003`, named as the latest.
fn run_dir(root: &Path) -> (ModelConfig, oware_zero::net::PolicyValueNet) {
    let cfg = ModelConfig {
        width: 32,
        ..ModelConfig::default()
    };
    let device = Device::flex();
    device.seed(3);
    let model = cfg.init(&device);
    let dir = checkpoints_dir(root).join(checkpoint_name(3));
    save(
        &dir,
        &Manifest::new(&cfg, RuleSet::abapa(), 3, None),
        &model,
        None,
    )
    .unwrap();
    write_latest(root, &checkpoint_name(3)).unwrap();
    (cfg, model)
}

#[test]
fn infer_answers_for_a_run_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let (cfg, model) = run_dir(tmp.path());
    // South to move; pits A and B empty, so only C..F are legal.
    let fen = "0-0-4-4-4-4-4-4-4-4-4-4-4-4-S";
    let run = tmp.path().to_str().unwrap();
    let (code, out, err) = oware(&["infer", "--model", run, "--fen", fen, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();

    let input: Vec<f32> = serde_json::from_value(v["input"].clone()).unwrap();
    assert_eq!(input.len(), 354);
    assert_eq!(input[0], 0.0);
    assert_eq!(input[2], 4.0 / 48.0);
    assert_eq!(input[12], 4.0 / 48.0);
    // Pit A's one-hot block: bin 0 set.
    assert_eq!(input[14], 1.0);

    let logits: Vec<f32> = serde_json::from_value(v["policy_logits"].clone()).unwrap();
    let wdl: Vec<f32> = serde_json::from_value(v["wdl"].clone()).unwrap();
    let priors: Vec<f32> = serde_json::from_value(v["priors"].clone()).unwrap();
    let value = v["value"].as_f64().unwrap() as f32;
    let store = v["store_diff"].as_f64().unwrap() as f32;
    assert_eq!(logits.len(), 6);
    assert!((wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    assert!((value - (wdl[0] - wdl[2])).abs() < 1e-6);
    assert_eq!(&priors[..2], &[0.0, 0.0]);
    assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    assert!((-1.0..=1.0).contains(&store));
    assert_eq!(v["legal_moves"], "CDEF");

    // The same numbers as burn's own forward pass on the model that was saved.
    let p: Position = fen.parse().unwrap();
    let mut e = NetEvaluator::new(&model, &cfg)
        .unwrap()
        .with_path(InferencePath::Burn);
    let raw = e.forward_positions(&[p]).unwrap();
    for (a, b) in raw[..6].iter().zip(&logits) {
        assert!((a - b).abs() < 1e-5, "{raw:?} vs {logits:?}");
    }
    assert!((raw[9] - store).abs() < 1e-5);

    // Text output names the checkpoint the run directory resolved to.
    let (code, out, _) = oware(&["infer", "--model", run, "--fen", fen]);
    assert_eq!(code, 0);
    assert!(
        out.contains("iter-0003") && out.contains("(illegal)"),
        "{out}"
    );
}

#[test]
fn infer_rejects_bad_model_paths_with_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope");
    let (code, _, err) = oware(&["infer", "--model", missing.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("does not exist"), "{err}");
    let (code, _, err) = oware(&["infer", "--model", tmp.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("neither a checkpoint directory"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    run_dir(tmp.path());
    let weights = checkpoints_dir(tmp.path()).join("iter-0003/model.bpk");
    std::fs::write(&weights, b"garbage").unwrap();
    let (code, _, err) = oware(&["infer", "--model", tmp.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("model.bpk") && err.contains("truncated"),
        "{err}"
    );
}

#[test]
fn bench_net_reports_every_batch_size() {
    let (code, out, err) = oware(&[
        "bench",
        "net",
        "--json",
        "--seconds",
        "0.05",
        "--no-train",
        "--width",
        "32",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for b in ["1", "8", "64", "512", "4096"] {
        assert!(v["evals_per_second"][b].as_f64().unwrap() > 0.0, "{out}");
        assert!(
            v["paths"]["burn-1"]["evals_per_second"][b]
                .as_f64()
                .unwrap()
                > 0.0
        );
    }
    assert!(v["per_call_overhead_us"].is_number());
}

#[test]
fn average_writes_the_mean_of_the_checkpoints_and_refuses_mismatches() {
    use oware_zero::net::checkpoint::Checkpoint;
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    common::random_checkpoint(&a, 1, 10);
    common::random_checkpoint(&b, 2, 20);
    let out = tmp.path().join("mean");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (code, text, err) = oware(&["average", "--out", &s(&out), &s(&a), &s(&b)]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("the mean of 2 checkpoints"), "{text}");
    let device = Device::flex();
    let load = |p: &Path| Checkpoint::load(p, &device).unwrap();
    let (ca, cb, cm) = (load(&a), load(&b), load(&out));
    assert_eq!(cm.manifest.step, 20);
    assert_eq!(cm.manifest.parent.as_deref(), Some("average of a, b"));
    assert!(!cm.has_optimizer());
    let v = |t: burn::tensor::Tensor<2>| t.into_data().try_into_vec::<f32>().unwrap();
    for (x, y, m) in [
        (&ca.model.input, &cb.model.input, &cm.model.input),
        (
            &ca.model.blocks[0].fc2,
            &cb.model.blocks[0].fc2,
            &cm.model.blocks[0].fc2,
        ),
        (&ca.model.policy, &cb.model.policy, &cm.model.policy),
    ] {
        let (x, y, m) = (v(x.weight.val()), v(y.weight.val()), v(m.weight.val()));
        assert_ne!(x, y);
        for i in 0..m.len() {
            assert!((m[i] - (x[i] + y[i]) / 2.0).abs() < 1e-6, "weight {i}");
        }
    }

    // One checkpoint, an existing output, another shape, a missing path: one line each.
    let (code, _, err) = oware(&["average", "--out", &s(&tmp.path().join("x")), &s(&a)]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = oware(&["average", "--out", &s(&out), &s(&a), &s(&b)]);
    assert_eq!(code, 1);
    assert!(err.contains("already exists"), "{err}");
    let wide = tmp.path().join("wide");
    let cfg = ModelConfig {
        width: 16,
        ..ModelConfig::default()
    };
    save(
        &wide,
        &Manifest::new(&cfg, RuleSet::abapa(), 1, None),
        &cfg.init(&device),
        None,
    )
    .unwrap();
    let x = tmp.path().join("x");
    let (code, _, err) = oware(&["average", "--out", &s(&x), &s(&a), &s(&wide)]);
    assert_eq!(code, 1);
    assert!(err.contains("16 wide") && err.contains("32 wide"), "{err}");
    let (code, _, err) = oware(&[
        "average",
        "--out",
        &s(&x),
        &s(&a),
        &s(&tmp.path().join("nope")),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("does not exist"), "{err}");
    assert!(!x.exists() && !err.contains("panicked"), "{err}");
}

#[test]
fn grow_writes_a_larger_network_with_the_same_answers_and_refuses_bad_sizes() {
    use oware_zero::net::checkpoint::Checkpoint;
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    common::random_checkpoint(&a, 4, 30);
    let out = tmp.path().join("grown");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (code, text, err) = oware(&[
        "grow",
        "--model",
        &s(&a),
        "--width",
        "48",
        "--blocks",
        "3",
        "--out",
        &s(&out),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("1 block × 32 to 3 blocks × 48"), "{text}");
    let ck = Checkpoint::load(&out, &Device::flex()).unwrap();
    assert_eq!((ck.manifest.model.width, ck.manifest.model.blocks), (48, 3));
    assert_eq!(ck.manifest.step, 30);
    assert!(!ck.has_optimizer());

    // The same answers through the program's own inference, on positions of a game.
    let answer = |model: &Path, fen: &str| {
        let (code, out, err) = oware(&["infer", "--model", &s(model), "--fen", fen, "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let mut all: Vec<f32> = serde_json::from_value(v["policy_logits"].clone()).unwrap();
        all.extend(serde_json::from_value::<Vec<f32>>(v["wdl"].clone()).unwrap());
        all.push(v["store_diff"].as_f64().unwrap() as f32);
        all
    };
    for fen in [
        "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S",
        "0-0-4-4-4-4-4-4-4-4-4-4-4-4-S",
        "1-0-3-0-7-2-0-5-1-1-0-2-12-14-N",
    ] {
        let (x, y) = (answer(&a, fen), answer(&out, fen));
        for (p, q) in x.iter().zip(&y) {
            assert!((p - q).abs() < 1e-4, "{fen}: {x:?} vs {y:?}");
        }
    }

    // No size, an existing output, a smaller size: one line each, nothing written.
    let x = tmp.path().join("x");
    let (code, _, err) = oware(&["grow", "--model", &s(&a), "--out", &s(&x)]);
    assert_eq!(code, 1);
    assert!(err.contains("give --width, --blocks or both"), "{err}");
    let (code, _, err) = oware(&[
        "grow",
        "--model",
        &s(&a),
        "--blocks",
        "2",
        "--out",
        &s(&out),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("already exists"), "{err}");
    let (code, _, err) = oware(&["grow", "--model", &s(&a), "--width", "16", "--out", &s(&x)]);
    assert_eq!(code, 1);
    assert!(
        err.contains("cannot shrink") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!x.exists() && !err.contains("panicked"), "{err}");
}

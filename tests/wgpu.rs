//! The wgpu backend against the CPU one (burn's `flex`): the forward pass, training steps,
//! checkpoints across the two devices, a 2-iteration run of `configs/gpu.toml`, and the
//! command line's `--device wgpu`.
//!
//! Needs a build with `--features wgpu` and a wgpu adapter. Without a GPU, Mesa's software
//! Vulkan (lavapipe, Debian's `mesa-vulkan-drivers` and `libvulkan1`) is one: slow, but
//! enough to show the code path computes what the CPU does. `.ci/run` installs it and sets
//! `OWARE_REQUIRE_WGPU`, which turns a missing adapter into a failure; without it such a
//! test says so and passes. Without the feature, one test checks the binary says how to get
//! it.

mod common;

use std::process::Command;

use common::BIN;

/// `oware ARGS` with `envs` set; (exit code, stdout, stderr).
fn oware_env(args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
    let o = Command::new(BIN)
        .args(args)
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A one-line error on stderr, exit code 1, no panic.
fn assert_one_line_error(code: i32, err: &str, wanted: &str) {
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(wanted), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[cfg(not(feature = "wgpu"))]
#[test]
fn without_the_feature_wgpu_says_how_to_get_it() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    common::random_checkpoint(&ck, 1, 0);
    let ck = ck.to_str().unwrap();
    let (code, _, err) = oware_env(
        &["infer", "--model", ck, "--path", "burn", "--device", "wgpu"],
        &[],
    );
    assert_one_line_error(code, &err, "--features wgpu");
    let (code, _, err) = oware_env(
        &["bench", "net", "--device", "wgpu", "--seconds", "0.05"],
        &[],
    );
    assert_one_line_error(code, &err, "--features wgpu");
}

#[cfg(feature = "wgpu")]
mod on_wgpu {
    use std::path::Path;

    use burn::module::{Module, ModuleVisitor, Param};
    use burn::tensor::{Device, Tensor};
    use oware_zero::game::{Position, RuleSet};
    use oware_zero::net::checkpoint::{Checkpoint, Manifest, save};
    use oware_zero::net::{
        Activation, DeviceKind, InferencePath, Learner, LearnerConfig, Losses, ModelConfig,
        NetEvaluator, Norm, OptimizerKind, PolicyValueNet, TrainBatch,
    };
    use oware_zero::rng::Rng;
    use oware_zero::search::mcts::MctsConfig;

    use super::{assert_one_line_error, oware_env};

    /// Forward pass: raw outputs (policy and W/D/L logits, store difference) within this
    /// of the CPU's, absolute.
    const FORWARD_TOL: f32 = 1e-4;
    /// Training: each step's losses within this of the CPU's, relative.
    const LOSS_TOL: f32 = 1e-4;
    /// Training with SGD: every weight after the steps within this of the CPU's, absolute
    /// (SGD's update is linear in the gradient, so float rounding stays float rounding).
    const SGD_WEIGHT_TOL: f32 = 1e-5;
    /// Training with AdamW (the default): every weight within this, absolute. AdamW divides
    /// by the gradient's own size, so a near-zero gradient that rounds to the other sign
    /// moves its weight by up to about ±1e-3 (the learning rate) a step the other way;
    /// the mean difference stays small ([`ADAMW_MEAN_TOL`]).
    const ADAMW_WEIGHT_TOL: f32 = 1e-3;
    /// Training with AdamW: the mean absolute weight difference.
    const ADAMW_MEAN_TOL: f32 = 1e-5;

    /// The wgpu device, or `None` after saying why the test is skipped (a failure when
    /// `OWARE_REQUIRE_WGPU` is set).
    fn wgpu(test: &str) -> Option<Device> {
        match DeviceKind::Wgpu.device() {
            Ok(d) => {
                println!("{test}: {}", DeviceKind::Wgpu.describe().unwrap());
                Some(d)
            }
            Err(e) if std::env::var_os("OWARE_REQUIRE_WGPU").is_some() => {
                panic!("OWARE_REQUIRE_WGPU is set but wgpu cannot start: {e}")
            }
            Err(e) => {
                println!(
                    "SKIPPED {test}: {e} (for Mesa's software Vulkan: \
                     apt-get install mesa-vulkan-drivers libvulkan1)"
                );
                None
            }
        }
    }

    /// The model shape of `configs/gpu.toml`.
    fn gpu_model() -> ModelConfig {
        ModelConfig {
            width: 512,
            blocks: 3,
            activation: Activation::Relu,
            norm: Norm::Layernorm,
            ..ModelConfig::default()
        }
    }

    /// `n` positions reached by random play from the start (each with a legal move).
    fn positions(n: usize, seed: u64) -> Vec<Position> {
        let rules = RuleSet::abapa();
        let mut rng = Rng::new(seed);
        let mut out = Vec::with_capacity(n);
        let mut p = Position::start();
        while out.len() < n {
            let m = p.legal_moves(rules);
            if m == 0 || p.status(rules).is_some() {
                p = Position::start();
                continue;
            }
            out.push(p);
            p.apply(rules, rng.pick_bit(m));
        }
        out
    }

    /// A training batch of `n` positions with random (but valid) targets.
    fn batch(cfg: &ModelConfig, n: usize, seed: u64) -> TrainBatch {
        let rules = RuleSet::abapa();
        let mut rng = Rng::new(seed ^ 0x5eed);
        let mut b = TrainBatch::default();
        let mut f = vec![0.0; cfg.input_dim()];
        for p in positions(n, seed) {
            let m = p.legal_moves(rules);
            cfg.encoding.encode(&p, &mut f);
            let mut pol = [0.0f32; 6];
            for (a, x) in pol.iter_mut().enumerate() {
                if m & (1 << a) != 0 {
                    *x = rng.unit_f32() + 0.01;
                }
            }
            let s: f32 = pol.iter().sum();
            pol.iter_mut().for_each(|x| *x /= s);
            let mut wdl = [rng.unit_f32(), rng.unit_f32(), rng.unit_f32()];
            let s: f32 = wdl.iter().sum();
            wdl.iter_mut().for_each(|x| *x /= s);
            b.push(&f, &pol, m, &wdl, rng.unit_f32() * 2.0 - 1.0);
        }
        b
    }

    /// Every float parameter of `model`, flattened in the module's visiting order.
    fn weights(model: &PolicyValueNet) -> Vec<f32> {
        struct Collect(Vec<f32>);
        impl ModuleVisitor for Collect {
            fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
                let v = param.val().into_data().try_into_vec::<f32>().unwrap();
                self.0.extend(v);
            }
        }
        let mut c = Collect(Vec::new());
        model.visit(&mut c);
        c.0
    }

    fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    }

    /// A random-weight checkpoint of shape `cfg` written from the CPU.
    fn cpu_checkpoint(dir: &Path, cfg: &ModelConfig, seed: u64) -> PolicyValueNet {
        let device = Device::flex();
        device.seed(seed);
        let model = cfg.init(&device);
        save(
            dir,
            &Manifest::new(cfg, RuleSet::abapa(), 0, None),
            &model,
            None,
        )
        .unwrap();
        model
    }

    fn learner_config(device: DeviceKind) -> LearnerConfig {
        LearnerConfig {
            device,
            ..LearnerConfig::default()
        }
    }

    fn mean_abs_diff(a: &[f32], b: &[f32]) -> f32 {
        let s: f64 = a.iter().zip(b).map(|(x, y)| (x - y).abs() as f64).sum();
        (s / a.len() as f64) as f32
    }

    /// The largest relative difference between two steps' losses.
    fn loss_diff(a: &Losses, b: &Losses) -> f32 {
        [
            (a.total, b.total),
            (a.policy, b.policy),
            (a.value, b.value),
            (a.store_diff, b.store_diff),
            (a.policy_entropy, b.policy_entropy),
        ]
        .iter()
        .map(|(x, y)| (x - y).abs() / x.abs().max(1e-3))
        .fold(0.0, f32::max)
    }

    #[test]
    fn the_forward_pass_matches_the_cpu() {
        let Some(gpu) = wgpu("forward") else { return };
        let pos = positions(1024, 3);
        for (name, cfg) in [
            ("default", ModelConfig::default()),
            ("gpu.toml", gpu_model()),
        ] {
            let host = Device::flex();
            host.seed(5);
            let model = cfg.init(&host);
            let on_gpu = model.clone().to_device(&gpu);
            let mut cpu = NetEvaluator::new(&model, &cfg)
                .unwrap()
                .with_path(InferencePath::Burn);
            let mut dev = NetEvaluator::new(&on_gpu, &cfg)
                .unwrap()
                .with_path(InferencePath::Burn);
            for n in [1, 7, 64, 256, 1024] {
                let a = cpu.forward_positions(&pos[..n]).unwrap().to_vec();
                let b = dev.forward_positions(&pos[..n]).unwrap().to_vec();
                let d = max_abs_diff(&a, &b);
                let scale = a.iter().fold(0.0f32, |m, x| m.max(x.abs()));
                println!(
                    "forward, {name} model, batch {n}: max |wgpu − cpu| = {d:.2e} \
                     (outputs up to {scale:.2})"
                );
                assert!(d <= FORWARD_TOL, "{name}, batch {n}: {d}");
            }
        }
    }

    #[test]
    fn training_steps_match_the_cpu() {
        if wgpu("training").is_none() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let cfg = ModelConfig {
            width: 128,
            blocks: 2,
            norm: Norm::Layernorm,
            ..ModelConfig::default()
        };
        let ck = tmp.path().join("start");
        cpu_checkpoint(&ck, &cfg, 7);
        for (optimizer, tol, mean_tol) in [
            (OptimizerKind::Adamw, ADAMW_WEIGHT_TOL, ADAMW_MEAN_TOL),
            (OptimizerKind::Sgd, SGD_WEIGHT_TOL, SGD_WEIGHT_TOL),
        ] {
            let lc = |device| LearnerConfig {
                optimizer,
                ..learner_config(device)
            };
            let mut cpu = Learner::from_checkpoint(&ck, Some(&lc(DeviceKind::Cpu))).unwrap();
            let mut dev = Learner::from_checkpoint(&ck, Some(&lc(DeviceKind::Wgpu))).unwrap();
            assert_eq!(weights(cpu.model()), weights(dev.model()));
            for step in 0..5u64 {
                let b = batch(&cfg, 256, 100 + step);
                let (lc, lg) = (cpu.step(&b).unwrap(), dev.step(&b).unwrap());
                let d = loss_diff(&lc, &lg);
                println!(
                    "training, {optimizer:?}, step {}: total loss cpu {:.6} wgpu {:.6}, \
                     max relative loss difference {d:.2e}",
                    step + 1,
                    lc.total,
                    lg.total
                );
                assert!(d <= LOSS_TOL, "step {}: {lc:?} vs {lg:?}", step + 1);
            }
            let (wc, wg) = (weights(cpu.model()), weights(dev.model()));
            let (w, m) = (max_abs_diff(&wc, &wg), mean_abs_diff(&wc, &wg));
            println!(
                "training, {optimizer:?}: after 5 steps, |wgpu − cpu| over the weights: \
                 max {w:.2e}, mean {m:.2e}"
            );
            assert!(
                w <= tol && m <= mean_tol,
                "{optimizer:?}: max {w}, mean {m}"
            );
            assert_eq!(dev.steps(), 5);
        }
    }

    #[test]
    fn checkpoints_written_on_one_device_load_on_the_other() {
        if wgpu("checkpoints").is_none() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let cfg = ModelConfig {
            width: 64,
            ..ModelConfig::default()
        };
        let start = tmp.path().join("start");
        cpu_checkpoint(&start, &cfg, 9);
        let search = MctsConfig::default();

        // CPU → wgpu, with the optimizer's state: two steps on the CPU, the third on each.
        let mut cpu =
            Learner::from_checkpoint(&start, Some(&learner_config(DeviceKind::Cpu))).unwrap();
        for s in 0..2 {
            cpu.step(&batch(&cfg, 128, 200 + s)).unwrap();
        }
        let from_cpu = tmp.path().join("from-cpu");
        cpu.save(&from_cpu, RuleSet::abapa(), &search).unwrap();
        let mut dev =
            Learner::from_checkpoint(&from_cpu, Some(&learner_config(DeviceKind::Wgpu))).unwrap();
        assert_eq!(dev.steps(), 2);
        assert_eq!(weights(cpu.model()), weights(dev.model()), "bit for bit");
        let b = batch(&cfg, 128, 202);
        let (lc, lg) = (cpu.step(&b).unwrap(), dev.step(&b).unwrap());
        assert!(loss_diff(&lc, &lg) <= LOSS_TOL, "{lc:?} vs {lg:?}");
        let w = max_abs_diff(&weights(cpu.model()), &weights(dev.model()));
        println!(
            "checkpoints: the step after a CPU checkpoint resumed on wgpu: max weight difference {w:.2e}"
        );
        assert!(w <= ADAMW_WEIGHT_TOL, "{w}");

        // wgpu → CPU: the same weights bit for bit, and a working evaluator.
        let from_gpu = tmp.path().join("from-wgpu");
        dev.save(&from_gpu, RuleSet::abapa(), &search).unwrap();
        let ck = Checkpoint::load(&from_gpu, &Device::flex()).unwrap();
        assert_eq!(ck.manifest.step, 3);
        assert_eq!(weights(&ck.model), weights(dev.model()), "bit for bit");
        let resumed =
            Learner::from_checkpoint(&from_gpu, Some(&learner_config(DeviceKind::Cpu))).unwrap();
        assert_eq!(weights(resumed.model()), weights(dev.model()));
        let (mut e, _) = NetEvaluator::from_checkpoint(&from_gpu, DeviceKind::Cpu).unwrap();
        let out = e.forward_positions(&positions(4, 1)).unwrap();
        assert!(out.iter().all(|x| x.is_finite()));
    }

    #[test]
    fn infer_and_bench_name_the_adapter_and_agree_with_the_cpu() {
        if wgpu("infer and bench").is_none() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let ck = tmp.path().join("ck");
        super::common::random_checkpoint(&ck, 4, 0);
        let ck = ck.to_str().unwrap();
        let fen = "0-0-4-4-4-4-4-4-4-4-4-4-4-4-S";
        let infer = |device: &str| {
            let args = [
                "infer", "--model", ck, "--fen", fen, "--path", "burn", "--device", device,
                "--json",
            ];
            let (code, out, err) = oware_env(&args, &[]);
            assert_eq!(code, 0, "{err}");
            serde_json::from_str::<serde_json::Value>(&out).unwrap()
        };
        let (c, g) = (infer("cpu"), infer("wgpu"));
        let adapter = g["device"].as_str().unwrap();
        assert!(
            adapter.starts_with("wgpu: ") && adapter.len() > 8,
            "{adapter}"
        );
        assert_eq!(c["device"], "cpu (burn flex)");
        let num = |v: &serde_json::Value, k: &str| -> Vec<f32> {
            match &v[k] {
                serde_json::Value::Array(a) => {
                    a.iter().map(|x| x.as_f64().unwrap() as f32).collect()
                }
                x => vec![x.as_f64().unwrap() as f32],
            }
        };
        for k in ["policy_logits", "wdl_logits", "store_diff"] {
            let d = max_abs_diff(&num(&c, k), &num(&g, k));
            assert!(d <= FORWARD_TOL, "{k}: {d}");
        }
        let (code, out, err) = oware_env(
            &["infer", "--model", ck, "--path", "burn", "--device", "wgpu"],
            &[],
        );
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("device {adapter}\n")), "{out}");

        let (code, out, err) = oware_env(
            &[
                "bench",
                "net",
                "--device",
                "wgpu",
                "--json",
                "--seconds",
                "0.05",
                "--width",
                "32",
            ],
            &[],
        );
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["device"].as_str(), Some(adapter), "{out}");
        assert_eq!(v["default_path"], "burn-wgpu");
        for b in ["1", "64", "512", "4096"] {
            assert!(
                v["paths"]["burn-wgpu"]["evals_per_second"][b]
                    .as_f64()
                    .unwrap()
                    > 0.0,
                "{out}"
            );
        }
        assert!(
            v["train_steps_per_second_batch_512"]["1"].as_f64().unwrap() > 0.0,
            "{out}"
        );
    }

    /// `configs/gpu.toml` for two iterations, smaller where its size is only time:
    /// 8 games an iteration (not 2048) of 16 simulations (not 128; 8 cheap, not 32), at most
    /// 2 gradient steps an iteration (not 400), no evaluation (its every 10 would evaluate
    /// the last iteration). The model (512 wide, 3 blocks, layernorm), the batch (2048),
    /// the optimizer and `train.device = "wgpu"` are the config's.
    #[test]
    fn two_iterations_of_the_gpu_config() {
        if wgpu("configs/gpu.toml").is_none() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("run");
        let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/gpu.toml");
        let (code, _, err) = oware_env(
            &[
                "train",
                "--config",
                config.to_str().unwrap(),
                "--run-dir",
                run.to_str().unwrap(),
                "--set",
                "train.iterations=2",
                "--set",
                "selfplay.games_per_iteration=8",
                "--set",
                "selfplay.games_in_flight=8",
                "--set",
                "search.simulations=16",
                "--set",
                "search.cheap_simulations=8",
                "--set",
                "train.max_steps_per_iteration=2",
                "--set",
                "eval.every=0",
                // The phases take turns, so both iterations take steps (overlapped, the
                // first has no samples yet).
                "--set",
                "train.overlap=false",
            ],
            &[],
        );
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("learner on wgpu: "), "{err}");
        let saved: toml::Value =
            toml::from_str(&std::fs::read_to_string(run.join("config.toml")).unwrap()).unwrap();
        assert_eq!(saved["train"]["device"].as_str(), Some("wgpu"));
        assert_eq!(saved["model"]["width"].as_integer(), Some(512));
        let state: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap())
                .unwrap();
        assert_eq!(state["iteration"], 2, "{state}");
        // Its checkpoint, trained on wgpu, loads and answers on the CPU.
        let (mut e, m) = NetEvaluator::from_checkpoint(&run, DeviceKind::Cpu).unwrap();
        assert!(m.step >= 2, "{} steps", m.step);
        println!(
            "configs/gpu.toml: 2 iterations, {} gradient steps on wgpu",
            m.step
        );
        assert!(
            e.forward_positions(&positions(4, 2))
                .unwrap()
                .iter()
                .all(|x| x.is_finite())
        );
    }

    /// With every driver hidden from the Vulkan loader and EGL, `--device wgpu` is a
    /// one-line error, not a panic. (Runs wherever the feature is built: it needs no adapter.)
    #[test]
    fn no_adapter_is_a_clear_error() {
        let tmp = tempfile::tempdir().unwrap();
        let ck = tmp.path().join("ck");
        super::common::random_checkpoint(&ck, 1, 0);
        let hidden = [
            ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
            ("VK_DRIVER_FILES", "/nonexistent/icd.json"),
            ("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent/egl.json"),
        ];
        let (code, _, err) = oware_env(
            &[
                "infer",
                "--model",
                ck.to_str().unwrap(),
                "--path",
                "burn",
                "--device",
                "wgpu",
            ],
            &hidden,
        );
        assert_one_line_error(code, &err, "no usable GPU adapter");
        let (code, _, err) = oware_env(&["bench", "net", "--device", "wgpu"], &hidden);
        assert_one_line_error(code, &err, "no usable GPU adapter");
        let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/gpu.toml");
        let run = tmp.path().join("run");
        let (code, _, err) = oware_env(
            &[
                "train",
                "--config",
                config.to_str().unwrap(),
                "--run-dir",
                run.to_str().unwrap(),
            ],
            &hidden,
        );
        assert_one_line_error(code, &err, "no usable GPU adapter");
    }
}

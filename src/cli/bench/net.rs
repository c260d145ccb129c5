//! `oware bench net`: network evaluations per second at several batch sizes, for the fast
//! path (f32, and with the hidden layers in 16-bit integers) and burn's, with one and two
//! threads, and training steps per second; with
//! `--device wgpu`, burn's forward pass and the training step on the wgpu adapter.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use burn::module::Module;
use burn::tensor::Device;
use serde_json::{Map, json};

use oware_core::env::encoding::Encoding;
use oware_core::game::{Position, RuleSet};
use oware_core::rng::Rng;
use oware_core::search::evaluator::{Evaluation, Evaluator};
use oware_net::net::train::TrainBatch;
use oware_net::net::{
    DeviceKind, InferencePath, Learner, LearnerConfig, ModelConfig, NetEvaluator,
};

/// Arguments of `oware bench net`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Seconds to measure each figure (after a short warm-up).
    #[arg(long, default_value_t = 0.5)]
    seconds: f64,
    /// Hidden width of the benchmarked model (default: the default model's).
    #[arg(long)]
    width: Option<usize>,
    /// Residual blocks of the benchmarked model (default: the default model's).
    #[arg(long)]
    blocks: Option<usize>,
    /// Skip the training-step measurement.
    #[arg(long, conflicts_with = "train_only")]
    no_train: bool,
    /// Measure only the training step (for a profiler).
    #[arg(long)]
    train_only: bool,
    /// Device: cpu, or wgpu when compiled in (then burn's forward pass and the training
    /// step run there, and the adapter is named; the fast path is CPU-only and not measured).
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

const BATCHES: [usize; 5] = [1, 8, 64, 512, 4096];

/// Positions reached by random play from the start, with their legal moves.
fn sample_positions(n: usize, rules: RuleSet) -> (Vec<Position>, Vec<u8>) {
    let mut rng = Rng::new(7);
    let mut pos = Vec::with_capacity(n);
    let mut legal = Vec::with_capacity(n);
    let mut p = Position::start();
    while pos.len() < n {
        let m = p.legal_moves(rules);
        if m == 0 || p.status(rules).is_some() {
            p = Position::start();
            continue;
        }
        pos.push(p);
        legal.push(m);
        p.apply(rules, rng.pick_bit(m));
    }
    (pos, legal)
}

/// Evaluations per second of `e` at batch size `batch` over `positions`.
fn rate(e: &mut NetEvaluator, pos: &[Position], legal: &[u8], batch: usize, secs: f64) -> f64 {
    let rules = RuleSet::abapa();
    let mut out = vec![Evaluation::default(); batch];
    let chunks = pos.len() / batch;
    let run = |e: &mut NetEvaluator, out: &mut [Evaluation], i: usize| {
        let k = (i % chunks) * batch;
        e.evaluate(rules, &pos[k..k + batch], &legal[k..k + batch], out);
    };
    // Warm-up: sizes the buffers, faults in the pages.
    for i in 0..3 {
        run(e, &mut out, i);
    }
    let budget = Duration::from_secs_f64(secs);
    let t = Instant::now();
    let mut calls = 0usize;
    while t.elapsed() < budget || calls < 3 {
        run(e, &mut out, calls);
        calls += 1;
    }
    (calls * batch) as f64 / t.elapsed().as_secs_f64()
}

fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("building a thread pool")
}

/// Training steps per second at batch 512 with `threads` rayon threads on `device`.
fn train_rate(
    device: DeviceKind,
    cfg: &ModelConfig,
    pos: &[Position],
    legal: &[u8],
    threads: usize,
    secs: f64,
    dense_input: bool,
) -> Result<f64> {
    let lc = LearnerConfig {
        threads,
        device,
        ..LearnerConfig::default()
    };
    let mut l = Learner::new(cfg, &lc)?;
    l.set_dense_input(dense_input);
    let enc: Encoding = cfg.encoding;
    let mut b = TrainBatch::default();
    let mut f = vec![0.0; enc.dim()];
    for (p, &m) in pos.iter().zip(legal).take(512) {
        enc.encode(p, &mut f);
        let mut pol = [0.0; 6];
        let k = m.count_ones() as f32;
        for (a, x) in pol.iter_mut().enumerate() {
            if m & (1 << a) != 0 {
                *x = 1.0 / k;
            }
        }
        b.push(&f, &pol, m, &[0.4, 0.2, 0.4], 0.0);
    }
    l.step(&b)?;
    let t = Instant::now();
    let mut steps = 0;
    while t.elapsed().as_secs_f64() < secs || steps < 3 {
        l.step(&b)?;
        steps += 1;
    }
    Ok(steps as f64 / t.elapsed().as_secs_f64())
}

pub fn run(a: Args) -> Result<()> {
    // The allocator as `oware train` sets it, so the training step is measured as it runs.
    oware_app::train::metrics::tune_allocator();
    let mut cfg = ModelConfig::default();
    if let Some(w) = a.width {
        cfg.width = w;
    }
    if let Some(b) = a.blocks {
        cfg.blocks = b;
    }
    cfg.validate().map_err(anyhow::Error::msg)?;
    let kind = a.device.parse::<DeviceKind>()?;
    let device_name = kind.describe()?;
    // The same weights on every device: initialised on the CPU, then moved.
    let host = Device::flex();
    host.seed(1);
    let model = cfg.init(&host).to_device(&kind.device()?);
    let (pos, legal) = sample_positions(4096 * 2, RuleSet::abapa());
    let secs = a.seconds.clamp(0.05, 60.0);

    let mut paths = Map::new();
    let mut text = format!(
        "device: {device_name}\nmodel: {} blocks × {} wide, {} encoding ({} inputs), {} parameters\n\
         evaluations/s (encode + forward + masked softmax) by batch size:\n{:<10}",
        cfg.blocks,
        cfg.width,
        cfg.encoding,
        cfg.input_dim(),
        cfg.parameters(),
        "path"
    );
    for b in BATCHES {
        text.push_str(&format!("{b:>10}"));
    }
    text.push_str("   µs/call at batch 1\n");
    let mut default_rates = Map::new();
    let mut overhead_us = 0.0;
    // On wgpu only burn's forward pass runs on the device, and burn sizes its own work:
    // one figure, `burn-wgpu`.
    let on_cpu = kind == DeviceKind::Cpu;
    let default_path = if on_cpu { "fast-1" } else { "burn-wgpu" };
    let paths_measured = if a.train_only {
        &[][..]
    } else if on_cpu {
        &[(InferencePath::Fast, "fast"), (InferencePath::Burn, "burn")][..]
    } else {
        &[(InferencePath::Burn, "burn")][..]
    };
    let thread_counts: &[usize] = if on_cpu { &[1, 2] } else { &[1] };
    for &(path, name) in paths_measured {
        for &threads in thread_counts {
            let key = if on_cpu {
                format!("{name}-{threads}")
            } else {
                format!("{name}-wgpu")
            };
            // The fast path splits a batch over `threads` itself; burn's flex backend uses
            // the rayon pool it runs in.
            let p = pool(threads)?;
            let mut e = NetEvaluator::new(&model, &cfg)?
                .with_path(path)
                .with_threads(threads);
            let rates: Vec<f64> = p.install(|| {
                BATCHES
                    .iter()
                    .map(|&b| rate(&mut e, &pos, &legal, b, secs))
                    .collect()
            });
            let call_us = 1e6 / rates[0];
            let mut m = Map::new();
            for (b, r) in BATCHES.iter().zip(&rates) {
                m.insert(b.to_string(), json!(r.round()));
            }
            // Per-call overhead: a batch-1 call's time minus one evaluation's share of
            // the largest batch.
            let overhead = call_us - 1e6 / rates[BATCHES.len() - 1];
            text.push_str(&format!("{key:<10}"));
            for r in &rates {
                text.push_str(&format!("{:>9.0}k", r / 1e3));
            }
            text.push_str(&format!("   {call_us:.1} (overhead {overhead:.1})\n"));
            if key == default_path {
                default_rates = m.clone();
                overhead_us = overhead;
            }
            paths.insert(
                key,
                json!({"evals_per_second": m, "us_per_call_batch_1": call_us, "per_call_overhead_us": overhead}),
            );
        }
    }
    let mut train = Map::new();
    let mut train_dense = Map::new();
    if !a.no_train && !on_cpu {
        // No host input layer off the CPU (the learner multiplies every feature on the
        // device), so one figure.
        let r = train_rate(kind, &cfg, &pos, &legal, 1, secs.max(1.0), false)?;
        text.push_str(&format!(
            "training, batch 512, on {}: {r:.1} steps/s ({:.0} samples/s)\n",
            a.device,
            r * 512.0
        ));
        train.insert("1".into(), json!(r));
    } else if !a.no_train {
        for &threads in thread_counts {
            // The host's sparse input layer (what `oware train` runs) against burn's
            // product of every feature, alternated so that both see the same machine.
            let (mut sparse, mut dense) = (0.0, 0.0);
            for _ in 0..2 {
                let s = secs.max(1.0) / 2.0;
                sparse += train_rate(kind, &cfg, &pos, &legal, threads, s, false)?;
                dense += train_rate(kind, &cfg, &pos, &legal, threads, s, true)?;
            }
            let (r, d) = (sparse / 2.0, dense / 2.0);
            text.push_str(&format!(
                "training, batch 512, {threads} thread(s): {r:.1} steps/s ({:.0} samples/s); \
                 input layer multiplied in burn: {d:.1} steps/s ({:.2}x)\n",
                r * 512.0,
                r / d
            ));
            train.insert(threads.to_string(), json!(r));
            train_dense.insert(threads.to_string(), json!(d));
        }
    }
    if a.json {
        let v = json!({
            "device": device_name,
            "model": cfg,
            "parameters": cfg.parameters(),
            "evals_per_second": default_rates,
            "default_path": default_path,
            "per_call_overhead_us": overhead_us,
            "paths": paths,
            "train_steps_per_second_batch_512": train,
            "train_steps_per_second_dense_input_layer": train_dense,
        });
        super::super::out(&format!("{v}\n"))
    } else {
        if on_cpu {
            text.push_str("(evals_per_second in --json is fast-1: the evaluator's default, one per self-play thread)\n");
        } else {
            text.push_str("(evals_per_second in --json is burn-wgpu; self-play evaluates on the CPU's fast path whatever the learner's device)\n");
        }
        super::super::out(&text)
    }
}

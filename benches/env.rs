//! Batched-environment speed: game steps per second of random play on all cores, for
//! 4 096 and 65 536 games, with and without input features. `oware bench env` prints
//! the same figures next to the perft rate.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oware_zero::env::{BatchEnv, Encoding, EnvConfig, StepOut};

/// Steps timed per iteration: every game moves (auto-reset keeps them all live).
const STEPS: usize = 8;

fn bench_env(c: &mut Criterion) {
    let mut g = c.benchmark_group("batch_env");
    g.sample_size(10);
    for games in [4096usize, 65_536] {
        g.throughput(Throughput::Elements((games * STEPS) as u64));
        let mut env = BatchEnv::new(games, EnvConfig::default()).unwrap();
        let mut actions = vec![0u8; games];
        let mut legal = vec![0u8; games];
        // Spread the games over every stage of play before timing.
        for _ in 0..120 {
            env.step_random(StepOut::default()).unwrap();
        }
        g.bench_function(format!("{games}_games_random_actions_step_legal"), |b| {
            b.iter(|| {
                for _ in 0..STEPS {
                    env.random_actions(&mut actions).unwrap();
                    let out = StepOut {
                        legal: &mut legal,
                        ..StepOut::default()
                    };
                    black_box(env.step(&actions, out).unwrap());
                }
            })
        });
        g.bench_function(format!("{games}_games_step_random_legal"), |b| {
            b.iter(|| {
                for _ in 0..STEPS {
                    let out = StepOut {
                        legal: &mut legal,
                        ..StepOut::default()
                    };
                    black_box(env.step_random(out).unwrap());
                }
            })
        });
        let enc = Encoding::Onehot;
        let mut feats = vec![0f32; games * enc.dim()];
        g.bench_function(format!("{games}_games_step_random_legal_onehot"), |b| {
            b.iter(|| {
                for _ in 0..STEPS {
                    let out = StepOut {
                        legal: &mut legal,
                        features: &mut feats,
                        encoding: enc,
                        ..StepOut::default()
                    };
                    black_box(env.step_random(out).unwrap());
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_env);
criterion_main!(benches);

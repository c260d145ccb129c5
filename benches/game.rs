//! Rules-engine speed: perft from the start and random playouts, single-threaded.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oware_zero::game::{History, Position, RuleSet, perft, random_playout};
use oware_zero::rng::Rng;

fn bench_perft(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    let start = Position::start();
    // Leaves of perft(9) = 3 592 872 (docs/rules.md, "Worked examples").
    g.throughput(Throughput::Elements(3_592_872));
    g.bench_function("start_depth9", |b| {
        b.iter(|| black_box(perft(black_box(&start), RuleSet::abapa(), 9)))
    });
    g.finish();
}

fn bench_playouts(c: &mut Criterion) {
    let mut g = c.benchmark_group("random_playout");
    // Count the moves actually played, so the figure is moves per second.
    let mut rng = Rng::new(1);
    let mut h = History::default();
    let plies: u64 = (0..1000)
        .map(|_| random_playout(&Position::start(), RuleSet::abapa(), &mut rng, &mut h).1 as u64)
        .sum();
    g.throughput(Throughput::Elements(plies));
    g.bench_function("1000_games_from_start", |b| {
        b.iter(|| {
            let mut rng = Rng::new(1);
            let mut total = 0u32;
            for _ in 0..1000 {
                total += random_playout(&Position::start(), RuleSet::abapa(), &mut rng, &mut h).1;
            }
            black_box(total)
        })
    });
    g.finish();
}

criterion_group!(benches, bench_perft, bench_playouts);
criterion_main!(benches);

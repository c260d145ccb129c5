//! Alpha-beta speed: a fixed-depth search from the start and from a middle game.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oware_zero::game::{Position, RuleSet};
use oware_zero::search::{AlphaBeta, Limits};

fn bench_alphabeta(c: &mut Criterion) {
    let mut g = c.benchmark_group("alphabeta");
    g.sample_size(10);
    let mut ab = AlphaBeta::new(RuleSet::abapa(), 16);
    for (name, fen) in [
        ("start_depth11", "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S"),
        ("middle_depth11", "6-2-1-8-10-0-5-1-2-4-5-0-2-2-S"),
    ] {
        let pos: Position = fen.parse().unwrap();
        // Fixed depth is deterministic, so the node count is the same every run.
        let nodes = ab.search_position(&pos, &Limits::depth(11)).nodes;
        g.throughput(Throughput::Elements(nodes));
        g.bench_function(name, |b| {
            b.iter(|| black_box(ab.search_position(black_box(&pos), &Limits::depth(11))))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_alphabeta);
criterion_main!(benches);

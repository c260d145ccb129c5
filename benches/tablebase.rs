//! Tablebase proofs: the moves of a 12-seed position, each valued with the position
//! behind it by the repetition rule's games over the whole count (2.7 M positions), and
//! the bounds of one of them (about eight games). The shipped tables
//! (`tablebases/abapa`, every board up to 12 seeds exact); the count's graph is built
//! once, outside the timing, as a long-running prover keeps it.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use oware_zero::game::Position;
use oware_zero::tablebase::Tablebase;
use oware_zero::tablebase::build::mover_pits;
use oware_zero::tablebase::index::rank;
use oware_zero::tablebase::prove::Prover;

fn bench_tablebase(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tablebases/abapa");
    let tb = Tablebase::open(&dir).expect("the shipped tables");
    // North to move, five legal moves, none a capture: each move's value needs the
    // games with this position as the end of a repetition (the slowest of the 500
    // positions of the tables' record before the games kept their winning regions).
    let pos: Position = "0-1-0-0-0-0-0-3-2-1-4-1-20-16-N".parse().unwrap();
    let graph = tb.count_graph(12);
    let mut g = c.benchmark_group("tablebase");
    g.sample_size(10);
    g.bench_function("moves_12_seeds", |b| {
        b.iter(|| {
            // A fresh prover each time: nothing kept from the last iteration's games.
            let prover = Prover::new(&tb, 2_000_000);
            black_box(prover.moves(black_box(&pos), &[]))
        })
    });
    let mut after = pos;
    after.apply(tb.rules(), 3);
    let root = rank(&mover_pits(&after)) as u32;
    let history = [(rank(&mover_pits(&pos)) as u32, false)];
    g.bench_function("count_bounds_12_seeds", |b| {
        b.iter(|| black_box(graph.games().bounds(black_box(root), &history)))
    });
    g.finish();
}

criterion_group!(benches, bench_tablebase);
criterion_main!(benches);

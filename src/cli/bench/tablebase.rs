//! `oware bench tablebase`: retrograde analysis speed (boards solved per second, built
//! in memory), probe time on random positions, and the speed of the proof search that
//! carries the history (`tablebase probe`'s, on random boards whose entry is not exact).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;

use oware_core::game::{Position, RuleSet, Side};
use oware_core::rng::Rng;
use oware_core::tablebase::prove::{Known, Prover, Source};
use oware_core::tablebase::{Tablebase, build, index};

/// Arguments of `oware bench tablebase`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Build every table up to this many seeds in memory and time it.
    #[arg(long, default_value_t = 12)]
    max_seeds: usize,
    /// Probe these tables instead of the ones built here (time per probe).
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Probes to time.
    #[arg(long, default_value_t = 2_000_000)]
    probes: usize,
    /// Random boards whose entry is not exact to prove (value and moves, no history),
    /// each search within 100 000 nodes (the web app's budget).
    #[arg(long, default_value_t = 32)]
    proofs: usize,
    /// Threads of the build (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let rules = RuleSet::abapa();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads)
        .build()?;
    let threads = pool.current_num_threads();
    let t = Instant::now();
    let mut tables = Vec::new();
    let mut bounds = Vec::new();
    for n in 0..=a.max_seeds.min(16) {
        let (table, b, _) = pool.install(|| build::solve_count(rules, n, &tables, &bounds, false));
        tables.push(table);
        bounds.push(b);
    }
    let build_secs = t.elapsed().as_secs_f64();
    let boards = index::boards_up_to(a.max_seeds.min(16));
    let built = Tablebase::from_tables(rules, tables, bounds);
    let tb = match &a.tb {
        Some(dir) => Tablebase::open(dir)?,
        None => built,
    };
    // Random positions the table covers, made before the clock starts.
    let mut rng = Rng::new(7);
    let sample: Vec<Position> = (0..4096)
        .map(|_| {
            let n = rng.below(tb.max_seeds() as u32 + 1) as usize;
            let r = rng.bits() % index::boards_with(n);
            Position {
                pits: index::unrank(n, r),
                stores: [0, 0],
                side: if rng.below(2) == 0 {
                    Side::South
                } else {
                    Side::North
                },
            }
        })
        .collect();
    let t = Instant::now();
    let mut acc = 0i64;
    for i in 0..a.probes {
        if let Some(p) = tb.probe(black_box(&sample[i & 4095])) {
            acc += p.value as i64;
        }
    }
    black_box(acc);
    let probe_ns = t.elapsed().as_secs_f64() * 1e9 / a.probes.max(1) as f64;
    let rate = boards as f64 / build_secs.max(1e-9);
    // Proofs: boards the table does not settle, made before the clock starts.
    let hard: Vec<Position> = sample
        .iter()
        .filter(|p| tb.probe(p).is_some_and(|e| !e.exact))
        .take(a.proofs)
        .copied()
        .collect();
    let t = Instant::now();
    let (mut proof_nodes, mut proven) = (0u64, 0usize);
    for p in &hard {
        let prover = Prover::new(&tb, 100_000);
        let mut ks = vec![prover.position(p, &[]).expect("covered")];
        ks.extend(prover.moves(p, &[]).expect("covered").into_iter().flatten());
        proven += ks[0].value().is_some() as usize;
        for k in ks {
            proof_nodes += match k {
                Known::Proven(_, Source::Search(n)) | Known::Unproven { nodes: n, .. } => n,
                Known::Proven(_, Source::Table) => 0,
            };
        }
    }
    let proof_secs = t.elapsed().as_secs_f64();
    let proof_ms = proof_secs * 1e3 / hard.len().max(1) as f64;
    let proof_nps = proof_nodes as f64 / proof_secs.max(1e-9);
    if a.json {
        let v = serde_json::json!({
            "max_seeds": a.max_seeds.min(16), "boards": boards, "build_seconds": build_secs,
            "boards_per_second": rate, "threads": threads, "probe_tables_max_seeds": tb.max_seeds(),
            "probe_ns": probe_ns, "proofs": hard.len(), "proofs_proven": proven,
            "proof_ms": proof_ms, "proof_nodes_per_second": proof_nps,
        });
        super::super::out(&format!("{v}\n"))
    } else {
        super::super::out(&format!(
            "build (abapa, 0..={} seeds, {boards} boards, {threads} threads): {build_secs:.2} s, {:.2} M boards/s\n\
             probe ({} seeds max, random boards): {probe_ns:.1} ns\n\
             proof search ({} random boards not exact, value and moves, 100 000 nodes a search): \
             {proof_ms:.1} ms a board, {:.2} M nodes/s, {proven} values proven\n",
            a.max_seeds.min(16),
            rate / 1e6,
            tb.max_seeds(),
            hard.len(),
            proof_nps / 1e6,
        ))
    }
}

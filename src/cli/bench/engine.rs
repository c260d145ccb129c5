//! `oware bench engine`: the engine's search with a network, by threads and leaves per
//! network call: simulations per second, the cache's hit rate, collisions.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Result, anyhow};
use serde_json::json;

use crate::engine::EngineSearcher;
use crate::game::{Game, RuleSet};
use crate::net::{DeviceKind, NetEvaluator};
use crate::player::MctsSearcher;
use crate::search::Limits;

/// Arguments of `oware bench engine`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The network (default: the shipped one).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Worker threads to measure.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1, 2])]
    threads: Vec<usize>,
    /// Leaves per network call to measure.
    #[arg(long, value_delimiter = ',', default_values_t = vec![1, 4, 16, 64])]
    batch: Vec<usize>,
    /// Milliseconds of search per position.
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The positions searched: the start and three from a played game (move letters).
const LINES: [&str; 4] = ["", "FfBe", "FbCdDeDbBa", "FbCdDeDbBaDeCbDaEcAf"];

pub fn run(a: Args) -> Result<()> {
    let model = a
        .model
        .unwrap_or_else(crate::net::checkpoint::default_model_path);
    let (evaluator, manifest) = NetEvaluator::from_checkpoint(&model, DeviceKind::Cpu)?;
    let rules = RuleSet::abapa();
    let mut rows = Vec::new();
    let mut text = format!(
        "engine search, {} ({}), {} ms a position, {} positions, no tables\n",
        model.display(),
        manifest.model.parameters(),
        a.movetime,
        LINES.len()
    );
    for &threads in &a.threads {
        for &batch in &a.batch {
            let mut s = MctsSearcher::new(Box::new(evaluator.clone()), rules, None, None)
                .with_settings(&manifest.search_settings());
            let set = |s: &mut MctsSearcher, k: &str, v: usize| {
                s.set_option(k, &v.to_string()).map_err(|e| anyhow!(e))
            };
            set(&mut s, "Threads", threads)?;
            set(&mut s, "MinibatchSize", batch)?;
            let (mut sims, mut secs, mut collisions, mut calls, mut leaves, mut edges) =
                (0, 0.0, 0, 0, 0, 0);
            let (mut lookups, mut hits) = (0, 0);
            for line in LINES {
                let mut g = Game::new(rules, crate::game::Position::start());
                g.play_text(line).map_err(|e| anyhow!("{line}: {e}"))?;
                s.new_game();
                let stop = AtomicBool::new(false);
                let limits = Limits {
                    movetime: Some(Duration::from_millis(a.movetime)),
                    ..Limits::default()
                };
                let r = s.search(&g, &limits, &stop, &mut |_| {});
                sims += r.nodes;
                secs += r.elapsed.as_secs_f64();
                let c = s.counters();
                collisions += c.collisions;
                calls += c.batches;
                leaves += c.leaves;
                edges += c.path_edges;
                let (l, h) = s.cache_counts();
                lookups += l;
                hits += h;
            }
            let rate = sims as f64 / secs;
            let hit = hits as f64 / lookups.max(1) as f64;
            let per_call = leaves as f64 / calls.max(1) as f64;
            let depth = edges as f64 / leaves.max(1) as f64;
            text.push_str(&format!(
                "threads {threads} batch {batch:>3}: {rate:>9.0} simulations/s, {per_call:>5.1} leaves a call, leaf depth {depth:>4.1}, cache hits {:>4.1}%, {collisions} collisions\n",
                100.0 * hit
            ));
            rows.push(json!({
                "threads": threads, "batch": batch, "simulations_per_second": rate,
                "leaves_per_call": per_call, "mean_leaf_depth": depth, "cache_hit_rate": hit, "collisions": collisions,
            }));
        }
    }
    if a.json {
        super::super::out(&format!(
            "{}\n",
            json!({ "engine": rows, "movetime_ms": a.movetime })
        ))
    } else {
        super::super::out(&text)
    }
}

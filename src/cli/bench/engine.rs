//! `oware bench engine`: the engine's search with a network, by threads and leaves per
//! network call: simulations per second, the cache's hit rate, collisions; and with
//! `--budgets`, what short searches cost beyond their simulations.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use serde_json::json;

use oware_app::engine::EngineSearcher;
use oware_app::player::MctsSearcher;
use oware_core::game::{Game, RuleSet};
use oware_core::search::Limits;
use oware_core::search::mcts::WorkSpan;
use oware_net::net::{DeviceKind, NetEvaluator};

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
    /// Short budgets to measure as well, in milliseconds (e.g. 1,10,100): `--searches`
    /// positions searched at each, from a new game, timed from the call to its answer.
    /// Their fixed cost is the time the search's threads spent outside their batches:
    /// from the call to each thread's first batch below the evaluated root, and from its
    /// last batch to the answer (the mean over the threads).
    #[arg(long, value_delimiter = ',')]
    budgets: Vec<u64>,
    /// Searches at each short budget.
    #[arg(long, default_value_t = 200)]
    searches: usize,
    /// Milliseconds to wait before each short search (outside its timing): with more
    /// than the pool's 10 ms linger its threads are asleep when a search starts, as
    /// after a pause in a GUI.
    #[arg(long, default_value_t = 0)]
    gap_ms: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// The positions searched: the start and three from a played game (move letters).
const LINES: [&str; 4] = ["", "FfBe", "FbCdDeDbBa", "FbCdDeDbBaDeCbDaEcAf"];

pub fn run(a: Args) -> Result<()> {
    let model = a
        .model
        .clone()
        .unwrap_or_else(oware_net::net::checkpoint::default_model_path);
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
                let mut g = Game::new(rules, oware_core::game::Position::start());
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
            let budgets = short_budgets(&mut s, &a, &mut text)?;
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
                "budgets": budgets,
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

/// `n` positions a game reaches, none the same: each played from the start by
/// random legal moves (seeded, so every run searches the same ones), 4 to 40 plies deep.
fn fresh_positions(rules: RuleSet, n: usize) -> Vec<Game> {
    let mut rng = oware_core::rng::Rng::new(20_261_206);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let plies = 4 + rng.below(37) as usize;
        let mut g = Game::new(rules, oware_core::game::Position::start());
        for _ in 0..plies {
            let legal = g.legal_moves();
            if g.is_over() || legal == 0 {
                break;
            }
            let moves: Vec<usize> = (0..6).filter(|m| legal & (1 << m) != 0).collect();
            let _ = g.play(moves[rng.below(moves.len() as u32) as usize]);
        }
        if !g.is_over() && seen.insert(g.position().key()) {
            // Its own start: no earlier search's tree is a prefix of it.
            out.push(Game::new(rules, *g.position()));
        }
    }
    out
}

/// What one short search cost outside its work, each part the mean over the threads:
/// `wake` from the call until the thread entered the search (the calling thread: the
/// tree's reset and the root's noise; a pool thread: its wake-up too), `wait` from
/// there to its first batch below the evaluated root (the root's first evaluation,
/// collisions in the young tree), `stop` from its last batch to the answer (a thread
/// that ran no batch counts the rest of the call as `wait`).
#[derive(Clone, Copy, Default)]
struct Overhead {
    wake: f64,
    wait: f64,
    stop: f64,
}

impl Overhead {
    fn of(t0: Instant, t1: Instant, spans: &[WorkSpan]) -> Overhead {
        let secs = |a: Instant, b: Instant| b.saturating_duration_since(a).as_secs_f64();
        let mut o = Overhead::default();
        for span in spans {
            let entered = span.entered.unwrap_or(t1);
            o.wake += secs(t0, entered);
            match span.work {
                Some((first, last)) => {
                    o.wait += secs(entered, first);
                    o.stop += secs(last, t1);
                }
                None => o.wait += secs(entered, t1),
            }
        }
        o.scale(1.0 / spans.len().max(1) as f64)
    }

    fn add(&mut self, o: Overhead) {
        self.wake += o.wake;
        self.wait += o.wait;
        self.stop += o.stop;
    }

    fn scale(self, k: f64) -> Overhead {
        Overhead {
            wake: k * self.wake,
            wait: k * self.wait,
            stop: k * self.stop,
        }
    }

    fn total(&self) -> f64 {
        self.wake + self.wait + self.stop
    }
}

/// The short budgets of `a`, each over the same `a.searches` positions (a new game and
/// an empty cache before each search, outside the timing): a line of `text` each, and
/// their JSON. The fixed cost of a call is measured by the search's own timestamps
/// ([`Overhead`]): the time its threads spent outside their batches. For comparison,
/// `fixed_cost_by_rate_us` is the older estimate: the mean call's time beyond its
/// simulations at the marginal rate between the two longest budgets (noisy: that rate
/// varies by several percent between runs).
fn short_budgets(
    s: &mut MctsSearcher,
    a: &Args,
    text: &mut String,
) -> Result<Vec<serde_json::Value>> {
    let mut rows = Vec::new();
    let mut budgets = a.budgets.clone();
    budgets.sort_unstable();
    budgets.dedup();
    if budgets.is_empty() {
        return Ok(rows);
    }
    let games = fresh_positions(RuleSet::abapa(), a.searches.max(1));
    let mut means = Vec::new();
    for &ms in &budgets {
        let limits = Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Limits::default()
        };
        let (mut sims, mut wall, mut over) = (0u64, 0.0f64, Overhead::default());
        for g in &games {
            s.new_game();
            if a.gap_ms > 0 {
                std::thread::sleep(Duration::from_millis(a.gap_ms));
            }
            let stop = AtomicBool::new(false);
            let t0 = Instant::now();
            let r = s.search(g, &limits, &stop, &mut |_| {});
            let t1 = Instant::now();
            wall += (t1 - t0).as_secs_f64();
            sims += r.nodes;
            over.add(Overhead::of(t0, t1, &s.work_spans()));
        }
        let n = games.len() as f64;
        means.push((sims as f64 / n, wall / n, over.scale(1.0 / n)));
    }
    let k = means.len();
    let rate = (k >= 2).then(|| {
        let ((s1, w1, _), (s2, w2, _)) = (means[k - 2], means[k - 1]);
        (s2 - s1) / (w2 - w1)
    });
    for (&ms, &(sims, wall, over)) in budgets.iter().zip(&means) {
        let fixed = over.total();
        text.push_str(&format!(
            "    {ms:>4} ms: {sims:>8.0} simulations a search, {:>7.3} ms a call, fixed cost {:>5.1} us ({:.1}% of the budget: wake {:.1}, wait {:.1}, stop {:.1} us)\n",
            1e3 * wall,
            1e6 * fixed,
            100.0 * fixed / (ms as f64 / 1e3),
            1e6 * over.wake,
            1e6 * over.wait,
            1e6 * over.stop,
        ));
        rows.push(json!({
            "budget_ms": ms, "searches": games.len(), "gap_ms": a.gap_ms, "mean_simulations": sims,
            "mean_call_ms": 1e3 * wall, "fixed_cost_us": 1e6 * fixed,
            "wake_us": 1e6 * over.wake, "wait_us": 1e6 * over.wait, "stop_us": 1e6 * over.stop,
            "fixed_cost_by_rate_us": rate.map(|r| 1e6 * (wall - sims / r)), "marginal_rate": rate,
        }));
    }
    Ok(rows)
}

//! `oware bench mcts`: network-guided simulations per second with many games in flight.

use std::time::Instant;

use anyhow::Result;

use oware_app::selfplay::{self, Progress, SelfPlayConfig};
use oware_core::game::RuleSet;
use oware_core::search::mcts::{Algorithm, MctsConfig};
use oware_net::net::{Learner, LearnerConfig, ModelConfig};

/// Arguments of `oware bench mcts`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Games in flight to measure (over all threads).
    #[arg(long, value_delimiter = ',', default_values_t = vec![256, 1024, 4096])]
    games: Vec<usize>,
    /// Simulations per move.
    #[arg(long, default_value_t = 64)]
    sims: u32,
    /// Policy softmax temperature of the priors (`search.policy_temperature`).
    #[arg(long, default_value_t = 1.0)]
    policy_temp: f32,
    /// Threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// `puct` or `gumbel`.
    #[arg(long, default_value = "gumbel")]
    algorithm: String,
    /// MiB of evaluation cache per thread (`selfplay.cache_mb`); 0: none. The hit rate
    /// is printed.
    #[arg(long, default_value_t = 0)]
    cache_mb: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let algorithm = match a.algorithm.as_str() {
        "puct" => Algorithm::Puct,
        "gumbel" => Algorithm::Gumbel,
        other => anyhow::bail!("--algorithm '{other}': expected puct or gumbel"),
    };
    if !(a.policy_temp.is_finite() && a.policy_temp > 0.0) {
        anyhow::bail!("--policy-temp {}: expected a number above 0", a.policy_temp);
    }
    let threads = a
        .threads
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
        .max(1);
    let model = ModelConfig::default();
    let learner = Learner::new(&model, &LearnerConfig::default())?;
    let mut per = serde_json::Map::new();
    let mut share = serde_json::Map::new();
    let mut hit = serde_json::Map::new();
    let mut text = format!(
        "default network ({} parameters), {} simulations per move, {algorithm:?}, policy temperature {}, {threads} threads\n",
        model.parameters(),
        a.sims,
        a.policy_temp
    );
    for &g in &a.games {
        let cfg = SelfPlayConfig {
            games_per_iteration: g,
            games_in_flight: g,
            opening_plies: 8,
            ..SelfPlayConfig::default()
        };
        let mcts = MctsConfig {
            algorithm,
            simulations: a.sims,
            cheap_simulations: a.sims,
            full_search_fraction: 1.0,
            policy_temperature: a.policy_temp,
            ..MctsConfig::default()
        };
        let mut evaluators = learner.evaluators(threads)?;
        let caches = selfplay::with_caches(&mut evaluators, a.cache_mb);
        // Whole games: every slot plays one game from a random opening.
        let t = Instant::now();
        let out = selfplay::play(
            &cfg,
            &mcts,
            RuleSet::abapa(),
            g,
            7,
            selfplay::Players::own(evaluators),
            &Progress::default(),
        );
        let secs = t.elapsed().as_secs_f64();
        let rate = out.simulations as f64 / secs;
        let net_share = out.eval_seconds / (secs * threads as f64);
        let hits = selfplay::hit_rate(&caches);
        text.push_str(&format!(
            "{g:>6} games in flight: {:>9.0} simulations/s, {:>8.0} evaluations/s, network {:>4.1}% of thread time{} ({} games, {:.1} s)\n",
            rate,
            out.evaluations as f64 / secs,
            100.0 * net_share,
            hits.map_or(String::new(), |h| format!(", cache hits {:.1}%", 100.0 * h)),
            out.games.len(),
            secs
        ));
        per.insert(g.to_string(), serde_json::json!(rate));
        share.insert(g.to_string(), serde_json::json!(net_share));
        hit.insert(g.to_string(), serde_json::json!(hits));
    }
    if a.json {
        let v = serde_json::json!({
            "simulations_per_second": per,
            "network_share": share,
            "cache_hit_rate": hit,
            "cache_mb": a.cache_mb,
            "simulations_per_move": a.sims,
            "policy_temperature": a.policy_temp,
            "threads": threads,
            "algorithm": a.algorithm,
            "parameters": model.parameters(),
        });
        super::super::out(&format!("{v}\n"))
    } else {
        super::super::out(&text)
    }
}

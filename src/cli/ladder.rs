//! `oware ladder`: a model against alpha-beta at depths 1, 2, 3, … until it scores
//! below 50%, with an Elo on a fixed scale (depth 1 = 0).

use std::path::PathBuf;

use anyhow::Result;
use serde_json::json;

use crate::arena::{LadderConfig, MatchConfig, Openings, run_ladder};

/// Arguments of `oware ladder`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "The scale: alphabeta:depth=1 is 0 Elo; depth d is rated by a \
    match of depth d against depth d-1 (same games, openings and seed). The model's \
    rating is that of the first depth it scores below 50% against (the crossover), plus \
    its measured difference against that depth; the 95% interval adds the errors of \
    every step in quadrature."
)]
pub struct Args {
    /// The checkpoint to rate (default: the shipped network `checkpoints/oware-abapa`).
    #[arg(long, value_name = "PATH", conflicts_with = "player")]
    model: Option<PathBuf>,
    /// Simulations per move of --model.
    #[arg(long, default_value_t = crate::arena::player::DEFAULT_SIMS)]
    sims: u32,
    /// Rate any player SPEC instead of a model (e.g. `mcts:sims=400`).
    #[arg(long)]
    player: Option<String>,
    /// Games per match (rounded up to an even number).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Deepest alpha-beta tried.
    #[arg(long, default_value_t = 12)]
    max_depth: u32,
    /// Random plies from the start position for each opening.
    #[arg(long, default_value_t = 4)]
    openings_plies: u32,
    /// Seed of the openings (keep it fixed to keep the scale fixed).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Rule set: abapa, awari, grand-slam-captures, ouril, traditional.
    #[arg(long, default_value = "abapa")]
    rules: String,
    /// Threads for alpha-beta players' moves (0 = one per core); results do not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(a: Args) -> Result<()> {
    let rules = super::parse_rules(&a.rules)?;
    let spec = super::eval::player_spec(a.player.as_deref(), a.model.as_deref(), a.sims)?;
    let mut player = super::eval::build_player("--model", &spec, rules, a.seed)?;
    let cfg = LadderConfig {
        matches: MatchConfig {
            rules,
            games: a.games,
            openings: Openings::Random {
                plies: a.openings_plies,
            },
            seed: a.seed,
            threads: a.threads,
            ..MatchConfig::default()
        },
        max_depth: a.max_depth,
    };
    let quiet = a.quiet;
    let r = run_ladder(&cfg, &mut player, &mut |line| {
        if !quiet {
            eprintln!("{line}");
        }
    })?;
    if a.json {
        let v = json!({
            "player": r.player,
            "crossover_depth": r.crossover,
            "elo": r.elo,
            "elo_ci95": r.elo_ci95,
            "anchor": "alphabeta:depth=1 = 0",
            "rungs": r.rungs.iter().map(|g| json!({
                "depth": g.depth,
                "depth_elo": g.depth_elo,
                "depth_se": g.depth_se,
                "step_score": g.step.as_ref().map(|s| s.score),
                "score": g.result.score,
                "elo_diff": g.result.elo,
                "elo_diff_ci95": g.result.elo_ci95,
                "games": g.result.games,
            })).collect::<Vec<_>>(),
            "seconds": r.seconds,
        });
        super::out(&format!("{v}\n"))?;
    } else {
        let mut t = format!("{}\n", r.player);
        t += "depth  depth Elo   score  diff (95% CI)\n";
        for g in &r.rungs {
            t += &format!(
                "{:>5}  {:>+9.0}   {:.3}  {:+.0} [{:+.0}, {:+.0}]\n",
                g.depth,
                g.depth_elo,
                g.result.score,
                g.result.elo,
                g.result.elo_ci95[0],
                g.result.elo_ci95[1]
            );
        }
        match r.crossover {
            Some(d) => t += &format!("crossover depth {d}\n"),
            None => {
                t += &format!(
                    "no crossover up to depth {}: the rating is beyond the ladder\n",
                    a.max_depth
                )
            }
        }
        t += &format!(
            "Elo {:+.0} [{:+.0}, {:+.0}] (alphabeta:depth=1 = 0)  {:.1}s\n",
            r.elo, r.elo_ci95[0], r.elo_ci95[1], r.seconds
        );
        super::out(&t)?;
    }
    Ok(())
}

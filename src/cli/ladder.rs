//! `oware ladder`: a model against alpha-beta at depths 1, 2, 3, … until it scores
//! below 50%, with an Elo on a fixed scale (depth 1 = 0).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::json;

use oware_app::arena::rating::IntervalMethod;
use oware_app::arena::rating_pool::{self, PoolGame};
use oware_app::arena::{
    AlphaBetaLimit, LadderConfig, MatchConfig, Openings, Player, PlayerSpec, run_ladder,
};

use super::match_args::MatchArgs;

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
    #[arg(long, default_value_t = oware_app::arena::player::DEFAULT_SIMS)]
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
    // --rules and --threads.
    #[command(flatten)]
    match_args: MatchArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// A rating pool (e.g. a copy of experiments/recorded/anchors/pool.jsonl): every
    /// match is added to it (depth steps it already holds are not played again), and the
    /// rating is the pool's maximum-likelihood one, anchored at alphabeta:depth=1 = 0,
    /// one-sided when the player beat every depth.
    #[arg(long, value_name = "FILE")]
    pool: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<()> {
    let rules = a.match_args.rules()?;
    let spec = super::eval::player_spec(a.player.as_deref(), a.model.as_deref(), a.sims)?;
    let mut player = super::eval::build_player("--model", &spec, rules, a.seed)?;
    if let Some(pool) = &a.pool {
        return pool_view(&a, rules, &mut player, pool);
    }
    let cfg = LadderConfig {
        matches: MatchConfig {
            games: a.games,
            openings: Openings::Random {
                plies: a.openings_plies,
            },
            ..a.match_args.config(rules, a.seed)
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

/// `--pool`: the ladder as a view of a rating pool. The player climbs the depths (each
/// step d against d−1 played only if the pool lacks it) until it scores below 50%;
/// every game goes to the pool, and the rating is the pool's.
fn pool_view(
    a: &Args,
    rules: oware_core::game::RuleSet,
    player: &mut Player,
    path: &Path,
) -> Result<()> {
    if a.max_depth == 0 {
        anyhow::bail!("--max-depth must be at least 1");
    }
    let mut games = rating_pool::read_pool(path)?;
    let me = player.name();
    let crossover = climb(a, rules, player, path, &mut games)?;
    let table = rating_pool::rate_pool(&games, &depth(1), 0.0, IntervalMethod::default())?;
    for w in &table.warnings {
        if !a.quiet {
            eprintln!("warning: {w}");
        }
    }
    let r = table
        .get(&me)
        .context("the player has no games in the pool")?;
    if a.json {
        let v = json!({
            "player": me,
            "crossover_depth": crossover,
            "elo": r.elo,
            "elo_low": r.elo_low,
            "elo_high": r.elo_high,
            "bound": r.bound,
            "anchor": "alphabeta:depth=1 = 0",
            "pool": path.display().to_string(),
            "table": table.json(),
        });
        return super::out(&format!("{v}\n"));
    }
    let mut t = table.text();
    t += &match crossover {
        Some(d) => format!("crossover depth {d}\n"),
        None => format!("no crossover up to depth {}\n", a.max_depth),
    };
    super::out(&t)
}

/// The name of alpha-beta at depth `d` in the pool.
fn depth(d: u32) -> String {
    PlayerSpec::AlphaBeta(AlphaBetaLimit::Depth(d)).to_string()
}

/// The climb of `--pool`: at each depth d, the step d against d−1 and the player against
/// d are topped up to `--games` in the pool (and `games`); the first depth the player
/// scores below 50% against over the pool's games, if any, is the crossover.
fn climb(
    a: &Args,
    rules: oware_core::game::RuleSet,
    player: &mut Player,
    path: &Path,
    games: &mut Vec<PoolGame>,
) -> Result<Option<u32>> {
    let me = player.name();
    let base = a.match_args.config(rules, a.seed);
    let top_up =
        |games: &mut Vec<PoolGame>, x: (&str, &mut Player), y: (&str, &mut Player), id: &str| {
            rating_pool::top_up(
                path,
                games,
                x,
                y,
                a.games,
                a.openings_plies,
                &base,
                id,
                &mut |_| {},
            )
        };
    for d in 1..=a.max_depth {
        let name = depth(d);
        let mut ab = Player::AlphaBeta(AlphaBetaLimit::Depth(d));
        if d > 1 {
            let mut below = Player::AlphaBeta(AlphaBetaLimit::Depth(d - 1));
            top_up(
                games,
                (&name, &mut ab),
                (&depth(d - 1), &mut below),
                &format!("ladder-step-{d}"),
            )?;
        }
        let r = top_up(
            games,
            (&me, &mut *player),
            (&name, &mut ab),
            &format!("ladder-{d}"),
        )?;
        // The player's score against this depth over every game of the pool.
        let (mut n, mut s) = (0.0, 0.0);
        for g in games.iter().filter(|g| g.between(&me, &name)) {
            n += 1.0;
            s += if g.south == me {
                g.south_score
            } else {
                1.0 - g.south_score
            };
        }
        if !a.quiet {
            let played = r.map_or("already in the pool".into(), |r| {
                format!("{:.1}s", r.seconds)
            });
            eprintln!(
                "{me} vs {name}: score {:.3} over {n} games ({played})",
                s / n
            );
        }
        if s / n < 0.5 {
            return Ok(Some(d));
        }
    }
    Ok(None)
}

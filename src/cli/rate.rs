//! `oware rate`: maximum-likelihood Elo of every player in a pool of games, anchored at
//! one player; with `--add`, first plays the games the new players need.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use oware_app::arena::rating::IntervalMethod;
use oware_app::arena::rating_pool::{self, PoolGame};
use oware_app::arena::{Player, PlayerSpec};
use oware_core::game::RuleSet;
use oware_net::net::checkpoint::fnv1a64;

use super::match_args::MatchArgs;

/// Which games `--add` plays.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Every added player against every other player, old and new.
    RoundRobin,
    /// Every added player against the players already in the pool (or --against).
    Gauntlet,
}

/// How the 95% intervals are computed.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interval {
    /// Percentiles of refits over openings drawn with replacement.
    Bootstrap,
    /// ±1.96 standard errors from the likelihood's curvature.
    Hessian,
}

/// Arguments of `oware rate`.
#[derive(clap::Args, Debug)]
#[command(after_help = "The pool is a file of games, one JSON record per line, \
    appended atomically; ratings are always recomputed from all of its games: maximum \
    likelihood under the logistic (Bradley-Terry) model, a draw half a point, anchored at \
    --anchor. A player that won (or lost) every game across some boundary gets a one-sided \
    interval. See docs/rating.md.\n\n\
    SPEC: alphabeta:depth=N | alphabeta:movetime=MS | mcts:sims=N[:eval=uniform|rollout] | \
    random | model:PATH[:sims=N] | engine:\"COMMAND\"[:depth=N|:movetime=MS]\n\n\
    Examples:\n  \
    oware rate --pool pool.jsonl --add alphabeta:depth=1 alphabeta:depth=2 random\n  \
    oware rate --pool pool.jsonl --add model:checkpoints/oware-abapa --schedule gauntlet \
    --against alphabeta:depth=8 alphabeta:depth=10\n  \
    oware rate --pool pool.jsonl --anchor random=-500 --json")]
pub struct Args {
    /// The pool file (created by the first --add).
    #[arg(long, value_name = "FILE")]
    pool: PathBuf,
    /// Players to add (SPECs); the games they need are played and appended to the pool.
    #[arg(long, value_name = "SPEC", num_args = 1..)]
    add: Vec<String>,
    /// Games each pair of players should have (rounded up to whole colour-swapped pairs);
    /// pairs that have them already play no more.
    #[arg(long, default_value_t = 40)]
    games_per_pair: usize,
    /// Which pairs --add plays.
    #[arg(long, value_enum, default_value_t = Schedule::RoundRobin)]
    schedule: Schedule,
    /// With --schedule gauntlet: the opponents (SPECs or names in the pool) instead of
    /// every player already in the pool.
    #[arg(long, value_name = "SPEC", num_args = 1.., requires = "add")]
    against: Vec<String>,
    /// The anchor and its fixed rating, `NAME=ELO`.
    #[arg(long, value_name = "SPEC=ELO", default_value = "alphabeta:depth=1=0")]
    anchor: String,
    /// How the 95% intervals are computed.
    #[arg(long, value_enum, default_value_t = Interval::Bootstrap)]
    interval: Interval,
    /// Bootstrap resamples.
    #[arg(long, default_value_t = 400)]
    resamples: usize,
    /// Random plies from the start position for each opening of new games.
    #[arg(long, default_value_t = 4)]
    openings_plies: u32,
    /// Seed of the new games' openings (mixed with the two players' names).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    // --rules and --threads.
    #[command(flatten)]
    match_args: MatchArgs,
    /// Print the table as JSON: a list of {player, elo, elo_low, elo_high, games, score,
    /// bound}, an unbounded end `null`.
    #[arg(long)]
    json: bool,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// A player's name in a pool: a SPEC written the canonical way, anything else as given.
fn canonical(name: &str) -> String {
    name.parse::<PlayerSpec>()
        .map_or_else(|_| name.trim().to_string(), |s| s.to_string())
}

/// `NAME=ELO` (the name may itself hold `=`: the last one splits).
fn parse_anchor(s: &str) -> Result<(String, f64)> {
    let (name, elo) = s
        .rsplit_once('=')
        .with_context(|| format!("--anchor `{s}`: expected NAME=ELO"))?;
    let elo: f64 = elo
        .trim()
        .parse()
        .ok()
        .filter(|e: &f64| e.is_finite())
        .with_context(|| format!("--anchor `{s}`: `{elo}` is not a number"))?;
    Ok((canonical(name), elo))
}

/// The pairs to play: every added player against the others of the schedule.
fn plan(
    existing: &[String],
    added: &[String],
    schedule: Schedule,
    against: &[String],
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |a: &String, b: &String| {
        if a != b
            && !out
                .iter()
                .any(|(x, y)| (x == a && y == b) || (x == b && y == a))
        {
            out.push((a.clone(), b.clone()));
        }
    };
    for (k, a) in added.iter().enumerate() {
        match schedule {
            Schedule::RoundRobin => {
                for b in existing.iter().chain(&added[..k]) {
                    push(a, b);
                }
            }
            Schedule::Gauntlet => {
                let opponents = if against.is_empty() {
                    existing
                } else {
                    against
                };
                for b in opponents {
                    push(a, b);
                }
            }
        }
    }
    out
}

pub fn run(a: Args) -> Result<()> {
    let rules: RuleSet = a.match_args.rules()?;
    let (anchor, anchor_elo) = parse_anchor(&a.anchor)?;
    let interval = match a.interval {
        Interval::Hessian => IntervalMethod::Hessian,
        Interval::Bootstrap => {
            if a.resamples == 0 {
                bail!("--resamples must be at least 1");
            }
            IntervalMethod::Bootstrap {
                resamples: a.resamples,
                seed: 1,
            }
        }
    };
    if a.games_per_pair == 0 {
        bail!("--games-per-pair must be at least 1");
    }
    // Only `--add` creates a pool; a file that is not there is a mistyped name.
    if a.add.is_empty() && !a.pool.exists() {
        bail!(
            "--pool {}: no such file (a pool is created by --add SPEC…)",
            a.pool.display()
        );
    }
    let mut games = rating_pool::read_pool(&a.pool)?;
    if let Some(g) = games.first()
        && g.rules != rules.name()
    {
        bail!(
            "{} holds games under rules {}, not {} (--rules)",
            a.pool.display(),
            g.rules,
            rules.name()
        );
    }
    if !a.add.is_empty() {
        play(&a, rules, &mut games)?;
    }
    if games.is_empty() {
        bail!(
            "{} holds no games; add players with --add SPEC…",
            a.pool.display()
        );
    }
    let table = rating_pool::rate_pool(&games, &anchor, anchor_elo, interval)
        .map_err(|e| anyhow::anyhow!("{e}; choose another with --anchor NAME=ELO"))?;
    if !a.quiet {
        for w in &table.warnings {
            eprintln!("warning: {w}");
        }
    }
    if a.json {
        super::out(&format!("{}\n", table.json()))
    } else {
        super::out(&table.text())
    }
}

/// Plays the games `--add` asks for, appending each match to the pool as it ends.
fn play(a: &Args, rules: RuleSet, games: &mut Vec<PoolGame>) -> Result<()> {
    let mut specs: HashMap<String, PlayerSpec> = HashMap::new();
    let mut added = Vec::new();
    for s in &a.add {
        let spec: PlayerSpec = s.parse().context("--add")?;
        let name = spec.to_string();
        if !added.contains(&name) {
            added.push(name.clone());
        }
        specs.insert(name, spec);
    }
    let mut against = Vec::new();
    for s in &a.against {
        if a.schedule != Schedule::Gauntlet {
            bail!("--against goes with --schedule gauntlet");
        }
        let name = canonical(s);
        if let Ok(spec) = s.parse::<PlayerSpec>() {
            specs.insert(name.clone(), spec);
        }
        against.push(name);
    }
    let existing = rating_pool::players(games);
    for (name, spec) in existing
        .iter()
        .filter_map(|n| Some((n, n.parse::<PlayerSpec>().ok()?)))
    {
        specs.entry(name.clone()).or_insert(spec);
    }
    let pairs = plan(&existing, &added, a.schedule, &against);
    if pairs.is_empty() {
        bail!("nothing to play: a gauntlet needs opponents (players in the pool, or --against)");
    }
    // Every player of the plan must be buildable before the first game is played.
    let mut players: HashMap<String, Player> = HashMap::new();
    for (x, y) in &pairs {
        for p in [x, y] {
            if players.contains_key(p) {
                continue;
            }
            let spec = specs.get(p).with_context(|| {
                format!("player `{p}` of the pool is not a SPEC, so it cannot play new games")
            })?;
            let seed = a.seed ^ fnv1a64(p.as_bytes());
            let player = Player::from_spec(spec, rules, seed).with_context(|| p.clone())?;
            players.insert(p.clone(), player);
        }
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    for (k, (x, y)) in pairs.iter().enumerate() {
        let mut px = players.remove(x).expect("built above");
        let mut py = players.remove(y).expect("built above");
        // The openings depend on the two names (in either order) and --seed only.
        let (lo, hi) = if x < y { (x, y) } else { (y, x) };
        let base = a
            .match_args
            .config(rules, a.seed ^ fnv1a64(format!("{lo}\n{hi}").as_bytes()));
        let mut progress = super::eval::progress_line(a.quiet);
        let report = rating_pool::top_up(
            &a.pool,
            games,
            (x, &mut px),
            (y, &mut py),
            a.games_per_pair,
            a.openings_plies,
            &base,
            &format!("{stamp}-{k}"),
            &mut progress,
        )?;
        if !a.quiet {
            match report {
                Some(r) => eprintln!(
                    "\n{x} vs {y}: +{} ={} -{}  Elo {:+.0} [{:+.0}, {:+.0}]  {:.1}s",
                    r.summary.wins,
                    r.summary.draws,
                    r.summary.losses,
                    r.summary.elo,
                    r.summary.elo_ci95[0],
                    r.summary.elo_ci95[1],
                    r.seconds
                ),
                None => eprintln!("{x} vs {y}: already {} games", a.games_per_pair),
            }
        }
        players.insert(x.clone(), px);
        players.insert(y.clone(), py);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn schedules_pair_the_new_players_as_documented() {
        let old = s(&["a", "b"]);
        let new = s(&["c", "d"]);
        assert_eq!(
            plan(&old, &new, Schedule::RoundRobin, &[]),
            vec![
                ("c".into(), "a".into()),
                ("c".into(), "b".into()),
                ("d".into(), "a".into()),
                ("d".into(), "b".into()),
                ("d".into(), "c".into()),
            ]
        );
        assert_eq!(plan(&old, &new, Schedule::Gauntlet, &[]).len(), 4);
        assert_eq!(
            plan(&old, &new, Schedule::Gauntlet, &s(&["b"])),
            vec![("c".into(), "b".into()), ("d".into(), "b".into())]
        );
        // A player already in the pool is not paired with itself.
        assert_eq!(plan(&old, &s(&["a"]), Schedule::RoundRobin, &[]).len(), 1);
    }

    #[test]
    fn anchors_parse() {
        assert_eq!(
            parse_anchor("ab:depth=1=0").unwrap(),
            ("alphabeta:depth=1".to_string(), 0.0)
        );
        assert_eq!(
            parse_anchor("iter-0004=-12.5").unwrap(),
            ("iter-0004".into(), -12.5)
        );
        assert!(parse_anchor("random").is_err());
        assert!(parse_anchor("random=x").is_err());
        assert!(parse_anchor("random=inf").is_err());
    }
}

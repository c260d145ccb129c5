//! The training run's periodic evaluation, a gauntlet: the newest network against a
//! fixed baseline and against the networks of earlier evaluations, every game kept in
//! the run's rating pool, and, with tables, its perfect-play accuracy on a fixed suite.
//! The trainer calls [`evaluate`] with its current network; everything else is here.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use super::accuracy;
use super::rating::IntervalMethod;
use super::rating_pool;
use super::{MatchConfig, Player, PlayerSpec};
use oware_core::files::atomic_write;
use oware_core::game::{Game, Position, RuleSet};
use oware_core::search::Evaluator;
use oware_core::search::mcts::MctsConfig;

/// `[eval]`: the periodic evaluation, a gauntlet: the new checkpoint against a fixed
/// baseline and against earlier checkpoints, every game added to the run's rating pool
/// (`RUN/pool.jsonl`), whose maximum-likelihood rating (anchored at the baseline) is the
/// run's measure of progress.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalConfig {
    /// Evaluate every this many iterations (0 = never), and after the last one.
    pub every: u32,
    /// Opponent spec (see `oware eval`), e.g. `alphabeta:depth=4`.
    pub opponent: String,
    /// Games per evaluation (each opening twice, colours swapped).
    pub games: usize,
    /// Simulations per move of the network player.
    pub simulations: u32,
    /// Random plies of each opening.
    pub opening_plies: u32,
    /// Earlier checkpoints played too, as counts of evaluations back (1 = the previous
    /// evaluation's checkpoint); those not reached yet are left out.
    pub gauntlet: Vec<u32>,
    /// Games against each earlier checkpoint.
    pub gauntlet_games: usize,
    /// The baseline's rating: the anchor of the run's pool (e.g. its rating in the
    /// committed anchor pool, `experiments/recorded/anchors`).
    pub opponent_elo: f64,
    /// A due evaluation is skipped while the evaluations so far took more than this
    /// fraction of the run's wall time (the last one is always played).
    pub max_share: f64,
    /// A tablebase directory (`oware tablebase build`); when given, each evaluation also
    /// measures the network's perfect-play accuracy on a fixed suite of table positions
    /// (`tb_outcome_accuracy`, `tb_margin_accuracy` in metrics.csv). Empty: off.
    pub tablebase: String,
    /// The suite's file (`FEN;moves` per line, as `oware eval --accuracy --save-suite`
    /// writes). Empty: taken once, at the first evaluation, from the run's own self-play
    /// games (two positions per game) and kept as `RUN/accuracy-suite.txt`.
    pub accuracy_suite: String,
    /// Positions of the suite used (the first this many the tables cover).
    pub accuracy_positions: usize,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            every: 5,
            opponent: "alphabeta:depth=4".into(),
            games: 100,
            simulations: 64,
            opening_plies: 4,
            gauntlet: vec![1, 4, 16],
            gauntlet_games: 20,
            opponent_elo: 0.0,
            max_share: 0.1,
            tablebase: String::new(),
            accuracy_suite: String::new(),
            accuracy_positions: 1000,
        }
    }
}

impl EvalConfig {
    /// Checks every value of `[eval]`; the message names the key.
    pub fn validate(&self) -> Result<()> {
        if self.every > 0 && self.games == 0 {
            bail!("eval.games must be at least 1 when eval.every > 0");
        }
        if self.every > 0 {
            self.opponent
                .parse::<PlayerSpec>()
                .map_err(|e| anyhow!("eval.opponent: {e}"))?;
        }
        if self.simulations == 0 {
            bail!("eval.simulations must be at least 1");
        }
        if self.gauntlet.contains(&0) {
            bail!("eval.gauntlet: evaluations back must be at least 1");
        }
        if !self.gauntlet.is_empty() && self.gauntlet_games == 0 {
            bail!("eval.gauntlet_games must be at least 1 with a gauntlet");
        }
        if !self.opponent_elo.is_finite() {
            bail!("eval.opponent_elo must be a number");
        }
        if !(self.max_share > 0.0 && self.max_share <= 1.0) {
            bail!("eval.max_share must be in (0, 1]");
        }
        if self.tablebase.is_empty() && !self.accuracy_suite.is_empty() {
            bail!("eval.accuracy_suite is set but eval.tablebase is not: the suite needs tables");
        }
        if !self.tablebase.is_empty() && self.accuracy_positions == 0 {
            bail!("eval.accuracy_positions must be at least 1 when eval.tablebase is set");
        }
        Ok(())
    }
}

/// What a gauntlet is played with: the run's `[eval]` settings and what else of the run
/// bears on the games.
#[derive(Clone, Copy, Debug)]
pub struct Gauntlet<'a> {
    /// `[eval]`.
    pub eval: &'a EvalConfig,
    /// The run's rules.
    pub rules: RuleSet,
    /// The run's search settings (the network searches with them, without noise).
    pub search: &'a MctsConfig,
    /// Seed of the openings: the same at every evaluation, so that successive networks
    /// play the same openings.
    pub seed: u64,
    /// Seed of the accuracy suite's draw from the run's games.
    pub suite_seed: u64,
}

/// One periodic evaluation's result, as the training loop records it.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalSummary {
    /// The baseline's spec.
    pub opponent: String,
    /// Score against the baseline, (wins + draws/2) / games.
    pub score: f64,
    /// Elo difference against the baseline.
    pub elo: f64,
    /// Its 95% confidence interval.
    pub elo_ci95: (f64, f64),
    /// The checkpoint's rating in the run's pool and its 95% interval (an end `None`
    /// when the games leave it unbounded); `None` when there is no pool rating.
    pub pool: Option<(f64, Option<f64>, Option<f64>)>,
    /// Perfect-play accuracy on the run's suite of table positions (outcome kept, best
    /// margin kept), when `eval.tablebase` is set.
    pub accuracy: Option<(f64, f64)>,
}

/// What an evaluation is told about the run.
#[derive(Clone, Debug)]
pub struct EvalContext {
    /// The run directory (its pool is `RUN/pool.jsonl`).
    pub run: PathBuf,
    /// The checkpoint being evaluated (its directory name, e.g. `iter-0040`).
    pub checkpoint: String,
    /// The checkpoints of the earlier evaluations, oldest first.
    pub earlier: Vec<String>,
}

/// The standard periodic evaluation, a gauntlet: the current network with MCTS
/// (`eval.simulations` per move, the run's search settings, no noise) against
/// `eval.opponent` (`eval.games` games) and against the checkpoints of the evaluations
/// `eval.gauntlet` back (`eval.gauntlet_games` each), from random openings of
/// `eval.opening_plies` plies, each played with both colours. Every game goes into the
/// run's pool (`RUN/pool.jsonl`, players named by checkpoint); the pool is rated anew,
/// anchored at the baseline's `eval.opponent_elo`. The seed is the same at every
/// evaluation, so successive checkpoints play the same openings.
pub fn evaluate(
    g: &Gauntlet<'_>,
    network: Box<dyn Evaluator>,
    ctx: &EvalContext,
) -> Result<EvalSummary> {
    let e = g.eval;
    let spec: PlayerSpec = e
        .opponent
        .parse()
        .map_err(|err| anyhow::anyhow!("eval.opponent: {err}"))?;
    let baseline = spec.to_string();
    let rules = g.rules;
    let seed = g.seed;
    let base = MatchConfig {
        rules,
        seed,
        mcts: g.search.clone(),
        ..MatchConfig::default()
    };
    let path = ctx.run.join(POOL_FILE);
    let mut games = rating_pool::read_pool(&path)?;
    // Games under this name from a session killed before the checkpoint was committed
    // belong to another network.
    rating_pool::drop_player(&path, &mut games, &ctx.checkpoint)?;
    let me = ctx.checkpoint.as_str();
    let mut player = Player::search(me, e.simulations, network);
    let mut opponent = Player::from_spec(&spec, rules, seed)?;
    let report = rating_pool::top_up(
        &path,
        &mut games,
        (me, &mut player),
        (&baseline, &mut opponent),
        e.games,
        e.opening_plies,
        &base,
        &format!("{me}-baseline"),
        &mut |_| {},
    )?
    .context("the new checkpoint already had its games against the baseline")?;
    let mut back: Vec<u32> = e.gauntlet.clone();
    back.sort_unstable();
    back.dedup();
    for b in back {
        let Some(k) = ctx.earlier.len().checked_sub(b as usize) else {
            continue;
        };
        let name = &ctx.earlier[k];
        let dir = ctx.run.join("checkpoints").join(name);
        if !dir.join(oware_net::net::checkpoint::MANIFEST_FILE).exists() {
            continue;
        }
        let earlier = PlayerSpec::Model {
            path: dir,
            sims: e.simulations,
            algorithm: None,
            tb: None,
        };
        let mut them = Player::from_spec(&earlier, rules, seed)?;
        rating_pool::top_up(
            &path,
            &mut games,
            (me, &mut player),
            (name, &mut them),
            e.gauntlet_games,
            e.opening_plies,
            &base,
            &format!("{me}-{name}"),
            &mut |_| {},
        )?;
    }
    // The Hessian's intervals: a bootstrap refits the whole pool hundreds of times,
    // and a long run's pool holds a player per evaluation.
    let table = rating_pool::rate_pool(&games, &baseline, e.opponent_elo, IntervalMethod::Hessian)
        .map_err(|err| anyhow::anyhow!("rating the pool: {err}"))?;
    let accuracy = if e.tablebase.is_empty() {
        None
    } else {
        Some(perfect_play_accuracy(g, ctx, &mut player, &base)?)
    };
    let s = &report.summary;
    Ok(EvalSummary {
        opponent: e.opponent.clone(),
        score: s.score,
        elo: s.elo,
        elo_ci95: (s.elo_ci95[0], s.elo_ci95[1]),
        pool: table
            .get(me)
            .and_then(|r| Some((r.elo?, r.elo_low, r.elo_high))),
        accuracy,
    })
}

/// The file a run keeps its accuracy suite in when `eval.accuracy_suite` is empty.
pub const ACCURACY_SUITE_FILE: &str = "accuracy-suite.txt";

/// The network's perfect-play accuracy (outcome, margin) on the run's fixed suite of
/// table positions: `eval.accuracy_suite`, or the suite taken from the run's own games at
/// the first evaluation and kept in the run directory, so every evaluation of the run is
/// judged on the same positions.
fn perfect_play_accuracy(
    g: &Gauntlet<'_>,
    ctx: &EvalContext,
    player: &mut Player,
    base: &MatchConfig,
) -> Result<(f64, f64)> {
    let e = g.eval;
    let rules = g.rules;
    let tb = oware_core::tablebase::open_shared(Path::new(&e.tablebase))
        .with_context(|| format!("eval.tablebase = {}", e.tablebase))?;
    if tb.rules() != rules {
        bail!(
            "eval.tablebase = {}: the tables are for {}, the run plays {rules}",
            e.tablebase,
            tb.rules()
        );
    }
    let kept = ctx.run.join(ACCURACY_SUITE_FILE);
    let (path, generate) = if e.accuracy_suite.is_empty() {
        (kept.clone(), !kept.exists())
    } else {
        (PathBuf::from(&e.accuracy_suite), false)
    };
    if generate {
        // Every self-play game of the run so far, in iteration order.
        let mut files: Vec<PathBuf> = fs::read_dir(ctx.run.join("games"))
            .with_context(|| "reading the run's games for the accuracy suite")?
            .filter_map(|d| d.ok().map(|d| d.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .collect();
        files.sort();
        let mut games = Vec::new();
        for f in &files {
            let text = fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
            for (n, line) in text.lines().enumerate() {
                let Some((fen, moves)) = line.split_once(';') else {
                    continue;
                };
                let start: Position = fen
                    .trim()
                    .parse()
                    .map_err(|err| anyhow::anyhow!("{}: line {}: {err}", f.display(), n + 1))?;
                let mut g = Game::new(rules, start);
                g.play_text(moves.trim())
                    .map_err(|err| anyhow::anyhow!("{}: line {}: {err}", f.display(), n + 1))?;
                games.push((start, g.moves().iter().map(|&(_, a)| a).collect()));
            }
        }
        let suite =
            accuracy::suite_from_games(&tb, rules, &games, 2, e.accuracy_positions, g.suite_seed);
        atomic_write(&kept, accuracy::suite_text(&suite).as_bytes())?;
    }
    let text = fs::read_to_string(&path)
        .with_context(|| format!("eval.accuracy_suite: cannot read {}", path.display()))?;
    let mut suite = accuracy::parse_suite(&text, rules)
        .map_err(|err| anyhow::anyhow!("eval.accuracy_suite {}: {err}", path.display()))?;
    suite.retain(|g| tb.covers(g.position()) && !g.is_over());
    suite.truncate(e.accuracy_positions);
    if suite.is_empty() {
        bail!(
            "{}: no position of the suite is covered by the tables in {}",
            path.display(),
            e.tablebase
        );
    }
    let r = accuracy::measure(base, player, &tb, &suite)
        .map_err(|err| anyhow::anyhow!("perfect-play accuracy: {err}"))?;
    Ok((r.outcome_accuracy, r.margin_accuracy))
}

/// The run's rating pool, inside the run directory.
pub const POOL_FILE: &str = "pool.jsonl";

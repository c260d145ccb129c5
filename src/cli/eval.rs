//! `oware eval`: a match between two players, with honest statistics.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use oware_app::arena::{
    MatchConfig, MatchProgress, Openings, Player, PlayerSpec, SprtConfig, check_engine,
    parse_openings, run_match_with,
};
use oware_core::game::RuleSet;

use super::match_args::MatchArgs;

/// Arguments of `oware eval`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "SPEC: alphabeta:depth=N[:tb=DIR] | alphabeta:movetime=MS[:tb=DIR] | \
    mcts:sims=N[:eval=uniform|rollout] | random | \
    model:PATH[:sims=N][:algorithm=puct|gumbel][:tb=DIR] | \
    engine:\"COMMAND\"[:depth=N|:movetime=MS|:tc=BASE+INC] (default movetime=100; tc in \
    seconds, e.g. tc=60+0.5: BASE for the game, INC added after each move)\n\n\
    Every opening is played twice, colours swapped; all figures are from --player's view. \
    The Elo interval is pentanomial (one trial per game pair)."
)]
pub struct Args {
    /// The player whose strength is measured (SPEC; default: --model).
    #[arg(long, conflicts_with = "model")]
    player: Option<String>,
    /// Short for `--player model:PATH:sims=N` (with --sims); default: the shipped network
    /// `checkpoints/oware-abapa`.
    #[arg(long, value_name = "PATH")]
    model: Option<PathBuf>,
    /// Simulations per move of --model.
    #[arg(long, conflicts_with = "player", default_value_t = oware_app::arena::player::DEFAULT_SIMS)]
    sims: u32,
    /// The opponent (SPEC).
    #[arg(long, required_unless_present = "accuracy")]
    opponent: Option<String>,
    /// Instead of a match: judge --player's moves with the endgame tables (--tb) on a
    /// fixed, seeded suite of --positions table positions from self-play games, and
    /// report the share of moves keeping the best outcome and the best margin.
    #[arg(long, requires = "tb", conflicts_with_all = ["opponent", "sprt", "openings", "out"])]
    accuracy: bool,
    /// Endgame tables (`oware tablebase build`) for --accuracy.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Positions of the --accuracy suite.
    #[arg(long, default_value_t = 10_000)]
    positions: usize,
    /// Read the --accuracy suite from this file (one `FEN;moves` per line) instead of
    /// generating it from self-play games of the shipped network.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// Write the --accuracy suite used to this file.
    #[arg(long, value_name = "FILE")]
    save_suite: Option<PathBuf>,
    /// Games to play (rounded up to an even number: each opening is played twice).
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Random plies from the start position for each opening.
    #[arg(long, default_value_t = 4, conflicts_with = "openings")]
    openings_plies: u32,
    /// File of openings, one per line: FEN, moves, or FEN;moves (used in order, cycled).
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Seed of the openings and of every random choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    // --rules and --threads.
    #[command(flatten)]
    match_args: MatchArgs,
    /// Stop early when an SPRT of elo0 against elo1 decides (α = β = 0.05), e.g. `0,35`.
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    /// Games in flight at once (0 = all, up to 512; 64 with --sprt).
    #[arg(long, default_value_t = 0)]
    concurrency: usize,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Write the game records here, one game per line: `FEN;moves # {result as JSON}`
    /// (readable by `oware replay`).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// No progress line on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// Parses a SPEC and builds its player, naming the flag on error.
/// An external engine is started once here, so that one which cannot start or never
/// answers `uci` is an error before the match, not a forfeit in every game.
pub(crate) fn build_player(flag: &str, spec: &str, rules: RuleSet, seed: u64) -> Result<Player> {
    let s: PlayerSpec = spec.parse().with_context(|| flag.to_string())?;
    let player = Player::from_spec(&s, rules, seed).with_context(|| flag.to_string())?;
    if let Player::Engine { command, .. } = &player {
        check_engine(command, rules).map_err(|e| anyhow::anyhow!("{flag}: {e}"))?;
    }
    Ok(player)
}

/// The progress line: games done, W/D/L so far, rate.
pub(crate) fn progress_line(quiet: bool) -> impl FnMut(&MatchProgress) {
    let mut last = std::time::Instant::now();
    move |p: &MatchProgress| {
        if quiet {
            return;
        }
        let done = p.finished == p.planned;
        if !done && last.elapsed().as_millis() < 200 {
            return;
        }
        last = std::time::Instant::now();
        let mut e = std::io::stderr().lock();
        let _ = write!(
            e,
            "\r{}/{} games  +{} ={} -{}  {:.1}s ",
            p.finished, p.planned, p.wdl.wins, p.wdl.draws, p.wdl.losses, p.seconds
        );
        let _ = e.flush();
    }
}

/// The SPEC of the player to measure: `--player SPEC`, or `--model PATH` with `--sims`,
/// or with neither the shipped network.
pub(crate) fn player_spec(
    player: Option<&str>,
    model: Option<&std::path::Path>,
    sims: u32,
) -> Result<String> {
    Ok(match (player, model) {
        (Some(p), None) => p.to_string(),
        (None, Some(m)) => format!("model:{}:sims={sims}", m.display()),
        (None, None) => format!(
            "model:{}:sims={sims}",
            oware_net::net::checkpoint::default_model_path().display()
        ),
        (Some(_), Some(_)) => anyhow::bail!("give --player SPEC or --model PATH, not both"),
    })
}

/// The positions of an accuracy suite: from `--suite FILE`, or generated.
fn accuracy_suite(
    a: &Args,
    tb: &oware_core::tablebase::Tablebase,
    rules: RuleSet,
) -> Result<Vec<oware_core::game::Game>> {
    use oware_app::arena::accuracy;
    if let Some(path) = &a.suite {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("--suite: cannot read {}", path.display()))?;
        let suite = accuracy::parse_suite(&text, rules)
            .map_err(|e| anyhow::anyhow!("--suite {}: {e}", path.display()))?;
        if let Some(i) = suite.iter().position(|g| !tb.covers(g.position())) {
            anyhow::bail!(
                "--suite {}: position {} has {} seeds on the board, beyond the tables' {}",
                path.display(),
                i + 1,
                suite[i].position().board_seeds(),
                tb.max_seeds()
            );
        }
        return Ok(suite);
    }
    generate_suite(tb, rules, a.positions, a.seed, a.quiet)
}

/// `positions` table positions from self-play games of the shipped network (the
/// training recipe: Gumbel search, playout-cap randomisation, random opening plies), two
/// per game at most, the same for the same seed.
pub(crate) fn generate_suite(
    tb: &oware_core::tablebase::Tablebase,
    rules: RuleSet,
    positions: usize,
    seed: u64,
    quiet: bool,
) -> Result<Vec<oware_core::game::Game>> {
    use oware_app::arena::accuracy;
    use oware_app::selfplay::{Players, Progress, SelfPlayConfig, play};
    use oware_net::net::{DeviceKind, NetEvaluator};
    let model = oware_net::net::checkpoint::default_model_path();
    let (evaluator, manifest) = NetEvaluator::from_checkpoint(&model, DeviceKind::Cpu)
        .with_context(|| "the suite's self-play network".to_string())?;
    if manifest.rule_set()? != rules {
        anyhow::bail!(
            "the shipped network plays {}, the tables {rules}: give --suite FILE",
            manifest.rules
        );
    }
    let mut evaluator = Some(evaluator);
    const PER_GAME: usize = 2;
    let mut suite = Vec::with_capacity(positions);
    let mut round = 0u64;
    while suite.len() < positions {
        let need = positions - suite.len();
        let games = (need.div_ceil(PER_GAME) * 5 / 4).max(16);
        let cfg = SelfPlayConfig {
            games_per_iteration: games,
            games_in_flight: games.min(256),
            // Named, not the training default: the suite's games stay those it always drew.
            opening_plies: 8,
            ..SelfPlayConfig::default()
        };
        let ev = evaluator.take().expect("one evaluator per round");
        let ev = ev.with_threads(std::thread::available_parallelism().map_or(1, |n| n.get()));
        if !quiet {
            eprintln!("suite: {games} self-play games of the shipped network (round {round})");
        }
        let out = play(
            &cfg,
            &oware_core::search::mcts::MctsConfig::default(),
            rules,
            games,
            seed ^ (round << 32),
            Players::own(vec![Box::new(ev)]),
            &Progress::default(),
        );
        let games: Vec<_> = out
            .games
            .iter()
            .map(|g| (oware_core::game::Position::start(), g.moves.clone()))
            .collect();
        suite.extend(accuracy::suite_from_games(
            tb,
            rules,
            &games,
            PER_GAME,
            need,
            seed ^ round,
        ));
        round += 1;
        if round > 20 {
            anyhow::bail!("self-play games reached the tables too rarely to fill the suite");
        }
        let (ev, _) = NetEvaluator::from_checkpoint(&model, DeviceKind::Cpu)?;
        evaluator = Some(ev);
    }
    Ok(suite)
}

fn run_accuracy(a: Args, rules: RuleSet, mut player: Player) -> Result<()> {
    use oware_app::arena::accuracy;
    let dir = a.tb.clone().expect("clap requires --tb");
    let tb = super::open_tablebase(Some(&dir), rules)?.expect("given");
    if a.positions == 0 {
        anyhow::bail!("--positions 0: expected at least 1 position");
    }
    let suite = accuracy_suite(&a, &tb, rules)?;
    if let Some(p) = &a.save_suite {
        oware_core::tablebase::file::write_atomic(p, accuracy::suite_text(&suite).as_bytes())
            .with_context(|| "--save-suite".to_string())?;
    }
    let cfg = a.match_args.config(rules, a.seed);
    let r = accuracy::measure(&cfg, &mut player, &tb, &suite)?;
    if a.json {
        let mut v = serde_json::to_value(&r)?;
        v["tb"] = dir.display().to_string().into();
        v["max_seeds"] = tb.max_seeds().into();
        v["seed"] = a.seed.into();
        return super::out(&format!(
            "{v}
"
        ));
    }
    super::out(&format!(
        "{}: {} proven positions with at most {} seeds (seed {}); {} left out (a repetition may decide them)
         outcome accuracy {:.4}  (moves keeping the best win/draw/loss)
         margin accuracy  {:.4}  (moves keeping the best margin)
         mean margin lost {:.3} seeds per move
         critical positions {} (some move changes the outcome): outcome accuracy {:.4}
         {:.1}s
",
        r.player,
        r.positions,
        tb.max_seeds(),
        a.seed,
        r.unproven,
        r.outcome_accuracy,
        r.margin_accuracy,
        r.mean_margin_lost,
        r.critical_positions,
        r.critical_outcome_accuracy,
        r.seconds
    ))
}

/// The summary with its first line (games and W/D/L) counting the forfeits, if any:
/// a game won by forfeit is never counted silently as a win.
fn forfeit_count(summary: &str, forfeits: &[(usize, oware_core::game::Side, String)]) -> String {
    if forfeits.is_empty() {
        return summary.to_string();
    }
    let (first, rest) = summary.split_once('\n').unwrap_or((summary, ""));
    format!(
        "{first}  ({} by forfeit, listed below)\n{rest}",
        forfeits.len()
    )
}

pub fn run(a: Args) -> Result<()> {
    let rules = a.match_args.rules()?;
    let player_spec = player_spec(a.player.as_deref(), a.model.as_deref(), a.sims)?;
    let player = build_player("--player", &player_spec, rules, a.seed)?;
    if a.accuracy {
        return run_accuracy(a, rules, player);
    }
    let mut player = player;
    let opponent_spec = a.opponent.clone().expect("clap requires --opponent");
    let mut opponent = build_player("--opponent", &opponent_spec, rules, a.seed ^ 1)?;
    let openings = match &a.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--openings: cannot read {}", path.display()))?;
            let list = parse_openings(&text, rules)
                .map_err(|e| anyhow::anyhow!("--openings {}: {e}", path.display()))?;
            Openings::List(list)
        }
        None => Openings::Random {
            plies: a.openings_plies,
        },
    };
    let sprt = match &a.sprt {
        Some(s) => Some(
            s.parse::<SprtConfig>()
                .map_err(|e| anyhow::anyhow!("--sprt: {e}"))?,
        ),
        None => None,
    };
    let cfg = MatchConfig {
        games: a.games,
        openings,
        sprt,
        concurrency: a.concurrency,
        ..a.match_args.config(rules, a.seed)
    };
    // Fail on an unwritable --out before playing, not after.
    let mut out_file = match &a.out {
        Some(p) => Some(
            std::fs::File::create(p)
                .with_context(|| format!("--out: cannot create {}", p.display()))?,
        ),
        None => None,
    };
    let mut progress = progress_line(a.quiet);
    let report = run_match_with(&cfg, &mut player, &mut opponent, &mut progress)?;
    if !a.quiet {
        eprintln!();
    }
    if let (Some(f), Some(p)) = (out_file.as_mut(), &a.out) {
        f.write_all(report.records_text().as_bytes())
            .with_context(|| format!("--out: cannot write {}", p.display()))?;
    }
    if a.json {
        super::out(&format!("{}\n", report.json()))?;
    } else {
        let mut t = format!("{} vs {}\n", report.player, report.opponent);
        t += &forfeit_count(&report.summary.text(), &report.forfeits());
        if report.stopped_early {
            t += "stopped early by the SPRT\n";
        }
        for (g, side, why) in report.forfeits() {
            t += &format!("game {g}: {side} forfeited: {why}\n");
        }
        t += &format!(
            "{:.1}s, {} evaluations\n",
            report.seconds, report.evaluations
        );
        super::out(&t)?;
    }
    Ok(())
}

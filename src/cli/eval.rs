//! `oware eval`: a match between two players, with honest statistics.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::arena::{
    MatchConfig, MatchProgress, Openings, Player, PlayerSpec, SprtConfig, check_engine,
    parse_openings, run_match_with,
};
use crate::game::RuleSet;

/// Arguments of `oware eval`.
#[derive(clap::Args, Debug)]
#[command(after_help = "SPEC: alphabeta:depth=N | alphabeta:movetime=MS | \
    mcts:sims=N[:eval=uniform|rollout] | random | model:PATH[:sims=N] | \
    engine:\"COMMAND\"[:depth=N|:movetime=MS] (default movetime=100)\n\n\
    Every opening is played twice, colours swapped; all figures are from --player's view. \
    The Elo interval is pentanomial (one trial per game pair).")]
pub struct Args {
    /// The player whose strength is measured (SPEC; default: --model).
    #[arg(long, conflicts_with = "model")]
    player: Option<String>,
    /// Short for `--player model:PATH:sims=N` (with --sims); default: the shipped network
    /// `checkpoints/oware-abapa`.
    #[arg(long, value_name = "PATH")]
    model: Option<PathBuf>,
    /// Simulations per move of --model.
    #[arg(long, conflicts_with = "player", default_value_t = crate::arena::player::DEFAULT_SIMS)]
    sims: u32,
    /// The opponent (SPEC).
    #[arg(long)]
    opponent: String,
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
    /// Rule set: abapa, awari, grand-slam-captures, ouril, traditional.
    #[arg(long, default_value = "abapa")]
    rules: String,
    /// Stop early when an SPRT of elo0 against elo1 decides (α = β = 0.05), e.g. `0,35`.
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    /// Games in flight at once (0 = all, up to 512; 64 with --sprt).
    #[arg(long, default_value_t = 0)]
    concurrency: usize,
    /// Threads for alpha-beta players' moves (0 = one per core); results do not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
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
            crate::net::checkpoint::default_model_path().display()
        ),
        (Some(_), Some(_)) => anyhow::bail!("give --player SPEC or --model PATH, not both"),
    })
}

/// The summary with its first line (games and W/D/L) counting the forfeits, if any:
/// a game won by forfeit is never counted silently as a win.
fn forfeit_count(summary: &str, forfeits: &[(usize, crate::game::Side, String)]) -> String {
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
    let rules = super::parse_rules(&a.rules)?;
    let player_spec = player_spec(a.player.as_deref(), a.model.as_deref(), a.sims)?;
    let mut player = build_player("--player", &player_spec, rules, a.seed)?;
    let mut opponent = build_player("--opponent", &a.opponent, rules, a.seed ^ 1)?;
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
        rules,
        games: a.games,
        openings,
        seed: a.seed,
        sprt,
        concurrency: a.concurrency,
        threads: a.threads,
        ..MatchConfig::default()
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

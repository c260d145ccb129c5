//! The command line: one file per subcommand, sharing the helpers here.

use std::io::{self, Write};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use oware_core::game::{Game, Position, RuleSet};

mod analyze;
mod average;
mod bench;
mod engine;
mod eval;
mod export;
mod grow;
mod infer;
mod ladder;
mod match_args;
mod perft;
mod play;
mod plot;
mod rate;
mod replay;
mod search;
mod selfplay;
mod serve;
mod show;
mod tablebase;
mod train;

/// oware-zero: a self-play reinforcement-learning trainer for the board game Oware.
#[derive(Parser, Debug)]
#[command(name = "oware", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Train a network by self-play from a config file (resumes an existing run).
    Train(train::Args),
    /// Run an extra self-play worker for a training run (writes RUN/samples/).
    Selfplay(selfplay::Args),
    /// Draw a run's learning curves (PNG).
    Plot(plot::Args),
    /// Count move sequences of each length (the rules engine's self-check and speed test).
    Perft(perft::Args),
    /// Show a board diagram, the legal moves, and the result if the game is over.
    Show(show::Args),
    /// Replay games from stdin (one per line: optional `FEN;` then moves; text from `#`
    /// on is a comment) as JSON lines.
    Replay(replay::Args),
    /// The network's raw answer for one position (policy logits, W/D/L, value, store
    /// difference) from a checkpoint or a run's latest checkpoint.
    Infer(infer::Args),
    /// The alpha-beta engine's best move, score and principal variation for a position.
    Search(search::Args),
    /// Speak the engine text protocol (docs/engine-protocol.md) on stdin/stdout.
    Engine(engine::Args),
    /// Play a match between two players: W/D/L, Elo with a 95% interval, LOS, SPRT.
    Eval(eval::Args),
    /// Rate a model against alpha-beta at increasing depths (depth 1 = 0 Elo).
    Ladder(ladder::Args),
    /// Maximum-likelihood Elo of every player in a pool of games (anchored); --add plays
    /// the games new players need.
    Rate(rate::Args),
    /// Play a game against the network in the terminal (moves by letter, undo, hint).
    Play(play::Args),
    /// Review a game move by move: best move, values before and after, grade.
    Analyze(analyze::Args),
    /// Export a checkpoint as ONNX or safetensors, with a JSON manifest (FILE.json).
    Export(export::Args),
    /// Average the weights of several checkpoints of one run into a new checkpoint
    /// (stochastic weight averaging).
    Average(average::Args),
    /// Grow a checkpoint wider (--width) or deeper (--blocks) into a new checkpoint that
    /// computes the same outputs, to train on from there (`train.init_from`).
    Grow(grow::Args),
    /// Endgame tables: build them, probe a position, verify them against search.
    #[command(subcommand)]
    Tablebase(tablebase::Tb),
    /// Serve the web app (play, analysis, puzzles) and the JSON API (docs/http-api.md).
    Serve(serve::Args),
    /// Measure the speed of a hot path.
    #[command(subcommand)]
    Bench(bench::Bench),
}

/// Runs the command line and returns the process exit code. Errors are printed as one
/// clear message on stderr, never as a panic.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = e.exit_code();
            let _ = e.print();
            return code;
        }
    };
    let result = match cli.command {
        Command::Train(a) => train::run(a),
        Command::Selfplay(a) => selfplay::run(a),
        Command::Plot(a) => plot::run(a),
        Command::Perft(a) => perft::run(a),
        Command::Show(a) => show::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Infer(a) => infer::run(a),
        Command::Search(a) => search::run(a),
        Command::Engine(a) => engine::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Ladder(a) => ladder::run(a),
        Command::Rate(a) => rate::run(a),
        Command::Export(a) => export::run(a),
        Command::Average(a) => average::run(a),
        Command::Grow(a) => grow::run(a),
        Command::Analyze(a) => analyze::run(a),
        Command::Play(a) => play::run(a),
        Command::Tablebase(t) => tablebase::run(t),
        Command::Serve(a) => serve::run(a),
        Command::Bench(b) => bench::run(b),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            if is_broken_pipe(&e) {
                return 0;
            }
            eprintln!("error: {}", one_line(&e));
            1
        }
    }
}

/// An error and its causes on one line, each cause once: an error whose message already
/// quotes its cause (an OS error after a file name, say) does not print it twice.
fn one_line(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let t = cause.to_string();
        if out.contains(t.trim()) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&t);
    }
    out.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Parses `--rules`.
pub(crate) fn parse_rules(name: &str) -> Result<RuleSet> {
    name.parse::<RuleSet>().context("--rules")
}

/// `--rules` for a command that plays a network: the network's own rules by default.
/// Other rules are played (the board and the sowing are the same), with a line on stderr
/// saying that the network was trained for others and its strength there is unmeasured.
pub(crate) fn rules_for_network(given: Option<&str>, trained: &str) -> Result<RuleSet> {
    let rules = parse_rules(given.unwrap_or(trained))?;
    if rules.to_string() != trained {
        eprintln!(
            "note: the network was trained for {trained} rules; it plays {rules} here, at a \
             strength nobody has measured"
        );
    }
    Ok(rules)
}

/// `--fen`, `--moves` and `--rules`: the position a command looks at.
#[derive(clap::Args, Debug)]
pub(crate) struct PositionArgs {
    /// Position (FEN, docs/notation.md); default: the start. Give the position at the last
    /// capture and the moves since with --moves, so repetition is seen.
    #[arg(long)]
    fen: Option<String>,
    /// Moves to play first (`FfBe` or "F f B e").
    #[arg(long)]
    moves: Option<String>,
    /// Rule set: abapa, awari, grand-slam-captures, ouril, traditional.
    #[arg(long, default_value = "abapa")]
    rules: String,
}

impl PositionArgs {
    /// The game: the rules, the position, the moves played from it.
    pub(crate) fn game(&self) -> Result<Game> {
        let rules = parse_rules(&self.rules)?;
        game_from(rules, self.fen.as_deref(), self.moves.as_deref())
    }
}

/// Builds a game from `--fen` (default: the start) and `--moves`.
pub(crate) fn game_from(rules: RuleSet, fen: Option<&str>, moves: Option<&str>) -> Result<Game> {
    let start = match fen {
        Some(f) => f.parse::<Position>().context("--fen")?,
        None => Position::start(),
    };
    let mut game = Game::new(rules, start);
    if let Some(m) = moves
        && let Err(e) = game.play_text(m)
    {
        bail!(
            "--moves: {}: {e}",
            oware_core::game::after_moves(game.moves().len())
        );
    }
    Ok(game)
}

/// Opens `--tb DIR` (if given) for `rules`: the tables, shared in memory.
pub(crate) fn open_tablebase(
    dir: Option<&std::path::Path>,
    rules: RuleSet,
) -> Result<Option<std::sync::Arc<oware_core::tablebase::Tablebase>>> {
    let Some(dir) = dir else { return Ok(None) };
    let tb = oware_core::tablebase::open_shared(dir).context("--tb")?;
    if tb.rules() != rules {
        bail!(
            "--tb {}: the tables are for rules {}, not {rules}",
            dir.display(),
            tb.rules()
        );
    }
    Ok(Some(tb))
}

/// Writes `text` to stdout; a closed pipe ends the program quietly.
pub(crate) fn out(text: &str) -> Result<()> {
    let mut o = io::stdout().lock();
    o.write_all(text.as_bytes())?;
    o.flush()?;
    Ok(())
}

//! `oware analyze`: a game reviewed move by move (best move, values, grade) by MCTS with
//! the network and alpha-beta proofs; see `oware_app::player::analysis` for the thresholds.

use std::path::PathBuf;

use anyhow::{Result, bail};

use oware_app::player::analysis::{self, ReviewConfig, review, review_json, review_text};
use oware_net::net::{DeviceKind, NetEvaluator};

/// Arguments of `oware analyze`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A checkpoint directory, or a run directory (its latest checkpoint).
    /// Default: the shipped network, checkpoints/oware-abapa.
    #[arg(long, default_value_os_t = oware_net::net::checkpoint::default_model_path(), hide_default_value = true)]
    model: PathBuf,
    /// The moves of the game (`FfBe` or "F f B e").
    #[arg(long)]
    game: String,
    /// The position the game starts from (FEN, docs/notation.md); default: the start.
    #[arg(long)]
    fen: Option<String>,
    /// Rule set; default: the model's.
    #[arg(long)]
    rules: Option<String>,
    /// MCTS simulations per position (the HTTP API's default too).
    #[arg(long, default_value_t = analysis::DEFAULT_SIMULATIONS)]
    sims: u32,
    /// Alpha-beta depth for exact wins and losses (0: off).
    #[arg(long, default_value_t = analysis::DEFAULT_EXACT_DEPTH)]
    exact_depth: u32,
    /// Endgame tables (`oware tablebase build`): where they prove a position's result
    /// given the game's history (an exact entry, or a search that carries the history),
    /// it is named in the review.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    if a.sims == 0 || a.sims > 1_000_000 {
        bail!("--sims {}: expected 1 to 1000000", a.sims);
    }
    if a.exact_depth > oware_core::search::alphabeta::MAX_DEPTH {
        bail!("--exact-depth {}: expected 0 to 64", a.exact_depth);
    }
    let (mut evaluator, manifest) = NetEvaluator::from_checkpoint(&a.model, DeviceKind::Cpu)?;
    let rules = super::rules_for_network(a.rules.as_deref(), &manifest.rules)?;
    let game = super::game_from(rules, a.fen.as_deref(), None)?;
    let mut game_played = game.clone();
    if let Err(e) = game_played.play_text(&a.game) {
        bail!(
            "--game: {}: {e}",
            oware_core::game::after_moves(game_played.moves().len())
        );
    }
    let cfg = ReviewConfig {
        simulations: a.sims,
        exact_depth: a.exact_depth,
        tablebase: super::open_tablebase(a.tb.as_deref(), rules)?,
        trained: manifest.search_settings(),
        ..ReviewConfig::default()
    };
    let reviews = review(&game_played, &mut evaluator, &cfg);
    let outcome = game_played.outcome();
    if a.json {
        return super::out(&format!("{}\n", review_json(&game_played, &cfg, &reviews)));
    }
    let mut text = review_text(&reviews);
    match outcome {
        Some(o) => {
            let s = o.stores();
            text.push_str(&format!(
                "result: {} ({} – {}, {})\n",
                o.winner_text(),
                s[0],
                s[1],
                o.reason.name()
            ));
        }
        None => text.push_str(&format!(
            "final position {} (game goes on)\n",
            game_played.position()
        )),
    }
    super::out(&text)
}

//! `oware show`: a board diagram, the legal moves, the result if over.

use anyhow::Result;

use crate::game::{diagram, mask_letters};

/// Arguments of `oware show`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Position (FEN, as in RULES.md); default: the start.
    #[arg(long)]
    fen: Option<String>,
    /// Moves to play first (`FfBe` or "F f B e").
    #[arg(long)]
    moves: Option<String>,
    /// Rule set: abapa, awari, grand-slam-captures, ouril, traditional.
    #[arg(long, default_value = "abapa")]
    rules: String,
}

pub fn run(a: Args) -> Result<()> {
    let rules = super::parse_rules(&a.rules)?;
    let game = super::game_from(rules, a.fen.as_deref(), a.moves.as_deref())?;
    let p = game.position();
    let mut s = diagram(p);
    s.push_str(&format!("position {p}\nrules {rules}\n"));
    match game.outcome() {
        None => s.push_str(&format!(
            "legal moves: {}\n",
            mask_letters(p.side, game.legal_moves())
        )),
        Some(o) => {
            let [a, b] = o.stores();
            let who = match o.winner() {
                Some(w) => format!("{w} wins"),
                None => "draw".to_string(),
            };
            s.push_str(&format!(
                "game over ({}): {who}, {a}-{b}\n",
                o.reason.name()
            ));
        }
    }
    super::out(&s)
}

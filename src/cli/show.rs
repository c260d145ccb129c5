//! `oware show`: a board diagram, the legal moves, the result if over.

use anyhow::Result;

use crate::game::{diagram, mask_letters};

/// Arguments of `oware show`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    position: super::PositionArgs,
}

pub fn run(a: Args) -> Result<()> {
    let game = a.position.game()?;
    let rules = game.rules();
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

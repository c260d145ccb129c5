//! `oware show`: a board diagram, the legal moves, the result if over.

use anyhow::Result;

use oware_core::game::{Game, diagram, ending_words, mask_letters, move_letter, move_words};

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
    // The last move of --moves, in the words `oware play` uses.
    if let Some((&(side, a), earlier)) = game.moves().split_last() {
        let mut g = Game::new(rules, *game.start());
        for &(_, m) in earlier {
            g.play(m as usize)?;
        }
        let before = *g.position();
        let info = g.play(a as usize)?;
        let letter = move_letter(side, a as usize);
        match move_words(&before, g.position(), a as usize, &info) {
            Some(w) => s.push_str(&format!("last move {letter}: {w}\n")),
            None => s.push_str(&format!("last move {letter}: no capture\n")),
        }
    }
    match game.outcome() {
        None => s.push_str(&format!(
            "legal moves: {}\n",
            mask_letters(p.side, game.legal_moves())
        )),
        Some(o) => s.push_str(&format!(
            "game over: {} ({})\n",
            ending_words(p, rules, &o),
            o.reason.name()
        )),
    }
    super::out(&s)
}

//! `oware play`: a game against the network in the terminal, one line of input per
//! command (so it can be driven by a pipe as well as by a person).
//!
//! Levels (MCTS with PUCT; noise is Dirichlet noise on the root priors, temperature T
//! samples the move ∝ visits^(1/T); T = 0 plays the most visited move):
//!
//! | level | simulations | root noise | temperature |
//! |---|---|---|---|
//! | novice | 8 | yes | 1.0 |
//! | amateur | 64 | yes | 0.5 |
//! | strong | 400 | no | 0 |
//! | master | 1600 | no | 0 |
//!
//! Commands: a move letter (your side's; either case), `undo` (takes back your last move
//! and the reply), `hint` (a full search for you), `board`, `help`, `quit`.

use std::io::{self, BufRead};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::engine::Level;
use crate::engine::mcts::line_letters;
use crate::game::{Game, RuleSet, Side, diagram, mask_letters, move_letter};
use crate::net::{DeviceKind, NetEvaluator};
use crate::search::Evaluator;
use crate::search::mcts::{Algorithm, BatchSearch, MctsConfig};

/// Simulations of a `hint` search (at least the level's).
const HINT_SIMULATIONS: u32 = 400;

/// Arguments of `oware play`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A checkpoint directory, or a run directory (its latest checkpoint).
    /// Default: the shipped network, checkpoints/oware-abapa.
    #[arg(long, default_value_os_t = crate::net::checkpoint::default_model_path())]
    model: PathBuf,
    /// How strongly the network plays.
    #[arg(long, value_enum, default_value = "amateur")]
    level: Level,
    /// Your side: S (South, moves A..F, moves first from the start) or N (North, a..f).
    #[arg(long, default_value = "S")]
    human: String,
    /// Rule set; default: the model's.
    #[arg(long)]
    rules: Option<String>,
    /// Start from this position (FEN, as in RULES.md) instead of the start.
    #[arg(long)]
    fen: Option<String>,
    /// Seed of the computer's randomness (noise and temperature).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The game being played, with the search that plays the computer's side.
struct Session {
    search: BatchSearch,
    evaluator: Box<dyn Evaluator>,
    start: Game,
    game: Game,
    human: Side,
    level: Level,
}

impl Session {
    fn reset_to(&mut self, game: Game) {
        self.search.set_game(0, game.clone());
        self.game = game;
    }

    fn play(&mut self, action: usize) -> Result<()> {
        self.game.play(action)?;
        self.search
            .play(0, action)
            .context("the search's copy of the game disagrees")?;
        Ok(())
    }

    /// Searches the current position; returns (best action, value for the mover, pv).
    fn think(&mut self, sims: u32, noise: bool, temperature: f32) -> (usize, f32, String) {
        self.search.begin(0, sims, noise);
        self.search.run(self.evaluator.as_mut());
        let r = self.search.result(0);
        let action = self.search.choose(0, temperature);
        let pv = line_letters(
            self.game.position(),
            self.game.rules(),
            self.search.principal_variation(0, 6),
        );
        (action, r.value, pv)
    }

    fn computer_moves(&mut self, out: &mut String) -> Result<()> {
        while !self.game.is_over() && self.game.position().side != self.human {
            let (sims, noise, t) = self.level.settings();
            let side = self.game.position().side;
            let (a, v, _) = self.think(sims, noise, t);
            self.play(a)?;
            out.push_str(&format!(
                "oware plays {} (its value {:+.2})\n",
                move_letter(side, a),
                v
            ));
        }
        Ok(())
    }

    fn board(&self) -> String {
        let mut s = diagram(self.game.position());
        if !self.game.moves().is_empty() {
            s.push_str(&format!("moves: {}\n", self.game.move_text()));
        }
        s
    }

    fn prompt(&self) -> String {
        let legal = mask_letters(self.human, self.game.legal_moves());
        format!("your move ({legal}, or undo, hint, help, quit): ")
    }

    fn undo(&mut self) -> Result<String, String> {
        // Take back to the human's previous turn: drop moves until the human's last one.
        let moves = self.game.moves();
        let Some(k) = moves.iter().rposition(|&(s, _)| s == self.human) else {
            return Err("nothing to undo: you have not moved yet".into());
        };
        let mut g = self.start.clone();
        for &(_, a) in &moves[..k] {
            g.play(a as usize).map_err(|e| e.to_string())?;
        }
        let taken = moves.len() - k;
        self.reset_to(g);
        Ok(format!("took back {taken} move(s)\n"))
    }
}

/// Why a line is not a move of `human` in `game`, or the action it names.
fn parse_human_move(line: &str, human: Side, game: &Game) -> Result<usize, String> {
    let mut chars = line.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return Err(format!(
            "'{line}' is not a command or a move; type help for the commands"
        ));
    };
    let lower = c.to_ascii_lowercase();
    if !('a'..='f').contains(&lower) {
        return Err(format!(
            "'{c}' is not a move: pits are A..F (South) and a..f (North)"
        ));
    }
    let action = (lower as u8 - b'a') as usize;
    let legal = game.legal_moves();
    if legal & (1 << action) == 0 {
        let letter = move_letter(human, action);
        let why = if game.position().seeds_at(action) == 0 {
            "that pit is empty"
        } else {
            "the opponent would be left without seeds (you must feed)"
        };
        return Err(format!(
            "{letter} is not legal here: {why}; legal: {}",
            mask_letters(human, legal)
        ));
    }
    Ok(action)
}

const HELP: &str = "commands: a move letter of your side (A..F for South, a..f for North; either case), \
undo (take back your last move and the reply), hint (the network's suggestion), board, help, quit\n";

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    let human = match a.human.as_str() {
        "S" | "s" | "south" => Side::South,
        "N" | "n" | "north" => Side::North,
        other => bail!("--human {other}: expected S or N"),
    };
    let (evaluator, manifest) = NetEvaluator::from_checkpoint(&a.model, DeviceKind::Cpu)?;
    let rules: RuleSet = super::parse_rules(a.rules.as_deref().unwrap_or(&manifest.rules))?;
    let start = super::game_from(rules, a.fen.as_deref(), None)?;
    if start.is_over() {
        bail!("--fen: the game is already over there");
    }
    let (level_sims, ..) = a.level.settings();
    let cfg = MctsConfig {
        algorithm: Algorithm::Puct,
        simulations: level_sims.max(HINT_SIMULATIONS),
        cheap_simulations: 1,
        tree_reuse: true,
        ..MctsConfig::default()
    };
    let mut s = Session {
        search: BatchSearch::new(cfg, rules, 1, a.seed),
        evaluator: Box::new(evaluator),
        start: start.clone(),
        game: start.clone(),
        human,
        level: a.level,
    };
    s.reset_to(start);
    let mut text = format!(
        "oware-zero ({} rules, level {}): you are {human}. {HELP}",
        rules.name(),
        format!("{:?}", a.level).to_lowercase()
    );
    s.computer_moves(&mut text)?;
    text.push_str(&s.board());
    text.push_str(&s.prompt());
    super::out(&text)?;

    let stdin = io::stdin();
    for line in stdin.lock().lines() {
        let line = line.context("reading stdin")?;
        let cmd = line.trim();
        let mut out = String::new();
        match cmd {
            "" => {}
            "quit" | "exit" => {
                super::out("game abandoned\n")?;
                return Ok(());
            }
            "help" => out.push_str(HELP),
            "board" => out.push_str(&s.board()),
            "undo" => match s.undo() {
                Ok(m) => {
                    out.push_str(&m);
                    s.computer_moves(&mut out)?;
                    out.push_str(&s.board());
                }
                Err(e) => out.push_str(&format!("cannot undo: {e}\n")),
            },
            "hint" => {
                let (sims, ..) = s.level.settings();
                let (best, v, pv) = s.think(sims.max(HINT_SIMULATIONS), false, 0.0);
                out.push_str(&format!(
                    "hint: {} (your value {v:+.2}; line {pv})\n",
                    move_letter(human, best)
                ));
            }
            _ => match parse_human_move(cmd, human, &s.game) {
                Ok(action) => {
                    s.play(action)?;
                    s.computer_moves(&mut out)?;
                    out.push_str(&s.board());
                }
                Err(e) => out.push_str(&format!("{e}\n")),
            },
        }
        if let Some(o) = s.game.outcome() {
            let st = o.stores();
            let verdict = match o.winner() {
                None => "a draw".to_string(),
                Some(w) if w == human => "you win".to_string(),
                Some(_) => "oware wins".to_string(),
            };
            out.push_str(&format!(
                "game over ({}): South {} – North {}: {verdict}\n",
                o.reason.name(),
                st[0],
                st[1]
            ));
            super::out(&out)?;
            return Ok(());
        }
        out.push_str(&s.prompt());
        super::out(&out)?;
    }
    super::out("\ninput ended; game abandoned\n")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;

    #[test]
    fn bad_moves_say_why() {
        let g = Game::new(
            RuleSet::abapa(),
            "1-0-0-0-0-1-0-0-0-0-0-0-23-23-S"
                .parse::<Position>()
                .unwrap(),
        );
        assert_eq!(parse_human_move("F", Side::South, &g), Ok(5));
        assert_eq!(parse_human_move("f", Side::South, &g), Ok(5));
        let e = parse_human_move("A", Side::South, &g).unwrap_err();
        assert!(e.contains("feed") && e.contains("legal: F"), "{e}");
        let e = parse_human_move("B", Side::South, &g).unwrap_err();
        assert!(e.contains("empty"), "{e}");
        assert!(
            parse_human_move("G", Side::South, &g)
                .unwrap_err()
                .contains("pits")
        );
        assert!(
            parse_human_move("go", Side::South, &g)
                .unwrap_err()
                .contains("help")
        );
    }
}

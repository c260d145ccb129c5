//! `oware play`: a game against the network in the terminal, one line of input per
//! command (so it can be driven by a pipe as well as by a person).
//!
//! Levels (MCTS with PUCT; noise is Dirichlet noise on the root priors, temperature T
//! samples the move ∝ visits^(1/T); T = 0 plays the most visited move):
//!
//! | level | simulations | root noise | temperature | policy temperature |
//! |---|---|---|---|---|
//! | novice | 8 | yes | 1.0 | 1 |
//! | amateur | 64 | yes | 0.5 | 1 |
//! | strong | 400 | no | 0 | the network's own |
//! | master | 1600 | no | 0 | the network's own |
//!
//! Commands: a pit letter of your side, in either case (`A`..`F` as South, `a`..`f` as
//! North in the position text; `c` and `C` both play your third pit), `undo` (takes back
//! your last move and the reply), `hint` (a full search for you), `board`, `help`,
//! `quit`. The board is drawn from your side, after your move and after the reply;
//! every capture and the ending are said in words (the words of `oware show`). End of
//! input (Ctrl-D) and Ctrl-C both end the game with a message.

use std::io::{self, BufRead};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use oware_app::player::Level;
use oware_app::player::mcts::{EngineSettings, build_search, cache_bytes, line_letters};
use oware_core::game::{
    Game, RuleSet, Side, diagram_for, ending_words, mask_letters, move_letter, move_words,
    parse_move_letter,
};
use oware_core::search::cache::EvalCache;
use oware_core::search::mcts::ParallelSearch;
use oware_core::tablebase::prove::Prover;
use oware_net::net::{DeviceKind, NetEvaluator};

/// Simulations of a `hint` search (at least the level's).
const HINT_SIMULATIONS: u32 = 400;

/// Arguments of `oware play`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A checkpoint directory, or a run directory (its latest checkpoint).
    /// Default: the shipped network, checkpoints/oware-abapa.
    #[arg(long, default_value_os_t = oware_net::net::checkpoint::default_model_path(), hide_default_value = true)]
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
    /// Start from this position (FEN, docs/notation.md) instead of the start.
    #[arg(long)]
    fen: Option<String>,
    /// Seed of the computer's randomness (noise and temperature).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Endgame tables (`oware tablebase build`): the computer's search ends where they
    /// prove the result, and `hint` says whether you have won, drawn or
    /// lost with best play, or that a repetition may decide and it is not proven.
    #[arg(long, value_name = "DIR")]
    tb: Option<PathBuf>,
    /// Threads of the computer's search (the engine's searcher; the levels are counted
    /// in simulations, so more threads answer sooner, not stronger). With 1 a game
    /// replays the same for the same seed and moves.
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

/// Nodes the search behind the tables' hint may take where no entry proves the value.
const HINT_NODES: u64 = 200_000;

/// The game being played, with the search that plays the computer's side.
struct Session {
    search: ParallelSearch,
    start: Game,
    game: Game,
    human: Side,
    level: Level,
    tablebase: Option<std::sync::Arc<oware_core::tablebase::Tablebase>>,
}

impl Session {
    /// What the tables say of the position, for the mover: the result with best play
    /// and the moves that keep it, or that it is not proven (a repetition may decide,
    /// given the moves since the last capture). `None` when they do not cover it.
    fn table_hint(&self) -> Option<String> {
        let tb = self.tablebase.as_ref()?;
        let v = Prover::new(tb, HINT_NODES).game(&self.game)?;
        Some(format!(
            "tables: {}\n",
            v.summary(self.game.position().side)
        ))
    }

    fn reset_to(&mut self, game: Game) {
        self.search.set_game(&game);
        self.game = game;
    }

    /// Plays `action` for the side to move; returns what it did in words, if anything.
    fn play(&mut self, action: usize) -> Result<Option<String>> {
        let before = *self.game.position();
        let info = self.game.play(action)?;
        Ok(move_words(&before, self.game.position(), action, &info))
    }

    /// Searches the current position; returns (best action, value for the mover, pv).
    fn think(&mut self, sims: u32, noise: bool, temperature: f32) -> (usize, f32, String) {
        // The subtree of the moves played since the last search is kept.
        self.search.set_game(&self.game);
        self.search.run(sims, noise, |_| true);
        let r = self.search.result();
        let action = self.search.choose(temperature);
        let pv = line_letters(
            self.game.position(),
            self.game.rules(),
            self.search.tree().principal_variation(6),
        );
        (action, r.value, pv)
    }

    fn computer_moves(&mut self, out: &mut String) -> Result<()> {
        while !self.game.is_over() && self.game.position().side != self.human {
            let (sims, noise, t) = self.level.settings();
            let side = self.game.position().side;
            let (a, v, _) = self.think(sims, noise, t);
            let words = self.play(a)?;
            out.push_str(&format!(
                "oware plays {} (its value {:+.2})\n",
                move_letter(side, a),
                v
            ));
            if let Some(w) = words {
                out.push_str(&format!("{w}\n"));
            }
        }
        Ok(())
    }

    fn board(&self) -> String {
        let mut s = diagram_for(self.game.position(), self.human);
        if self.game.is_over() {
            // The diagram's last line says who is to move; nobody is, after the end.
            s.truncate(s.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1));
        }
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

/// Why a line is not a move of `human` in `game`, or the action it names. A pit letter
/// names one of the player's own pits in either case: `c` and `C` are South's third pit
/// for South, North's third pit for North.
fn parse_human_move(line: &str, human: Side, game: &Game) -> Result<usize, String> {
    let legal = game.legal_moves();
    let mut chars = line.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return Err(format!(
            "'{line}' is not a command or a move; type help for the commands"
        ));
    };
    let Some((_, action)) = parse_move_letter(c) else {
        return Err(format!(
            "'{c}' is not a move: your legal moves now are {}",
            mask_letters(human, legal)
        ));
    };
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

const HELP: &str = "commands: the letter of one of your pits (either case),\n\
undo (take back your last move and the reply), hint (the network's suggestion), board, help, quit\n";

/// The message `on_interrupt_say` writes, kept for the signal handler.
static INTERRUPT_MESSAGE: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Makes Ctrl-C (SIGINT) end the program with `message` on stdout and exit code 130 (the
/// shell's code for an interrupt), as end of input ends it with a message.
fn on_interrupt_say(message: &'static str) {
    extern "C" fn handler(_: libc::c_int) {
        // Only async-signal-safe calls here: write(2) and _exit(2).
        if let Some(m) = INTERRUPT_MESSAGE.get() {
            // SAFETY: the message is a 'static string; write(2) reads len bytes of it.
            unsafe {
                libc::write(1, m.as_ptr().cast(), m.len());
            }
        }
        // SAFETY: _exit ends the process at once, as a signal handler may.
        unsafe { libc::_exit(130) }
    }
    let _ = INTERRUPT_MESSAGE.set(message);
    // SAFETY: installs a handler that only calls async-signal-safe functions.
    unsafe {
        libc::signal(libc::SIGINT, handler as *const () as libc::sighandler_t);
    }
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    let human = match a.human.as_str() {
        "S" | "s" | "south" => Side::South,
        "N" | "n" | "north" => Side::North,
        other => bail!("--human {other}: expected S or N"),
    };
    let (evaluator, manifest) = NetEvaluator::from_checkpoint(&a.model, DeviceKind::Cpu)?;
    let rules: RuleSet = super::rules_for_network(a.rules.as_deref(), &manifest.rules)?;
    let start = super::game_from(rules, a.fen.as_deref(), None)?;
    if start.is_over() {
        bail!("--fen: the game is already over there");
    }
    let (level_sims, ..) = a.level.settings();
    let mut cfg = manifest
        .search_settings()
        .anytime(level_sims.max(HINT_SIMULATIONS), true);
    if let Some(t) = a.level.policy_temperature() {
        cfg.policy_temperature = t;
    }
    if a.threads == 0 || a.threads > 256 {
        bail!("--threads {}: expected 1 to 256", a.threads);
    }
    let settings = EngineSettings {
        threads: a.threads,
        ..EngineSettings::default()
    };
    let cache = std::sync::Arc::new(EvalCache::with_bytes(cache_bytes(settings.hash_mb)));
    let mut s = Session {
        search: build_search(&evaluator, &cfg, rules, &settings, &cache, a.seed),
        start: start.clone(),
        game: start.clone(),
        human,
        level: a.level,
        tablebase: super::open_tablebase(a.tb.as_deref(), rules)?,
    };
    s.search.set_tablebase(s.tablebase.clone());
    s.reset_to(start);
    on_interrupt_say("\ninterrupted (Ctrl-C); game abandoned\n");
    let mut text = format!(
        "oware-zero ({} rules, level {}): you are {human}; your pits are {}.\n\
         The board is drawn from your side, your row at the bottom. Seeds are sown\n\
         anticlockwise: left to right along the bottom row, then right to left along the top.\n\
         {HELP}",
        rules.name(),
        format!("{:?}", a.level).to_lowercase(),
        mask_letters(human, 0b11_1111)
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
                if let Some(t) = s.table_hint() {
                    out.push_str(&t);
                }
            }
            _ => match parse_human_move(cmd, human, &s.game) {
                Ok(action) => {
                    out.push_str(&format!("you play {}\n", move_letter(human, action)));
                    if let Some(w) = s.play(action)? {
                        out.push_str(&format!("{w}\n"));
                    }
                    // The position after your move, then the reply and the position after it.
                    out.push_str(&s.board());
                    if !s.game.is_over() {
                        s.computer_moves(&mut out)?;
                        out.push_str(&s.board());
                    }
                }
                Err(e) => out.push_str(&format!("{e}\n")),
            },
        }
        if let Some(o) = s.game.outcome() {
            let verdict = match o.winner() {
                None => "a draw",
                Some(w) if w == human => "you win",
                Some(_) => "oware wins",
            };
            out.push_str(&format!(
                "game over: {}. {verdict}\n",
                ending_words(s.game.position(), rules, &o)
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
    use oware_core::game::Position;

    #[test]
    fn bad_moves_say_why() {
        let g = Game::new(
            RuleSet::abapa(),
            "1-0-0-0-0-1-0-0-0-0-0-0-23-23-S"
                .parse::<Position>()
                .unwrap(),
        );
        assert_eq!(parse_human_move("F", Side::South, &g), Ok(5));
        // Your own pits in either case: `f` is South's F for South.
        assert_eq!(parse_human_move("f", Side::South, &g), Ok(5));
        let e = parse_human_move("A", Side::South, &g).unwrap_err();
        assert!(e.contains("feed") && e.contains("legal: F"), "{e}");
        let e = parse_human_move("B", Side::South, &g).unwrap_err();
        assert!(e.contains("empty"), "{e}");
        // A letter that is no pit lists the moves legal now, not every pit.
        let e = parse_human_move("G", Side::South, &g).unwrap_err();
        assert!(e.ends_with("your legal moves now are F"), "{e}");
        let e = parse_human_move("a", Side::South, &g).unwrap_err();
        assert!(e.contains("legal: F"), "{e}");
        // For North, `C` and `c` are both North's c.
        let n = Game::new(
            RuleSet::abapa(),
            "3-1-1-1-0-0-0-0-8-0-0-1-16-17-N"
                .parse::<Position>()
                .unwrap(),
        );
        assert_eq!(parse_human_move("C", Side::North, &n), Ok(2));
        assert_eq!(parse_human_move("c", Side::North, &n), Ok(2));
        assert!(
            parse_human_move("go", Side::South, &g)
                .unwrap_err()
                .contains("help")
        );
    }
}

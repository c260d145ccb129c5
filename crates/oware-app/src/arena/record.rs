//! What a match produces: each finished game ([`GameRecord`], with how it ended), the
//! progress passed on as games finish, and the [`MatchReport`] with its record file and
//! JSON.

use super::stats::{Summary, Wdl};
use oware_core::game::{Game, Outcome, Side};

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub enum GameEnd {
    /// By the rules.
    Rules {
        /// The outcome.
        outcome: Outcome,
    },
    /// The side to move failed to move (an engine that crashed, timed out or answered
    /// nonsense): it loses.
    Forfeit {
        /// Who forfeited.
        loser: Side,
        /// What went wrong.
        reason: String,
    },
    /// Stopped at `max_plies`, decided by the stores so far.
    PlyLimit,
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Game number in the match (0-based); pair = index / 2.
    pub index: usize,
    /// The side the player (A) had.
    pub player_side: Side,
    /// The game: start position, every move (opening included), final position.
    pub game: Game,
    /// Plies of the opening at the start of `game.moves()`.
    pub opening_plies: usize,
    /// How it ended.
    pub end: GameEnd,
    /// The player's score: 1, ½ or 0.
    pub score: f64,
}

impl GameRecord {
    /// The pair this game belongs to.
    pub fn pair(&self) -> usize {
        self.index / 2
    }

    /// The winner, `None` for a draw.
    pub fn winner(&self) -> Option<Side> {
        if self.score > 0.75 {
            Some(self.player_side)
        } else if self.score < 0.25 {
            Some(self.player_side.opponent())
        } else {
            None
        }
    }

    /// The game as `oware replay` reads it: `FEN;moves`.
    pub fn replay_line(&self) -> String {
        format!("{};{}", self.game.start(), self.game.move_text())
    }

    /// The result as JSON (for the `#` line above each game in record files).
    pub fn result_json(&self, player: &str, opponent: &str) -> serde_json::Value {
        let (south, north) = match self.player_side {
            Side::South => (player, opponent),
            Side::North => (opponent, player),
        };
        let winner = match self.winner() {
            Some(Side::South) => "S",
            Some(Side::North) => "N",
            None => "draw",
        };
        let mut v = serde_json::json!({
            "game": self.index,
            "pair": self.pair(),
            "south": south,
            "north": north,
            "opening_plies": self.opening_plies,
            "winner": winner,
        });
        match &self.end {
            GameEnd::Rules { outcome } => {
                v["reason"] = outcome.reason.name().into();
                // Whole seeds as integers; halves appear only with "split evenly".
                let st = outcome.stores().map(|x| {
                    if x.fract() == 0.0 {
                        serde_json::json!(x as i64)
                    } else {
                        serde_json::json!(x)
                    }
                });
                v["stores"] = serde_json::json!(st);
            }
            GameEnd::Forfeit { loser, reason } => {
                v["reason"] = "forfeit".into();
                v["forfeit"] =
                    serde_json::json!({"loser": loser.letter().to_string(), "why": reason});
            }
            GameEnd::PlyLimit => v["reason"] = "ply-limit".into(),
        }
        v
    }
}

/// What a match produced.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// The player's name (A: the point of view of every figure).
    pub player: String,
    /// The opponent's name.
    pub opponent: String,
    /// Statistics from the player's view.
    pub summary: Summary,
    /// Every finished game, by index.
    pub games: Vec<GameRecord>,
    /// Whether the SPRT stopped the match before `games`.
    pub stopped_early: bool,
    /// Leaf evaluations made by the MCTS players.
    pub evaluations: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl MatchReport {
    /// The game records file, one game per line: `FEN;moves # {json result}` (`oware
    /// replay` reads the game and takes the `#` part as a comment).
    pub fn records_text(&self) -> String {
        let mut s = String::new();
        for g in &self.games {
            s += &format!(
                "{} # {}\n",
                g.replay_line(),
                g.result_json(&self.player, &self.opponent)
            );
        }
        s
    }

    /// The report as one JSON object (what `oware eval --json` prints): at least
    /// `games`, `wins`, `draws`, `losses`, `score`, `elo`, `elo_ci95` `[low, high]`,
    /// `los`, `pentanomial`, and `sprt` when one ran.
    pub fn json(&self) -> serde_json::Value {
        let r = self;
        let s = &r.summary;
        let mut v = serde_json::json!({
            "player": r.player,
            "opponent": r.opponent,
            "games": s.games,
            "wins": s.wins,
            "draws": s.draws,
            "losses": s.losses,
            "score": s.score,
            "elo": s.elo,
            "elo_clamped": s.elo_clamped,
            "elo_ci95": s.elo_ci95,
            "ci_model": s.ci_model,
            "elo_ci95_trinomial": s.elo_ci95_trinomial,
            "los": s.los,
            "pentanomial": {
                "LL": s.pentanomial[0], "LD": s.pentanomial[1], "DD_WL": s.pentanomial[2],
                "WD": s.pentanomial[3], "WW": s.pentanomial[4],
            },
            "stopped_early": r.stopped_early,
            "forfeits": r.forfeits().iter().map(|(g, side, why)| {
                serde_json::json!({"game": g, "side": side.letter().to_string(), "reason": why})
            }).collect::<Vec<_>>(),
            "evaluations": r.evaluations,
            "seconds": r.seconds,
        });
        if let Some(t) = &s.sprt {
            v["sprt"] = serde_json::json!({
                "elo0": t.config.elo0, "elo1": t.config.elo1,
                "alpha": t.config.alpha, "beta": t.config.beta,
                "llr": t.llr, "bounds": t.bounds, "decision": t.decision,
                "model": t.model, "games": t.games,
            });
        }
        v
    }

    /// The games forfeited, with reasons (for reports).
    pub fn forfeits(&self) -> Vec<(usize, Side, String)> {
        self.games
            .iter()
            .filter_map(|g| match &g.end {
                GameEnd::Forfeit { loser, reason } => Some((g.index, *loser, reason.clone())),
                _ => None,
            })
            .collect()
    }
}

/// Progress so far, passed to the callback after every finished game.
#[derive(Clone, Debug)]
pub struct MatchProgress {
    /// Games finished.
    pub finished: usize,
    /// Games planned.
    pub planned: usize,
    /// Results so far, from the player's view.
    pub wdl: Wdl,
    /// Seconds since the start.
    pub seconds: f64,
}

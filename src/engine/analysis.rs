//! Game review, as a coach would give it: for each move the search's best move, the
//! value before and after (mover's view), the value lost and a grade.
//!
//! Values are in [−1, 1] from the mover's view (P(win) − P(loss)), so a move loses
//! between 0 and 2. Where they come from:
//!
//! - before move i: the MCTS root value of position i;
//! - after move i: minus the root value of position i + 1 (the opponent's view turned
//!   round; the value itself if the same player moves again, as `ouril` allows), or the
//!   exact result when the move ends the game;
//! - the best move's value: its Q in the search of position i;
//! - alpha-beta, searched to a fixed depth on every position, overrides these with exact
//!   values where it proves a forced win or loss (±1): network noise can blur a 0.3
//!   difference, never a proof.
//!
//! - endgame tables, when given, override both where they prove the position's result
//!   given the game's history (an exact entry with no history, or a search that carries
//!   the history, see `tablebase::prove`): the result with best play (won +1, drawn 0,
//!   lost −1) is exact, and is named in the review ("won with best play"). A position
//!   whose value a repetition may decide and which that search cannot finish is left to
//!   the other two.
//!
//! Value lost = max(0, value of the best move − value after the played move); the
//! search's own best move loses 0 unless a proof says otherwise. Grades by value lost:
//!
//! | grade | value lost |
//! |---|---|
//! | best | the search's best move, or ≤ 0.02 (then a tie: "best (tie with C)", `tie` in JSON) |
//! | excellent | ≤ 0.05 |
//! | good | ≤ 0.10 |
//! | inaccuracy | ≤ 0.20 |
//! | mistake | < 0.50 |
//! | blunder | ≥ 0.50, or a proven win thrown away, or a move that hands the opponent a proven win that was not there before |

use std::sync::Arc;

use serde::Serialize;

use super::mcts::line_letters;
use crate::game::{Game, Side, move_letter};
use crate::search::alphabeta::AlphaBeta;
use crate::search::mcts::{BatchSearch, MctsConfig};
use crate::search::{Evaluator, Limits};
use crate::tablebase::Tablebase;
use crate::tablebase::prove::Prover;

/// How good a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grade {
    /// The search's choice, or as good.
    Best,
    /// Value lost ≤ 0.05.
    Excellent,
    /// Value lost ≤ 0.10.
    Good,
    /// Value lost ≤ 0.20.
    Inaccuracy,
    /// Value lost < 0.50.
    Mistake,
    /// Value lost ≥ 0.50, or a proven result thrown away.
    Blunder,
}

impl Grade {
    /// The grade of a move that loses `loss` (in [0, 2]) by the module's table.
    pub fn from_loss(loss: f32) -> Grade {
        match loss {
            l if l <= 0.02 => Grade::Best,
            l if l <= 0.05 => Grade::Excellent,
            l if l <= 0.10 => Grade::Good,
            l if l <= 0.20 => Grade::Inaccuracy,
            l if l < 0.50 => Grade::Mistake,
            _ => Grade::Blunder,
        }
    }

    /// The grade's name.
    pub fn name(self) -> &'static str {
        match self {
            Grade::Best => "best",
            Grade::Excellent => "excellent",
            Grade::Good => "good",
            Grade::Inaccuracy => "inaccuracy",
            Grade::Mistake => "mistake",
            Grade::Blunder => "blunder",
        }
    }
}

/// Review settings.
#[derive(Clone, Debug)]
pub struct ReviewConfig {
    /// MCTS simulations per position.
    pub simulations: u32,
    /// Alpha-beta depth (plies) for the exact part; 0 turns it off.
    pub exact_depth: u32,
    /// Alpha-beta node cap per position (keeps long endgames quick).
    pub exact_nodes: u64,
    /// Endgame tables: exact results wherever they cover a position.
    pub tablebase: Option<Arc<Tablebase>>,
    /// The search settings the model was trained with (its manifest's): their PUCT
    /// constants are used ([`MctsConfig::anytime`]).
    pub trained: MctsConfig,
}

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig {
            simulations: 800,
            exact_depth: 12,
            exact_nodes: 2_000_000,
            tablebase: None,
            trained: MctsConfig::default(),
        }
    }
}

/// The review of one move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveReview {
    /// 1-based ply number.
    pub ply: usize,
    /// Who moved: `S` or `N`.
    pub side: char,
    /// The move played (letter).
    pub played: char,
    /// The search's best move (letter).
    pub best: char,
    /// The search's principal variation from the position before the move.
    pub pv: String,
    /// Value before the move, mover's view, [−1, 1].
    pub value_before: f32,
    /// Value after the move, mover's view, [−1, 1].
    pub value_after: f32,
    /// Value of the best move, mover's view.
    pub value_best: f32,
    /// Value lost, [0, 2].
    pub loss: f32,
    /// The grade.
    pub grade: Grade,
    /// Graded best although the search preferred `best`: the two are as good (within 0.02).
    pub tie: bool,
    /// What alpha-beta proved about the position before the move, if anything: `win` or
    /// `loss` for the mover.
    pub proof_before: Option<&'static str>,
    /// What alpha-beta proved after the move, mover's view.
    pub proof_after: Option<&'static str>,
    /// The mover's result with best play before the move, from the endgame tables:
    /// `won`, `drawn` or `lost`.
    pub table_before: Option<&'static str>,
    /// The same after the move (mover's view).
    pub table_after: Option<&'static str>,
}

/// Nodes the search behind the tables may take per position where no entry proves it.
const TABLE_NODES: u64 = 200_000;

/// What the search (and alpha-beta) say about one position of the game.
struct PositionEval {
    value: f32,
    best: usize,
    q_best: f32,
    pv: String,
    /// +1 / −1 for a proven win / loss of the side to move (0: a draw the tables prove).
    proof: Option<f32>,
    /// The tables' result with best play for the side to move.
    table: Option<f32>,
}

fn proof_name(v: Option<f32>) -> Option<&'static str> {
    v.map(|v| {
        if v > 0.0 {
            "win"
        } else if v < 0.0 {
            "loss"
        } else {
            "draw"
        }
    })
}

fn table_name(v: Option<f32>) -> Option<&'static str> {
    v.map(|v| {
        if v > 0.0 {
            "won"
        } else if v < 0.0 {
            "lost"
        } else {
            "drawn"
        }
    })
}

/// Reviews every move of `game` (its start and moves) with MCTS over `evaluator`.
/// Returns one review per move, in order.
pub fn review(game: &Game, evaluator: &mut dyn Evaluator, cfg: &ReviewConfig) -> Vec<MoveReview> {
    let rules = game.rules();
    let mcts = cfg.trained.anytime(cfg.simulations.max(1), false);
    let mut search = BatchSearch::new(mcts, rules, 1, 0x5eed);
    search.set_tablebase(cfg.tablebase.clone());
    let mut ab = AlphaBeta::new(rules, 16);
    ab.set_tablebase(cfg.tablebase.clone());
    let tb = cfg.tablebase.as_deref().filter(|t| t.rules() == rules);
    let mut replay = Game::new(rules, *game.start());
    let mut evals = Vec::with_capacity(game.moves().len() + 1);
    let mut at = |g: &Game| -> Option<PositionEval> {
        if g.is_over() {
            return None;
        }
        search.set_game(0, g.clone());
        search.begin(0, cfg.simulations.max(1), false);
        search.run(evaluator);
        let r = search.result(0);
        let pv = line_letters(g.position(), rules, search.principal_variation(0, 8));
        let proof = (cfg.exact_depth > 0)
            .then(|| {
                let limits = Limits {
                    depth: Some(cfg.exact_depth.min(crate::search::alphabeta::MAX_DEPTH)),
                    nodes: Some(cfg.exact_nodes),
                    movetime: None,
                    soft: None,
                };
                let a = ab.search(g, &limits);
                a.is_decided().then(|| a.score_cp.signum() as f32)
            })
            .flatten();
        // Proven outcomes only, given the game's history: an entry a repetition may
        // decide is searched from the history, and left out if the search gives up.
        let table = tb
            .and_then(|t| Prover::new(t, TABLE_NODES).game(g))
            .and_then(|v| v.outcome)
            .map(|o| o.score() as f32);
        Some(PositionEval {
            value: r.value,
            best: r.best,
            q_best: r.q[r.best].unwrap_or(r.value),
            pv,
            proof: table.or(proof),
            table,
        })
    };
    evals.push(at(&replay));
    for &(_, a) in game.moves() {
        // The game was built by legal play, so replaying it cannot fail.
        if replay.play(a as usize).is_err() {
            break;
        }
        evals.push(at(&replay));
    }

    let mut out = Vec::with_capacity(game.moves().len());
    let mut replay = Game::new(rules, *game.start());
    for (i, &(side, a)) in game.moves().iter().enumerate() {
        let Some(before) = &evals[i] else { break };
        if replay.play(a as usize).is_err() {
            break;
        }
        // After the move, from the mover's view: the exact result if the game ended,
        // else the next position's values turned round.
        let (value_after, proof_after, table_after) = match &evals[i + 1] {
            None => {
                let o = replay.outcome().map_or(0, |o| o.score_for(side)) as f32;
                (o, Some(o).filter(|v| *v != 0.0), None)
            }
            Some(next) => {
                // Usually the opponent moves next; under `ouril` a player whose opponent
                // cannot move moves again, and the values keep their sign.
                let sign = if replay.position().side == side {
                    1.0
                } else {
                    -1.0
                };
                let p = next.proof.map(|v| sign * v);
                (
                    p.unwrap_or(sign * next.value),
                    p,
                    next.table.map(|v| sign * v),
                )
            }
        };
        let value_before = before.proof.unwrap_or(before.value);
        let value_best = before.proof.unwrap_or(before.q_best);
        let played_best = a as usize == before.best;
        let threw_away_win = before.proof == Some(1.0) && proof_after != Some(1.0);
        let handed_over = before.proof != Some(-1.0) && proof_after == Some(-1.0);
        // Two separate searches disagree a little even on the best move, so the search's
        // own choice loses nothing unless a proof says otherwise.
        let proven = before.proof.is_some() || proof_after.is_some();
        let mut loss = if played_best && !proven {
            0.0
        } else {
            (value_best - value_after).max(0.0)
        };
        let mut grade = if played_best && loss <= 0.02 {
            Grade::Best
        } else {
            Grade::from_loss(loss)
        };
        if threw_away_win || handed_over {
            grade = Grade::Blunder;
            loss = loss.max(0.5);
        }
        out.push(MoveReview {
            ply: i + 1,
            side: side.letter(),
            played: move_letter(side, a as usize),
            best: move_letter(side, before.best),
            pv: before.pv.clone(),
            value_before,
            value_after,
            value_best,
            loss: loss.min(2.0),
            grade,
            tie: grade == Grade::Best && !played_best,
            proof_before: proof_name(before.proof),
            proof_after: proof_name(proof_after),
            table_before: table_name(before.table),
            table_after: table_name(table_after),
        });
    }
    out
}

/// The grade as the text review shows it: a best move that is not the search's choice
/// says it ties with it, so "best" never sits beside another best move unexplained.
fn grade_text(r: &MoveReview) -> String {
    if r.tie {
        format!("best (tie with {})", r.best)
    } else {
        r.grade.name().to_string()
    }
}

/// A review as text: one line per move, then the count of each grade per side.
pub fn review_text(reviews: &[MoveReview]) -> String {
    let mut s = String::from("ply  move  best  before   after    lost  grade              pv\n");
    for r in reviews {
        let proof = match (r.table_before, r.table_after, r.proof_before, r.proof_after) {
            (Some(b), Some(a), _, _) if a == b => format!("  [{b} with best play]"),
            (Some(b), Some(a), _, _) => format!("  [{b} → {a} with best play]"),
            (Some(b), None, _, _) => format!("  [{b} with best play before]"),
            (None, _, Some(b), Some(a)) => format!("  [proof: {b} → {a}]"),
            (None, _, Some(b), None) => format!("  [proof before: {b}]"),
            (None, _, None, Some(a)) => format!("  [proof after: {a}]"),
            (None, _, None, None) => String::new(),
        };
        s.push_str(&format!(
            "{:>3}  {:>4}  {:>4}  {:>+6.3}  {:>+6.3}  {:>6.3}  {:<17}  {}{}\n",
            r.ply,
            r.played,
            r.best,
            r.value_before,
            r.value_after,
            r.loss,
            grade_text(r),
            r.pv,
            proof
        ));
    }
    for side in [Side::South, Side::North] {
        let mine: Vec<_> = reviews.iter().filter(|r| r.side == side.letter()).collect();
        if mine.is_empty() {
            continue;
        }
        let counts: Vec<String> = [
            Grade::Best,
            Grade::Excellent,
            Grade::Good,
            Grade::Inaccuracy,
            Grade::Mistake,
            Grade::Blunder,
        ]
        .iter()
        .map(|g| {
            format!(
                "{} {}",
                mine.iter().filter(|r| r.grade == *g).count(),
                g.name()
            )
        })
        .collect();
        s.push_str(&format!("{side}: {}\n", counts.join(", ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Position, RuleSet};
    use crate::search::UniformEvaluator;

    #[test]
    fn thresholds() {
        assert_eq!(Grade::from_loss(0.0), Grade::Best);
        assert_eq!(Grade::from_loss(0.04), Grade::Excellent);
        assert_eq!(Grade::from_loss(0.1), Grade::Good);
        assert_eq!(Grade::from_loss(0.15), Grade::Inaccuracy);
        assert_eq!(Grade::from_loss(0.49), Grade::Mistake);
        assert_eq!(Grade::from_loss(0.5), Grade::Blunder);
        assert_eq!(Grade::from_loss(2.0), Grade::Blunder);
    }

    fn reviewed(fen: &str, moves: &str) -> Vec<MoveReview> {
        let mut g = Game::new(RuleSet::abapa(), fen.parse::<Position>().unwrap());
        g.play_text(moves).unwrap();
        let cfg = ReviewConfig {
            simulations: 200,
            ..ReviewConfig::default()
        };
        review(&g, &mut UniformEvaluator, &cfg)
    }

    #[test]
    fn handing_over_a_winning_capture_is_a_blunder() {
        // After A, North's c captures 10 and reaches 25; other South moves keep the game.
        let r = reviewed("1-1-1-1-2-3-1-1-8-0-0-0-14-15-S", "Ac");
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].grade, Grade::Blunder, "{r:?}");
        assert_eq!(r[0].value_after, -1.0);
        assert_eq!(r[0].proof_after, Some("loss"));
        assert_ne!(r[0].best, 'A');
        assert_eq!(r[1].grade, Grade::Best, "{r:?}");
        assert_eq!(r[1].value_after, 1.0);
        assert!(review_text(&r).contains("blunder"));
    }

    #[test]
    fn throwing_away_a_forced_win_is_a_blunder() {
        // docs/rules.md example 4: C wins at once; F does not.
        let r = reviewed("0-0-8-0-0-1-1-1-1-1-2-3-15-15-S", "F");
        assert_eq!(r[0].grade, Grade::Blunder, "{r:?}");
        assert_eq!(r[0].best, 'C');
        assert_eq!(r[0].proof_before, Some("win"));
        let r = reviewed("0-0-8-0-0-1-1-1-1-1-2-3-15-15-S", "C");
        assert_eq!(r[0].grade, Grade::Best, "{r:?}");
    }
}

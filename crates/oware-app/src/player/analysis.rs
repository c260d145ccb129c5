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
//! The best move is the search's, unless a proof names the moves that keep the proven
//! result (the tables' moves, alpha-beta's winning move) and the search's is not one of
//! them. Value lost: 0 for the best move, 0 for a move that keeps a proven result (a
//! win stays a win, a draw a draw or better; in a lost position every move keeps the
//! loss), else max(0, value of the best move − value after the played move). So a
//! proof the fixed-depth search finds before a move and not again after it costs the
//! move nothing unless the value after it falls; a proven win thrown away for a proven
//! draw or loss loses 1 or 2. Grades by value lost:
//!
//! | grade | value lost |
//! |---|---|
//! | best | the best move, a move that keeps a proven result, or ≤ 0.02 (then a tie: "best (tie with C)", `tie` in JSON) |
//! | excellent | ≤ 0.05 |
//! | good | ≤ 0.10 |
//! | inaccuracy | ≤ 0.20 |
//! | mistake | < 0.50 |
//! | blunder | ≥ 0.50 (a proven result thrown away loses at least 1) |
//!
//! [`ReviewConfig::default`] is the one set of settings `oware analyze` and the HTTP
//! API's `analyze` both use, and [`review_json`] the one answer both print.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use super::mcts::line_letters;
use oware_core::game::{EndReason, Game, Outcome, RuleSet, Side, move_letter};
use oware_core::search::alphabeta::AlphaBeta;
use oware_core::search::mcts::{MctsConfig, SearchedGames};
use oware_core::search::{Evaluator, Limits};
use oware_core::tablebase::Tablebase;
use oware_core::tablebase::prove::Prover;

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

/// Simulations per position when none are given, in `oware analyze` and the API.
pub const DEFAULT_SIMULATIONS: u32 = 400;
/// Alpha-beta depth of the proofs when none is given.
pub const DEFAULT_EXACT_DEPTH: u32 = 12;
/// Alpha-beta node cap per position.
pub const DEFAULT_EXACT_NODES: u64 = 1_000_000;

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig {
            simulations: DEFAULT_SIMULATIONS,
            exact_depth: DEFAULT_EXACT_DEPTH,
            exact_nodes: DEFAULT_EXACT_NODES,
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
    /// The move played (letter); `move` in JSON.
    #[serde(rename = "move")]
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

/// What the search, alpha-beta and the tables say about one position of the game.
struct PositionEval {
    /// The search's root value, mover's view.
    value: f32,
    /// The search's most visited move.
    search_best: usize,
    /// The search's value of each move (`None`: unvisited or illegal).
    q: [Option<f32>; 6],
    pv: String,
    /// The mover's proven result: +1 win, −1 loss, 0 a draw (the tables only).
    proof: Option<f32>,
    /// Moves proven to keep `proof`: the tables' (every move with the proven result),
    /// or alpha-beta's winning move; 0 where nothing is proven or alpha-beta proves a
    /// loss (every move keeps that).
    keep: u8,
    /// The tables' result with best play for the side to move.
    table: Option<f32>,
}

impl PositionEval {
    /// The move the review holds up as best: the search's, unless a proof names the
    /// moves that keep the proven result and the search's is not one of them; then the
    /// keeping move the search valued most.
    fn best(&self) -> usize {
        if self.keep == 0 || self.keep & (1 << self.search_best) != 0 {
            return self.search_best;
        }
        let q = |a: usize| self.q[a].unwrap_or(f32::NEG_INFINITY);
        (0..6)
            .filter(|&a| self.keep & (1 << a) != 0)
            .max_by(|&a, &b| q(a).total_cmp(&q(b)))
            .unwrap_or(self.search_best)
    }

    /// The value of the best move, mover's view: the proven result where there is one.
    fn value_best(&self) -> f32 {
        self.proof
            .unwrap_or_else(|| self.q[self.best()].unwrap_or(self.value))
    }
}

/// The value lost by playing `played` from `before`, reaching a position worth
/// `value_after` to the mover (its proven result where `proof_after` holds one), and
/// the grade. The module's rules: the best move loses nothing; a move that keeps a
/// proven result loses nothing; any other loses what its value falls short of the best
/// move's (so a proven result thrown away loses at least 1, a blunder).
fn judge(
    before: &PositionEval,
    played: usize,
    value_after: f32,
    proof_after: Option<f32>,
) -> (f32, Grade) {
    let kept = matches!((before.proof, proof_after), (Some(b), Some(a)) if a >= b);
    if played == before.best() || kept {
        return (0.0, Grade::Best);
    }
    let loss = (before.value_best() - value_after).clamp(0.0, 2.0);
    (loss, Grade::from_loss(loss))
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

/// The searches a review runs on each position, built once per review.
struct Reviewer<'a> {
    cfg: &'a ReviewConfig,
    search: SearchedGames,
    ab: AlphaBeta,
    tb: Option<&'a Tablebase>,
}

impl<'a> Reviewer<'a> {
    fn new(rules: RuleSet, cfg: &'a ReviewConfig) -> Self {
        let mcts = cfg.trained.anytime(cfg.simulations.max(1), false);
        let mut search = SearchedGames::new(mcts, rules, 1, 0x5eed);
        search.set_tablebase(cfg.tablebase.clone());
        let mut ab = AlphaBeta::new(rules, 16);
        ab.set_tablebase(cfg.tablebase.clone());
        let tb = cfg.tablebase.as_deref().filter(|t| t.rules() == rules);
        Reviewer {
            cfg,
            search,
            ab,
            tb,
        }
    }

    /// What is known of `g`'s position (`None` once the game is over).
    fn position(&mut self, g: &Game, evaluator: &mut dyn Evaluator) -> Option<PositionEval> {
        if g.is_over() {
            return None;
        }
        let cfg = self.cfg;
        let rules = g.rules();
        self.search.set_game(0, g.clone());
        self.search.begin(0, cfg.simulations.max(1), false);
        self.search.run(evaluator);
        let r = self.search.result(0);
        let pv = line_letters(g.position(), rules, self.search.principal_variation(0, 8));
        let mut eval = PositionEval {
            value: r.value,
            search_best: r.best,
            q: r.q,
            pv,
            proof: None,
            keep: 0,
            table: None,
        };
        if cfg.exact_depth > 0 {
            let limits = Limits {
                depth: Some(
                    cfg.exact_depth
                        .min(oware_core::search::alphabeta::MAX_DEPTH),
                ),
                nodes: Some(cfg.exact_nodes),
                movetime: None,
                soft: None,
            };
            let a = self.ab.search(g, &limits);
            if a.is_decided() {
                let v = a.score_cp.signum() as f32;
                eval.proof = Some(v);
                if v > 0.0 {
                    eval.keep = a.best_move.map_or(0, |m| 1 << m);
                }
            }
        }
        // Proven outcomes only, given the game's history: an entry a repetition may
        // decide is searched from the history, and left out if the search gives up.
        let verdict = self.tb.and_then(|t| Prover::new(t, TABLE_NODES).game(g));
        if let Some((o, keep)) = verdict.and_then(|v| Some((v.outcome?, v.keep))) {
            eval.table = Some(o.score() as f32);
            eval.proof = eval.table;
            eval.keep = keep;
        }
        Some(eval)
    }
}

/// Reviews every move of `game` (its start and moves) with MCTS over `evaluator`.
/// Returns one review per move, in order.
pub fn review(game: &Game, evaluator: &mut dyn Evaluator, cfg: &ReviewConfig) -> Vec<MoveReview> {
    let rules = game.rules();
    let mut reviewer = Reviewer::new(rules, cfg);
    let mut replay = Game::new(rules, *game.start());
    let mut evals = Vec::with_capacity(game.moves().len() + 1);
    evals.push(reviewer.position(&replay, evaluator));
    for &(_, a) in game.moves() {
        // The game was built by legal play, so replaying it cannot fail.
        if replay.play(a as usize).is_err() {
            break;
        }
        evals.push(reviewer.position(&replay, evaluator));
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
                (o, Some(o), None)
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
        let best = before.best();
        let (loss, grade) = judge(before, a as usize, value_after, proof_after);
        out.push(MoveReview {
            ply: i + 1,
            side: side.letter(),
            played: move_letter(side, a as usize),
            best: move_letter(side, best),
            pv: before.pv.clone(),
            value_before: before.proof.unwrap_or(before.value),
            value_after,
            value_best: before.value_best(),
            loss,
            grade,
            tie: grade == Grade::Best && a as usize != best,
            proof_before: proof_name(before.proof),
            proof_after: proof_name(proof_after),
            table_before: table_name(before.table),
            table_after: table_name(table_after),
        });
    }
    out
}

fn reason_words(r: EndReason) -> &'static str {
    match r {
        EndReason::Threshold => "a store holds more than half the seeds",
        EndReason::EvenSplit => "each store holds half the seeds",
        EndReason::CannotFeed => "the player to move cannot give the opponent seeds",
        EndReason::NoSeeds => "the player to move has no seeds",
        EndReason::OnlyGrandSlams => "every legal move would be a grand slam",
        EndReason::Repetition => "the position repeated",
    }
}

/// The result of a finished game as JSON, with a sentence.
pub fn result_json(o: &Outcome) -> Value {
    let st = o.stores();
    let who = match o.winner() {
        Some(Side::South) => "South wins".to_string(),
        Some(Side::North) => "North wins".to_string(),
        None => "Draw".to_string(),
    };
    json!({
        "winner": o.winner_text(),
        "reason": o.reason.name(),
        "stores": st,
        "text": format!("{who} {} – {}: {}.", st[0], st[1], reason_words(o.reason)),
    })
}

/// The review as JSON: the one answer `oware analyze --json` prints and the HTTP API's
/// `analyze` returns (docs/http-api.md).
pub fn review_json(game: &Game, cfg: &ReviewConfig, reviews: &[MoveReview]) -> Value {
    let rules = game.rules();
    json!({
        "rules": rules.name(),
        "start": game.start().to_string(),
        "moves": game.move_text(),
        "simulations": cfg.simulations,
        "exact_depth": cfg.exact_depth,
        "exact_nodes": cfg.exact_nodes,
        "tablebase_seeds": cfg.tablebase.as_ref().filter(|t| t.rules() == rules).map(|t| t.max_seeds()),
        "plies": reviews,
        "final": game.position().to_string(),
        "result": game.outcome().map(|o| result_json(&o)),
    })
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
    use oware_core::game::{Position, RuleSet};
    use oware_core::search::UniformEvaluator;

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

    /// A position as the review sees it: the search's best move and values, and what
    /// is proven.
    fn seen(search_best: usize, q: [f32; 6], proof: Option<f32>, keep: u8) -> PositionEval {
        PositionEval {
            value: q[search_best],
            search_best,
            q: q.map(Some),
            pv: String::new(),
            proof,
            keep,
            table: None,
        }
    }

    #[test]
    fn the_best_move_and_a_move_that_keeps_a_proof_lose_nothing() {
        let q = [0.9, 0.2, -0.5, 0.88, 0.1, 0.0];
        // Nothing proven: the search's own choice is best whatever the search after it
        // says (two searches disagree a little); another move loses what it falls short.
        let p = seen(0, q, None, 0);
        assert_eq!(judge(&p, 0, 0.3, None), (0.0, Grade::Best));
        let (loss, grade) = judge(&p, 2, -0.5, None);
        assert!((loss - 1.4).abs() < 1e-6 && grade == Grade::Blunder);
        // A win proven before the move and not found again after it (the horizon):
        // the value after decides, so a move the search still rates +0.994 is best.
        let p = seen(3, q, Some(1.0), 1 << 3);
        assert_eq!(judge(&p, 3, 0.2, None), (0.0, Grade::Best));
        let (loss, grade) = judge(&p, 0, 0.994, None);
        assert!(loss < 0.01 && grade == Grade::Best, "{loss}");
        // A move that keeps the proven win loses nothing, even if another was faster.
        assert_eq!(judge(&p, 1, 1.0, Some(1.0)), (0.0, Grade::Best));
        // A proven win thrown away for a proven draw or loss is a blunder.
        assert_eq!(judge(&p, 1, 0.0, Some(0.0)), (1.0, Grade::Blunder));
        assert_eq!(judge(&p, 1, -1.0, Some(-1.0)), (2.0, Grade::Blunder));
        // In a position already proven lost every move keeps the loss.
        let p = seen(0, q, Some(-1.0), 0);
        for (after, proof) in [(-1.0, Some(-1.0)), (-0.3, None), (0.5, None)] {
            assert_eq!(judge(&p, 4, after, proof), (0.0, Grade::Best));
        }
    }

    #[test]
    fn a_proof_names_the_best_move_when_the_search_missed_it() {
        let q = [0.9, 0.2, -0.5, 0.88, 0.1, 0.7];
        // The tables keep the win with D or F only: the search's A is not best, and of
        // the two the one the search valued more is named.
        let p = seen(0, q, Some(1.0), (1 << 3) | (1 << 5));
        assert_eq!(p.best(), 3);
        assert_eq!(p.value_best(), 1.0);
        let (loss, grade) = judge(&p, 0, 0.0, Some(0.0));
        assert_eq!((loss, grade), (1.0, Grade::Blunder));
        // The search's move among the keepers stays best.
        assert_eq!(seen(5, q, Some(1.0), (1 << 3) | (1 << 5)).best(), 5);
        // A proven loss names no move: the search's stays.
        assert_eq!(seen(0, q, Some(-1.0), 0).best(), 0);
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

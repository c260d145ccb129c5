//! Perfect-play accuracy: a player's moves judged by the endgame tables.
//!
//! A suite is a list of game positions the tables cover, each with the game that led
//! there (so a player sees the history, as in a real game). For each, the player's move
//! is compared with the table's values of every legal move:
//! - `outcome_accuracy`: the share of moves that keep the best outcome (win, draw or
//!   loss given the stores);
//! - `margin_accuracy`: the share that keep the best margin of future captures;
//! - `mean_margin_lost`: the mean of (best margin − the move's margin), in seeds;
//! - the same outcome share over the *critical* positions only: those where some legal
//!   move would change the outcome (elsewhere every move is equally right).
//!
//! Only *proven* positions count: those where every legal move's value is exact in the
//! tables (no repetition score enters it). Under the own-row repetition rules an inexact
//! value is the repetition score of a board, a guess about the history, and a move
//! judged by it may be right or wrong; such positions are left out and counted.
//!
//! A suite comes from real self-play games (the training recipe, played by a network),
//! not from uniform random boards, which real games rarely reach.

use serde::Serialize;

use super::{MatchConfig, MatchError, Player, choose_moves};
use oware_core::game::{Game, Position, RuleSet};
use oware_core::rng::Rng;
use oware_core::tablebase::{Tablebase, TbOutcome};

/// The figures of one accuracy measurement.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AccuracyReport {
    /// The player measured.
    pub player: String,
    /// Positions judged (proven ones).
    pub positions: usize,
    /// Positions of the suite left out: some move's value is not proven.
    pub unproven: usize,
    /// Share of moves keeping the best outcome.
    pub outcome_accuracy: f64,
    /// Share of moves keeping the best margin.
    pub margin_accuracy: f64,
    /// Mean margin lost per move, seeds.
    pub mean_margin_lost: f64,
    /// Positions where some legal move changes the outcome.
    pub critical_positions: usize,
    /// Share of those where the move kept the best outcome.
    pub critical_outcome_accuracy: f64,
    /// Wall-clock seconds to choose the moves.
    pub seconds: f64,
}

/// The table's judgement of one position: each legal move's margin and outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judged {
    /// Margin of each legal move (`None`: illegal).
    pub margins: [Option<i32>; 6],
    /// Outcome of each legal move given the stores.
    pub outcomes: [Option<TbOutcome>; 6],
    /// Every legal move's value is proven (see [`Tablebase::move_proven`]).
    pub proven: bool,
}

impl Judged {
    /// Judges `pos` with `tb`; `None` if the table does not cover it or the game is over.
    pub fn new(tb: &Tablebase, pos: &Position) -> Option<Judged> {
        let margins = tb.move_values(pos)?;
        if margins.iter().all(Option::is_none) {
            return None;
        }
        let exact = tb.move_proven(pos)?;
        let proven = (0..6).all(|a| margins[a].is_none() || exact[a]);
        let me = pos.side.index();
        let diff = pos.stores[me] as i32 - pos.stores[1 - me] as i32;
        let outcomes = margins.map(|m| {
            m.map(|m| match (diff + m).signum() {
                1 => TbOutcome::Win,
                0 => TbOutcome::Draw,
                _ => TbOutcome::Loss,
            })
        });
        Some(Judged {
            margins,
            outcomes,
            proven,
        })
    }

    /// The best margin.
    pub fn best_margin(&self) -> i32 {
        self.margins.iter().flatten().copied().max().unwrap_or(0)
    }

    /// The best outcome's score (+1, 0, −1).
    pub fn best_outcome(&self) -> i32 {
        self.outcomes
            .iter()
            .flatten()
            .map(|o| o.score())
            .max()
            .unwrap_or(0)
    }

    /// Whether some legal move gives a worse outcome than the best.
    pub fn critical(&self) -> bool {
        let best = self.best_outcome();
        self.outcomes.iter().flatten().any(|o| o.score() < best)
    }
}

/// Scores the moves `chosen` (one per position of `suite`) with the tables.
pub fn score_moves(tb: &Tablebase, suite: &[Game], chosen: &[usize]) -> AccuracyReport {
    let mut r = AccuracyReport::default();
    let (mut keep_outcome, mut keep_margin, mut lost, mut crit_keep) =
        (0usize, 0usize, 0i64, 0usize);
    for (g, &a) in suite.iter().zip(chosen) {
        let Some(j) = Judged::new(tb, g.position()) else {
            continue;
        };
        if !j.proven {
            r.unproven += 1;
            continue;
        }
        let Some(m) = j.margins.get(a).copied().flatten() else {
            continue; // an illegal move is impossible here: the match checked it
        };
        let o = j.outcomes[a].expect("legal").score();
        r.positions += 1;
        let ok = o == j.best_outcome();
        keep_outcome += ok as usize;
        keep_margin += (m == j.best_margin()) as usize;
        lost += (j.best_margin() - m) as i64;
        if j.critical() {
            r.critical_positions += 1;
            crit_keep += ok as usize;
        }
    }
    let share = |x: usize, of: usize| if of == 0 { 0.0 } else { x as f64 / of as f64 };
    r.outcome_accuracy = share(keep_outcome, r.positions);
    r.margin_accuracy = share(keep_margin, r.positions);
    r.mean_margin_lost = if r.positions == 0 {
        0.0
    } else {
        lost as f64 / r.positions as f64
    };
    r.critical_outcome_accuracy = share(crit_keep, r.critical_positions);
    r
}

/// Measures `player` on the proven positions of `suite` (every position covered by
/// `tb`); the others are not played, only counted.
pub fn measure(
    cfg: &MatchConfig,
    player: &mut Player,
    tb: &Tablebase,
    suite: &[Game],
) -> Result<AccuracyReport, MatchError> {
    let t0 = std::time::Instant::now();
    let proven: Vec<Game> = suite
        .iter()
        .filter(|g| Judged::new(tb, g.position()).is_some_and(|j| j.proven))
        .cloned()
        .collect();
    let chosen = choose_moves(cfg, player, &proven)?;
    let mut r = score_moves(tb, &proven, &chosen);
    r.unproven = suite.len() - proven.len();
    r.player = player.name();
    r.seconds = t0.elapsed().as_secs_f64();
    Ok(r)
}

/// Picks up to `per_game` positions from each game (given as its start and moves), at
/// plies where the table covers the board, proves every move's value and the game goes
/// on, drawn with `seed`;
/// returns at most `limit` of them, each as the game up to that ply. Deterministic.
pub fn suite_from_games(
    tb: &Tablebase,
    rules: RuleSet,
    games: &[(Position, Vec<u8>)],
    per_game: usize,
    limit: usize,
    seed: u64,
) -> Vec<Game> {
    let mut out = Vec::with_capacity(limit);
    for (k, (start, moves)) in games.iter().enumerate() {
        if out.len() >= limit {
            break;
        }
        let mut g = Game::new(rules, *start);
        let mut covered = Vec::new();
        for (ply, &a) in moves.iter().enumerate() {
            if g.is_over() {
                break;
            }
            if Judged::new(tb, g.position()).is_some_and(|j| j.proven) {
                covered.push(ply);
            }
            if g.play(a as usize).is_err() {
                break;
            }
        }
        let mut rng = Rng::stream(seed ^ 0x5017_E000, k as u64);
        // A partial Fisher–Yates shuffle: `per_game` distinct plies.
        let take = per_game.min(covered.len());
        for i in 0..take {
            let j = i + rng.below((covered.len() - i) as u32) as usize;
            covered.swap(i, j);
        }
        let mut picked = covered[..take].to_vec();
        picked.sort_unstable();
        for ply in picked {
            if out.len() >= limit {
                break;
            }
            let mut g = Game::new(rules, *start);
            for &a in &moves[..ply] {
                let _ = g.play(a as usize);
            }
            out.push(g);
        }
    }
    out
}

/// Reads a suite: one position per line, `FEN;moves` or moves alone (the position is
/// the one after the moves), `#` comments and blank lines skipped.
pub fn parse_suite(text: &str, rules: RuleSet) -> Result<Vec<Game>, String> {
    super::parse_openings(text, rules).map(|v| {
        v.into_iter()
            .map(|o| {
                let mut g = Game::new(rules, o.start);
                for a in o.moves {
                    let _ = g.play(a as usize);
                }
                g
            })
            .collect()
    })
}

/// A suite as text, one `FEN;moves` line per position (readable by [`parse_suite`]).
pub fn suite_text(suite: &[Game]) -> String {
    let mut s = String::new();
    for g in suite {
        s.push_str(&format!("{};{}\n", g.start(), g.move_text()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::tablebase::build_in_memory;

    #[test]
    fn a_perfect_chooser_scores_one_and_a_worst_chooser_does_not() {
        let rules = RuleSet::abapa();
        let tb = build_in_memory(rules, 6);
        // Positions: every 5-seed board with South to move and some stores.
        let mut suite = Vec::new();
        for r in 0..oware_core::tablebase::index::boards_with(5) {
            let pos = Position {
                pits: oware_core::tablebase::index::unrank(5, r),
                stores: [20, 23],
                side: oware_core::game::Side::South,
            };
            if Judged::new(&tb, &pos).is_some() {
                suite.push(Game::new(rules, pos));
            }
        }
        let best: Vec<usize> = suite
            .iter()
            .map(|g| {
                let j = Judged::new(&tb, g.position()).unwrap();
                (0..6)
                    .filter(|&a| j.margins[a].is_some())
                    .max_by_key(|&a| j.margins[a])
                    .unwrap()
            })
            .collect();
        let worst: Vec<usize> = suite
            .iter()
            .map(|g| {
                let j = Judged::new(&tb, g.position()).unwrap();
                (0..6)
                    .filter(|&a| j.margins[a].is_some())
                    .min_by_key(|&a| j.margins[a])
                    .unwrap()
            })
            .collect();
        let b = score_moves(&tb, &suite, &best);
        // Unproven positions are left out and counted; under abapa some 5-seed boards
        // are unproven, and most are proven.
        let proven = suite
            .iter()
            .filter(|g| Judged::new(&tb, g.position()).unwrap().proven)
            .count();
        assert_eq!(b.positions, proven);
        assert_eq!(b.unproven, suite.len() - proven);
        assert!(b.unproven > 0 && proven > b.unproven, "{b:?}");
        assert_eq!(b.outcome_accuracy, 1.0);
        assert_eq!(b.margin_accuracy, 1.0);
        assert_eq!(b.mean_margin_lost, 0.0);
        let w = score_moves(&tb, &suite, &worst);
        assert!(w.critical_positions > 0);
        assert_eq!(w.critical_outcome_accuracy, 0.0);
        assert!(w.mean_margin_lost > 0.0);
        assert!(w.margin_accuracy < 1.0);
    }

    #[test]
    fn suites_round_trip_as_text() {
        let rules = RuleSet::abapa();
        let mut g = Game::new(rules, "0-0-5-0-0-0-1-1-0-0-0-1-20-20-S".parse().unwrap());
        g.play(2).unwrap();
        let text = suite_text(std::slice::from_ref(&g));
        let back = parse_suite(&text, rules).unwrap();
        assert_eq!(back[0].position(), g.position());
        assert_eq!(back[0].moves(), g.moves());
    }
}

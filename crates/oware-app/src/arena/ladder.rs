//! The ladder: a player (usually a model) against the alpha-beta baseline at depths
//! 1, 2, 3, … until it scores below 50%, with an Elo on a fixed scale.
//!
//! The scale: `alphabeta:depth=1` is 0; the rating of depth d is that of depth d−1 plus
//! the Elo difference measured by a match of depth d against depth d−1 (same games,
//! openings and seed as the model's matches, so the scale is the same for every model
//! and every run with that configuration). The player's rating is that of the crossover
//! depth D (the first it scores below 50% against) plus its measured difference against
//! D. Its standard error adds, in quadrature, the errors of the steps 2..D and of its
//! own match (each from the pentanomial 95% interval: se ≈ (high − low)/(2·1.96)).
//! When it scores at least 50% against every depth up to `max_depth`, the same is done
//! at `max_depth` and `crossover` is `None`: the rating is then a floor-side estimate
//! beyond the ladder's reach.

use serde::Serialize;

use super::r#match::run_match;
use super::match_config::{MatchConfig, MatchError};
use super::player::{AlphaBetaLimit, Player};
use super::stats::{Summary, Z95};

/// Ladder settings.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderConfig {
    /// Every match's settings (games, openings, seed, rules); no SPRT is used.
    pub matches: MatchConfig,
    /// The deepest alpha-beta tried.
    pub max_depth: u32,
}

impl Default for LadderConfig {
    fn default() -> Self {
        LadderConfig {
            matches: MatchConfig::default(),
            max_depth: 12,
        }
    }
}

/// One depth of the ladder.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LadderRung {
    /// Alpha-beta depth.
    pub depth: u32,
    /// Its rating on the scale (depth 1 = 0).
    pub depth_elo: f64,
    /// Standard error of `depth_elo` (0 at depth 1).
    pub depth_se: f64,
    /// Depth d against depth d−1 (absent at depth 1).
    pub step: Option<Summary>,
    /// The player against this depth, from the player's view.
    pub result: Summary,
}

/// What the ladder found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LadderReport {
    /// The player's name.
    pub player: String,
    /// Every depth played, in order.
    pub rungs: Vec<LadderRung>,
    /// The first depth the player scored below 50% against; `None` if it never did.
    pub crossover: Option<u32>,
    /// The player's rating on the scale.
    pub elo: f64,
    /// Its 95% interval (scale and match errors combined).
    pub elo_ci95: [f64; 2],
    /// Wall-clock seconds.
    pub seconds: f64,
}

fn se_of(s: &Summary) -> f64 {
    (s.elo_ci95[1] - s.elo_ci95[0]) / (2.0 * Z95)
}

/// Runs the ladder for `player` against `alphabeta:depth=1, 2, …`. `progress` receives
/// one line per match played.
pub fn run_ladder(
    cfg: &LadderConfig,
    player: &mut Player,
    progress: &mut dyn FnMut(&str),
) -> Result<LadderReport, MatchError> {
    run_ladder_with(
        cfg,
        player,
        &mut |d| Player::AlphaBeta(AlphaBetaLimit::Depth(d)),
        progress,
    )
}

/// The ladder over any family of baselines: `rung(d)` is the baseline of level d
/// (1, 2, …), each expected to be stronger than the one before.
pub fn run_ladder_with(
    cfg: &LadderConfig,
    player: &mut Player,
    rung: &mut dyn FnMut(u32) -> Player,
    progress: &mut dyn FnMut(&str),
) -> Result<LadderReport, MatchError> {
    let t0 = std::time::Instant::now();
    if cfg.max_depth == 0 {
        return Err(MatchError::Config("max depth must be at least 1".into()));
    }
    let mut m = cfg.matches.clone();
    m.sprt = None;
    let mut rungs: Vec<LadderRung> = Vec::new();
    let mut crossover = None;
    let mut depth_elo = 0.0;
    let mut depth_var = 0.0f64;
    for depth in 1..=cfg.max_depth {
        let mut ab = rung(depth);
        let step = if depth > 1 {
            let mut below = rung(depth - 1);
            let r = run_match(&m, &mut ab, &mut below)?;
            depth_elo += r.summary.elo;
            depth_var += se_of(&r.summary).powi(2);
            progress(&format!(
                "{} vs {}: score {:.3}, scale Elo of level {depth} = {:+.0}",
                r.player, r.opponent, r.summary.score, depth_elo
            ));
            Some(r.summary)
        } else {
            None
        };
        let r = run_match(&m, player, &mut ab)?;
        progress(&format!(
            "{} vs {}: score {:.3}, Elo {:+.0}",
            r.player, r.opponent, r.summary.score, r.summary.elo
        ));
        let below_half = r.summary.score < 0.5;
        rungs.push(LadderRung {
            depth,
            depth_elo,
            depth_se: depth_var.sqrt(),
            step,
            result: r.summary,
        });
        if below_half {
            crossover = Some(depth);
            break;
        }
    }
    let last = rungs.last().expect("at least one depth was played");
    let elo = last.depth_elo + last.result.elo;
    let se = (depth_var + se_of(&last.result).powi(2)).sqrt();
    Ok(LadderReport {
        player: player.name(),
        crossover,
        elo,
        elo_ci95: [elo - Z95 * se, elo + Z95 * se],
        rungs,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::search::UniformEvaluator;

    fn mcts(sims: u32) -> Player {
        Player::search(
            format!("mcts:sims={sims}"),
            sims,
            Box::new(UniformEvaluator),
        )
    }

    #[test]
    fn ladder_finds_the_crossover_and_chains_the_scale() {
        // Rungs: MCTS with 8, 32, 128, 512 simulations. The player is rung 2 itself:
        // two identical deterministic players play each pair's two games as one game
        // with the labels swapped, so it scores exactly ½ there (not below), and the
        // crossover is the first stronger rung.
        let cfg = LadderConfig {
            matches: MatchConfig {
                games: 24,
                seed: 9,
                ..MatchConfig::default()
            },
            max_depth: 4,
        };
        let mut lines = Vec::new();
        let r = run_ladder_with(
            &cfg,
            &mut mcts(32),
            &mut |d| mcts(8 * 4u32.pow(d - 1)),
            &mut |l| lines.push(l.to_string()),
        )
        .unwrap();
        assert_eq!(r.rungs[1].result.score, 0.5);
        assert!(r.rungs[0].result.score >= 0.5);
        assert_eq!(r.crossover, Some(3), "{:#?}", r.rungs);
        assert_eq!(r.rungs.len(), 3);
        assert_eq!(r.rungs[0].depth_elo, 0.0);
        assert!(r.rungs[0].step.is_none());
        for w in r.rungs.windows(2) {
            let step = w[1].step.as_ref().unwrap().elo;
            assert!((w[1].depth_elo - (w[0].depth_elo + step)).abs() < 1e-9);
            assert!(w[1].depth_se > w[0].depth_se, "{:#?}", r.rungs);
        }
        let last = r.rungs.last().unwrap();
        assert!((r.elo - (last.depth_elo + last.result.elo)).abs() < 1e-9);
        assert!(r.elo_ci95[0] < r.elo && r.elo < r.elo_ci95[1]);
        assert_eq!(lines.len(), 2 * 3 - 1, "{lines:?}");
    }
}

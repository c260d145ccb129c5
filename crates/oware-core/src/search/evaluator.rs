//! The one interface between search and whatever judges positions (a network, a
//! stand-in). The search layer knows nothing of burn.

use crate::game::{History, Position, RuleSet, random_playout};
use crate::rng::Rng;

/// What an evaluator says about one position.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each action 0..5 (mover-relative): 0 for illegal moves,
    /// summing to 1 over the legal ones.
    pub priors: [f32; 6],
    /// Expected result for the side to move in [−1, 1] (P(win) − P(loss)).
    pub value: f32,
}

/// Judges a batch of positions in one call.
pub trait Evaluator: Send {
    /// Evaluates `positions` (none of them over) whose legal-move masks are `legal`
    /// (same length, each non-zero), writing one `Evaluation` per position into `out`
    /// (same length). Implementations keep their buffers between calls.
    fn evaluate(
        &mut self,
        rules: RuleSet,
        positions: &[Position],
        legal: &[u8],
        out: &mut [Evaluation],
    );

    /// A short description for logs and reports.
    fn name(&self) -> String;

    /// Another evaluator giving the same answers, with its own buffers (for another
    /// thread), if this kind can be copied.
    fn boxed_clone(&self) -> Option<Box<dyn Evaluator>> {
        None
    }
}

/// Uniform priors over the legal moves, value 0.
#[derive(Clone, Debug, Default)]
pub struct UniformEvaluator;

/// Uniform priors over the set bits of `legal`.
#[inline]
pub fn uniform_priors(legal: u8) -> [f32; 6] {
    let n = legal.count_ones().max(1) as f32;
    std::array::from_fn(|a| if legal & (1 << a) != 0 { 1.0 / n } else { 0.0 })
}

impl Evaluator for UniformEvaluator {
    fn evaluate(
        &mut self,
        _rules: RuleSet,
        _positions: &[Position],
        legal: &[u8],
        out: &mut [Evaluation],
    ) {
        for (o, &m) in out.iter_mut().zip(legal) {
            *o = Evaluation {
                priors: uniform_priors(m),
                value: 0.0,
            };
        }
    }

    fn name(&self) -> String {
        "uniform".into()
    }

    fn boxed_clone(&self) -> Option<Box<dyn Evaluator>> {
        Some(Box::new(UniformEvaluator))
    }
}

/// Uniform priors; the value is the mean result of `rollouts` random playouts
/// (the classic MCTS baseline).
#[derive(Clone, Debug)]
pub struct RolloutEvaluator {
    rollouts: u32,
    rng: Rng,
    history: History,
}

impl RolloutEvaluator {
    /// `rollouts` random games per evaluated position, drawn from `seed`.
    pub fn new(rollouts: u32, seed: u64) -> Self {
        RolloutEvaluator {
            rollouts: rollouts.max(1),
            rng: Rng::new(seed),
            history: History::default(),
        }
    }
}

impl Evaluator for RolloutEvaluator {
    fn evaluate(
        &mut self,
        rules: RuleSet,
        positions: &[Position],
        legal: &[u8],
        out: &mut [Evaluation],
    ) {
        for ((o, p), &m) in out.iter_mut().zip(positions).zip(legal) {
            let mut sum = 0.0;
            for _ in 0..self.rollouts {
                let (outcome, _) = random_playout(p, rules, &mut self.rng, &mut self.history);
                sum += outcome.score_for(p.side) as f32;
            }
            *o = Evaluation {
                priors: uniform_priors(m),
                value: sum / self.rollouts as f32,
            };
        }
    }

    fn name(&self) -> String {
        format!("rollout:{}", self.rollouts)
    }

    fn boxed_clone(&self) -> Option<Box<dyn Evaluator>> {
        Some(Box::new(self.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_priors_cover_legal_moves_only() {
        let p = uniform_priors(0b100101);
        assert_eq!(p, [1.0 / 3.0, 0.0, 1.0 / 3.0, 0.0, 0.0, 1.0 / 3.0]);
    }

    #[test]
    fn rollouts_see_a_won_position() {
        // South has 24 and can capture 2 now; nearly every random game from here is won.
        let p: Position = "0-0-0-0-0-1-1-2-0-19-1-0-22-2-S".parse().unwrap();
        let r = RuleSet::abapa();
        let mut e = RolloutEvaluator::new(200, 1);
        let mut out = [Evaluation::default()];
        e.evaluate(r, &[p], &[p.legal_moves(r)], &mut out);
        assert!(out[0].value > 0.5, "{}", out[0].value);
    }
}

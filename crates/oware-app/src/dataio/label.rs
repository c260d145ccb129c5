//! A finished game → its samples, one per full search: the result and final store
//! difference from each mover's view, the value the target mixes in (the search's root
//! value, or a λ-blend of the later root values and the result), and — while a teacher
//! network plays (`train.teacher`) — its own policy mixed into the policy target as a
//! soft target.
//!
//! Every option is off in `LabelRule::default()`: each sample labelled with its own
//! root value and its search's policy.

use super::{Sample, Searched};
use oware_core::game::Outcome;

/// How a finished game's searched positions become samples: the settings of the run
/// that bear on them (`selfplay.value_lambda`, `train.teacher_policy_mix`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LabelRule {
    /// λ per ply of the value mixed into the target: 0 keeps each search's own root
    /// value; towards 1 the later searches' values, and the result, weigh more
    /// ([`lambda_values`]).
    pub value_lambda: f32,
    /// The share `α` of the network's own policy (its prior at the root) in the policy
    /// target: `(1 − α)·search policy + α·prior`. A distillation's soft target, set while
    /// a teacher plays (`train.teacher_policy_mix`); 0: the search's policy alone.
    pub prior_mix: f32,
}

/// The policy target with the share `alpha` of the prior mixed in, on the legal moves.
pub fn mixed_policy(policy: &[f32; 6], prior: &[f32; 6], legal: u8, alpha: f32) -> [f32; 6] {
    let mut out = [0.0; 6];
    for a in (0..6).filter(|&a| legal & (1 << a) != 0) {
        out[a] = (1.0 - alpha) * policy[a] + alpha * prior[a];
    }
    out
}

/// The λ-values of a game's searched positions, each from its own mover's view.
///
/// Read the game ply by ply from position `i`'s ply `pᵢ` on: at each ply `t` the latest
/// search at or before `t` gives its root value, turned to `i`'s mover's view; ply `t`
/// weighs `(1 − λ)·λ^(t − pᵢ)`, and the result `z` takes what is left, `λ^(end − pᵢ)`.
/// λ = 0 gives each search's own value, λ = 1 the result. Computed backwards in one pass:
/// `vᵢ = (1 − λ^d)·qᵢ + λ^d·v'ᵢ₊₁`, with `d` the plies to the next search (or to the end)
/// and `v'` the next value (or `z`) from `i`'s mover's view.
pub fn lambda_values(
    searched: &[Searched],
    outcome: Outcome,
    end_ply: u32,
    lambda: f32,
) -> Vec<f32> {
    let mut out = vec![0.0; searched.len()];
    // The value after position i, from the view of the side to move at the next
    // position (or of `next_side` at the end, where `z` is from that side's view).
    let mut next: Option<(f32, u32, oware_core::game::Side)> = None;
    for (i, s) in searched.iter().enumerate().rev() {
        let side = s.position.side;
        let (later, later_ply) = match next {
            Some((v, ply, by)) => (if by == side { v } else { -v }, ply),
            None => (f32::from(outcome.score_for(side)), end_ply.max(s.ply)),
        };
        let keep = lambda.powi((later_ply - s.ply) as i32);
        let v = (1.0 - keep) * s.search_value + keep * later;
        out[i] = v;
        next = Some((v, s.ply, side));
    }
    out
}

/// The samples of a finished game that ended after `end_ply` plies: each searched
/// position labelled with the result and the final store difference from its mover's
/// view and the value `rule` mixes in, in the order they were searched.
pub fn label_game(
    searched: &[Searched],
    outcome: Outcome,
    end_ply: u32,
    rule: &LabelRule,
) -> Vec<Sample> {
    let values = if rule.value_lambda > 0.0 {
        lambda_values(searched, outcome, end_ply, rule.value_lambda)
    } else {
        searched.iter().map(|s| s.search_value).collect()
    };
    let mut out = Vec::with_capacity(searched.len());
    for (s, &v) in searched.iter().zip(&values) {
        let policy = if rule.prior_mix > 0.0 {
            mixed_policy(&s.policy, &s.prior, s.legal, rule.prior_mix)
        } else {
            s.policy
        };
        out.push(Sample {
            position: s.position,
            legal: s.legal,
            policy,
            outcome: outcome.score_for(s.position.side),
            store_diff: outcome.store_diff_for(s.position.side),
            search_value: v,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::game::{Game, Position, RuleSet, Side};
    use oware_core::rng::Rng;

    /// A random game of the default rules with a "search" at some of its plies: each
    /// gets a random root value. Returns the searches, the outcome and the
    /// game's length.
    fn random_game(seed: u64, every: u32) -> (Vec<Searched>, Outcome, u32) {
        let mut rng = Rng::new(seed);
        let mut g = Game::new(RuleSet::abapa(), Position::start());
        let mut searched = Vec::new();
        while g.outcome().is_none() {
            let legal = g.legal_moves();
            if rng.below(every) == 0 {
                searched.push(Searched {
                    position: *g.position(),
                    ply: g.moves().len() as u32,
                    legal,
                    policy: [1.0 / 6.0; 6],
                    prior: std::array::from_fn(|_| rng.unit_f32()),
                    search_value: rng.unit_f32() * 2.0 - 1.0,
                });
            }
            g.play(rng.pick_bit(legal)).expect("a legal move");
        }
        let o = g.outcome().expect("over");
        (searched, o, g.moves().len() as u32)
    }

    /// The λ-value written out as its definition: ply by ply, the latest search's value
    /// (turned to the mover's view) with weight (1 − λ)·λ^k, the result with the rest.
    fn lambda_value_by_plies(
        searched: &[Searched],
        i: usize,
        z: &dyn Fn(Side) -> f32,
        end: u32,
        lambda: f64,
    ) -> f64 {
        let me = searched[i].position.side;
        let view = |s: &Searched| {
            let v = f64::from(s.search_value);
            if s.position.side == me { v } else { -v }
        };
        let mut total = 0.0;
        let mut latest = i;
        for t in searched[i].ply..end {
            while latest + 1 < searched.len() && searched[latest + 1].ply <= t {
                latest += 1;
            }
            total += (1.0 - lambda)
                * lambda.powi((t - searched[i].ply) as i32)
                * view(&searched[latest]);
        }
        total + lambda.powi((end - searched[i].ply) as i32) * f64::from(z(me))
    }

    #[test]
    fn lambda_values_match_their_ply_by_ply_definition() {
        for seed in 0..40 {
            let (searched, o, end) = random_game(seed, 1 + (seed % 4) as u32);
            let z = |side: Side| f32::from(o.score_for(side));
            for lambda in [0.0f32, 0.3, 0.8, 0.95, 1.0] {
                let fast = lambda_values(&searched, o, end, lambda);
                for i in 0..searched.len() {
                    let slow = lambda_value_by_plies(&searched, i, &z, end, f64::from(lambda));
                    assert!(
                        (f64::from(fast[i]) - slow).abs() < 1e-4,
                        "seed {seed}, λ {lambda}, sample {i}: {} against {slow}",
                        fast[i]
                    );
                }
                if lambda == 0.0 {
                    let own: Vec<f32> = searched.iter().map(|s| s.search_value).collect();
                    assert_eq!(fast, own);
                }
                if lambda == 1.0 {
                    assert!(
                        searched
                            .iter()
                            .zip(&fast)
                            .all(|(s, &v)| v == z(s.position.side))
                    );
                }
            }
        }
    }

    #[test]
    fn label_game_labels_each_mover_once() {
        let (searched, o, end) = random_game(9, 2);
        let plain = label_game(&searched, o, end, &LabelRule::default());
        assert_eq!(plain.len(), searched.len());
        for (s, x) in searched.iter().zip(&plain) {
            assert_eq!(x.position, s.position);
            assert_eq!(x.outcome, o.score_for(s.position.side));
            assert_eq!(x.store_diff, o.store_diff_for(s.position.side));
            assert_eq!(x.search_value, s.search_value);
            assert_eq!(x.policy, s.policy);
        }
        let rule = LabelRule {
            value_lambda: 0.9,
            prior_mix: 0.0,
        };
        let blended = label_game(&searched, o, end, &rule);
        assert_eq!(blended.len(), searched.len());
        let values = lambda_values(&searched, o, end, 0.9);
        for ((s, x), &v) in searched.iter().zip(&blended).zip(&values) {
            assert_eq!(x.position, s.position);
            assert_eq!(x.search_value, v);
        }
        // The same game labels the same way.
        assert_eq!(blended, label_game(&searched, o, end, &rule));
    }

    #[test]
    fn prior_mix_blends_the_prior_into_the_policy_on_legal_moves() {
        let (searched, o, end) = random_game(4, 2);
        let rule = LabelRule {
            prior_mix: 0.25,
            ..LabelRule::default()
        };
        let mixed = label_game(&searched, o, end, &rule);
        assert_eq!(mixed.len(), searched.len());
        for (s, x) in searched.iter().zip(&mixed) {
            for a in 0..6 {
                let want = if s.legal & (1 << a) != 0 {
                    0.75 * s.policy[a] + 0.25 * s.prior[a]
                } else {
                    0.0
                };
                assert!(
                    (x.policy[a] - want).abs() < 1e-6,
                    "move {a}: {} against {want}",
                    x.policy[a]
                );
            }
            // Nothing else changes.
            assert_eq!(x.search_value, s.search_value);
        }
        // α = 1 is the prior alone (on the legal moves).
        let all = mixed_policy(
            &[0.5, 0.5, 0.0, 0.0, 0.0, 0.0],
            &[0.1, 0.2, 0.3, 0.4, 0.0, 0.0],
            0b0111,
            1.0,
        );
        assert_eq!(all, [0.1, 0.2, 0.3, 0.0, 0.0, 0.0]);
    }
}

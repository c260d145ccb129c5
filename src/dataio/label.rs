//! A finished game → its samples: the result and final store difference from each
//! mover's view, the value the target mixes in (the search's root value, or a λ-blend
//! of the later root values and the result), and how many copies of each sample the
//! window gets (policy surprise weighting), and — while a teacher network plays
//! (`train.teacher`) — its own policy mixed into the policy target as a soft target.
//!
//! Every option is off by default (`LabelRule::default()`): one sample per full search,
//! labelled with its own root value.

use super::{Sample, Searched};
use crate::game::Outcome;

/// How a finished game's searched positions become samples: the settings of the run
/// that bear on them (`selfplay.value_lambda`, `selfplay.surprise_weight`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LabelRule {
    /// λ per ply of the value mixed into the target: 0 keeps each search's own root
    /// value; towards 1 the later searches' values, and the result, weigh more
    /// ([`lambda_values`]).
    pub value_lambda: f32,
    /// The share `f` of each game's samples handed out by surprise: sample `i` weighs
    /// `(1 − f) + f · KLᵢ / mean KL` and the window gets about that many copies of it
    /// ([`copies`]). 0: one copy each.
    pub surprise_weight: f32,
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

/// KL(target ‖ prior) over the legal moves, in nats: how far the search moved the
/// network's policy. Moves the target gives nothing add nothing; a prior is floored at
/// 1e-6 so a move the network ruled out costs a large but finite surprise.
pub fn policy_surprise(target: &[f32; 6], prior: &[f32; 6], legal: u8) -> f32 {
    (0..6)
        .filter(|&a| legal & (1 << a) != 0 && target[a] > 0.0)
        .map(|a| target[a] * (target[a] / prior[a].max(1e-6)).ln())
        .sum::<f32>()
        .max(0.0)
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
    let mut next: Option<(f32, u32, crate::game::Side)> = None;
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

/// How many copies of each sample the window gets, given each sample's weight: the
/// running total of copies stays within ½ of the running total of weights, so a game
/// whose weights sum to `n` gives `n` samples and a weight of 2.6 gives 2 or 3 copies.
/// Deterministic (no random draw), so runs stay reproducible.
pub fn copies(weights: &[f32]) -> Vec<u32> {
    let mut total = 0.0f64;
    let mut given = 0i64;
    weights
        .iter()
        .map(|&w| {
            total += f64::from(w.max(0.0));
            let due = (total + 0.5).floor() as i64;
            let c = (due - given).max(0);
            given += c;
            c as u32
        })
        .collect()
}

/// Each sample's weight under surprise weighting `f`: `(1 − f) + f · KLᵢ / mean KL`
/// (all 1 when the game's searches surprised nothing).
pub fn surprise_weights(searched: &[Searched], f: f32) -> Vec<f32> {
    let n = searched.len().max(1) as f32;
    let mean = searched.iter().map(|s| s.surprise.max(0.0)).sum::<f32>() / n;
    searched
        .iter()
        .map(|s| {
            if f == 0.0 || mean <= 1e-9 {
                1.0
            } else {
                (1.0 - f) + f * s.surprise.max(0.0) / mean
            }
        })
        .collect()
}

/// The samples of a finished game that ended after `end_ply` plies: each searched
/// position labelled with the result and the final store difference from its mover's
/// view and the value `rule` mixes in, repeated as `rule`'s surprise weighting says,
/// in the order they were searched.
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
    let counts = if rule.surprise_weight > 0.0 {
        copies(&surprise_weights(searched, rule.surprise_weight))
    } else {
        vec![1; searched.len()]
    };
    let total = counts.iter().map(|&c| c as usize).sum();
    let mut out = Vec::with_capacity(total);
    for ((s, &v), &c) in searched.iter().zip(&values).zip(&counts) {
        let policy = if rule.prior_mix > 0.0 {
            mixed_policy(&s.policy, &s.prior, s.legal, rule.prior_mix)
        } else {
            s.policy
        };
        let sample = Sample {
            position: s.position,
            legal: s.legal,
            policy,
            outcome: outcome.score_for(s.position.side),
            store_diff: outcome.store_diff_for(s.position.side),
            search_value: v,
        };
        out.extend(std::iter::repeat_n(sample, c as usize));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, Position, RuleSet, Side};
    use crate::rng::Rng;

    /// A random game of the default rules with a "search" at some of its plies: each
    /// gets a random root value and surprise. Returns the searches, the outcome and the
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
                    surprise: rng.unit_f32(),
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
    fn copies_follow_the_weights_and_keep_the_total() {
        let mut rng = Rng::new(5);
        for case in 0..200 {
            let n = 1 + rng.below(60) as usize;
            let w: Vec<f32> = (0..n).map(|_| rng.unit_f32() * 3.0).collect();
            let c = copies(&w);
            assert_eq!(c.len(), n);
            let (mut given, mut due) = (0.0f64, 0.0f64);
            for (ci, wi) in c.iter().zip(&w) {
                given += f64::from(*ci);
                due += f64::from(*wi);
                assert!(
                    (given - due).abs() <= 0.5 + 1e-6,
                    "case {case}: {c:?} for {w:?}"
                );
            }
        }
        assert_eq!(copies(&[1.0; 7]), vec![1; 7]);
        assert_eq!(copies(&[0.0, 3.0, 0.0]), vec![0, 3, 0]);
        assert_eq!(copies(&[0.5, 0.5, 0.5, 0.5]).iter().sum::<u32>(), 2);
    }

    #[test]
    fn surprise_weights_average_one_and_rank_by_surprise() {
        let (mut searched, _, _) = random_game(3, 1);
        assert!(searched.len() > 10);
        for f in [0.0f32, 0.5, 1.0] {
            let w = surprise_weights(&searched, f);
            let mean = w.iter().sum::<f32>() / w.len() as f32;
            assert!((mean - 1.0).abs() < 1e-4, "f {f}: mean weight {mean}");
            for i in 0..searched.len() {
                for j in 0..searched.len() {
                    if searched[i].surprise > searched[j].surprise && f > 0.0 {
                        assert!(w[i] > w[j]);
                    }
                }
            }
            assert!(w.iter().all(|&x| x >= 1.0 - f - 1e-6));
        }
        // Nothing surprised: one copy each whatever f.
        for s in &mut searched {
            s.surprise = 0.0;
        }
        assert!(surprise_weights(&searched, 0.7).iter().all(|&w| w == 1.0));
    }

    #[test]
    fn policy_surprise_is_kl_of_the_target_from_the_prior() {
        let legal = 0b00_0111;
        let p = [0.5, 0.25, 0.25, 0.0, 0.0, 0.0];
        assert_eq!(policy_surprise(&p, &p, legal), 0.0);
        // All on move 1, whose prior is ¼: KL = ln 4.
        let t = [0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        assert!((policy_surprise(&t, &p, legal) - 4f32.ln()).abs() < 1e-6);
        // A target on a move the prior ruled out is large and finite.
        let q = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
        let big = policy_surprise(&[0.0, 1.0, 0.0, 0.0, 0.0, 0.0], &q, legal);
        assert!(big.is_finite() && big > 13.0, "{big}");
    }

    #[test]
    fn label_game_labels_each_mover_and_repeats_by_surprise() {
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
            surprise_weight: 0.5,
            prior_mix: 0.0,
        };
        let weighted = label_game(&searched, o, end, &rule);
        let want = copies(&surprise_weights(&searched, 0.5));
        assert_eq!(weighted.len(), want.iter().sum::<u32>() as usize);
        let values = lambda_values(&searched, o, end, 0.9);
        let mut at = 0;
        for (i, &c) in want.iter().enumerate() {
            for _ in 0..c {
                assert_eq!(weighted[at].position, searched[i].position);
                assert_eq!(weighted[at].search_value, values[i]);
                at += 1;
            }
        }
        // The same game labels the same way.
        assert_eq!(weighted, label_game(&searched, o, end, &rule));
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

//! Every training target a sample gives the learner, in one place.
//!
//! - Features: the sample's position under the model's input encoding.
//! - Policy: the search's policy, as recorded (0 on illegal moves).
//! - Value: a W/D/L distribution from the mover's view,
//!   `(1 − k)·onehot(z) + k·s`, where `z` is the game's result and `k` is
//!   `train.value_target_mix`. `s` is the search's W/D/L: by default
//!   `soft(q) = [max(q, 0), 1 − |q|, max(−q, 0)]` from its root value `q` alone (the
//!   W/D/L of value `q` with the most draw in it: a 50/50 position reads as a sure
//!   draw); with `train.search_wdl` the search's own, `[(1 − d + q)/2, d, (1 − d − q)/2]`
//!   with its probability of a draw `d` (clamped to [0, 1 − |q|]), where the sample
//!   has one.
//! - Store difference: the final (own − opponent) store difference / 48, in [−1, 1].
//! - Loss weights: the same for every batch, `train.loss_weights`.

use super::Sample;
use crate::env::encoding::Encoding;
use crate::game::TOTAL_SEEDS;
use crate::net::train::{LossWeights, TrainBatch};

/// How samples become targets: the settings of the run that bear on them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetRule {
    /// The network's input encoding.
    pub encoding: Encoding,
    /// `k`: the search value's share of the W/D/L target.
    pub value_target_mix: f32,
    /// Whether the search's share is its own W/D/L (value and probability of a draw)
    /// rather than `soft(q)` of its value alone.
    pub search_wdl: bool,
    /// Weights of the three losses.
    pub loss_weights: LossWeights,
}

/// The W/D/L target of a sample under mix `k`, with the search's own W/D/L when
/// `search_wdl` and the sample has a draw probability, else `soft(q)`.
pub fn wdl_target(s: &Sample, k: f32, search_wdl: bool) -> [f32; 3] {
    let z = match s.outcome {
        1 => [1.0, 0.0, 0.0],
        0 => [0.0, 1.0, 0.0],
        _ => [0.0, 0.0, 1.0],
    };
    let q = s.search_value.clamp(-1.0, 1.0);
    let d = match s.search_draw {
        Some(d) if search_wdl => d.clamp(0.0, 1.0 - q.abs()),
        _ => 1.0 - q.abs(),
    };
    let search = [(1.0 - d + q) / 2.0, d, (1.0 - d - q) / 2.0].map(|x| x.max(0.0));
    std::array::from_fn(|i| (1.0 - k) * z[i] + k * search[i])
}

/// The store-difference target of a sample: seeds / 48, clamped to [−1, 1].
pub fn store_diff_target(s: &Sample) -> f32 {
    (s.store_diff / TOTAL_SEEDS as f32).clamp(-1.0, 1.0)
}

/// Refills `batch` with the targets of `drawn`; `features` is scratch of the encoding's
/// width (kept by the caller so that a step allocates nothing).
pub fn fill_batch(
    batch: &mut TrainBatch,
    drawn: &[Sample],
    rule: &TargetRule,
    features: &mut [f32],
) {
    batch.clear();
    batch.weights = rule.loss_weights;
    for s in drawn {
        rule.encoding.encode(&s.position, features);
        let wdl = wdl_target(s, rule.value_target_mix, rule.search_wdl);
        batch.push(features, &s.policy, s.legal, &wdl, store_diff_target(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Position;

    fn sample(outcome: i8, q: f32, store_diff: f32) -> Sample {
        Sample {
            position: Position::start(),
            legal: 0b11_1111,
            policy: [1.0 / 6.0; 6],
            outcome,
            store_diff,
            search_value: q,
            search_draw: None,
        }
    }

    #[test]
    fn the_value_target_mixes_the_result_and_the_search_value() {
        // k = 0: the result alone, one-hot.
        assert_eq!(
            wdl_target(&sample(1, -0.5, 0.0), 0.0, false),
            [1.0, 0.0, 0.0]
        );
        assert_eq!(
            wdl_target(&sample(0, 0.9, 0.0), 0.0, false),
            [0.0, 1.0, 0.0]
        );
        assert_eq!(
            wdl_target(&sample(-1, 0.9, 0.0), 0.0, false),
            [0.0, 0.0, 1.0]
        );
        // k = 1: soft(q) alone; q = 0.5 is half a win, half a draw.
        assert_eq!(
            wdl_target(&sample(-1, 0.5, 0.0), 1.0, false),
            [0.5, 0.5, 0.0]
        );
        assert_eq!(
            wdl_target(&sample(1, -0.25, 0.0), 1.0, false),
            [0.0, 0.75, 0.25]
        );
        // A search value out of range is clamped.
        assert_eq!(
            wdl_target(&sample(1, 3.0, 0.0), 1.0, false),
            [1.0, 0.0, 0.0]
        );
        // k = 0.25, a loss with q = +1: 0.75 of a loss, 0.25 of a win; sums to 1.
        let t = wdl_target(&sample(-1, 1.0, 0.0), 0.25, false);
        assert_eq!(t, [0.25, 0.0, 0.75]);
        for (o, q, k) in [(1, 0.3, 0.2), (0, -0.7, 0.6), (-1, 0.0, 0.5)] {
            let t = wdl_target(&sample(o, q, 0.0), k, false);
            assert!((t.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{t:?}");
        }
    }

    #[test]
    fn the_search_wdl_keeps_the_searchs_draw_and_value() {
        let with = |o, q, d| Sample {
            search_draw: Some(d),
            ..sample(o, q, 0.0)
        };
        let close = |a: [f32; 3], b: [f32; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-6);
        // q = 0 with a draw probability of 0.2: 0.4 win, 0.2 draw, 0.4 loss, where soft(q)
        // says a sure draw.
        let t = wdl_target(&with(1, 0.0, 0.2), 1.0, true);
        assert!(close(t, [0.4, 0.2, 0.4]), "{t:?}");
        assert_eq!(wdl_target(&with(1, 0.0, 0.2), 1.0, false), [0.0, 1.0, 0.0]);
        // q = 0.5, d = 0.1: win 0.7, loss 0.2; half of it mixed with a loss.
        let t = wdl_target(&with(-1, 0.5, 0.1), 0.5, true);
        assert!(close(t, [0.35, 0.05, 0.6]), "{t:?}");
        // Without a recorded draw the target is soft(q) as before.
        assert_eq!(
            wdl_target(&sample(-1, 0.5, 0.0), 1.0, true),
            [0.5, 0.5, 0.0]
        );
        // A draw probability the value cannot hold is clamped to 1 − |q|: soft(q) again.
        let t = wdl_target(&with(0, 0.5, 0.9), 1.0, true);
        assert!(close(t, [0.5, 0.5, 0.0]), "{t:?}");
        // Every target is a distribution whose win − loss is the mixed value.
        let mut rng = crate::rng::Rng::new(11);
        for _ in 0..1000 {
            let (o, q, d, k) = (
                rng.below(3) as i8 - 1,
                rng.unit_f32() * 2.0 - 1.0,
                rng.unit_f32(),
                rng.unit_f32(),
            );
            let t = wdl_target(&with(o, q, d), k, true);
            assert!(t.iter().all(|&x| x >= 0.0), "{t:?}");
            assert!((t.iter().sum::<f32>() - 1.0).abs() < 1e-5, "{t:?}");
            let want = (1.0 - k) * f32::from(o) + k * q;
            assert!((t[0] - t[2] - want).abs() < 1e-5, "{t:?}: value {want}");
            let draw = (1.0 - k) * f32::from(u8::from(o == 0)) + k * d.min(1.0 - q.abs());
            assert!((t[1] - draw).abs() < 1e-5, "{t:?}: draw {draw}");
        }
    }

    #[test]
    fn a_batch_holds_each_samples_targets() {
        let drawn = [sample(1, 0.5, 12.0), sample(-1, 0.0, -60.0)];
        let rule = TargetRule {
            encoding: Encoding::Onehot,
            value_target_mix: 0.5,
            search_wdl: false,
            loss_weights: LossWeights {
                policy: 2.0,
                value: 0.5,
                store_diff: 0.1,
            },
        };
        let mut batch = TrainBatch::default();
        let mut features = vec![0.0; Encoding::Onehot.dim()];
        fill_batch(&mut batch, &drawn, &rule, &mut features);
        assert_eq!(batch.len(), 2);
        assert_eq!(batch.weights, rule.loss_weights);
        assert_eq!(batch.store_diff, [0.25, -1.0]);
        assert_eq!(&batch.wdl[..3], &[0.75, 0.25, 0.0]);
        assert_eq!(&batch.wdl[3..], &[0.0, 0.5, 0.5]);
        let mut start = vec![0.0; Encoding::Onehot.dim()];
        Encoding::Onehot.encode(&Position::start(), &mut start);
        assert_eq!(&batch.features[..start.len()], &start[..]);
        assert!(batch.validate(start.len()).is_ok());
        // Refilling replaces, never appends.
        fill_batch(&mut batch, &drawn[..1], &rule, &mut features);
        assert_eq!(batch.len(), 1);
    }
}

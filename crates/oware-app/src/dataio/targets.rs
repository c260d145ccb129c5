//! Every training target a sample gives the learner, in one place.
//!
//! - Features: the sample's position under the model's input encoding.
//! - Policy: the search's policy, as recorded (0 on illegal moves).
//! - Value: a W/D/L distribution from the mover's view,
//!   `(1 − k)·onehot(z) + k·soft(q)`, where `z` is the game's result, `q` the search's
//!   root value and `soft(q) = [max(q, 0), 1 − |q|, max(−q, 0)]`; `k` is
//!   `train.value_target_mix`.
//! - Store difference: the final (own − opponent) store difference / 48, in [−1, 1].
//! - Loss weights: the same for every batch, `train.loss_weights`.

use super::Sample;
use oware_core::env::encoding::Encoding;
use oware_core::game::TOTAL_SEEDS;
use oware_net::net::train::{LossWeights, TrainBatch};

/// How samples become targets: the settings of the run that bear on them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TargetRule {
    /// The network's input encoding.
    pub encoding: Encoding,
    /// `k`: the search value's share of the W/D/L target.
    pub value_target_mix: f32,
    /// Weights of the three losses.
    pub loss_weights: LossWeights,
}

/// The W/D/L target of a sample under mix `k`.
pub fn wdl_target(s: &Sample, k: f32) -> [f32; 3] {
    let z = match s.outcome {
        1 => [1.0, 0.0, 0.0],
        0 => [0.0, 1.0, 0.0],
        _ => [0.0, 0.0, 1.0],
    };
    let q = s.search_value.clamp(-1.0, 1.0);
    let soft = [q.max(0.0), 1.0 - q.abs(), (-q).max(0.0)];
    std::array::from_fn(|i| (1.0 - k) * z[i] + k * soft[i])
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
        let wdl = wdl_target(s, rule.value_target_mix);
        batch.push(features, &s.policy, s.legal, &wdl, store_diff_target(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::game::Position;

    fn sample(outcome: i8, q: f32, store_diff: f32) -> Sample {
        Sample {
            position: Position::start(),
            legal: 0b11_1111,
            policy: [1.0 / 6.0; 6],
            outcome,
            store_diff,
            search_value: q,
        }
    }

    #[test]
    fn the_value_target_mixes_the_result_and_the_search_value() {
        // k = 0: the result alone, one-hot.
        assert_eq!(wdl_target(&sample(1, -0.5, 0.0), 0.0), [1.0, 0.0, 0.0]);
        assert_eq!(wdl_target(&sample(0, 0.9, 0.0), 0.0), [0.0, 1.0, 0.0]);
        assert_eq!(wdl_target(&sample(-1, 0.9, 0.0), 0.0), [0.0, 0.0, 1.0]);
        // k = 1: soft(q) alone; q = 0.5 is half a win, half a draw.
        assert_eq!(wdl_target(&sample(-1, 0.5, 0.0), 1.0), [0.5, 0.5, 0.0]);
        assert_eq!(wdl_target(&sample(1, -0.25, 0.0), 1.0), [0.0, 0.75, 0.25]);
        // A search value out of range is clamped.
        assert_eq!(wdl_target(&sample(1, 3.0, 0.0), 1.0), [1.0, 0.0, 0.0]);
        // k = 0.25, a loss with q = +1: 0.75 of a loss, 0.25 of a win; sums to 1.
        let t = wdl_target(&sample(-1, 1.0, 0.0), 0.25);
        assert_eq!(t, [0.25, 0.0, 0.75]);
        for (o, q, k) in [(1, 0.3, 0.2), (0, -0.7, 0.6), (-1, 0.0, 0.5)] {
            let t = wdl_target(&sample(o, q, 0.0), k);
            assert!((t.iter().sum::<f32>() - 1.0).abs() < 1e-6, "{t:?}");
        }
    }

    #[test]
    fn a_batch_holds_each_samples_targets() {
        let drawn = [sample(1, 0.5, 12.0), sample(-1, 0.0, -60.0)];
        let rule = TargetRule {
            encoding: Encoding::Onehot,
            value_target_mix: 0.5,
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

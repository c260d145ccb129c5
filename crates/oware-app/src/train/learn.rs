//! The learn phase: an iteration's gradient steps on batches drawn from the replay
//! window, their targets built by `dataio::targets`. The learner and the scratch a step
//! reuses live together in [`Learning`], apart from the rest of the session, so that
//! the loop can run this phase on its own thread while self-play plays the next games
//! (`train.overlap`).

use std::time::Instant;

use anyhow::Result;

use super::config::Config;
use super::replay::ReplayWindow;
use super::schedule::{self, iteration_seed};
use super::stop::stop_requested;
use crate::dataio::Sample;
use crate::dataio::targets::{TargetRule, fill_batch};
use oware_core::rng::Rng;
use oware_net::net::train::{Learner, TrainBatch};

/// The learner and what its steps reuse (nothing is allocated per step).
pub(super) struct Learning {
    pub learner: Learner,
    /// No gradient step while the window holds fewer samples (a refill after a move).
    pub hold_below: u64,
    targets: TargetRule,
    batch: TrainBatch,
    drawn: Vec<Sample>,
    features: Vec<f32>,
}

/// What an iteration's gradient steps did.
pub(super) struct Learned {
    pub steps: u64,
    /// Mean policy, value and store-difference losses, policy entropy, value accuracy.
    pub means: [f64; 5],
    pub learning_rate: f64,
    pub seconds: f64,
}

impl Learning {
    /// The learner of a run under `config`, with its scratch.
    pub fn new(learner: Learner, config: &Config) -> Learning {
        Learning {
            learner,
            hold_below: 0,
            targets: TargetRule {
                encoding: config.model.encoding,
                value_target_mix: config.train.value_target_mix,
                loss_weights: config.train.loss_weights,
            },
            batch: TrainBatch::default(),
            drawn: Vec::with_capacity(config.train.batch_size),
            features: vec![0.0f32; config.model.encoding.dim()],
        }
    }

    /// Iteration `it`'s gradient steps (`wall` seconds into the run), on batches drawn
    /// from `window`, as many as `new_samples` new samples call for
    /// (`schedule::gradient_steps`). Stops early when a stop is requested.
    pub fn learn(
        &mut self,
        config: &Config,
        window: &ReplayWindow,
        it: u32,
        wall: f64,
        new_samples: u64,
    ) -> Result<Learned> {
        let t0 = Instant::now();
        let t = &config.train;
        let steps = schedule::gradient_steps(t, new_samples, window.len(), self.hold_below);
        let lr = schedule::learning_rate(config, it, wall);
        self.learner.set_learning_rate(lr);
        let mut rng = Rng::new(iteration_seed(config.seed, it, 2));
        let mut sums = [0.0f64; 5];
        let mut done = 0u64;
        for _ in 0..steps {
            if stop_requested().is_some() {
                break;
            }
            window.draw(&mut rng, t.batch_size, &mut self.drawn);
            if self.drawn.is_empty() {
                break;
            }
            fill_batch(
                &mut self.batch,
                &self.drawn,
                &self.targets,
                &mut self.features,
            );
            let l = self.learner.step(&self.batch)?;
            let losses = [
                l.policy,
                l.value,
                l.store_diff,
                l.policy_entropy,
                l.value_accuracy,
            ];
            for (s, v) in sums.iter_mut().zip(losses) {
                *s += v as f64;
            }
            done += 1;
        }
        let means = sums.map(|s| if done > 0 { s / done as f64 } else { f64::NAN });
        Ok(Learned {
            steps: done,
            means,
            learning_rate: lr,
            seconds: t0.elapsed().as_secs_f64(),
        })
    }
}

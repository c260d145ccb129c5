//! The learn phase: an iteration's gradient steps on batches drawn from the replay
//! window, their targets built by `dataio::targets`. The learner and the scratch a step
//! reuses live together in [`Learning`], apart from the rest of the session, so that
//! the loop can run this phase on its own thread while self-play plays the next games
//! (`train.overlap`).

use std::time::Instant;

use anyhow::Result;

use super::config::Config;
use super::refill::Refill;
use super::replay::ReplayWindow;
use super::schedule::{self, iteration_seed};
use super::stop::stop_requested;
use crate::dataio::Sample;
use crate::dataio::targets::{TargetRule, fill_batch};
use oware_core::rng::Rng;
use oware_net::net::train::{Learner, Losses, TrainBatch};

/// The learner and what its steps reuse (nothing is allocated per step).
pub(super) struct Learning {
    pub learner: Learner,
    /// The hold on gradient steps while the window refills after a move.
    pub refill: Refill,
    targets: TargetRule,
    batch: TrainBatch,
    drawn: Vec<Sample>,
    features: Vec<f32>,
}

/// What an iteration's gradient steps did.
pub(super) struct Learned {
    pub steps: u64,
    /// The mean of the steps' losses and accuracies (NaN without a step).
    pub losses: Losses<f64>,
    pub learning_rate: f64,
    pub seconds: f64,
}

impl Learning {
    /// The learner of a run under `config`, with its scratch.
    pub fn new(learner: Learner, config: &Config) -> Learning {
        Learning {
            learner,
            refill: Refill::default(),
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
        let steps = schedule::gradient_steps(t, new_samples, window.len(), self.refill.mark());
        let lr = schedule::learning_rate(config, it, wall);
        self.learner.set_learning_rate(lr);
        let mut rng = Rng::new(iteration_seed(config.seed, it, 2));
        let mut sums = Losses::<f64>::default();
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
            sums.add(&self.learner.step(&self.batch)?);
            done += 1;
        }
        Ok(Learned {
            steps: done,
            losses: sums.mean(done),
            learning_rate: lr,
            seconds: t0.elapsed().as_secs_f64(),
        })
    }
}

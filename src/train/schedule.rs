//! What each iteration is given: its seeds, its learning rate, its number of gradient
//! steps, and whether it is evaluated.
//!
//! A run bounded by `train.iterations` is a function of its seed and config: the cosine
//! schedule follows the iteration count. A run bounded by `train.time_limit_minutes`
//! alone follows the clock, for its learning rate and for its length, so two such runs
//! differ from the first iteration whose start time differs.

use super::config::{Config, LrSchedule, TrainConfig};
use crate::rng::splitmix64;

/// The seed of `purpose` (1 self-play, 2 the window's draws, 3 the evaluation's
/// openings, 4 the accuracy suite) at iteration `iteration` of a run seeded `seed`.
pub(super) fn iteration_seed(seed: u64, iteration: u32, purpose: u64) -> u64 {
    let mut x =
        seed ^ (iteration as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ purpose.rotate_left(32);
    splitmix64(&mut x)
}

/// The learning rate of iteration `it` under the config's schedule.
pub(super) fn learning_rate(config: &Config, it: u32, wall: f64) -> f64 {
    let t = &config.train;
    match t.lr_schedule {
        LrSchedule::Constant => t.learning_rate,
        LrSchedule::Cosine => {
            // Progress through the run: by iterations if bounded so, else by time.
            let frac = if t.iterations > 0 {
                (it - 1) as f64 / t.iterations.max(1) as f64
            } else {
                wall / (t.time_limit_minutes * 60.0).max(1.0)
            }
            .clamp(0.0, 1.0);
            let lo = t.learning_rate * t.lr_final_fraction;
            lo + (t.learning_rate - lo) * 0.5 * (1.0 + (std::f64::consts::PI * frac).cos())
        }
    }
}

/// Gradient steps for an iteration that brought `new_samples` into the window: each new
/// sample drawn `samples_per_new_sample` times on average, at most
/// `max_steps_per_iteration`.
pub(super) fn gradient_steps(t: &TrainConfig, new_samples: u64) -> u32 {
    ((new_samples as f64 * t.samples_per_new_sample / t.batch_size as f64).ceil() as u32)
        .min(t.max_steps_per_iteration)
}

/// Whether iteration `it`, ending at `now` seconds into the run, is evaluated: every
/// `eval.every` iterations while the evaluations so far (`eval_seconds`) stay within
/// their share of the run's time, and always the last one (never with `every` = 0).
pub(super) fn evaluation_due(config: &Config, it: u32, now: f64, eval_seconds: f64) -> bool {
    let t = &config.train;
    let last = (t.iterations > 0 && it >= t.iterations)
        || (t.time_limit_minutes > 0.0 && now >= t.time_limit_minutes * 60.0);
    let within_share = eval_seconds <= config.eval.max_share * now;
    config.eval.every > 0 && ((it.is_multiple_of(config.eval.every) && within_share) || last)
}

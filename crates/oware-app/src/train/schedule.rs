//! What each iteration is given: its seeds, its learning rate, its number of gradient
//! steps, and whether it is evaluated.
//!
//! A run bounded by `train.iterations` is a function of its seed and config: the cosine
//! schedule follows the iteration count. A run bounded by `train.time_limit_minutes`
//! alone follows the clock, for its learning rate and for its length, so two such runs
//! differ from the first iteration whose start time differs.

use super::config::{Config, LrSchedule, TrainConfig};
use oware_core::rng::splitmix64;

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

/// Gradient steps for an iteration that brought `new_samples` into a window now holding
/// `window` samples: each new sample drawn `samples_per_new_sample` times on average, at
/// most `max_steps_per_iteration`; none while the window holds fewer than
/// `min_window_samples` or `hold_below` (a window refilled after a move to another
/// machine); and at most `max_window_passes` passes over the window.
pub(super) fn gradient_steps(
    t: &TrainConfig,
    new_samples: u64,
    window: usize,
    hold_below: u64,
) -> u32 {
    if (window as u64) < t.min_window_samples.max(hold_below) {
        return 0;
    }
    let steps = ((new_samples as f64 * t.samples_per_new_sample / t.batch_size as f64).ceil()
        as u32)
        .min(t.max_steps_per_iteration);
    if t.max_window_passes > 0.0 {
        let cap = (window as f64 * t.max_window_passes / t.batch_size as f64).ceil() as u32;
        steps.min(cap)
    } else {
        steps
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_follow_the_new_samples_within_the_window_s_limits() {
        let t = TrainConfig {
            batch_size: 100,
            samples_per_new_sample: 4.0,
            max_steps_per_iteration: 50,
            ..TrainConfig::default()
        };
        // 1 000 new samples drawn 4 times each: 40 steps of 100.
        assert_eq!(gradient_steps(&t, 1000, 1000, 0), 40);
        assert_eq!(gradient_steps(&t, 1001, 1001, 0), 41);
        assert_eq!(gradient_steps(&t, 5000, 5000, 0), 50);
        // A minimum window: nothing below it, the usual count from it on.
        let m = TrainConfig {
            min_window_samples: 3000,
            ..t.clone()
        };
        assert_eq!(gradient_steps(&m, 1000, 2999, 0), 0);
        assert_eq!(gradient_steps(&m, 1000, 3000, 0), 40);
        // At most one pass over a window of 1 000: 10 steps of 100; a big window leaves
        // the count alone.
        let p = TrainConfig {
            max_window_passes: 1.0,
            ..t.clone()
        };
        assert_eq!(gradient_steps(&p, 1000, 1000, 0), 10);
        assert_eq!(gradient_steps(&p, 1000, 250, 0), 3);
        assert_eq!(gradient_steps(&p, 1000, 100_000, 0), 40);
        // A window being refilled: nothing below the mark, the usual count from it on.
        assert_eq!(gradient_steps(&t, 1000, 4999, 5000), 0);
        assert_eq!(gradient_steps(&t, 1000, 5000, 5000), 40);
    }
}

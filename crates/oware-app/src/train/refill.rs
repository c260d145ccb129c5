//! The refill after a move. A capsule does not carry the replay window (`capsule`), so a
//! run resumed from one holds its gradient steps while self-play plays
//! `train.refill_fraction` of the samples the window held before the move. `state.json`'s
//! `refill` keeps that count until the window holds the mark again, so a run stopped or
//! moved again while it refills keeps its hold.

use super::config::Config;
use super::rundir::RunState;

/// A run's hold on gradient steps while its window refills: the mark, the check after
/// each iteration, and what the log says of them.
#[derive(Debug, Default)]
pub(super) struct Refill {
    /// No gradient step while the window holds fewer samples (0: nothing held).
    mark: u64,
    /// What the log says of the hold when the run is known to go on.
    opening: Option<String>,
}

impl Refill {
    /// The hold of a run resumed with `state`, its window holding `window` samples:
    /// `train.refill_fraction` of the samples its window held before the move, never above
    /// the window's own size, which its chunks always reach; none in a run never moved.
    pub fn open(config: &Config, state: &RunState, window: usize) -> Refill {
        if state.refill == 0 {
            return Refill::default();
        }
        let fraction = config.train.refill_fraction;
        let size = config.train.window.size(state.total_seen) as u64;
        let mark = (state.refill.min(size) as f64 * fraction).ceil() as u64;
        let opening = if mark == 0 {
            format!(
                "the window held {} samples before the move and holds {window}: gradient \
                 steps go on at once, on the samples self-play brings \
                 (train.refill_fraction = 0)",
                state.refill
            )
        } else {
            format!(
                "the window held {} samples before the move and holds {window}: self-play \
                 refills {mark} (train.refill_fraction = {fraction}) before gradient steps \
                 resume",
                state.refill
            )
        };
        Refill {
            mark,
            opening: Some(opening),
        }
    }

    /// The window size below which no gradient step is taken (0: none held).
    pub fn mark(&self) -> u64 {
        self.mark
    }

    /// The log's line on the hold of a moved run, once (`None` for a run never moved).
    pub fn take_opening_line(&mut self) -> Option<String> {
        self.opening.take()
    }

    /// After an iteration, before `state` is committed with the window now holding
    /// `window` samples: the hold ends once the window reaches the mark (`state.refill`
    /// back to 0). The log's line on the refill's progress, if any.
    pub fn check(&mut self, state: &mut RunState, window: usize) -> Option<String> {
        if state.refill == 0 {
            return None;
        }
        let mark = self.mark;
        if window as u64 >= mark {
            state.refill = 0;
            self.mark = 0;
            // Without a refill (train.refill_fraction = 0) the steps never stopped.
            return (mark > 0).then(|| {
                format!("the window holds {window} samples again: gradient steps resume")
            });
        }
        Some(format!(
            "refilling the window after the move: {window} of {mark} samples, no gradient \
             step until then"
        ))
    }

    /// The count a capsule of the run committed in `state` carries as `refill`, its window
    /// holding `window` samples: at most what the window's rule lets it hold now (it can
    /// hold up to a chunk more), so the refill always ends; a run still refilling keeps
    /// the count it had.
    pub fn carried(config: &Config, state: &RunState, window: u64) -> u64 {
        let size = config.train.window.size(state.total_seen) as u64;
        window.min(size).max(state.refill)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(fraction: f64) -> Config {
        let mut c = Config::default();
        c.train.refill_fraction = fraction;
        c
    }

    fn size_of_default() -> u64 {
        config(0.0).train.window.size(0) as u64
    }

    #[test]
    fn the_hold_lasts_until_the_window_reaches_its_share_of_what_it_held() {
        let c = config(0.5);
        let size = c.train.window.size(0) as u64;
        let held = size.min(10_000) - 1;
        let mut state = RunState {
            refill: held,
            ..RunState::default()
        };
        let mut r = Refill::open(&c, &state, 0);
        // Half of an odd count, rounded up.
        assert_eq!(r.mark(), held.div_ceil(2));
        assert!(r.take_opening_line().unwrap().contains("self-play refills"));
        assert_eq!(r.take_opening_line(), None);
        let below = r.mark() as usize - 1;
        assert!(r.check(&mut state, below).unwrap().starts_with("refilling"));
        assert_eq!((state.refill, r.mark()), (held, held.div_ceil(2)));
        let at = r.mark() as usize;
        assert!(r.check(&mut state, at).unwrap().contains("again"));
        assert_eq!((state.refill, r.mark()), (0, 0));
        assert_eq!(r.check(&mut state, 0), None);
    }

    #[test]
    fn no_hold_without_a_move_or_with_a_fraction_of_zero() {
        let state = RunState::default();
        let mut r = Refill::open(&config(1.0), &state, 0);
        assert_eq!((r.mark(), r.take_opening_line()), (0, None));
        let mut moved = RunState {
            refill: 500,
            ..RunState::default()
        };
        let mut r = Refill::open(&config(0.0), &moved, 0);
        assert_eq!(r.mark(), 0);
        assert!(r.take_opening_line().unwrap().contains("at once"));
        // Never above the window's own size.
        let big = RunState {
            refill: 10 * size_of_default(),
            ..RunState::default()
        };
        assert_eq!(
            Refill::open(&config(0.5), &big, 0).mark(),
            size_of_default() / 2
        );
        // The count goes at the first commit, with nothing to say.
        assert_eq!(r.check(&mut moved, 0), None);
        assert_eq!(moved.refill, 0);
    }

    #[test]
    fn a_capsule_carries_at_most_the_window_s_size_and_keeps_a_refill_under_way() {
        let c = config(1.0);
        let state = RunState::default();
        let size = c.train.window.size(0) as u64;
        assert_eq!(Refill::carried(&c, &state, 100), 100);
        assert_eq!(Refill::carried(&c, &state, size + 50), size);
        let refilling = RunState {
            refill: 300,
            ..RunState::default()
        };
        assert_eq!(Refill::carried(&c, &refilling, 20), 300);
    }
}

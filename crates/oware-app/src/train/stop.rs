//! The run's stop request: set from a signal handler (Ctrl-C, SIGTERM), read by the
//! training loop and its self-play at the points where nothing is half-written.

use std::sync::atomic::Ordering;

/// The signal that asked the run to stop (0: none). Set from a signal handler, so an
/// atomic store is all it does.
static STOP: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Asks a running [`train`] to stop at the next point where nothing is half-written:
/// self-play and the training steps stop at once, the iteration in flight is abandoned
/// (the run resumes from the last complete one); an evaluation in progress ends first.
/// `signal` is what [`stop_requested`] reports (the signal number, or any non-zero value).
pub fn request_stop(signal: i32) {
    STOP.store(signal.max(1), Ordering::SeqCst);
}

/// The signal passed to [`request_stop`], if any.
pub fn stop_requested() -> Option<i32> {
    match STOP.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

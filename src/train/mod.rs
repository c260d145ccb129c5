//! Training: the replay window, sample chunk files, metrics, learning-curve plots and
//! the training loop.

pub mod config;
pub mod metrics;
pub mod plot;
pub mod replay;
pub mod run;
pub mod samples;

//! Training: the config, the replay window, metrics, learning-curve plots, the run
//! directory, the schedule and the training loop.

pub mod capsule;
pub mod config;
pub mod intake;
mod learn;
pub mod machine;
pub mod metrics;
pub mod plot;
mod refill;
pub mod replay;
pub mod report;
pub mod run;
pub mod rundir;
pub mod schedule;
pub mod stop;

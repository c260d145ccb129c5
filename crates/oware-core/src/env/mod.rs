//! Many games at once: the network's input encoding and the batched environment.

pub mod batch;
pub mod config;
pub mod encoding;
mod lanes;

pub use batch::BatchEnv;
pub use config::{AutoReset, EnvConfig, EnvError, Openings, SKIP, StepOut, StepSummary};
pub use encoding::Encoding;
pub use lanes::HISTORY_SLOTS;

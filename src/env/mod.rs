//! Many games at once: the network's input encoding and the batched environment.

pub mod batch;
pub mod encoding;

pub use batch::{AutoReset, BatchEnv, EnvConfig, EnvError, Openings, SKIP, StepOut, StepSummary};
pub use encoding::Encoding;

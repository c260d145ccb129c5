//! Many games at once: the network's input encoding and the batched environment.

pub mod encoding;

pub use encoding::Encoding;

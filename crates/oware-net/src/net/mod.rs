//! The network layer: the burn policy/value model, its fast inference copy, the batched
//! [`NetEvaluator`] the search calls, checkpoints, and the training step.
//!
//! Files, in dependency order: `model` (the burn `Module` and its config, masked softmax)
//! → `fast` (plain-Rust inference copy) → `evaluator` (implements the search's
//! `Evaluator`) → `checkpoint` (one on-disk format) → `train` (the `Learner`); `average` and `grow` make
//! new checkpoints out of trained ones.

pub mod average;
pub mod checkpoint;
pub mod evaluator;
pub mod fast;
pub mod grow;
pub mod learner_config;
pub mod model;
pub mod sparse;
pub mod train;

pub use checkpoint::{Checkpoint, Manifest, resolve_model_path};
pub use evaluator::{InferencePath, NetEvaluator};
pub use model::{Activation, ModelConfig, Norm, PolicyValueNet, masked_softmax};
pub use train::{Learner, LearnerConfig, Losses, OptimizerKind, TrainBatch};

use std::path::PathBuf;

/// The one error type of the network layer: what went wrong, with the file involved.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A checkpoint is missing a part, truncated, corrupted, or does not match.
    #[error("checkpoint {path}: {message}")]
    Checkpoint {
        /// The checkpoint directory or file.
        path: PathBuf,
        /// What is wrong and, where possible, what to do.
        message: String,
    },
    /// A model or training config, or a batch, is not usable.
    #[error("{0}")]
    Config(String),
    /// burn reported an error (or panicked) while building, reading or running a model.
    #[error("model: {0}")]
    Model(String),
}

/// Where a network runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceKind {
    /// burn's `flex` CPU backend (the default; AVX-512 where the CPU has it).
    #[default]
    Cpu,
    /// burn's `wgpu` backend (only when compiled with `--features wgpu`).
    Wgpu,
}

impl DeviceKind {
    /// The burn device, or an error if this binary was built without that backend or (for
    /// wgpu) the machine has no adapter. The first call for wgpu starts its runtime.
    pub fn device(self) -> Result<burn::tensor::Device, NetError> {
        match self {
            DeviceKind::Cpu => Ok(burn::tensor::Device::flex()),
            #[cfg(feature = "wgpu")]
            DeviceKind::Wgpu => {
                wgpu_adapter()?;
                Ok(burn::tensor::Device::wgpu(
                    burn::tensor::DeviceKind::DefaultDevice,
                ))
            }
            #[cfg(not(feature = "wgpu"))]
            DeviceKind::Wgpu => Err(without_wgpu()),
        }
    }

    /// What the device is, in words, for logs: `cpu (burn flex)`, or the wgpu adapter
    /// (e.g. `wgpu: llvmpipe (LLVM 15.0.6, 256 bits), Cpu, vulkan, Mesa 22.3.6 …`). Errors as
    /// [`DeviceKind::device`] does.
    pub fn describe(self) -> Result<String, NetError> {
        match self {
            DeviceKind::Cpu => Ok("cpu (burn flex)".into()),
            #[cfg(feature = "wgpu")]
            DeviceKind::Wgpu => wgpu_adapter().map(|a| format!("wgpu: {a}")),
            #[cfg(not(feature = "wgpu"))]
            DeviceKind::Wgpu => Err(without_wgpu()),
        }
    }
}

#[cfg(not(feature = "wgpu"))]
fn without_wgpu() -> NetError {
    NetError::Config(
        "device wgpu: this binary was built without it; rebuild with `--features wgpu`".into(),
    )
}

/// Starts burn's wgpu runtime on the default adapter (wgpu's choice: a high-performance
/// GPU first; `CUBECL_WGPU_DEFAULT_DEVICE` overrides it) once per process, and returns that
/// adapter in words. Without an adapter: an error that says what to install, never a panic
/// (burn would panic at the first tensor on a lazily created device; starting it here
/// turns that into a `Result`).
#[cfg(feature = "wgpu")]
fn wgpu_adapter() -> Result<&'static str, NetError> {
    static ADAPTER: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    ADAPTER
        .get_or_init(|| {
            let started = catch_burn("starting wgpu", || {
                burn::tensor::Device::wgpu_options().init_with_setup()
            })
            .map_err(|e| e.to_string())?;
            let (_, setup) = started.map_err(|e| e.to_string())?;
            let a = setup.adapter.get_info();
            let mut s = format!("{}, {:?}, {}", a.name, a.device_type, a.backend);
            if !a.driver_info.is_empty() {
                s.push_str(&format!(", {}", a.driver_info));
            }
            if a.device_type == burn::tensor::wgpu::wgpu::DeviceType::Cpu {
                s.push_str(" (a software renderer on the CPU, not a GPU)");
            }
            Ok(s)
        })
        .as_ref()
        .map(String::as_str)
        .map_err(|why| {
            NetError::Config(format!(
                "device wgpu: no usable GPU adapter ({}); install the GPU's Vulkan driver \
                 (Debian: mesa-vulkan-drivers libvulkan1, or the vendor's), check with \
                 `vulkaninfo --summary`, or use device cpu",
                why.replace('\n', " ")
            ))
        })
}

impl std::str::FromStr for DeviceKind {
    type Err = NetError;

    fn from_str(s: &str) -> Result<Self, NetError> {
        match s {
            "cpu" => Ok(DeviceKind::Cpu),
            "wgpu" => Ok(DeviceKind::Wgpu),
            _ => Err(NetError::Config(format!(
                "unknown device '{s}': expected cpu or wgpu"
            ))),
        }
    }
}

/// Runs `f`, turning a panic inside burn into an error: burn asserts on shapes and data
/// where we want a message.
pub(crate) fn catch_burn<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, NetError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        NetError::Model(format!("{what}: {msg}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_parse_and_missing_backends_say_how_to_get_them() {
        assert_eq!("cpu".parse::<DeviceKind>().unwrap(), DeviceKind::Cpu);
        assert!("tpu".parse::<DeviceKind>().is_err());
        assert!(DeviceKind::Cpu.device().is_ok());
        assert_eq!(DeviceKind::Cpu.describe().unwrap(), "cpu (burn flex)");
        #[cfg(not(feature = "wgpu"))]
        assert!(
            DeviceKind::Wgpu
                .device()
                .unwrap_err()
                .to_string()
                .contains("--features wgpu")
        );
        #[cfg(not(feature = "wgpu"))]
        assert!(DeviceKind::Wgpu.describe().is_err());
    }
}

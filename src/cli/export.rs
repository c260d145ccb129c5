//! `oware export`: a checkpoint as ONNX or safetensors, with a JSON manifest beside it.

use std::path::PathBuf;

use anyhow::{Result, anyhow};

use oware_net::export::{Format, export};

/// Arguments of `oware export`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A checkpoint directory, or a run directory (its latest checkpoint).
    /// Default: the shipped network, checkpoints/oware-abapa.
    #[arg(long, default_value_os_t = oware_net::net::checkpoint::default_model_path(), hide_default_value = true)]
    model: PathBuf,
    /// `onnx` (input `features [batch, dim]`; outputs `policy_logits [batch, 6]`,
    /// `wdl_logits [batch, 3]`, `store_diff [batch, 1]`) or `safetensors` (the weights,
    /// PyTorch layout).
    #[arg(long, default_value = "onnx")]
    format: String,
    /// The file to write; the manifest goes to FILE.json.
    #[arg(long)]
    out: PathBuf,
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    let format: Format = a
        .format
        .parse()
        .map_err(|e: String| anyhow!("--format: {e}"))?;
    let done = export(&a.model, format, &a.out)?;
    super::out(&format!(
        "wrote {} ({} bytes) and {}\n",
        done.file.display(),
        done.bytes,
        done.manifest.display()
    ))
}

//! `oware grow`: a checkpoint grown wider or deeper, computing what it computed.

use std::path::PathBuf;

use anyhow::{Result, bail};

use oware_net::net::grow::{grow_checkpoint, size};

/// Arguments of `oware grow`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The checkpoint to grow: a checkpoint directory or a run directory (its latest).
    #[arg(long)]
    model: PathBuf,
    /// The new width of every hidden layer (default: as it is).
    #[arg(long)]
    width: Option<usize>,
    /// The new number of residual blocks (default: as it is); needs a ReLU network.
    #[arg(long)]
    blocks: Option<usize>,
    /// Seed of the new units' incoming weights and the new blocks' first layers.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The new checkpoint directory (must not exist).
    #[arg(long)]
    out: PathBuf,
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    if a.width.is_none() && a.blocks.is_none() {
        bail!("give --width, --blocks or both: the size to grow the network to");
    }
    let done = grow_checkpoint(&a.model, a.width, a.blocks, a.seed, &a.out)?;
    let m = &done.manifest.model;
    super::out(&format!(
        "wrote {}: {} grown from {} to {} ({} parameters), the same outputs; \
         no optimizer state\n",
        a.out.display(),
        done.input.display(),
        size(&done.from),
        size(m),
        m.parameters()
    ))
}

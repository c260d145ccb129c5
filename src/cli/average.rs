//! `oware average`: one checkpoint whose weights are the mean of several.

use std::path::PathBuf;

use anyhow::Result;

use oware_net::net::average::average_checkpoints;

/// Arguments of `oware average`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The checkpoints to average (two or more), each a checkpoint directory or a run
    /// directory (its latest checkpoint); all of one network shape and rule set.
    #[arg(required = true, num_args = 2..)]
    models: Vec<PathBuf>,
    /// The new checkpoint directory (must not exist).
    #[arg(long)]
    out: PathBuf,
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    let done = average_checkpoints(&a.models, &a.out)?;
    super::out(&format!(
        "wrote {}: the mean of {} checkpoints ({})\n",
        a.out.display(),
        done.inputs.len(),
        done.manifest.parent.as_deref().unwrap_or("")
    ))
}

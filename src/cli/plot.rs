//! `oware plot`: learning curves of a run as PNG.

use std::path::PathBuf;

use anyhow::{Result, bail};

use oware_app::train::metrics;
use oware_app::train::plot::learning_curves;
use oware_app::train::rundir::RunDir;

/// Arguments of `oware plot`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The run directory (with metrics.csv).
    #[arg(long)]
    run_dir: PathBuf,
    /// Output file (default: RUN/learning-curves.png).
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<()> {
    let dir = RunDir {
        root: a.run_dir.clone(),
    };
    if !dir.metrics().exists() {
        bail!(
            "{} has no metrics.csv: is it a training run directory?",
            a.run_dir.display()
        );
    }
    let rows = metrics::read(&dir.metrics())?;
    if rows.is_empty() {
        bail!(
            "{} has no rows: nothing to draw (a run writes one row per finished iteration)",
            dir.metrics().display()
        );
    }
    let out = a.out.unwrap_or_else(|| dir.plot());
    // The pool's anchor rating, from the run's config (0, the default, without one).
    let anchor_elo = if dir.config().exists() {
        oware_app::train::config::Config::load_saved(&dir.config())?
            .eval
            .opponent_elo
    } else {
        0.0
    };
    learning_curves(&rows, &out, &dir.name(), anchor_elo)?;
    super::out(&format!("{} ({} iterations)\n", out.display(), rows.len()))
}

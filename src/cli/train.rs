//! `oware train`: runs (or resumes) a training run from a config file.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use oware_app::train::config::Config;
use oware_app::train::report::Display;
use oware_app::train::rundir::{self, RunDir};
use oware_app::train::{run, stop};

/// Arguments of `oware train`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Config file (TOML); see configs/ and the README for every key.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Run directory (default: experiments/<config file name>).
    #[arg(long)]
    run_dir: Option<PathBuf>,
    /// Override a config key, e.g. --set train.batch_size=256 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Continue the run in --run-dir with its own saved config (also a copy of a
    /// capsule: the run goes on where the capsule was written).
    #[arg(long)]
    resume: bool,
    /// Keep DIR up to date as the run's capsule: everything but the sample chunks (the
    /// config, the state, the latest checkpoint with its optimizer state, the metrics and
    /// the pool), rewritten in one step after every iteration. A copy resumes anywhere.
    #[arg(long, value_name = "DIR")]
    capsule: Option<PathBuf>,
    /// Serve the web app on 127.0.0.1:PORT while the run trains (0: any free port), its
    /// Training tab watching this run and the runs beside it (those under the run
    /// directory's parent folder, as `oware serve --runs` shows them). It only reads, and
    /// ends with the run.
    #[arg(long, value_name = "PORT")]
    serve: Option<u16>,
    /// Log lines instead of a progress bar.
    #[arg(long)]
    no_progress: bool,
    /// Print nothing but errors.
    #[arg(long)]
    quiet: bool,
}

/// The config keys `--set` may change where a run resumes: its limits, and how a moved
/// run refills its window (`rundir::effective_config` keeps the rest).
const RESUME_KEYS: [&str; 3] = [
    "train.iterations",
    "train.time_limit_minutes",
    "train.refill_fraction",
];

pub fn run(a: Args) -> Result<()> {
    let run_dir = match (&a.run_dir, &a.config) {
        (Some(d), _) => d.clone(),
        (None, Some(c)) => {
            let stem = c.file_stem().and_then(|s| s.to_str()).unwrap_or("run");
            PathBuf::from("experiments").join(stem)
        }
        (None, None) => {
            bail!("give --config FILE to start a run, or --resume --run-dir DIR to continue one")
        }
    };
    let dir = RunDir {
        root: run_dir.clone(),
    };
    if oware_app::train::capsule::is_capsule(&run_dir) {
        // A copy of a capsule: every file checked before its config is read.
        oware_app::train::capsule::check(&run_dir)?;
    }
    if let Some(c) = &a.capsule
        && std::path::absolute(c)? == std::path::absolute(&run_dir)?
    {
        bail!(
            "--capsule {}: the capsule must be another folder than the run's",
            c.display()
        );
    }
    let config = match &a.config {
        Some(path) => Some(Config::load(path, &a.set)?),
        None if a.resume => None,
        None => bail!(
            "give --config FILE (or --resume to continue {})",
            run_dir.display()
        ),
    };
    let mut config = rundir::effective_config(&dir, config)?;
    if a.config.is_none() && !a.set.is_empty() {
        // Resuming with overrides of the limits only.
        for kv in &a.set {
            let key = kv.split('=').next().unwrap_or("").trim();
            if !RESUME_KEYS.contains(&key) {
                bail!(
                    "--set {kv}: a run resumes with its own config; only {} can change on \
                     resume (start a new run with another --run-dir to change {key})",
                    RESUME_KEYS.join(", ")
                );
            }
        }
        let text = config.to_toml();
        let c = Config::from_toml(&text, &a.set)?;
        config = rundir::effective_config(&dir, Some(c))?;
    }
    let display = if a.quiet {
        Display::Quiet
    } else if a.no_progress {
        Display::Lines
    } else {
        Display::Auto
    };
    if let Some(port) = a.serve {
        serve_beside(port, &run_dir)?;
    }
    stop_on_signals();
    oware_app::train::metrics::tune_allocator();
    let state = run::train(
        config,
        &run_dir,
        display,
        Some(&run::evaluate_gauntlet),
        a.capsule.as_deref(),
    )?;
    if let Some(sig) = stop::stop_requested() {
        if !a.quiet {
            eprintln!(
                "stopped by signal {sig} after iteration {}; run the same command to resume",
                state.iteration
            );
        }
        std::process::exit(128 + sig);
    }
    if !a.quiet {
        eprintln!(
            "done: {} iterations, {} games, {:.1} minutes\nlatest checkpoint: {}",
            state.iteration,
            state.total_games,
            state.wall_seconds / 60.0,
            run_dir
                .join("checkpoints")
                .join(&state.checkpoint)
                .display()
        );
    }
    Ok(())
}

/// Starts the web app for `--serve PORT` and says where its page is (on stdout, even
/// with `--quiet`: it was asked for).
fn serve_beside(port: u16, run_dir: &Path) -> Result<()> {
    let abs = std::path::absolute(run_dir)?;
    let runs = abs.parent().map_or_else(|| abs.clone(), Path::to_path_buf);
    let name = abs
        .file_name()
        .map_or_else(|| ".".to_string(), |n| n.to_string_lossy().into_owned());
    let addr = super::serve::start_beside_training(port, runs.clone())?;
    let id = encode(&name);
    super::out(&format!(
        "oware train: watch the run on http://{addr}/?tab=training&runs={id}&run={id} \
         (runs under {})\n",
        runs.display()
    ))
}

/// `s` as a browser's `encodeURIComponent` writes it.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'_'
            | b'.'
            | b'!'
            | b'~'
            | b'*'
            | b'\''
            | b'('
            | b')' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// SIGINT (Ctrl-C) and SIGTERM ask the run to stop at the next point where nothing is
/// half-written ([`stop::request_stop`]); a second one ends the process at once, which is
/// safe too, since every file is written to a temporary name and renamed.
fn stop_on_signals() {
    extern "C" fn handler(sig: libc::c_int) {
        if stop::stop_requested().is_some() {
            // SAFETY: _exit ends the process at once, as a signal handler may.
            unsafe { libc::_exit(128 + sig) }
        }
        stop::request_stop(sig);
    }
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only does an atomic load and store, and _exit.
        unsafe {
            libc::signal(sig, handler as *const () as libc::sighandler_t);
        }
    }
}

//! `oware serve`: the web app and the JSON API (docs/http-api.md) on one address.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use oware_app::serve::{ServeLimits, ServeSetup, is_loopback, serve};
use oware_core::search::Evaluator;
use oware_net::net::{DeviceKind, NetEvaluator};

/// Arguments of `oware serve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Address to listen on. The default is reachable from this machine only; give
    /// 0.0.0.0 to let other machines in (there is no authentication).
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// A checkpoint directory, or a run directory (its latest checkpoint).
    /// Default: the shipped network, checkpoints/oware-abapa.
    #[arg(long, default_value_os_t = oware_net::net::checkpoint::default_model_path(), hide_default_value = true)]
    model: PathBuf,
    /// Searches run at once (one thread and one network copy each); default: the
    /// number of CPUs, at most 4.
    #[arg(long)]
    searchers: Option<usize>,
    /// Searches that may wait for a free searcher; more are answered HTTP 503.
    #[arg(long, default_value_t = 64)]
    queue: usize,
    /// Most simulations one `bestmove` request may ask for.
    #[arg(long, default_value_t = 3200)]
    max_sims: u32,
    /// Longest one search may run, in milliseconds.
    #[arg(long, default_value_t = 5000)]
    max_movetime_ms: u64,
    /// Longest infinite analysis (`POST /api/v1/infinite`, the web app's "infinite
    /// analysis"), in seconds: it stops then even if its page is still open.
    #[arg(long, default_value_t = oware_app::serve::DEFAULT_ANALYSIS_SECONDS)]
    analysis_max_seconds: u64,
    /// Puzzles to find in self-play games after start-up (0: none).
    #[arg(long, default_value_t = 60)]
    puzzles: usize,
    /// Endgame tables (`oware tablebase build`): searches end where they prove the
    /// result, analysis takes proven results from them, and `bestmove`
    /// reports the result with best play where proven.
    /// Default: the shipped tables of the model's rules (`tablebases/RULES`), if present,
    /// as `oware engine` opens them.
    #[arg(long)]
    tb: Option<PathBuf>,
    /// No endgame tables, not even the shipped ones.
    #[arg(long, conflicts_with = "tb")]
    no_tb: bool,
    /// Seed of the puzzle games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The folder whose training runs the Training tab shows, searched recursively
    /// (read only: a run that trains is never written to or locked).
    #[arg(long, default_value = "experiments")]
    runs: PathBuf,
}

/// Serves the web app on `127.0.0.1:port` (0: any free port) from a thread of its own,
/// for `oware train --serve`: its Training tab shows the runs under `runs`; one searcher
/// with the shipped network plays and analyses (a run's checkpoints load on demand), and
/// no puzzle is searched for and no table opened, so that the server costs the run
/// nothing while no page asks. Returns the address it listens on; it serves until the
/// process ends.
pub fn start_beside_training(port: u16, runs: PathBuf) -> Result<SocketAddr> {
    let model = oware_net::net::checkpoint::default_model_path();
    let (evaluator, manifest) = load(&model).with_context(|| {
        format!(
            "--serve: the web app plays with the shipped network {}",
            model.display()
        )
    })?;
    let listener = TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("--serve {port}: listening on 127.0.0.1:{port}"))?;
    let bound = listener.local_addr()?;
    let setup = ServeSetup {
        evaluators: vec![evaluator],
        puzzle_evaluator: None,
        rules: manifest.rule_set()?,
        model: format!("the shipped network (step {})", manifest.step),
        limits: ServeLimits {
            searchers: 1,
            puzzles: 0,
            ..ServeLimits::default()
        },
        seed: 1,
        trained: manifest.search_settings(),
        tablebase: None,
        runs,
    };
    std::thread::Builder::new()
        .name("serve".into())
        .spawn(move || {
            if let Err(e) = serve(listener, setup) {
                eprintln!("oware train --serve: the server stopped: {e:#}");
            }
        })?;
    Ok(bound)
}

fn load(model: &std::path::Path) -> Result<(Box<dyn Evaluator>, oware_net::net::Manifest)> {
    let (e, m) = NetEvaluator::from_checkpoint(model, DeviceKind::Cpu)?;
    Ok((Box::new(e), m))
}

/// Runs the subcommand with its parsed arguments.
pub fn run(a: Args) -> Result<()> {
    let searchers = match a.searchers {
        Some(0) => bail!("--searchers 0: expected at least 1"),
        Some(n) if n > 64 => bail!("--searchers {n}: expected at most 64"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get().min(4)),
    };
    if a.queue == 0 || a.queue > 10_000 {
        bail!("--queue {}: expected 1 to 10000", a.queue);
    }
    if a.max_sims == 0 || a.max_sims > oware_app::player::mcts::MAX_SIMULATIONS {
        bail!(
            "--max-sims {}: expected 1 to {}",
            a.max_sims,
            oware_app::player::mcts::MAX_SIMULATIONS
        );
    }
    if a.max_movetime_ms == 0 || a.max_movetime_ms > 600_000 {
        bail!(
            "--max-movetime-ms {}: expected 1 to 600000",
            a.max_movetime_ms
        );
    }
    if a.analysis_max_seconds == 0 || a.analysis_max_seconds > 86_400 {
        bail!(
            "--analysis-max-seconds {}: expected 1 to 86400",
            a.analysis_max_seconds
        );
    }
    let addr: SocketAddr = (a.host.as_str(), a.port)
        .to_socket_addrs()
        .with_context(|| format!("--host {}", a.host))?
        .next()
        .with_context(|| format!("--host {}: no address", a.host))?;

    let (first, manifest) = load(&a.model)?;
    let rules = manifest.rule_set()?;
    let dir = match (&a.tb, a.no_tb) {
        (Some(d), _) => Some(d.clone()),
        (None, true) => None,
        (None, false) => super::engine::shipped_tables(rules),
    };
    let tablebase = super::open_tablebase(dir.as_deref(), rules)?;
    let mut evaluators = vec![first];
    for _ in 1..searchers {
        evaluators.push(load(&a.model)?.0);
    }
    let puzzle_evaluator = if a.puzzles > 0 {
        Some(load(&a.model)?.0)
    } else {
        None
    };
    let limits = ServeLimits {
        max_sims: a.max_sims,
        max_movetime: Duration::from_millis(a.max_movetime_ms),
        searchers,
        queue: a.queue,
        analysis_max_time: Duration::from_secs(a.analysis_max_seconds),
        puzzles: a.puzzles,
        ..ServeLimits::default()
    };
    let listener = TcpListener::bind(addr).with_context(|| format!("listening on {addr}"))?;
    let bound = listener.local_addr()?;
    if !is_loopback(&bound) {
        eprintln!(
            "warning: listening on {bound}, which other machines can reach; the server has no authentication"
        );
    }
    super::out(&format!(
        "oware serve: http://{bound}/ (model {}, step {}, {} rules; {searchers} searchers; runs under {})\n",
        a.model.display(),
        manifest.step,
        rules.name(),
        a.runs.display()
    ))?;
    serve(
        listener,
        ServeSetup {
            evaluators,
            puzzle_evaluator,
            rules,
            // The checkpoint's name, not its path: the page shows it.
            model: format!(
                "{} (step {})",
                a.model.file_name().map_or_else(
                    || a.model.display().to_string(),
                    |n| n.to_string_lossy().into_owned()
                ),
                manifest.step
            ),
            limits,
            seed: a.seed,
            trained: manifest.search_settings(),
            tablebase,
            runs: a.runs,
        },
    )
}

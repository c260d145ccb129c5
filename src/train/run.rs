//! The training loop and its run directory.
//!
//! Each iteration: self-play with the current network → a sample chunk file → every new
//! chunk in `samples/` (this process's and any `oware selfplay` worker's) into the
//! replay window → SGD steps drawn from the window → a checkpoint → (every k
//! iterations) an evaluation → a metrics row, a plot, and the run state.
//! `train.local_selfplay = false` leaves out the self-play (the samples come from
//! workers), and `train.min_new_samples` makes an iteration wait until workers' chunks
//! bring that many new samples.
//!
//! Run directory:
//!
//! ```text
//! RUN/config.toml              the effective config
//! RUN/state.json               the commit point of an iteration (see below)
//! RUN/metrics.csv              one row per iteration
//! RUN/pool.jsonl               every evaluation game (the rating pool, `oware rate`)
//! RUN/learning-curves.png      losses, evaluation score and Elo against wall time
//! RUN/checkpoints/iter-NNNN/   model.bpk, optimizer.bpk, manifest.json
//! RUN/checkpoints/latest       name of the newest checkpoint
//! RUN/samples/*.bin            sample chunks (self-play output, the replay window's data)
//! RUN/games/iter-NNNN.txt      the iteration's self-play games (`oware replay` input)
//! ```
//!
//! Crash safety: every file is written to a temporary name and renamed. An iteration's
//! checkpoint, then its metrics row, then `state.json` are written; `state.json` names
//! the checkpoint and the window's chunks, so a run killed at any moment resumes from
//! the last iteration whose `state.json` landed, losing at most the iteration in flight.

use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::config::{Config, LrSchedule};
use super::metrics::{self, MetricsRow};
use super::plot;
use super::replay::{Chunk, ReplayWindow};
use super::samples::{atomic_write, read_chunk, write_chunk};
use crate::arena::pool;
use crate::arena::rating::IntervalMethod;
use crate::arena::{MatchConfig, Player, PlayerSpec};
use crate::game::{Game, Position, RuleSet, move_letter};
use crate::net::checkpoint::{checkpoint_name, checkpoints_dir, write_latest};
use crate::net::train::{Learner, TrainBatch};
use crate::rng::{Rng, splitmix64};
use crate::selfplay::{self, Progress, Sample, SelfPlayOutput};

/// The signal that asked the run to stop (0: none). Set from a signal handler, so an
/// atomic store is all it does.
static STOP: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// Asks a running [`train`] to stop at the next point where nothing is half-written:
/// self-play and the training steps stop at once, the iteration in flight is abandoned
/// (the run resumes from the last complete one); an evaluation in progress ends first.
/// `signal` is what [`stop_requested`] reports (the signal number, or any non-zero value).
pub fn request_stop(signal: i32) {
    STOP.store(signal.max(1), Ordering::SeqCst);
}

/// The signal passed to [`request_stop`], if any.
pub fn stop_requested() -> Option<i32> {
    match STOP.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The run directory's lock file: held (flock) by the one `oware train` writing the run,
/// with its process id inside. The kernel drops the lock when the process ends, however it
/// ends, so a stale file never blocks a new session.
pub const LOCK_FILE: &str = "lock";

/// Takes the run directory's lock, or says which process holds it.
pub fn lock_run(run: &Path) -> Result<fs::File> {
    use std::io::{Read, Seek, Write};
    use std::os::fd::AsRawFd;
    let path = run.join(LOCK_FILE);
    let mut f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    // SAFETY: flock on a file descriptor this function owns.
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r != 0 {
        let mut pid = String::new();
        let _ = f.read_to_string(&mut pid);
        bail!(
            "{} is in use by another `oware train` (pid {}): one writer per run; wait for it \
             to finish or stop it",
            run.display(),
            pid.trim()
        );
    }
    f.set_len(0)?;
    f.rewind()?;
    writeln!(f, "{}", std::process::id())?;
    f.flush()?;
    Ok(f)
}

/// What `state.json` records: enough to resume exactly.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Iterations completed.
    pub iteration: u32,
    /// The checkpoint of that iteration (directory name under `checkpoints/`).
    pub checkpoint: String,
    /// Every chunk file already taken into the window (so it is not taken twice). The
    /// files of those that left the window are deleted.
    pub consumed: std::collections::BTreeSet<String>,
    /// The chunks in the window, oldest first.
    pub window: Vec<String>,
    /// Samples ever added to the window.
    pub total_seen: u64,
    /// Wall seconds spent over all sessions.
    pub wall_seconds: f64,
    /// Self-play games over all iterations.
    pub total_games: u64,
    /// Wall seconds spent in periodic evaluations over all sessions.
    #[serde(default)]
    pub eval_seconds: f64,
}

/// One periodic evaluation's result, as the training loop records it.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalSummary {
    /// The baseline's spec.
    pub opponent: String,
    /// Score against the baseline, (wins + draws/2) / games.
    pub score: f64,
    /// Elo difference against the baseline.
    pub elo: f64,
    /// Its 95% confidence interval.
    pub elo_ci95: (f64, f64),
    /// The checkpoint's rating in the run's pool and its 95% interval (an end `None`
    /// when the games leave it unbounded); `None` when there is no pool rating.
    pub pool: Option<(f64, Option<f64>, Option<f64>)>,
    /// Perfect-play accuracy on the run's suite of table positions (outcome kept, best
    /// margin kept), when `eval.tablebase` is set.
    pub accuracy: Option<(f64, f64)>,
}

/// What an evaluation is told about the run.
#[derive(Clone, Debug)]
pub struct EvalContext {
    /// The run directory (its pool is `RUN/pool.jsonl`).
    pub run: PathBuf,
    /// The checkpoint being evaluated (its directory name, e.g. `iter-0040`).
    pub checkpoint: String,
    /// The checkpoints of the earlier evaluations, oldest first.
    pub earlier: Vec<String>,
}

/// Plays the periodic evaluation of the learner's current network.
pub type EvalFn<'a> = dyn Fn(&Config, &Learner, &EvalContext) -> Result<EvalSummary> + 'a;

/// The standard periodic evaluation, a gauntlet: the current network with MCTS
/// (`eval.simulations` per move, the run's search settings, no noise) against
/// `eval.opponent` (`eval.games` games) and against the checkpoints of the evaluations
/// `eval.gauntlet` back (`eval.gauntlet_games` each), from random openings of
/// `eval.opening_plies` plies, each played with both colours. Every game goes into the
/// run's pool (`RUN/pool.jsonl`, players named by checkpoint); the pool is rated anew,
/// anchored at the baseline's `eval.opponent_elo`. The seed is the same at every
/// evaluation, so successive checkpoints play the same openings.
pub fn evaluate_gauntlet(
    config: &Config,
    learner: &Learner,
    ctx: &EvalContext,
) -> Result<EvalSummary> {
    let e = &config.eval;
    let spec: PlayerSpec = e
        .opponent
        .parse()
        .map_err(|err| anyhow::anyhow!("eval.opponent: {err}"))?;
    let baseline = spec.to_string();
    let rules = config.game.rules;
    let seed = iteration_seed(config.seed, 0, 3);
    let base = MatchConfig {
        rules,
        seed,
        mcts: config.search.clone(),
        ..MatchConfig::default()
    };
    let path = ctx.run.join(POOL_FILE);
    let mut games = pool::read_pool(&path)?;
    // Games under this name from a session killed before the checkpoint was committed
    // belong to another network.
    pool::drop_player(&path, &mut games, &ctx.checkpoint)?;
    let me = ctx.checkpoint.as_str();
    let mut player = Player::search(me, e.simulations, Box::new(learner.to_inference()?));
    let mut opponent = Player::from_spec(&spec, rules, seed)?;
    let report = pool::top_up(
        &path,
        &mut games,
        (me, &mut player),
        (&baseline, &mut opponent),
        e.games,
        e.opening_plies,
        &base,
        &format!("{me}-baseline"),
        &mut |_| {},
    )?
    .context("the new checkpoint already had its games against the baseline")?;
    let mut back: Vec<u32> = e.gauntlet.clone();
    back.sort_unstable();
    back.dedup();
    for b in back {
        let Some(k) = ctx.earlier.len().checked_sub(b as usize) else {
            continue;
        };
        let name = &ctx.earlier[k];
        let dir = ctx.run.join("checkpoints").join(name);
        if !dir.join(crate::net::checkpoint::MANIFEST_FILE).exists() {
            continue;
        }
        let earlier = PlayerSpec::Model {
            path: dir,
            sims: e.simulations,
            algorithm: None,
            tb: None,
        };
        let mut them = Player::from_spec(&earlier, rules, seed)?;
        pool::top_up(
            &path,
            &mut games,
            (me, &mut player),
            (name, &mut them),
            e.gauntlet_games,
            e.opening_plies,
            &base,
            &format!("{me}-{name}"),
            &mut |_| {},
        )?;
    }
    // The Hessian's intervals: a bootstrap refits the whole pool hundreds of times,
    // and a long run's pool holds a player per evaluation.
    let table = pool::rate_pool(&games, &baseline, e.opponent_elo, IntervalMethod::Hessian)
        .map_err(|err| anyhow::anyhow!("rating the pool: {err}"))?;
    let accuracy = if e.tablebase.is_empty() {
        None
    } else {
        Some(perfect_play_accuracy(config, ctx, &mut player, &base)?)
    };
    let s = &report.summary;
    Ok(EvalSummary {
        opponent: e.opponent.clone(),
        score: s.score,
        elo: s.elo,
        elo_ci95: (s.elo_ci95[0], s.elo_ci95[1]),
        pool: table
            .get(me)
            .and_then(|r| Some((r.elo?, r.elo_low, r.elo_high))),
        accuracy,
    })
}

/// The file a run keeps its accuracy suite in when `eval.accuracy_suite` is empty.
pub const ACCURACY_SUITE_FILE: &str = "accuracy-suite.txt";

/// The network's perfect-play accuracy (outcome, margin) on the run's fixed suite of
/// table positions: `eval.accuracy_suite`, or the suite taken from the run's own games at
/// the first evaluation and kept in the run directory, so every evaluation of the run is
/// judged on the same positions.
fn perfect_play_accuracy(
    config: &Config,
    ctx: &EvalContext,
    player: &mut Player,
    base: &MatchConfig,
) -> Result<(f64, f64)> {
    use crate::arena::accuracy;
    let e = &config.eval;
    let rules = config.game.rules;
    let tb = crate::tablebase::open_shared(Path::new(&e.tablebase))
        .with_context(|| format!("eval.tablebase = {}", e.tablebase))?;
    if tb.rules() != rules {
        bail!(
            "eval.tablebase = {}: the tables are for {}, the run plays {rules}",
            e.tablebase,
            tb.rules()
        );
    }
    let kept = ctx.run.join(ACCURACY_SUITE_FILE);
    let (path, generate) = if e.accuracy_suite.is_empty() {
        (kept.clone(), !kept.exists())
    } else {
        (PathBuf::from(&e.accuracy_suite), false)
    };
    if generate {
        // Every self-play game of the run so far, in iteration order.
        let mut files: Vec<PathBuf> = fs::read_dir(ctx.run.join("games"))
            .with_context(|| "reading the run's games for the accuracy suite")?
            .filter_map(|d| d.ok().map(|d| d.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .collect();
        files.sort();
        let mut games = Vec::new();
        for f in &files {
            let text = fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?;
            for (n, line) in text.lines().enumerate() {
                let Some((fen, moves)) = line.split_once(';') else {
                    continue;
                };
                let start: Position = fen
                    .trim()
                    .parse()
                    .map_err(|err| anyhow::anyhow!("{}: line {}: {err}", f.display(), n + 1))?;
                let mut g = Game::new(rules, start);
                g.play_text(moves.trim())
                    .map_err(|err| anyhow::anyhow!("{}: line {}: {err}", f.display(), n + 1))?;
                games.push((start, g.moves().iter().map(|&(_, a)| a).collect()));
            }
        }
        let suite = accuracy::suite_from_games(
            &tb,
            rules,
            &games,
            2,
            e.accuracy_positions,
            iteration_seed(config.seed, 0, 4),
        );
        atomic_write(&kept, accuracy::suite_text(&suite).as_bytes())?;
    }
    let text = fs::read_to_string(&path)
        .with_context(|| format!("eval.accuracy_suite: cannot read {}", path.display()))?;
    let mut suite = accuracy::parse_suite(&text, rules)
        .map_err(|err| anyhow::anyhow!("eval.accuracy_suite {}: {err}", path.display()))?;
    suite.retain(|g| tb.covers(g.position()) && !g.is_over());
    suite.truncate(e.accuracy_positions);
    if suite.is_empty() {
        bail!(
            "{}: no position of the suite is covered by the tables in {}",
            path.display(),
            e.tablebase
        );
    }
    let r = accuracy::measure(base, player, &tb, &suite)
        .map_err(|err| anyhow::anyhow!("perfect-play accuracy: {err}"))?;
    Ok((r.outcome_accuracy, r.margin_accuracy))
}

/// The run's rating pool, inside the run directory.
pub const POOL_FILE: &str = "pool.jsonl";

/// Paths inside a run directory.
pub struct RunDir {
    /// The run directory.
    pub root: PathBuf,
}

impl RunDir {
    /// `RUN/config.toml`.
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    /// `RUN/state.json`.
    pub fn state(&self) -> PathBuf {
        self.root.join("state.json")
    }
    /// `RUN/metrics.csv`.
    pub fn metrics(&self) -> PathBuf {
        self.root.join("metrics.csv")
    }
    /// `RUN/samples`.
    pub fn samples(&self) -> PathBuf {
        self.root.join("samples")
    }
    /// `RUN/checkpoints/NAME`.
    pub fn checkpoint(&self, name: &str) -> PathBuf {
        checkpoints_dir(&self.root).join(name)
    }
    /// `RUN/games`.
    pub fn games(&self) -> PathBuf {
        self.root.join("games")
    }
    /// `RUN/learning-curves.png`.
    pub fn plot(&self) -> PathBuf {
        self.root.join("learning-curves.png")
    }
    /// The run's name: its directory's (`quick` for `experiments/quick`).
    pub fn name(&self) -> String {
        let abs = std::path::absolute(&self.root).unwrap_or_else(|_| self.root.clone());
        abs.file_name()
            .map_or_else(|| "run".to_string(), |n| n.to_string_lossy().into_owned())
    }

    /// Reads `state.json`, if the run has one.
    pub fn read_state(&self) -> Result<Option<RunState>> {
        let p = self.state();
        if !p.exists() {
            return Ok(None);
        }
        let text = fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
        let s =
            serde_json::from_str(&text).with_context(|| format!("{} is damaged", p.display()))?;
        Ok(Some(s))
    }
}

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Display {
    /// A progress bar on a terminal, log lines otherwise.
    Auto,
    /// Log lines only.
    Lines,
    /// Nothing but errors.
    Quiet,
}

fn iteration_seed(seed: u64, iteration: u32, purpose: u64) -> u64 {
    let mut x =
        seed ^ (iteration as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ purpose.rotate_left(32);
    splitmix64(&mut x)
}

/// Loads the config a run should use: a new run takes `config`; an existing run
/// (with `state.json`) keeps its own `config.toml`, and `config`, if given, must equal it
/// except for the limits in `[train]` (iterations, time limit), which may be extended.
pub fn effective_config(run: &RunDir, config: Option<Config>) -> Result<Config> {
    let saved = if run.config().exists() && run.state().exists() {
        Some(Config::load(&run.config(), &[])?)
    } else {
        None
    };
    match (saved, config) {
        (None, Some(c)) => Ok(c),
        (None, None) => bail!(
            "{} holds no run to resume (no state.json); give --config to start one",
            run.root.display()
        ),
        (Some(s), None) => Ok(s),
        (Some(s), Some(c)) => {
            let mut a = s.clone();
            let mut b = c.clone();
            a.train.iterations = 0;
            b.train.iterations = 0;
            a.train.time_limit_minutes = 0.0;
            b.train.time_limit_minutes = 0.0;
            if a != b {
                bail!(
                    "{} was started with a different config ({}); resume it without --config, \
                     or start a new run with another --run-dir",
                    run.root.display(),
                    run.config().display()
                );
            }
            Ok(c)
        }
    }
}

/// The learner a new run starts with: random weights, or those of `train.init_from`
/// (with its optimizer state when the checkpoint holds one), which must be a network of
/// the config's `[model]` and rules.
fn initial_learner(config: &Config, rules: RuleSet) -> Result<Learner> {
    let t = &config.train;
    let learner_config = t.learner(config.seed);
    if t.init_from.is_empty() {
        return Ok(Learner::new(&config.model, &learner_config)?);
    }
    let given = Path::new(&t.init_from);
    let dir = crate::net::checkpoint::resolve_model_path(given)
        .with_context(|| format!("train.init_from = {}", t.init_from))?;
    let manifest = crate::net::checkpoint::read_manifest(&dir)
        .with_context(|| format!("train.init_from = {}", t.init_from))?;
    if manifest.model != config.model {
        bail!(
            "train.init_from = {}: its model {} is not the config's [model] {}",
            t.init_from,
            serde_json::to_string(&manifest.model)?,
            serde_json::to_string(&config.model)?
        );
    }
    if manifest.rules != rules.to_string() {
        bail!(
            "train.init_from = {}: its rules are {}, the config's game.rules is {}",
            t.init_from,
            manifest.rules,
            rules
        );
    }
    Learner::from_checkpoint(&dir, Some(&learner_config))
        .with_context(|| format!("train.init_from = {}", t.init_from))
}

/// Runs (or resumes) training in `run_dir`. `eval` plays the periodic evaluation.
pub fn train(
    config: Config,
    run_dir: &Path,
    display: Display,
    eval: Option<&EvalFn<'_>>,
) -> Result<RunState> {
    let run = RunDir {
        root: run_dir.to_path_buf(),
    };
    fs::create_dir_all(&run.root).with_context(|| format!("creating {}", run.root.display()))?;
    let _lock = lock_run(&run.root)?;
    // Temporary files of a session killed mid-write (only this process writes here now,
    // but a selfplay worker may be mid-write: its files stay while it lives).
    crate::files::remove_stale_temps(&run.root);
    fs::create_dir_all(run.samples())?;
    let rules = config.game.rules;
    let log = |msg: String| {
        if display != Display::Quiet {
            eprintln!("{msg}");
        }
    };

    // Start or resume.
    let (mut state, mut learner) = match run.read_state()? {
        Some(s) => {
            let dir = run.checkpoint(&s.checkpoint);
            let learner = Learner::from_checkpoint(&dir, Some(&config.train.learner(config.seed)))
                .with_context(|| format!("resuming from {}", dir.display()))?;
            log(format!(
                "resuming {} after iteration {} ({})",
                run.root.display(),
                s.iteration,
                s.checkpoint
            ));
            (s, learner)
        }
        None => {
            let learner = initial_learner(&config, rules)?;
            atomic_write(&run.config(), config.to_toml().as_bytes())?;
            let name = checkpoint_name(0);
            let dir = run.checkpoint(&name);
            if dir.exists() {
                fs::remove_dir_all(&dir)?;
            }
            learner.save(&dir, rules, &config.search)?;
            let s = RunState {
                checkpoint: name.clone(),
                ..RunState::default()
            };
            atomic_write(&run.state(), serde_json::to_string_pretty(&s)?.as_bytes())?;
            write_latest(&run.root, &name)?;
            log(format!(
                "new run in {} ({} parameters, rules {}{})",
                run.root.display(),
                config.model.parameters(),
                rules,
                if config.train.init_from.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", from {} at step {}",
                        config.train.init_from,
                        learner.steps()
                    )
                }
            ));
            (s, learner)
        }
    };
    let mut window = ReplayWindow::new();
    for name in &state.window {
        let samples = read_chunk(&run.samples().join(name), rules)?;
        window.push_existing(Chunk {
            name: name.clone(),
            samples,
        });
    }
    window.total_seen = state.total_seen;
    // Chunks a killed session evicted but had not deleted yet.
    {
        let keep: std::collections::HashSet<&String> = state.window.iter().collect();
        let stale: Vec<String> = fs::read_dir(run.samples())?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| state.consumed.contains(n) && !keep.contains(n))
            .collect();
        delete_chunks(&run, &stale, &log);
    }
    let mut rows = metrics::read(&run.metrics())?;
    rows.retain(|r| r.iteration <= state.iteration);

    let selfplay_tables = selfplay::open_tablebase(&config.selfplay, rules)?;
    // Continuous self-play: the games in flight live between iterations (not across a
    // restart: a resumed run starts new ones, numbered from the iteration it resumes at).
    let mut pool = config
        .selfplay
        .continuous
        .then(|| selfplay::SelfPlayPool::new(iteration_seed(config.seed, state.iteration + 1, 1)));
    let session = Instant::now();
    let base_wall = state.wall_seconds;
    let threads = config.selfplay_threads();
    let mut batch = TrainBatch::default();
    let mut drawn: Vec<Sample> = Vec::with_capacity(config.train.batch_size);
    let mut features = vec![0.0f32; config.model.encoding.dim()];

    loop {
        let wall = base_wall + session.elapsed().as_secs_f64();
        let t = &config.train;
        if t.iterations > 0 && state.iteration >= t.iterations {
            break;
        }
        if t.time_limit_minutes > 0.0 && wall >= t.time_limit_minutes * 60.0 {
            break;
        }
        if stop_requested().is_some() {
            break;
        }
        let it = state.iteration + 1;
        let name = checkpoint_name(it as u64);
        // A checkpoint of this iteration from a killed session was never committed.
        let orphan = run.checkpoint(&name);
        if orphan.exists() {
            fs::remove_dir_all(&orphan)?;
        }

        // Self-play (none with `train.local_selfplay = false`: the samples come from
        // workers).
        let out = if t.local_selfplay {
            let evaluators = learner.evaluators(threads)?;
            let progress = Progress::default();
            let games = config.selfplay.games_per_iteration;
            std::thread::scope(|scope| {
                let pool = &mut pool;
                let handle = scope.spawn(|| match pool {
                    // Games in flight carry over to the next iteration.
                    Some(pool) => pool.play(
                        &config.selfplay,
                        &config.search,
                        rules,
                        games,
                        evaluators,
                        selfplay_tables.as_ref(),
                        &progress,
                    ),
                    None => selfplay::play(
                        &config.selfplay,
                        &config.search,
                        rules,
                        games,
                        iteration_seed(config.seed, it, 1),
                        evaluators,
                        selfplay_tables.as_ref(),
                        &progress,
                    ),
                });
                show_progress(&progress, games, it, display, &handle);
                handle.join().expect("self-play panicked")
            })
        } else {
            SelfPlayOutput::default()
        };
        if stop_requested().is_some() {
            log(format!(
                "stopped: iteration {it} abandoned, the run resumes after {}",
                state.iteration
            ));
            break;
        }
        // Wait for the workers' chunks, when the config asks for more new samples than
        // this iteration made itself.
        let need = t.min_new_samples.saturating_sub(out.samples.len() as u64);
        if need > 0 {
            let now = base_wall + session.elapsed().as_secs_f64();
            let deadline = (t.time_limit_minutes > 0.0)
                .then(|| Duration::from_secs_f64((t.time_limit_minutes * 60.0 - now).max(0.0)));
            match wait_for_samples(&run, &state.consumed, rules, need, deadline, &log)? {
                Waited::Enough => {}
                Waited::Stopped => {
                    log(format!(
                        "stopped: iteration {it} abandoned, the run resumes after {}",
                        state.iteration
                    ));
                    break;
                }
                Waited::TimeUp => {
                    log(format!(
                        "time limit reached while iteration {it} waited for samples; the run \
                         ends after iteration {}",
                        state.iteration
                    ));
                    break;
                }
            }
        }
        let chunk_name = format!("main-iter-{it:04}.bin");
        if t.local_selfplay {
            write_chunk(&run.samples().join(&chunk_name), rules, &out.samples)?;
            write_games(&run.games().join(format!("iter-{it:04}.txt")), rules, &out)?;
        }

        // Take every new chunk into the window, in name order (deterministic).
        let before: Vec<String> = window.chunk_names();
        let new_chunks = new_chunk_names(&run, &state.consumed)?;
        let mut new_samples = 0u64;
        for n in &new_chunks {
            match read_chunk(&run.samples().join(n), rules) {
                Ok(samples) => {
                    new_samples += samples.len() as u64;
                    window.add(
                        Chunk {
                            name: n.clone(),
                            samples,
                        },
                        &config.train.window,
                    );
                }
                Err(e) => {
                    // Kept aside under another name, for a look, never read again.
                    let bad = run.samples().join(format!("{n}.bad"));
                    let _ = fs::rename(run.samples().join(n), &bad);
                    log(format!(
                        "skipping sample chunk (kept as {}): {e:#}",
                        bad.display()
                    ))
                }
            }
            state.consumed.insert(n.clone());
        }
        let now_in: std::collections::HashSet<String> = window.chunk_names().into_iter().collect();
        let evicted: Vec<String> = before.into_iter().filter(|n| !now_in.contains(n)).collect();

        // Train.
        let t_train = Instant::now();
        let steps = ((new_samples as f64 * t.samples_per_new_sample / t.batch_size as f64).ceil()
            as u32)
            .min(t.max_steps_per_iteration);
        let lr = learning_rate(&config, it, wall);
        learner.set_learning_rate(lr);
        let mut rng = Rng::new(iteration_seed(config.seed, it, 2));
        let mut sums = [0.0f64; 5];
        let mut done = 0u64;
        for _ in 0..steps {
            if stop_requested().is_some() {
                break;
            }
            window.draw(&mut rng, t.batch_size, &mut drawn);
            if drawn.is_empty() {
                break;
            }
            fill_batch(&mut batch, &drawn, &config, &mut features);
            let l = learner.step(&batch)?;
            for (s, v) in sums.iter_mut().zip([
                l.policy,
                l.value,
                l.store_diff,
                l.policy_entropy,
                l.value_accuracy,
            ]) {
                *s += v as f64;
            }
            done += 1;
        }
        let train_seconds = t_train.elapsed().as_secs_f64();
        let mean = |k: usize| {
            if done > 0 {
                sums[k] / done as f64
            } else {
                f64::NAN
            }
        };

        if stop_requested().is_some() {
            log(format!(
                "stopped: iteration {it} abandoned, the run resumes after {}",
                state.iteration
            ));
            break;
        }

        // Checkpoint.
        learner.save(&run.checkpoint(&name), rules, &config.search)?;

        // Evaluation: when due, unless evaluations already took more than their share
        // of the run's time (the last is always played).
        let now = base_wall + session.elapsed().as_secs_f64();
        let last = (t.iterations > 0 && it >= t.iterations)
            || (t.time_limit_minutes > 0.0 && now >= t.time_limit_minutes * 60.0);
        let within_share = state.eval_seconds <= config.eval.max_share * now;
        let due = config.eval.every > 0 && ((it % config.eval.every == 0 && within_share) || last);
        let t_eval = Instant::now();
        let summary = match (due, eval) {
            (true, Some(f)) => {
                let ctx = EvalContext {
                    run: run.root.clone(),
                    checkpoint: name.clone(),
                    earlier: evaluated(&rows),
                };
                Some(f(&config, &learner, &ctx)?)
            }
            _ => None,
        };
        let eval_seconds = if summary.is_some() {
            t_eval.elapsed().as_secs_f64()
        } else {
            0.0
        };
        state.eval_seconds += eval_seconds;
        metrics::release_free_memory();

        // Metrics, plot, state.
        let draws = out
            .games
            .iter()
            .filter(|g| g.outcome.winner().is_none())
            .count();
        let plies: usize = out.games.iter().map(|g| g.moves.len()).sum();
        let ng = out.games.len().max(1) as f64;
        state.total_games += out.games.len() as u64;
        let row = MetricsRow {
            iteration: it,
            wall_seconds: base_wall + session.elapsed().as_secs_f64(),
            games: out.games.len() as u64,
            positions: new_samples,
            total_positions: window.total_seen,
            samples_per_second: out.samples.len() as f64 / out.seconds.max(1e-9),
            simulations_per_second: out.simulations as f64 / out.seconds.max(1e-9),
            selfplay_seconds: out.seconds,
            train_steps: done,
            train_seconds,
            learning_rate: lr,
            window: window.len() as u64,
            policy_loss: mean(0),
            value_loss: mean(1),
            store_diff_loss: mean(2),
            policy_entropy: mean(3),
            value_accuracy: mean(4),
            avg_game_length: plies as f64 / ng,
            draw_rate: draws as f64 / ng,
            eval_opponent: summary.as_ref().map(|s| s.opponent.clone()),
            eval_score: summary.as_ref().map(|s| s.score),
            eval_elo: summary.as_ref().map(|s| s.elo),
            eval_elo_low: summary.as_ref().map(|s| s.elo_ci95.0),
            eval_elo_high: summary.as_ref().map(|s| s.elo_ci95.1),
            pool_elo: summary.as_ref().and_then(|s| s.pool).map(|p| p.0),
            pool_elo_low: summary.as_ref().and_then(|s| s.pool).and_then(|p| p.1),
            pool_elo_high: summary.as_ref().and_then(|s| s.pool).and_then(|p| p.2),
            eval_seconds,
            tb_outcome_accuracy: summary.as_ref().and_then(|s| s.accuracy).map(|a| a.0),
            tb_margin_accuracy: summary.as_ref().and_then(|s| s.accuracy).map(|a| a.1),
            rss_mb: metrics::resident_mb(),
            // After this iteration's evicted chunks are gone (deleted below).
            samples_mb: (metrics::dir_mb(&run.samples())
                - evicted
                    .iter()
                    .filter_map(|n| fs::metadata(run.samples().join(n)).ok())
                    .map(|m| m.len() as f64 / 1e6)
                    .sum::<f64>())
            .max(0.0),
        };
        rows.push(row.clone());
        metrics::write(&run.metrics(), &rows)?;
        if let Err(e) =
            plot::learning_curves(&rows, &run.plot(), &run.name(), config.eval.opponent_elo)
        {
            log(format!("could not draw the learning curves: {e:#}"));
        }
        state.iteration = it;
        state.checkpoint = name.clone();
        state.window = window.chunk_names();
        state.total_seen = window.total_seen;
        state.wall_seconds = row.wall_seconds;
        atomic_write(
            &run.state(),
            serde_json::to_string_pretty(&state)?.as_bytes(),
        )?;
        write_latest(&run.root, &name)?;
        // The chunks that left the window are consumed for good: state.json no longer
        // names them, so they can go.
        delete_chunks(&run, &evicted, &log);
        // The checkpoints a later gauntlet will play are kept beyond keep_checkpoints.
        let mut needed = evaluated(&rows);
        let reach = config.eval.gauntlet.iter().copied().max().unwrap_or(0) as usize;
        needed.drain(..needed.len().saturating_sub(reach));
        prune_checkpoints(&run, config.train.keep_checkpoints, &name, &needed)?;

        for line in log_lines(
            &row,
            &config.train,
            config.train.window.size(window.total_seen),
            summary.as_ref(),
        ) {
            log(line);
        }
        if let Some(s) = &summary {
            // The pool rating and the evaluation's cost, on a line of their own.
            let mut line = String::from(" ");
            if let Some((e, lo, hi)) = s.pool {
                let end = |x: Option<f64>, inf: &str| x.map_or(inf.into(), |v| format!("{v:+.0}"));
                line.push_str(&format!(
                    " pool {e:+.0} [{}, {}] |",
                    end(lo, "-inf"),
                    end(hi, "+inf")
                ));
            }
            line.push_str(&format!(
                " eval {:.0}s, {:.1}% of the run",
                eval_seconds,
                100.0 * state.eval_seconds / row.wall_seconds.max(1e-9)
            ));
            log(line);
        }
    }
    Ok(state)
}

/// The chunk files in `RUN/samples` not taken yet, in name order.
fn new_chunk_names(
    run: &RunDir,
    consumed: &std::collections::BTreeSet<String>,
) -> Result<Vec<String>> {
    let mut names: Vec<String> = fs::read_dir(run.samples())
        .with_context(|| format!("reading {}", run.samples().display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".bin") && !n.starts_with('.') && !consumed.contains(n))
        .collect();
    names.sort();
    Ok(names)
}

/// How a wait for workers' samples ended.
#[derive(Debug, PartialEq)]
enum Waited {
    /// The new chunks hold enough samples.
    Enough,
    /// A stop was requested (Ctrl-C, SIGTERM).
    Stopped,
    /// The run's time limit passed.
    TimeUp,
}

/// Waits until the chunks in `RUN/samples` not taken yet hold at least `need` valid
/// samples, looking every 100 ms, answering a stop request at once, and saying every 30
/// seconds how many it has. A chunk that cannot be read counts nothing (the trainer sets
/// it aside when it takes the new chunks).
fn wait_for_samples(
    run: &RunDir,
    consumed: &std::collections::BTreeSet<String>,
    rules: RuleSet,
    need: u64,
    deadline: Option<Duration>,
    log: &dyn Fn(String),
) -> Result<Waited> {
    let start = Instant::now();
    let mut counted: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    let mut said = Instant::now();
    loop {
        for n in new_chunk_names(run, consumed)? {
            let path = run.samples().join(&n);
            counted
                .entry(n)
                .or_insert_with(|| read_chunk(&path, rules).map_or(0, |s| s.len() as u64));
        }
        let have: u64 = counted.values().sum();
        if have >= need {
            return Ok(Waited::Enough);
        }
        if stop_requested().is_some() {
            return Ok(Waited::Stopped);
        }
        if deadline.is_some_and(|d| start.elapsed() >= d) {
            return Ok(Waited::TimeUp);
        }
        if said.elapsed() >= Duration::from_secs(30) {
            log(format!(
                "waiting for samples from workers: {have} of {need} after {}",
                duration_text(start.elapsed().as_secs_f64())
            ));
            said = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Wall time as `42s`, `10m37s` or `2h05m`.
fn duration_text(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// A count as `736`, `52.1k` or `1.35M`.
fn count_text(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e4 {
        format!("{:.1}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// The log lines of a finished iteration, each at most 100 columns: where the run stands
/// (iteration k of N, time used and left against the time limit) and self-play; the
/// training step (losses, and the replay window: the samples it holds, at least the
/// rule's size, dropping back when its oldest chunk leaves); the evaluation if one ran.
fn log_lines(
    row: &MetricsRow,
    t: &super::config::TrainConfig,
    window_size: usize,
    eval: Option<&EvalSummary>,
) -> Vec<String> {
    let it = row.iteration;
    let mut first = if t.iterations > 0 {
        format!("iter {it} of {}", t.iterations)
    } else {
        format!("iter {it}")
    };
    first += &format!(" | {}", duration_text(row.wall_seconds));
    if t.time_limit_minutes > 0.0 {
        let left = t.time_limit_minutes * 60.0 - row.wall_seconds;
        first += &format!(", {} left", duration_text(left));
    }
    if row.games > 0 {
        first += &format!(
            " | {} games, {:.1} plies, {:.1}% draws | {} sims/s",
            row.games,
            row.avg_game_length,
            100.0 * row.draw_rate,
            count_text(row.simulations_per_second)
        );
    } else {
        // No self-play of its own (train.local_selfplay = false).
        first += &format!(
            " | {} new samples from workers",
            count_text(row.positions as f64)
        );
    }
    let second = format!(
        "  {} steps, lr {:.1e} | loss p {:.3} v {:.3} s {:.4} | acc {:.2} | window {} (rule {})",
        row.train_steps,
        row.learning_rate,
        row.policy_loss,
        row.value_loss,
        row.store_diff_loss,
        row.value_accuracy,
        count_text(row.window as f64),
        count_text(window_size as f64)
    );
    let mut lines = vec![first, second];
    if let Some(s) = eval {
        // A long opponent (a model's path) keeps its end, which names it best.
        let n = s.opponent.chars().count();
        let who = if n > 40 {
            format!("…{}", s.opponent.chars().skip(n - 39).collect::<String>())
        } else {
            s.opponent.clone()
        };
        lines.push(format!(
            "  vs {who}: score {:.3}, Elo {:+.0} [{:+.0}, {:+.0}]",
            s.score, s.elo, s.elo_ci95.0, s.elo_ci95.1
        ));
    }
    lines
}

/// The learning rate of iteration `it` under the config's schedule.
fn learning_rate(config: &Config, it: u32, wall: f64) -> f64 {
    let t = &config.train;
    match t.lr_schedule {
        LrSchedule::Constant => t.learning_rate,
        LrSchedule::Cosine => {
            // Progress through the run: by iterations if bounded so, else by time.
            let frac = if t.iterations > 0 {
                (it - 1) as f64 / t.iterations.max(1) as f64
            } else {
                wall / (t.time_limit_minutes * 60.0).max(1.0)
            }
            .clamp(0.0, 1.0);
            let lo = t.learning_rate * t.lr_final_fraction;
            lo + (t.learning_rate - lo) * 0.5 * (1.0 + (std::f64::consts::PI * frac).cos())
        }
    }
}

/// Encodes `drawn` samples into `batch`: features by the model's encoding, W/D/L target
/// `k·soft(q) + (1−k)·onehot(z)`, store difference scaled by 1/48.
fn fill_batch(batch: &mut TrainBatch, drawn: &[Sample], config: &Config, features: &mut [f32]) {
    batch.clear();
    batch.weights = config.train.loss_weights;
    let k = config.train.value_target_mix;
    for s in drawn {
        config.model.encoding.encode(&s.position, features);
        let z = match s.outcome {
            1 => [1.0, 0.0, 0.0],
            0 => [0.0, 1.0, 0.0],
            _ => [0.0, 0.0, 1.0],
        };
        let q = s.search_value.clamp(-1.0, 1.0);
        let soft = [q.max(0.0), 1.0 - q.abs(), (-q).max(0.0)];
        let wdl: [f32; 3] = std::array::from_fn(|i| (1.0 - k) * z[i] + k * soft[i]);
        let sd = (s.store_diff / crate::game::TOTAL_SEEDS as f32).clamp(-1.0, 1.0);
        batch.push(features, &s.policy, s.legal, &wdl, sd);
    }
}

/// Writes the iteration's games, one per line as `FEN;moves`, replayable by `oware replay`.
fn write_games(path: &Path, rules: RuleSet, out: &SelfPlayOutput) -> Result<()> {
    let mut text = String::new();
    for g in &out.games {
        // Replayed to know each mover (in ouril a player can move twice in a row).
        let mut game = Game::new(rules, Position::start());
        let start = *game.position();
        let mut moves = String::with_capacity(g.moves.len());
        for &a in &g.moves {
            moves.push(move_letter(game.position().side, a as usize));
            game.play(a as usize)
                .context("replaying a self-play game")?;
        }
        text.push_str(&format!("{start};{moves}\n"));
    }
    atomic_write(path, text.as_bytes())
}

/// Deletes the named chunk files from `RUN/samples` (a failure is logged: a chunk left
/// behind costs disk, not correctness).
fn delete_chunks(run: &RunDir, names: &[String], log: &dyn Fn(String)) {
    for n in names {
        let p = run.samples().join(n);
        if let Err(e) = fs::remove_file(&p)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            log(format!("could not delete {}: {e}", p.display()));
        }
    }
}

/// The checkpoints evaluated so far, oldest first.
fn evaluated(rows: &[MetricsRow]) -> Vec<String> {
    rows.iter()
        .filter(|r| r.eval_opponent.is_some())
        .map(|r| checkpoint_name(r.iteration as u64))
        .collect()
}

/// Removes the oldest `iter-*` checkpoints while more than `keep` remain, never
/// `current` nor those in `needed`.
fn prune_checkpoints(run: &RunDir, keep: usize, current: &str, needed: &[String]) -> Result<()> {
    if keep == 0 {
        return Ok(());
    }
    let dir = checkpoints_dir(&run.root);
    let mut names: Vec<String> = fs::read_dir(&dir)?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with("iter-") && !n.contains(".tmp"))
        .collect();
    names.sort();
    while names.len() > keep {
        let Some(i) = names
            .iter()
            .position(|n| n != current && !needed.contains(n))
        else {
            break;
        };
        let n = names.remove(i);
        fs::remove_dir_all(dir.join(&n)).with_context(|| format!("removing old checkpoint {n}"))?;
    }
    Ok(())
}

/// Shows self-play progress until the worker finishes: a bar on a terminal, a line
/// every 30 s otherwise.
fn show_progress<T>(
    p: &Progress,
    games: usize,
    it: u32,
    display: Display,
    handle: &std::thread::ScopedJoinHandle<'_, T>,
) {
    let t0 = Instant::now();
    let bar = (display == Display::Auto && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(games as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "iter {prefix} self-play [{bar:30}] {pos}/{len} games {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        b.set_prefix(it.to_string());
        b
    });
    let mut last_line = Instant::now();
    while !handle.is_finished() {
        std::thread::sleep(Duration::from_millis(100));
        if stop_requested().is_some() {
            p.stop.store(true, Ordering::Relaxed);
        }
        let s = t0.elapsed().as_secs_f64().max(1e-9);
        let g = p.games.load(Ordering::Relaxed);
        let msg = format!(
            "{:.1} games/s, {:.0} sims/s, {:.0} samples/s",
            g as f64 / s,
            p.simulations.load(Ordering::Relaxed) as f64 / s,
            p.samples.load(Ordering::Relaxed) as f64 / s
        );
        if let Some(b) = &bar {
            b.set_position(g);
            b.set_message(msg);
        } else if display == Display::Lines && last_line.elapsed() > Duration::from_secs(30) {
            eprintln!("iter {it} self-play: {g}/{games} games, {msg}");
            last_line = Instant::now();
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::config::TrainConfig;

    #[test]
    fn log_lines_fit_in_100_columns_and_say_how_far_the_run_is() {
        // The widest figures a run can show.
        let row = MetricsRow {
            iteration: 12_345,
            wall_seconds: 359_999.0,
            games: 4096,
            avg_game_length: 123.4,
            draw_rate: 1.0,
            simulations_per_second: 12_345_678.0,
            train_steps: 4000,
            learning_rate: 2e-3,
            policy_loss: 1.791,
            value_loss: 1.0986,
            store_diff_loss: 0.0123,
            value_accuracy: 1.0,
            window: 999_999,
            ..MetricsRow::default()
        };
        let t = TrainConfig {
            iterations: 99_999,
            time_limit_minutes: 9_000.0,
            ..TrainConfig::default()
        };
        let eval = EvalSummary {
            opponent: format!("model:{}:sims=64", "/a/very/long/path".repeat(5)),
            score: 1.0,
            elo: 919.5,
            elo_ci95: (446.0, 2000.0),
            pool: None,
            accuracy: None,
        };
        let lines = log_lines(&row, &t, 500_000, Some(&eval));
        assert_eq!(lines.len(), 3);
        for l in &lines {
            assert!(
                l.chars().count() <= 100,
                "{} columns: {l}",
                l.chars().count()
            );
        }
        assert!(
            lines[0].starts_with("iter 12345 of 99999 | 99h59m"),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains("50h00m left"), "{}", lines[0]);
        assert!(
            lines[1].contains("window 1000.0k (rule 500.0k)"),
            "{}",
            lines[1]
        );
        // A run bounded by time alone shows no N.
        let t = TrainConfig {
            iterations: 0,
            time_limit_minutes: 12.0,
            ..TrainConfig::default()
        };
        let row = MetricsRow {
            iteration: 3,
            wall_seconds: 90.0,
            ..MetricsRow::default()
        };
        let l = &log_lines(&row, &t, 50_000, None)[0];
        assert!(l.starts_with("iter 3 | 1m30s, 10m30s left |"), "{l}");
    }
}

//! The training loop. Each iteration reads as its phases:
//!
//! 1. **self-play** with the current network (or, in the first iterations of a
//!    distillation, `train.teacher`'s) → the iteration's samples and games
//!    (`selfplay`; none with `train.local_selfplay = false`, where the samples come from
//!    workers, and `train.min_new_samples` makes the iteration wait for their chunks);
//! 2. **intake**: the samples as a chunk file, then every new chunk in `samples/` into
//!    the replay window (`intake`);
//! 3. **learn**: gradient steps on batches drawn from the window, their targets built by
//!    `dataio::targets` (`learn`; `schedule` says how many and at what learning rate).
//!    With `train.overlap` this phase runs on its own thread during phase 1, on the
//!    window the last iteration left;
//! 4. **checkpoint**, then, when due, the **evaluation** (`arena::gauntlet`);
//! 5. **commit**: the metrics row, the plot, `state.json` (`rundir` says what is written
//!    in which order, and why a run killed at any moment resumes);
//! 6. **report**: the iteration's log lines (`report`).

use std::fs;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::capsule;
use super::config::Config;
use super::intake::{self, Intake, Waited};
use super::learn::{Learned, Learning};
use super::machine::{self, Leg};
use super::metrics::{self, MetricsRow};
use super::plot;
use super::refill::Refill;
use super::replay::ReplayWindow;
use super::report::{self, Display};
use super::rundir::{self, RunDir, RunState};
use super::schedule::{self, iteration_seed};
use super::stop::stop_requested;
use crate::arena::gauntlet::{self, EvalContext, EvalSummary, Gauntlet};
use crate::dataio::chunk::write_chunk;
use crate::selfplay::{self, Players, Progress, SelfPlayOutput};
use oware_core::files::atomic_write;
use oware_core::game::RuleSet;
use oware_net::net::checkpoint::{checkpoint_name, write_latest};
use oware_net::net::train::Learner;
use oware_net::net::{DeviceKind, NetEvaluator};

/// Plays the periodic evaluation of the learner's current network.
pub type EvalFn<'a> = dyn Fn(&Config, &Learner, &EvalContext) -> Result<EvalSummary> + 'a;

/// The standard periodic evaluation: the gauntlet of `arena::gauntlet` with the run's
/// `[eval]`, rules and search settings, the same openings at every evaluation.
pub fn evaluate_gauntlet(
    config: &Config,
    learner: &Learner,
    ctx: &EvalContext,
) -> Result<EvalSummary> {
    let g = Gauntlet {
        eval: &config.eval,
        rules: config.game.rules,
        search: &config.search,
        seed: iteration_seed(config.seed, 0, 3),
        suite_seed: iteration_seed(config.seed, 0, 4),
    };
    gauntlet::evaluate(&g, Box::new(learner.to_inference()?), ctx)
}

/// Self-play with `players` (the current network or the teacher): iteration `it`'s games.
/// Nothing with `train.local_selfplay = false`.
fn self_play(c: &Config, display: Display, players: Players, it: u32) -> Result<SelfPlayOutput> {
    if !c.train.local_selfplay {
        return Ok(SelfPlayOutput::default());
    }
    let mut players = players;
    let cfg = &c.selfplay;
    let caches = selfplay::with_caches(&mut players.evaluators, cfg.cache_mb);
    let progress = Progress::default();
    let games = c.selfplay.games_per_iteration;
    let rules = c.game.rules;
    let seed = iteration_seed(c.seed, it, 1);
    let mut out = std::thread::scope(|scope| {
        let handle =
            scope.spawn(|| selfplay::play(cfg, &c.search, rules, games, seed, players, &progress));
        report::show_progress(&progress, games, it, display, &handle);
        handle.join().expect("self-play panicked")
    });
    out.cache_hit_rate = selfplay::hit_rate(&caches);
    Ok(out)
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
    let dir = oware_net::net::checkpoint::resolve_model_path(given)
        .with_context(|| format!("train.init_from = {}", t.init_from))?;
    let manifest = oware_net::net::checkpoint::read_manifest(&dir)
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

/// `train.teacher`'s network, when the run has iterations left for it to play (after
/// `done` iterations); its rules must be the config's.
fn teacher(config: &Config, done: u32) -> Result<Option<NetEvaluator>> {
    let t = &config.train;
    if t.teacher.is_empty() || done >= t.teacher_iterations {
        return Ok(None);
    }
    let (e, manifest) = NetEvaluator::from_checkpoint(Path::new(&t.teacher), DeviceKind::Cpu)
        .with_context(|| format!("train.teacher = {}", t.teacher))?;
    if manifest.rules != config.game.rules.to_string() {
        bail!(
            "train.teacher = {}: its rules are {}, the config's game.rules is {}",
            t.teacher,
            manifest.rules,
            config.game.rules
        );
    }
    Ok(Some(e))
}

/// Runs (or resumes) training in `run_dir`. `eval` plays the periodic evaluation;
/// `capsule`, when given, is kept up to date after every iteration (`capsule`). A
/// `run_dir` holding an unpacked capsule is checked and unpacked first.
pub fn train(
    config: Config,
    run_dir: &Path,
    display: Display,
    eval: Option<&EvalFn<'_>>,
    capsule: Option<&Path>,
) -> Result<RunState> {
    let run = RunDir {
        root: run_dir.to_path_buf(),
    };
    if capsule::is_capsule(&run.root) {
        // Checked before anything is written here, even the lock.
        capsule::check(&run.root)?;
    }
    fs::create_dir_all(&run.root).with_context(|| format!("creating {}", run.root.display()))?;
    let _lock = rundir::lock_run(&run.root)?;
    if capsule::is_capsule(&run.root) {
        let m = capsule::unpack(&run.root)?;
        display.say(format!(
            "unpacked a capsule of iteration {} ({}, {} rules): its window of {} samples was \
             not carried",
            m.iteration, m.checkpoint, m.rules, m.window_samples
        ));
    }
    // Temporary files of a session killed mid-write (only this process writes here now,
    // but a selfplay worker may be mid-write: its files stay while it lives).
    oware_core::files::remove_stale_temps(&run.root);
    fs::create_dir_all(run.samples())?;
    let mut session = Session::open(config, run, display, capsule.map(Path::to_path_buf))?;
    let limit = session.limit_reached();
    if limit.is_none() {
        // The run goes on here: this leg's machine joins the run's record (before the
        // capsule is written, which carries it).
        let s = &session.state;
        machine::append(&session.run.root, &Leg::here(s.iteration, s.wall_seconds))?;
    }
    session.write_capsule()?;
    // A run resumed at its limit trains nothing: the log says so, with how to go on,
    // rather than how its steps would resume.
    match limit {
        Some(why) => session.log(why),
        None => {
            if let Some(n) = session.learning.refill.take_opening_line() {
                session.log(n);
            }
        }
    }
    while session.wants_another_iteration() {
        if !session.iteration(eval)? {
            break;
        }
    }
    Ok(session.state)
}

/// A training session: the run, its committed state, and what lives between iterations.
struct Session {
    config: Config,
    run: RunDir,
    display: Display,
    state: RunState,
    /// The learner and its scratch (the learn phase).
    learning: Learning,
    window: ReplayWindow,
    rows: Vec<MetricsRow>,
    /// `train.teacher`'s network while it has iterations to play.
    teacher: Option<NetEvaluator>,
    started: Instant,
    /// Wall seconds of the earlier sessions.
    base_wall: f64,
    /// `--capsule DIR`: rewritten after every iteration.
    capsule: Option<std::path::PathBuf>,
    /// Whether the log has said where the capsule goes (once a session).
    capsule_said: bool,
    /// A line for the log after the iteration's report (the refill's progress).
    note: Option<String>,
}

impl Session {
    /// Starts the run, or resumes it from its last committed iteration.
    fn open(
        config: Config,
        run: RunDir,
        display: Display,
        capsule: Option<std::path::PathBuf>,
    ) -> Result<Session> {
        let rules = config.game.rules;
        let log = |m: String| display.say(m);
        let saved = run.read_state()?;
        // The teacher before anything is written: a bad checkpoint stops the run first.
        let teacher = teacher(&config, saved.as_ref().map_or(0, |s| s.iteration))?;
        let (state, learner) = match saved {
            Some(s) => resume(&config, &run, s, &log)?,
            None => start(&config, &run, &log)?,
        };
        if config.train.device != oware_net::net::DeviceKind::Cpu {
            // The learner's device is up by now; name the adapter it runs on.
            log(format!("learner on {}", config.train.device.describe()?));
        }
        if teacher.is_some() {
            log(format!(
                "self-play by the teacher {} up to iteration {}",
                config.train.teacher, config.train.teacher_iterations
            ));
        }
        let window = intake::restore_window(&run, &state, rules, &log)?;
        let mut rows = metrics::read(&run.metrics())?;
        rows.retain(|r| r.iteration <= state.iteration);
        let mut learning = Learning::new(learner, &config);
        learning.refill = Refill::open(&config, &state, window.len());
        Ok(Session {
            base_wall: state.wall_seconds,
            learning,
            capsule,
            capsule_said: false,
            note: None,
            started: Instant::now(),
            config,
            run,
            display,
            state,
            window,
            rows,
            teacher,
        })
    }

    fn log(&self, msg: String) {
        self.display.say(msg);
    }

    /// Rewrites the capsule (`--capsule`) from the state committed last.
    fn write_capsule(&mut self) -> Result<()> {
        let Some(dest) = &self.capsule else {
            return Ok(());
        };
        let window = self.window.len() as u64;
        let bytes = capsule::write(&self.run, &self.config, &self.state, window, dest)?;
        if !self.capsule_said {
            self.capsule_said = true;
            self.log(format!(
                "capsule {} written ({:.1} MB, iteration {}); it is rewritten after every \
                 iteration",
                dest.display(),
                bytes as f64 / 1e6,
                self.state.iteration
            ));
        }
        Ok(())
    }

    /// Wall seconds of the run so far, earlier sessions included.
    fn wall(&self) -> f64 {
        self.base_wall + self.started.elapsed().as_secs_f64()
    }

    /// Why a resumed run has nothing left to train under its limits, with how to extend
    /// them; `None` while it has, and for a new run.
    fn limit_reached(&self) -> Option<String> {
        let (t, s) = (&self.config.train, &self.state);
        if s.iteration == 0 {
            return None;
        }
        let how = "nothing to train. To go on, raise it where the run resumes:";
        if t.iterations > 0 && s.iteration >= t.iterations {
            return Some(format!(
                "the run already reached its limit of {} iterations: {how} --set \
                 train.iterations={}",
                t.iterations,
                s.iteration * 2
            ));
        }
        let minutes = self.wall() / 60.0;
        (t.time_limit_minutes > 0.0 && minutes >= t.time_limit_minutes).then(|| {
            format!(
                "the run already reached its time limit of {} minutes ({minutes:.1} trained, \
                 iteration {}): {how} --set train.time_limit_minutes={}",
                t.time_limit_minutes,
                s.iteration,
                (t.time_limit_minutes * 2.0).ceil()
            )
        })
    }

    /// False once the run reached its iterations or its time, or was asked to stop.
    fn wants_another_iteration(&self) -> bool {
        let t = &self.config.train;
        !((t.iterations > 0 && self.state.iteration >= t.iterations)
            || (t.time_limit_minutes > 0.0 && self.wall() >= t.time_limit_minutes * 60.0)
            || stop_requested().is_some())
    }

    fn abandoned(&self, it: u32) {
        self.log(format!(
            "stopped: iteration {it} abandoned, the run resumes after {}",
            self.state.iteration
        ));
    }

    /// One iteration, phase by phase; false when the run stops instead of going on.
    fn iteration(&mut self, eval: Option<&EvalFn<'_>>) -> Result<bool> {
        let wall = self.wall();
        let it = self.state.iteration + 1;
        let name = checkpoint_name(it as u64);
        // A checkpoint of this iteration from a killed session was never committed.
        let orphan = self.run.checkpoint(&name);
        if orphan.exists() {
            fs::remove_dir_all(&orphan)?;
        }
        let Some((out, intake, learned)) = (if self.config.train.overlap {
            self.play_while_learning(it, wall)?
        } else {
            self.play_then_learn(it, wall)?
        }) else {
            return Ok(false);
        };
        if stop_requested().is_some() {
            self.abandoned(it);
            return Ok(false);
        }
        self.learning.learner.save(
            &self.run.checkpoint(&name),
            self.config.game.rules,
            &self.config.search,
        )?;
        let (summary, eval_seconds) = self.evaluate(it, &name, eval)?;
        metrics::release_free_memory();
        let row = self.commit(it, &name, &out, &intake, &learned, &summary, eval_seconds)?;
        self.report(&row, summary.as_ref(), eval_seconds);
        if let Some(note) = self.note.take() {
            self.log(note);
        }
        self.write_capsule()?;
        Ok(true)
    }

    /// Self-play, then the learn phase on a window that holds this iteration's samples;
    /// `None` when the run stops instead.
    fn play_then_learn(
        &mut self,
        it: u32,
        wall: f64,
    ) -> Result<Option<(SelfPlayOutput, Intake, Learned)>> {
        let players = self.players(it)?;
        let c = &self.config;
        let out = self_play(c, self.display, players, it)?;
        let Some(intake) = self.take_in(it, &out)? else {
            return Ok(None);
        };
        let learned =
            self.learning
                .learn(&self.config, &self.window, it, wall, intake.new_samples)?;
        Ok(Some((out, intake, learned)))
    }

    /// `train.overlap`: the learn phase on its own thread, on the window as the last
    /// iteration left it (its new samples are the last intake's), while self-play plays
    /// this iteration's games with the network as it was before these steps; then the
    /// intake. Self-play's data reaches the learner one iteration later than in
    /// [`Session::play_then_learn`], and the network it plays with is one iteration
    /// older. `None` when the run stops instead.
    fn play_while_learning(
        &mut self,
        it: u32,
        wall: f64,
    ) -> Result<Option<(SelfPlayOutput, Intake, Learned)>> {
        let players = self.players(it)?;
        let new_samples = self.state.last_new_samples;
        let (c, window, learning) = (&self.config, &self.window, &mut self.learning);
        let display = self.display;
        let (out, learned) = std::thread::scope(|scope| {
            let learner = scope.spawn(move || learning.learn(c, window, it, wall, new_samples));
            let out = self_play(c, display, players, it);
            let learned = learner.join().expect("the learner thread panicked");
            (out, learned)
        });
        let (out, learned) = (out?, learned?);
        let Some(intake) = self.take_in(it, &out)? else {
            return Ok(None);
        };
        Ok(Some((out, intake, learned)))
    }

    /// After self-play: stops if asked, waits for the workers' samples if the config
    /// wants more, then the intake; `None` when the run stops instead.
    fn take_in(&mut self, it: u32, out: &SelfPlayOutput) -> Result<Option<Intake>> {
        if stop_requested().is_some() {
            self.abandoned(it);
            return Ok(None);
        }
        if !self.wait_for_workers(it, out.samples.len() as u64)? {
            return Ok(None);
        }
        Ok(Some(self.intake(it, out)?))
    }

    /// Who plays iteration `it`'s self-play: one evaluator per thread, copies of the
    /// teacher's network during its iterations (its policy mixed into the targets by
    /// `train.teacher_policy_mix`), else of the learner's as it is now.
    fn players(&mut self, it: u32) -> Result<Players> {
        let c = &self.config;
        if !c.train.local_selfplay {
            return Ok(Players {
                evaluators: Vec::new(),
                prior_mix: 0.0,
            });
        }
        let threads = c.selfplay_threads();
        if it > c.train.teacher_iterations {
            // Its iterations are over: free it.
            self.teacher = None;
        }
        if let Some(t) = &self.teacher {
            return Ok(Players {
                evaluators: (0..threads)
                    .map(|_| Box::new(t.clone()) as Box<dyn oware_core::search::Evaluator>)
                    .collect(),
                prior_mix: c.train.teacher_policy_mix,
            });
        }
        Ok(Players {
            evaluators: self.learning.learner.evaluators(threads)?,
            prior_mix: 0.0,
        })
    }

    /// Waits for the workers' chunks when the config asks for more new samples than the
    /// iteration made itself (`made`); false when the run stops instead.
    fn wait_for_workers(&self, it: u32, made: u64) -> Result<bool> {
        let t = &self.config.train;
        let need = t.min_new_samples.saturating_sub(made);
        if need == 0 {
            return Ok(true);
        }
        let deadline = (t.time_limit_minutes > 0.0).then(|| {
            std::time::Duration::from_secs_f64((t.time_limit_minutes * 60.0 - self.wall()).max(0.0))
        });
        let log = |m: String| self.log(m);
        let rules = self.config.game.rules;
        match intake::wait_for_samples(
            &self.run,
            &self.state.consumed,
            rules,
            need,
            deadline,
            &log,
        )? {
            Waited::Enough => Ok(true),
            Waited::Stopped => {
                self.abandoned(it);
                Ok(false)
            }
            Waited::TimeUp => {
                self.log(format!(
                    "time limit reached while iteration {it} waited for samples; the run \
                     ends after iteration {}",
                    self.state.iteration
                ));
                Ok(false)
            }
        }
    }

    /// The iteration's own samples and games to disk, then every new chunk into the
    /// window.
    fn intake(&mut self, it: u32, out: &SelfPlayOutput) -> Result<Intake> {
        let rules = self.config.game.rules;
        if self.config.train.local_selfplay {
            let chunk = self.run.samples().join(format!("main-iter-{it:04}.bin"));
            write_chunk(&chunk, rules, &out.samples)?;
            let games = self.run.games().join(format!("iter-{it:04}.txt"));
            rundir::write_games(&games, rules, out)?;
        }
        let display = self.display;
        intake::take_new_chunks(
            &self.run,
            &mut self.state.consumed,
            &mut self.window,
            &self.config.train.window,
            rules,
            &|m| display.say(m),
        )
    }

    /// The evaluation, when due, unless evaluations already took more than their share of
    /// the run's time (the last is always played); and its wall seconds.
    fn evaluate(
        &mut self,
        it: u32,
        name: &str,
        eval: Option<&EvalFn<'_>>,
    ) -> Result<(Option<EvalSummary>, f64)> {
        let due = schedule::evaluation_due(&self.config, it, self.wall(), self.state.eval_seconds);
        let t0 = Instant::now();
        let summary = match (due, eval) {
            (true, Some(f)) => {
                let ctx = EvalContext {
                    run: self.run.root.clone(),
                    checkpoint: name.to_string(),
                    earlier: evaluated(&self.rows),
                };
                Some(f(&self.config, &self.learning.learner, &ctx)?)
            }
            _ => None,
        };
        let seconds = if summary.is_some() {
            t0.elapsed().as_secs_f64()
        } else {
            0.0
        };
        self.state.eval_seconds += seconds;
        Ok((summary, seconds))
    }

    /// Commits the iteration: its metrics row and plot, then `state.json` and
    /// `checkpoints/latest`; then the chunks that left the window and the checkpoints no
    /// longer kept go.
    #[allow(clippy::too_many_arguments)]
    fn commit(
        &mut self,
        it: u32,
        name: &str,
        out: &SelfPlayOutput,
        intake: &Intake,
        learned: &Learned,
        summary: &Option<EvalSummary>,
        eval_seconds: f64,
    ) -> Result<MetricsRow> {
        self.state.total_games += out.games.len() as u64;
        let row = self.metrics_row(it, out, intake, learned, summary.as_ref(), eval_seconds);
        self.rows.push(row.clone());
        metrics::write(&self.run.metrics(), &self.rows)?;
        let anchor = self.config.eval.opponent_elo;
        if let Err(e) =
            plot::learning_curves(&self.rows, &self.run.plot(), &self.run.name(), anchor)
        {
            self.log(format!("could not draw the learning curves: {e:#}"));
        }
        let s = &mut self.state;
        s.iteration = it;
        s.checkpoint = name.to_string();
        s.window = self.window.chunk_names();
        s.total_seen = self.window.total_seen;
        s.wall_seconds = row.wall_seconds;
        s.last_new_samples = intake.new_samples;
        self.note = self.learning.refill.check(s, self.window.len());
        self.run.write_state(&self.state)?;
        write_latest(&self.run.root, name)?;
        // The chunks that left the window are consumed for good: state.json no longer
        // names them, so they can go.
        let display = self.display;
        rundir::delete_chunks(&self.run, &intake.evicted, &|m| display.say(m));
        // The checkpoints a later gauntlet will play are kept beyond keep_checkpoints.
        let mut needed = evaluated(&self.rows);
        let reach = self.config.eval.gauntlet.iter().copied().max().unwrap_or(0) as usize;
        needed.drain(..needed.len().saturating_sub(reach));
        rundir::prune_checkpoints(&self.run, self.config.train.keep_checkpoints, name, &needed)?;
        Ok(row)
    }

    /// The iteration's row of metrics.csv.
    fn metrics_row(
        &self,
        it: u32,
        out: &SelfPlayOutput,
        intake: &Intake,
        learned: &Learned,
        summary: Option<&EvalSummary>,
        eval_seconds: f64,
    ) -> MetricsRow {
        let draws = out
            .games
            .iter()
            .filter(|g| g.outcome.winner().is_none())
            .count();
        let plies: usize = out.games.iter().map(|g| g.moves.len()).sum();
        let ng = out.games.len().max(1) as f64;
        let samples = self.run.samples();
        // After this iteration's evicted chunks are gone (deleted once committed).
        let evicted_mb: f64 = intake
            .evicted
            .iter()
            .filter_map(|n| fs::metadata(samples.join(n)).ok())
            .map(|m| m.len() as f64 / 1e6)
            .sum();
        let pool = summary.and_then(|s| s.pool);
        let accuracy = summary.and_then(|s| s.accuracy);
        MetricsRow {
            iteration: it,
            wall_seconds: self.wall(),
            games: out.games.len() as u64,
            positions: intake.new_samples,
            total_positions: self.window.total_seen,
            samples_per_second: out.samples.len() as f64 / out.seconds.max(1e-9),
            simulations_per_second: out.simulations as f64 / out.seconds.max(1e-9),
            selfplay_seconds: out.seconds,
            train_steps: learned.steps,
            train_seconds: learned.seconds,
            learning_rate: learned.learning_rate,
            window: self.window.len() as u64,
            policy_loss: learned.losses.policy,
            value_loss: learned.losses.value,
            store_diff_loss: learned.losses.store_diff,
            policy_entropy: learned.losses.policy_entropy,
            value_accuracy: learned.losses.value_accuracy,
            policy_accuracy: Some(learned.losses.policy_accuracy),
            avg_game_length: plies as f64 / ng,
            draw_rate: draws as f64 / ng,
            eval_opponent: summary.map(|s| s.opponent.clone()),
            eval_score: summary.map(|s| s.score),
            eval_elo: summary.map(|s| s.elo),
            eval_elo_low: summary.map(|s| s.elo_ci95.0),
            eval_elo_high: summary.map(|s| s.elo_ci95.1),
            pool_elo: pool.map(|p| p.0),
            pool_elo_low: pool.and_then(|p| p.1),
            pool_elo_high: pool.and_then(|p| p.2),
            eval_seconds,
            tb_outcome_accuracy: accuracy.map(|a| a.0),
            tb_margin_accuracy: accuracy.map(|a| a.1),
            rss_mb: metrics::resident_mb(),
            samples_mb: (metrics::dir_mb(&samples) - evicted_mb).max(0.0),
            cache_hit_rate: out.cache_hit_rate,
        }
    }

    /// The iteration's log lines.
    fn report(&self, row: &MetricsRow, summary: Option<&EvalSummary>, eval_seconds: f64) {
        let t = &self.config.train;
        let rule = t.window.size(self.window.total_seen);
        for line in report::log_lines(row, t, rule, summary) {
            self.log(line);
        }
        if let Some(s) = summary {
            let share = self.state.eval_seconds / row.wall_seconds.max(1e-9);
            self.log(report::eval_cost_line(s, eval_seconds, share));
        }
    }
}

/// A new run: its config and iteration 0's checkpoint (random weights, or
/// `train.init_from`'s), committed as its first state.
fn start(config: &Config, run: &RunDir, log: &dyn Fn(String)) -> Result<(RunState, Learner)> {
    let rules = config.game.rules;
    let learner = initial_learner(config, rules)?;
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
    run.write_state(&s)?;
    write_latest(&run.root, &name)?;
    let from = if config.train.init_from.is_empty() {
        String::new()
    } else {
        format!(
            ", from {} at step {}, {}",
            config.train.init_from,
            learner.steps(),
            if learner.has_optimizer_state() {
                "with its optimizer state"
            } else {
                "its optimizer starting fresh: the checkpoint holds no optimizer state"
            }
        )
    };
    log(format!(
        "new run in {} ({} parameters, rules {}{from})",
        run.root.display(),
        config.model.parameters(),
        rules,
    ));
    Ok((s, learner))
}

/// A run resumed after its last committed iteration.
fn resume(
    config: &Config,
    run: &RunDir,
    s: RunState,
    log: &dyn Fn(String),
) -> Result<(RunState, Learner)> {
    let dir = run.checkpoint(&s.checkpoint);
    let learner = Learner::from_checkpoint(&dir, Some(&config.train.learner(config.seed)))
        .with_context(|| format!("resuming from {}", dir.display()))?;
    log(format!(
        "resuming {} after iteration {} ({})",
        run.root.display(),
        s.iteration,
        s.checkpoint
    ));
    Ok((s, learner))
}

/// The checkpoints evaluated so far, oldest first.
fn evaluated(rows: &[MetricsRow]) -> Vec<String> {
    rows.iter()
        .filter(|r| r.eval_opponent.is_some())
        .map(|r| checkpoint_name(r.iteration as u64))
        .collect()
}

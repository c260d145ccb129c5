//! The one config type of a training run (TOML): game, model, search, self-play,
//! training, evaluation, seed and threads. Every key has a default, written once in the
//! `Default` impls of the section types; unknown keys and bad values are errors that
//! name the key and the file.

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use super::replay::WindowRule;
pub use crate::arena::gauntlet::EvalConfig;
use crate::game::RuleSet;
use crate::net::DeviceKind;
use crate::net::model::ModelConfig;
use crate::net::train::{LearnerConfig, LossWeights, OptimizerKind};
use crate::search::mcts::MctsConfig;
use crate::selfplay::SelfPlayConfig;

/// A whole training run's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Seed of everything random in the run (weights, openings, noise, batches).
    pub seed: u64,
    /// Self-play worker threads (0 = one per core).
    pub threads: usize,
    /// The game.
    pub game: GameConfig,
    /// The network's shape.
    pub model: ModelConfig,
    /// The search used in self-play.
    pub search: MctsConfig,
    /// Self-play.
    pub selfplay: SelfPlayConfig,
    /// Training.
    pub train: TrainConfig,
    /// Periodic evaluation.
    pub eval: EvalConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            threads: 0,
            game: GameConfig::default(),
            model: ModelConfig::default(),
            search: MctsConfig::default(),
            selfplay: SelfPlayConfig::default(),
            train: TrainConfig::default(),
            eval: EvalConfig::default(),
        }
    }
}

/// `[game]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameConfig {
    /// Rule set: abapa, awari, grand-slam-captures, ouril, traditional.
    pub rules: RuleSet,
}

/// How the learning rate moves over the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LrSchedule {
    /// `learning_rate` throughout.
    Constant,
    /// Cosine from `learning_rate` down to `learning_rate · lr_final_fraction` over the
    /// run's iterations (or its time limit, whichever the run is bounded by).
    Cosine,
}

/// `[train]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Stop after this many iterations (0 = no limit).
    pub iterations: u32,
    /// Stop starting new iterations after this many minutes of wall time (0 = no limit).
    pub time_limit_minutes: f64,
    /// Samples per SGD step.
    pub batch_size: usize,
    /// `adamw` or `sgd`.
    pub optimizer: OptimizerKind,
    /// Peak learning rate.
    pub learning_rate: f64,
    /// `constant` or `cosine`.
    pub lr_schedule: LrSchedule,
    /// Final learning rate as a fraction of the peak (cosine).
    pub lr_final_fraction: f64,
    /// Weight decay (AdamW: decoupled; SGD: L2).
    pub weight_decay: f32,
    /// SGD momentum.
    pub momentum: f64,
    /// At most this many training samples drawn per new self-play sample (KataGo: 4–8).
    pub samples_per_new_sample: f64,
    /// At most this many SGD steps per iteration.
    pub max_steps_per_iteration: u32,
    /// No gradient step until the replay window holds this many samples (KataGo's
    /// minimum rows): the first iterations only play and fill the window, so its first
    /// samples are not drawn over and over. 0: train from the first iteration.
    pub min_window_samples: u64,
    /// At most this many passes over the window per iteration: the steps are capped at
    /// `window size × max_window_passes ÷ batch_size`, so a small window (early in a run,
    /// or a continuation that starts empty) is not drawn many times over. 0: no cap.
    pub max_window_passes: f64,
    /// Replay window, in samples: `min(max, max(min, min·(total/min)^exponent))`.
    pub window: WindowRule,
    /// A run resumed from a capsule (which carries no window) takes no gradient step
    /// until self-play has put back this share of the samples its window held. 0: the
    /// steps resume at once, on the new samples (measured as good on the quick config:
    /// experiments/ab/relay.md).
    pub refill_fraction: f64,
    /// Weight of the search value q in the W/D/L target; the game result z gets the
    /// rest (CGZero: k·z + (1−k)·q).
    pub value_target_mix: f32,
    /// Loss weights.
    pub loss_weights: LossWeights,
    /// Checkpoints kept (oldest removed first; 0 = keep all). The latest is always kept.
    pub keep_checkpoints: usize,
    /// Threads for the SGD step (1 measured fastest on 2 cores).
    pub threads: usize,
    /// Where the SGD step runs: `cpu` (burn's flex backend) or `wgpu` (a build with
    /// `--features wgpu`). Self-play inference always uses the CPU fast path.
    pub device: DeviceKind,
    /// Whether the trainer plays self-play games itself. `false`: every sample comes from
    /// other workers (`oware selfplay`, `oware-ray`) through `RUN/samples/`, and
    /// `min_new_samples` must be at least 1.
    pub local_selfplay: bool,
    /// An iteration trains only once the new chunks (its own self-play's included) hold
    /// at least this many samples; until then it waits for workers' chunks (0 = never
    /// waits).
    pub min_new_samples: u64,
    /// The learn phase runs on its own thread while self-play plays the next iteration's
    /// games, instead of after them: self-play plays with the network as it was before
    /// the steps running beside it, and the learner trains on the window as the last
    /// iteration left it, so data reaches the learner one iteration later. `false`: the
    /// phases take turns.
    pub overlap: bool,
    /// A tablebase directory of the run's rules: every sample taken into the window
    /// whose outcome the tables prove is relabelled (`dataio::rescore`): its value
    /// targets become that outcome and its policy keeps the moves that hold it. The
    /// searches do not use the tables. Empty: none.
    pub rescore_tablebase: String,
    /// A checkpoint directory whose weights (and optimizer state, if saved) start a new
    /// run instead of random ones: the run continues training that network (KataGo's and
    /// Leela Zero's "bootstrap" net). Its model must match `[model]` and its rules
    /// `game.rules`; its step count carries on. Empty: a random start. Read only when the
    /// run starts; resuming uses the run's own checkpoints.
    pub init_from: String,
    /// Distillation: a checkpoint directory (or a run directory: its latest checkpoint)
    /// whose network plays self-play instead of the learner's during the first
    /// `teacher_iterations` iterations, so the learner (any `[model]`) starts on the
    /// teacher's games: its searches' policies and values, and with
    /// `teacher_policy_mix` its own policy as a soft target. Its rules must be
    /// `game.rules`; it searches with this config's `[search]`. Empty: none.
    pub teacher: String,
    /// Iterations whose self-play the teacher plays (from the run's first).
    pub teacher_iterations: u32,
    /// While the teacher plays, the share of its network's policy (the root prior) in
    /// the policy target, beside its search's policy (`dataio::label::mixed_policy`).
    pub teacher_policy_mix: f32,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            iterations: 0,
            time_limit_minutes: 120.0,
            batch_size: 512,
            optimizer: OptimizerKind::Adamw,
            learning_rate: 2e-3,
            lr_schedule: LrSchedule::Cosine,
            lr_final_fraction: 0.1,
            weight_decay: 1e-4,
            momentum: 0.9,
            samples_per_new_sample: 4.0,
            max_steps_per_iteration: 400,
            min_window_samples: 0,
            max_window_passes: 0.0,
            window: WindowRule::default(),
            refill_fraction: 0.0,
            value_target_mix: 0.2,
            loss_weights: LossWeights::default(),
            keep_checkpoints: 10,
            threads: 1,
            device: DeviceKind::Cpu,
            local_selfplay: true,
            min_new_samples: 0,
            overlap: false,
            rescore_tablebase: String::new(),
            init_from: String::new(),
            teacher: String::new(),
            teacher_iterations: 0,
            teacher_policy_mix: 0.0,
        }
    }
}

impl TrainConfig {
    /// The learner settings these imply.
    pub fn learner(&self, seed: u64) -> LearnerConfig {
        LearnerConfig {
            optimizer: self.optimizer,
            learning_rate: self.learning_rate,
            weight_decay: self.weight_decay,
            momentum: self.momentum,
            threads: self.threads,
            device: self.device,
            seed,
            ..LearnerConfig::default()
        }
    }
}

impl Config {
    /// Reads a config file, applies `overrides` (`key=value`, dotted keys such as
    /// `train.batch_size=256`; values in TOML syntax, bare words taken as strings),
    /// then checks every value.
    pub fn load(path: &Path, overrides: &[String]) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading config {}", path.display()))?;
        Config::from_toml(&text, overrides).with_context(|| format!("config {}", path.display()))
    }

    /// Parses TOML text with `overrides` (see [`Config::load`]).
    pub fn from_toml(text: &str, overrides: &[String]) -> Result<Config> {
        let mut value: toml::Table =
            toml::from_str(text).map_err(|e| anyhow!("{}", plain_words(&e)))?;
        let parse = |t: &toml::Table| {
            t.clone()
                .try_into::<Config>()
                .map_err(|e| anyhow!("{}", plain_words(&e)))
        };
        // A value that fails to parse is blamed on the `--set` that brought it in, when the
        // table parsed before that override.
        let mut parsed = overrides.is_empty() || parse(&value).is_ok();
        for o in overrides {
            apply_override(&mut value, o)?;
            match parse(&value) {
                Err(e) if parsed => return Err(e.context(format!("--set '{o}'"))),
                r => parsed = r.is_ok(),
            }
        }
        let cfg = parse(&value)?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The config as TOML text (what the run directory keeps as `config.toml`).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a config always serialises")
    }

    /// Checks every value, and the values that must agree with each other; the message
    /// names the keys.
    pub fn validate(&self) -> Result<()> {
        self.model.validate().map_err(|e| anyhow!("model: {e}"))?;
        self.search.validate().map_err(|e| anyhow!("search: {e}"))?;
        let s = &self.search;
        if s.simulations < s.cheap_simulations {
            bail!(
                "search.simulations = {} is below search.cheap_simulations = {}: a full search \
                 must have at least as many simulations as a cheap one",
                s.simulations,
                s.cheap_simulations
            );
        }
        self.selfplay
            .validate()
            .map_err(|e| anyhow!("selfplay: {e}"))?;
        let t = &self.train;
        if t.batch_size == 0 {
            bail!("train.batch_size must be at least 1");
        }
        if !(t.learning_rate.is_finite() && t.learning_rate > 0.0) {
            bail!(
                "train.learning_rate = {} must be a positive number",
                t.learning_rate
            );
        }
        if !(0.0..=1.0).contains(&t.lr_final_fraction) {
            bail!(
                "train.lr_final_fraction = {} must be in [0, 1]",
                t.lr_final_fraction
            );
        }
        if !(t.samples_per_new_sample.is_finite() && t.samples_per_new_sample > 0.0) {
            bail!(
                "train.samples_per_new_sample = {} must be positive",
                t.samples_per_new_sample
            );
        }
        if t.window.min == 0 || t.window.max < t.window.min {
            bail!(
                "train.window: need 0 < min ≤ max (min {}, max {})",
                t.window.min,
                t.window.max
            );
        }
        if !(t.window.exponent > 0.0 && t.window.exponent <= 1.0) {
            bail!(
                "train.window.exponent = {} must be in (0, 1]",
                t.window.exponent
            );
        }
        if !(0.0..=1.0).contains(&t.refill_fraction) {
            bail!(
                "train.refill_fraction = {} must be in [0, 1]",
                t.refill_fraction
            );
        }
        if !(t.max_window_passes.is_finite() && t.max_window_passes >= 0.0) {
            bail!(
                "train.max_window_passes = {} must be ≥ 0 (0 = no cap)",
                t.max_window_passes
            );
        }
        if !(0.0..=1.0).contains(&t.value_target_mix) {
            bail!(
                "train.value_target_mix = {} must be in [0, 1]",
                t.value_target_mix
            );
        }
        if !(t.time_limit_minutes.is_finite() && t.time_limit_minutes >= 0.0) {
            bail!(
                "train.time_limit_minutes = {} must be ≥ 0",
                t.time_limit_minutes
            );
        }
        if t.iterations == 0 && t.time_limit_minutes == 0.0 {
            bail!("train: set iterations or time_limit_minutes, or the run never ends");
        }
        if t.threads == 0 {
            bail!("train.threads must be at least 1");
        }
        if !t.local_selfplay && t.min_new_samples == 0 {
            bail!(
                "train.local_selfplay = false needs train.min_new_samples ≥ 1: without self-play \
                 of its own, an iteration must wait for samples from workers"
            );
        }
        if t.teacher.is_empty() != (t.teacher_iterations == 0) {
            bail!(
                "train.teacher and train.teacher_iterations go together: set both (a \
                 checkpoint and how many iterations it plays) or neither"
            );
        }
        if !(0.0..=1.0).contains(&t.teacher_policy_mix) {
            bail!(
                "train.teacher_policy_mix = {} must be in [0, 1]",
                t.teacher_policy_mix
            );
        }
        if self.eval.every > 0 && self.eval.games == 0 {
            bail!("eval.games must be at least 1 when eval.every > 0");
        }
        if self.eval.every > 0 {
            self.eval
                .opponent
                .parse::<crate::arena::PlayerSpec>()
                .map_err(|e| anyhow!("eval.opponent: {e}"))?;
        }
        if self.eval.simulations == 0 {
            bail!("eval.simulations must be at least 1");
        }
        if self.eval.gauntlet.contains(&0) {
            bail!("eval.gauntlet: evaluations back must be at least 1");
        }
        if !self.eval.gauntlet.is_empty() && self.eval.gauntlet_games == 0 {
            bail!("eval.gauntlet_games must be at least 1 with a gauntlet");
        }
        if !self.eval.opponent_elo.is_finite() {
            bail!("eval.opponent_elo must be a number");
        }
        if !(self.eval.max_share > 0.0 && self.eval.max_share <= 1.0) {
            bail!("eval.max_share must be in (0, 1]");
        }
        if self.eval.tablebase.is_empty() && !self.eval.accuracy_suite.is_empty() {
            bail!("eval.accuracy_suite is set but eval.tablebase is not: the suite needs tables");
        }
        if !self.eval.tablebase.is_empty() && self.eval.accuracy_positions == 0 {
            bail!("eval.accuracy_positions must be at least 1 when eval.tablebase is set");
        }
        Ok(())
    }

    /// Self-play threads to use (resolving 0 = all cores).
    pub fn selfplay_threads(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        }
    }
}

/// A TOML error on one line in plain words: where (`line L, column C` for a syntax
/// error), what, and the key (`in \`train.batch_size\``); Rust type names become what they
/// mean ("expected a whole number", not "expected usize").
fn plain_words(e: &toml::de::Error) -> String {
    let full = e.to_string();
    let first = full.lines().next().unwrap_or("").trim();
    let mut msg = e
        .message()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(": ")
        .replace("invalid type: ", "")
        .replace("invalid value: ", "");
    // "string \"x\", expected usize" → "expected usize, not string \"x\"".
    if let Some((found, expected)) = msg.split_once(", expected ")
        && !found.starts_with("unknown")
    {
        msg = format!("expected {expected}, not {found}");
    }
    let mut out = match first.strip_prefix("TOML parse error at ") {
        // The full text draws the line with a caret under the fault: keep where and what.
        Some(at) => format!("{at}: {msg}"),
        None => match full.lines().find_map(|l| l.trim().strip_prefix("in `")) {
            Some(key) => format!("{}: {msg}", key.trim_end_matches('`')),
            None => msg,
        },
    };
    for (rust, words) in [
        ("usize", "a whole number"),
        ("u64", "a whole number"),
        ("u32", "a whole number"),
        ("u16", "a whole number"),
        ("u8", "a whole number"),
        ("i64", "a whole number"),
        ("i32", "a whole number"),
        ("f64", "a number"),
        ("f32", "a number"),
    ] {
        out = out.replace(&format!("expected {rust}"), &format!("expected {words}"));
    }
    out
}

/// Sets `key=value` in `table`; the key path's parents must be tables.
fn apply_override(table: &mut toml::Table, o: &str) -> Result<()> {
    let (key, raw) = o
        .split_once('=')
        .ok_or_else(|| anyhow!("--set '{o}': expected key=value"))?;
    let key = key.trim();
    let raw = raw.trim();
    let value: toml::Value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
        Ok(mut t) => t.remove("v").expect("parsed key"),
        Err(_) => toml::Value::String(raw.to_string()),
    };
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        bail!("--set '{o}': '{key}' is not a key");
    }
    let mut t = table;
    for p in &parts[..parts.len() - 1] {
        let entry = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry
            .as_table_mut()
            .ok_or_else(|| anyhow!("--set '{o}': '{p}' is not a table"))?;
    }
    t.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_config_is_the_defaults() {
        assert_eq!(Config::from_toml("", &[]).unwrap(), Config::default());
    }

    #[test]
    fn defaults_round_trip_through_toml() {
        let c = Config::default();
        assert_eq!(Config::from_toml(&c.to_toml(), &[]).unwrap(), c);
    }

    #[test]
    fn unknown_keys_are_named() {
        let e = Config::from_toml("[train]\nbatch_sise = 3\n", &[]).unwrap_err();
        assert!(format!("{e:#}").contains("batch_sise"), "{e:#}");
        let e = Config::from_toml("sed = 3\n", &[]).unwrap_err();
        assert!(format!("{e:#}").contains("sed"), "{e:#}");
    }

    #[test]
    fn bad_values_are_named() {
        let e = Config::from_toml("[train]\nbatch_size = 0\n", &[]).unwrap_err();
        assert!(format!("{e:#}").contains("train.batch_size"), "{e:#}");
        let e = Config::from_toml("[game]\nrules = \"abapa2\"\n", &[]).unwrap_err();
        assert!(format!("{e:#}").contains("abapa2"), "{e:#}");
        let e = Config::from_toml("[eval]\nopponent = \"alphabeta:dept=4\"\n", &[]).unwrap_err();
        assert!(format!("{e:#}").contains("eval.opponent"), "{e:#}");
        let e = Config::from_toml("[search]\nsimulations = -1\n", &[]).unwrap_err();
        assert!(format!("{e:#}").contains("simulations"), "{e:#}");
    }

    #[test]
    fn a_partial_nested_table_takes_the_other_defaults() {
        let c = Config::from_toml("[train.window]\nmin = 100\n", &[]).unwrap();
        assert_eq!(c.train.window.min, 100);
        assert_eq!(c.train.window.max, TrainConfig::default().window.max);
        assert_eq!(c.train.window.exponent, 0.65);
        let c = Config::from_toml("[train.loss_weights]\nvalue = 2.0\n", &[]).unwrap();
        assert_eq!(c.train.loss_weights.store_diff, 0.25);
    }

    #[test]
    fn settings_that_contradict_each_other_are_refused() {
        let e = Config::from_toml("[search]\nsimulations = 8\ncheap_simulations = 16\n", &[])
            .unwrap_err();
        let m = format!("{e:#}");
        assert!(
            m.contains("search.simulations = 8") && m.contains("cheap_simulations = 16"),
            "{m}"
        );
        // A trainer without self-play that would not wait for workers' samples.
        let e = Config::from_toml("[train]\nlocal_selfplay = false\n", &[]).unwrap_err();
        let m = format!("{e:#}");
        assert!(m.contains("train.min_new_samples"), "{m}");
        Config::from_toml(
            "[train]\nlocal_selfplay = false\nmin_new_samples = 1000\n",
            &[],
        )
        .unwrap();
    }

    #[test]
    fn errors_are_one_line_in_plain_words() {
        let e = Config::from_toml("[train]\nbatch_size = \"x\"\n", &[]).unwrap_err();
        let m = format!("{e:#}");
        assert!(
            !m.contains('\n') && m.contains("expected a whole number"),
            "{m}"
        );
        // A syntax error names the line.
        let e = Config::from_toml("seed = 1\n[train\n", &[]).unwrap_err();
        let m = format!("{e:#}");
        assert!(!m.contains('\n') && m.contains("line 2"), "{m}");
    }

    #[test]
    fn overrides_set_nested_keys() {
        let c = Config::from_toml(
            "[train]\nbatch_size = 64\n",
            &[
                "train.batch_size=128".into(),
                "game.rules=awari".into(),
                "seed=9".into(),
            ],
        )
        .unwrap();
        assert_eq!(c.train.batch_size, 128);
        assert_eq!(c.game.rules.name(), "awari");
        assert_eq!(c.seed, 9);
        let e = Config::from_toml("", &["train.nope=1".into()]).unwrap_err();
        assert!(format!("{e:#}").contains("nope"), "{e:#}");
        assert!(Config::from_toml("", &["novalue".into()]).is_err());
    }

    #[test]
    fn a_bad_override_is_named_as_the_override() {
        let e = Config::from_toml(
            "[train]\nbatch_size = 64\n",
            &["train.batch_size=abc".into()],
        )
        .unwrap_err();
        let m = format!("{e:#}");
        assert!(m.contains("--set 'train.batch_size=abc'"), "{m}");
        assert!(m.contains("train.batch_size"), "{m}");
        assert!(
            m.contains("expected a whole number") && !m.contains("usize"),
            "{m}"
        );
        // A fault already in the file is not blamed on a good override.
        let e = Config::from_toml("[train]\nbatch_size = \"x\"\n", &["seed=3".into()]).unwrap_err();
        assert!(!format!("{e:#}").contains("--set"), "{e:#}");
        // An override can repair the file's fault, then a later one is judged on its own.
        let e = Config::from_toml(
            "[train]\nbatch_size = \"x\"\n",
            &["train.batch_size=8".into(), "seed=minus".into()],
        )
        .unwrap_err();
        assert!(format!("{e:#}").contains("--set 'seed=minus'"), "{e:#}");
    }
}

#[cfg(test)]
mod shipped_configs {
    use super::*;

    /// The configs in `configs/` parse and validate (a typo there would only show when a
    /// user runs them).
    #[test]
    fn shipped_configs_are_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                Config::load(&p, &[]).unwrap_or_else(|e| panic!("{}: {e:#}", p.display()));
                n += 1;
            }
        }
        assert!(n >= 3, "quick, default and gpu configs");
    }
}

//! The one config type of a training run (TOML): game, model, search, self-play,
//! training, evaluation and the seed. Every key has a default, written once in
//! [`Config::default`]: the section types' own defaults, and for `[search]` the settings
//! that won self-play's matches over a player's plain search. Unknown keys and bad values
//! are errors that name the key and the file; a key since removed is named with what
//! replaced it ([`REMOVED`]), and a run's own `config.toml` written before its removal
//! still loads where it holds the old default. A key since renamed ([`RENAMED`]) is named
//! with its new name; a run's own `config.toml` that has the old one is read as the new.

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use serde::{Deserialize, Serialize};

use super::replay::WindowRule;
pub use crate::arena::gauntlet::EvalConfig;
use crate::selfplay::SelfPlayConfig;
use oware_core::game::RuleSet;
use oware_core::search::mcts::{MctsConfig, SearchValue};
use oware_net::net::DeviceKind;
use oware_net::net::model::ModelConfig;
use oware_net::net::train::{LearnerConfig, LossWeights, OptimizerKind};

/// A whole training run's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Seed of everything random in the run (weights, openings, noise, batches).
    pub seed: u64,
    /// The game.
    pub game: GameConfig,
    /// The network's shape.
    pub model: ModelConfig,
    /// The search used in self-play (defaults: [`self_play_search`]).
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
            game: GameConfig::default(),
            model: ModelConfig::default(),
            search: self_play_search(),
            selfplay: SelfPlayConfig::default(),
            train: TrainConfig::default(),
            eval: EvalConfig::default(),
        }
    }
}

/// Self-play's search by default: [`MctsConfig::default`] (a player's plain search, what
/// checkpoints that record no settings are played with) with the settings that won
/// their matches at equal wall time (`experiments/ab/`): priors at temperature 2
/// (selfplay-policy-temperature.md) and the value target's search value Σ π(a)·Q(a)
/// (search-value.md).
pub fn self_play_search() -> MctsConfig {
    MctsConfig {
        policy_temperature: 2.0,
        search_value: SearchValue::Improved,
        ..MctsConfig::default()
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
            // With `selfplay.value_lambda = 0.9`: experiments/ab/value-lambda.md.
            value_target_mix: 0.5,
            loss_weights: LossWeights::default(),
            keep_checkpoints: 10,
            threads: 1,
            device: DeviceKind::Cpu,
            local_selfplay: true,
            min_new_samples: 0,
            // experiments/ab/overlap.md.
            overlap: true,
            init_from: String::new(),
            teacher: String::new(),
            teacher_iterations: 0,
            teacher_policy_mix: 0.0,
        }
    }
}

impl TrainConfig {
    /// Checks every value of `[train]`; the message names the key.
    pub fn validate(&self) -> Result<()> {
        let t = self;
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
        Ok(())
    }

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

/// A key taken out of the config because its matches dropped it or found it neutral
/// (the records in `experiments/ab/` keep the idea and the commit).
pub struct Removed {
    /// The dotted key.
    pub key: &'static str,
    /// Its old default, as TOML: the behaviour the code kept.
    pub default: &'static str,
    /// What a run gets instead, in a few words.
    pub instead: &'static str,
}

/// Every key removed from the config. A config file that sets one is refused, naming it
/// and what replaced it; a run's own `config.toml` (which lists every key, so one written
/// before the removal lists these too) loads when each holds its old default.
pub const REMOVED: [Removed; 6] = [
    Removed {
        key: "search.gumbel_rescale_q",
        default: "true",
        instead: "the completed Q is always rescaled by its min and max",
    },
    Removed {
        key: "selfplay.tablebase",
        default: "\"\"",
        instead: "self-play searches without endgame tables",
    },
    Removed {
        key: "selfplay.continuous",
        default: "false",
        instead: "every iteration plays its games from start to end",
    },
    Removed {
        key: "selfplay.surprise_weight",
        default: "0.0",
        instead: "each full search gives one sample",
    },
    Removed {
        key: "selfplay.int16",
        default: "false",
        instead: "the network runs in f32",
    },
    Removed {
        key: "train.rescore_tablebase",
        default: "\"\"",
        instead: "samples keep their own games' labels",
    },
];

/// A key that moved: its old dotted path (top-level keys have no dot) and its new one.
pub struct Renamed {
    /// Where the key was.
    pub old: &'static str,
    /// Where it is now.
    pub new: &'static str,
}

/// Every key renamed. A config file (or `--set`) with the old name is refused in one line
/// naming the new; a run's own `config.toml` with it is read as the new name, so runs and
/// capsules written before the rename resume.
pub const RENAMED: [Renamed; 1] = [
    // Top-level `threads` read as the learner's threads beside `train.threads`.
    Renamed {
        old: "threads",
        new: "selfplay.threads",
    },
];

/// Moves the renamed keys of `table` to their new place as `origin` allows.
fn move_renamed(table: &mut toml::Table, origin: Origin) -> Result<()> {
    fn split(key: &str) -> (Option<&str>, &str) {
        match key.split_once('.') {
            Some((section, name)) => (Some(section), name),
            None => (None, key),
        }
    }
    for r in &RENAMED {
        let (old_section, old_name) = split(r.old);
        let holder = match old_section {
            None => Some(&mut *table),
            Some(s) => table.get_mut(s).and_then(|t| t.as_table_mut()),
        };
        let Some(value) = holder.and_then(|t| t.remove(old_name)) else {
            continue;
        };
        if origin == Origin::Written {
            bail!("{} is now {}: write that instead", r.old, r.new);
        }
        let (new_section, new_name) = split(r.new);
        let section = match new_section {
            None => &mut *table,
            Some(s) => table
                .entry(s)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                .as_table_mut()
                .ok_or_else(|| anyhow!("{s} is not a table"))?,
        };
        section.entry(new_name).or_insert(value);
    }
    Ok(())
}

/// Where a config's text comes from, which decides how a removed key is read.
#[derive(Clone, Copy, PartialEq)]
enum Origin {
    /// Written by a person (a config file, `--set`): a removed key is an error.
    Written,
    /// A run's own `config.toml`, written by this or an older trainer: a removed key at
    /// its old default is dropped, any other value is an error.
    Saved,
}

/// Takes the removed keys out of `table` as `origin` allows; the error names the key.
fn drop_removed(table: &mut toml::Table, origin: Origin) -> Result<()> {
    for r in &REMOVED {
        let (section, name) = r.key.split_once('.').expect("a dotted key");
        let Some(t) = table.get_mut(section).and_then(|t| t.as_table_mut()) else {
            continue;
        };
        let Some(v) = t.get(name) else {
            continue;
        };
        let old: toml::Value = toml::from_str::<toml::Table>(&format!("v = {}", r.default))
            .expect("a TOML literal")["v"]
            .clone();
        let same = match (
            v.as_float().or(v.as_integer().map(|i| i as f64)),
            old.as_float(),
        ) {
            (Some(a), Some(b)) => a == b,
            _ => *v == old,
        };
        match origin {
            Origin::Saved if same => {
                t.remove(name);
            }
            Origin::Saved => bail!(
                "{} = {v} was removed ({}): this oware cannot go on with a run that set it",
                r.key,
                r.instead
            ),
            Origin::Written => bail!(
                "{} was removed ({}): delete it from the config",
                r.key,
                r.instead
            ),
        }
    }
    Ok(())
}

/// Writes `over` into `base`, key by key; tables merge, anything else replaces.
fn merge(base: &mut toml::Table, over: &toml::Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
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

    /// Reads a run's own `config.toml` (`RUN/config.toml`, a capsule's), which may come
    /// from an older trainer: keys removed since are accepted at their old defaults.
    pub fn load_saved(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading config {}", path.display()))?;
        Config::parse(&text, &[], Origin::Saved)
            .with_context(|| format!("config {}", path.display()))
    }

    /// Parses TOML text with `overrides` (see [`Config::load`]).
    pub fn from_toml(text: &str, overrides: &[String]) -> Result<Config> {
        Config::parse(text, overrides, Origin::Written)
    }

    fn parse(text: &str, overrides: &[String], origin: Origin) -> Result<Config> {
        let mut value: toml::Table =
            toml::from_str(text).map_err(|e| anyhow!("{}", plain_words(&e)))?;
        drop_removed(&mut value, origin)?;
        move_renamed(&mut value, origin)?;
        let defaults = toml::Table::try_from(Config::default()).expect("the defaults serialise");
        let parse = |t: &toml::Table| {
            let mut all = defaults.clone();
            merge(&mut all, t);
            all.try_into::<Config>()
                .map_err(|e| anyhow!("{}", plain_words(&e)))
        };
        // A value that fails to parse is blamed on the `--set` that brought it in, when the
        // table parsed before that override.
        let mut parsed = overrides.is_empty() || parse(&value).is_ok();
        for o in overrides {
            apply_override(&mut value, o)?;
            drop_removed(&mut value, Origin::Written).with_context(|| format!("--set '{o}'"))?;
            move_renamed(&mut value, Origin::Written).with_context(|| format!("--set '{o}'"))?;
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
        self.train.validate()?;
        self.eval.validate()?;
        Ok(())
    }

    /// Self-play threads to use (resolving 0 = all cores).
    pub fn selfplay_threads(&self) -> usize {
        if self.selfplay.threads > 0 {
            self.selfplay.threads
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
mod removed_keys {
    use super::*;

    /// The long run's capsule, written by a trainer that still had every removed key.
    fn recorded() -> String {
        let p = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("experiments/recorded/long-1204/capsule/config.toml");
        std::fs::read_to_string(p).expect("the recorded capsule's config")
    }

    #[test]
    fn a_saved_config_of_an_older_trainer_loads_with_the_removed_keys_at_their_defaults() {
        let text = recorded();
        for r in &REMOVED {
            let name = r.key.split_once('.').unwrap().1;
            assert!(
                text.contains(&format!("\n{name} = ")),
                "{} not in the record",
                r.key
            );
        }
        let c = Config::parse(&text, &[], Origin::Saved).unwrap();
        assert_eq!(c.train.iterations, 3000);
        assert_eq!(c.train.refill_fraction, 1.0);
        assert_eq!(c.search.search_value, SearchValue::Improved);
        // Written back, it lists no removed key and reads as the same config.
        let again = c.to_toml();
        let table: toml::Table = toml::from_str(&again).unwrap();
        for r in &REMOVED {
            let (section, name) = r.key.split_once('.').unwrap();
            assert!(table[section].get(name).is_none(), "{}", r.key);
        }
        assert_eq!(Config::from_toml(&again, &[]).unwrap(), c);
    }

    #[test]
    fn a_removed_key_is_one_line_naming_it_and_what_replaced_it() {
        // Written by a person: refused even at its old default.
        let e = Config::from_toml(&recorded(), &[]).unwrap_err();
        let m = format!("{e:#}");
        assert!(
            m.contains("search.gumbel_rescale_q was removed (the completed Q is always rescaled"),
            "{m}"
        );
        assert!(!m.contains('\n'), "{m}");
        let e = Config::from_toml("[selfplay]\nsurprise_weight = 0.5\n", &[]).unwrap_err();
        let m = format!("{e:#}");
        assert!(
            m == "selfplay.surprise_weight was removed (each full search gives one sample): \
                  delete it from the config",
            "{m}"
        );
        let e = Config::from_toml("", &["selfplay.int16=true".into()]).unwrap_err();
        let m = format!("{e:#}");
        assert!(
            m.contains("--set 'selfplay.int16=true'") && m.contains("selfplay.int16 was removed"),
            "{m}"
        );
        // A run's own config that set a removed key to another value cannot go on.
        for (from, to, key) in [
            (
                "surprise_weight = 0.0",
                "surprise_weight = 0.5",
                "selfplay.surprise_weight",
            ),
            (
                "continuous = false",
                "continuous = true",
                "selfplay.continuous",
            ),
            (
                "rescore_tablebase = \"\"",
                "rescore_tablebase = \"tb\"",
                "train.rescore_tablebase",
            ),
            (
                "gumbel_rescale_q = true",
                "gumbel_rescale_q = false",
                "search.gumbel_rescale_q",
            ),
        ] {
            let text = recorded().replace(from, to);
            let e = Config::parse(&text, &[], Origin::Saved).unwrap_err();
            let m = format!("{e:#}");
            assert!(m.starts_with(&format!("{key} = ")), "{m}");
            assert!(m.contains("was removed") && !m.contains('\n'), "{m}");
        }
        // 0 written as an integer is the old default 0.0 too.
        let text = recorded().replace("surprise_weight = 0.0", "surprise_weight = 0");
        Config::parse(&text, &[], Origin::Saved).unwrap();
    }

    #[test]
    fn a_renamed_key_is_refused_where_written_and_moved_where_saved() {
        // The recorded capsule was written with the old top-level `threads`.
        let text = recorded();
        let old: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("threads = "))
            .expect("the record has the old key")
            .parse()
            .unwrap();
        let c = Config::parse(&text, &[], Origin::Saved).unwrap();
        assert_eq!(c.selfplay.threads, old);
        // Written back it has the new name only, and reads as the same config.
        let again: toml::Table = toml::from_str(&c.to_toml()).unwrap();
        assert!(again.get("threads").is_none());
        assert_eq!(again["selfplay"]["threads"].as_integer(), Some(old as i64));
        // Written by a person, in a file or a --set: one line naming the new key.
        let e = Config::from_toml("threads = 3\n", &[]).unwrap_err();
        assert_eq!(
            format!("{e:#}"),
            "threads is now selfplay.threads: write that instead"
        );
        let e = Config::from_toml("", &["threads=3".into()]).unwrap_err();
        let m = format!("{e:#}");
        assert!(
            m.starts_with("--set 'threads=3': threads is now selfplay.threads"),
            "{m}"
        );
        let c = Config::from_toml("[selfplay]\nthreads = 3\n", &[]).unwrap();
        assert_eq!(c.selfplay_threads(), 3);
        // The learner's threads keep their key.
        let c = Config::from_toml("[train]\nthreads = 2\n", &[]).unwrap();
        assert_eq!((c.train.threads, c.selfplay.threads), (2, 0));
    }
}

#[cfg(test)]
mod shipped_configs {
    use super::*;

    /// The shipped configs only size a run: no line of theirs sets a key to its default
    /// (the training settings that won their matches are the defaults).
    #[test]
    fn shipped_configs_write_only_what_differs_from_the_defaults() {
        fn leaves(t: &toml::Table, prefix: &str, out: &mut Vec<Vec<String>>) {
            for (k, v) in t {
                let path = format!("{prefix}{k}");
                match v {
                    toml::Value::Table(inner) => leaves(inner, &format!("{path}."), out),
                    _ => out.push(path.split('.').map(String::from).collect()),
                }
            }
        }
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("configs");
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let table: toml::Table = toml::from_str(&text).unwrap();
            let full = Config::from_toml(&text, &[]).unwrap();
            let mut keys = Vec::new();
            leaves(&table, "", &mut keys);
            for key in keys {
                let mut without = table.clone();
                let mut t = &mut without;
                for part in &key[..key.len() - 1] {
                    t = t.get_mut(part).unwrap().as_table_mut().unwrap();
                }
                t.remove(key.last().unwrap());
                // A line whose removal leaves an invalid config is needed (a run bounded by
                // iterations alone writes `time_limit_minutes = 0`).
                let Ok(c) = Config::from_toml(&toml::to_string(&without).unwrap(), &[]) else {
                    continue;
                };
                assert!(
                    c != full,
                    "{}: {} is the default",
                    p.display(),
                    key.join(".")
                );
            }
        }
    }

    /// The configs in `configs/` parse and validate (a typo there would only show when a
    /// user runs them).
    #[test]
    fn shipped_configs_are_valid() {
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("configs");
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

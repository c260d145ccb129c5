//! `oware bench env`: game steps per second of the batched environment playing random
//! games on all cores, against the single-threaded perft rate of the same run.

use std::time::Instant;

use anyhow::{Context, Result, bail};

use oware_core::env::{BatchEnv, Encoding, EnvConfig, StepOut};
use oware_core::game::RuleSet;

use super::game::perft_rate;

/// Arguments of `oware bench env`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Batch sizes to measure (repeat the flag for several).
    #[arg(long = "games", default_values_t = [4096usize, 65536])]
    games: Vec<usize>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Rule set played.
    #[arg(long, default_value = "abapa")]
    rules: String,
    /// Input encoding written in the "with features" measurement.
    #[arg(long, default_value = "onehot")]
    encoding: String,
    /// Seconds per timed run; each figure is the best of `--runs` runs.
    #[arg(long, default_value_t = 0.5)]
    seconds: f64,
    /// Timed runs per figure (the best is kept: the machine may be shared).
    #[arg(long, default_value_t = 3)]
    runs: u32,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// What one step call does in a measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `random_actions` then `step`, filling the legal masks: the public two-call path.
    Actions,
    /// `step_random`, filling the legal masks: random choice fused into the step.
    Fused,
    /// As `Actions`, also writing the input features of every game.
    Features,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Actions => "random_actions+step, legal masks",
            Mode::Fused => "step_random (fused), legal masks",
            Mode::Features => "random_actions+step, legal masks + features",
        }
    }

    fn key(self) -> &'static str {
        match self {
            Mode::Actions => "actions",
            Mode::Fused => "fused",
            Mode::Features => "features",
        }
    }
}

/// CPU time used so far by this process (all threads, user + system), in seconds, from
/// `/proc/self/stat` (Linux; `None` elsewhere). At 100 ticks/s it resolves 10 ms.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line: 11 and 12 here.
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// One figure: wall-clock steps/s (best run) and steps per CPU-second (same run).
struct Rate {
    /// Game steps per wall-clock second.
    wall: f64,
    /// Game steps per second of CPU time used by all worker threads; times the thread
    /// count, what the machine would give with its cores to itself.
    per_cpu: Option<f64>,
}

/// Game steps per second of `mode` on `games` games: the best of `runs` runs of about
/// `seconds` each, after a warm-up that lets the games spread over all game lengths.
fn measure(
    rules: RuleSet,
    games: usize,
    mode: Mode,
    enc: Encoding,
    seconds: f64,
    runs: u32,
) -> Result<Rate> {
    let config = EnvConfig {
        rules,
        seed: 1,
        ..EnvConfig::default()
    };
    let mut env = BatchEnv::new(games, config)?;
    let mut actions = vec![0u8; games];
    let mut legal = vec![0u8; games];
    let mut feats = if mode == Mode::Features {
        vec![0f32; games * enc.dim()]
    } else {
        Vec::new()
    };
    let mut step = |env: &mut BatchEnv| -> Result<usize> {
        let out = StepOut {
            legal: &mut legal,
            features: &mut feats,
            encoding: enc,
            ..StepOut::default()
        };
        let s = match mode {
            Mode::Fused => env.step_random(out)?,
            _ => {
                env.random_actions(&mut actions)?;
                env.step(&actions, out)?
            }
        };
        Ok(s.stepped)
    };
    // Warm-up: games at every stage (random games last ~100 plies), caches warm.
    for _ in 0..120 {
        step(&mut env)?;
    }
    let mut best = Rate {
        wall: 0.0,
        per_cpu: None,
    };
    for _ in 0..runs.max(1) {
        let cpu0 = cpu_seconds();
        let t = Instant::now();
        let mut stepped = 0u64;
        loop {
            for _ in 0..4 {
                stepped += step(&mut env)? as u64;
            }
            if t.elapsed().as_secs_f64() >= seconds {
                break;
            }
        }
        let wall = stepped as f64 / t.elapsed().as_secs_f64();
        let per_cpu = match (cpu0, cpu_seconds()) {
            (Some(a), Some(b)) if b > a => Some(stepped as f64 / (b - a)),
            _ => None,
        };
        if wall > best.wall {
            best = Rate { wall, per_cpu };
        }
    }
    Ok(best)
}

pub fn run(a: Args) -> Result<()> {
    let rules = super::super::parse_rules(&a.rules)?;
    let enc: Encoding = a
        .encoding
        .parse()
        .map_err(anyhow::Error::msg)
        .context("--encoding")?;
    if a.games.contains(&0) {
        bail!("--games: a batch needs at least one game");
    }
    if !(a.seconds > 0.0 && a.seconds <= 600.0) {
        bail!("--seconds must be in (0, 600], got {}", a.seconds);
    }
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = a.threads {
        if t == 0 {
            bail!("--threads must be at least 1");
        }
        pool = pool.num_threads(t);
    }
    let pool = pool.build().context("starting the worker threads")?;
    let threads = pool.current_num_threads();

    // Perft first, alone on the machine, single-threaded: the yardstick.
    let (_, perft) = perft_rate(10);
    let mut rows = Vec::new();
    for &n in &a.games {
        for mode in [Mode::Actions, Mode::Fused, Mode::Features] {
            let rate = pool.install(|| measure(rules, n, mode, enc, a.seconds, a.runs))?;
            rows.push((n, mode, rate));
        }
    }
    // The headline: the public path (random actions, step, legal masks) on the largest batch.
    let headline = rows
        .iter()
        .filter(|r| r.1 == Mode::Actions)
        .max_by_key(|r| r.0)
        .map(|r| r.2.wall)
        .unwrap_or(0.0);
    if a.json {
        let results: Vec<_> = rows
            .iter()
            .map(|(n, mode, rate)| {
                serde_json::json!({
                    "games": n, "mode": mode.key(), "what": mode.name(),
                    "steps_per_second": rate.wall, "ratio_to_perft": rate.wall / perft,
                    "steps_per_cpu_second": rate.per_cpu,
                })
            })
            .collect();
        let v = serde_json::json!({
            "rules": rules.name(), "threads": threads, "encoding": enc.name(),
            "steps_per_second": headline,
            "perft_moves_per_second": perft,
            "ratio_to_perft": headline / perft,
            "results": results,
        });
        super::super::out(&format!("{v}\n"))
    } else {
        let mut s = format!(
            "perft(10) single-threaded: {:.1} M moves/s\n{threads} threads, {}, best of {} runs of {} s \
             (per CPU-s: steps per second of CPU time used, insensitive to other load):\n",
            perft / 1e6,
            rules.name(),
            a.runs,
            a.seconds
        );
        for (n, mode, rate) in &rows {
            let what = if *mode == Mode::Features {
                format!("{} ({})", mode.name(), enc.name())
            } else {
                mode.name().to_string()
            };
            let cpu = rate
                .per_cpu
                .map(|c| format!("{:>6.1} M/CPU-s", c / 1e6))
                .unwrap_or_default();
            s += &format!(
                "{n:>7} games  {:>7.1} M steps/s  ({:.2}× perft)  {cpu}  {what}\n",
                rate.wall / 1e6,
                rate.wall / perft
            );
        }
        super::super::out(&s)
    }
}

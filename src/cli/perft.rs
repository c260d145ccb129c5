//! `oware perft`: leaf counts per depth, with timing.

use std::time::Instant;

use anyhow::{Result, bail};

use oware_core::game::perft;

/// Arguments of `oware perft`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Start position (FEN, docs/notation.md); default: the start.
    #[arg(long)]
    fen: Option<String>,
    /// Rule set: abapa, awari, grand-slam-captures, ouril, traditional.
    #[arg(long, default_value = "abapa")]
    rules: String,
    /// Count sequences of 1..=N plies.
    #[arg(long)]
    depth: u32,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let rules = super::parse_rules(&a.rules)?;
    if a.depth == 0 || a.depth > 30 {
        bail!("--depth {}: expected a depth from 1 to 30", a.depth);
    }
    let game = super::game_from(rules, a.fen.as_deref(), None)?;
    let pos = *game.position();
    let t0 = Instant::now();
    let mut counts = Vec::new();
    let mut lines = String::new();
    if !a.json {
        super::out(&format!(
            "{:>5} {:>15} {:>12} {:>10}\n",
            "depth", "leaves", "seconds", "M moves/s"
        ))?;
    }
    for d in 1..=a.depth {
        let t = Instant::now();
        let n = perft(&pos, rules, d);
        counts.push(n);
        if !a.json {
            let s = t.elapsed().as_secs_f64();
            lines = format!(
                "{lines}{d:>5} {n:>15} {s:>12.3} {:>10.1}\n",
                n as f64 / s.max(1e-9) / 1e6
            );
            super::out(&lines)?;
            lines.clear();
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let total: u64 = counts.iter().sum();
    let rate = total as f64 / secs.max(1e-9);
    if a.json {
        let v = serde_json::json!({
            "fen": pos.to_string(),
            "rules": rules.name(),
            "counts": counts,
            "seconds": secs,
            "moves_per_second": rate,
        });
        super::out(&format!("{v}\n"))
    } else {
        super::out(&format!(
            "total {total} in {secs:.3} s: {:.1} M moves/s\n",
            rate / 1e6
        ))
    }
}

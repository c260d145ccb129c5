//! A run's latest self-play games and its checkpoints, as the training page lists them.

use std::path::Path;

use serde_json::{Value, json};

use super::metrics::Metrics;

/// Most games one answer carries.
pub const MAX_GAMES: usize = 100;

/// The largest games file read (an iteration of 1 024 games is about 200 KB).
const MAX_GAMES_BYTES: u64 = 16 << 20;

/// The newest `RUN/games/iter-NNNN.txt` and its number, if any.
fn latest_games_file(run: &Path) -> Option<(String, u64)> {
    if !super::real_dir(&run.join("games")) {
        return None;
    }
    std::fs::read_dir(run.join("games"))
        .ok()?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name
                .strip_prefix("iter-")?
                .strip_suffix(".txt")?
                .parse()
                .ok()?;
            Some((name, n))
        })
        .max_by_key(|(_, n)| *n)
}

/// The last `n` games of the run's newest games file: `{file, iteration, games_in_file,
/// games: [{index, start, moves, plies}]}`; `file` is `null` when the run kept none.
pub fn latest_games(run: &Path, n: usize) -> Result<Value, String> {
    let Some((name, iteration)) = latest_games_file(run) else {
        return Ok(json!({"file": null, "iteration": null, "games_in_file": 0, "games": []}));
    };
    let text = super::read_capped(&run.join("games").join(&name), MAX_GAMES_BYTES)?;
    // A line is `START;MOVES`; anything else (a line cut off by a copy) is left out.
    let lines: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|l| l.trim().split_once(';'))
        .filter(|(s, m)| !s.is_empty() && m.chars().all(|c| c.is_ascii_alphabetic()))
        .collect();
    let first = lines.len().saturating_sub(n.min(MAX_GAMES));
    let games: Vec<Value> = lines[first..]
        .iter()
        .enumerate()
        .rev()
        .map(|(i, (start, moves))| {
            json!({"index": first + i, "start": start, "moves": moves, "plies": moves.len()})
        })
        .collect();
    Ok(json!({
        "file": format!("games/{name}"),
        "iteration": iteration,
        "games_in_file": lines.len(),
        "games": games,
    }))
}

/// The run's checkpoints, newest first: `{name, iteration, latest, pool_elo,
/// pool_elo_low, pool_elo_high, eval_elo}`, the ratings from the metrics row of that
/// iteration (`null` where it was not evaluated).
pub fn checkpoints(run: &Path, m: Option<&Metrics>) -> Vec<Value> {
    let dir = run.join("checkpoints");
    let latest = super::read_capped(&dir.join("latest"), 256)
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    if !super::real_dir(&dir) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut found: Vec<(String, u64)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name.strip_prefix("iter-")?.parse().ok()?;
            // A checkpoint being written has no manifest yet.
            e.path()
                .join("manifest.json")
                .is_file()
                .then_some((name, n))
        })
        .collect();
    found.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    found
        .into_iter()
        .map(|(name, n)| {
            let at = |col: &str| m.and_then(|m| value_at(m, n, col));
            json!({
                "name": name,
                "iteration": n,
                "latest": name == latest,
                "pool_elo": at("pool_elo"),
                "pool_elo_low": at("pool_elo_low"),
                "pool_elo_high": at("pool_elo_high"),
                "eval_elo": at("eval_elo"),
            })
        })
        .collect()
}

/// Column `col` of the row of iteration `it`.
fn value_at(m: &Metrics, it: u64, col: &str) -> Option<f64> {
    let its = m.column("iteration")?;
    let r = its.iter().position(|v| *v == Some(it as f64))?;
    m.column(col)?[r]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_file_gives_its_last_games_newest_first() {
        let d = tempfile::tempdir().unwrap();
        let g = d.path().join("games");
        std::fs::create_dir(&g).unwrap();
        std::fs::write(g.join("iter-0009.txt"), "S;Aa\n").unwrap();
        std::fs::write(g.join("iter-0010.txt"), "S;Ff\nS;FfBe\nbroken\nS;Cc").unwrap();
        let v = latest_games(d.path(), 2).unwrap();
        assert_eq!(v["file"], "games/iter-0010.txt");
        assert_eq!(v["games_in_file"], 3);
        assert_eq!(v["games"][0]["moves"], "Cc");
        assert_eq!(v["games"][1]["moves"], "FfBe");
        assert_eq!(v["games"][1]["index"], 1);
        assert_eq!(
            latest_games(&d.path().join("none"), 2).unwrap()["games"],
            json!([])
        );
    }

    #[test]
    fn checkpoints_carry_their_ratings() {
        let d = tempfile::tempdir().unwrap();
        let c = d.path().join("checkpoints");
        for n in ["iter-0002", "iter-0004", "iter-0006"] {
            std::fs::create_dir_all(c.join(n)).unwrap();
        }
        for n in ["iter-0002", "iter-0004"] {
            std::fs::write(c.join(n).join("manifest.json"), "{}").unwrap();
        }
        std::fs::write(c.join("latest"), "iter-0004\n").unwrap();
        let m = super::super::metrics::parse(b"iteration,pool_elo\n2,\n4,1500\n").unwrap();
        let list = checkpoints(d.path(), Some(&m));
        assert_eq!(list.len(), 2);
        assert_eq!(list[0]["name"], "iter-0004");
        assert_eq!(list[0]["latest"], true);
        assert_eq!(list[0]["pool_elo"], 1500.0);
        assert_eq!(list[1]["pool_elo"], Value::Null);
    }
}

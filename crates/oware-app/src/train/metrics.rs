//! `metrics.csv`: one row per training iteration, rewritten atomically each time.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use oware_core::files::atomic_write;

/// One training iteration's measurements.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricsRow {
    /// Iteration number (1-based).
    pub iteration: u32,
    /// Seconds since the run started (summed over resumed sessions).
    pub wall_seconds: f64,
    /// Games finished this iteration (own self-play plus external workers' chunks).
    pub games: u64,
    /// Training positions (samples) added this iteration.
    pub positions: u64,
    /// Samples ever added.
    pub total_positions: u64,
    /// Self-play samples per second this iteration.
    pub samples_per_second: f64,
    /// Self-play simulations per second this iteration.
    pub simulations_per_second: f64,
    /// Self-play seconds this iteration.
    pub selfplay_seconds: f64,
    /// SGD steps this iteration.
    pub train_steps: u64,
    /// Training seconds this iteration.
    pub train_seconds: f64,
    /// Learning rate used.
    pub learning_rate: f64,
    /// Samples in the replay window.
    pub window: u64,
    /// Mean policy cross-entropy over this iteration's steps.
    pub policy_loss: f64,
    /// Mean W/D/L cross-entropy.
    pub value_loss: f64,
    /// Mean store-difference loss.
    pub store_diff_loss: f64,
    /// Mean entropy of the network's policy.
    pub policy_entropy: f64,
    /// Fraction of samples whose W/D/L argmax matches the target's.
    pub value_accuracy: f64,
    /// Mean plies per self-play game.
    pub avg_game_length: f64,
    /// Fraction of self-play games drawn.
    pub draw_rate: f64,
    /// Evaluation opponent, when evaluated this iteration.
    pub eval_opponent: Option<String>,
    /// Score against it (wins + draws/2) / games.
    pub eval_score: Option<f64>,
    /// Elo difference against it.
    pub eval_elo: Option<f64>,
    /// 95% confidence interval of that Elo, low end.
    pub eval_elo_low: Option<f64>,
    /// 95% confidence interval, high end.
    pub eval_elo_high: Option<f64>,
    /// The checkpoint's rating in the run's pool (maximum likelihood over every
    /// evaluation game, anchored at the baseline's `eval.opponent_elo`).
    #[serde(default)]
    pub pool_elo: Option<f64>,
    /// Its 95% interval, low end (empty: unbounded).
    #[serde(default)]
    pub pool_elo_low: Option<f64>,
    /// High end (empty: unbounded).
    #[serde(default)]
    pub pool_elo_high: Option<f64>,
    /// Seconds this iteration's evaluation took.
    #[serde(default)]
    pub eval_seconds: f64,
    /// Perfect-play accuracy at this evaluation (`eval.tablebase`): the share of the
    /// suite's table positions where the network's move keeps the outcome the table
    /// gives with best play.
    #[serde(default)]
    pub tb_outcome_accuracy: Option<f64>,
    /// The share where its move keeps the best capture margin too.
    #[serde(default)]
    pub tb_margin_accuracy: Option<f64>,
    /// Resident memory of the training process at the end of the iteration, in MB.
    #[serde(default)]
    pub rss_mb: f64,
    /// Disk use of the sample chunks (`RUN/samples`) at the end of the iteration, in MB.
    #[serde(default)]
    pub samples_mb: f64,
    /// Share of self-play evaluations the caches answered (`selfplay.cache_mb`; empty
    /// without caches).
    #[serde(default)]
    pub cache_hit_rate: Option<f64>,
    /// Policy accuracy: the share of the iteration's training samples whose likeliest
    /// legal move under the network is the policy target's likeliest, measured before each
    /// step's update, mean over the steps (NaN without a step, as the losses; empty in
    /// files from before the column).
    #[serde(default)]
    pub policy_accuracy: Option<f64>,
}

/// The process's resident memory in MB (`VmRSS` of `/proc/self/status`; 0 where the
/// system has no such file).
pub fn resident_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Sets glibc's allocator for training (other C libraries: nothing to do):
/// - A fixed mmap threshold of 1 MiB. Sample chunks (megabytes each) come and go as the
///   replay window moves; glibc raises its threshold after each such free, so later
///   chunks landed in the heap and left it fragmented (a soak run's resident memory kept
///   growing past the window's data). Now every chunk has its own mapping, returned to
///   the system when the chunk leaves.
/// - A trim threshold of 256 MiB. A training step allocates and frees tensors of
///   hundreds of kilobytes; with the default (128 KiB) each free at the heap's top gave
///   the pages back and the next step faulted them in again: a fifth of the step's time
///   went to the kernel. Free memory is handed back once per iteration instead
///   ([`release_free_memory`]).
///
/// Called before the run allocates.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator tuning.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

/// Hands the allocator's free pages back to the system. Self-play, training and an
/// evaluation each allocate and free on threads of their own, and glibc keeps what a
/// thread's arena freed until asked: a soak run's resident memory rose in steps at its
/// evaluations and never came down. Called once per iteration (it takes about a
/// millisecond); other C libraries: nothing to do.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Bytes of the plain files directly in `dir`, in MB (0 when it cannot be read).
pub fn dir_mb(dir: &Path) -> f64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0.0;
    };
    entries
        .filter_map(|e| e.ok()?.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len() as f64)
        .sum::<f64>()
        / 1e6
}

/// Reads `metrics.csv` (absent: no rows).
pub fn read(path: &Path) -> Result<Vec<MetricsRow>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let mut r =
        csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    r.deserialize()
        .enumerate()
        .map(|(i, row)| row.with_context(|| format!("{}: row {}", path.display(), i + 2)))
        .collect()
}

/// Writes all rows to `metrics.csv` atomically.
pub fn write(path: &Path, rows: &[MetricsRow]) -> Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    let bytes = w.into_inner().context("csv buffer")?;
    atomic_write(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_with_missing_evaluations() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("metrics.csv");
        let a = MetricsRow {
            iteration: 1,
            policy_loss: 1.5,
            ..MetricsRow::default()
        };
        let b = MetricsRow {
            iteration: 2,
            eval_opponent: Some("alphabeta:depth=4".into()),
            eval_score: Some(0.75),
            eval_elo: Some(190.8),
            pool_elo: Some(1234.5),
            pool_elo_low: Some(1100.0),
            eval_seconds: 12.5,
            ..MetricsRow::default()
        };
        write(&p, &[a.clone(), b.clone()]).unwrap();
        assert_eq!(read(&p).unwrap(), vec![a, b]);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("iteration,wall_seconds,"));
    }

    #[test]
    fn files_from_before_the_pool_columns_still_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("metrics.csv");
        let a = MetricsRow {
            iteration: 3,
            eval_score: Some(0.5),
            ..MetricsRow::default()
        };
        write(&p, std::slice::from_ref(&a)).unwrap();
        // Cut the ten columns added since then from the header and the row.
        let old: String = std::fs::read_to_string(&p)
            .unwrap()
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                f[..f.len() - 10].join(",") + "\n"
            })
            .collect();
        assert!(old.starts_with("iteration,") && !old.contains("pool_elo"));
        std::fs::write(&p, old).unwrap();
        assert_eq!(read(&p).unwrap(), vec![a]);
    }

    #[test]
    fn files_from_before_the_policy_accuracy_column_still_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("metrics.csv");
        let a = MetricsRow {
            iteration: 4,
            value_accuracy: 0.5,
            policy_accuracy: Some(0.375),
            ..MetricsRow::default()
        };
        write(&p, std::slice::from_ref(&a)).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.lines().next().unwrap().ends_with(",policy_accuracy"));
        assert_eq!(read(&p).unwrap(), vec![a.clone()]);
        // The file as the trainer wrote it before: the last column cut off.
        let old: String = text
            .lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string() + "\n")
            .collect();
        std::fs::write(&p, old).unwrap();
        let before = MetricsRow {
            policy_accuracy: None,
            ..a
        };
        assert_eq!(read(&p).unwrap(), vec![before]);
    }

    #[test]
    fn files_with_columns_since_removed_still_read() {
        // `rescored_share` was written until `train.rescore_tablebase` was taken out; a
        // run resumed from such a file reads its rows and rewrites them without it.
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("metrics.csv");
        let a = MetricsRow {
            iteration: 7,
            cache_hit_rate: Some(0.25),
            ..MetricsRow::default()
        };
        write(&p, std::slice::from_ref(&a)).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let mut lines = text.lines();
        let old = format!(
            "{},rescored_share\n{},0.125\n",
            lines.next().unwrap(),
            lines.next().unwrap()
        );
        std::fs::write(&p, old).unwrap();
        assert_eq!(read(&p).unwrap(), vec![a]);
    }

    #[test]
    fn resident_memory_and_disk_use_are_measured() {
        // This process holds at least a few MB; on Linux /proc/self/status says so.
        if std::path::Path::new("/proc/self/status").exists() {
            let before = resident_mb();
            assert!(before > 1.0, "{before}");
            // 64 MB touched page by page shows up in the resident set.
            let big = std::hint::black_box(vec![1u8; 64 << 20]);
            let after = resident_mb();
            assert!(after >= before + 50.0, "{before} -> {after}");
            assert_eq!(std::hint::black_box(&big)[12345], 1);
        }
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.bin"), vec![0u8; 1_500_000]).unwrap();
        std::fs::write(d.path().join("b.bin"), vec![0u8; 500_000]).unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        assert!((dir_mb(d.path()) - 2.0).abs() < 1e-9);
        assert_eq!(dir_mb(&d.path().join("absent")), 0.0);
    }
}

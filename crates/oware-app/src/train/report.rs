//! What the run tells its user: the log lines of each iteration, the self-play progress
//! bar, and how figures are written in them.

use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::config::TrainConfig;
use super::metrics::MetricsRow;
use super::stop::stop_requested;
use crate::arena::gauntlet::EvalSummary;
use crate::selfplay::Progress;

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

impl Display {
    /// Says `msg` on stderr unless quiet.
    pub fn say(self, msg: String) {
        if self != Display::Quiet {
            eprintln!("{msg}");
        }
    }
}

/// Wall time as `42s`, `10m37s` or `2h05m`.
pub(super) fn duration_text(seconds: f64) -> String {
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
pub(super) fn log_lines(
    row: &MetricsRow,
    t: &TrainConfig,
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
    let window = format!(
        "window {} (rule {})",
        count_text(row.window as f64),
        count_text(window_size as f64)
    );
    let second = if row.train_steps == 0 {
        // No step (the window is below train.min_window_samples): no losses to show.
        format!("  no training step | {window}")
    } else {
        format!(
            "  {} steps, lr {:.1e} | loss p {:.3} v {:.3} s {:.4} | acc {:.2} | {window}",
            row.train_steps,
            row.learning_rate,
            row.policy_loss,
            row.value_loss,
            row.store_diff_loss,
            row.value_accuracy,
        )
    };
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

/// The evaluation's second line: the pool rating, and what the evaluations cost.
pub(super) fn eval_cost_line(s: &EvalSummary, eval_seconds: f64, share: f64) -> String {
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
        100.0 * share
    ));
    line
}

/// Shows self-play progress until the worker finishes: a bar on a terminal, a line
/// every 30 s otherwise.
pub(super) fn show_progress<T>(
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
        // An iteration without a step says so instead of NaN losses.
        let l = &log_lines(&row, &t, 50_000, None)[1];
        assert!(
            l.starts_with("  no training step | window 0 (rule 50.0k)"),
            "{l}"
        );
    }
}

//! Learning curves as PNG (plotters): losses, evaluation score and Elo, self-play figures,
//! in panels stacked over one shared time axis (minutes of wall time).
//!
//! An evaluation is a point with its 95% interval as a vertical bar (several make a line
//! in a shaded band). A perfect score (every game won) is no measurement of how much
//! stronger the network is, only a bound: it is drawn as an open marker with an arrow up
//! from the interval's lower end, the only end the games bound.

use std::path::Path;
use std::sync::Once;

use anyhow::{Context, Result, anyhow};
use plotters::prelude::*;

use super::metrics::MetricsRow;
use crate::arena::stats::score_of_elo;

/// DejaVu Sans (free licence, see `fonts/DejaVu-LICENSE.txt`), embedded so plots render
/// the same on every machine, with or without system fonts.
static FONT: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Registration can only fail on a malformed font; ours is embedded and valid.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// A measurement with its 95% interval, at a time in minutes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Banded {
    x: f64,
    y: f64,
    low: f64,
    high: f64,
    /// Every game won (or lost): `y` is a bound, not an estimate.
    bound: bool,
}

/// The arena reports an interval end it cannot bound (every game won or lost) as ±2 000 Elo.
const UNBOUNDED_ELO: f64 = 2000.0;

/// The y range of a panel: the points, padded by 8% so nothing sits on the frame.
fn y_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut y0, mut y1) = (f64::MAX, f64::MIN);
    for y in values {
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let pad = ((y1 - y0) * 0.08).max(1e-3);
    (y0 - pad, y1 + pad)
}

type Chart<'a, 'b> = ChartContext<
    'a,
    BitMapBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

fn chart<'a, 'b>(
    area: &'a DrawingArea<BitMapBackend<'b>, plotters::coord::Shift>,
    title: &str,
    x: (f64, f64),
    y: (f64, f64),
) -> Result<Chart<'a, 'b>> {
    let x1 = if x.1 <= x.0 { x.0 + 1.0 } else { x.1 };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(8)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(x.0..x1, y.0..y.1)
        .map_err(|e| anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .x_desc("minutes")
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    Ok(chart)
}

fn legend<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, at: SeriesLabelPosition) -> Result<()> {
    chart
        .configure_series_labels()
        .position(at)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .draw()
        .map_err(|e| anyhow!("{e}"))
}

fn no_data(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    title: &str,
) -> Result<()> {
    area.titled(&format!("{title} (no data yet)"), ("sans-serif", 18))
        .map_err(|e| anyhow!("{e}"))?;
    Ok(())
}

/// Where a panel's legend goes.
enum Legend {
    At(SeriesLabelPosition),
    /// At the right, its top at this data value: for curves that leave a known band free.
    RightBelow(f64),
}

/// One panel: named series of (minutes, value) points.
fn panel(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    title: &str,
    series: &[(&str, Vec<(f64, f64)>)],
    legend_at: Legend,
    x: (f64, f64),
) -> Result<()> {
    let pts: Vec<&(f64, f64)> = series.iter().flat_map(|s| s.1.iter()).collect();
    if pts.is_empty() {
        return no_data(area, title);
    }
    let mut chart = chart(area, title, x, y_range(pts.iter().map(|p| p.1)))?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN];
    for (k, (name, s)) in series.iter().enumerate() {
        let c = colors[k % colors.len()];
        chart
            .draw_series(LineSeries::new(s.iter().cloned(), c.stroke_width(2)))
            .map_err(|e| anyhow!("{e}"))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
        chart
            .draw_series(s.iter().map(|&(x, y)| Circle::new((x, y), 2, c.filled())))
            .map_err(|e| anyhow!("{e}"))?;
    }
    let at = match legend_at {
        Legend::At(at) => at,
        Legend::RightBelow(y) => {
            // Data coordinates to the plotting area's pixels; the legend is about 170 px wide.
            let base = chart.plotting_area().get_base_pixel();
            let (w, _) = chart.plotting_area().dim_in_pixel();
            let (_, py) = chart.backend_coord(&(x.0, y));
            SeriesLabelPosition::Coordinate(w as i32 - 175, py - base.1)
        }
    };
    legend(&mut chart, at)
}

/// One panel: measurements with their 95% intervals (a bar each; a line in a shaded band
/// when there are several), bounds as open markers with an arrow up from the lower end.
/// The y range fits the estimates and the bounded interval ends; an end beyond the range
/// (an unbounded one above all) is drawn at the frame.
fn band_panel(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    title: &str,
    name: &str,
    pts: &[Banded],
    bounded: impl Fn(f64) -> bool,
    floor: f64,
    x: (f64, f64),
) -> Result<()> {
    if pts.is_empty() {
        return no_data(area, title);
    }
    let y = y_range(
        pts.iter()
            .flat_map(|p| [p.y, p.low, p.high])
            .filter(|&v| bounded(v)),
    );
    // Room below the data for the legend, so that it hides no point (not below `floor`).
    let y = ((y.0 - 0.6 * (y.1 - y.0)).max(floor.min(y.0)), y.1);
    let clip = |v: f64| v.clamp(y.0, y.1);
    let mut chart = chart(area, title, x, y)?;
    let band = BLUE.mix(0.15);
    if pts.len() > 1 {
        let mut outline: Vec<(f64, f64)> = pts.iter().map(|p| (p.x, clip(p.high))).collect();
        outline.extend(pts.iter().rev().map(|p| (p.x, clip(p.low))));
        chart
            .draw_series(std::iter::once(Polygon::new(outline, band.filled())))
            .map_err(|e| anyhow!("{e}"))?;
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|p| (p.x, clip(p.y))),
                BLUE.stroke_width(1),
            ))
            .map_err(|e| anyhow!("{e}"))?;
    }
    // Each evaluation's interval as a bar.
    chart
        .draw_series(pts.iter().map(|p| {
            PathElement::new(
                vec![(p.x, clip(p.low)), (p.x, clip(p.high))],
                BLUE.mix(0.5).stroke_width(2),
            )
        }))
        .map_err(|e| anyhow!("{e}"))?
        .label("95% interval")
        .legend(|(x, y)| {
            PathElement::new(
                vec![(x + 8, y - 6), (x + 8, y + 6)],
                BLUE.mix(0.5).stroke_width(2),
            )
        });
    chart
        .draw_series(
            pts.iter()
                .filter(|p| !p.bound)
                .map(|p| Circle::new((p.x, clip(p.y)), 3, BLUE.filled())),
        )
        .map_err(|e| anyhow!("{e}"))?
        .label(name)
        .legend(|(x, y)| Circle::new((x + 8, y), 3, BLUE.filled()));
    if pts.iter().any(|p| p.bound) {
        chart
            .draw_series(
                pts.iter()
                    .filter(|p| p.bound)
                    .map(|p| Circle::new((p.x, clip(p.y)), 5, RED.stroke_width(2))),
            )
            .map_err(|e| anyhow!("{e}"))?
            .label("all games won: a bound, not a measurement")
            .legend(|(x, y)| Circle::new((x + 8, y), 5, RED.stroke_width(2)));
        chart
            .draw_series(
                pts.iter()
                    .filter(|p| p.bound)
                    .map(|p| TriangleMarker::new((p.x, clip(p.low)), 7, RED.filled())),
            )
            .map_err(|e| anyhow!("{e}"))?
            .label("at least this (the interval's lower end)")
            .legend(|(x, y)| TriangleMarker::new((x + 8, y), 7, RED.filled()));
    }
    // Scores and Elo rise over a run: the lower right corner is where they are not.
    legend(&mut chart, SeriesLabelPosition::LowerRight)
}

/// The evaluations against `opponent`, in order, as Elo and as score per game. The
/// score's interval is the Elo interval mapped back through the logistic curve.
fn evaluations(rows: &[MetricsRow], opponent: &str) -> (Vec<Banded>, Vec<Banded>) {
    let mut elo = Vec::new();
    let mut score = Vec::new();
    for r in rows {
        if r.eval_opponent.as_deref() != Some(opponent) {
            continue;
        }
        let x = r.wall_seconds / 60.0;
        if let (Some(e), Some(lo), Some(hi)) = (r.eval_elo, r.eval_elo_low, r.eval_elo_high) {
            elo.push(Banded {
                x,
                y: e,
                low: lo,
                high: hi,
                bound: r.eval_score == Some(1.0),
            });
        }
        if let Some(s) = r.eval_score {
            let (lo, hi) = match (r.eval_elo_low, r.eval_elo_high) {
                (Some(lo), Some(hi)) => (score_of_elo(lo), score_of_elo(hi)),
                _ => (s, s),
            };
            score.push(Banded {
                x,
                y: s,
                low: lo.min(s),
                high: hi.max(s),
                bound: s == 1.0,
            });
        }
    }
    (elo, score)
}

/// The checkpoints' pool ratings with their intervals, in order (an unbounded end drawn
/// at the estimate).
fn pool_ratings(rows: &[MetricsRow]) -> Vec<Banded> {
    rows.iter()
        .filter_map(|r| {
            let y = r.pool_elo?;
            Some(Banded {
                x: r.wall_seconds / 60.0,
                y,
                low: r.pool_elo_low.unwrap_or(y),
                high: r.pool_elo_high.unwrap_or(y),
                bound: r.pool_elo_low.is_none() || r.pool_elo_high.is_none(),
            })
        })
        .collect()
}

/// Draws `learning-curves.png` for the run `name` from its rows: losses, store-difference
/// loss, evaluation score, Elo and self-play, one panel above the other on one time axis.
/// `anchor_elo` is the rating the run's pool gives its baseline (`eval.opponent_elo`),
/// named in the pool rating's panel.
pub fn learning_curves(rows: &[MetricsRow], out: &Path, name: &str, anchor_elo: f64) -> Result<()> {
    register_font();
    let tmp = out.with_extension("tmp.png");
    {
        let has_accuracy = rows.iter().any(|r| r.tb_outcome_accuracy.is_some());
        let has_memory = rows.iter().any(|r| r.rss_mb > 0.0);
        let n = 5 + usize::from(has_accuracy) + usize::from(has_memory);
        let root = BitMapBackend::new(&tmp, (1200, 300 * n as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let root = root
            .titled(
                &format!("{name}: learning curves ({} iterations)", rows.len()),
                ("sans-serif", 24),
            )
            .map_err(|e| anyhow!("{e}"))?;
        let areas = root.split_evenly((n, 1));
        let m = |r: &MetricsRow| r.wall_seconds / 60.0;
        // Every panel spans the same minutes, so a moment lines up across them.
        let x = (0.0, rows.iter().map(m).fold(0.0, f64::max).max(1e-3));
        // An iteration without a training step has no losses (NaN): no point is drawn
        // for it (plotters would loop for ever on a NaN range).
        let line = |f: &dyn Fn(&MetricsRow) -> f64| {
            rows.iter()
                .map(|r| (m(r), f(r)))
                .filter(|p| p.1.is_finite())
                .collect::<Vec<_>>()
        };
        panel(
            &areas[0],
            "training losses",
            &[
                ("policy", line(&|r| r.policy_loss)),
                ("value (W/D/L)", line(&|r| r.value_loss)),
            ],
            Legend::At(SeriesLabelPosition::UpperRight),
            x,
        )?;
        // Ten times smaller than the others: on their scale it would be a flat line.
        panel(
            &areas[1],
            "store-difference loss (its own scale)",
            &[("store difference", line(&|r| r.store_diff_loss))],
            Legend::At(SeriesLabelPosition::UpperRight),
            x,
        )?;
        // A run resumed with another opponent has evaluations against each: the panels
        // show the latest opponent's, since scores against different opponents do not
        // belong on one curve.
        let opponent = rows
            .iter()
            .rev()
            .find_map(|r| r.eval_opponent.clone())
            .unwrap_or_else(|| "baseline".into());
        let (elo, score) = evaluations(rows, &opponent);
        band_panel(
            &areas[2],
            &format!("score vs {opponent}"),
            "score",
            &score,
            |_| true,
            0.0,
            x,
        )?;
        // The pool rating when the run has one: it keeps its meaning after the score
        // against the baseline saturates.
        let pool = pool_ratings(rows);
        let (elo_title, elo) = if pool.is_empty() {
            (format!("Elo vs {opponent}"), elo)
        } else {
            (
                format!(
                    "pool rating: Elo on the scale where {opponent} = {anchor_elo:+.0} (eval.opponent_elo)"
                ),
                pool,
            )
        };
        band_panel(
            &areas[3],
            &elo_title,
            "Elo",
            &elo,
            |v| v.abs() < UNBOUNDED_ELO,
            -UNBOUNDED_ELO,
            x,
        )?;
        panel(
            &areas[4],
            "self-play",
            &[
                (
                    "avg game length / 100",
                    line(&|r| r.avg_game_length / 100.0),
                ),
                ("draw rate", line(&|r| r.draw_rate)),
                ("value accuracy", line(&|r| r.value_accuracy)),
                (
                    "policy accuracy",
                    line(&|r| r.policy_accuracy.unwrap_or(f64::NAN)),
                ),
            ],
            // Between the draw rate (near 0.1) and the accuracy and length (0.7 and up).
            Legend::RightBelow(0.6),
            x,
        )?;
        let mut next = 5;
        if has_accuracy {
            let points = |f: &dyn Fn(&MetricsRow) -> Option<f64>| {
                rows.iter()
                    .filter_map(|r| Some((m(r), f(r)?)))
                    .collect::<Vec<_>>()
            };
            panel(
                &areas[next],
                "perfect-play accuracy on the tablebase suite",
                &[
                    ("outcome kept", points(&|r| r.tb_outcome_accuracy)),
                    ("best margin kept", points(&|r| r.tb_margin_accuracy)),
                ],
                Legend::At(SeriesLabelPosition::LowerRight),
                x,
            )?;
            next += 1;
        }
        if has_memory {
            panel(
                &areas[next],
                "resources (MB)",
                &[
                    ("resident memory", line(&|r| r.rss_mb)),
                    ("sample chunks on disk", line(&|r| r.samples_mb)),
                ],
                Legend::At(SeriesLabelPosition::LowerRight),
                x,
            )?;
        }
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    std::fs::rename(&tmp, out).with_context(|| format!("writing {}", out.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: u32, opponent: Option<&str>, elo: [f64; 3], score: f64) -> MetricsRow {
        MetricsRow {
            iteration: i,
            wall_seconds: 60.0 * i as f64,
            policy_loss: 2.0 / i as f64,
            value_loss: 1.0 / i as f64,
            eval_opponent: opponent.map(str::to_string),
            eval_score: opponent.map(|_| score),
            eval_elo: opponent.map(|_| elo[0]),
            eval_elo_low: opponent.map(|_| elo[1]),
            eval_elo_high: opponent.map(|_| elo[2]),
            ..MetricsRow::default()
        }
    }

    /// The height of a PNG file, from its IHDR chunk.
    fn image_height(p: &Path) -> u32 {
        let b = std::fs::read(p).unwrap();
        u32::from_be_bytes([b[20], b[21], b[22], b[23]])
    }

    #[test]
    fn draws_a_png() {
        // Evaluations every other row, one of them a perfect score with an unbounded end.
        let rows: Vec<MetricsRow> = (1..=6)
            .map(|i| {
                let e = if i == 6 {
                    [919.5, 446.0, UNBOUNDED_ELO]
                } else {
                    [10.0 * i as f64, -50.0, 80.0 * i as f64]
                };
                row(
                    i,
                    (i % 2 == 0).then_some("alphabeta:depth=8"),
                    e,
                    0.1 * i as f64,
                )
            })
            .collect();
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("curves.png");
        learning_curves(&rows, &p, "test", 0.0).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert!(bytes.len() > 10_000);
        // With pool ratings (one with an unbounded end), the Elo panel shows those.
        let mut pooled = rows.clone();
        for r in pooled.iter_mut().filter(|r| r.eval_opponent.is_some()) {
            let e = 100.0 * r.iteration as f64;
            r.pool_elo = Some(e);
            r.pool_elo_low = Some(e - 60.0);
            r.pool_elo_high = (r.iteration < 6).then_some(e + 60.0);
        }
        let bands = pool_ratings(&pooled);
        assert_eq!(bands.len(), 3);
        assert_eq!(
            (bands[2].y, bands[2].low, bands[2].high),
            (600.0, 540.0, 600.0)
        );
        learning_curves(&pooled, &p, "test", 626.0).unwrap();
        assert_eq!(&std::fs::read(&p).unwrap()[1..4], b"PNG");
        // With accuracy and resource columns the picture grows by two panels.
        let plain = image_height(&p);
        for r in pooled.iter_mut() {
            r.rss_mb = 400.0 + r.iteration as f64;
            r.samples_mb = 30.0;
            if r.eval_opponent.is_some() {
                r.tb_outcome_accuracy = Some(0.9);
                r.tb_margin_accuracy = Some(0.7);
            }
        }
        learning_curves(&pooled, &p, "test", 626.0).unwrap();
        assert_eq!(image_height(&p), plain / 5 * 7);
        // Also with no evaluation at all, and with a single row.
        learning_curves(&rows[..1], &p, "test", 0.0).unwrap();
        assert_eq!(&std::fs::read(&p).unwrap()[1..4], b"PNG");
    }

    #[test]
    fn iterations_without_a_training_step_are_drawn_without_losses() {
        // The first iterations of a run with train.min_window_samples take no step, so
        // their losses are NaN; drawing them once looped for ever inside plotters.
        let mut rows: Vec<MetricsRow> = (1..=4).map(|i| row(i, None, [0.0; 3], 0.0)).collect();
        for r in &mut rows[..2] {
            r.policy_loss = f64::NAN;
            r.value_loss = f64::NAN;
            r.store_diff_loss = f64::NAN;
            r.value_accuracy = f64::NAN;
            r.policy_accuracy = Some(f64::NAN);
        }
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("curves.png");
        let (tx, rx) = std::sync::mpsc::channel();
        let (rows2, p2) = (rows.clone(), p.clone());
        std::thread::spawn(move || tx.send(learning_curves(&rows2[..1], &p2, "nan", 0.0)));
        // A liveness bound, not a timing measurement: the drawing takes well under a second.
        let first = rx.recv_timeout(std::time::Duration::from_secs(120));
        assert!(matches!(first, Ok(Ok(()))), "{first:?}");
        learning_curves(&rows, &p, "nan", 0.0).unwrap();
        assert_eq!(&std::fs::read(&p).unwrap()[1..4], b"PNG");
    }

    #[test]
    fn evaluations_keep_the_latest_opponent_and_map_the_interval_to_scores() {
        let rows = vec![
            row(1, Some("alphabeta:depth=6"), [100.0, 0.0, 200.0], 0.64),
            row(2, None, [0.0; 3], 0.0),
            row(3, Some("alphabeta:depth=8"), [0.0, -100.0, 100.0], 0.5),
            row(4, Some("alphabeta:depth=8"), [919.5, 446.0, 2000.0], 1.0),
        ];
        let (elo, score) = evaluations(&rows, "alphabeta:depth=8");
        assert_eq!(elo.len(), 2);
        assert_eq!((elo[0].x, elo[1].x), (3.0, 4.0));
        assert_eq!((elo[1].low, elo[1].high), (446.0, 2000.0));
        // ±100 Elo is a score of 1/(1 + 10^(∓1/4)) = 0.3599 and 0.6401.
        assert!((score[0].low - 0.3599).abs() < 1e-4, "{:?}", score[0]);
        assert!((score[0].high - 0.6401).abs() < 1e-4, "{:?}", score[0]);
        // A perfect score keeps 1.0 inside its band even where the mapped end rounds below.
        assert!(score[1].low < 1.0 && score[1].high >= 1.0 && score[1].y == 1.0);
    }
}

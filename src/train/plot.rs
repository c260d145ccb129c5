//! Learning curves as PNG (plotters): losses, evaluation score and Elo against wall time.

use std::path::Path;
use std::sync::Once;

use anyhow::{Context, Result, anyhow};
use plotters::prelude::*;

use super::metrics::MetricsRow;

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

/// One panel: named series of (minutes, value) points.
fn panel(
    area: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    title: &str,
    series: &[(&str, Vec<(f64, f64)>)],
) -> Result<()> {
    let pts: Vec<&(f64, f64)> = series.iter().flat_map(|s| s.1.iter()).collect();
    if pts.is_empty() {
        area.titled(&format!("{title} (no data yet)"), ("sans-serif", 18))
            .map_err(|e| anyhow!("{e}"))?;
        return Ok(());
    }
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &&(x, y) in &pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let pad = ((y1 - y0) * 0.08).max(1e-3);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(8)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))
        .map_err(|e| anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .x_desc("minutes")
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
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
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    Ok(())
}

/// Draws `learning-curves.png` (losses, evaluation score, Elo, game length) from the rows.
pub fn learning_curves(rows: &[MetricsRow], out: &Path) -> Result<()> {
    register_font();
    let tmp = out.with_extension("tmp.png");
    {
        let root = BitMapBackend::new(&tmp, (1200, 900)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let areas = root.split_evenly((2, 2));
        let m = |r: &MetricsRow| r.wall_seconds / 60.0;
        let line =
            |f: &dyn Fn(&MetricsRow) -> f64| rows.iter().map(|r| (m(r), f(r))).collect::<Vec<_>>();
        let opt = |f: &dyn Fn(&MetricsRow) -> Option<f64>| {
            rows.iter()
                .filter_map(|r| f(r).map(|v| (m(r), v)))
                .collect::<Vec<_>>()
        };
        panel(
            &areas[0],
            "training losses",
            &[
                ("policy", line(&|r| r.policy_loss)),
                ("value (W/D/L)", line(&|r| r.value_loss)),
                ("store diff", line(&|r| r.store_diff_loss)),
            ],
        )?;
        let opponent = rows
            .iter()
            .rev()
            .find_map(|r| r.eval_opponent.clone())
            .unwrap_or_else(|| "baseline".into());
        panel(
            &areas[1],
            &format!("score vs {opponent}"),
            &[("score", opt(&|r| r.eval_score))],
        )?;
        panel(
            &areas[2],
            &format!("Elo vs {opponent} (95% CI)"),
            &[
                ("Elo", opt(&|r| r.eval_elo)),
                ("low", opt(&|r| r.eval_elo_low)),
                ("high", opt(&|r| r.eval_elo_high)),
            ],
        )?;
        panel(
            &areas[3],
            "self-play",
            &[
                (
                    "avg game length / 100",
                    line(&|r| r.avg_game_length / 100.0),
                ),
                ("draw rate", line(&|r| r.draw_rate)),
                ("value accuracy", line(&|r| r.value_accuracy)),
            ],
        )?;
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    std::fs::rename(&tmp, out).with_context(|| format!("writing {}", out.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_a_png() {
        let rows: Vec<MetricsRow> = (1..=5)
            .map(|i| MetricsRow {
                iteration: i,
                wall_seconds: 60.0 * i as f64,
                policy_loss: 2.0 / i as f64,
                value_loss: 1.0 / i as f64,
                eval_score: (i % 2 == 0).then_some(0.1 * i as f64),
                eval_elo: (i % 2 == 0).then_some(10.0 * i as f64),
                ..MetricsRow::default()
            })
            .collect();
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("curves.png");
        learning_curves(&rows, &p).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert!(bytes.len() > 10_000);
    }
}

//! A bounded load test of `oware serve` on loopback: many clients asking for `bestmove`
//! at the `strong` level for a fixed time; prints requests/s and latency percentiles and
//! fails on any error. Ignored by default (it keeps the CPUs busy); run it with
//!
//! ```text
//! nice -n 10 cargo test --release --test serve_load -- --ignored --nocapture
//! ```
//!
//! `OWARE_LOAD_CLIENTS` (default 50) and `OWARE_LOAD_SECS` (default 30) change the load.

mod serve_support;

use std::time::{Duration, Instant};

use serve_support::{Server, agent, post};

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore = "a load test: run it on its own with --ignored"]
fn bestmove_strong_under_load() {
    let clients = env_or("OWARE_LOAD_CLIENTS", 50) as usize;
    let secs = env_or("OWARE_LOAD_SECS", 30);
    let srv = Server::start(&["--puzzles", "0"]);
    let url = srv.url("/api/v1/bestmove");
    // Positions from a few openings, so the searches differ.
    let openings = ["", "F", "Ff", "FfB", "CaDb", "FfBeAd", "EfDc", "BdFa"];
    let deadline = Instant::now() + Duration::from_secs(secs);
    let t0 = Instant::now();
    let handles: Vec<_> = (0..clients)
        .map(|c| {
            let url = url.clone();
            std::thread::spawn(move || {
                let a = agent();
                let mut lat = Vec::new();
                let mut errors = Vec::new();
                let mut i = c;
                while Instant::now() < deadline {
                    let body = format!(
                        r#"{{"moves": "{}", "level": "strong"}}"#,
                        openings[i % openings.len()]
                    );
                    i += 1;
                    let t = Instant::now();
                    let (s, v) = post(&a, &url, &body);
                    if s == 200 && v["move"].is_string() {
                        lat.push(t.elapsed());
                    } else {
                        errors.push(format!("{s}: {v}"));
                    }
                }
                (lat, errors)
            })
        })
        .collect();
    let mut lat = Vec::new();
    let mut errors = Vec::new();
    for h in handles {
        let (l, e) = h.join().unwrap();
        lat.extend(l);
        errors.extend(e);
    }
    let wall = t0.elapsed().as_secs_f64();
    lat.sort();
    let pct = |p: f64| {
        lat.get(((lat.len() as f64 * p).ceil() as usize).saturating_sub(1))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    println!(
        "load: {clients} clients, {wall:.1} s, {} requests, {:.1} requests/s, latency p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms, {} errors",
        lat.len(),
        lat.len() as f64 / wall,
        pct(0.50),
        pct(0.99),
        pct(1.0),
        errors.len()
    );
    assert!(
        errors.is_empty(),
        "{} errors, first: {}",
        errors.len(),
        errors[0]
    );
    assert!(!lat.is_empty());
}

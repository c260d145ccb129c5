//! `oware rate` and `oware ladder --pool` through the command line, with cheap players.

mod common;

use common::oware;

fn lines(p: &std::path::Path) -> usize {
    std::fs::read_to_string(p).unwrap().lines().count()
}

fn json(out: &str) -> Vec<serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(out.trim())
        .unwrap_or_else(|e| panic!("{e}: {out}"))
        .as_array()
        .unwrap()
        .clone()
}

fn row<'a>(t: &'a [serde_json::Value], player: &str) -> &'a serde_json::Value {
    t.iter()
        .find(|r| r["player"] == player)
        .unwrap_or_else(|| panic!("{player} not in {t:?}"))
}

#[test]
fn rate_plays_what_is_missing_and_prints_the_table() {
    let d = tempfile::tempdir().unwrap();
    let pool = d.path().join("pool.jsonl");
    let p = pool.to_str().unwrap();
    let add = [
        "rate",
        "--pool",
        p,
        "--add",
        "random",
        "alphabeta:depth=1",
        "alphabeta:depth=2",
        "mcts:sims=8",
        "--games-per-pair",
        "8",
        "--json",
        "-q",
    ];
    let (code, out, err) = oware(&add);
    assert_eq!(code, 0, "{err}");
    // Four players round-robin: six pairs of players, eight games each.
    assert_eq!(lines(&pool), 48);
    let t = json(&out);
    assert_eq!(t.len(), 4);
    for r in &t {
        for k in [
            "player", "elo", "elo_low", "elo_high", "games", "score", "bound",
        ] {
            assert!(r.get(k).is_some(), "{k} missing in {r}");
        }
        assert_eq!(r["games"], 24);
    }
    let anchor = row(&t, "alphabeta:depth=1");
    assert_eq!(
        (anchor["elo"].as_f64(), anchor["bound"].as_str()),
        (Some(0.0), Some("anchor"))
    );
    // Again: nothing is missing, nothing is played, the table is the same.
    let (code, again, err) = oware(&add);
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&pool), 48);
    assert_eq!(json(&again), t);
    // The estimate does not depend on how the interval is computed; the anchor moves
    // every rating by the same amount.
    let (code, h, err) = oware(&["rate", "--pool", p, "--interval", "hessian", "--json"]);
    assert_eq!(code, 0, "{err}");
    let (code, shifted, err) = oware(&["rate", "--pool", p, "--anchor", "random=100", "--json"]);
    assert_eq!(code, 0, "{err}");
    let (h, shifted) = (json(&h), json(&shifted));
    let shift = 100.0 - row(&t, "random")["elo"].as_f64().unwrap();
    for r in &t {
        let name = r["player"].as_str().unwrap();
        let e = r["elo"].as_f64().unwrap();
        assert!(
            (row(&h, name)["elo"].as_f64().unwrap() - e).abs() < 1e-6,
            "{name}"
        );
        assert!((row(&shifted, name)["elo"].as_f64().unwrap() - e - shift).abs() < 1e-6);
    }
    // More games per pair: only the difference is played, on new openings.
    let (code, _, err) = oware(&[
        "rate",
        "--pool",
        p,
        "--add",
        "random",
        "--games-per-pair",
        "12",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&pool), 48 + 3 * 4);
    // A gauntlet against one opponent; the text table names every player.
    let (code, text, err) = oware(&[
        "rate",
        "--pool",
        p,
        "--add",
        "alphabeta:depth=3",
        "--schedule",
        "gauntlet",
        "--against",
        "alphabeta:depth=2",
        "--games-per-pair",
        "6",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines(&pool), 60 + 6);
    assert!(
        err.contains("alphabeta:depth=3 vs alphabeta:depth=2"),
        "{err}"
    );
    for name in [
        "random",
        "mcts:sims=8:eval=uniform",
        "alphabeta:depth=3",
        "(anchor)",
    ] {
        assert!(text.contains(name), "{name} not in\n{text}");
    }
}

#[test]
fn bad_input_is_one_error_line() {
    let d = tempfile::tempdir().unwrap();
    let pool = d.path().join("pool.jsonl");
    let p = pool.to_str().unwrap();
    let check = |args: &[&str], want: &str| {
        let (code, _, err) = oware(args);
        assert_ne!(code, 0, "{args:?}");
        assert!(
            err.starts_with("error: ") && err.contains(want),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    };
    // A pool that is not there is a missing file, not an empty pool.
    check(&["rate", "--pool", p], "no such file");
    assert!(!pool.exists());
    std::fs::write(&pool, "").unwrap();
    check(&["rate", "--pool", p], "holds no games");
    std::fs::remove_file(&pool).unwrap();
    check(
        &["rate", "--pool", p, "--add", "minimax"],
        "unknown player kind",
    );
    check(&["rate", "--pool", p, "--anchor", "random"], "NAME=ELO");
    let (code, _, err) = oware(&[
        "rate",
        "--pool",
        p,
        "--add",
        "random",
        "alphabeta:depth=2",
        "--games-per-pair",
        "2",
        "--anchor",
        "random=0",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    check(
        &["rate", "--pool", p],
        "anchor `alphabeta:depth=1` has played no game",
    );
    check(&["rate", "--pool", p, "--rules", "awari"], "rules abapa");
    let good = std::fs::read_to_string(&pool).unwrap();
    std::fs::write(&pool, format!("{good}{{\"south\": 1}}\n")).unwrap();
    check(&["rate", "--pool", p, "--anchor", "random=0"], "line 3:");
}

#[test]
fn the_ladder_as_a_view_of_a_pool() {
    let d = tempfile::tempdir().unwrap();
    let pool = d.path().join("pool.jsonl");
    let p = pool.to_str().unwrap();
    let (code, out, err) = oware(&[
        "ladder",
        "--player",
        "random",
        "--pool",
        p,
        "--games",
        "4",
        "--max-depth",
        "3",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    // Random loses to depth 1 at once: no step is needed, one match is played.
    assert_eq!(v["crossover_depth"], 1, "{v}");
    assert_eq!(lines(&pool), 4);
    assert!(v["elo"].as_f64().unwrap() < 0.0, "{v}");
}

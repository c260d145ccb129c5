//! `oware search` and `oware bench search` through the binary.

mod common;

use common::oware;

#[test]
fn search_json() {
    let (code, out, err) = oware(&[
        "search",
        "--fen",
        "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S",
        "--depth",
        "6",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["best"], "C");
    assert_eq!(v["score"], 9999);
    assert_eq!(v["pv"], "C");
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert!(v["nps"].is_u64() && v["depth"].is_u64());

    // Over: best is null.
    let (code, out, _) = oware(&[
        "search",
        "--fen",
        "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S",
        "--moves",
        "C",
        "--depth",
        "3",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["best"].is_null(), "{out}");
    assert_eq!(v["score"], -10000, "South won, North is to move");
}

#[test]
fn search_text_and_other_limits() {
    let (code, out, err) = oware(&["search", "--moves", "FfBe", "--nodes", "20000"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("best "), "{out}");
    assert!(out.contains("\npv "), "{out}");
    let (code, out, err) = oware(&["search", "--rules", "ouril", "--movetime", "50"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("depth "), "{out}");
}

#[test]
fn search_errors_are_clear() {
    for (args, needle) in [
        (vec!["search", "--fen", "4-4-4", "--depth", "3"], "--fen"),
        (vec!["search", "--depth", "0"], "--depth 0"),
        (vec!["search", "--depth", "99"], "--depth 99"),
        (vec!["search", "--depth", "x"], "--depth"),
        (vec!["search"], "--depth"),
        (vec!["search", "--depth", "3", "--moves", "FF"], "--moves"),
        (vec!["search", "--depth", "3", "--rules", "chess"], "chess"),
        (vec!["bench", "search", "--depth", "0"], "--depth 0"),
    ] {
        let (code, out, err) = oware(&args);
        assert_ne!(code, 0, "{args:?}: {out}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn bench_search_runs() {
    let (code, out, err) = oware(&["bench", "search", "--depth", "4", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["positions"].as_array().unwrap().len(), 11);
}

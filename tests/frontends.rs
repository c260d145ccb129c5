//! `oware play` and `oware analyze` through the binary, with a random-weight network.

mod common;

use std::path::Path;

fn checkpoint(dir: &Path) {
    common::random_checkpoint(dir, 9, 5);
}

/// Runs `oware ARGS` with `input` on stdin; (exit code, stdout, stderr).
fn oware(args: &[&str], input: &str) -> (i32, String, String) {
    common::oware_with_input(args, input)
}

#[test]
fn play_a_whole_game_through_a_pipe() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    // Bad input, an undo with nothing to undo, a hint, a move and its undo, then the
    // letters A..F over and over: the illegal ones are refused with a reason, the legal
    // ones played, until the game ends.
    let mut input = String::from("Z\nmove\nundo\nhint\nA\nundo\n");
    for _ in 0..600 {
        input.push_str("A\nB\nC\nD\nE\nF\n");
    }
    let ck = ck.to_str().unwrap();
    let (code, out, err) = oware(&["play", "--model", ck, "--level", "novice"], &input);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.contains("you are South"), "{out}");
    assert!(out.contains("'Z' is not a move"), "{out}");
    assert!(out.contains("'move' is not a command"), "{out}");
    assert!(out.contains("cannot undo: nothing to undo"), "{out}");
    assert!(out.contains("hint: "), "{out}");
    assert!(out.contains("took back 2 move(s)"), "{out}");
    assert!(out.contains("oware plays "), "{out}");
    assert!(out.contains("is not legal here"), "{out}");
    assert!(out.contains("N  "), "the board diagram: {out}");
    assert!(
        out.contains("game over: "),
        "{}",
        &out[out.len().saturating_sub(3000)..]
    );
}

#[test]
fn play_as_north_and_quit() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    let ck = ck.to_str().unwrap();
    let (code, out, err) = oware(
        &["play", "--model", ck, "--human", "N", "--level", "strong"],
        "A\nquit\n",
    );
    assert_eq!(code, 0, "{err}");
    // The computer (South) opens; North's pits are a..f.
    assert!(out.contains("oware plays "), "{out}");
    assert!(out.contains("(abcdef, or undo"), "{out}");
    assert!(out.contains("game abandoned"), "{out}");
    let (code, _, err) = oware(&["play", "--model", ck, "--human", "E"], "");
    assert_eq!(code, 1);
    assert!(err.contains("--human E"), "{err}");
}

#[test]
fn analyze_grades_a_handed_over_winning_capture_as_a_blunder() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    let ck = ck.to_str().unwrap();
    // South's A lets North's c capture 10 seeds and reach 25; B..F keep the game going.
    let fen = "1-1-1-1-2-3-1-1-8-0-0-0-14-15-S";
    let (code, out, err) = oware(
        &[
            "analyze", "--model", ck, "--fen", fen, "--game", "Ac", "--sims", "200", "--json",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = v["plies"].as_array().unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["move"], "A");
    assert_eq!(r[0]["grade"], "blunder", "{out}");
    assert_ne!(r[0]["best"], "A");
    assert_eq!(r[0]["value_after"], -1.0);
    assert_eq!(r[1]["grade"], "best", "{out}");
    assert_eq!(v["result"]["winner"], "N");

    // The same in text; and without alpha-beta, the search alone sees the capture (the
    // terminal value is exact), so the grade holds.
    let (code, out, err) = oware(
        &[
            "analyze",
            "--model",
            ck,
            "--fen",
            fen,
            "--game",
            "Ac",
            "--sims",
            "400",
            "--exact-depth",
            "0",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let first = out.lines().nth(1).unwrap();
    assert!(first.contains("blunder"), "{out}");
    assert!(out.contains("result: N"), "{out}");

    // docs/rules.md example 4: F instead of the winning C throws away a forced win.
    let (code, out, err) = oware(
        &[
            "analyze",
            "--model",
            ck,
            "--fen",
            "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S",
            "--game",
            "F",
            "--json",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["plies"][0]["grade"], "blunder", "{out}");
    assert_eq!(v["plies"][0]["best"], "C", "{out}");
}

#[test]
fn analyze_rejects_bad_input_clearly() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    let ck = ck.to_str().unwrap();
    let (code, _, err) = oware(&["analyze", "--model", ck, "--game", "FfX"], "");
    assert_eq!(code, 1);
    assert!(err.contains("--game") && err.contains("'X'"), "{err}");
    let (code, _, err) = oware(&["analyze", "--model", ck, "--game", "FF"], "");
    assert_eq!(code, 1);
    assert!(err.contains("after 1 move: "), "{err}");
    let (code, _, err) = oware(&["analyze", "--model", "/nope", "--game", "F"], "");
    assert_eq!(code, 1);
    assert!(err.contains("/nope"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

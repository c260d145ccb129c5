//! A new user's first hour, through the binary: what `play`, `show`, `replay`, `search`,
//! `perft`, `engine`, `analyze`, `plot`, `export`, `train` and config errors say to a
//! person. Expected texts come from the rules (docs/rules.md), not from the program.

mod common;

use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use common::{BIN, oware, oware_with_input};

fn checkpoint(dir: &Path) {
    common::random_checkpoint(dir, 9, 5);
}

/// The one `error:` line of a failed command (it must be the only line on stderr).
fn one_error_line(args: &[&str]) -> String {
    let (code, out, err) = oware(args);
    assert_ne!(code, 0, "{args:?} should fail: {out}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: one line: {err}");
    assert!(lines[0].starts_with("error: "), "{args:?}: {err}");
    lines[0].to_string()
}

#[test]
fn play_says_captures_and_the_end_in_words() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    // docs/rules.md example 4: South's C captures a..e (2 2 2 2 3 = 11) and reaches 26.
    let (code, out, err) = oware_with_input(
        &[
            "play",
            "--model",
            ck.to_str().unwrap(),
            "--fen",
            "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S",
        ],
        "C\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("South captures 11: a 2, b 2, c 2, d 2, e 3\n"),
        "{out}"
    );
    assert!(
        out.contains("game over: South reached 25 seeds and wins, 26–15. you win\n"),
        "{out}"
    );
    // The board after the last move says nobody is to move.
    let end = out.find("game over").unwrap();
    let last_board = out[..end].rfind('+').unwrap();
    assert!(!out[last_board..end].contains("to move"), "{out}");
    // The sowing direction is said once, at the start.
    assert_eq!(out.matches("anticlockwise").count(), 1, "{out}");
    // `show` uses the same words.
    let (code, shown, _) = oware(&[
        "show",
        "--fen",
        "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S",
        "--moves",
        "C",
    ]);
    assert_eq!(code, 0);
    assert!(
        shown.contains("last move C: South captures 11: a 2, b 2, c 2, d 2, e 3\n"),
        "{shown}"
    );
    assert!(
        shown.contains("game over: South reached 25 seeds and wins, 26–15"),
        "{shown}"
    );
}

#[test]
fn play_as_north_draws_the_board_from_north_and_takes_either_case() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    // North to move, so the network does not move first.
    let fen = "3-1-1-1-0-0-0-0-8-0-0-1-16-17-N";
    let (code, out, err) = oware_with_input(
        &[
            "play",
            "--model",
            ck.to_str().unwrap(),
            "--human",
            "N",
            "--fen",
            fen,
        ],
        "C\nquit\n",
    );
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let top = lines.iter().position(|l| l.contains('|')).unwrap() - 2;
    // South's row on top, F at the left; North's row at the bottom, a at the left.
    let letters = |l: &str| l.split_whitespace().collect::<Vec<_>>().join("");
    assert_eq!(letters(lines[top]), "FEDCBA", "{out}");
    assert!(
        lines[top + 2].starts_with("S  16  |  0 |  0 |  1 |  1 |  1 |  3 |"),
        "{out}"
    );
    assert!(
        lines[top + 4].starts_with("N  17  |  0 |  0 |  8 |  0 |  0 |  1 |"),
        "{out}"
    );
    assert_eq!(letters(lines[top + 6]), "abcdef", "{out}");
    // Your own pits in either case: `C` plays North's c (8 seeds: d e f, then A..E,
    // the last into South's empty E, no capture), and the position after it is drawn
    // before the reply.
    let played = out.find("you play c\n").expect(&out);
    let after: Vec<&str> = out[played..].lines().collect();
    assert!(
        after[3].starts_with("S  16  |  0 |  1 |  2 |  2 |  2 |  4 |"),
        "{out}"
    );
    assert!(
        after[5].starts_with("N  17  |  0 |  0 |  0 |  1 |  1 |  2 |"),
        "{out}"
    );
    assert_eq!(after[8..10], ["South to move", "moves: c"], "{out}");
    assert!(after[10].starts_with("oware plays "), "{out}");
}

#[test]
fn ctrl_c_ends_play_with_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    let mut child = Command::new(BIN)
        .args(["play", "--model", ck.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // Wait for the first prompt (it has no newline: read byte by byte).
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !String::from_utf8_lossy(&seen).contains("your move") {
        assert_eq!(
            stdout.read(&mut byte).unwrap(),
            1,
            "{:?}",
            String::from_utf8_lossy(&seen)
        );
        seen.push(byte[0]);
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let mut rest = String::new();
    for line in stdout.by_ref().lines() {
        rest.push_str(&line.unwrap());
        rest.push('\n');
    }
    let status = child.wait().unwrap();
    assert!(
        rest.contains("interrupted (Ctrl-C); game abandoned"),
        "{rest}"
    );
    assert_eq!(status.code(), Some(130));
}

#[test]
fn rule_set_names_are_case_insensitive() {
    // docs/rules.md: under awari North's grand slam c is illegal, leaving only f.
    let fen = "1-1-1-1-1-0-0-0-8-0-0-1-17-17-N";
    for name in ["awari", "AWARI", "Awari"] {
        let (code, out, err) = oware(&["show", "--rules", name, "--fen", fen]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.contains("rules awari\n"), "{out}");
        assert!(out.contains("legal moves: f\n"), "{out}");
    }
    let (_, out, _) = oware(&["show", "--rules", "ABAPA", "--fen", fen]);
    assert!(out.contains("legal moves: cf\n"), "{out}");
}

#[test]
fn replay_numbers_games_and_plies_from_one_and_fails_on_any_bad_game() {
    let input = "FfBe\n# a comment line\nFF\n\n4-4-4-4-4-4-4-4-4-4-4-4-0-0-X;F\nAa\n";
    let (code, out, err) = oware_with_input(&["replay"], input);
    assert_eq!(code, 1, "{out}");
    let v: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Game 1: four moves, plies 0..=4.
    let g1: Vec<_> = v.iter().filter(|x| x["game"] == 1).collect();
    assert_eq!(g1.len(), 5);
    assert_eq!(g1[0]["ply"], 0);
    assert_eq!(g1[4]["ply"], 4);
    // Game 2: F is played (ply 1), the second F (South again) fails: ply 2.
    let bad: Vec<_> = v.iter().filter(|x| x.get("error").is_some()).collect();
    assert_eq!(bad.len(), 2, "{out}");
    assert_eq!(
        (bad[0]["game"].clone(), bad[0]["ply"].clone()),
        (2.into(), 2.into())
    );
    // Game 3: a bad position, ply 0.
    assert_eq!(
        (bad[1]["game"].clone(), bad[1]["ply"].clone()),
        (3.into(), 0.into())
    );
    // Game 4 is still replayed.
    assert!(v.iter().any(|x| x["game"] == 4 && x["ply"] == 2), "{out}");
    let e: Vec<&str> = err.lines().collect();
    assert_eq!(e.len(), 1, "{err}");
    assert!(
        e[0].starts_with("error: 2 of 4 games had an error (game 2, 3)"),
        "{err}"
    );
    // All good: exit 0.
    let (code, _, err) = oware_with_input(&["replay"], "FfBe\nAa\n");
    assert_eq!(code, 0, "{err}");
}

/// A study file (docs/notation.md, "Study files"): `oware replay` replays its main line,
/// as if the variations, comments, drawings and marks were not there.
#[test]
fn replay_reads_a_study_files_main_line() {
    let study = "# Event: oware-zero study\n# Rules: abapa\n\
                 {Start; the #1 opening} Ff! {the centre} [F>f C] (E?! {passive} a) Be?? (Bc (Bd)) Ca\n\
                 0-0-8-0-0-1-1-1-1-1-2-3-15-15-S; C!? {a comment (with brackets)} (D)\n";
    let (code, out, err) = oware_with_input(&["replay"], study);
    assert_eq!(code, 0, "{err}");
    let (code, plain, _) =
        oware_with_input(&["replay"], "FfBeCa\n0-0-8-0-0-1-1-1-1-1-2-3-15-15-S;C\n");
    assert_eq!(code, 0);
    assert_eq!(out, plain);
    // A variation left open is an error of that game, at ply 0.
    let (code, out, err) = oware_with_input(&["replay"], "Ff (Bc\nFf\n");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.lines().next().unwrap().contains("without its ')'"),
        "{out}"
    );
    assert!(err.contains("1 of 2 games had an error (game 1)"), "{err}");
}

#[test]
fn search_json_has_the_time_and_perft_has_headers() {
    let (code, out, _) = oware(&["search", "--depth", "6", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["time_ms"].is_u64(), "{v}");
    let s = v["seconds"].as_f64().unwrap();
    assert!((0.0..60.0).contains(&s), "{v}");
    assert!(
        (v["time_ms"].as_u64().unwrap() as f64 - 1000.0 * s).abs() <= 1.0,
        "{v}"
    );

    let (code, out, _) = oware(&["perft", "--depth", "3"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    let head: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(head[..3], ["depth", "leaves", "seconds"], "{out}");
    // docs/rules.md example 1: 6, 36, 190.
    for (line, (d, n)) in lines[1..4].iter().zip([(1, 6), (2, 36), (3, 190)]) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            (f[0], f[1]),
            (d.to_string().as_str(), n.to_string().as_str()),
            "{out}"
        );
    }
}

#[test]
fn network_engine_info_depth_is_the_depth_reached_and_nodes_the_simulations() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    let info = |go: &str| -> Vec<String> {
        let (code, out, err) = oware_with_input(
            &["engine", "--model", ck.to_str().unwrap()],
            // No `quit`: it would stop the search; at the end of its input the engine
            // finishes a search that has limits.
            &format!("uci\nposition startpos\ngo {go}\n"),
        );
        assert_eq!(code, 0, "{err}");
        let last = out
            .lines()
            .rfind(|l| l.starts_with("info depth "))
            .unwrap_or_else(|| panic!("{out}"));
        last.split_whitespace().map(str::to_string).collect()
    };
    let field = |w: &[String], k: &str| -> u64 {
        let i = w.iter().position(|x| x == k).unwrap();
        w[i + 1].parse().unwrap()
    };
    // One simulation expands the root and reaches one child: depth 1.
    let w = info("nodes 1");
    assert_eq!((field(&w, "depth"), field(&w, "nodes")), (1, 1), "{w:?}");
    // n simulations add one position each: the deepest is at most n plies down, and at
    // least as deep as the most-visited line.
    let w = info("nodes 300");
    let depth = field(&w, "depth");
    let pv = &w[w.iter().position(|x| x == "pv").unwrap() + 1];
    assert_eq!(field(&w, "nodes"), 300, "{w:?}");
    assert!(depth >= pv.len() as u64 && depth <= 300, "{w:?}");
}

#[test]
fn analyze_never_grades_best_beside_another_best_move_without_saying_tie() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    let ck = ck.to_str().unwrap();
    // South has 24: E (2 seeds: F, a) and F (1 seed: a) both make a hold 2 and capture
    // it, winning at once. Both are best; whichever the search prefers, the other ties.
    let fen = "0-0-0-0-2-1-1-1-1-1-1-1-24-15-S";
    let mut ties = 0;
    for m in ["E", "F"] {
        let (code, out, err) = oware(&[
            "analyze", "--model", ck, "--fen", fen, "--game", m, "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let r = &v["plies"][0];
        assert_eq!(r["grade"], "best", "{out}");
        assert_eq!(r["tie"], r["move"] != r["best"], "{out}");
        if r["move"] != r["best"] {
            ties += 1;
            let (_, text, _) = oware(&["analyze", "--model", ck, "--fen", fen, "--game", m]);
            let line = text.lines().nth(1).unwrap();
            let best = r["best"].as_str().unwrap();
            assert!(line.contains(&format!("best (tie with {best})")), "{text}");
        }
    }
    assert_eq!(ties, 1);
}

#[test]
fn plot_refuses_an_empty_or_malformed_metrics_file() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    fs::create_dir(&run).unwrap();
    let dir = run.to_str().unwrap();
    for text in [
        "",
        "iteration,wall_seconds\n",
        "iteration,wall_seconds\nx,y\n",
    ] {
        fs::write(run.join("metrics.csv"), text).unwrap();
        let e = one_error_line(&["plot", "--run-dir", dir]);
        assert!(e.contains("metrics.csv"), "{text:?}: {e}");
        assert!(!run.join("learning-curves.png").exists());
    }
}

#[test]
fn errors_are_one_line_in_plain_words() {
    // The OS error once, not twice.
    let e = one_error_line(&["export", "--out", "/nonexistent-dir/x.onnx"]);
    assert_eq!(e.matches("No such file or directory").count(), 1, "{e}");
    assert!(e.contains("/nonexistent-dir/x.onnx"), "{e}");

    // A checkpoint whose weights do not fit its manifest names the layer and the sizes.
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    let m = fs::read_to_string(ck.join("manifest.json")).unwrap();
    assert!(m.contains("\"width\": 32"), "{m}");
    fs::write(
        ck.join("manifest.json"),
        m.replace("\"width\": 32", "\"width\": 64"),
    )
    .unwrap();
    let e = one_error_line(&["infer", "--model", ck.to_str().unwrap()]);
    assert!(
        e.contains("layer ") && e.contains("32") && e.contains("64"),
        "{e}"
    );
    assert!(
        !e.contains("ShapeMismatch") && !e.contains("Shape {"),
        "{e}"
    );

    // Config errors: plain words, one line, naming the key.
    let cfg = tmp.path().join("c.toml");
    let run = tmp.path().join("run");
    let train = |text: &str| {
        fs::write(&cfg, text).unwrap();
        one_error_line(&[
            "train",
            "--config",
            cfg.to_str().unwrap(),
            "--run-dir",
            run.to_str().unwrap(),
        ])
    };
    let e = train("[train]\nbatch_size = \"x\"\n");
    assert!(
        e.contains("expected a whole number") && e.contains("train.batch_size"),
        "{e}"
    );
    assert!(!e.contains("usize"), "{e}");
    let e = train("[search]\nsimulations = 8\ncheap_simulations = 16\n");
    assert!(
        e.contains("search.simulations = 8") && e.contains("cheap_simulations = 16"),
        "{e}"
    );
    // A partial nested table takes the other keys' defaults: the only fault found here is
    // the one planted after it.
    let e = train("[train.window]\nmin = 100\n[eval]\ngames = 0\n");
    assert!(!e.contains("missing field"), "{e}");
    assert!(e.contains("eval.games"), "{e}");
    assert!(!run.exists(), "no run is started by a bad config");
}

#[test]
fn the_training_log_fits_in_100_columns_and_counts_iterations() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("tiny.toml");
    fs::write(
        &cfg,
        "seed = 3\n[model]\nwidth = 16\n[search]\nsimulations = 8\n\
         cheap_simulations = 4\n[selfplay]\nthreads = 2\ngames_per_iteration = 8\ngames_in_flight = 8\n\
         [train]\niterations = 2\ntime_limit_minutes = 0\nbatch_size = 32\n\
         max_steps_per_iteration = 5\n[train.window]\nmin = 500\n\
         [eval]\nevery = 2\nopponent = \"random\"\ngames = 2\nsimulations = 4\n",
    )
    .unwrap();
    let run = tmp.path().join("run");
    let (code, _, err) = oware(&[
        "train",
        "--no-progress",
        "--config",
        cfg.to_str().unwrap(),
        "--run-dir",
        run.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    // The iteration lines (the last line names the checkpoint's path, however long).
    for l in err
        .lines()
        .filter(|l| l.starts_with("iter ") || l.starts_with("  "))
    {
        assert!(
            l.chars().count() <= 100,
            "{} columns: {l}",
            l.chars().count()
        );
    }
    assert!(
        err.lines()
            .last()
            .unwrap()
            .starts_with("latest checkpoint: "),
        "{err}"
    );
    assert!(err.contains("iter 1 of 2 | "), "{err}");
    assert!(err.contains("iter 2 of 2 | "), "{err}");
    assert!(err.contains("(rule 500)"), "{err}");
    assert!(err.contains("  vs random: score "), "{err}");
    // The plot names the run in its title (checked by eye); it is drawn.
    assert!(run.join("learning-curves.png").exists());
}

//! `oware eval` and `oware ladder` through the command line.

use std::process::{Command, Output};

fn oware(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oware"))
        .args(args)
        .output()
        .expect("the oware binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn eval_json_has_the_promised_fields() {
    let o = oware(&[
        "eval",
        "--player",
        "mcts:sims=32",
        "--opponent",
        "random",
        "--games",
        "20",
        "--json",
        "--seed",
        "5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    for k in [
        "games",
        "wins",
        "draws",
        "losses",
        "score",
        "elo",
        "los",
        "pentanomial",
    ] {
        assert!(!v[k].is_null(), "missing {k}: {v}");
    }
    assert_eq!(v["games"], 20);
    let ci = v["elo_ci95"].as_array().unwrap();
    assert_eq!(ci.len(), 2);
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    let elo = v["elo"].as_f64().unwrap();
    assert!(lo <= elo && elo <= hi, "{v}");
    assert!(v.get("sprt").is_none());
    // The progress line goes to stderr.
    assert!(stderr(&o).contains("20/20 games"), "{}", stderr(&o));
}

#[test]
fn eval_records_replay_and_sprt_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("games.txt");
    let o = oware(&[
        "eval",
        "--player",
        "mcts:sims=32",
        "--opponent",
        "random",
        "--games",
        "200",
        "--sprt",
        "0,35",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("SPRT elo0 0 elo1 35"), "{text}");
    assert!(text.contains("H1 accepted"), "{text}");
    assert!(text.contains("stopped early"), "{text}");
    let records = std::fs::read_to_string(&out).unwrap();
    // One game per line, its result as a `#` comment at the end.
    let games = records
        .lines()
        .filter(|l| l.contains(";") && l.contains(" # {"))
        .count();
    assert_eq!(games, records.lines().count());
    assert!(games > 0 && games < 200 && games % 2 == 0, "{games}");
    // Every record replays to a finished game.
    let mut child = Command::new(env!("CARGO_BIN_EXE_oware"))
        .arg("replay")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(records.as_bytes())
        .unwrap();
    let r = child.wait_with_output().unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&r.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.iter().all(|v| v.get("error").is_none()));
    let over = lines.iter().filter(|v| v["over"] == true).count();
    assert_eq!(over, games);
}

#[test]
fn bad_input_is_a_clear_error_not_a_panic() {
    for (args, want) in [
        (
            vec!["--player", "minimax", "--opponent", "random"],
            "unknown player kind `minimax`",
        ),
        (
            vec!["--player", "random", "--opponent", "mcts:sims=x"],
            "--opponent",
        ),
        (
            vec![
                "--player",
                "random",
                "--opponent",
                "random",
                "--sprt",
                "35,0",
            ],
            "elo0 < elo1",
        ),
        (
            vec!["--player", "random", "--opponent", "random", "--games", "0"],
            "at least 1 game",
        ),
        (
            vec!["--player", "random", "--model", "x", "--opponent", "random"],
            "cannot be used with",
        ),
        (
            vec!["--player", "random", "--sims", "8", "--opponent", "random"],
            "--sims",
        ),
        (
            vec!["--model", "/nonexistent/ck", "--opponent", "random"],
            "does not exist",
        ),
    ] {
        let mut a = vec!["eval"];
        a.extend(args);
        let o = oware(&a);
        assert!(!o.status.success(), "{a:?}");
        let e = stderr(&o);
        assert!(e.contains(want), "{a:?}: {e}");
        assert!(!e.contains("panicked"), "{a:?}: {e}");
    }
}

fn engine_spec(extra: &str) -> String {
    format!(
        "engine:\"{} engine --alphabeta\"{extra}",
        env!("CARGO_BIN_EXE_oware")
    )
}

#[test]
fn a_match_against_the_engine_runs_through_the_protocol() {
    let o = oware(&[
        "eval",
        "--player",
        "alphabeta:depth=2",
        "--opponent",
        &engine_spec(":depth=2"),
        "--games",
        "6",
        "--json",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["games"], 6);
    assert_eq!(v["forfeits"].as_array().unwrap().len(), 0, "{v}");
    let games =
        v["wins"].as_u64().unwrap() + v["draws"].as_u64().unwrap() + v["losses"].as_u64().unwrap();
    assert_eq!(games, 6);
}

#[test]
fn an_engine_that_cannot_start_or_never_answers_is_an_error_before_the_match() {
    // A program that does not exist; `cat`, which echoes `uci` back and never says `uciok`.
    for (spec, want) in [
        ("engine:/nonexistent/engine", "/nonexistent/engine"),
        ("engine:cat", "uciok"),
    ] {
        let t0 = std::time::Instant::now();
        let o = oware(&[
            "eval",
            "--player",
            "random",
            "--opponent",
            spec,
            "--games",
            "4",
            "--json",
            "-q",
        ]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{spec}: {e}");
        assert!(stdout(&o).is_empty(), "{spec}: no match report");
        // One `error:` line, last (the shell may say "not found" before it).
        let errors: Vec<&str> = e.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{spec}: {e}");
        assert!(errors[0].starts_with("error: --opponent: "), "{spec}: {e}");
        assert_eq!(e.lines().last(), Some(errors[0]), "{spec}: {e}");
        assert!(e.contains(want), "{spec}: {e}");
        // One handshake wait at most (10 s), not one per game.
        assert!(t0.elapsed().as_secs() < 20, "{spec}: {:?}", t0.elapsed());
    }
}

#[test]
fn an_engine_that_dies_or_answers_nonsense_loses_that_game_and_the_match_goes_on() {
    // Answers the handshake, then dies at its first `go` (or plays a pit that does not exist).
    for (go, want) in [("exit 3", "exited"), ("echo bestmove Z", "illegal")] {
        let script = format!(
            "engine:\"sh -c 'while read l; do case $l in uci) echo uciok;; isready) echo readyok;; go*) {go};; esac; done'\""
        );
        let o = oware(&[
            "eval",
            "--player",
            "mcts:sims=8",
            "--opponent",
            &script,
            "--games",
            "4",
            "--json",
            "-q",
            "--out",
            "/dev/null",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        assert_eq!(v["games"], 4, "{v}");
        assert_eq!(v["wins"], 4, "{v}");
        let f = v["forfeits"].as_array().unwrap();
        assert_eq!(f.len(), 4, "{v}");
        assert!(
            f.iter()
                .all(|x| x["reason"].as_str().unwrap().contains(want)),
            "{v}"
        );
        // In text, the summary line counts them, and each is listed.
        let o = oware(&[
            "eval",
            "--player",
            "mcts:sims=8",
            "--opponent",
            &script,
            "--games",
            "4",
            "-q",
        ]);
        let text = stdout(&o);
        let summary = text.lines().nth(1).unwrap();
        assert!(
            summary.starts_with("games 4: +4 =0 -0") && summary.contains("(4 by forfeit"),
            "{text}"
        );
        assert_eq!(text.matches("forfeited: ").count(), 4, "{text}");
    }
}

#[test]
fn ladder_reports_the_crossover_on_the_depth_scale() {
    let o = oware(&[
        "ladder",
        "--player",
        "random",
        "--games",
        "10",
        "--max-depth",
        "3",
        "--json",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    // Random play loses to one ply of alpha-beta: the crossover is depth 1, and the
    // rating is its measured difference against depth 1 (rated 0).
    assert_eq!(v["crossover_depth"], 1, "{v}");
    let rungs = v["rungs"].as_array().unwrap();
    assert_eq!(rungs.len(), 1);
    assert_eq!(v["elo"], rungs[0]["elo_diff"]);
    assert!(v["elo"].as_f64().unwrap() < 0.0);
    let e = oware(&["ladder", "--model", "/nonexistent/ck"]);
    assert!(!e.status.success());
    assert!(stderr(&e).contains("does not exist"), "{}", stderr(&e));
}

#[test]
fn engine_games_do_not_depend_on_the_number_of_engine_processes() {
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: &str| {
        let out = dir.path().join(format!("t{threads}.txt"));
        let o = oware(&[
            "eval",
            "--player",
            &engine_spec(":depth=3"),
            "--opponent",
            "mcts:sims=8",
            "--games",
            "6",
            "--threads",
            threads,
            "-q",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(out).unwrap()
    };
    let one = run("1");
    assert_eq!(one.lines().count(), 6);
    assert!(!one.contains("forfeit"), "{one}");
    assert_eq!(one, run("3"));
}

#[test]
fn an_engine_on_a_clock_that_thinks_too_long_loses_on_time() {
    // An engine that thinks 400 ms a move on a 200 ms clock loses its first move on time.
    let slow = "engine:\"sh -c 'while read l; do case $l in uci) echo uciok;; isready) echo readyok;; go*) sleep 0.4; echo bestmove F;; esac; done'\":tc=0.2+0";
    let o = oware(&[
        "eval",
        "--player",
        "alphabeta:depth=1",
        "--opponent",
        slow,
        "--games",
        "2",
        "--json",
        "-q",
        "--openings-plies",
        "0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let f = v["forfeits"].as_array().unwrap();
    assert_eq!(f.len(), 2, "{v}");
    assert!(
        f.iter()
            .all(|x| x["reason"].as_str().unwrap().contains("lost on time")),
        "{v}"
    );
    // The engine's own clock management is tested alone, in tests/engine_clock.rs.
}

/// `--help` lists every form a player SPEC takes, the clock and the tables included, as
/// the parser (`arena::player::SPEC_HELP`) accepts them.
#[test]
fn eval_help_lists_every_spec_form() {
    let help = stdout(&oware(&["eval", "--help"]));
    for form in oware_zero::arena::player::SPEC_HELP.split(", ") {
        let head = form.split('[').next().unwrap();
        assert!(help.contains(head), "{form} missing from --help:\n{help}");
        for opt in form.split('[').skip(1) {
            let opt = opt.trim_end_matches(']');
            assert!(help.contains(opt), "{opt} missing from --help:\n{help}");
        }
    }
}

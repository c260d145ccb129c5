//! The HTTP API of `oware serve` through a real HTTP client against the running
//! server on loopback, bad requests included.

mod serve_support;

use std::time::{Duration, Instant};

use oware_zero::game::{Game, Position, RuleSet, move_letter};
use oware_zero::search::{AlphaBeta, Limits};
use oware_zero::serve::puzzles::{ProofLimits, unique_win};
use serde_json::Value;
use serve_support::{Server, agent, get, next_json, post, post_stream};

/// Checks a 400-class answer: the status and an `error` naming `mentions`.
fn bad(answer: (u16, Value), status: u16, mentions: &str) {
    let (s, v) = answer;
    assert_eq!(s, status, "{v}");
    let e = v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error text: {v}"));
    assert!(e.contains(mentions), "'{e}' does not mention '{mentions}'");
}

#[test]
fn health_position_and_bad_requests() {
    let srv = Server::start(&["--puzzles", "0", "--searchers", "1"]);
    let a = agent();
    let (s, h) = get(&a, &srv.url("/api/v1/health"));
    assert_eq!(s, 200);
    assert_eq!(h["ok"], true);
    assert_eq!(h["rules"], "abapa");
    assert!(h["model"].as_str().unwrap().contains("oware-abapa"), "{h}");

    let pos = srv.url("/api/v1/position");
    let (s, v) = post(&a, &pos, "");
    assert_eq!(s, 200);
    assert_eq!(v["fen"], "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S");
    assert_eq!(v["to_move"], "S");
    assert_eq!(v["legal"], "ABCDEF");
    assert_eq!(v["result"], Value::Null);

    let (s, v) = post(&a, &pos, r#"{"moves": "F f"}"#);
    assert_eq!(s, 200);
    assert_eq!(v["moves"], "Ff");
    assert_eq!(v["plies"].as_array().unwrap().len(), 2);
    assert_eq!(v["fen"], "5-5-5-5-4-0-5-5-5-5-4-0-0-0-S");

    // docs/rules.md example 4: C captures and ends the game.
    let (s, v) = post(
        &a,
        &pos,
        r#"{"fen": "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S", "moves": "C"}"#,
    );
    assert_eq!(s, 200);
    assert_eq!(v["result"]["winner"], "S");
    assert_eq!(v["result"]["reason"], "store-threshold");
    assert_eq!(v["legal"], "");
    assert!(v["plies"][0]["captured"].as_u64().unwrap() > 0);

    // Bad input: 400 with a message naming what was wrong.
    bad(post(&a, &pos, r#"{"fen": "1-2-3"}"#), 400, "fen");
    bad(
        post(&a, &pos, r#"{"fen": "4-4-4-4-4-4-4-4-4-4-4-4-0-1-S"}"#),
        400,
        "add up",
    );
    bad(post(&a, &pos, r#"{"moves": "FF"}"#), 400, "after 1 move: ");
    bad(post(&a, &pos, r#"{"moves": "Fz"}"#), 400, "'z'");
    bad(post(&a, &pos, r#"{"rules": "chess"}"#), 400, "chess");
    bad(
        post(&a, &pos, r#"{"fenn": "x"}"#),
        400,
        "unknown field `fenn`",
    );
    bad(
        post(&a, &pos, r#"{"moves": 5}"#),
        400,
        "moves 5: expected move letters, as a string",
    );
    bad(post(&a, &pos, "{not json"), 400, "request body");
    bad(post(&a, &pos, "[]"), 400, "expected a JSON object");
    // A body over the 64 KiB cap is refused with 413. The server answers and closes as
    // soon as the cap is passed, and a client still writing then meets a broken pipe,
    // which says nothing of the server: the body is kept small enough to be written at
    // once, and a request cut off that way is sent again (a few times at most).
    let long = format!(r#"{{"moves": "{}"}}"#, "F".repeat(70_000));
    let mut answered = None;
    for _ in 0..5 {
        match a
            .post(&pos)
            .header("Content-Type", "application/json")
            .send(&long)
        {
            Ok(mut r) => {
                let text = r.body_mut().read_to_string().unwrap_or_default();
                answered = Some((r.status().as_u16(), text));
                break;
            }
            Err(ureq::Error::Io(e)) => eprintln!("413 request cut off on the client side: {e}"),
            Err(e) => panic!("HTTP request: {e}"),
        }
    }
    let (status, text) = answered.expect("five requests with a long body all cut off");
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("length limit"), "{text}");
    bad(
        get(&a, &srv.url("/api/v1/nothing")),
        404,
        "no such endpoint",
    );
    bad(get(&a, &pos), 405, "does not take GET");
    bad(post(&a, &srv.url("/api/v1/health"), "{}"), 405, "POST");
    let pz = |q: &str| get(&a, &srv.url(&format!("/api/v1/puzzles{q}")));
    bad(pz("?n=0"), 400, "n '0'");
    bad(pz("?n=abc"), 400, "expected 1 to 50");
    bad(pz("?count=3"), 400, "unknown query parameter 'count'");
    // No puzzles asked for: an empty list, not an error.
    assert_eq!(pz("?n=3"), (200, Value::Array(vec![])));

    // The page and its files.
    let mut r = a.get(srv.url("/")).call().unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let html = r.body_mut().read_to_string().unwrap();
    assert!(html.contains("<script type=\"module\" src=\"/app.js\""));
    // Every module in web/ is served as JavaScript (a browser runs no module served
    // otherwise).
    for f in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/web")).unwrap() {
        let name = f.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".js") {
            let r = a.get(srv.url(&format!("/{name}"))).call().unwrap();
            assert_eq!(
                r.headers()["content-type"],
                "text/javascript; charset=utf-8",
                "{name}"
            );
        }
    }
    let r = a.get(srv.url("/app.js")).call().unwrap();
    assert!(
        r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("default-src 'self'")
    );
    assert_eq!(
        a.get(srv.url("/secret.txt"))
            .call()
            .unwrap()
            .status()
            .as_u16(),
        404
    );

    // Still healthy after all that.
    assert_eq!(get(&a, &srv.url("/api/v1/health")).0, 200);
}

#[test]
fn bestmove_levels_and_limits() {
    let srv = Server::start(&["--puzzles", "0", "--searchers", "1", "--max-sims", "2000"]);
    let a = agent();
    let url = srv.url("/api/v1/bestmove");
    let (s, v) = post(&a, &url, "{}");
    assert_eq!(s, 200, "{v}");
    let mv = v["move"].as_str().unwrap();
    assert!("ABCDEF".contains(mv), "{v}");
    assert_eq!(v["level"], "strong");
    assert_eq!(v["simulations"], 400);
    assert!(v["pv"].as_str().unwrap().starts_with(mv));
    let total: f64 = v["policy"]
        .as_object()
        .unwrap()
        .values()
        .map(|p| p.as_f64().unwrap())
        .sum();
    assert!((total - 1.0).abs() < 1e-3, "{v}");
    assert!(v["value"].as_f64().unwrap().abs() <= 1.0);

    // docs/rules.md example 4: C wins at once.
    let (s, v) = post(
        &a,
        &url,
        r#"{"fen": "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S", "sims": 200}"#,
    );
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["move"], "C");
    assert_eq!(v["level"], Value::Null);

    for level in ["novice", "amateur", "master"] {
        let (s, v) = post(
            &a,
            &url,
            &format!(r#"{{"moves": "F", "level": "{level}"}}"#),
        );
        assert_eq!(s, 200, "{v}");
        assert!("abcdef".contains(v["move"].as_str().unwrap()), "{v}");
    }
    let t0 = Instant::now();
    let (s, v) = post(&a, &url, r#"{"movetime_ms": 300}"#);
    assert_eq!(s, 200, "{v}");
    assert!(t0.elapsed() < Duration::from_secs(5));

    bad(
        post(&a, &url, r#"{"sims": 5000}"#),
        400,
        "expected 1 to 2000",
    );
    bad(post(&a, &url, r#"{"sims": 0}"#), 400, "sims 0");
    bad(post(&a, &url, r#"{"sims": -1}"#), 400, "-1");
    bad(
        post(&a, &url, r#"{"movetime_ms": 999999999}"#),
        400,
        "movetime_ms",
    );
    bad(
        post(&a, &url, r#"{"level": "strong", "sims": 10}"#),
        400,
        "not both",
    );
    bad(
        post(&a, &url, r#"{"level": "godlike"}"#),
        400,
        "novice, amateur",
    );
    bad(
        post(
            &a,
            &url,
            r#"{"fen": "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S", "moves": "C"}"#,
        ),
        400,
        "game is over",
    );
}

#[test]
fn analyze_grades_moves() {
    let srv = Server::start(&["--puzzles", "0", "--searchers", "1"]);
    let a = agent();
    let url = srv.url("/api/v1/analyze");
    // After A, North's c captures 10 and reaches 25 (the analysis module's example).
    let (s, v) = post(
        &a,
        &url,
        r#"{"fen": "1-1-1-1-2-3-1-1-8-0-0-0-14-15-S", "moves": "Ac", "sims": 100}"#,
    );
    assert_eq!(s, 200, "{v}");
    let plies = v["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 2);
    assert_eq!(plies[0]["move"], "A");
    assert_eq!(plies[0]["grade"], "blunder");
    assert_ne!(plies[0]["best"], "A");
    assert_eq!(plies[1]["grade"], "best");
    assert_eq!(v["result"]["winner"], "N");
    for key in ["value_before", "value_after", "loss"] {
        assert!(plies[0][key].is_number(), "{key}: {v}");
    }

    let (s, v) = post(&a, &url, r#"{"moves": "FfBeAd", "sims": 50}"#);
    assert_eq!(s, 200, "{v}");
    let grades = [
        "best",
        "excellent",
        "good",
        "inaccuracy",
        "mistake",
        "blunder",
    ];
    for p in v["plies"].as_array().unwrap() {
        assert!(grades.contains(&p["grade"].as_str().unwrap()), "{p}");
        assert!((0.0..=2.0).contains(&p["loss"].as_f64().unwrap()));
    }
    assert_eq!(v["result"], Value::Null);

    bad(post(&a, &url, "{}"), 400, "moves: missing");
    bad(
        post(&a, &url, r#"{"moves": "F", "sims": 0}"#),
        400,
        "sims 0",
    );
    bad(
        post(&a, &url, r#"{"moves": "F", "sims": 100000}"#),
        400,
        "cap",
    );
    bad(
        post(&a, &url, r#"{"moves": "F", "level": "strong"}"#),
        400,
        "unknown field `level`",
    );
}

#[test]
fn puzzles_have_exactly_one_winning_move() {
    let srv = Server::start(&["--puzzles", "2", "--searchers", "1", "--seed", "3"]);
    let a = agent();
    let t0 = Instant::now();
    let list = loop {
        let (s, v) = get(&a, &srv.url("/api/v1/puzzles?n=10"));
        assert_eq!(s, 200, "{v}");
        let list = v.as_array().unwrap().clone();
        if list.len() >= 2 {
            break list;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(180),
            "fewer than 2 puzzles after 3 minutes"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(list.len(), 2, "the generator stops at --puzzles");
    let mut ab = AlphaBeta::new(RuleSet::abapa(), 16);
    for p in &list {
        let mut g = Game::new(
            RuleSet::abapa(),
            p["fen"].as_str().unwrap().parse::<Position>().unwrap(),
        );
        g.play_text(p["moves"].as_str().unwrap()).unwrap();
        assert_eq!(g.position().to_string(), p["position"], "{p}");
        let proof = unique_win(&g, &mut ab, &ProofLimits::default()).expect("a unique win");
        let solution = move_letter(g.position().side, proof.action).to_string();
        assert_eq!(p["solution"], solution.as_str(), "{p}");
        // The line served starts with the solution, and where it reaches the end of
        // the game (a principal variation may be cut short) the solver has won.
        assert!(p["line"].as_str().unwrap().starts_with(&solution), "{p}");
        let mut line = g.clone();
        line.play_text(p["line"].as_str().unwrap()).unwrap();
        if let Some(o) = line.outcome() {
            assert_eq!(o.winner(), Some(g.position().side), "{p}");
        }
    }
}

#[test]
fn a_full_queue_is_answered_503_and_the_server_recovers() {
    let srv = Server::start(&[
        "--puzzles",
        "0",
        "--searchers",
        "1",
        "--queue",
        "1",
        "--max-sims",
        "200000",
    ]);
    let url = srv.url("/api/v1/bestmove");
    // Each search runs its full 400 ms; with one searcher and one queue place, at most
    // two of eight requests sent together can be taken.
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                post(&agent(), &url, r#"{"sims": 200000, "movetime_ms": 400}"#)
            })
        })
        .collect();
    let answers: Vec<(u16, Value)> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let busy = answers.iter().filter(|(s, _)| *s == 503).count();
    let done = answers.iter().filter(|(s, _)| *s == 200).count();
    assert_eq!(busy + done, 8, "{answers:?}");
    assert!(busy >= 1 && done >= 1, "{answers:?}");
    for (s, v) in &answers {
        if *s == 503 {
            assert!(v["error"].as_str().unwrap().contains("busy"), "{v}");
        }
    }
    let a = agent();
    assert_eq!(post(&a, &url, r#"{"sims": 50}"#).0, 200);
}

/// The next number of a small linear congruential generator (the test's own boards).
fn lcg(x: &mut u64) -> u64 {
    *x = x
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *x >> 33
}

#[test]
fn with_tables_bestmove_keeps_the_result_a_solving_search_proves() {
    let tb = concat!(env!("CARGO_MANIFEST_DIR"), "/tablebases/abapa");
    let srv = Server::start(&["--puzzles", "0", "--searchers", "1", "--tb", tb]);
    let a = agent();
    let (_, h) = get(&a, &srv.url("/api/v1/health"));
    assert_eq!(h["tablebase"]["max_seeds"], 12, "{h}");
    assert_eq!(h["tablebase"]["rules"], "abapa", "{h}");

    // Boards of 5 to 9 seeds: the shipped tables (≤ 12 seeds) cover them and every
    // position after them. An independent check: alpha-beta, which knows nothing of
    // the tables, searching to the end of the game.
    let rules = RuleSet::abapa();
    let mut ab = AlphaBeta::new(rules, 16);
    let mut x = 11u64;
    let (mut checked, mut decided) = (0, 0);
    while checked < 40 {
        let n = 5 + (lcg(&mut x) % 5) as u32;
        let mut pits = [0u32; 12];
        for _ in 0..n {
            pits[(lcg(&mut x) % 12) as usize] += 1;
        }
        let south = 20 + (lcg(&mut x) % 4) as u32;
        let north = 48 - n - south;
        let side = if lcg(&mut x).is_multiple_of(2) {
            "S"
        } else {
            "N"
        };
        let board: Vec<String> = pits.iter().map(|p| p.to_string()).collect();
        let fen = format!("{}-{south}-{north}-{side}", board.join("-"));
        let pos: Position = fen.parse().unwrap();
        let game = Game::new(rules, pos);
        if game.outcome().is_some() {
            continue;
        }
        let (s, v) = post(
            &a,
            &srv.url("/api/v1/bestmove"),
            &format!(r#"{{"fen": "{fen}", "sims": 200}}"#),
        );
        assert_eq!(s, 200, "{fen}: {v}");
        let t = &v["tablebase"];
        let keep = t["keep"]
            .as_str()
            .unwrap_or_else(|| panic!("{fen}: no table result: {v}"));
        let chosen = v["move"].as_str().unwrap();
        if t["outcome"].is_null() || t["moves"][chosen].is_null() {
            // The result or the chosen move's is not proven within the server's budget (a
            // repetition may decide it): nothing to check the choice against.
            continue;
        }
        assert!(
            keep.contains(chosen),
            "{fen}: the search chose {chosen}, but only {keep} keep the {}",
            t["outcome"]
        );
        let r = ab.search(
            &game,
            &Limits {
                depth: Some(40),
                nodes: Some(3_000_000),
                movetime: None,
                soft: None,
            },
        );
        if r.is_decided() {
            decided += 1;
            let proved = if r.score_cp > 0 { "win" } else { "loss" };
            assert_eq!(t["outcome"], proved, "{fen}: {v}");
        }
        checked += 1;
    }
    assert!(decided >= 10, "only {decided} of 40 boards were solved");
}

/// The review's rules on recorded games (alpha-beta at depth 2 against depth 1, full of
/// mistakes; four whose endgames have captures in a row under 13 seeds, where the
/// tables' entries need no history), with the shipped tables, checked against what the
/// review does not consult that way:
/// - the best move is never graded below best;
/// - where the tables' exact entries decide the positions before and after a move and
///   neither has a history (each follows a capture, so no repetition can enter), a move
///   that keeps the mover's result loses nothing and one that gives it up is a blunder;
/// - where the review says a position was already proven lost, a deeper alpha-beta
///   search (16 plies, with the tables as the review's) agrees, and every move from it
///   is graded best (each keeps the loss).
#[test]
fn the_review_keeps_its_rules_on_recorded_games() {
    use oware_zero::tablebase::Tablebase;
    let root = env!("CARGO_MANIFEST_DIR");
    let tb_dir = format!("{root}/tablebases/abapa");
    let srv = Server::start(&["--puzzles", "0", "--searchers", "1", "--tb", &tb_dir]);
    let a = agent();
    let tb = std::sync::Arc::new(Tablebase::open(std::path::Path::new(&tb_dir)).unwrap());
    // The deeper search ends lines where the tables decide them, as the review's does.
    let mut ab = AlphaBeta::new(RuleSet::abapa(), 64);
    ab.set_tablebase(Some(tb.clone()));
    let pool =
        std::fs::read_to_string(format!("{root}/experiments/recorded/anchors/pool.jsonl")).unwrap();
    let (mut best, mut tables, mut lost) = (0, 0, 0);
    let lines: Vec<&str> = pool.lines().collect();
    for i in GAMES {
        let rec: Value = serde_json::from_str(lines[i]).unwrap();
        let (start, moves) = rec["record"].as_str().unwrap().split_once(';').unwrap();
        let body = serde_json::json!({"fen": start, "moves": moves, "sims": 100});
        let (s, v) = post(&a, &srv.url("/api/v1/analyze"), &body.to_string());
        assert_eq!(s, 200, "{v}");
        let mut g = Game::new(RuleSet::abapa(), start.parse::<Position>().unwrap());
        let mut history_free = true;
        for p in v["plies"].as_array().unwrap() {
            let before = g.clone();
            let mover = before.position().side;
            let letter = p["move"].as_str().unwrap().chars().next().unwrap();
            let captured = g.play_letter(letter).unwrap().captured > 0;
            let grade = p["grade"].as_str().unwrap();
            if p["move"] == p["best"] {
                assert_eq!(grade, "best", "{p}");
                best += 1;
            }
            // The mover's result with best play where an exact entry decides it.
            let exact = |pos: &Position| {
                tb.probe(pos)
                    .filter(|e| e.exact)
                    .and_then(|e| e.proven)
                    .map(|o| o.score())
            };
            let after = match g.outcome() {
                Some(o) => Some(o.score_for(mover) as i32),
                None if g.position().side == mover => exact(g.position()),
                None => exact(g.position()).map(|s| -s),
            };
            if history_free
                && captured
                && let (Some(b), Some(x)) = (exact(before.position()), after)
            {
                let want = if x >= b { "best" } else { "blunder" };
                assert_eq!(grade, want, "tables: {b} before, {x} after: {p}");
                if x >= b {
                    assert_eq!(p["loss"], 0.0, "{p}");
                }
                tables += 1;
            }
            if p["proof_before"] == "loss" && p["table_before"].is_null() {
                let r = ab.search(&before, &Limits::depth(16));
                assert!(
                    r.is_decided() && r.score_cp < 0,
                    "not lost at depth 16: {p}"
                );
                assert_eq!(grade, "best", "{p}");
                lost += 1;
            }
            history_free = captured;
        }
    }
    println!(
        "review rules: {best} best moves, {tables} moves judged by the tables, {lost} from lost positions"
    );
    assert!(best > 0 && tables > 0 && lost > 0, "{best} {tables} {lost}");
}

/// The games of `experiments/recorded/anchors/pool.jsonl` the review test reads (by
/// line, from 0).
const GAMES: [usize; 4] = [23, 27, 33, 110];

/// The same request gets the same answer whatever came before it: a bigger search, a
/// search of another game, the same request again. Its root holds the simulations it
/// states, never a tree left by an earlier request.
#[test]
fn an_answer_depends_on_its_request_alone() {
    let srv = Server::start(&["--puzzles", "0", "--searchers", "1", "--max-sims", "4000"]);
    let a = agent();
    let url = srv.url("/api/v1/bestmove");
    let strong = r#"{"moves": "FbAaCeBdCeBcFcDdBcFdDb", "level": "strong"}"#;
    let novice = r#"{"moves": "FbAaCeBd", "level": "novice"}"#;
    let mut answers = Vec::new();
    for before in [
        "",
        r#"{"moves": "FbAaCeBdCeBcFcDdBcFdDb", "sims": 3200}"#,
        r#"{"moves": "FbAaCeBdCeBcFcDdBcFd", "sims": 3200}"#,
        r#"{"moves": "Ff", "sims": 1000}"#,
        "",
    ] {
        if !before.is_empty() {
            assert_eq!(post(&a, &url, before).0, 200);
        }
        let (s, v) = post(&a, &url, strong);
        assert_eq!(s, 200, "{v}");
        let visits: u64 = v["visits"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum();
        let sims = v["simulations"].as_u64().unwrap();
        assert_eq!(sims, 400, "{v}");
        // The root's visits are the search's simulations (the first expands the root).
        assert!(
            visits <= sims && visits + 1 >= sims,
            "{visits} root visits for {sims}: {v}"
        );
        // Every legal move has a line, the move played among them, most visited first.
        let lines = v["lines"].as_array().unwrap();
        assert_eq!(lines.len(), v["visits"].as_object().unwrap().len(), "{v}");
        assert!(lines.iter().any(|l| l["move"] == v["move"]), "{v}");
        let seen: Vec<u64> = lines
            .iter()
            .map(|l| l["visits"].as_u64().unwrap())
            .collect();
        assert!(seen.windows(2).all(|w| w[0] >= w[1]), "{seen:?}");
        for l in lines {
            assert_eq!(l["q"].is_null(), l["visits"] == 0, "{l}");
        }
        let (s, n) = post(&a, &url, novice);
        assert_eq!(s, 200, "{n}");
        let lines = n["lines"].as_array().unwrap();
        assert!(lines.iter().any(|l| l["move"] == n["move"]), "{n}");
        answers.push((v["move"].clone(), v["visits"].clone(), n["move"].clone()));
    }
    for w in answers.windows(2) {
        assert_eq!(w[0], w[1], "{answers:?}");
    }
}

/// Requests that stall are not kept: 200 connections that send half a request's headers,
/// and 20 that send headers but only half their body, are all closed (the body ones
/// answered 408) within the server's read timeout and a margin, and the server answers
/// as before meanwhile and after.
#[test]
fn stalled_requests_are_closed_after_the_read_timeout() {
    use std::io::{Read, Write};
    let srv = Server::start(&["--puzzles", "0", "--searchers", "1"]);
    let addr = srv.base.trim_start_matches("http://").to_string();
    let t0 = Instant::now();
    let mut half_headers = Vec::new();
    for _ in 0..200 {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.write_all(b"POST /api/v1/position HTTP/1.1\r\nHost: x\r\nContent-Ty")
            .unwrap();
        half_headers.push(s);
    }
    let mut half_bodies = Vec::new();
    for _ in 0..20 {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.write_all(
            b"POST /api/v1/position HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"moves\": ",
        )
        .unwrap();
        half_bodies.push(s);
    }
    // The server still answers while they hang.
    let a = agent();
    assert_eq!(get(&a, &srv.url("/api/v1/health")).0, 200);
    let limit = Duration::from_secs(25);
    for mut s in half_headers {
        s.set_read_timeout(Some(limit)).unwrap();
        let mut buf = Vec::new();
        // Closed by the server: the read ends (an answer, or none), never by our timeout.
        match s.read_to_end(&mut buf) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(e) => panic!("a half-sent request was still open after {limit:?}: {e}"),
        }
    }
    for mut s in half_bodies {
        s.set_read_timeout(Some(limit)).unwrap();
        let (mut got, mut buf) = (Vec::new(), [0u8; 4096]);
        while !String::from_utf8_lossy(&got).contains("did not arrive") {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) => panic!("no answer to a half-sent body after {limit:?}: {e}"),
            }
        }
        let text = String::from_utf8_lossy(&got);
        assert!(text.starts_with("HTTP/1.1 408"), "{text}");
        assert!(text.contains("did not arrive"), "{text}");
    }
    assert!(t0.elapsed() < Duration::from_secs(40));
    assert_eq!(get(&a, &srv.url("/api/v1/health")).0, 200);
}

/// Infinite analysis (`POST /api/v1/infinite`): updates that grow and list every legal
/// move; one analysis at a time on two searchers (the other thread still answers
/// `bestmove`), its thread free again once the client goes; the time limit and its last
/// update; bad input; and the example of docs/http-api.md, run as written.
#[test]
fn infinite_analysis_streams_until_the_client_goes() {
    let srv = Server::start(&[
        "--puzzles",
        "0",
        "--searchers",
        "2",
        "--analysis-max-seconds",
        "30",
    ]);
    let a = agent();
    let url = srv.url("/api/v1/infinite");
    let (_, h) = get(&a, &srv.url("/api/v1/health"));
    assert_eq!(h["limits"]["analysis_max_seconds"], 30, "{h}");
    assert_eq!(h["limits"]["max_analyses"], 1, "{h}");

    // After Ff South moves; F is empty, so A to E are legal.
    let (status, mut lines) = post_stream(&a, &url, r#"{"moves": "Ff"}"#);
    assert_eq!(status, 200);
    let mut last_sims = 0;
    for _ in 0..3 {
        let u = next_json(&mut lines).expect("an update");
        assert_eq!(u["done"], false, "{u}");
        let sims = u["simulations"].as_u64().unwrap();
        assert!(sims > last_sims, "simulations {sims} after {last_sims}");
        last_sims = sims;
        let listed: Vec<(&str, u64)> = u["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["move"].as_str().unwrap(), l["visits"].as_u64().unwrap()))
            .collect();
        let mut moves: Vec<&str> = listed.iter().map(|l| l.0).collect();
        moves.sort();
        assert_eq!(moves, ["A", "B", "C", "D", "E"], "{u}");
        assert!(
            listed.windows(2).all(|w| w[0].1 >= w[1].1),
            "most visited first: {u}"
        );
        assert_eq!(u["move"], listed[0].0);
        assert!(u["depth"].as_u64().unwrap() >= 1, "{u}");
        assert!(u["nps"].as_u64().unwrap() > 0, "{u}");
        assert!(u["elapsed_ms"].as_f64().unwrap() > 0.0, "{u}");
        assert!(u["pv"].as_str().unwrap().len() > 1, "{u}");
        assert_eq!(u["seconds"], 30);
    }
    // The one analysis this server runs at once is running: another is a 503, while
    // the second thread answers the other requests.
    bad(post(&a, &url, "{}"), 503, "infinite analyses");
    let (s, v) = post(&a, &srv.url("/api/v1/bestmove"), r#"{"sims": 50}"#);
    assert_eq!(s, 200, "{v}");
    // The client goes away: the search stops and its thread takes the next analysis.
    drop(lines);
    let t0 = Instant::now();
    let (status, mut lines) = loop {
        let (status, lines) = post_stream(&a, &url, r#"{"moves": "FfBc", "seconds": 1}"#);
        if status != 503 || t0.elapsed() > Duration::from_secs(10) {
            break (status, lines);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status, 200, "the analysis's thread was not freed in 10 s");
    // That one ends by itself at its time, the last update saying so.
    let mut updates = Vec::new();
    while let Some(u) = next_json(&mut lines) {
        updates.push(u);
    }
    let (last, before) = updates.split_last().expect("updates");
    assert_eq!(last["done"], true, "{last}");
    assert!(last["elapsed_ms"].as_f64().unwrap() >= 1000.0, "{last}");
    assert!(before.iter().all(|u| u["done"] == false));
    assert!(!before.is_empty(), "a few updates a second");

    // Bad input: a 400 naming what was wrong, before any search.
    bad(post(&a, &url, r#"{"moves": "FF"}"#), 400, "after 1 move: ");
    bad(post(&a, &url, r#"{"fen": "1-2-3"}"#), 400, "fen");
    bad(post(&a, &url, r#"{"rules": "chess"}"#), 400, "chess");
    bad(post(&a, &url, r#"{"seconds": 0}"#), 400, "seconds 0");
    bad(
        post(&a, &url, r#"{"seconds": 31}"#),
        400,
        "expected 1 to 30",
    );
    bad(
        post(&a, &url, r#"{"sims": 100}"#),
        400,
        "unknown field `sims`",
    );
    bad(
        post(
            &a,
            &url,
            r#"{"fen": "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S", "moves": "C"}"#,
        ),
        400,
        "the game is over",
    );
    bad(get(&a, &url), 405, "does not take GET");

    // The page's example, against this server.
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/http-api.md")).unwrap();
    let example = doc
        .lines()
        .find(|l| l.starts_with("curl") && l.contains("/api/v1/infinite"))
        .expect("docs/http-api.md's infinite example");
    let command = example.replace("localhost:8080", srv.base.trim_start_matches("http://"));
    let out = std::process::Command::new("bash")
        .args(["-c", &command])
        .output()
        .expect("bash runs the example");
    assert!(out.status.success(), "{command}: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let updates: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(updates.len() >= 2, "{text}");
    assert_eq!(updates.last().unwrap()["done"], true, "{text}");
}

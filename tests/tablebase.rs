//! `oware tablebase` and the `--tb` options through the command line, on the tables
//! shipped in `tablebases/abapa` (every board with at most 12 seeds).

mod common;

use common::oware;

const TB: &str = "tablebases/abapa";

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn probe_gives_value_outcome_and_move_values() {
    // South's lone seed F feeds North; North's seed cannot reach South again (a→b stays
    // in his row), so North takes it: South's margin is −1, and 23 − 24 − 1 loses.
    let (code, out, err) = oware(&[
        "tablebase",
        "probe",
        "--tb",
        TB,
        "--fen",
        "0-0-0-0-0-1-0-0-0-0-0-0-23-24-S",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["value"], -1);
    assert_eq!(v["outcome"], "loss");
    assert_eq!(v["exact"], true);
    assert_eq!(v["moves"]["F"], -1);
    assert_eq!(v["moves"].as_object().unwrap().len(), 1);
    // South's C (5 seeds) takes pits 6 and 7 (2 + 2): the move's margin is 4 minus the
    // value of the 4 seeds left with North to move, which the table gives.
    let (_, out, _) = oware(&[
        "tablebase",
        "probe",
        "--tb",
        TB,
        "--fen",
        "0-0-5-0-0-0-1-1-0-0-0-1-20-20-S",
        "--json",
    ]);
    let c = json(&out)["moves"]["C"].as_i64().unwrap();
    let (_, after, _) = oware(&[
        "tablebase",
        "probe",
        "--tb",
        TB,
        "--fen",
        "0-0-5-0-0-0-1-1-0-0-0-1-20-20-S",
        "--moves",
        "C",
        "--json",
    ]);
    assert_eq!(c, 4 - json(&after)["value"].as_i64().unwrap());
}

#[test]
fn probe_never_states_a_repetition_score_as_the_value() {
    // North's only move f starts fAbBcCdDeEfFa, which repeats with one seed in each row:
    // each takes his own, so North's margin is 0 and he loses 23–25. The plain build
    // stored the repetition score at this board (+2, a draw) there, not proven; the
    // shipped tables are built proving (`--game-seeds 12`), and hold the value, exact.
    let fen = "0-0-0-0-0-0-0-1-0-0-0-1-24-22-N";
    let (code, out, err) = oware(&["tablebase", "probe", "--tb", TB, "--fen", fen, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["exact"], true, "{v}");
    assert_eq!(v["value"], 0, "{v}");
    assert_eq!(v["outcome"], "loss", "{v}");
    assert_eq!(v["proven_by"], "table", "{v}");
    assert_eq!(v["moves"]["f"], 0, "{v}");
    let (_, text, _) = oware(&["tablebase", "probe", "--tb", TB, "--fen", fen]);
    assert!(text.contains("lost with best play"), "{text}");

    // A board a build leaves inexact when it searches the repetition rule's game only
    // up to 6 seeds (the shipped tables hold every board up to 12 seeds exact): the
    // entry is a repetition score inside bounds that do not decide the outcome (North
    // to move, stores 21–20: a draw at the low bound, a win at the high one). A search
    // given no room proves nothing: the bounds, not a value.
    let dir = tempfile::tempdir().unwrap();
    let tb = dir.path().to_str().unwrap();
    let (code, _, err) = oware(&[
        "tablebase",
        "build",
        "--max-seeds",
        "7",
        "--out",
        tb,
        "--cycle-seeds",
        "7",
        "--game-seeds",
        "6",
    ]);
    assert_eq!(code, 0, "{err}");
    let fen = "0-1-0-2-1-1-0-1-0-1-0-0-21-20-N";
    let probe = |extra: &[&str]| {
        let mut args = vec!["tablebase", "probe", "--tb", tb, "--fen", fen];
        args.extend_from_slice(extra);
        let (code, out, err) = oware(&args);
        assert_eq!(code, 0, "{err}");
        out
    };
    let v = json(&probe(&["--node-limit", "1", "--json"]));
    assert_eq!(v["exact"], false, "{v}");
    assert!(v["value"].is_null() && v["outcome"].is_null(), "{v}");
    let b = v["bounds"].as_array().expect("bounds");
    let (lo, hi) = (b[0].as_i64().unwrap(), b[1].as_i64().unwrap());
    let table = v["table_value"].as_i64().unwrap();
    assert!(lo < hi && (lo..=hi).contains(&table), "{v}");
    assert!(20 - 21 + lo <= 0 && 20 - 21 + hi > 0, "{v}");
    let text = probe(&["--node-limit", "1"]);
    assert!(
        text.contains("not proven: future captures between") && !text.contains("with best play ("),
        "{text}"
    );
    // With the default budget the search proves it: a value inside the bounds, the
    // value of its best move, and the text counts the search's nodes as the JSON.
    let v = json(&probe(&["--json"]));
    assert_eq!(v["proven_by"], "search", "{v}");
    let value = v["value"].as_i64().unwrap();
    assert!((lo..=hi).contains(&value), "{v}");
    let best = v["moves"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|m| m.as_i64())
        .max();
    assert_eq!(best, Some(value), "{v}");
    let o = match (20 - 21 + value).signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    };
    assert_eq!(v["outcome"], o, "{v}");
    let nodes = v["nodes"].as_u64().unwrap();
    let text = probe(&[]);
    assert!(
        text.contains(&format!("search nodes in all: {nodes} ")),
        "{text}"
    );
    // The shipped tables hold the same value, exact (that a proven value is the
    // brute-force search's is checked by `verify` and by `tablebase::prove`'s tests).
    let (code, out, err) = oware(&["tablebase", "probe", "--tb", TB, "--fen", fen, "--json"]);
    assert_eq!(code, 0, "{err}");
    let shipped = json(&out);
    assert_eq!(shipped["exact"], true, "{shipped}");
    assert_eq!(shipped["value"], value, "{shipped}");
}

#[test]
fn probing_beyond_the_table_and_damaged_tables_are_clear_errors() {
    let (code, _, err) = oware(&["tablebase", "probe", "--tb", TB]);
    assert_ne!(code, 0);
    assert!(
        err.starts_with("error: ") && err.contains("at most 12"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");

    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(TB).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
    }
    let f = dir.path().join("seeds-07.tb");
    let bytes = std::fs::read(&f).unwrap();
    std::fs::write(&f, &bytes[..bytes.len() / 2]).unwrap();
    let d = dir.path().to_str().unwrap();
    let (code, _, err) = oware(&["tablebase", "probe", "--tb", d]);
    assert_ne!(code, 0);
    assert!(err.contains("seeds-07.tb"), "{err}");
    let (code, _, err) = oware(&["search", "--tb", d, "--depth", "2"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("seeds-07.tb") && !err.contains("panicked"),
        "{err}"
    );
    // Tables of other rules.
    let (code, _, err) = oware(&["search", "--tb", TB, "--rules", "awari", "--depth", "2"]);
    assert_ne!(code, 0);
    assert!(err.contains("abapa") && err.contains("awari"), "{err}");
}

#[test]
fn search_and_players_probe_the_table() {
    let (code, out, err) = oware(&[
        "search",
        "--tb",
        TB,
        "--fen",
        "0-0-5-0-0-0-1-1-0-0-0-1-20-20-S",
        "--depth",
        "4",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert!(v["tb_hits"].as_u64().unwrap() > 0, "{v}");
    // A table win is a decided score.
    assert!(
        v["score"].as_i64().unwrap().abs() >= 9_000 || v["score"] == 0,
        "{v}"
    );
    let spec = format!("alphabeta:depth=2:tb={TB}");
    let (code, out, err) = oware(&[
        "eval",
        "--player",
        &spec,
        "--opponent",
        "alphabeta:depth=2",
        "--games",
        "2",
        "-q",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["games"], 2);
}

#[test]
fn probe_of_a_file_of_positions_answers_each_as_one_probe_does() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("fens.txt");
    let fens = [
        "0-0-0-0-0-1-0-0-0-0-0-0-23-24-S",
        "0-0-5-0-0-0-1-1-0-0-0-1-20-20-S",
        "0-0-0-0-0-0-0-1-0-0-0-1-24-22-N",
    ];
    std::fs::write(&f, format!("{}\n\n{}\n{};C\n", fens[0], fens[2], fens[1])).unwrap();
    let (code, out, err) = oware(&[
        "tablebase",
        "probe",
        "--tb",
        TB,
        "--fens",
        f.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = out.lines().map(json).collect();
    assert_eq!(rows.len(), 3, "{out}");
    for (row, (fen, moves)) in
        rows.iter()
            .zip([(fens[0], None), (fens[2], None), (fens[1], Some("C"))])
    {
        let mut args = vec!["tablebase", "probe", "--tb", TB, "--fen", fen, "--json"];
        if let Some(m) = moves {
            args.extend(["--moves", m]);
        }
        let (code, one, err) = oware(&args);
        assert_eq!(code, 0, "{err}");
        let mut one = json(&one);
        let mut row = row.clone();
        assert!(row["seconds"].as_f64().unwrap() >= 0.0, "{row}");
        row["seconds"] = 0.into();
        one["seconds"] = 0.into();
        assert_eq!(row, one);
    }
    // A bad line is named, in one line.
    std::fs::write(&f, format!("{}\n1-2-3\n", fens[0])).unwrap();
    let (code, _, err) = oware(&[
        "tablebase",
        "probe",
        "--tb",
        TB,
        "--fens",
        f.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("line 2") && !err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn verify_checks_the_probes_proofs_against_brute_force() {
    let (code, out, err) = oware(&[
        "tablebase",
        "verify",
        "--tb",
        TB,
        "--positions",
        "60",
        "--max-seeds",
        "7",
        "--node-limit",
        "100000",
        "--prover-nodes",
        "100000",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let p = &v["prover"];
    assert_eq!(p["disagree"], 0, "{v}");
    assert!(p["checked"].as_u64().unwrap() > 60, "{v}");
    assert!(
        p["moves"].as_u64().unwrap() >= p["moves_proven"].as_u64().unwrap(),
        "{v}"
    );
}

#[test]
fn tables_narrowed_by_the_repetition_rule_pass_verify() {
    // A build with --cycle-seeds: more exact entries than the plain build, recorded in
    // the manifest; verify's brute force agrees with every exact entry and finds every
    // value inside its bounds; resuming with another --cycle-seeds is refused.
    let exact = |dir: &str| -> u64 {
        let m = json(&std::fs::read_to_string(format!("{dir}/manifest.json")).unwrap());
        m["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["exact"].as_u64().unwrap())
            .sum()
    };
    let (plain, cycles) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (p, c) = (
        plain.path().to_str().unwrap(),
        cycles.path().to_str().unwrap(),
    );
    let build = |out: &str, extra: &[&str]| {
        let mut args = vec!["tablebase", "build", "--max-seeds", "6", "--out", out];
        args.extend_from_slice(extra);
        oware(&args)
    };
    let (code, _, err) = build(p, &[]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = build(c, &["--cycle-seeds", "6"]);
    assert_eq!(code, 0, "{err}");
    assert!(exact(c) > exact(p), "{} <= {}", exact(c), exact(p));
    let m = json(&std::fs::read_to_string(format!("{c}/manifest.json")).unwrap());
    assert_eq!(m["prove_cycles"], 6, "{m}");
    let (code, out, err) = oware(&[
        "tablebase",
        "verify",
        "--tb",
        c,
        "--positions",
        "100",
        "--max-seeds",
        "6",
        "--node-limit",
        "100000",
        "--prover-nodes",
        "100000",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["prover"]["disagree"], 0, "{v}");
    assert_eq!(v["disagreements"], 0, "{v}");
    assert!(v["solved"].as_u64().unwrap() > 50, "{v}");
    let (code, _, err) = build(c, &["--cycle-seeds", "5"]);
    assert_ne!(code, 0);
    assert!(err.contains("--cycle-seeds 6"), "{err}");
}

#[test]
fn a_count_given_its_own_budget_is_searched_and_recorded() {
    // --prove-nodes-at 4=…: count 4 is searched (above --prove-seeds 0) and narrowed by
    // default, both recorded in the manifest; a resume must ask the same; malformed or
    // repeated counts are one-line errors.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let build = |extra: &[&str]| {
        let mut args = vec!["tablebase", "build", "--max-seeds", "4", "--out", d];
        args.extend_from_slice(extra);
        oware(&args)
    };
    for bad in [
        &["--prove-nodes-at", "4"][..],
        &["--prove-nodes-at", "0=5"][..],
    ] {
        let (code, _, err) = build(bad);
        assert_ne!(code, 0, "{bad:?}");
        assert!(
            err.contains("SEEDS=NODES") || err.contains("1 to 30"),
            "{err}"
        );
    }
    let (code, _, err) = build(&["--prove-nodes-at", "4=1000", "--prove-nodes-at", "4=2000"]);
    assert_ne!(code, 0);
    assert!(err.contains("seed count 4 given twice"), "{err}");
    let (code, _, err) = build(&["--prove-nodes-at", "4=2000000"]);
    assert_eq!(code, 0, "{err}");
    let m = json(&std::fs::read_to_string(format!("{d}/manifest.json")).unwrap());
    assert_eq!(
        m["prove_nodes_at"],
        serde_json::json!([[4, 2000000]]),
        "{m}"
    );
    assert_eq!(m["prove_cycles"], 4, "{m}");
    let (code, _, err) = build(&[]);
    assert_ne!(code, 0);
    assert!(err.contains("--prove-nodes-at 4=2000000"), "{err}");
    // The narrowing alone leaves 4-seed boards open under abapa; the search closes some.
    let narrowed = tempfile::tempdir().unwrap();
    let n = narrowed.path().to_str().unwrap();
    let (code, _, err) = oware(&[
        "tablebase",
        "build",
        "--max-seeds",
        "4",
        "--out",
        n,
        "--cycle-seeds",
        "4",
    ]);
    assert_eq!(code, 0, "{err}");
    let m0 = json(&std::fs::read_to_string(format!("{n}/manifest.json")).unwrap());
    let exact4 = |m: &serde_json::Value| m["files"][4]["exact"].as_u64().unwrap();
    assert!(
        exact4(&m) > exact4(&m0),
        "{} <= {}",
        exact4(&m),
        exact4(&m0)
    );
    // --game-work-at 4=…: count 4's boards still open searched by the repetition rule's
    // game (above --game-seeds 3), which leaves none of them open (the brute force
    // agrees with every such build up to 5 seeds: the crate's tests), recorded in the
    // manifest; malformed or repeated counts are one-line errors.
    let games = tempfile::tempdir().unwrap();
    let g = games.path().to_str().unwrap();
    let build = |extra: &[&str]| {
        let mut args = vec!["tablebase", "build", "--max-seeds", "4", "--out", g];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--cycle-seeds", "4"]);
        oware(&args)
    };
    let (code, _, err) = build(&["--game-work-at", "4"]);
    assert_ne!(code, 0);
    assert!(err.contains("SEEDS=WORK"), "{err}");
    let (code, _, err) = build(&["--game-work-at", "4=1", "--game-work-at", "4=2"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--game-work-at: seed count 4 given twice"),
        "{err}"
    );
    let (code, _, err) = build(&["--game-seeds", "3", "--game-work-at", "4=1000000"]);
    assert_eq!(code, 0, "{err}");
    let m1 = json(&std::fs::read_to_string(format!("{g}/manifest.json")).unwrap());
    assert_eq!(m1["prove_game_work_at"], serde_json::json!([[4, 1000000]]));
    assert_eq!(m1["prove_games"], 3, "{m1}");
    assert!(exact4(&m0) < 1365, "{m0}");
    assert_eq!(exact4(&m1), 1365, "{m1}");
}

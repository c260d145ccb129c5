//! `oware engine --model`: a protocol session with MCTS over a (random-weight) network,
//! through the binary.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{BIN, Engine, WAIT};

use oware_zero::engine::client::EngineProcess;
use oware_zero::game::{Game, Position, RuleSet};

fn checkpoint(dir: &Path) {
    common::random_checkpoint(dir, 8, 1);
}

/// The last `info depth` line of a search's output.
fn last_info(lines: &[String]) -> &str {
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth "))
        .unwrap()
}

/// Sends `uci`; the engine must name itself as the MCTS engine. Returns its lines.
fn uci_as_mcts(e: &mut Engine) -> Vec<String> {
    e.send("uci");
    let lines = e.until("uciok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("id name oware-zero mcts")),
        "{lines:?}"
    );
    lines
}

#[test]
fn a_session_with_a_network() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    let mut e = Engine::start(&["--model", ck.to_str().unwrap()]);
    let lines = uci_as_mcts(&mut e);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Simulations type spin")),
        "{lines:?}"
    );
    e.send("isready");
    assert_eq!(e.until("readyok"), ["readyok"]);

    // docs/rules.md example 4: C captures 11 seeds and wins; the search sees the exact
    // terminal value even with random weights.
    e.send("position fen 0-0-8-0-0-1-1-1-1-1-2-3-15-15-S");
    e.send("go nodes 300");
    let lines = e.until("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove C", "{lines:?}");
    let info = last_info(&lines);
    assert!(info.contains(" nodes 300 "), "{info}");
    assert!(info.contains(" pv C"), "{info}");
    let cp: i32 = info
        .split_whitespace()
        .skip_while(|w| *w != "cp")
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(cp > 0 && cp <= 2400, "{info}");

    // A game in progress (tree reuse) and a timed search.
    e.send("ucinewgame");
    e.send("position startpos moves FfBe");
    let t = Instant::now();
    e.send("go movetime 300");
    let lines = e.until("bestmove");
    let best = lines.last().unwrap();
    assert!(
        matches!(&best[9..], "A" | "B" | "C" | "D" | "E" | "F"),
        "{best}"
    );
    assert!(t.elapsed() < Duration::from_secs(5));
    e.send("position startpos moves FfBeAa");
    e.send("go depth 2");
    let lines = e.until("bestmove");
    let info = last_info(&lines);
    assert!(info.contains(" nodes 200 "), "{info}");

    // go infinite answers only after stop.
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop");
    let lines = e.until("bestmove");
    assert!(
        lines.last().unwrap().len() == "bestmove X".len(),
        "{lines:?}"
    );

    // Options and bad input.
    e.send("setoption name Simulations value 50");
    e.send("go");
    let lines = e.until("bestmove");
    let info = last_info(&lines);
    assert!(info.contains(" nodes 50 "), "{info}");
    e.send("setoption name Simulations value lots");
    let l = e.until("info string error:");
    assert!(l.last().unwrap().contains("Simulations"), "{l:?}");
    e.quit();
}

#[test]
fn a_whole_game_against_alpha_beta_through_the_client() {
    let tmp = tempfile::tempdir().unwrap();
    let ck = tmp.path().join("ck");
    checkpoint(&ck);
    let net = format!("'{BIN}' engine --model '{}' --sims 64", ck.display());
    let ab = format!("'{BIN}' engine --alphabeta --tt-mb 2");
    let mut engines = [
        EngineProcess::start(&net, WAIT).unwrap(),
        EngineProcess::start(&ab, WAIT).unwrap(),
    ];
    assert!(engines[0].name().contains("mcts"), "{}", engines[0].name());
    for e in &mut engines {
        e.new_game().unwrap();
    }
    let mut g = Game::new(RuleSet::abapa(), Position::start());
    // Every position is sent as the start plus all moves, so the MCTS engine reuses its
    // tree; the game must reach its end with every answer legal.
    while !g.is_over() && g.moves().len() < 400 {
        let who = g.moves().len() % 2;
        let go = if who == 0 { "nodes 64" } else { "depth 2" };
        let a = engines[who].best_move(&g, go, WAIT).unwrap().unwrap();
        g.play(a as usize).unwrap();
    }
    assert!(g.is_over(), "{}", g.move_text());
    assert_eq!(engines[0].best_move(&g, "nodes 8", WAIT).unwrap(), None);
    let [a, b] = engines;
    a.quit();
    b.quit();
}

#[test]
fn a_missing_model_is_a_clear_error() {
    let o = Command::new(BIN)
        .args(["engine", "--model", "/no/such/checkpoint"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("/no/such/checkpoint") && err.contains("does not exist"),
        "{err}"
    );
}

#[test]
fn without_model_the_engine_plays_the_shipped_network() {
    // `oware engine` with no arguments: what a GUI such as Aualé runs. The shipped network
    // (checkpoints/oware-abapa) is loaded, and it finds docs/rules.md example 4's winning C.
    let mut e = Engine::start(&[]);
    uci_as_mcts(&mut e);
    e.send("position fen 0-0-8-0-0-1-1-1-1-1-2-3-15-15-S");
    e.send("go nodes 200");
    assert_eq!(e.bestmove(), "C");
    e.quit();
}

#[test]
fn alphabeta_options_need_alphabeta() {
    // `--tt-mb` belongs to the alpha-beta engine, `--sims` to the network: clap names the
    // clash, and nothing is served.
    for args in [
        &["engine", "--tt-mb", "4"][..],
        &["engine", "--alphabeta", "--sims", "64"],
        &[
            "engine",
            "--alphabeta",
            "--model",
            "checkpoints/oware-abapa",
        ],
    ] {
        let o = Command::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

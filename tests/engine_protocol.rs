//! `oware engine` through the binary: a protocol session, a whole game against itself,
//! and the client (`EngineProcess`) against it.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{BIN, Engine, WAIT};

use oware_zero::engine::client::{EngineError, EngineProcess};
use oware_zero::game::{Game, Position, RuleSet, parse_move_letter};

#[test]
fn a_protocol_session() {
    let mut e = Engine::start(&["--alphabeta", "--tt-mb", "4"]);
    e.send("uci");
    let lines = e.until("uciok");
    assert!(lines.iter().any(|l| l.starts_with("id name ")), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Hash type spin")),
        "{lines:?}"
    );
    e.send("isready");
    assert_eq!(e.until("readyok"), ["readyok"]);

    // docs/rules.md example 4: C captures five pits and wins.
    e.send("position fen 0-0-8-0-0-1-1-1-1-1-2-3-15-15-S");
    e.send("go depth 5");
    let lines = e.until("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove C");
    let info = lines
        .iter()
        .find(|l| l.starts_with("info depth 1 "))
        .unwrap();
    assert!(info.contains(" score cp 9999 pv C nodes "), "{info}");
    assert!(info.contains(" nps ") && info.contains(" time "), "{info}");

    // A malformed line and an illegal move: errors, and the position is kept.
    e.send("position sideways");
    let l = e.until("info string error:");
    assert!(l.last().unwrap().contains("startpos"), "{l:?}");
    e.send("position fen 0-0-8-0-0-1-1-1-1-1-2-3-15-15-S moves A");
    let l = e.until("info string error:");
    assert!(l.last().unwrap().contains("move A"), "{l:?}");
    e.send("frobnicate");
    let l = e.until("info string error:");
    assert!(l.last().unwrap().contains("'frobnicate'"), "{l:?}");
    e.send("go depth x");
    e.until("info string error:");
    e.send("setoption name Hash value lots");
    e.until("info string error:");
    e.send("setoption name Colour value blue");
    e.until("info string unknown option");
    e.send("go depth 3");
    assert_eq!(
        e.bestmove(),
        "C",
        "the position before the bad lines is kept"
    );

    // Space-separated and concatenated moves; a finished game answers 0000.
    e.send("position startpos moves F f B e");
    e.send("go depth 4");
    let m = e.bestmove();
    let mut g = Game::new(RuleSet::abapa(), Position::start());
    g.play_text("FfBe").unwrap();
    g.play_letter(m.chars().next().unwrap()).unwrap();
    e.send("position fen 0-0-8-0-0-1-1-1-1-1-2-3-15-15-S moves C");
    e.send("go depth 3");
    assert_eq!(e.bestmove(), "0000");

    // stop interrupts an infinite search, which answers only then.
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.send("isready");
    e.until("readyok");
    e.send("stop");
    let m = e.bestmove();
    assert!(["A", "B", "C", "D", "E", "F"].contains(&m.as_str()), "{m}");

    // Time controls.
    e.send("position startpos moves F");
    e.send("go wtime 1000 btime 1000 winc 10 binc 10");
    let m = e.bestmove();
    assert!(
        parse_move_letter(m.chars().next().unwrap()).is_some(),
        "{m}"
    );
    e.send("debug on");
    e.send("setoption name Rules value awari");
    e.send("position startpos");
    e.until("info string position 4-4-4-4-4-4-4-4-4-4-4-4-0-0-S");
    e.quit();
}

#[test]
fn the_engine_plays_a_whole_game_against_itself() {
    // Two processes, one per side; every move is checked by `Game`.
    let mut engines = [
        Engine::start(&["--alphabeta", "--tt-mb", "2"]),
        Engine::start(&["--alphabeta", "--tt-mb", "2"]),
    ];
    for e in &mut engines {
        e.send("uci");
        e.until("uciok");
        e.send("ucinewgame");
        e.send("isready");
        e.until("readyok");
    }
    let mut g = Game::new(RuleSet::abapa(), Position::start());
    while !g.is_over() {
        assert!(g.moves().len() < 2000, "the game does not end");
        let e = &mut engines[g.position().side.index()];
        let moves = g.move_text();
        e.send(&format!("position startpos moves {moves}"));
        e.send("go depth 4");
        let m = e.bestmove();
        let mut c = m.chars();
        let (Some(letter), None) = (c.next(), c.next()) else {
            panic!("bestmove '{m}' in {}", g.position())
        };
        g.play_letter(letter)
            .unwrap_or_else(|err| panic!("{err} after {moves}"));
    }
    // Both now see the game over.
    for e in &mut engines {
        e.send(&format!("position startpos moves {}", g.move_text()));
        e.send("go depth 2");
        assert_eq!(e.bestmove(), "0000");
    }
    let [a, b] = engines;
    a.quit();
    b.quit();
}

#[test]
fn the_client_drives_oware_engine() {
    let cmd = format!("'{BIN}' engine --alphabeta --tt-mb 2");
    let mut e = EngineProcess::start(&cmd, WAIT).unwrap();
    assert!(e.name().contains("oware-zero"), "{}", e.name());
    assert!(e.options().iter().any(|o| o.name == "Rules"));
    e.set_option("Rules", "abapa").unwrap();
    e.new_game().unwrap();
    let mut g = Game::new(RuleSet::abapa(), Position::start());
    for _ in 0..12 {
        if g.is_over() {
            break;
        }
        let a = e.best_move(&g, "depth 3", WAIT).unwrap().unwrap();
        g.play(a as usize).unwrap();
    }
    assert!(g.moves().len() >= 2);
    let over = Game::new(
        RuleSet::abapa(),
        "0-0-0-1-1-2-0-0-0-0-0-3-26-15-N".parse().unwrap(),
    );
    assert_eq!(e.best_move(&over, "depth 3", WAIT).unwrap(), None);
    assert!(matches!(
        e.set_option("Colour", "blue"),
        Err(EngineError::NoSuchOption { .. })
    ));
    e.quit();
}

#[test]
fn the_client_reports_broken_engines() {
    let t = Duration::from_millis(1500);
    // Not an engine at all: exits at once.
    let err = EngineProcess::start("true", t).err().unwrap();
    assert!(matches!(err, EngineError::Exited { .. }), "{err}");
    // Never answers.
    let err = EngineProcess::start("sleep 30", t).err().unwrap();
    assert!(matches!(err, EngineError::Timeout { .. }), "{err}");
    assert!(err.to_string().contains("uciok"), "{err}");
    // Cannot be found (the shell reports it and exits).
    let err = EngineProcess::start("/no/such/engine-here", t)
        .err()
        .unwrap();
    assert!(matches!(err, EngineError::Exited { .. }), "{err}");
    // Handshakes, then answers an illegal move.
    let script = "while read l; do case $l in uci) echo uciok;; isready) echo readyok;; go*) echo bestmove a;; esac; done";
    let mut e = EngineProcess::start(script, t).unwrap();
    let g = Game::new(RuleSet::abapa(), Position::start());
    let err = e.best_move(&g, "depth 1", t).unwrap_err();
    assert!(matches!(err, EngineError::IllegalMove { .. }), "{err}");
    assert!(err.to_string().contains("legal: ABCDEF"), "{err}");
    // Handshakes, then crashes when asked to search.
    let script = "while read l; do case $l in uci) echo uciok;; isready) echo readyok;; go*) exit 3;; esac; done";
    let mut e = EngineProcess::start(script, t).unwrap();
    let err = e.best_move(&g, "depth 1", t).unwrap_err();
    assert!(
        matches!(err, EngineError::Exited { .. } | EngineError::Send { .. }),
        "{err}"
    );
}

#[test]
fn end_of_input_lets_a_limited_search_finish() {
    let mut child = Command::new(BIN)
        .args(["engine", "--alphabeta", "--tt-mb", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"position startpos moves Ff\ngo depth 9\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    assert!(text.contains("info depth 9 "), "{text}");
    assert!(
        text.trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("bestmove "),
        "{text}"
    );
}

/// A GUI's stray line, a garbled one, `uci` or `isready` during a search leave it
/// searching: the answer comes from the whole search, never an unsearched move.
#[test]
fn a_stray_line_during_a_search_leaves_it_searching() {
    for stray in ["hello", "uci", "isready", "\u{1b}[A garbage ;;"] {
        let mut child = Command::new(BIN)
            .args(["engine", "--threads", "1", "--no-tb"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let input = format!("position startpos moves Ff\ngo nodes 3000\n{stray}\n");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success());
        let nodes: u64 = text
            .lines()
            .rfind(|l| l.starts_with("info depth"))
            .and_then(|l| l.split(" nodes ").nth(1))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no info line with nodes: {text}"));
        assert!(
            nodes >= 3000,
            "{stray:?}: the search stopped at {nodes} nodes\n{text}"
        );
        assert_eq!(text.matches("bestmove ").count(), 1, "{text}");
    }
}

/// The output of `oware engine` (the shipped network, one thread) fed `input`, which
/// ends without `quit`.
fn network_engine_on(input: &str) -> String {
    let mut child = Command::new(BIN)
        .args(["engine", "--threads", "1", "--no-tb"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// `go infinite` then the end of input answers a move that was searched: the last info
/// line before `bestmove` has simulations, and its line starts with the move answered.
#[test]
fn end_of_input_after_go_infinite_answers_a_searched_move() {
    let text = network_engine_on("position startpos moves Ff\ngo infinite\n");
    let info = text
        .lines()
        .rfind(|l| l.starts_with("info depth"))
        .unwrap_or_else(|| panic!("no info line: {text}"));
    let field = |name: &str| {
        info.split(&format!(" {name} "))
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no {name} in {info}"))
            .to_string()
    };
    let nodes: u64 = field("nodes").parse().unwrap();
    assert!(nodes >= 100, "only {nodes} simulations: {text}");
    let best = text
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove: {text}"));
    assert!(field("pv").starts_with(best), "{info} / bestmove {best}");
    assert_eq!(text.matches("bestmove ").count(), 1, "{text}");
}

/// The network's `go depth D` runs 100·D simulations whatever D is: `go depth 99` is
/// not said to search depth 64, and runs 9 900 simulations.
#[test]
fn the_network_engine_takes_go_depth_as_asked() {
    let text = network_engine_on("position startpos moves Ff\ngo depth 99\n");
    assert!(!text.contains("depth 64"), "{text}");
    let nodes: u64 = text
        .lines()
        .rfind(|l| l.starts_with("info depth"))
        .and_then(|l| l.split(" nodes ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no info line with nodes: {text}"));
    assert!(
        (9900..10_100).contains(&nodes),
        "{nodes} simulations: {text}"
    );
}

//! The web app in a real browser: headless Chromium driven through WebDriver
//! (`chromedriver`) plays a game by clicks to its end, takes a move back, asks for a
//! hint, opens the analysis and solves a puzzle. A screenshot of each step is kept in
//! `target/serve-screenshots/`.
//!
//! Needs Debian's `chromium` and `chromium-driver` (`.ci/run` installs them and sets
//! `OWARE_REQUIRE_BROWSER`, which turns a missing browser into a failure); without them
//! the test says so and passes.

mod serve_support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use serve_support::webdriver::Browser;
use serve_support::{Server, agent, get};

fn shots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("serve-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The number of moves the app shows in its move list.
fn moves_listed(b: &Browser) -> u64 {
    b.exec(
        "return document.querySelectorAll('#move-list li').length;",
        json!([]),
    )
    .as_u64()
    .unwrap()
}

#[test]
fn play_undo_hint_analysis_and_a_puzzle_in_chromium() {
    let srv = Server::start(&["--puzzles", "2", "--searchers", "2", "--seed", "5"]);
    let browser = match Browser::start(1300, 840) {
        Ok(b) => b,
        Err(why) if std::env::var_os("OWARE_REQUIRE_BROWSER").is_some() => {
            panic!("OWARE_REQUIRE_BROWSER is set but the browser cannot start: {why}")
        }
        Err(why) => {
            println!(
                "SKIPPED: the browser test needs chromium and chromedriver \
                 (apt-get install chromium chromium-driver): {why}"
            );
            return;
        }
    };
    let b = &browser;
    let dir = shots();
    let t0 = Instant::now();

    // Play a whole game at the novice level by clicks, animations off.
    b.goto(&srv.url("/?level=novice&anim=0"));
    b.wait_idle();
    assert_eq!(
        b.exec(
            "return document.querySelectorAll('.pit').length;",
            json!([])
        ),
        12
    );
    assert!(b.text("#model").contains("abapa"), "{}", b.text("#model"));
    let mut clicks = 0;
    loop {
        b.wait_idle();
        if b.exec(
            "return document.querySelector('#status').classList.contains('over');",
            json!([]),
        ) == Value::Bool(true)
        {
            break;
        }
        // The rightmost playable pit of ours, to end the game sooner.
        let legal = b.exec(
            "return [...document.querySelectorAll('#row-bottom .pit.legal')].map(e => e.dataset.letter);",
            json!([]),
        );
        let legal: Vec<String> = serde_json::from_value(legal).unwrap();
        assert!(
            !legal.is_empty(),
            "no playable pit and no result: {}",
            b.text("#status")
        );
        let letter = legal.last().unwrap();
        let before = moves_listed(b);
        b.click(&format!(".pit[data-letter='{letter}']"));
        b.wait_idle();
        assert!(
            moves_listed(b) > before,
            "the click on {letter} played nothing"
        );
        clicks += 1;
        if clicks == 6 {
            b.screenshot(&dir.join("play.png"));
        }
        assert!(clicks < 400, "the game did not end in 400 moves");
    }
    let over = b.text("#status");
    assert!(
        over.contains("wins") || over.contains("draw"),
        "the ending is not in words: {over}"
    );
    let url = b.exec("return location.search;", json!([]));
    assert!(
        url.as_str().unwrap().contains("moves="),
        "the game is not in the URL: {url}"
    );
    b.screenshot(&dir.join("game-over.png"));
    let played = moves_listed(b);

    // Take the last move back: the game goes on.
    b.click("#undo");
    b.wait_idle();
    assert!(moves_listed(b) < played);
    assert!(
        b.text("#status").contains("Took back"),
        "{}",
        b.text("#status")
    );
    assert_eq!(b.text("#banner"), "your move");
    b.screenshot(&dir.join("undo.png"));

    // A hint marks one of our pits.
    b.click("#hint");
    b.wait_idle();
    let hinted = b.exec(
        "const e = document.querySelector('#row-bottom .pit.hint'); return e ? e.dataset.letter : null;",
        json!([]),
    );
    assert!(
        hinted.is_string(),
        "no pit marked; status: {}",
        b.text("#status")
    );
    assert!(
        b.text("#status").starts_with("Hint: "),
        "{}",
        b.text("#status")
    );
    b.screenshot(&dir.join("hint.png"));

    // The analysis of the game so far: a value graph and one graded row per move.
    b.click("#tab-analysis");
    b.click("#analyze");
    b.wait_idle();
    let rows = b.exec(
        "return document.querySelectorAll('#analysis-table tbody tr').length;",
        json!([]),
    );
    assert_eq!(
        rows.as_u64(),
        Some(moves_listed(b)),
        "{}",
        b.text("#analysis-status")
    );
    assert!(b.find("#graph path.line").is_some(), "no value graph");
    assert!(
        b.find("#board .pit.played").is_some(),
        "the move played is not shown"
    );
    // Our own moves at this level are poor: some row names a better move, and
    // selecting it marks that move on the board.
    b.click("#analysis-table tbody tr:last-child");
    let better = b.exec(
        "const r = [...document.querySelectorAll('#analysis-table tbody tr')].find(r => r.children[3].textContent); \
         if (!r) return null; r.click(); return r.children[3].textContent;",
        json!([]),
    );
    if let Some(m) = better.as_str() {
        let marked = b.exec(
            "const e = document.querySelector('#board .pit.best'); return e ? e.dataset.letter : null;",
            json!([]),
        );
        assert_eq!(marked.as_str(), Some(m));
        assert!(b.text("#status").contains(&format!("better was {m}")));
    }
    b.screenshot(&dir.join("analysis.png"));

    // A puzzle: one wrong try, graded, then the solution.
    b.click("#tab-puzzles");
    b.wait_for(
        "return document.querySelector('#puzzle-title').textContent.includes('to move and win') && \
         document.querySelector('#puzzle-status').dataset.state === 'none' && \
         document.body.dataset.busy === '0';",
        180,
        "a puzzle",
    );
    let fen = b.exec(
        "return document.querySelector('#board').dataset.fen;",
        json!([]),
    );
    let (_, list) = get(&agent(), &srv.url("/api/v1/puzzles?n=50"));
    let puzzle = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["position"] == fen)
        .unwrap_or_else(|| panic!("the page shows {fen}, which is no puzzle of {list}"))
        .clone();
    let solution = puzzle["solution"].as_str().unwrap();
    let legal: Vec<String> = serde_json::from_value(b.exec(
        "return [...document.querySelectorAll('.pit.legal')].map(e => e.dataset.letter);",
        json!([]),
    ))
    .unwrap();
    if let Some(wrong) = legal.iter().find(|l| *l != solution) {
        b.click(&format!(".pit[data-letter='{wrong}']"));
        b.wait_idle();
        assert_eq!(
            b.exec(
                "return document.querySelector('#puzzle-status').dataset.state;",
                json!([])
            ),
            "wrong"
        );
    }
    b.click(&format!(".pit[data-letter='{solution}']"));
    b.wait_idle();
    assert_eq!(
        b.exec(
            "return document.querySelector('#puzzle-status').dataset.state;",
            json!([])
        ),
        "solved",
        "{}",
        b.text("#puzzle-status")
    );
    assert!(b.text("#puzzle-status").contains("Solved"));
    b.screenshot(&dir.join("puzzle.png"));

    // A bad game record is refused in words, and the game stays.
    b.click("#tab-play");
    b.exec(
        "document.querySelector('#record-box').open = true;",
        json!([]),
    );
    b.exec(
        "document.querySelector('#record').value = 'FFF';",
        json!([]),
    );
    b.click("#load");
    b.wait_idle();
    assert!(
        b.text("#status").contains("after 1 move: "),
        "{}",
        b.text("#status")
    );

    println!(
        "browser test: {clicks} clicks, {} s; screenshots in {}",
        t0.elapsed().as_secs(),
        dir.display()
    );
    assert!(t0.elapsed() < Duration::from_secs(240));
}

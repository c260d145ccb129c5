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
use serve_support::{
    Server, agent, browser_or_skip, desktop_or_phone, get, next_json, post_stream,
};

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
    let Some(browser) = browser_or_skip(|| Browser::start(1300, 1000)) else {
        return;
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
    // Two clicks in a row: the second one's move is what the board shows, whichever
    // position arrives first.
    b.click("#analysis-table tbody tr:last-child");
    let better = b.exec(
        "const r = [...document.querySelectorAll('#analysis-table tbody tr')].find(r => r.children[3].textContent); \
         if (!r) return null; r.click(); return r.children[3].textContent;",
        json!([]),
    );
    b.wait_idle();
    if let Some(m) = better.as_str() {
        let marked = b.exec(
            "const e = document.querySelector('#board .pit.best'); return e ? e.dataset.letter : null;",
            json!([]),
        );
        assert_eq!(marked.as_str(), Some(m));
        assert!(b.text("#status").contains(&format!("better was {m}")));
    }
    b.exec("window.scrollTo(0, 0);", json!([]));
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
    // The solution, then the whole forced line: after each engine reply, a move that
    // keeps the win (as the API's solve proves it) until the game is won.
    b.click(&format!(".pit[data-letter='{solution}']"));
    b.wait_idle();
    let state = |b: &Browser| {
        b.exec(
            "return document.querySelector('#puzzle-status').dataset.state;",
            json!([]),
        )
    };
    let mut steps = 1;
    while state(b) == "going" {
        let moves = b.exec(
            "return document.querySelector('#pane-puzzles').dataset.moves;",
            json!([]),
        );
        let body = json!({"fen": puzzle["fen"], "moves": moves, "depth": puzzle["plies"]});
        let (_, s) = serve_support::post(&agent(), &srv.url("/api/v1/solve"), &body.to_string());
        let win = s["moves"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, v)| v["result"] == "win")
            .map(|(m, _)| m.clone())
            .unwrap_or_else(|| panic!("no winning move on the way: {s}"));
        b.click(&format!(".pit[data-letter='{win}']"));
        b.wait_idle();
        steps += 1;
        assert!(steps < 30, "the puzzle did not end");
    }
    assert_eq!(state(b), "solved", "{}", b.text("#puzzle-status"));
    assert!(steps >= 2, "a puzzle is won in one move");
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

fn js(b: &Browser, script: &str) -> Value {
    b.exec(script, json!([]))
}

/// The study board: a bad link, the move tree with a variation, stepping to the last
/// position, the engine's lines and evaluation bar, the tables' results per move and
/// the endgame trainer, the position editor's checks, redo, the question before a
/// setting throws a game away, the record's headers; then the page on a phone.
#[test]
fn analysis_board_tables_editor_and_a_phone_in_chromium() {
    let tb = concat!(env!("CARGO_MANIFEST_DIR"), "/tablebases/abapa");
    let srv = Server::start(&["--puzzles", "0", "--searchers", "2", "--tb", tb]);
    let Some(browser) = browser_or_skip(|| Browser::start(1300, 900)) else {
        return;
    };
    let b = &browser;
    let dir = shots();

    // A link with a bad move keeps the moves before it and says so.
    b.goto(&srv.url("/?moves=FfZZ&anim=0&level=novice"));
    b.wait_idle();
    assert_eq!(moves_listed(b), 2, "{}", b.text("#status"));
    assert!(
        b.text("#status").contains("could not be loaded"),
        "{}",
        b.text("#status")
    );
    assert_eq!(
        js(
            b,
            "return document.querySelectorAll('#row-bottom .pit .count').length;"
        ),
        6
    );

    // Your move and the reply are both told; undo, then redo plays them again; the
    // record carries headers.
    b.goto(&srv.url("/?anim=0&level=novice"));
    b.wait_idle();
    b.click(".pit[data-letter='C']");
    b.wait_idle();
    let said = b.text("#status");
    assert!(
        said.contains("You play C") && said.contains("oware plays"),
        "{said}"
    );
    b.click("#undo");
    b.wait_idle();
    assert_eq!(moves_listed(b), 0);
    b.click("#redo");
    b.wait_idle();
    assert_eq!(moves_listed(b), 2, "{}", b.text("#status"));
    let record = js(b, "return document.querySelector('#record').value;");
    let record = record.as_str().unwrap();
    assert!(
        record.contains("# South: You") && record.contains("# Rules: abapa"),
        "{record}"
    );
    // Changing side mid-game asks first; "keep playing" keeps the game and the side.
    js(
        b,
        "const s = document.querySelector('#side'); s.value = 'N'; s.dispatchEvent(new Event('change'));",
    );
    assert!(
        b.text("#ask-text").contains("new game"),
        "{}",
        b.text("#ask-text")
    );
    b.click("#ask-no");
    b.wait_idle();
    assert_eq!(js(b, "return document.querySelector('#side').value;"), "S");
    assert_eq!(moves_listed(b), 2);

    // The evaluation bar while playing, on request.
    b.click("#show-eval");
    b.wait_for(
        "return !document.querySelector('#evalbar').classList.contains('hidden') && \
         document.querySelector('#evalbar').dataset.south !== undefined;",
        60,
        "the evaluation bar",
    );
    // A record with headers loads its rules and side; then another rule set by the
    // selector asks first, and starts a new game under it.
    js(b, "document.querySelector('#record-box').open = true;");
    b.exec(
        "document.querySelector('#record').value = arguments[0];",
        json!([
            "# Rules: awari\n# South: oware-zero (novice)\n# North: You\n# Level: novice\nFf\n"
        ]),
    );
    b.click("#load");
    b.wait_idle();
    assert_eq!(
        js(b, "return document.querySelector('#rules').value;"),
        "awari"
    );
    assert_eq!(js(b, "return document.querySelector('#side').value;"), "N");
    assert!(moves_listed(b) >= 2, "{}", b.text("#status"));
    let url = js(b, "return location.search;");
    assert!(url.as_str().unwrap().contains("rules=awari"), "{url}");
    js(
        b,
        "const s = document.querySelector('#rules'); s.value = 'abapa'; s.dispatchEvent(new Event('change'));",
    );
    b.click("#ask-yes");
    b.wait_idle();
    assert_eq!(
        js(b, "return document.querySelector('#rules').value;"),
        "abapa"
    );
    let url = js(b, "return location.search;");
    assert!(
        !url.as_str().unwrap().contains("rules="),
        "abapa, the default, is not written: {url}"
    );

    // The analysis board: the game's moves in a tree; a variation from move 2; the
    // last position reached with ⏭; a click on a move goes there.
    b.goto(&srv.url("/?moves=FfBeCa&tab=analysis&anim=0"));
    b.wait_idle();
    assert_eq!(
        js(b, "return document.querySelectorAll('#tree .mv').length;"),
        6
    );
    let final_fen = js(b, "return document.querySelector('#board').dataset.fen;");
    b.click("#first-ply");
    b.wait_idle();
    b.click("#next-ply");
    b.click("#next-ply");
    b.wait_idle();
    let here = js(b, "return document.querySelector('#board').dataset.fen;");
    // The main line goes on with B; play another legal South move instead.
    let other: String = serde_json::from_value(js(
        b,
        "return [...document.querySelectorAll('#board .pit.legal')].map(e => e.dataset.letter).find(l => l !== 'B');",
    ))
    .unwrap();
    b.click(&format!(".pit[data-letter='{other}']"));
    b.wait_idle();
    assert_eq!(
        js(
            b,
            "return document.querySelectorAll('#tree .var .mv').length;"
        ),
        1
    );
    assert_ne!(
        js(b, "return document.querySelector('#board').dataset.fen;"),
        here
    );
    b.wait_for(
        "return document.querySelectorAll('#lines li.line').length > 0 && \
         !document.querySelector('#evalbar').classList.contains('hidden');",
        60,
        "the engine's lines",
    );
    b.screenshot(&dir.join("analysis-board.png"));
    b.click("#prev-ply");
    b.wait_idle();
    assert_eq!(
        js(b, "return document.querySelector('#board').dataset.fen;"),
        here
    );
    b.click("#last-ply");
    b.wait_idle();
    assert_eq!(
        js(b, "return document.querySelector('#board').dataset.fen;"),
        final_fen
    );
    js(b, "document.querySelector('#tree .mv').click();");
    b.wait_idle();
    assert!(
        b.text("#banner").starts_with("after move 1"),
        "{}",
        b.text("#banner")
    );

    // Deleting the variation; then "Play from here" plays the position against oware.
    js(b, "document.querySelector('#tree .var .mv').click();");
    b.wait_idle();
    b.click("#delete-var");
    b.wait_idle();
    assert_eq!(
        js(b, "return document.querySelectorAll('#tree .var').length;"),
        0
    );
    b.click("#first-ply");
    b.wait_idle();
    b.click("#next-ply");
    b.wait_idle();
    b.click("#play-here");
    b.wait_idle();
    assert_eq!(
        js(
            b,
            "return document.querySelector('#tab-play').classList.contains('active');"
        ),
        true
    );
    assert_eq!(moves_listed(b), 1);
    assert_eq!(js(b, "return document.querySelector('#side').value;"), "N");
    assert_eq!(b.text("#banner"), "your move");

    // The tables: the result with best play and each move's ("win by 6").
    b.goto(&srv.url("/?start=0-0-5-0-0-0-1-1-0-0-0-1-20-20-S&tab=analysis&anim=0"));
    b.wait_idle();
    b.wait_for(
        "return !document.querySelector('#tables').classList.contains('hidden');",
        60,
        "the tables panel",
    );
    let t = b.text("#tables");
    assert!(t.contains("win by 6"), "{t}");
    // The trainer: a won ending where two moves of four keep the win (E and F).
    b.goto(&srv.url("/?start=0-0-1-1-1-1-1-0-0-0-2-0-18-23-S&tab=analysis&anim=0"));
    b.wait_idle();
    b.wait_for(
        "return document.querySelector('#trainer-start') !== null;",
        60,
        "the trainer button",
    );
    b.click("#trainer-start");
    b.wait_idle();
    assert!(
        b.text("#trainer-text").contains("Win this as South"),
        "{}",
        b.text("#trainer-text")
    );
    b.click(".pit[data-letter='F']");
    b.wait_idle();
    let said = b.text("#trainer-text");
    assert!(
        said.contains("The tables answer") || said.contains("Won"),
        "{said}"
    );
    b.screenshot(&dir.join("tables.png"));
    // A move the tables prove loses lets the win slip, and the trainer names it.
    b.wait_for(
        "return document.querySelector('#lines').dataset.fen === document.querySelector('#board').dataset.fen \
           && document.querySelector('#tables li.tb-loss') !== null;",
        60,
        "the tables' answer for the position",
    );
    let losing = js(
        b,
        "return document.querySelector('#tables li.tb-loss').dataset.move;",
    );
    let losing = losing.as_str().unwrap();
    b.click(&format!(".pit[data-letter='{losing}']"));
    b.wait_idle();
    let said = b.text("#trainer-text");
    assert!(
        said.contains(&format!("The win slipped with {losing}")),
        "{said}"
    );
    b.click("#trainer-stop");

    // The position editor: a total that is not 48, a finished position, then a good one.
    b.click("#edit-position");
    let set_fen = |fen: &str| {
        b.exec(
            "const f = document.querySelector('#edit-fen'); f.value = arguments[0]; f.dispatchEvent(new Event('change'));",
            json!([fen]),
        );
    };
    set_fen("4-4-4-4-4-4-4-4-4-4-4-3-0-0-S");
    assert!(
        b.text("#edit-msg").contains("47 seeds"),
        "{}",
        b.text("#edit-msg")
    );
    set_fen("0-0-0-0-0-0-1-0-0-0-0-0-24-23-S");
    b.click("#edit-done");
    b.wait_idle();
    assert!(
        b.text("#edit-msg").contains("already over"),
        "{}",
        b.text("#edit-msg")
    );
    set_fen("0-0-0-0-0-2-1-0-0-0-0-0-22-22-S");
    b.click(".pit[data-letter='A']");
    assert_eq!(
        js(b, "return document.querySelector('#edit-fen').value;"),
        "1-0-0-0-0-2-1-0-0-0-0-0-22-22-S"
    );
    b.screenshot(&dir.join("editor.png"));
    b.click("#edit-done");
    b.wait_idle();
    assert!(
        js(
            b,
            "return document.querySelector('#editor').classList.contains('hidden');"
        ) == true
    );
    assert_eq!(
        js(b, "return document.querySelector('#board').dataset.fen;"),
        "1-0-0-0-0-2-1-0-0-0-0-0-22-22-S"
    );
    drop(browser);

    // A phone (390 × 844 by mobile emulation): nothing wider than the screen, every tab
    // on it, each pit's letter and count inside its pit's box, no tag over a count.
    let Some(phone) = browser_or_skip(|| Browser::start_phone(390, 844)) else {
        return;
    };
    let p = &phone;
    p.goto(&srv.url("/?moves=FfBe&anim=0"));
    p.wait_idle();
    p.click("#hint");
    p.wait_idle();
    assert_eq!(js(p, "return window.innerWidth;"), 390);
    let wide = js(p, "return document.documentElement.scrollWidth;");
    assert!(wide.as_u64().unwrap() <= 390, "the page is {wide} px wide");
    let tabs_out = js(
        p,
        "return [...document.querySelectorAll('.tab')].filter(t => t.getBoundingClientRect().right > 390).length;",
    );
    assert_eq!(tabs_out, 0, "a tab is cut off");
    let outside = js(
        p,
        "const bad = []; for (const pit of document.querySelectorAll('.pit')) { \
           const r = pit.getBoundingClientRect(); \
           for (const s of ['.letter', '.count']) { const e = pit.querySelector(s).getBoundingClientRect(); \
             if (e.left < r.left - 1 || e.right > r.right + 1 || e.top < r.top - 1 || e.bottom > r.bottom + 1) bad.push(pit.dataset.letter + s); } \
           const t = pit.querySelector('.tag'); const c = pit.querySelector('.count').getBoundingClientRect(); \
           const l = pit.querySelector('.letter').getBoundingClientRect(); \
           if (l.left < c.right && l.right > c.left && l.top < c.bottom && l.bottom > c.top) bad.push(pit.dataset.letter + ' letter under count'); \
           if (t) { const q = t.getBoundingClientRect(); \
             if (q.left < c.right && q.right > c.left && q.top < c.bottom && q.bottom > c.top) bad.push(pit.dataset.letter + ' tag'); } } \
         return bad;",
    );
    assert_eq!(outside, json!([]), "letters, counts or tags out of place");
    p.screenshot(&dir.join("phone-play.png"));
    p.click("#tab-analysis");
    p.wait_idle();
    p.screenshot(&dir.join("phone-analysis.png"));
}

/// A shared link or a loaded record shows its position and plays no move for anyone:
/// the analysis tab, the play tab with North to move and no `side`, a record without
/// players.
#[test]
fn a_link_or_a_record_never_moves_for_anyone_in_chromium() {
    let tb = concat!(env!("CARGO_MANIFEST_DIR"), "/tablebases/abapa");
    let srv = Server::start(&["--puzzles", "0", "--searchers", "1", "--tb", tb]);
    let Some(browser) = browser_or_skip(|| Browser::start(1300, 900)) else {
        return;
    };
    let b = &browser;
    let search = |b: &Browser| {
        js(b, "return location.search;")
            .as_str()
            .unwrap()
            .to_string()
    };
    // The analysis tab on a link whose game has North to move.
    b.goto(&srv.url("/?tab=analysis&moves=FfB&anim=0"));
    b.wait_idle();
    std::thread::sleep(Duration::from_millis(1500));
    b.wait_idle();
    assert!(
        search(b).contains("moves=FfB") && !search(b).contains("moves=FfBc"),
        "{}",
        search(b)
    );
    assert_eq!(
        js(b, "return document.querySelectorAll('#tree .mv').length;"),
        3
    );
    // The tables prove a win here, their bounds on its margin are 1 to 3: the heading must
    // not take an unknown margin as 0 ("win by 1"). The one proven move wins by 2; with
    // the repetition rule's bounds (2026-12-06) the web app's search proves that margin
    // too, and the heading says "win by 2 with best play".
    b.goto(&srv.url("/?tab=analysis&side=N&start=1-0-0-0-0-3-0-0-2-0-0-1-20-21-N&anim=0"));
    b.wait_idle();
    b.wait_for(
        "return !document.querySelector('#tables').classList.contains('hidden');",
        60,
        "the tables panel",
    );
    let t = b.text("#tables");
    assert!(!t.contains("win by 1 with best play"), "{t}");
    assert!(
        t.contains("margin is not proven") || t.contains("win by 2 with best play"),
        "{t}"
    );
    assert!(t.contains("win by 2"), "{t}");
    // The play tab on a position with North to move and no side: you are North.
    b.goto(&srv.url("/?start=4-4-4-4-4-4-4-4-4-4-4-4-0-0-N&anim=0"));
    b.wait_idle();
    std::thread::sleep(Duration::from_millis(1500));
    b.wait_idle();
    assert_eq!(moves_listed(b), 0, "{}", b.text("#status"));
    assert_eq!(js(b, "return document.querySelector('#side').value;"), "N");
    // A record without players, North to move after it.
    b.goto(&srv.url("/?anim=0"));
    b.wait_idle();
    js(b, "document.querySelector('#record-box').open = true;");
    b.exec(
        "document.querySelector('#record').value = arguments[0];",
        json!(["4-4-4-4-4-4-4-4-4-4-4-4-0-0-S;FbAaCeBdCeB"]),
    );
    b.click("#load");
    b.wait_idle();
    std::thread::sleep(Duration::from_millis(1500));
    b.wait_idle();
    assert_eq!(moves_listed(b), 11, "{}", b.text("#status"));
    assert!(
        !b.text("#status").contains("oware play"),
        "{}",
        b.text("#status")
    );
    // A link that names your side still starts the game: oware moves first as South.
    b.goto(&srv.url("/?side=N&anim=0&level=novice"));
    b.wait_idle();
    let t0 = Instant::now();
    while moves_listed(b) == 0 && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(moves_listed(b), 1, "{}", b.text("#status"));
}

/// The study tools on a desktop and on a phone (390 × 844): infinite analysis, its
/// lines live with every legal move listed, on and off; a variation with a mark, a
/// comment and a drawing (a right-drag and a right click on the desktop, taps in drawing
/// mode on the phone), kept through the link and a reload; promote; the position's text
/// and its copy; flip; a study file loaded, written back as it came, and replayed by
/// `oware replay`; the review's grades in the tree, each side's accuracy, the graph beside
/// the board and "learn from the mistakes".
#[test]
fn study_tools_on_a_desktop_and_a_phone_in_chromium() {
    let srv = Server::start(&["--puzzles", "0", "--searchers", "2"]);
    for phone in [false, true] {
        let Some(browser) = browser_or_skip(|| desktop_or_phone(phone)) else {
            return;
        };
        study_tools(&browser, &srv, phone);
    }
}

/// Infinite analysis: ticked, the lines update live with every legal move listed and
/// the simulations grow from one read to the next; it restarts on another position;
/// unticked, the count stops growing and the server's analysis thread is free again.
fn infinite_analysis(b: &Browser, srv: &Server, phone: bool) {
    let sims = |b: &Browser| {
        js(
            b,
            "return Number(document.querySelector('#lines').dataset.sims || 0);",
        )
        .as_u64()
        .unwrap()
    };
    let grows_past = |b: &Browser, n: u64, what: &str| {
        b.wait_for(
            &format!(
                "return document.querySelector('#lines').dataset.fen === \
                        document.querySelector('#board').dataset.fen && \
                        Number(document.querySelector('#lines').dataset.sims || 0) > {n};"
            ),
            60,
            what,
        )
    };
    let all_moves_listed = |b: &Browser| {
        js(
            b,
            "return document.querySelectorAll('#lines li.line').length === \
                    document.querySelectorAll('#board .pit.legal').length;",
        )
    };
    b.click("#engine-infinite");
    grows_past(b, 0, "the first lines of the infinite analysis");
    let first = sims(b);
    grows_past(b, first, "the simulations to grow");
    assert_eq!(all_moves_listed(b), true);
    let stats = b.text("#engine-stats");
    assert!(
        stats.contains("simulations") && stats.contains("/s") && stats.contains("depth"),
        "{stats}"
    );
    assert!(
        b.text("#engine-label").contains("infinite analysis"),
        "{}",
        b.text("#engine-label")
    );
    b.screenshot(&shots().join(if phone {
        "phone-infinite.png"
    } else {
        "infinite.png"
    }));
    if phone {
        let wide = js(b, "return document.documentElement.scrollWidth;");
        assert!(wide.as_u64().unwrap() <= 390, "the page is {wide} px wide");
    }
    // Another position: the analysis starts again there.
    b.click("#prev-ply");
    b.wait_idle();
    grows_past(b, 0, "the infinite analysis of the position before");
    let before = sims(b);
    grows_past(b, before, "the simulations to grow there too");
    assert_eq!(all_moves_listed(b), true);
    // Unticked: one ordinary search (800 simulations), then nothing more.
    b.click("#engine-infinite");
    b.wait_for(
        "return document.querySelector('#lines').dataset.sims === '800';",
        60,
        "the ordinary search after the infinite analysis",
    );
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(sims(b), 800, "the count still grows after unticking");
    assert_eq!(
        js(
            b,
            "return document.querySelector('#engine-stats').classList.contains('hidden');"
        ),
        true
    );
    // The server's one analysis thread is free again: a client of its own is served.
    let a = agent();
    let t0 = Instant::now();
    loop {
        let (status, mut lines) =
            post_stream(&a, &srv.url("/api/v1/infinite"), r#"{"seconds": 1}"#);
        if status == 200 {
            let mut last = Value::Null;
            while let Some(u) = next_json(&mut lines) {
                last = u;
            }
            assert_eq!(last["done"], true, "{last}");
            break;
        }
        assert!(
            status == 503 && t0.elapsed() < Duration::from_secs(5),
            "status {status} {:?} after unticking",
            t0.elapsed()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn study_tools(b: &Browser, srv: &Server, phone: bool) {
    let dir = shots();
    let fen = |b: &Browser| js(b, "return document.querySelector('#board').dataset.fen;");
    let study_param = |b: &Browser| {
        js(
            b,
            "return new URLSearchParams(location.search).get('study') || '';",
        )
        .as_str()
        .unwrap()
        .to_string()
    };
    // A variation at move 3, marked, commented and drawn on.
    b.goto(&srv.url("/?moves=FfBeCa&tab=analysis&anim=0"));
    b.wait_idle();
    assert_eq!(
        study_param(b),
        "",
        "a game alone needs no study in its link"
    );
    infinite_analysis(b, srv, phone);
    b.click("#first-ply");
    b.wait_idle();
    b.click("#next-ply");
    b.click("#next-ply");
    b.wait_idle();
    b.click(".pit[data-letter='C']");
    b.wait_idle();
    assert_eq!(
        js(
            b,
            "return document.querySelectorAll('#tree .var .mv').length;"
        ),
        1
    );
    b.click("#marks .mark[data-mark='!?']");
    b.exec(
        "const c = document.querySelector('#comment'); c.value = arguments[0]; \
         c.dispatchEvent(new Event('input'));",
        json!(["a quieter try"]),
    );
    assert_eq!(b.text("#tree .var .mv.cur"), "3.C!?");
    assert_eq!(b.text("#tree .var .comment"), "a quieter try");
    if phone {
        b.click("#draw-toggle");
        for pit in ["B", "e", "D", "D"] {
            b.click(&format!(".pit[data-letter='{pit}']"));
        }
        b.click("#draw-toggle");
    } else {
        // A right-drag from B to e, and a right click on D.
        b.exec(
            "const at = (l) => { const r = document.querySelector(`.pit[data-letter='${l}']`).getBoundingClientRect(); \
               return { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, button: 2, bubbles: true }; }; \
             const fire = (l, kind) => document.querySelector(`.pit[data-letter='${l}']`).dispatchEvent(new PointerEvent(kind, at(l))); \
             fire('B', 'pointerdown'); fire('e', 'pointerup'); fire('D', 'pointerdown'); fire('D', 'pointerup');",
            json!([]),
        );
    }
    assert_eq!(
        js(
            b,
            "return document.querySelectorAll(\"#shapes line.arrow[data-from='B'][data-to='e']\").length + \
                    document.querySelectorAll(\"#shapes circle.ring[data-pit='D']\").length;"
        ),
        2,
        "the arrow and the circle are not drawn"
    );
    let study = study_param(b);
    assert_eq!(study, "FfB (C!? {a quieter try} [B>e D]) eCa", "{study}");
    // The position's text, its copy, and the board seen from North.
    assert_eq!(
        js(b, "return document.querySelector('#fen').value;"),
        fen(b)
    );
    b.click("#copy-fen");
    b.wait_for(
        "return document.querySelector('#status').textContent.startsWith('Copied');",
        10,
        "the copy",
    );
    assert_eq!(
        js(b, "return document.querySelector('#board').dataset.bottom;"),
        "S"
    );
    b.click("#flip");
    assert_eq!(
        js(b, "return document.querySelector('#board').dataset.bottom;"),
        "N"
    );
    assert_eq!(
        js(
            b,
            "return document.querySelector('#row-bottom .pit').dataset.letter;"
        ),
        "a"
    );
    b.screenshot(&dir.join(if phone {
        "phone-study.png"
    } else {
        "study.png"
    }));
    if phone {
        let wide = js(b, "return document.documentElement.scrollWidth;");
        assert!(wide.as_u64().unwrap() <= 390, "the page is {wide} px wide");
    }
    // A reload keeps the study, the flip and the drawing.
    let here = js(b, "return location.href;");
    b.goto(here.as_str().unwrap());
    b.wait_idle();
    assert_eq!(study_param(b), study);
    assert_eq!(b.text("#tree .mv.cur"), "3.C!?", "the reload's move");
    assert_eq!(
        js(b, "return document.querySelector('#board').dataset.bottom;"),
        "N"
    );
    assert_eq!(b.text("#tree .var .comment"), "a quieter try");
    js(b, "document.querySelector('#tree .var .mv').click();");
    b.wait_idle();
    assert_eq!(
        js(b, "return document.querySelector('#shapes').dataset.n;"),
        "2"
    );
    // Promote: the variation becomes the main line, the old main line a variation.
    b.click("#promote");
    let main: Vec<String> = serde_json::from_value(js(
        b,
        "return [...document.querySelectorAll('#tree > .mv')].map(e => e.textContent);",
    ))
    .unwrap();
    assert_eq!(main, ["1.F", "f", "3.C!?"]);
    assert_eq!(
        study_param(b),
        "Ff C!? {a quieter try} [B>e D] (BeCa)",
        "the old main line is not the variation"
    );

    // A study file: loaded, written back as it came; a broken one is refused.
    js(b, "document.querySelector('#study-box').open = true;");
    let line = "{the opening} F f! {the centre} (e?! {passive} A) B [B>e C] eCa";
    let load = |text: &str| {
        b.exec(
            "document.querySelector('#study-text').value = arguments[0];",
            json!([text]),
        );
        b.click("#study-load");
        b.wait_idle();
    };
    load("# Event: a test\n# Rules: abapa\nFf (Bc\n");
    assert!(
        b.text("#status").contains("not closed"),
        "{}",
        b.text("#status")
    );
    load("FF\n");
    assert!(
        b.text("#status").contains("could not be loaded"),
        "{}",
        b.text("#status")
    );
    load(&format!("# Event: a test\n# Rules: abapa\n{line}\n"));
    let text = js(b, "return document.querySelector('#study-text').value;");
    let text = text.as_str().unwrap();
    assert_eq!(text.lines().last(), Some(line), "{text}");
    assert_eq!(
        js(
            b,
            "return document.querySelectorAll('#tree .comment').length;"
        ),
        3
    );
    // Save file downloads that text (no error said).
    b.click("#study-save");
    assert_eq!(
        js(
            b,
            "return document.querySelector('#status').classList.contains('error');"
        ),
        false
    );
    b.click("#last-ply");
    b.wait_idle();
    // `oware replay` reads the file's main line to the position the board shows.
    let mut replay = std::process::Command::new(env!("CARGO_BIN_EXE_oware"))
        .arg("replay")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    replay
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = replay.wait_with_output().unwrap();
    assert!(out.status.success());
    let out = String::from_utf8(out.stdout).unwrap();
    let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["ply"], 6);
    assert_eq!(last["fen"], fen(b));
    // A failed Load after a good one: said, and the board keeps the study.
    load("FF\n");
    assert!(
        !b.text("#analysis-status").contains("Study loaded"),
        "{}",
        b.text("#analysis-status")
    );
    assert_eq!(
        js(
            b,
            "return document.querySelectorAll('#tree .comment').length;"
        ),
        3
    );

    // The review: grades in the tree, each side's accuracy, the graph beside the board,
    // then the one slip played again.
    let (start, moves) = ("1-1-1-1-2-3-1-1-8-0-0-0-14-15-S", "Ac");
    b.goto(&srv.url(&format!(
        "/?tab=analysis&start={start}&moves={moves}&anim=0"
    )));
    b.wait_idle();
    b.click("#analyze");
    b.wait_idle();
    let body = json!({"fen": start, "moves": moves}).to_string();
    let (_, rv) = serve_support::post(&agent(), &srv.url("/api/v1/analyze"), &body);
    let slip = &rv["plies"][0];
    assert_eq!(slip["grade"], "blunder", "{rv}");
    assert_eq!(b.text("#tree .mv[data-grade='blunder'] .grade-mark"), "??");
    for side in ["S", "N"] {
        let losses: Vec<f64> = rv["plies"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["side"] == side)
            .map(|p| p["loss"].as_f64().unwrap())
            .collect();
        let acc = losses
            .iter()
            .map(|l| (103.1668 * (-0.04354 * 50.0 * l).exp() - 3.1669).clamp(0.0, 100.0))
            .sum::<f64>()
            / losses.len() as f64;
        let shown = js(
            b,
            &format!(
                "return document.querySelector(\"#summary .side-summary[data-side='{side}']\").dataset.accuracy;"
            ),
        );
        let shown: f64 = shown.as_str().unwrap().parse().unwrap();
        assert!((shown - acc).abs() < 0.051, "{side}: {shown} shown, {acc}");
    }
    let summary = b.text("#summary");
    assert!(summary.contains("South: accuracy"), "{summary}");
    assert!(
        !summary.contains("You") && !summary.contains("oware"),
        "{summary}"
    );
    let graph = js(
        b,
        "const g = document.querySelector('#graph'); \
         return [g.getBoundingClientRect().width > 0, g.closest('#board-area') !== null];",
    );
    assert_eq!(graph, json!([true, true]), "the graph is not by the board");
    if !phone {
        // On a wide screen the graph is in view with the board, beside the panel.
        let r = js(
            b,
            "const g = document.querySelector('#graph').getBoundingClientRect(); \
             const p = document.querySelector('#panel').getBoundingClientRect(); \
             return g.bottom <= window.innerHeight && g.right <= p.left;",
        );
        assert_eq!(r, true, "the graph is not beside the board");
    }
    b.click("#learn");
    b.wait_idle();
    let task = b.text("#learn-text");
    assert!(
        task.contains("Position 1 of 1") && task.contains("South played A"),
        "{task}"
    );
    // The answer stays hidden until the user has tried: no pit marked better, no better
    // move in the status line (which says the task), no engine lines, no review table.
    let hidden = |b: &Browser| {
        std::thread::sleep(Duration::from_millis(600));
        let status = b.text("#status");
        assert!(
            status.contains("Find a better move") && !status.contains("better was"),
            "{status}"
        );
        assert_eq!(
            js(
                b,
                "return [document.querySelector('#board .pit.best') === null,                          document.querySelectorAll('#lines li.line').length,                          document.querySelector('#analysis-table').offsetParent === null];"
            ),
            json!([true, 0, true])
        );
    };
    hidden(b);
    assert_eq!(b.text("#learn-show"), "View the solution");
    if phone {
        let seen = js(
            b,
            "const r = document.querySelector('#board').getBoundingClientRect();              return r.top >= 0 && r.bottom <= window.innerHeight;",
        );
        assert_eq!(seen, true, "the board is out of view");
    }
    let state = |b: &Browser| {
        js(
            b,
            "return document.querySelector('#learn-text').dataset.state;",
        )
    };
    b.click(".pit[data-letter='A']");
    b.wait_idle();
    assert_eq!(state(b), "wrong", "{}", b.text("#learn-text"));
    let best = slip["best"].as_str().unwrap();
    b.click(&format!(".pit[data-letter='{best}']"));
    b.wait_idle();
    assert_eq!(state(b), "solved", "{}", b.text("#learn-text"));
    // Found: the engine comes back.
    b.wait_for(
        "return document.querySelectorAll('#lines li.line').length > 0;",
        60,
        "the engine's lines after the move was found",
    );
    b.exec("window.scrollTo(0, 0);", json!([]));
    b.screenshot(&dir.join(if phone {
        "phone-review.png"
    } else {
        "study-review.png"
    }));
    if phone {
        let wide = js(b, "return document.documentElement.scrollWidth;");
        assert!(wide.as_u64().unwrap() <= 390, "the page is {wide} px wide");
    }
}

/// WebDriver's keys: ←, Ctrl, Enter.
const KEY_LEFT: &str = "\u{E012}";
const KEY_CTRL: &str = "\u{E009}";
const KEY_ENTER: &str = "\u{E007}";

/// The `study` the page's address holds now ("" if none).
fn study_in_link(b: &Browser) -> String {
    js(
        b,
        "return new URLSearchParams(location.search).get('study') || '';",
    )
    .as_str()
    .unwrap()
    .to_string()
}

/// Clicks pit `letter` and waits for the page.
fn play(b: &Browser, letter: &str) {
    b.click(&format!(".pit[data-letter='{letter}']"));
    b.wait_idle();
}

/// Types `text` into the comment box as a user does (one input event).
fn comment(b: &Browser, text: &str) {
    b.exec(
        "const c = document.querySelector('#comment'); c.focus(); c.value = arguments[0]; \
         c.dispatchEvent(new Event('input'));",
        json!([text]),
    );
}

/// An arrow from `from` to `to` and a circle on `circle`: a right-drag and a right click
/// on a desktop, taps in drawing mode on a phone.
fn draw(b: &Browser, phone: bool, from: &str, to: &str, circle: &str) {
    if phone {
        b.click("#draw-toggle");
        for pit in [from, to, circle, circle] {
            b.click(&format!(".pit[data-letter='{pit}']"));
        }
        b.click("#draw-toggle");
    } else {
        b.exec(
            "const at = (l) => { const r = document.querySelector(`.pit[data-letter='${l}']`).getBoundingClientRect(); \
               return { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, button: 2, bubbles: true }; }; \
             const fire = (l, kind) => document.querySelector(`.pit[data-letter='${l}']`).dispatchEvent(new PointerEvent(kind, at(l))); \
             fire(arguments[0], 'pointerdown'); fire(arguments[1], 'pointerup'); \
             fire(arguments[2], 'pointerdown'); fire(arguments[2], 'pointerup');",
            json!([from, to, circle]),
        );
    }
}

/// Undo or redo of a study edit: Ctrl+Z / Ctrl+Y on a desktop (with the focus on
/// whatever was clicked last), the buttons on a phone.
fn undo_redo(b: &Browser, phone: bool, redo: bool) {
    if phone {
        b.click(if redo { "#study-redo" } else { "#study-undo" });
    } else {
        b.press(&[KEY_CTRL, if redo { "y" } else { "z" }]);
    }
    b.wait_idle();
}

/// A user's whole study, on a desktop and on a phone: built by clicks (a main line, a
/// variation, marks, comments, an arrow and a circle); a variation deleted and brought
/// back by undo; "Play from here" inside the variation, a move against oware, back to
/// the analysis: the study is whole, with the game as a line; undo and redo of that;
/// the arrow keys after a checkbox; then the link opened in a fresh browser, where
/// everything is found again, on the move the user was on.
#[test]
fn a_users_whole_study_end_to_end_in_chromium() {
    let srv = Server::start(&["--puzzles", "0", "--searchers", "2", "--seed", "3"]);
    for phone in [false, true] {
        let Some(browser) = browser_or_skip(|| desktop_or_phone(phone)) else {
            return;
        };
        let href = whole_study(&browser, &srv, phone);
        drop(browser);
        // The link in a fresh browser (a new profile: nothing kept from the first).
        let Some(fresh) = browser_or_skip(|| desktop_or_phone(phone)) else {
            return;
        };
        study_from_link(&fresh, &href.0, &href.1, &href.2);
    }
}

/// The study built, edited, played from and undone; returns the link, the study it
/// holds and the move the board was on.
fn whole_study(b: &Browser, srv: &Server, phone: bool) -> (String, String, String) {
    let dir = shots();
    let study = "FfBe (a C! {my analysis} [B>e C]) C {main line note}";
    b.goto(&srv.url("/?tab=analysis&anim=0&level=novice"));
    b.wait_idle();
    for m in ["F", "f", "B", "e", "C"] {
        play(b, m);
    }
    comment(b, "main line note");
    b.click("#prev-ply");
    b.click("#prev-ply");
    b.wait_idle();
    play(b, "a");
    play(b, "C");
    b.click("#marks .mark[data-mark='!']");
    comment(b, "my analysis");
    draw(b, phone, "B", "e", "C");
    assert_eq!(study_in_link(b), study);
    b.screenshot(&dir.join(if phone {
        "phone-whole-study.png"
    } else {
        "whole-study.png"
    }));

    // Delete says what it removes; undo brings it all back, redo takes it again.
    b.click("#prev-ply");
    b.wait_idle();
    b.click("#delete-var");
    b.wait_idle();
    let said = b.text("#status");
    assert!(
        said.contains("Deleted 4.a and the 1 move after it")
            && said.contains("1 comment")
            && said.contains("2 drawings"),
        "{said}"
    );
    assert_eq!(study_in_link(b), "FfBe C {main line note}");
    undo_redo(b, phone, false);
    assert_eq!(study_in_link(b), study, "{}", b.text("#status"));
    assert!(
        b.text("#status").starts_with("Undone"),
        "{}",
        b.text("#status")
    );
    undo_redo(b, phone, true);
    assert_eq!(study_in_link(b), "FfBe C {main line note}");
    undo_redo(b, phone, false);
    assert_eq!(study_in_link(b), study);

    // Play from the variation's 5.C: the study stays in the link while the game is
    // played, and comes back whole with the game added as a line.
    js(
        b,
        "[...document.querySelectorAll('#tree .var .mv')].find(e => e.textContent.startsWith('5.C')).click();",
    );
    b.wait_idle();
    b.click("#play-here");
    b.wait_idle();
    assert_eq!(
        js(
            b,
            "return document.querySelector('#tab-play').classList.contains('active');"
        ),
        true
    );
    let mine: String = serde_json::from_value(js(
        b,
        "return document.querySelector('#row-bottom .pit.legal').dataset.letter;",
    ))
    .unwrap();
    play(b, &mine);
    let moves = js(
        b,
        "return new URLSearchParams(location.search).get('moves');",
    );
    let played = moves
        .as_str()
        .unwrap()
        .strip_prefix("FfBaC")
        .unwrap()
        .to_string();
    assert!(played.len() >= 2, "oware did not answer: {moves}");
    assert_eq!(
        study_in_link(b),
        study,
        "the study left the link while playing"
    );
    b.click("#tab-analysis");
    b.wait_idle();
    let with_game = format!("FfBe (a C! {{my analysis}} [B>e C] {played}) C {{main line note}}");
    assert_eq!(study_in_link(b), with_game);
    // The board is where the game ended.
    let end = 5 + played.len();
    assert!(
        b.text("#banner").starts_with(&format!("after move {end}:")),
        "{}",
        b.text("#banner")
    );
    assert!(
        b.text("#analysis-status").contains("is in the study"),
        "{}",
        b.text("#analysis-status")
    );
    // Undo takes the game's line away, and redo brings it back.
    undo_redo(b, phone, false);
    assert_eq!(study_in_link(b), study);
    undo_redo(b, phone, true);
    assert_eq!(study_in_link(b), with_game);

    if phone {
        // The engine's lines and the tree within the first screen with the board.
        b.wait_for(
            "return document.querySelectorAll('#lines li.line').length > 0;",
            60,
            "the engine's lines",
        );
        b.exec("window.scrollTo(0, 0);", json!([]));
        let tops = js(
            b,
            "return ['#board', '#lines', '#tree'].map(s => Math.round(document.querySelector(s).getBoundingClientRect().top));",
        );
        let tops: Vec<i64> = serde_json::from_value(tops).unwrap();
        assert!(
            tops[1] < 844 && tops[2] < 844,
            "board, lines, tree at {tops:?}"
        );
        b.screenshot(&dir.join("phone-study-back.png"));
    } else {
        // The arrow keys move through the game with the focus on a checkbox.
        b.click("#engine-on");
        b.click("#engine-on");
        b.wait_idle();
        b.press(&[KEY_LEFT]);
        b.wait_idle();
        assert!(
            b.text("#banner")
                .starts_with(&format!("after move {}:", end - 1)),
            "← after ticking a checkbox: {}",
            b.text("#banner")
        );
    }
    let href = js(b, "return location.href;").as_str().unwrap().to_string();
    let cur = b.text("#tree .mv.cur");
    (href, with_game, cur)
}

/// The link opened in a fresh browser: the study, its comments, marks and drawings, and
/// the move the board was on.
fn study_from_link(b: &Browser, href: &str, study: &str, cur: &str) {
    b.goto(href);
    b.wait_idle();
    assert_eq!(study_in_link(b), study);
    assert_eq!(b.text("#tree .mv.cur"), cur, "the link's move");
    let comments: Vec<String> = serde_json::from_value(js(
        b,
        "return [...document.querySelectorAll('#tree .comment')].map(e => e.textContent);",
    ))
    .unwrap();
    assert_eq!(comments, ["my analysis", "main line note"]);
    js(
        b,
        "[...document.querySelectorAll('#tree .var .mv')].find(e => e.textContent.startsWith('5.C')).click();",
    );
    b.wait_idle();
    assert_eq!(b.text("#tree .mv.cur"), "5.C!");
    assert_eq!(
        js(b, "return document.querySelector('#shapes').dataset.n;"),
        "2"
    );
}

/// On a desktop and on a phone: a link whose study has an illegal move is refused in
/// words and its text kept; a position typed into the position's box; the endgame
/// trainer judges a move the tables do not prove, never "keep the win"; infinite analysis
/// at the server's time limit stops for that position only.
#[test]
fn links_positions_the_trainer_and_the_analysis_limit_in_chromium() {
    let tb = concat!(env!("CARGO_MANIFEST_DIR"), "/tablebases/abapa");
    let srv = Server::start(&[
        "--puzzles",
        "0",
        "--searchers",
        "2",
        "--tb",
        tb,
        "--analysis-max-seconds",
        "1",
    ]);
    for phone in [false, true] {
        let Some(browser) = browser_or_skip(|| desktop_or_phone(phone)) else {
            return;
        };
        let b = &browser;
        // The link's study plays F twice in a row: refused, said, and kept to correct.
        b.goto(&srv.url("/?tab=analysis&study=FfFF%20%7Bx%7D&anim=0"));
        b.wait_idle();
        assert!(
            b.text("#status").contains("could not be loaded"),
            "{}",
            b.text("#status")
        );
        assert_eq!(
            js(b, "return document.querySelectorAll('#tree .mv').length;"),
            0
        );
        assert_eq!(
            js(b, "return document.querySelector('#study-text').value;"),
            "FfFF {x}"
        );
        // A `}` in a comment stays a `}`, through the link and a reload.
        play(b, "F");
        comment(b, "a } brace");
        assert_eq!(study_in_link(b), r"F {a \} brace}");
        let here = js(b, "return location.href;");
        b.goto(here.as_str().unwrap());
        b.wait_idle();
        assert_eq!(b.text("#tree .comment"), "a } brace");
        // A position typed into the position's box, then Enter.
        let typed = "1-0-1-3-0-0-2-3-1-1-0-0-19-17-S";
        b.type_into("#fen", &format!("{typed}{KEY_ENTER}"));
        b.wait_idle();
        assert_eq!(
            js(b, "return document.querySelector('#board').dataset.fen;"),
            typed,
            "{}",
            b.text("#status")
        );
        trainer_on_an_unproven_move(b, &srv, typed);
        analysis_at_the_limit(b, &srv);
    }
}

/// From `fen`, where the tables prove one move's win and not some others': the trainer
/// says such a move is not proven to keep the win, and never tells the user to keep it.
fn trainer_on_an_unproven_move(b: &Browser, srv: &Server, fen: &str) {
    let body = json!({"fen": fen, "sims": 1}).to_string();
    let (_, answer) = serve_support::post(&agent(), &srv.url("/api/v1/bestmove"), &body);
    let tb = &answer["tablebase"];
    assert_eq!(tb["outcome"], "win", "{answer}");
    let unproven = tb["moves"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, v)| v.is_null())
        .map(|(m, _)| m.clone())
        .unwrap_or_else(|| panic!("every move is proven: {tb}"));
    b.wait_for(
        "return document.querySelector('#trainer-start') !== null;",
        60,
        "the trainer button",
    );
    b.click("#trainer-start");
    b.wait_idle();
    play(b, &unproven);
    let said = b.text("#trainer-text");
    assert!(
        said.contains(&format!("do not prove that {unproven} keeps the win")),
        "{said}"
    );
    assert!(!said.contains("Your move: keep the win"), "{said}");
    b.click("#trainer-stop");
}

/// Infinite analysis with a 1-second limit: it stops at the limit with the box still
/// ticked, and the next position is analysed again up to the limit.
fn analysis_at_the_limit(b: &Browser, srv: &Server) {
    b.goto(&srv.url("/?moves=FfB&tab=analysis&anim=0"));
    b.wait_idle();
    let stopped_here = "return document.querySelector('#lines').dataset.fen === \
                          document.querySelector('#board').dataset.fen && \
                        document.querySelector('#engine-stats').textContent.includes('stopped');";
    b.click("#engine-infinite");
    b.wait_for(stopped_here, 30, "the analysis to stop at the limit");
    let stats = b.text("#engine-stats");
    assert!(!stats.contains("--analysis"), "{stats}");
    assert_eq!(
        js(
            b,
            "return document.querySelector('#engine-infinite').checked;"
        ),
        true
    );
    assert!(
        b.text("#engine-label").contains("up to 1 s a position"),
        "{}",
        b.text("#engine-label")
    );
    b.click("#prev-ply");
    b.wait_idle();
    b.wait_for(
        stopped_here,
        30,
        "the position before analysed to the limit",
    );
    b.click("#engine-infinite");
}

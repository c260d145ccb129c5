//! The Training tab and its API (`GET /api/v1/runs…`, `model` in a search): runs found
//! under `--runs`, damaged and older files read without an error page, paths outside
//! the folder refused; then, in headless Chromium on a desktop and on a phone, a short
//! training run started by the test watched as its charts grow, compared with a finished
//! run, and one of its checkpoints played against. Screenshots in
//! `target/serve-screenshots/`.

mod serve_support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};
use serve_support::webdriver::Browser;
use serve_support::{BIN, Server, agent, browser_or_skip, desktop_or_phone, get, post};

/// A tiny config: a few seconds an iteration on one thread, evaluated every 3.
const TINY: &str = r#"
seed = 5
[model]
width = 16
[search]
simulations = 8
cheap_simulations = 4
[selfplay]
threads = 1
games_per_iteration = 16
games_in_flight = 16
opening_plies = 4
[train]
iterations = 0
time_limit_minutes = 0
batch_size = 32
max_steps_per_iteration = 10
keep_checkpoints = 2
[train.window]
min = 500
max = 5000
[eval]
every = 3
opponent = "random"
games = 4
simulations = 4
gauntlet_games = 2
"#;

fn train_cmd(dir: &Path, run: &Path, limit: &str) -> Command {
    let cfg = dir.join("tiny.toml");
    std::fs::write(&cfg, TINY).unwrap();
    let mut c = Command::new(BIN);
    c.args(["train", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--run-dir")
        .arg(run)
        .args(["--set", limit]);
    c
}

/// A training run in the background, killed when dropped.
struct Training(Child);

impl Drop for Training {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The runs' folder of the API test: a good run, a damaged one, an empty folder, a lone
/// metrics file, and a link to a folder outside.
fn runs_folder(root: &Path, outside: &Path) {
    let good = root.join("lab/good");
    std::fs::create_dir_all(good.join("games")).unwrap();
    std::fs::create_dir_all(good.join("checkpoints/iter-0002")).unwrap();
    std::fs::write(good.join("checkpoints/iter-0002/manifest.json"), "{}").unwrap();
    std::fs::write(good.join("checkpoints/latest"), "iter-0002\n").unwrap();
    std::fs::write(good.join("config.toml"), "[train]\niterations = 2\n").unwrap();
    std::fs::write(
        good.join("metrics.csv"),
        "iteration,wall_seconds,games,policy_loss,eval_opponent,pool_elo\n\
         1,10,16,NaN,,\n2,20,16,1.5,random,120\n",
    )
    .unwrap();
    std::fs::write(good.join("games/iter-0002.txt"), format!("{START};FfBe\n")).unwrap();
    let bad = root.join("lab/damaged");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("metrics.csv"),
        "iteration,games\n1,16\n\u{0}\u{1}zz\n3",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("empty")).unwrap();
    std::fs::write(root.join("arm-metrics.csv"), "iteration,games\n1,4\n").unwrap();
    std::fs::write(outside.join("metrics.csv"), "iteration\n1\n").unwrap();
    std::os::unix::fs::symlink(outside, root.join("away")).unwrap();
}

const START: &str = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S";

#[test]
fn runs_are_listed_read_leniently_and_nothing_outside_is_reached() {
    let d = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = d.path().join("runs");
    runs_folder(&root, outside.path());
    let root_s = root.to_str().unwrap();
    let srv = Server::start(&["--puzzles", "0", "--searchers", "1", "--runs", root_s]);
    let a = agent();
    let (status, list) = get(&a, &srv.url("/api/v1/runs"));
    assert_eq!(status, 200, "{list}");
    let ids: Vec<&str> = list["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["arm-metrics.csv", "lab/damaged", "lab/good"],
        "{list}"
    );
    let run = |id: &str| {
        list["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()
            .clone()
    };
    let good = run("lab/good");
    assert_eq!(good["state"], "finished", "{good}");
    assert_eq!(good["games"], 32.0);
    assert_eq!(run("arm-metrics.csv")["state"], "recorded");
    let damaged = run("lab/damaged");
    assert_eq!(
        (damaged["iteration"].as_f64(), damaged["bad_rows"].as_u64()),
        (Some(1.0), Some(2)),
        "{damaged}"
    );

    // Metrics as columns, from a row on.
    let (_, m) = get(&a, &srv.url("/api/v1/runs/metrics?run=lab%2Fgood&from=1"));
    assert_eq!(
        (m["rows"].as_u64(), m["from"].as_u64()),
        (Some(2), Some(1)),
        "{m}"
    );
    assert_eq!(m["columns"]["policy_loss"], json!([1.5]));
    assert_eq!(m["columns"]["eval_opponent"], json!(["random"]));
    assert_eq!(m["columns"]["total_games"], json!([32.0]));
    let (_, all) = get(&a, &srv.url("/api/v1/runs/metrics?run=lab/good"));
    assert_eq!(all["columns"]["policy_loss"], json!([null, 1.5]));
    let (_, g) = get(&a, &srv.url("/api/v1/runs/games?run=lab%2Fgood&n=5"));
    assert_eq!(g["games"][0]["moves"], "FfBe", "{g}");
    let (_, c) = get(&a, &srv.url("/api/v1/runs/checkpoints?run=lab%2Fgood"));
    assert_eq!(c["checkpoints"][0]["pool_elo"], 120.0, "{c}");

    // Outside the folder: refused, however written; a link is not followed.
    for bad in [
        "..%2Foutside",
        "%2Fetc",
        "lab%2F..%2F..",
        "away",
        "lab%5C..%5Cx",
    ] {
        let (status, e) = get(&a, &srv.url(&format!("/api/v1/runs/metrics?run={bad}")));
        assert!(status == 400 || status == 404, "{bad}: {status} {e}");
        assert!(e["error"].as_str().unwrap().contains("run"), "{e}");
    }
    let (status, e) = get(&a, &srv.url("/api/v1/runs/metrics?run=..%2F..%2Fetc"));
    assert_eq!(status, 400, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("not a path inside"),
        "{e}"
    );
    let (status, _) = get(&a, &srv.url("/api/v1/runs/metrics?run=nope"));
    assert_eq!(status, 404);
    let (status, e) = get(&a, &srv.url("/api/v1/runs/metrics?run=lab%2Fgood&frm=2"));
    assert_eq!(status, 400, "{e}");
    // A checkpoint to search with must be one of a run's.
    for model in [
        "../x/checkpoints/iter-0001",
        "lab/good/checkpoints/../../x",
        "lab/good/checkpoints/iter-0009",
    ] {
        let body = json!({"model": model, "sims": 4}).to_string();
        let (status, e) = post(&a, &srv.url("/api/v1/bestmove"), &body);
        assert_eq!(status, 400, "{model}: {e}");
        assert!(e["error"].as_str().unwrap().starts_with("model"), "{e}");
    }

    // A folder that does not exist is a list with nothing in it, not an error.
    let none = Server::start(&[
        "--puzzles",
        "0",
        "--searchers",
        "1",
        "--runs",
        "/nonexistent/runs",
    ]);
    let (status, l) = get(&a, &none.url("/api/v1/runs"));
    assert_eq!(
        (status, l["exists"].clone(), l["runs"].clone()),
        (200, json!(false), json!([]))
    );
}

/// `oware train --serve 0`: the web app beside the run, its address on stdout, the run
/// in its list as running, and once an iteration is written, the policy accuracy among
/// its metrics and the machine it trains on in its summary.
#[test]
fn train_serves_the_page_of_its_run() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("runs");
    let mut cmd = train_cmd(d.path(), &root.join("tiny"), "train.time_limit_minutes=6");
    let mut child = cmd
        .args(["--serve", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let _run = Training(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    let line = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("oware train --serve printed no address within 60 s");
    let page = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in '{line}'"));
    assert!(
        page.ends_with("/?tab=training&runs=tiny&run=tiny"),
        "{line}"
    );
    let base = &page[..page.find("/?").unwrap()];
    let a = agent();
    let t0 = Instant::now();
    let tiny = loop {
        let (status, list) = get(&a, &format!("{base}/api/v1/runs"));
        assert_eq!(status, 200, "{list}");
        assert_eq!(list["root"], root.to_str().unwrap(), "{list}");
        let found = list["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == "tiny" && r["iteration"].as_f64() >= Some(1.0))
            .cloned();
        if let Some(r) = found {
            break r;
        }
        assert!(t0.elapsed().as_secs() < 120, "no iteration listed: {list}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert_eq!(tiny["state"], "running", "{tiny}");
    let legs = tiny["machines"].as_array().unwrap();
    assert_eq!(legs.len(), 1, "{tiny}");
    assert_eq!(legs[0]["iteration"], 0);
    assert!(legs[0]["logical_cores"].as_u64().unwrap() >= 1, "{tiny}");
    let (_, m) = get(&a, &format!("{base}/api/v1/runs/metrics?run=tiny"));
    let acc = &m["columns"]["policy_accuracy"];
    assert!(acc.as_array().is_some_and(|c| !c.is_empty()), "{m}");
}

fn shots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/serve-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn js(b: &Browser, script: &str) -> Value {
    b.exec(script, json!([]))
}

/// Points drawn on the chart `chart`.
fn points(b: &Browser, chart: &str) -> u64 {
    js(
        b,
        &format!("const e = document.querySelector('[data-chart=\"{chart}\"] .chart-box'); return e ? Number(e.dataset.points || 0) : 0;"),
    )
    .as_u64()
    .unwrap()
}

#[test]
fn a_run_watched_live_compared_and_its_checkpoint_played_in_chromium() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("runs");
    // A finished run to compare with, and to play against.
    let out = train_cmd(d.path(), &root.join("done"), "train.iterations=3")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _live = Training(
        train_cmd(d.path(), &root.join("live"), "train.time_limit_minutes=6")
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let srv = Server::start(&[
        "--puzzles",
        "0",
        "--searchers",
        "1",
        "--runs",
        root.to_str().unwrap(),
    ]);
    for phone in [false, true] {
        let Some(browser) = browser_or_skip(|| desktop_or_phone(phone)) else {
            return;
        };
        watch(&browser, &srv, phone);
    }
}

fn watch(b: &Browser, srv: &Server, phone: bool) {
    let dir = shots();
    let t0 = Instant::now();
    b.goto(&srv.url("/?tab=training&runs=live&run=live&anim=0"));
    b.wait_for(
        "return !!document.querySelector('#runs-table tr[data-run=\"live\"] .st-running');",
        60,
        "the live run listed as running",
    );
    // The charts grow without a reload.
    b.wait_for(
        "const e = document.querySelector('[data-chart=\"policy_loss\"] .chart-box'); return !!e && Number(e.dataset.points) >= 2;",
        120,
        "the live run's policy loss on a chart",
    );
    let first = points(b, "policy_loss");
    js(b, "window.stillHere = true;");
    let polls = js(b, "return Number(document.body.dataset.trainingPolls);");
    b.wait_for(
        &format!("return Number(document.querySelector('[data-chart=\"policy_loss\"] .chart-box').dataset.points) > {first};"),
        120,
        "the chart to grow",
    );
    assert_eq!(
        js(
            b,
            "return performance.getEntriesByType('navigation').length;"
        ),
        1
    );
    assert!(js(b, "return Number(document.body.dataset.trainingPolls);").as_u64() > polls.as_u64());
    // The hover box says the values under the pointer.
    js(
        b,
        "const s = document.querySelector('[data-chart=\"policy_loss\"] svg'); const r = s.getBoundingClientRect(); \
         s.dispatchEvent(new PointerEvent('pointermove', {clientX: r.right - 20, clientY: r.top + r.height / 2, bubbles: true}));",
    );
    let tip = b.text("[data-chart=\"policy_loss\"] .chart-tip");
    assert!(tip.contains("live: "), "{tip}");
    // Drawn again at the next look (every 3 s) and as the run grows, the box stays on the
    // same point.
    let shown = |b: &Browser| {
        js(
            b,
            "const t = document.querySelector('[data-chart=\"policy_loss\"] .chart-tip'); \
             return t.classList.contains('hidden') ? null : t.querySelector('.tip-x').textContent;",
        )
    };
    let at = shown(b);
    assert!(at.is_string(), "no hover box: {tip}");
    let draws = js(
        b,
        "return Number(document.querySelector('[data-chart=\"policy_loss\"] .chart-box').dataset.draws);",
    );
    b.wait_for(
        &format!(
            "return Number(document.querySelector('[data-chart=\"policy_loss\"] .chart-box').dataset.draws) > {} + 1;",
            draws.as_u64().unwrap()
        ),
        30,
        "the chart drawn again twice",
    );
    assert_eq!(
        shown(b),
        at,
        "the hover box moved or hid when the chart was drawn again"
    );

    // The finished run on the same charts, by games played.
    b.click("#runs-table tr[data-run=\"done\"] input[type=checkbox]");
    js(
        b,
        "const s = document.querySelector('#x-axis'); s.value = 'games'; s.dispatchEvent(new Event('change'));",
    );
    b.wait_for(
        "return document.querySelectorAll('#chart-legend .legend-item').length === 2 && \
         document.querySelectorAll('[data-chart=\"policy_loss\"] polyline.chart-line').length === 2;",
        30,
        "two runs on the charts",
    );
    // No axis writes two ticks alike (a learning rate that barely moves, a flat loss).
    let alike = js(
        b,
        "const bad = []; for (const box of document.querySelectorAll('[data-chart]')) { \
           for (const cls of ['tick-y', 'tick-x']) { \
             const t = [...box.querySelectorAll('text.' + cls)].map((e) => e.textContent); \
             if (new Set(t).size !== t.length) bad.push(box.dataset.chart + ': ' + t.join(' | ')); } } \
         return bad;",
    );
    assert_eq!(alike, json!([]), "axes with two ticks alike");
    // And the labels of an axis whose ticks differ in the third digit only, as a
    // learning rate near its peak does (5.0e-4 written three times before).
    js(
        b,
        "window.tickCase = null; import('/chart.js').then((m) => { window.tickCase = \
           [m.tickLabels([0.000496, 0.000498, 0.0005]), m.tickLabels([0.6, 0.602, 0.604]), \
            m.tickLabels([12000, 12010, 12020]), m.tickLabels([0.1, 0.2, 0.3])]; });",
    );
    b.wait_for("return window.tickCase !== null;", 10, "the chart module");
    assert_eq!(
        js(b, "return window.tickCase;"),
        json!([
            ["4.96e-4", "4.98e-4", "5.00e-4"],
            ["0.6", "0.602", "0.604"],
            ["12.00k", "12.01k", "12.02k"],
            ["0.10", "0.20", "0.30"]
        ]),
        "tick labels"
    );
    let link = js(b, "return location.search;");
    assert!(
        link.as_str().unwrap().contains("runs=live%2Cdone"),
        "{link}"
    );
    assert!(
        b.text("[data-chart=\"policy_loss\"] .chart-xlabel")
            .contains("games")
    );
    if phone {
        let wide = js(b, "return document.documentElement.scrollWidth;");
        assert!(wide.as_u64().unwrap() <= 390, "the page is {wide} px wide");
    }
    b.screenshot(&dir.join(if phone {
        "phone-training.png"
    } else {
        "training.png"
    }));

    // The finished run's checkpoint, played against.
    b.click("#runs-table tr[data-run=\"done\"] td.run-id");
    b.wait_for(
        "return document.querySelector('#detail-title').textContent === 'done' && \
         !!document.querySelector('#checkpoints li.checkpoint .play-ck');",
        30,
        "the finished run's checkpoints",
    );
    b.exec("window.scrollTo(0, document.body.scrollHeight);", json!([]));
    if !phone {
        b.screenshot(&dir.join("training-detail.png"));
        // A finished run's list does not change, so the looks that fetch it again (every
        // third) leave its elements alone: the link under the pointer is never swapped.
        let polls = js(
            b,
            "document.querySelector('#checkpoints .play-ck').dataset.seen = 'yes';              return Number(document.body.dataset.trainingPolls);",
        );
        b.wait_for(
            &format!(
                "return Number(document.body.dataset.trainingPolls) >= {} + 4;",
                polls.as_u64().unwrap()
            ),
            40,
            "four more looks",
        );
        assert_eq!(
            js(
                b,
                "return document.querySelector('#checkpoints .play-ck').dataset.seen || null;"
            ),
            json!("yes"),
            "the unchanged checkpoint list was drawn again"
        );
    }
    b.click("#checkpoints li.checkpoint .play-ck");
    b.wait_for(
        "return document.body.dataset.ready === '1';",
        30,
        "the play page",
    );
    b.wait_idle();
    assert!(
        b.text("#model")
            .contains("checkpoint done/checkpoints/iter-0003"),
        "{}",
        b.text("#model")
    );
    b.click(".pit[data-letter='F']");
    b.wait_idle();
    let moves = js(
        b,
        "return document.querySelectorAll('#move-list li').length;",
    );
    assert_eq!(
        moves,
        2,
        "the checkpoint did not answer: {}",
        b.text("#status")
    );
    // A self-play game of the run opens on the analysis board.
    b.goto(&srv.url("/?tab=training&runs=done&run=done&anim=0"));
    b.wait_for(
        "return !!document.querySelector('#latest-games a.open-game');",
        30,
        "the run's games",
    );
    b.click("#latest-games a.open-game");
    b.wait_for(
        "return document.body.dataset.ready === '1';",
        30,
        "the analysis page",
    );
    b.wait_idle();
    assert!(
        js(b, "return document.querySelectorAll('#tree .mv').length;")
            .as_u64()
            .unwrap()
            > 10
    );
    println!(
        "training page ({}): {} s",
        if phone { "phone" } else { "desktop" },
        t0.elapsed().as_secs()
    );
}

//! Every example in a shell block (```` ```sh ````) of README.md and docs/*.md runs as
//! written, after the examples the page gives before it: each page's examples run in
//! order, in a directory of their own that holds the repository's shipped files
//! (`checkpoints/`, `configs/`, `tablebases/`, `experiments/recorded/`, …), with `oware`
//! the binary under test and an empty standard input. Each must exit with status 0 and
//! without a panic.
//!
//! An example too slow for the tests, or one that needs what the tests do not have (a
//! running server, a cluster), is marked on a line of its own just before its block:
//!
//! ```text
//! <!-- skip-example: PREFIX | REASON -->
//! ```
//!
//! which skips the block's commands that begin with PREFIX (`*`: every command of the
//! block) and says why. A marker that matches no command, or gives no reason, fails.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_oware");
/// The longest an example may take here before it must be marked as slow.
const LIMIT_SECONDS: u32 = 60;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One command of a shell block: lines joined where they end in `\`, comments dropped by
/// the shell that runs it.
#[derive(Debug)]
struct Example {
    /// The line of the page it starts on (1-based).
    line: usize,
    command: String,
    /// Why it is not run, if it is marked.
    skip: Option<String>,
}

/// The examples of a page, in order, or what is wrong with its markers.
fn examples(text: &str) -> Result<Vec<Example>, String> {
    let mut out = Vec::new();
    let mut markers: Vec<(usize, String, String)> = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, l)) = lines.next() {
        let t = l.trim();
        if let Some(m) = t
            .strip_prefix("<!-- skip-example:")
            .and_then(|m| m.strip_suffix("-->"))
        {
            let Some((prefix, reason)) = m.split_once('|') else {
                return Err(format!("line {}: expected 'PREFIX | REASON'", i + 1));
            };
            let (prefix, reason) = (prefix.trim(), reason.trim());
            if prefix.is_empty() || reason.is_empty() {
                return Err(format!(
                    "line {}: a marker needs a prefix and a reason",
                    i + 1
                ));
            }
            markers.push((i + 1, prefix.to_string(), reason.to_string()));
            continue;
        }
        let shell = ["```sh", "```bash", "```shell", "```console"];
        if !shell.contains(&t) {
            if !t.is_empty() && !markers.is_empty() {
                return Err(format!(
                    "line {}: a skip-example marker must come just before a shell block",
                    markers[0].0
                ));
            }
            continue;
        }
        // The block's commands.
        let mut block: Vec<Example> = Vec::new();
        let mut pending: Option<Example> = None;
        for (j, l) in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                break;
            }
            let (body, more) = match l.trim_end().strip_suffix('\\') {
                Some(b) => (b, true),
                None => (l.trim_end(), false),
            };
            let e = pending.get_or_insert_with(|| Example {
                line: j + 1,
                command: String::new(),
                skip: None,
            });
            if !e.command.is_empty() {
                e.command.push(' ');
            }
            e.command.push_str(body.trim());
            if !more {
                let e = pending.take().unwrap();
                if !e.command.is_empty() && !e.command.starts_with('#') {
                    block.push(e);
                }
            }
        }
        for (at, prefix, reason) in markers.drain(..) {
            let mut used = false;
            for e in block
                .iter_mut()
                .filter(|e| prefix == "*" || e.command.starts_with(&prefix))
            {
                e.skip = Some(reason.clone());
                used = true;
            }
            if !used {
                return Err(format!(
                    "line {at}: the marker for '{prefix}' matches no command of its block"
                ));
            }
        }
        out.extend(block);
    }
    if let Some((at, ..)) = markers.first() {
        return Err(format!("line {at}: a marker with no shell block after it"));
    }
    Ok(out)
}

/// A directory that looks like the repository to the examples: its top-level entries
/// linked (except `target` and `experiments`), and `experiments/recorded` linked in an
/// `experiments/` of its own, so examples that train write there and not into the
/// repository.
fn workdir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for e in fs::read_dir(root()).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" || name == "experiments" {
            continue;
        }
        std::os::unix::fs::symlink(e.path(), d.path().join(&*name)).unwrap();
    }
    fs::create_dir(d.path().join("experiments")).unwrap();
    std::os::unix::fs::symlink(
        root().join("experiments/recorded"),
        d.path().join("experiments/recorded"),
    )
    .unwrap();
    d
}

/// Runs every example of `page` (relative to the repository) that is not marked; panics
/// with every failure.
fn run_page(page: &str) {
    let text = fs::read_to_string(root().join(page)).unwrap();
    let list = examples(&text).unwrap_or_else(|e| panic!("{page}: {e}"));
    assert!(!list.is_empty(), "{page} has no shell examples");
    let dir = workdir();
    let mut failures = Vec::new();
    let mut ran = 0;
    for e in &list {
        if let Some(why) = &e.skip {
            println!("SKIPPED {page}:{}: {} ({why})", e.line, e.command);
            continue;
        }
        // `oware` as the README says: the built binary.
        let script = format!(
            "oware() {{ \"$OWARE_BIN\" \"$@\"; }}\nset -o pipefail\n{}\n",
            e.command
        );
        let t0 = std::time::Instant::now();
        let out = Command::new("timeout")
            .arg(LIMIT_SECONDS.to_string())
            .args(["bash", "-c", &script])
            .env("OWARE_BIN", BIN)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .expect("bash and timeout (coreutils) run the examples");
        ran += 1;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        if code != Some(0) || stderr.contains("panicked") {
            let why = if code == Some(124) {
                format!("took more than {LIMIT_SECONDS} s: mark it with skip-example")
            } else {
                format!("exit status {code:?}")
            };
            let tail: String = stderr.lines().rev().take(5).collect::<Vec<_>>().join(" / ");
            failures.push(format!(
                "{page}:{}: `{}`: {why}\n  stderr: {tail}\n  stdout starts: {}",
                e.line,
                e.command,
                stdout.chars().take(300).collect::<String>()
            ));
        } else {
            println!(
                "ok {page}:{}: {} ({:.1} s)",
                e.line,
                e.command,
                t0.elapsed().as_secs_f64()
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran > 0, "{page}: every example is skipped");
}

#[test]
fn the_markers_are_read_as_documented() {
    let page = "\
<!-- skip-example: oware train | slow -->
```sh
oware train --config x \\
    --set a=1   # a comment
# a comment line
oware show
```
```sh
oware perft --depth 2
```
";
    let list = examples(page).unwrap();
    let got: Vec<(usize, &str, Option<&str>)> = list
        .iter()
        .map(|e| (e.line, e.command.as_str(), e.skip.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (
                3,
                "oware train --config x --set a=1   # a comment",
                Some("slow")
            ),
            (6, "oware show", None),
            (9, "oware perft --depth 2", None),
        ]
    );
    // A marker must match, give a reason, and sit just before its block.
    assert!(examples("<!-- skip-example: curl | x -->\n```sh\noware show\n```\n").is_err());
    assert!(examples("<!-- skip-example: oware | -->\n```sh\noware show\n```\n").is_err());
    assert!(examples("<!-- skip-example: oware | x -->\ntext\n```sh\noware show\n```\n").is_err());
    assert!(examples("<!-- skip-example: oware | x -->\n").is_err());
}

/// The pages with shell examples; every one has its test below.
const PAGES: [&str; 9] = [
    "README.md",
    "docs/engine-protocol.md",
    "docs/formats.md",
    "docs/http-api.md",
    "docs/notation.md",
    "docs/playing.md",
    "docs/rating.md",
    "docs/tablebase.md",
    "docs/training.md",
];

#[test]
fn every_page_with_shell_examples_is_run() {
    let mut pages = vec![root().join("README.md")];
    for e in fs::read_dir(root().join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            pages.push(p);
        }
    }
    let mut with_examples: Vec<String> = pages
        .iter()
        .filter(|p| {
            !examples(&fs::read_to_string(p).unwrap())
                .unwrap()
                .is_empty()
        })
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    with_examples.sort();
    assert_eq!(with_examples, PAGES);
}

#[test]
fn readme() {
    run_page(PAGES[0]);
}

#[test]
fn engine_protocol() {
    run_page(PAGES[1]);
}

#[test]
fn formats() {
    run_page(PAGES[2]);
}

#[test]
fn http_api() {
    // Every example there needs a running server: the page must still parse, and mark
    // them all.
    let text = fs::read_to_string(root().join(PAGES[3])).unwrap();
    let list = examples(&text).unwrap();
    assert!(list.iter().all(|e| e.skip.is_some()), "{list:?}");
}

#[test]
fn notation() {
    run_page(PAGES[4]);
}

#[test]
fn playing() {
    run_page(PAGES[5]);
}

#[test]
fn rating() {
    run_page(PAGES[6]);
}

#[test]
fn tablebase() {
    run_page(PAGES[7]);
}

#[test]
fn training() {
    run_page(PAGES[8]);
}

/// The ratings the README's "Measured" table gives for the anchor pool are what the
/// command in that row prints (the ratings are recomputed from the recorded games).
#[test]
fn the_readmes_pool_figures_are_what_its_command_prints() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| rating pool of the anchors"))
        .expect("the README's pool row");
    let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
    let (figures, command) = (cells[1], cells[2].trim().trim_matches('`'));
    let dir = workdir();
    let script = format!("oware() {{ \"$OWARE_BIN\" \"$@\"; }}\n{command}\n");
    let out = Command::new("bash")
        .args(["-c", &script])
        .env("OWARE_BIN", BIN)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{command}: {out:?}");
    let table = String::from_utf8(out.stdout).unwrap();
    // The player's line of the table, its rating and interval as the README writes them.
    let line = |player: &str| -> String {
        let l = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(player))
            .unwrap_or_else(|| panic!("no {player} in\n{table}"));
        let w: Vec<&str> = l.split_whitespace().collect();
        format!("{} {} {}", w[1], w[2], w[3])
    };
    let mut checked = 0;
    for (name, player) in [
        ("depth 8 ", "alphabeta:depth=8"),
        ("depth 12 ", "alphabeta:depth=12"),
        ("depth 15 ", "alphabeta:depth=15"),
        ("depth 16 ", "alphabeta:depth=16"),
        ("64 sims/move ", "model:checkpoints/oware-abapa:sims=64"),
    ] {
        let at = figures
            .find(name)
            .unwrap_or_else(|| panic!("no '{name}' in {figures}"));
        let rest = &figures[at + name.len()..];
        let written = &rest[..rest.find(']').unwrap() + 1];
        assert_eq!(written, line(player), "{name}in the README");
        checked += 1;
    }
    assert_eq!(checked, 5);
}

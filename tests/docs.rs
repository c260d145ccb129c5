//! The documentation in `docs/` against the program: every worked example of
//! docs/rules.md replays through `oware show` to the position it states, every link
//! between the texts leads to a file of the repository, no text points outside it, and
//! each `--help` states each default once.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::oware;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The README and every page of docs/.
fn pages() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md")];
    for e in fs::read_dir(root().join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            v.push(p);
        }
    }
    v
}

/// The text between backticks of a table cell, if the cell is one code span.
fn code(cell: &str) -> Option<&str> {
    cell.trim().strip_prefix('`')?.strip_suffix('`')
}

#[test]
fn the_worked_examples_replay_to_the_positions_they_state() {
    let text = fs::read_to_string(root().join("docs/rules.md")).unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').collect();
        // | [example |] rules | position | moves | position after | what happens |
        let spans: Vec<&str> = cells.iter().filter_map(|c| code(c)).collect();
        let [rules, before, moves, after] = spans[..] else {
            continue;
        };
        if before.matches('-').count() != 14 {
            continue;
        }
        let (status, out, err) =
            oware(&["show", "--rules", rules, "--fen", before, "--moves", moves]);
        assert_eq!(status, 0, "{line}: {err}");
        assert!(
            out.contains(&format!("\nposition {after}\n")),
            "{line}\n{out}"
        );
        let what = cells.last().unwrap().trim();
        // Where the table says who wins, `show` says so too, with the same score.
        if let Some(i) = what.find(" wins ") {
            let who = what.split_whitespace().next().unwrap();
            let score = what[i + 6..].split_whitespace().next_back().unwrap();
            assert!(
                out.contains(&format!("{who} wins, {score}"))
                    || out.contains(&format!("{who} reached 25 seeds and wins, {score}")),
                "{line}\n{out}"
            );
        }
        if what.contains("a draw") {
            assert!(out.contains("a draw, 24–24"), "{line}\n{out}");
        }
        checked += 1;
    }
    assert!(checked >= 12, "only {checked} examples found");
}

#[test]
fn every_link_between_the_texts_leads_to_a_file_of_the_repository() {
    for page in pages() {
        let text = fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let target = &rest[..rest.find(')').unwrap()];
            if target.starts_with("http") {
                continue;
            }
            let file = target.split('#').next().unwrap();
            if file.is_empty() {
                continue;
            }
            let p = dir.join(file);
            assert!(
                p.exists(),
                "{}: link to {target}: no {}",
                page.display(),
                p.display()
            );
            assert!(
                p.canonicalize()
                    .unwrap()
                    .starts_with(root().canonicalize().unwrap()),
                "{}: {target} is outside the repository",
                page.display()
            );
        }
    }
}

#[test]
fn no_text_points_to_files_outside_the_repository() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "shared" {
                    walk(&p, out);
                }
            } else if ["md", "rs", "toml"]
                .iter()
                .any(|x| name.ends_with(&format!(".{x}")))
            {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root(), &mut files);
    // Spelled in two halves so this file does not match itself.
    let needle = format!("{}/", "shared");
    // The notes handed to the project live outside it: no text may cite them by name
    // (the repository's own pages are lower-case: docs/rules.md, docs/engine-protocol.md, …).
    let notes: Vec<String> = [
        "RULES",
        "ENGINE-PROTOCOL",
        "STYLE",
        "BURN-NOTES",
        "TRAINING-NOTES",
        "TABLEBASE-NOTES",
    ]
    .iter()
    .map(|n| format!("{n}.{}", "md"))
    .collect();
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        assert!(!text.contains(&needle), "{} mentions {needle}", f.display());
        for n in &notes {
            assert!(
                !text.contains(n.as_str()),
                "{} cites {n}, which is outside the repository",
                f.display()
            );
        }
    }
    assert!(files.len() > 50);
}

/// Every subcommand's name, `bench` ones as `bench NAME`.
fn subcommands() -> Vec<Vec<String>> {
    let list = |args: &[&str]| -> Vec<String> {
        let (_, out, _) = oware(args);
        out.lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .filter(|c| c != "help")
            .collect()
    };
    let mut v = Vec::new();
    for c in list(&["--help"]) {
        if c == "bench" {
            for b in list(&["bench", "--help"]) {
                v.push(vec![c.clone(), b]);
            }
        } else {
            v.push(vec![c]);
        }
    }
    v
}

#[test]
fn each_help_states_each_default_once_and_links_only_to_the_docs() {
    let commands = subcommands();
    assert!(commands.len() >= 19, "{commands:?}");
    for c in &commands {
        let mut args: Vec<&str> = c.iter().map(String::as_str).collect();
        args.push("--help");
        let (code, out, err) = oware(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        // An option's block: its line and the indented lines below it.
        let mut blocks: Vec<String> = Vec::new();
        for l in out.lines() {
            let t = l.trim_start();
            if t.starts_with("--") || (t.starts_with('-') && t.chars().nth(2) == Some(',')) {
                blocks.push(l.to_string());
            } else if let Some(b) = blocks.last_mut()
                && l.starts_with("   ")
            {
                b.push(' ');
                b.push_str(t);
            }
        }
        for b in &blocks {
            let n = b.to_lowercase().matches("default:").count();
            assert!(n <= 1, "{args:?}: the default is given {n} times: {b}");
        }
        // Any page named in the help exists.
        for (i, _) in out.match_indices("docs/") {
            let name: String = out[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || "/-_.".contains(*c))
                .collect();
            let name = name.trim_end_matches('.');
            assert!(root().join(name).exists(), "{args:?} names {name}");
        }
    }
}

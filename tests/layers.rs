//! The house's plan against its code: the rooms of the crates come in the dependency order
//! that `src/README.md` gives (each uses only those above it, a room of a lower crate
//! through that crate's name), inside a room no two files use each other, however
//! indirectly, and the core crate never depends on burn.
//!
//! The check reads the source as text: `crate::ROOM`, `oware_core::ROOM` (and the other
//! crates' names) and `super::FILE` paths outside the unit tests (`#[cfg(test)]` to the end
//! of a file, and `tests.rs` files).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Each crate's name as Rust code writes it and its source directory, in dependency order
/// (the command line's crate, this one, last: its rooms are `crate::` paths).
fn crates() -> Vec<(&'static str, PathBuf)> {
    let r = root();
    vec![
        ("oware_core", r.join("crates/oware-core/src")),
        ("oware_net", r.join("crates/oware-net/src")),
        ("oware_app", r.join("crates/oware-app/src")),
        ("oware_zero", r.join("src")),
    ]
}

/// The crate whose sources hold `path`, and its source directory.
fn crate_of(path: &Path) -> (&'static str, PathBuf) {
    crates()
        .into_iter()
        .find(|(_, dir)| path.starts_with(dir))
        .unwrap_or_else(|| panic!("{}: in no crate's src/", path.display()))
}

/// The rooms in the order `src/README.md` lists them (its `- `name` — …` lines).
fn rooms() -> Vec<String> {
    let text = fs::read_to_string(root().join("src/README.md")).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split_once('`').map(|(name, _)| name.to_string()))
        .collect()
}

/// Every `.rs` file under `dir`, recursively.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's code without its unit tests and comments.
fn product_code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The identifiers that follow `prefix` in `code` (`crate::` → `game`, `net`, …).
fn after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.insert(name);
        }
    }
    found
}

/// The room a file belongs to: its first directory under its crate's `src/`, or its stem.
fn room_of(path: &Path) -> String {
    let rel = path.strip_prefix(crate_of(path).1).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Every `.rs` file of every crate.
fn all_files() -> Vec<PathBuf> {
    let mut all = Vec::new();
    for (_, dir) in crates() {
        files(&dir, &mut all);
    }
    all
}

#[test]
fn every_room_uses_only_the_rooms_above_it() {
    let order = rooms();
    assert!(order.len() >= 10, "src/README.md lists only {order:?}");
    let rank: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, r)| (r.as_str(), i))
        .collect();
    // The crate each room lives in, from where its files are.
    let mut home: BTreeMap<String, &str> = BTreeMap::new();
    let all = all_files();
    for f in &all {
        home.insert(room_of(f), crate_of(f).0);
    }
    let mut bad = Vec::new();
    for f in &all {
        let room = room_of(f);
        let (krate, _) = crate_of(f);
        if room == "lib" || room == "main" || f.ends_with("tests.rs") {
            continue;
        }
        let Some(&mine) = rank.get(room.as_str()) else {
            panic!("{}: room {room} is not in src/README.md", f.display());
        };
        let code = product_code(f);
        for (prefix, _) in crates() {
            let (path, owner) = if krate == prefix {
                ("crate::".to_string(), krate)
            } else {
                (format!("{prefix}::"), prefix)
            };
            for used in after(&code, &path) {
                let at = f.strip_prefix(root()).unwrap().display();
                match rank.get(used.as_str()) {
                    Some(&r) if r > mine => {
                        bad.push(format!("{at} ({room}) uses {path}{used}, a room below it"))
                    }
                    Some(_) if home.get(&used).copied() != Some(owner) => bad.push(format!(
                        "{at} uses {path}{used}, but {used} is not in {owner}"
                    )),
                    Some(_) => {}
                    None => bad.push(format!(
                        "{at} uses {path}{used}, which src/README.md does not list"
                    )),
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The packages `cargo tree` lists for one workspace member (normal and dev edges).
fn tree_of(package: &str) -> String {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let manifest = root().join("Cargo.toml");
    let out = Command::new(cargo)
        .args(["tree", "--offline", "--manifest-path"])
        .arg(&manifest)
        .args(["-p", package, "-e", "normal,dev", "--prefix", "none"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cargo}: {e}"));
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_core_builds_without_burn() {
    let burn = |tree: &str| tree.lines().any(|l| l.starts_with("burn"));
    assert!(
        !burn(&tree_of("oware-core")),
        "oware-core depends on burn:\n{}",
        tree_of("oware-core")
    );
    // The check can fail: the network's crate does depend on it.
    assert!(burn(&tree_of("oware-net")));
}

/// The sibling files of one directory (not `mod.rs`) and, for each, the siblings it
/// names through `super::` or through its room's full path.
fn sibling_uses(dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let rel = dir.strip_prefix(crate_of(dir).1).unwrap();
    let full = format!(
        "crate::{}::",
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("::")
    );
    let mut siblings = BTreeMap::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let module = if p.is_dir() {
            p.join("mod.rs")
        } else if p.extension().is_some_and(|x| x == "rs") {
            p.clone()
        } else {
            continue;
        };
        if stem == "mod" || stem == "tests" || !module.exists() {
            continue;
        }
        let mut code = String::new();
        if p.is_dir() {
            let mut inner = Vec::new();
            files(&p, &mut inner);
            for f in inner.iter().filter(|f| !f.ends_with("tests.rs")) {
                code.push_str(&product_code(f));
            }
        } else {
            code = product_code(&p);
        }
        let mut uses = after(&code, "super::");
        uses.extend(after(&code, &full));
        siblings.insert(stem, uses);
    }
    let names: BTreeSet<String> = siblings.keys().cloned().collect();
    for (name, uses) in siblings.iter_mut() {
        uses.retain(|u| names.contains(u) && u != name);
    }
    siblings
}

/// A cycle in `graph`, if there is one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(1) => {
                let at = path.iter().position(|p| p == n).unwrap();
                let mut c = path[at..].to_vec();
                c.push(n.to_string());
                return Some(c);
            }
            Some(_) => return None,
            None => {}
        }
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_two_files_of_a_room_use_each_other() {
    let mut dirs = vec![];
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.push(p.clone());
                walk(&p, out);
            }
        }
    }
    for (_, dir) in crates() {
        walk(&dir, &mut dirs);
    }
    let mut bad = Vec::new();
    for d in dirs.iter().filter(|d| d.join("mod.rs").exists()) {
        if let Some(c) = cycle(&sibling_uses(d)) {
            bad.push(format!("{}: {}", d.display(), c.join(" → ")));
        }
    }
    assert!(bad.is_empty(), "circles of imports:\n{}", bad.join("\n"));
}

#[test]
fn the_cycle_finder_finds_a_planted_cycle() {
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    let c = cycle(&g).unwrap();
    assert_eq!(c.first(), c.last());
    assert_eq!(c.len(), 4);
    let mut acyclic = g.clone();
    acyclic.get_mut("c").unwrap().clear();
    assert_eq!(cycle(&acyclic), None);
}

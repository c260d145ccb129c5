//! `cargo test --release` reuses what `cargo build --release` compiled: every package of
//! the program's build is resolved with the same features when the dev-dependencies
//! join the build. Where a dev-dependency (criterion, tract-onnx) turned on another
//! feature of a crate burn builds on, cargo compiled burn, gemm and rayon a second time
//! for the tests, under other hashes; Cargo.toml names those features among the normal
//! dependencies (and, for what the dependencies' build scripts use, among the build
//! dependencies).
//!
//! Limit: `cargo tree` shows one feature set for a package that the build scripts and
//! the program share under the same features in one of the two builds only sometimes
//! (it merged `memchr`'s and `libc`'s), so this test catches the program's side (what
//! made burn, gemm and rayon compile twice) and not every difference on the build
//! scripts' side. The complete check compares the two builds' artifacts: after `cargo
//! build --release`, `cargo test --release --no-run --message-format=json` must list
//! every library file `cargo build --release --message-format=json` lists.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Each package (`name vX.Y.Z`) of `cargo tree` over the workspace of `manifest` with
/// the feature sets it is built with (a package built for the host and for the target
/// may appear with two).
fn features_of(manifest: &str, edges: &str) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--manifest-path",
            manifest,
            "-e",
            edges,
            "--prefix",
            "none",
            "-f",
            "{p} {f}",
        ])
        .output()
        .map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let mut map: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let line = line.trim_end_matches(" (*)");
        let words: Vec<&str> = line.split(' ').collect();
        // Package lines are `name vX.Y.Z [(path)] [(proc-macro)] features`; feature
        // lines are `name feature "x"`.
        if words.len() < 2 || !words[1].starts_with('v') {
            continue;
        }
        let feats = words[2..]
            .iter()
            .filter(|w| !w.starts_with('('))
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        map.entry(format!("{} {}", words[0], words[1]))
            .or_default()
            .insert(feats);
    }
    Ok(map)
}

/// [`features_of`] the program's workspace.
fn features(edges: &str) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    features_of(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"), edges)
}

#[test]
fn the_test_build_resolves_the_programs_packages_with_the_same_features() {
    // The program's build (its build scripts' dependencies included), and the tests'.
    let normal = match features("features,normal,build") {
        Ok(m) => m,
        Err(e) => {
            // `cargo tree --offline` needs the dev-dependencies' sources, which `cargo
            // test` itself has just downloaded; only a copied build without them lands here.
            println!("SKIPPED: cargo tree failed: {e}");
            return;
        }
    };
    let with_dev =
        features("features,normal,build,dev").expect("cargo tree with the dev-dependencies");
    assert!(normal.contains_key("burn v0.22.1"), "{normal:?}");
    let mut differ = Vec::new();
    for (package, sets) in &normal {
        let dev = &with_dev[package];
        for f in sets {
            if !dev.contains(f) {
                differ.push(format!(
                    "{package}: built with [{f}], with the dev-dependencies with {dev:?}"
                ));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "the test build would compile these (and all that depends on them) again; name \
         the features in Cargo.toml's [dependencies]:\n{}",
        differ.join("\n")
    );
}

#[test]
fn the_python_package_resolves_the_packages_it_shares_with_the_program_alike() {
    // The Python package (python/, its own workspace) compiles into the same target
    // directory in CI; a package it shares with the program but resolves with other
    // features compiles again, with all that builds on it (numpy's num-complex features
    // once made it compile gemm and burn a second time).
    let program = match features("features,normal,build") {
        Ok(m) => m,
        Err(e) => {
            println!("SKIPPED: cargo tree failed: {e}");
            return;
        }
    };
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/python/Cargo.toml");
    let python = match features_of(manifest, "features,normal,build") {
        Ok(m) => m,
        // Offline, `cargo tree` needs pyo3's and numpy's sources, which only the
        // package's own build downloads; CI (OWARE_REQUIRE_PYTHON_TREE=1) fetches them.
        Err(e) if std::env::var("OWARE_REQUIRE_PYTHON_TREE").as_deref() != Ok("1") => {
            println!("SKIPPED: cargo tree of python/ failed: {e}");
            return;
        }
        Err(e) => panic!("cargo tree of python/: {e}"),
    };
    assert!(python.contains_key("burn v0.22.1"), "{python:?}");
    let differ: Vec<String> = python
        .iter()
        .filter_map(|(package, sets)| {
            let ours = program.get(package)?;
            (sets != ours).then(|| format!("{package}: the package {sets:?}, the program {ours:?}"))
        })
        .collect();
    assert!(
        differ.is_empty(),
        "the Python package's build would compile these (and all that depends on them) \
         again; name the features in crates/oware-net/Cargo.toml:\n{}",
        differ.join("\n")
    );
}

//! The capsule through the binary: a run moved to a new directory goes on exactly where
//! it stopped; a kill while the capsule is rewritten leaves the old one whole; damaged
//! and foreign capsules are refused before anything is written; a checkpoint without
//! optimizer state seeds a run with a fresh optimizer; committed checkpoints list only
//! committed files.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use oware_zero::net::checkpoint::fnv1a64;
use oware_zero::train::capsule;

const OWARE: &str = env!("CARGO_BIN_EXE_oware");

/// A run small enough to do an iteration in well under a second; the window (min 500)
/// is full after the first iteration, so a refill takes one or two.
const TINY: &str = r#"
seed = 5
[model]
width = 16
[search]
simulations = 8
cheap_simulations = 4
[selfplay]
threads = 2
games_per_iteration = 8
games_in_flight = 8
opening_plies = 4
[train]
iterations = 8
time_limit_minutes = 0
batch_size = 32
max_steps_per_iteration = 10
keep_checkpoints = 0
overlap = true
[train.window]
min = 500
max = 5000
[eval]
every = 2
games = 4
opponent = "alphabeta:depth=1"
gauntlet = [1]
gauntlet_games = 2
max_share = 1.0
"#;

fn config(dir: &Path) -> PathBuf {
    let p = dir.join("tiny.toml");
    fs::write(&p, TINY).unwrap();
    p
}

fn oware(args: &[&str]) -> std::process::Output {
    Command::new(OWARE).args(args).output().unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn succeeded(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

/// `metrics.csv`'s column `name`, one value per row.
fn column(run: &Path, name: &str) -> Vec<String> {
    let text = fs::read_to_string(run.join("metrics.csv")).unwrap();
    let mut lines = text.lines();
    let i = lines
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == name)
        .unwrap();
    lines
        .map(|l| l.split(',').nth(i).unwrap().to_string())
        .collect()
}

/// A checkpoint's weights as safetensors bytes.
fn exported(checkpoint: &Path) -> Vec<u8> {
    let out_file = checkpoint.with_extension("safetensors");
    succeeded(&oware(&[
        "export",
        "--format",
        "safetensors",
        "--model",
        path(checkpoint),
        "--out",
        path(&out_file),
    ]));
    fs::read(out_file).unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Every file under `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out.sort();
    out
}

#[test]
fn a_run_stopped_and_moved_in_its_capsule_goes_on_exactly() {
    let d = tempfile::tempdir().unwrap();
    let cfg = config(d.path());
    // The unbroken run, every checkpoint kept.
    let whole = d.path().join("whole");
    succeeded(&oware(&[
        "train",
        "--quiet",
        "--config",
        path(&cfg),
        "--run-dir",
        path(&whole),
    ]));

    // The same run stopped after iteration 2 (the limit is raised again on the new
    // machine; a run bounded by iterations keeps its schedule: --set changes only the
    // limit, and the cosine follows train.iterations, so the stop is a SIGTERM).
    let first = d.path().join("first");
    let cap = d.path().join("capsule");
    let mut child = Command::new(OWARE)
        .args([
            "train",
            "--quiet",
            "--config",
            path(&cfg),
            "--run-dir",
            path(&first),
        ])
        .args(["--capsule", path(&cap)])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !(cap.join("state.json").exists()
        && json(&cap.join("state.json"))["iteration"].as_u64() >= Some(2))
    {
        assert!(t0.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    child.wait().unwrap();
    let m = capsule::check(&cap).unwrap();
    let k = m.iteration;
    assert!((2..8).contains(&k), "capsule of iteration {k}");
    let mark = json(&cap.join("state.json"))["refill"].as_u64().unwrap();
    assert!(mark >= 200, "the window held {mark} samples");
    // The machine of the run's one leg so far travels with it.
    let legs = |run: &Path| -> Vec<serde_json::Value> {
        fs::read_to_string(run.join("machines.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let carried = legs(&cap);
    assert_eq!(carried.len(), 1, "{carried:?}");
    assert_eq!(carried[0]["iteration"], 0);
    let name = format!("iter-{k:04}");
    assert_eq!(m.checkpoint, name);
    // What the capsule carries is the unbroken run's iteration k, bit for bit: the
    // weights (compared as exported: a checkpoint file also holds parameter ids that
    // differ from run to run) and the optimizer moments, seen through what they do: one
    // more iteration started from either checkpoint (its weights and optimizer state)
    // ends with the same weights, and started without the moments it does not.
    let ck = cap.join("checkpoints").join(&name);
    let ck_whole = whole.join("checkpoints").join(&name);
    assert!(exported(&ck) == exported(&ck_whole), "the weights differ");
    let fresh = d.path().join("no-moments");
    copy_dir(&ck, &fresh);
    fs::remove_file(fresh.join("optimizer.bpk")).unwrap();
    let mut mf = json(&fresh.join("manifest.json"));
    mf["files"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f["name"] != "optimizer.bpk");
    fs::write(fresh.join("manifest.json"), mf.to_string()).unwrap();
    let one_more = |from: &Path, tag: &str| {
        let run = d.path().join(tag);
        let init = format!("train.init_from={}", from.display());
        succeeded(&oware(&[
            "train",
            "--quiet",
            "--config",
            path(&cfg),
            "--run-dir",
            path(&run),
            "--set",
            "train.iterations=1",
            "--set",
            "train.overlap=false",
            "--set",
            &init,
        ]));
        exported(&run.join("checkpoints/iter-0001"))
    };
    let (a, b, c) = (
        one_more(&ck, "x"),
        one_more(&ck_whole, "y"),
        one_more(&fresh, "z"),
    );
    assert!(
        a == b,
        "the optimizer moments differ from the unbroken run's"
    );
    assert!(
        a != c,
        "the optimizer moments make no difference: the check sees nothing"
    );
    let step = json(&cap.join("checkpoints").join(&name).join("manifest.json"))["step"].clone();
    assert_eq!(
        step,
        json(&whole.join("checkpoints").join(&name).join("manifest.json"))["step"]
    );
    // No sample chunk, game record or older checkpoint travels.
    let files = listing(&cap);
    assert!(
        !files
            .iter()
            .any(|f| f.starts_with("samples") || f.starts_with("games")),
        "{files:?}"
    );
    assert!(
        !files
            .iter()
            .any(|f| f.starts_with("checkpoints/iter-") && !f.contains(&name))
    );

    // On "another machine": a copy in a new directory, resumed with its own config.
    let moved = d.path().join("moved");
    copy_dir(&cap, &moved);
    // The window refilled before the steps resume (train.refill_fraction = 1, set where
    // the run resumes; the default, 0, trains at once).
    let err = succeeded(&oware(&[
        "train",
        "--no-progress",
        "--resume",
        "--run-dir",
        path(&moved),
        "--set",
        "train.refill_fraction=1",
    ]));
    assert!(err.contains("unpacked a capsule of iteration"), "{err}");
    assert!(err.contains("refills"), "{err}");
    assert!(!moved.join(capsule::CAPSULE_FILE).exists());
    // Where it resumed, its leg follows the first: the run keeps its history.
    let moved_legs = legs(&moved);
    assert_eq!(moved_legs.len(), 2, "{moved_legs:?}");
    assert_eq!(moved_legs[0], carried[0]);
    assert_eq!(moved_legs[1]["iteration"], k);
    assert!(moved_legs[1]["run_seconds"].as_f64().unwrap() > 0.0);
    assert!(moved_legs[1]["logical_cores"].as_u64().unwrap() >= 1);
    let s = json(&moved.join("state.json"));
    assert_eq!(s["iteration"], 8);
    assert_eq!(s["refill"], 0);
    // The rows before the move are the unbroken run's; the learning rate goes on as its
    // schedule says; the first iteration after the move takes no step (the window is
    // refilled first) and the step count goes on from the capsule's.
    let (lr_w, lr_m) = (
        column(&whole, "learning_rate"),
        column(&moved, "learning_rate"),
    );
    assert_eq!(lr_w, lr_m);
    let (steps_w, steps_m) = (column(&whole, "train_steps"), column(&moved, "train_steps"));
    assert_eq!(steps_w[..k as usize], steps_m[..k as usize]);
    // Learning beside self-play, iteration i trains on the window iteration i − 1 left:
    // none just after the move (the window is empty), then steps exactly once it holds
    // the samples it held before the move again.
    let window: Vec<u64> = column(&moved, "window")
        .iter()
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(steps_m[k as usize], "0", "{steps_m:?}");
    for i in k as usize + 1..8 {
        let refilled = window[i - 1] >= mark;
        assert_eq!(
            steps_m[i] != "0",
            refilled,
            "iteration {}: {steps_m:?} {window:?}",
            i + 1
        );
    }
    assert!(
        steps_m[7] != "0",
        "the window was never refilled: {window:?}"
    );
    let total: u64 = steps_m.iter().map(|s| s.parse::<u64>().unwrap()).sum();
    let last = json(&moved.join("checkpoints/iter-0008/manifest.json"));
    assert_eq!(last["step"].as_u64().unwrap(), total);
    assert!(total > step.as_u64().unwrap());
    // With the default rule the steps go on from the first iteration that has samples
    // (beside self-play, the second after the move).
    let at_once = d.path().join("at-once");
    copy_dir(&cap, &at_once);
    let err = succeeded(&oware(&[
        "train",
        "--no-progress",
        "--resume",
        "--run-dir",
        path(&at_once),
    ]));
    assert!(err.contains("gradient steps go on at once"), "{err}");
    let steps_0 = column(&at_once, "train_steps");
    assert_eq!(steps_0[k as usize], "0", "{steps_0:?}");
    assert!(steps_0[k as usize + 1] != "0", "{steps_0:?}");
    assert_eq!(json(&at_once.join("state.json"))["refill"], 0);
    // The resumed run's evaluations still write the pool carried over.
    let pool = fs::read_to_string(moved.join("pool.jsonl")).unwrap();
    assert!(
        pool.contains("iter-0002") && pool.contains("iter-0004"),
        "{pool}"
    );
}

#[test]
fn a_kill_while_the_capsule_is_rewritten_leaves_the_old_one_whole() {
    let d = tempfile::tempdir().unwrap();
    let cfg = config(d.path());
    let run = d.path().join("run");
    let cap = d.path().join("capsule");
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut checked = 0;
    for _ in 0..12 {
        let mut child = Command::new(OWARE)
            .args([
                "train",
                "--quiet",
                "--config",
                path(&cfg),
                "--run-dir",
                path(&run),
            ])
            .args(["--capsule", path(&cap), "--set", "train.iterations=1000"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        std::thread::sleep(Duration::from_millis(300 + rng % 700));
        child.kill().unwrap();
        child.wait().unwrap();
        if cap.exists() {
            let m = capsule::check(&cap).unwrap_or_else(|e| panic!("{e:#}"));
            assert_eq!(json(&cap.join("state.json"))["iteration"], m.iteration);
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} kills found a capsule");
    // A copy of the last one still resumes.
    let moved = d.path().join("moved");
    copy_dir(&cap, &moved);
    let it = json(&cap.join("state.json"))["iteration"].as_u64().unwrap();
    let limit = format!("train.iterations={}", it + 1);
    succeeded(&oware(&[
        "train",
        "--quiet",
        "--resume",
        "--run-dir",
        path(&moved),
        "--set",
        &limit,
    ]));
    assert_eq!(
        json(&moved.join("state.json"))["iteration"]
            .as_u64()
            .unwrap(),
        it + 1
    );
}

/// Rewrites `capsule.json`'s entry for `rel` after the file was changed on purpose.
fn rehash(cap: &Path, rel: &str) {
    let bytes = fs::read(cap.join(rel)).unwrap();
    let mut m = json(&cap.join(capsule::CAPSULE_FILE));
    for f in m["files"].as_array_mut().unwrap() {
        if f["name"] == rel {
            f["bytes"] = bytes.len().into();
            f["fnv1a64"] = format!("{:016x}", fnv1a64(&bytes)).into();
        }
    }
    fs::write(cap.join(capsule::CAPSULE_FILE), m.to_string()).unwrap();
}

#[test]
fn damaged_and_foreign_capsules_are_refused_before_anything_is_written() {
    let d = tempfile::tempdir().unwrap();
    let cfg = config(d.path());
    let cap = d.path().join("capsule");
    let run = d.path().join("run");
    succeeded(&oware(&[
        "train",
        "--quiet",
        "--config",
        path(&cfg),
        "--run-dir",
        path(&run),
        "--capsule",
        path(&cap),
        "--set",
        "train.iterations=2",
    ]));
    type Spoil = fn(&Path);
    let cases: [(&str, Spoil); 6] = [
        ("truncated", |c| {
            let p = c.join("checkpoints/iter-0002/optimizer.bpk");
            let b = fs::read(&p).unwrap();
            fs::write(&p, &b[..b.len() / 2]).unwrap();
        }),
        ("is missing", |c| {
            fs::remove_file(c.join("metrics.csv.gz")).unwrap()
        }),
        ("corrupted", |c| {
            let p = c.join("state.json");
            let t = fs::read_to_string(&p)
                .unwrap()
                .replace("\"iteration\": 2", "\"iteration\": 7");
            fs::write(&p, t).unwrap();
        }),
        ("format 2", |c| {
            let p = c.join(capsule::CAPSULE_FILE);
            let t = fs::read_to_string(&p)
                .unwrap()
                .replace("\"format\": 1", "\"format\": 2");
            fs::write(&p, t).unwrap();
        }),
        ("foreign", |c| {
            let p = c.join("config.toml");
            let t = fs::read_to_string(&p)
                .unwrap()
                .replace("rules = \"abapa\"", "rules = \"awari\"");
            fs::write(&p, t).unwrap();
            rehash(c, "config.toml");
        }),
        ("foreign", |c| {
            let p = c.join("config.toml");
            let t = fs::read_to_string(&p)
                .unwrap()
                .replace("encoding = \"onehot\"", "encoding = \"counts\"");
            fs::write(&p, t).unwrap();
            rehash(c, "config.toml");
        }),
    ];
    for (i, (needle, spoil)) in cases.into_iter().enumerate() {
        let bad = d.path().join(format!("bad{i}"));
        copy_dir(&cap, &bad);
        spoil(&bad);
        let before = listing(&bad);
        let out = oware(&["train", "--resume", "--run-dir", path(&bad)]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "case {i}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "case {i}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(listing(&bad), before, "case {i} wrote into the capsule");
    }
}

#[test]
fn a_checkpoint_without_optimizer_state_seeds_a_run_with_a_fresh_optimizer() {
    let d = tempfile::tempdir().unwrap();
    let cfg = config(d.path());
    let run = d.path().join("run");
    succeeded(&oware(&[
        "train",
        "--quiet",
        "--config",
        path(&cfg),
        "--run-dir",
        path(&run),
        "--set",
        "train.iterations=1",
    ]));
    // The checkpoint as a record keeps it: weights and manifest, no optimizer file.
    let ck = d.path().join("recorded");
    copy_dir(&run.join("checkpoints/iter-0001"), &ck);
    fs::remove_file(ck.join("optimizer.bpk")).unwrap();
    let mut m = json(&ck.join("manifest.json"));
    m["files"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f["name"] != "optimizer.bpk");
    fs::write(ck.join("manifest.json"), m.to_string()).unwrap();
    let from = format!("train.init_from={}", ck.display());
    let err = succeeded(&oware(&[
        "train",
        "--no-progress",
        "--config",
        path(&cfg),
        "--run-dir",
        path(&d.path().join("seeded")),
        "--set",
        "train.iterations=1",
        "--set",
        &from,
    ]));
    assert!(err.contains("its optimizer starting fresh"), "{err}");
    // With the optimizer state, the log says so.
    let from = format!("train.init_from={}", run.display());
    let err = succeeded(&oware(&[
        "train",
        "--no-progress",
        "--config",
        path(&cfg),
        "--run-dir",
        path(&d.path().join("seeded2")),
        "--set",
        "train.iterations=1",
        "--set",
        &from,
    ]));
    assert!(err.contains("with its optimizer state"), "{err}");
}

#[test]
fn committed_checkpoints_list_only_committed_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("git")
        .args(["ls-files", "*manifest.json"])
        .current_dir(root)
        .output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else {
        return; // not a git checkout: nothing committed to compare
    };
    let mut seen = 0;
    for rel in String::from_utf8_lossy(&out.stdout).lines() {
        let m = json(&root.join(rel));
        if m["format"] != "oware-zero-checkpoint" {
            continue;
        }
        seen += 1;
        let dir = root.join(rel).parent().unwrap().to_path_buf();
        for f in m["files"].as_array().unwrap() {
            let name = f["name"].as_str().unwrap();
            let file = dir.join(name);
            let tracked = Command::new("git")
                .args(["ls-files", "--error-unmatch"])
                .arg(&file)
                .current_dir(root)
                .output()
                .unwrap();
            assert!(
                tracked.status.success(),
                "{rel} lists {name}, which is not committed"
            );
        }
    }
    assert!(seen >= 3, "{seen} checkpoints found");
}

/// The long run's capsule after its first leg (`experiments/recorded/long-1204/capsule`),
/// written by a trainer that still had keys removed since: a copy of it resumes (checked,
/// unpacked, its config and checkpoint loaded), so the run's next leg goes on from it.
#[test]
fn the_recorded_long_run_capsule_still_resumes() {
    let recorded =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/recorded/long-1204/capsule");
    let d = tempfile::tempdir().unwrap();
    let copy = d.path().join("leg");
    copy_dir(&recorded, &copy);
    let iteration = json(&copy.join("state.json"))["iteration"]
        .as_u64()
        .unwrap();
    // No iteration past the capsule's own: everything up to the first self-play runs.
    let limit = format!("train.iterations={iteration}");
    let err = succeeded(&oware(&[
        "train",
        "--resume",
        "--no-progress",
        "--run-dir",
        path(&copy),
        "--set",
        &limit,
    ]));
    assert!(err.contains("unpacked a capsule of iteration"), "{err}");
    assert!(!copy.join("capsule.json").exists(), "{err}");
    assert_eq!(json(&copy.join("state.json"))["iteration"], iteration);
}

/// A copy of a capsule of a run that ended at its time limit, resumed: the log says the
/// limit is reached and how to extend it, and nothing about gradient steps going on;
/// `--set` of another key says which keys a resumed run takes, with no word of a
/// `--config` that was never given.
#[test]
fn resuming_at_the_limit_or_with_another_key_says_what_to_do() {
    let d = tempfile::tempdir().unwrap();
    let cfg = config(d.path());
    let (run, cap) = (d.path().join("run"), d.path().join("cap"));
    succeeded(&oware(&[
        "train",
        "--quiet",
        "--config",
        path(&cfg),
        "--run-dir",
        path(&run),
        "--capsule",
        path(&cap),
        "--set",
        "train.iterations=1",
    ]));
    let copy = d.path().join("copy");
    copy_dir(&cap, &copy);
    let resume = |extra: &[&str]| {
        let mut args = vec![
            "train",
            "--no-progress",
            "--resume",
            "--run-dir",
            path(&copy),
        ];
        args.extend_from_slice(extra);
        oware(&args)
    };
    // Resumed under a time limit its one iteration already passed (a run that ended at
    // its time limit).
    let err = succeeded(&resume(&[
        "--set",
        "train.time_limit_minutes=0.0001",
        "--set",
        "train.iterations=0",
    ]));
    assert!(
        err.contains("already reached its time limit")
            && err.contains("--set train.time_limit_minutes="),
        "{err}"
    );
    assert!(!err.contains("gradient steps"), "{err}");
    assert_eq!(json(&copy.join("state.json"))["iteration"], 1);
    // Another key on resume: refused in one line that names the keys that may change.
    let out = resume(&["--set", "train.batch_size=256"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("train.batch_size")
            && err.contains("train.time_limit_minutes")
            && err.contains("train.refill_fraction"),
        "{err}"
    );
    assert!(!err.contains("--config"), "{err}");
}

//! `oware train` through the binary: a tiny run, kill -9 and resume, an extra self-play
//! worker, a trainer fed only by workers, determinism, and config errors.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const OWARE: &str = env!("CARGO_BIN_EXE_oware");

/// A run small enough to do an iteration in well under a second. Its phases take turns
/// (`overlap = false`; the default overlaps them), so every iteration trains on its own
/// games, which the tests below count on.
const TINY: &str = r#"
seed = 3
[model]
encoding = "onehot"
width = 16
blocks = 1
[search]
algorithm = "gumbel"
simulations = 8
cheap_simulations = 4
[selfplay]
threads = 2
games_per_iteration = 8
games_in_flight = 8
opening_plies = 4
[train]
iterations = 4
time_limit_minutes = 0
batch_size = 32
max_steps_per_iteration = 10
keep_checkpoints = 3
overlap = false
[train.window]
min = 500
max = 5000
exponent = 0.65
[eval]
every = 0
"#;

fn write_config(dir: &Path, text: &str) -> std::path::PathBuf {
    let p = dir.join("tiny.toml");
    fs::write(&p, text).unwrap();
    p
}

fn train(config: &Path, run: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(OWARE)
        .args(["train", "--quiet", "--config"])
        .arg(config)
        .arg("--run-dir")
        .arg(run)
        .args(extra)
        .output()
        .unwrap()
}

fn state(run: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(run.join("state.json")).unwrap()).unwrap()
}

/// Fails the test with the command's stderr unless it succeeded.
fn succeeded(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Waits until the run has committed `n` iterations (two minutes at most).
fn wait_for_iteration(run: &Path, n: u64) {
    let t0 = Instant::now();
    while !(run.join("state.json").exists() && state(run)["iteration"].as_u64().unwrap_or(0) >= n) {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "training made no progress"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The iteration numbers of a run's metrics.csv rows, in file order.
fn metric_iterations(run: &Path) -> Vec<u64> {
    fs::read_to_string(run.join("metrics.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect()
}

/// Sends SIGTERM to `child` (started by this test), checks it stops within `secs`
/// seconds with exit code 128 + 15, and returns what it wrote to stderr.
fn sigterm_and_wait(child: &mut std::process::Child, secs: u64) -> String {
    // SAFETY: sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let t1 = Instant::now();
    let status = child.wait().unwrap();
    assert!(t1.elapsed() < Duration::from_secs(secs), "slow to stop");
    assert_eq!(status.code(), Some(143));
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    err
}

fn no_temp_files(dir: &Path) {
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        assert!(
            !name.contains(".tmp"),
            "temporary file left: {}",
            e.path().display()
        );
        if e.path().is_dir() {
            no_temp_files(&e.path());
        }
    }
}

#[test]
fn tiny_run_writes_everything() {
    let d = tempfile::tempdir().unwrap();
    let cfg = write_config(d.path(), TINY);
    let run = d.path().join("run");
    let evaluation = [
        "--set",
        "eval.every=2",
        "--set",
        "eval.opponent=random",
        "--set",
        "eval.games=4",
        "--set",
        "eval.simulations=4",
    ];
    let out = train(&cfg, &run, &evaluation);
    succeeded(&out);
    let s = state(&run);
    assert_eq!(s["iteration"], 4);
    assert_eq!(s["checkpoint"], "iter-0004");
    assert_eq!(
        fs::read_to_string(run.join("checkpoints/latest"))
            .unwrap()
            .trim(),
        "iter-0004"
    );
    // keep_checkpoints = 3.
    let mut kept: Vec<String> = fs::read_dir(run.join("checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("iter-"))
        .collect();
    kept.sort();
    assert_eq!(kept, ["iter-0002", "iter-0003", "iter-0004"]);
    let metrics = fs::read_to_string(run.join("metrics.csv")).unwrap();
    assert_eq!(metrics.lines().count(), 5, "{metrics}");
    // Evaluated at iterations 2 and 4 only: the opponent column is filled there.
    let evaluated: Vec<bool> = metrics
        .lines()
        .skip(1)
        .map(|l| l.contains(",random,"))
        .collect();
    assert_eq!(evaluated, [false, true, false, true], "{metrics}");
    // The evaluations are a gauntlet into the run's pool: 4 games against the baseline at
    // iteration 2; at 4, 4 more and 20 (eval.gauntlet_games) against iter-0002.
    let pool = fs::read_to_string(run.join("pool.jsonl")).unwrap();
    assert_eq!(pool.lines().count(), 4 + 4 + 20, "{pool}");
    assert!(pool.contains("\"iter-0002\"") && pool.contains("\"iter-0004\""));
    let header: Vec<&str> = metrics.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|c| *c == "pool_elo").unwrap();
    let last: Vec<&str> = metrics.lines().last().unwrap().split(',').collect();
    assert!(last[col].parse::<f64>().is_ok(), "{metrics}");
    assert!(run.join("learning-curves.png").exists());
    assert!(run.join("config.toml").exists());
    // The recorded games replay.
    let games = fs::read_to_string(run.join("games/iter-0001.txt")).unwrap();
    assert_eq!(games.lines().count(), 8);
    let mut replay = Command::new(OWARE)
        .arg("replay")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    replay
        .stdin
        .take()
        .unwrap()
        .write_all(games.as_bytes())
        .unwrap();
    let out = replay.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("\"error\""));
    assert_eq!(text.matches("\"over\":true").count(), 8);
    no_temp_files(&run);
    // The run's latest checkpoint answers `oware infer`.
    let out = Command::new(OWARE)
        .args(["infer", "--json", "--model"])
        .arg(&run)
        .output()
        .unwrap();
    succeeded(&out);
}

#[test]
fn same_seed_same_games() {
    let d = tempfile::tempdir().unwrap();
    let cfg = write_config(d.path(), &TINY.replace("iterations = 4", "iterations = 2"));
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    assert!(train(&cfg, &a, &[]).status.success());
    assert!(train(&cfg, &b, &[]).status.success());
    for f in [
        "games/iter-0001.txt",
        "games/iter-0002.txt",
        "samples/main-iter-0002.bin",
    ] {
        assert_eq!(
            fs::read(a.join(f)).unwrap(),
            fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    // Self-play's evaluation caches (one per thread, on by default) leave these games as
    // they were: a hit gives what the network gave for that position (in another batch,
    // so the last bits of a value may differ, but not the moves here).
    let e = d.path().join("e");
    assert!(
        train(&cfg, &e, &["--set", "selfplay.cache_mb=0"])
            .status
            .success()
    );
    for name in ["games/iter-0001.txt", "games/iter-0002.txt"] {
        let cached = fs::read(a.join(name)).unwrap();
        assert_eq!(cached, fs::read(e.join(name)).unwrap(), "{name}");
    }
    let rows = fs::read_to_string(a.join("metrics.csv")).unwrap();
    assert!(
        rows.lines()
            .next()
            .unwrap()
            .split(",")
            .any(|c| c == "cache_hit_rate"),
        "{rows}"
    );
    let c = d.path().join("c");
    assert!(train(&cfg, &c, &["--set", "seed=4"]).status.success());
    assert_ne!(
        fs::read(a.join("games/iter-0001.txt")).unwrap(),
        fs::read(c.join("games/iter-0001.txt")).unwrap()
    );
}

#[test]
fn killed_run_resumes_without_damage() {
    let d = tempfile::tempdir().unwrap();
    let cfg = write_config(
        d.path(),
        &TINY
            .replace("iterations = 4", "iterations = 0")
            .replace("time_limit_minutes = 0", "time_limit_minutes = 5"),
    );
    let run = d.path().join("run");
    let mut child = Command::new(OWARE)
        .args(["train", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--run-dir")
        .arg(&run)
        .spawn()
        .unwrap();
    // Kill it at some moment after two iterations were committed (mid-iteration).
    wait_for_iteration(&run, 2);
    std::thread::sleep(Duration::from_millis(150));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let killed_at = state(&run)["iteration"].as_u64().unwrap();
    // Resume with the same command, now bounded by iterations.
    let out = train(
        &cfg,
        &run,
        &["--set", &format!("train.iterations={}", killed_at + 2)],
    );
    succeeded(&out);
    let s = state(&run);
    assert_eq!(s["iteration"].as_u64().unwrap(), killed_at + 2);
    // One metrics row per iteration, in order, none lost or doubled.
    let rows = metric_iterations(&run);
    assert_eq!(rows, (1..=killed_at + 2).collect::<Vec<_>>());
    no_temp_files(&run);
    // Every kept checkpoint loads.
    for e in fs::read_dir(run.join("checkpoints")).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            let out = Command::new(OWARE)
                .arg("infer")
                .arg("--model")
                .arg(&p)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}: {}",
                p.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn extra_selfplay_worker_feeds_the_trainer() {
    let d = tempfile::tempdir().unwrap();
    let cfg = write_config(d.path(), &TINY.replace("iterations = 4", "iterations = 1"));
    let run = d.path().join("run");
    assert!(train(&cfg, &run, &[]).status.success());
    let worker = |name: &str| {
        let out = Command::new(OWARE)
            .args(["selfplay", "--batches", "1", "--worker", name, "--run-dir"])
            .arg(&run)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // A worker plays one batch with the run's newest network; the trainer's next
    // iteration takes its chunk into the window.
    worker("w1");
    let first = fs::read(run.join("samples/worker-w1-00001.bin")).unwrap();
    let out = train(&cfg, &run, &["--set", "train.iterations=2"]);
    succeeded(&out);
    let names = |key: &str| -> Vec<String> {
        state(&run)[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    assert!(names("consumed").contains(&"worker-w1-00001.bin".to_string()));
    assert!(names("window").contains(&"worker-w1-00001.bin".to_string()));
    // The same worker restarted (as after a crash) continues after its last chunk, with
    // other games; nothing it wrote before is overwritten, and the trainer uses the new
    // games too.
    worker("w1");
    assert_eq!(
        fs::read(run.join("samples/worker-w1-00001.bin")).unwrap(),
        first
    );
    let second = fs::read(run.join("samples/worker-w1-00002.bin")).unwrap();
    assert_ne!(first, second);
    // Even without its counter file (a run from before it existed), it numbers after
    // its chunks on disk and those the trainer recorded.
    fs::remove_file(run.join("workers/w1.next")).unwrap();
    worker("w1");
    assert!(run.join("samples/worker-w1-00003.bin").exists());
    let out = train(&cfg, &run, &["--set", "train.iterations=3"]);
    succeeded(&out);
    for n in ["worker-w1-00002.bin", "worker-w1-00003.bin"] {
        assert!(names("consumed").contains(&n.to_string()), "{n}");
        assert!(names("window").contains(&n.to_string()), "{n}");
    }
}

#[test]
fn a_trainer_without_selfplay_learns_from_the_workers_chunks_as_they_arrive() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    // Without self-play of its own, the trainer must be told to wait for samples.
    let bad = write_config(
        d.path(),
        &TINY.replace("[train]\n", "[train]\nlocal_selfplay = false\n"),
    );
    let out = train(&bad, &run, &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("train.min_new_samples") && err.trim().lines().count() == 1,
        "{err}"
    );
    let cfg = write_config(
        d.path(),
        &TINY.replace("iterations = 4", "iterations = 2").replace(
            "[train]\n",
            "[train]\nlocal_selfplay = false\nmin_new_samples = 1\n",
        ),
    );
    let spawn = |extra: &[&str]| {
        Command::new(OWARE)
            .args(["train", "--no-progress", "--config"])
            .arg(&cfg)
            .arg("--run-dir")
            .arg(&run)
            .args(extra)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let worker = |name: &str| {
        let out = Command::new(OWARE)
            .args(["selfplay", "--batches", "1", "--worker", name, "--run-dir"])
            .arg(&run)
            .output()
            .unwrap();
        succeeded(&out);
    };
    let mut trainer = spawn(&[]);
    let t0 = Instant::now();
    while !run.join("state.json").exists() {
        assert!(t0.elapsed() < Duration::from_secs(60), "no run started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // No samples, no iteration: it waits.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(state(&run)["iteration"].as_u64(), Some(0));
    // Each worker chunk lets one iteration through.
    worker("w1");
    wait_for_iteration(&run, 1);
    worker("w1");
    let status = trainer.wait().unwrap();
    assert!(status.success());
    let names = |key: &str| -> Vec<String> {
        state(&run)[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names("consumed"),
        ["worker-w1-00001.bin", "worker-w1-00002.bin"]
    );
    assert_eq!(names("window"), names("consumed"));
    assert_eq!(metric_iterations(&run), [1, 2]);
    assert!(!run.join("games").exists(), "no self-play games of its own");
    // SIGTERM while it waits: a clean stop, nothing committed, exit 128 + 15.
    let mut trainer = spawn(&["--set", "train.iterations=3"]);
    std::thread::sleep(Duration::from_millis(1500));
    let err = sigterm_and_wait(&mut trainer, 10);
    assert!(err.contains("iteration 3 abandoned"), "{err}");
    assert_eq!(state(&run)["iteration"].as_u64(), Some(2));
    no_temp_files(&run);
}

#[test]
fn bad_configs_are_named() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    for (text, needle) in [
        ("[train]\nbatch_sise = 3\n", "batch_sise"),
        ("[search]\nc_puct = -1\n", "c_puct"),
        ("[game]\nrules = \"oops\"\n", "oops"),
        ("seed = \"x\"\n", "seed"),
    ] {
        let cfg = write_config(d.path(), text);
        let out = train(&cfg, &run, &[]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{text}: {err}");
        assert!(err.contains("tiny.toml"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let out = train(&d.path().join("missing.toml"), &run, &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.toml"));
    let out = train(&write_config(d.path(), TINY), &run, &["--set", "nokey"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("key=value"));
}

#[test]
fn chunks_leave_disk_with_the_window_and_evaluations_measure_table_accuracy() {
    let d = tempfile::tempdir().unwrap();
    let text = TINY.replace("iterations = 4", "iterations = 6").replace(
        "[eval]\nevery = 0",
        "[eval]\nevery = 3\ngames = 4\ngauntlet_games = 2\nopponent = \"alphabeta:depth=1\"\n\
         tablebase = \"tablebases/abapa\"\naccuracy_positions = 40",
    );
    let cfg = write_config(d.path(), &text);
    let run = d.path().join("run");
    let out = train(&cfg, &run, &[]);
    succeeded(&out);
    let s = state(&run);
    let list = |key: &str| -> Vec<String> {
        s[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let (consumed, window) = (list("consumed"), list("window"));
    assert_eq!(consumed.len(), 6);
    assert!(window.len() < 6, "the window never moved: {window:?}");
    // On disk: exactly the window's chunks.
    let mut on_disk: Vec<String> = fs::read_dir(run.join("samples"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort();
    let mut expect = window.clone();
    expect.sort();
    assert_eq!(on_disk, expect);
    let bytes: u64 = on_disk
        .iter()
        .map(|n| fs::metadata(run.join("samples").join(n)).unwrap().len())
        .sum();
    // metrics.csv: memory and disk on every row; table accuracy where evaluated.
    let mut r = csv::Reader::from_path(run.join("metrics.csv")).unwrap();
    let head = r.headers().unwrap().clone();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.len(), 6);
    for row in &rows {
        let rss: f64 = row[col("rss_mb")].parse().unwrap();
        assert!(rss > 5.0 && rss < 20_000.0, "{rss}");
    }
    let last_mb: f64 = rows[5][col("samples_mb")].parse().unwrap();
    assert!(
        (last_mb - bytes as f64 / 1e6).abs() < 1e-3,
        "{last_mb} vs {bytes}"
    );
    for (k, row) in rows.iter().enumerate() {
        let acc = &row[col("tb_outcome_accuracy")];
        let margin = &row[col("tb_margin_accuracy")];
        if k == 2 || k == 5 {
            let (a, m): (f64, f64) = (acc.parse().unwrap(), margin.parse().unwrap());
            assert!((0.0..=1.0).contains(&a) && m <= a, "{a} {m}");
        } else {
            assert!(acc.is_empty() && margin.is_empty());
        }
    }
    // The suite was taken once from the run's games and kept: table positions only.
    let suite = fs::read_to_string(run.join("accuracy-suite.txt")).unwrap();
    let n = suite.lines().count();
    assert!(n > 0 && n <= 40, "{n}");
}

#[test]
fn one_writer_per_run_and_sigterm_stops_cleanly() {
    let d = tempfile::tempdir().unwrap();
    let cfg = write_config(
        d.path(),
        &TINY
            .replace("iterations = 4", "iterations = 0")
            .replace("time_limit_minutes = 0", "time_limit_minutes = 5"),
    );
    let run = d.path().join("run");
    let mut first = Command::new(OWARE)
        .args(["train", "--no-progress", "--config"])
        .arg(&cfg)
        .arg("--run-dir")
        .arg(&run)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_iteration(&run, 1);
    // A second trainer on the same directory is refused, naming the holder.
    let out = train(&cfg, &run, &["--set", "train.iterations=50"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("in use by another `oware train`") && err.contains(&first.id().to_string()),
        "{err}"
    );
    // SIGTERM: the first stops at the next safe point, says so, exits 128 + 15.
    let err = sigterm_and_wait(&mut first, 30);
    assert!(err.contains("stopped by signal 15"), "{err}");
    no_temp_files(&run);
    // Nothing half-done: the rows are those of the committed iterations, and the lock is
    // free again, so the run resumes.
    let done = state(&run)["iteration"].as_u64().unwrap();
    assert_eq!(metric_iterations(&run), (1..=done).collect::<Vec<_>>());
    let out = train(
        &cfg,
        &run,
        &["--set", &format!("train.iterations={}", done + 1)],
    );
    succeeded(&out);
    assert_eq!(state(&run)["iteration"].as_u64().unwrap(), done + 1);
}

/// A tmpfs mounted for one test, unmounted when dropped.
struct SmallDisk(std::path::PathBuf);

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_is_a_clear_error_and_the_run_resumes_once_space_is_freed() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: mounting a small filesystem needs root (CI runs as root)");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let mnt = d.path().join("small");
    fs::create_dir_all(&mnt).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
        .arg(&mnt)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: this machine does not let root mount a tmpfs");
        return;
    }
    let _guard = SmallDisk(mnt.clone());
    let cfg = write_config(d.path(), TINY);
    let run = mnt.join("run");
    let out = train(&cfg, &run, &["--set", "train.iterations=2"]);
    succeeded(&out);
    // Fill the disk to the last block.
    let filler = mnt.join("filler");
    {
        use std::io::Write;
        let mut f = fs::File::create(&filler).unwrap();
        let block = vec![7u8; 64 << 10];
        while f.write_all(&block).is_ok() {}
        let _ = f.flush();
    }
    let out = train(&cfg, &run, &["--set", "train.iterations=6"]);
    assert!(!out.status.success(), "training on a full disk succeeded");
    let err = String::from_utf8_lossy(&out.stderr);
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: ") && last.contains("No space left on device"),
        "{err}"
    );
    assert!(
        last.contains(&run.display().to_string()),
        "names no file: {last}"
    );
    eprintln!("full disk: {last}");
    assert!(!err.contains("panicked"), "{err}");
    no_temp_files(&run);
    // Nothing corrupt: the state is the last committed one and its checkpoint loads.
    let before = state(&run)["iteration"].as_u64().unwrap();
    assert!(before >= 2);
    let infer = Command::new(OWARE)
        .args(["infer", "--model"])
        .arg(&run)
        .output()
        .unwrap();
    succeeded(&infer);
    // Space freed: the same command resumes and finishes.
    fs::remove_file(&filler).unwrap();
    let out = train(&cfg, &run, &["--set", "train.iterations=6"]);
    succeeded(&out);
    assert_eq!(state(&run)["iteration"].as_u64().unwrap(), 6);
    let rows = metric_iterations(&run);
    assert_eq!(rows, (1..=6).collect::<Vec<_>>());
}

/// The bytes of a checkpoint's weights file and its manifest's step.
fn weights_and_step(checkpoint: &Path) -> (Vec<u8>, u64) {
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(checkpoint.join("manifest.json")).unwrap())
            .unwrap();
    (
        fs::read(checkpoint.join("model.bpk")).unwrap(),
        manifest["step"].as_u64().unwrap(),
    )
}

#[test]
fn a_run_can_start_from_another_runs_network() {
    let d = tempfile::tempdir().unwrap();
    let cfg = write_config(d.path(), TINY);
    let first = d.path().join("first");
    succeeded(&train(&cfg, &first, &["--set", "train.iterations=2"]));
    let (weights, step) = weights_and_step(&first.join("checkpoints/iter-0002"));
    assert!(step > 0);

    // A second run started from the first one's latest network: its iteration 0 is that
    // network, step count included, and training goes on from there.
    let second = d.path().join("second");
    let from = format!("train.init_from={}", first.display());
    succeeded(&train(
        &cfg,
        &second,
        &["--set", "train.iterations=1", "--set", &from],
    ));
    let (w0, s0) = weights_and_step(&second.join("checkpoints/iter-0000"));
    assert_eq!(s0, step);
    assert!(
        w0 == weights,
        "iteration 0 does not hold the first run's weights"
    );
    let (w1, s1) = weights_and_step(&second.join("checkpoints/iter-0001"));
    assert!(s1 > step, "{s1} ≤ {step}");
    assert!(w1 != weights, "training changed nothing");

    // A network of another shape, or a path that holds none, is an error naming the key,
    // and leaves no run behind.
    for (set, needle) in [
        ("model.width=32".to_string(), "\"width\":16"),
        (
            format!("train.init_from={}", d.path().join("nothing").display()),
            "nothing",
        ),
    ] {
        let third = d.path().join("third");
        let out = train(&cfg, &third, &["--set", &from, "--set", &set]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("train.init_from"), "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!third.join("state.json").exists());
    }
}

#[test]
fn a_teacher_of_another_shape_plays_the_first_iterations() {
    let d = tempfile::tempdir().unwrap();
    let cfg = write_config(d.path(), TINY);
    let first = d.path().join("first");
    succeeded(&train(&cfg, &first, &["--set", "train.iterations=2"]));
    let games = |run: &Path, it: u32| {
        fs::read_to_string(run.join(format!("games/iter-{it:04}.txt"))).unwrap()
    };

    // A continuation of the first run plays its first iteration with the first run's
    // network, as the teacher must.
    let from = format!("train.init_from={}", first.display());
    let cont = d.path().join("cont");
    succeeded(&train(
        &cfg,
        &cont,
        &["--set", "train.iterations=2", "--set", &from],
    ));

    // A wider student taught by it for one iteration: that iteration's games are the
    // continuation's (same network, seed and search), the next ones its own.
    let teacher = format!("train.teacher={}", first.display());
    let student = d.path().join("student");
    succeeded(&train(
        &cfg,
        &student,
        &[
            "--set",
            "train.iterations=2",
            "--set",
            "model.width=32",
            "--set",
            &teacher,
            "--set",
            "train.teacher_iterations=1",
            "--set",
            "train.teacher_policy_mix=0.5",
        ],
    ));
    assert_eq!(
        games(&student, 1),
        games(&cont, 1),
        "iteration 1 was not the teacher's"
    );
    assert_ne!(
        games(&student, 2),
        games(&cont, 2),
        "iteration 2 was not the student's"
    );

    // A teacher without its iterations, or one that does not exist, is a clear error.
    for (sets, needle) in [
        (vec![teacher.clone()], "train.teacher_iterations"),
        (
            vec![
                format!("train.teacher={}", d.path().join("nothing").display()),
                "train.teacher_iterations=1".to_string(),
            ],
            "nothing",
        ),
    ] {
        let run = d.path().join("bad");
        let mut args = Vec::new();
        for s in &sets {
            args.push("--set");
            args.push(s.as_str());
        }
        let out = train(&cfg, &run, &args);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("train.teacher"), "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!run.join("state.json").exists());
    }
}

/// A checkpoint's weights as safetensors bytes (the checkpoint file itself also holds
/// parameter ids that differ from run to run).
fn exported(checkpoint: &Path) -> Vec<u8> {
    let out_file = checkpoint.with_extension("safetensors");
    let out = Command::new(OWARE)
        .args(["export", "--format", "safetensors", "--model"])
        .arg(checkpoint)
        .arg("--out")
        .arg(&out_file)
        .output()
        .unwrap();
    succeeded(&out);
    fs::read(out_file).unwrap()
}

/// The `train_steps` column of a run's metrics, by iteration.
fn train_steps(run: &Path) -> Vec<u64> {
    let text = fs::read_to_string(run.join("metrics.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|&h| h == "train_steps").unwrap();
    lines
        .map(|l| l.split(',').nth(col).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn overlapped_learning_lags_one_iteration_and_resumes_exactly() {
    let d = tempfile::tempdir().unwrap();
    let cfg = write_config(d.path(), TINY);
    // A constant learning rate: a cosine schedule follows `train.iterations`, which the
    // stopped run below changes.
    let overlap = [
        "--set",
        "train.overlap=true",
        "--set",
        "train.keep_checkpoints=0",
        "--set",
        "train.lr_schedule=constant",
    ];
    let (seq, a) = (d.path().join("seq"), d.path().join("a"));
    let turns = [&["--set", "train.overlap=false"][..], &overlap[2..]].concat();
    succeeded(&train(&cfg, &seq, &turns));
    succeeded(&train(&cfg, &a, &overlap));
    // Iteration 1 plays with the initial network either way; under overlap its learner
    // ran beside it on a window still empty, so it took no step, and every later
    // iteration trains on the samples of the one before.
    assert_eq!(
        fs::read(seq.join("games/iter-0001.txt")).unwrap(),
        fs::read(a.join("games/iter-0001.txt")).unwrap()
    );
    let (s_seq, s_a) = (train_steps(&seq), train_steps(&a));
    assert!(s_seq[0] > 0, "{s_seq:?}");
    assert_eq!(s_a[0], 0, "{s_a:?}");
    assert!(s_a[1..].iter().all(|&s| s > 0), "{s_a:?}");
    let w = |it: &str| exported(&a.join("checkpoints").join(it));
    assert!(w("iter-0000") == w("iter-0001"), "iteration 1 trained");
    assert!(
        w("iter-0001") != w("iter-0002"),
        "iteration 2 did not train"
    );
    // Stopped after two iterations and resumed, the run ends with the same weights as
    // the run that went straight through (the learner's next step count is kept).
    let b = d.path().join("b");
    let first_two = [&overlap[..], &["--set", "train.iterations=2"][..]].concat();
    succeeded(&train(&cfg, &b, &first_two));
    succeeded(&train(&cfg, &b, &overlap));
    for it in ["iter-0003", "iter-0004"] {
        let (x, y) = (
            a.join("checkpoints").join(it),
            b.join("checkpoints").join(it),
        );
        assert_eq!(
            weights_and_step(&x).1,
            weights_and_step(&y).1,
            "{it}: steps"
        );
        assert!(
            exported(&x) == exported(&y),
            "{it}: the resumed run's weights differ"
        );
    }
    // And the same seed gives the same games.
    assert_eq!(
        fs::read(a.join("games/iter-0004.txt")).unwrap(),
        fs::read(b.join("games/iter-0004.txt")).unwrap()
    );
}

#[test]
fn removed_keys_are_named_and_an_older_trainers_run_goes_on() {
    let d = tempfile::tempdir().unwrap();
    // A config that still sets a removed key: one line naming it and what replaced it,
    // exit code 1, no run started.
    let old = TINY.replace("[selfplay]\n", "[selfplay]\nsurprise_weight = 0.5\n");
    let cfg = write_config(d.path(), &old);
    let run = d.path().join("refused");
    let out = train(&cfg, &run, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("selfplay.surprise_weight was removed (each full search gives one sample)"),
        "{err}"
    );
    assert!(!run.join("state.json").exists());
    let cfg = write_config(d.path(), TINY);
    let out = train(
        &cfg,
        &run,
        &["--set", "train.rescore_tablebase=tablebases/abapa"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("train.rescore_tablebase was removed"), "{err}");
    assert!(!run.join("state.json").exists());
    // A run directory whose config.toml an older trainer wrote, every removed key at its
    // old default, resumes.
    let run = d.path().join("run");
    succeeded(&train(&cfg, &run, &["--set", "train.iterations=1"]));
    let saved = fs::read_to_string(run.join("config.toml")).unwrap();
    let older = saved
        .replace("[search]\n", "[search]\ngumbel_rescale_q = true\n")
        .replace(
            "[selfplay]\n",
            "[selfplay]\ntablebase = \"\"\ncontinuous = false\nsurprise_weight = 0.0\nint16 = false\n",
        )
        .replace("[train]\n", "[train]\nrescore_tablebase = \"\"\n");
    assert_ne!(older, saved);
    fs::write(run.join("config.toml"), &older).unwrap();
    let resume = |iterations: &str| {
        Command::new(OWARE)
            .args(["train", "--quiet", "--resume", "--run-dir"])
            .arg(&run)
            .args(["--set", &format!("train.iterations={iterations}")])
            .output()
            .unwrap()
    };
    succeeded(&resume("2"));
    assert_eq!(state(&run)["iteration"], 2);
    // One that set a removed key to anything else cannot go on, and says so in one line.
    fs::write(
        run.join("config.toml"),
        older.replace("continuous = false", "continuous = true"),
    )
    .unwrap();
    let out = resume("3");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("selfplay.continuous = true was removed"),
        "{err}"
    );
    assert_eq!(state(&run)["iteration"], 2);
}

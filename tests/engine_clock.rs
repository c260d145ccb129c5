//! The network's engine on a tiny clock, through `oware eval`: it is told the clocks,
//! its start is not charged to its clock, and it never loses on time.
//!
//! This is the one test of the suite that depends on the machine keeping up: a move over
//! the clock is a loss whatever the reason. It lives in a test binary of its own so that
//! no other test runs beside it (cargo runs the binaries one after another). The engine
//! uses a few percent of its clock (with six busy processes beside it on two cores, its
//! moves on a 1 s clock took 13 to 46 ms), so only a stalled machine fails it.

use std::process::Command;

#[test]
fn the_engine_is_told_the_clocks_and_never_loses_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("engine-input.txt");
    // The engine starts a second late (a slow disk, a large network): that second is
    // not the first move's. `tee` keeps what the engine is sent and passes it on at once.
    let engine = format!(
        "engine:\"sh -c 'sleep 1; tee -a {} | {} engine --threads 2'\":tc=1+0.01",
        log.display(),
        env!("CARGO_BIN_EXE_oware")
    );
    let o = Command::new(env!("CARGO_BIN_EXE_oware"))
        .args([
            "eval",
            "--player",
            &engine,
            "--opponent",
            "alphabeta:depth=2",
            "--games",
            "2",
            "--json",
            "-q",
        ])
        .output()
        .expect("the oware binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["games"], 2, "{v}");
    assert_eq!(v["forfeits"].as_array().unwrap().len(), 0, "{v}");
    // Every `go` carried both clocks and both increments, and the clock it was shown
    // never exceeded the 1 s it started with plus the increments earned.
    let sent = std::fs::read_to_string(&log).unwrap();
    let gos: Vec<&str> = sent.lines().filter(|l| l.starts_with("go")).collect();
    assert!(gos.len() >= 10, "{sent}");
    for go in &gos {
        let w: Vec<&str> = go.split_whitespace().collect();
        let num = |key: &str| -> u64 {
            let i = w
                .iter()
                .position(|x| *x == key)
                .unwrap_or_else(|| panic!("{key} in {go}"));
            w[i + 1].parse().unwrap()
        };
        assert_eq!((num("winc"), num("binc")), (10, 10), "{go}");
        assert!(num("wtime") <= 1000 + 10 * gos.len() as u64, "{go}");
        assert!(num("btime") <= 1000 + 10 * gos.len() as u64, "{go}");
    }
}

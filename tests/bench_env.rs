//! `oware bench env` through the command line: the JSON it promises, clear errors.

use std::process::Command;

fn oware(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_oware"))
        .args(args)
        .output()
        .expect("the oware binary runs")
}

#[test]
fn json_has_the_promised_fields() {
    let out = oware(&[
        "bench",
        "env",
        "--games",
        "300",
        "--games",
        "500",
        "--threads",
        "2",
        "--seconds",
        "0.05",
        "--runs",
        "1",
        "--encoding",
        "counts",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert!(v["steps_per_second"].as_f64().unwrap() > 0.0);
    assert!(v["perft_moves_per_second"].as_f64().unwrap() > 0.0);
    assert_eq!(v["threads"], 2);
    let results = v["results"].as_array().unwrap();
    // Two batch sizes × three measurements.
    assert_eq!(results.len(), 6);
    assert!(
        results
            .iter()
            .any(|r| r["games"] == 500 && r["mode"] == "features")
    );
}

#[test]
fn bad_arguments_are_clear_errors() {
    let out = oware(&["bench", "env", "--games", "0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at least one game"), "{err}");
    let out = oware(&["bench", "env", "--encoding", "pixels"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown encoding 'pixels'"));
}

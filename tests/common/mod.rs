//! Helpers shared by the integration tests: an `oware engine` process driven line by
//! line, and a small random-weight checkpoint.

// Each test binary uses only some of these.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use burn::tensor::Device;
use oware_zero::game::RuleSet;
use oware_zero::net::ModelConfig;
use oware_zero::net::checkpoint::{Manifest, save};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_oware");
/// How long to wait for an engine's line before failing.
pub const WAIT: Duration = Duration::from_secs(30);

/// A checkpoint of a small random-weight network (width 32) at `dir`.
pub fn random_checkpoint(dir: &Path, seed: u64, step: u64) {
    let cfg = ModelConfig {
        width: 32,
        ..ModelConfig::default()
    };
    let device = Device::flex();
    device.seed(seed);
    let model = cfg.init(&device);
    save(
        dir,
        &Manifest::new(&cfg, RuleSet::abapa(), step, None),
        &model,
        None,
    )
    .unwrap();
}

/// An `oware engine` process with its output as a channel of lines.
pub struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    /// Starts `oware engine ARGS`.
    pub fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(BIN)
            .arg("engine")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines() {
                if tx.send(l.unwrap()).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines,
        }
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    pub fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let l = self
                .lines
                .recv_timeout(WAIT)
                .unwrap_or_else(|e| panic!("no '{prefix}' ({e}); saw {seen:?}"));
            let done = l.starts_with(prefix);
            seen.push(l);
            if done {
                return seen;
            }
        }
    }

    /// The move of the next `bestmove` line.
    pub fn bestmove(&mut self) -> String {
        let lines = self.until("bestmove ");
        lines.last().unwrap()["bestmove ".len()..]
            .trim()
            .to_string()
    }

    /// Sends `quit`; the engine must exit cleanly without a panic.
    pub fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
        let mut err = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Runs `oware ARGS` with `input` on stdin; (exit code, stdout, stderr).
pub fn oware_with_input(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    // Written from a thread: the program may stop reading (game over) before the end.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let o = child.wait_with_output().unwrap();
    let _ = writer.join();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs `oware ARGS` with nothing on stdin; (exit code, stdout, stderr).
pub fn oware(args: &[&str]) -> (i32, String, String) {
    oware_with_input(args, "")
}

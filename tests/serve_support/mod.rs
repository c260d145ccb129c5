//! Helpers of the `serve` tests: an `oware serve` process on a free loopback port, an
//! HTTP client for its API, and a small WebDriver client for the browser test.

// Each test binary uses only some of these.
#![allow(dead_code)]

pub mod webdriver;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_oware");

/// A running `oware serve`, killed when dropped.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub base: String,
}

impl Server {
    /// Starts `oware serve --port 0 ARGS` and waits for the address it prints.
    pub fn start(args: &[&str]) -> Server {
        let mut child = Command::new(BIN)
            .args(["serve", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting oware serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let line = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(l) => l,
            Err(_) => {
                let _ = child.kill();
                panic!("oware serve printed no address within 60 s");
            }
        };
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in '{line}'"))
            .trim_end_matches('/')
            .to_string();
        Server { child, base }
    }

    /// The URL of `path` (starting with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP client that returns every status as an answer, not an error.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into()
}

fn answer(r: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> (u16, Value) {
    let mut r = r.expect("HTTP request");
    let status = r.status().as_u16();
    let text = r.body_mut().read_to_string().expect("reading the body");
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    (status, v)
}

/// `POST url` with `body` as the request body; (status, JSON answer).
pub fn post(agent: &ureq::Agent, url: &str, body: &str) -> (u16, Value) {
    answer(
        agent
            .post(url)
            .header("Content-Type", "application/json")
            .send(body),
    )
}

/// `GET url`; (status, JSON answer).
pub fn get(agent: &ureq::Agent, url: &str) -> (u16, Value) {
    answer(agent.get(url).call())
}

/// `POST url` with `body` to an endpoint that answers in JSON lines (`infinite`): the
/// status and a reader of the lines as they come (an error's one line too). Dropping
/// the reader closes the connection, as a client that goes away does.
pub fn post_stream(
    agent: &ureq::Agent,
    url: &str,
    body: &str,
) -> (u16, BufReader<Box<dyn Read + Send>>) {
    let r = agent
        .post(url)
        .header("Content-Type", "application/json")
        .send(body)
        .expect("HTTP request");
    let status = r.status().as_u16();
    let reader: Box<dyn Read + Send> = Box::new(r.into_body().into_reader());
    (status, BufReader::new(reader))
}

/// The next JSON line of a stream; `None` at its end.
pub fn next_json(lines: &mut impl BufRead) -> Option<Value> {
    let mut line = String::new();
    if lines.read_line(&mut line).expect("reading a line") == 0 {
        return None;
    }
    Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
}

/// The desktop window (1300 × 900) or the phone's (390 × 844, mobile emulation) that the
/// tests run on.
pub fn desktop_or_phone(phone: bool) -> Result<webdriver::Browser, String> {
    if phone {
        webdriver::Browser::start_phone(390, 844)
    } else {
        webdriver::Browser::start(1300, 900)
    }
}

/// Starts a browser or says why the test is skipped (a failure under
/// `OWARE_REQUIRE_BROWSER`).
pub fn browser_or_skip(
    start: impl FnOnce() -> Result<webdriver::Browser, String>,
) -> Option<webdriver::Browser> {
    match start() {
        Ok(b) => Some(b),
        Err(why) if std::env::var_os("OWARE_REQUIRE_BROWSER").is_some() => {
            panic!("OWARE_REQUIRE_BROWSER is set but the browser cannot start: {why}")
        }
        Err(why) => {
            println!(
                "SKIPPED: the browser test needs chromium and chromedriver \
                 (apt-get install chromium chromium-driver): {why}"
            );
            None
        }
    }
}

//! A small WebDriver client (the W3C protocol over HTTP) for headless Chromium driven
//! by `chromedriver`: just what the browser test needs.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

/// The key under which WebDriver returns an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A program on `PATH`, if there is one.
pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.is_file())
    })
}

/// A headless Chromium session; the browser and its driver end when dropped.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
}

impl Browser {
    /// Starts `chromedriver` and a headless `chromium` window of `width` × `height`
    /// pixels, or says why it cannot (no chromium or chromedriver on PATH).
    pub fn start(width: u32, height: u32) -> Result<Browser, String> {
        Browser::launch(width, height, false)
    }

    /// A phone: Chromium's mobile emulation with a `width` × `height` viewport in CSS
    /// pixels (device pixel ratio 3, touch, a phone's user agent). `--window-size` alone
    /// would give a 500-pixel viewport at least.
    pub fn start_phone(width: u32, height: u32) -> Result<Browser, String> {
        Browser::launch(width, height, true)
    }

    fn launch(width: u32, height: u32, phone: bool) -> Result<Browser, String> {
        let chromium = on_path("chromium")
            .or_else(|| on_path("chromium-browser"))
            .ok_or("no chromium on PATH")?;
        let driver_bin = on_path("chromedriver").ok_or("no chromedriver on PATH")?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let driver = Command::new(driver_bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting chromedriver: {e}"))?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        let base = format!("http://127.0.0.1:{port}");
        let mut b = Browser {
            driver,
            base,
            session: String::new(),
            agent,
        };
        let t0 = Instant::now();
        loop {
            let ready = b
                .agent
                .get(format!("{}/status", b.base))
                .call()
                .ok()
                .and_then(|mut r| r.body_mut().read_json::<Value>().ok())
                .is_some_and(|v| v["value"]["ready"] == true);
            if ready {
                break;
            }
            if t0.elapsed() > Duration::from_secs(30) {
                return Err("chromedriver did not become ready in 30 s".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut options = json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--hide-scrollbars",
                     "--force-device-scale-factor=1",
                     format!("--window-size={width},{height}")],
        });
        if phone {
            options["mobileEmulation"] = json!({
                "deviceMetrics": {"width": width, "height": height, "pixelRatio": 3.0, "touch": true},
                "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 \
                              (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
            });
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": options,
        }}});
        let v = b.call("POST", "/session", caps)?;
        b.session = v["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no session id in {v}"))?
            .to_string();
        Ok(b)
    }

    /// One WebDriver command; its `value`, or the driver's error message.
    fn call(&self, method: &str, path: &str, body: Value) -> Result<Value, String> {
        let url = format!("{}{path}", self.base);
        let r = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self.agent.post(&url).send_json(&body),
        };
        let mut r = r.map_err(|e| format!("{method} {path}: {e}"))?;
        let ok = r.status().is_success();
        let v: Value = r
            .body_mut()
            .read_json()
            .map_err(|e| format!("{method} {path}: {e}"))?;
        if ok {
            Ok(v["value"].clone())
        } else {
            Err(format!("{method} {path}: {}", v["value"]))
        }
    }

    fn in_session(&self, method: &str, path: &str, body: Value) -> Result<Value, String> {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    /// Opens `url`.
    pub fn goto(&self, url: &str) {
        self.in_session("POST", "/url", json!({ "url": url }))
            .unwrap();
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns its value.
    pub fn exec(&self, script: &str, args: Value) -> Value {
        self.in_session(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": args }),
        )
        .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// The first element matching the CSS selector, if any.
    pub fn find(&self, css: &str) -> Option<String> {
        self.in_session(
            "POST",
            "/element",
            json!({ "using": "css selector", "value": css }),
        )
        .ok()
        .and_then(|v| v[ELEMENT].as_str().map(String::from))
    }

    /// Clicks the element matching `css` as a user would (the driver moves the mouse
    /// there and clicks); panics if there is none. A page that redrew the element
    /// between the find and the click (a stale element) is looked up once more, as a
    /// user's second look would find the new one.
    pub fn click(&self, css: &str) {
        let click_once = || {
            let el = self
                .find(css)
                .unwrap_or_else(|| panic!("nothing matches '{css}'"));
            self.in_session("POST", &format!("/element/{el}/click"), json!({}))
        };
        match click_once() {
            Err(e) if e.contains("stale element") => click_once(),
            other => other,
        }
        .unwrap_or_else(|e| panic!("clicking '{css}': {e}"));
    }

    /// Types `text` into the element matching `css` as a user's keyboard would, after
    /// clearing it (WebDriver key values such as `\u{E007}`, Enter, may be in `text`);
    /// panics if there is none or it takes no typing (a read-only field).
    pub fn type_into(&self, css: &str, text: &str) {
        let el = self
            .find(css)
            .unwrap_or_else(|| panic!("nothing matches '{css}'"));
        self.in_session("POST", &format!("/element/{el}/clear"), json!({}))
            .unwrap_or_else(|e| panic!("clearing '{css}': {e}"));
        self.in_session(
            "POST",
            &format!("/element/{el}/value"),
            json!({ "text": text }),
        )
        .unwrap_or_else(|e| panic!("typing into '{css}': {e}"));
    }

    /// Presses the keys of `chord` together and lets them go, as a keyboard sends them
    /// to whatever has the focus (WebDriver key values: `\u{E012}` is ←, `\u{E009}`
    /// Ctrl).
    pub fn press(&self, chord: &[&str]) {
        let mut keys: Vec<Value> = chord
            .iter()
            .map(|k| json!({"type": "keyDown", "value": k}))
            .collect();
        keys.extend(
            chord
                .iter()
                .rev()
                .map(|k| json!({"type": "keyUp", "value": k})),
        );
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": keys}]});
        self.in_session("POST", "/actions", actions)
            .unwrap_or_else(|e| panic!("pressing {chord:?}: {e}"));
    }

    /// The text of the first element matching `css` ("" if none).
    pub fn text(&self, css: &str) -> String {
        self.exec(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : '';",
            json!([css]),
        )
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    /// Waits until `script` returns true, for at most `secs` seconds.
    pub fn wait_for(&self, script: &str, secs: u64, what: &str) {
        let t0 = Instant::now();
        while self.exec(script, json!([])) != Value::Bool(true) {
            if t0.elapsed() > Duration::from_secs(secs) {
                panic!(
                    "timed out after {secs} s waiting for {what}; status: {}",
                    self.text("#status")
                );
            }
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// Waits until the page is ready and no request or animation is running.
    pub fn wait_idle(&self) {
        self.wait_for(
            "return document.body.dataset.ready === '1' && document.body.dataset.busy === '0';",
            60,
            "the page to be idle",
        );
    }

    /// Saves a PNG screenshot of the window at `path`.
    pub fn screenshot(&self, path: &Path) {
        let v = self.in_session("GET", "/screenshot", Value::Null).unwrap();
        let png = base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap_or(""))
            .expect("screenshot is base64");
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.call("DELETE", &format!("/session/{}", self.session), Value::Null);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

//! The training endpoints (`GET /api/v1/runs…`, docs/http-api.md): the runs under
//! `--runs DIR`, a run's metrics as columns, its latest self-play games and its
//! checkpoints. The files are read on tokio's blocking threads, never on the ones that
//! answer requests.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::api::{ApiError, AppState};
use super::runs::{RunError, RunsIndex, games};

/// `GET /api/v1/runs`: every run under the root with its state.
pub async fn runs(State(s): State<Arc<AppState>>, RawQuery(q): RawQuery) -> Response {
    answer(q, &[], s.runs.clone(), |ix, _| Ok(ix.list_json())).await
}

/// `GET /api/v1/runs/metrics?run=ID&from=K`: the run's metrics rows from row `K` on.
pub async fn metrics(State(s): State<Arc<AppState>>, RawQuery(q): RawQuery) -> Response {
    answer(q, &["run", "from"], s.runs.clone(), |ix, p| {
        let run = find(ix, &p)?;
        let from = number(&p, "from", 0, usize::MAX)?;
        let read = ix.metrics(&run);
        let m = match read.as_ref() {
            Ok(m) => m,
            Err(e) => {
                return Ok(json!({"run": run.id, "rows": 0, "from": 0, "columns": {},
                                 "bad_rows": 0, "problem": e}));
            }
        };
        let from = from.min(m.rows());
        let mut columns = serde_json::Map::new();
        for (name, col) in m.names.iter().zip(&m.columns) {
            columns.insert(name.clone(), json!(col[from..]));
        }
        columns.insert("eval_opponent".into(), json!(m.opponents[from..]));
        Ok(
            json!({"run": run.id, "rows": m.rows(), "from": from, "columns": columns,
                  "bad_rows": m.bad_rows, "problem": null}),
        )
    })
    .await
}

/// `GET /api/v1/runs/games?run=ID&n=N`: the last `N` games of its newest games file.
pub async fn run_games(State(s): State<Arc<AppState>>, RawQuery(q): RawQuery) -> Response {
    answer(q, &["run", "n"], s.runs.clone(), |ix, p| {
        let run = find(ix, &p)?;
        let n = number(&p, "n", 12, games::MAX_GAMES)?;
        let mut v = games::latest_games(&run.path, n).map_err(ApiError::bad)?;
        v["run"] = json!(run.id);
        v["rules"] = json!(rules_of(&run.path));
        Ok(v)
    })
    .await
}

/// `GET /api/v1/runs/checkpoints?run=ID`: its checkpoints with their ratings.
pub async fn checkpoints(State(s): State<Arc<AppState>>, RawQuery(q): RawQuery) -> Response {
    answer(q, &["run"], s.runs.clone(), |ix, p| {
        let run = find(ix, &p)?;
        let read = ix.metrics(&run);
        let list = games::checkpoints(&run.path, read.as_ref().as_ref().ok());
        Ok(json!({"run": run.id, "checkpoints": list}))
    })
    .await
}

/// The rules a run's config names (`null` where it names none).
fn rules_of(run: &std::path::Path) -> Option<String> {
    let (v, _) = super::runs::status::config_summary(run)?;
    v.get("game.rules")?.as_str().map(String::from)
}

type Params = Vec<(String, String)>;

/// Runs `work` with the query's parameters (only `known` ones are accepted) on a
/// blocking thread, and answers with its JSON or its error.
async fn answer(
    q: Option<String>,
    known: &[&str],
    ix: Arc<RunsIndex>,
    work: impl FnOnce(&RunsIndex, Params) -> Result<Value, ApiError> + Send + 'static,
) -> Response {
    let params = match parse_query(q.as_deref().unwrap_or(""), known) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let done = tokio::task::spawn_blocking(move || work(&ix, params)).await;
    match done {
        Ok(Ok(v)) => (
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            format!("{v}\n"),
        )
            .into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(_) => ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: "reading the run failed".into(),
        }
        .into_response(),
    }
}

fn find(ix: &RunsIndex, p: &Params) -> Result<super::runs::scan::Found, ApiError> {
    let id = param(p, "run").ok_or_else(|| ApiError::bad("run: missing (a run's id)"))?;
    ix.find(id).map_err(|e| match e {
        RunError::Outside(m) => ApiError::bad(m),
        RunError::Unknown(m) => ApiError {
            status: StatusCode::NOT_FOUND,
            message: m,
        },
    })
}

fn param<'a>(p: &'a Params, key: &str) -> Option<&'a str> {
    p.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// The parameter `key` as a whole number in `0..=max` (`default` when absent).
fn number(p: &Params, key: &str, default: usize, max: usize) -> Result<usize, ApiError> {
    match param(p, key) {
        None => Ok(default),
        Some(v) => match v.parse::<usize>() {
            Ok(n) if n <= max => Ok(n),
            _ => Err(ApiError::bad(format!(
                "{key}={v}: expected a whole number from 0 to {max}"
            ))),
        },
    }
}

/// `a=1&b=x%2Fy` → pairs, percent-decoded; a key not in `known`, or given twice, is
/// refused.
fn parse_query(q: &str, known: &[&str]) -> Result<Params, ApiError> {
    let mut out: Params = Vec::new();
    for pair in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (k, v) = (decode(k)?, decode(v)?);
        if !known.contains(&k.as_str()) {
            return Err(ApiError::bad(format!(
                "unknown parameter {k:?} (this endpoint takes: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
        if out.iter().any(|(o, _)| *o == k) {
            return Err(ApiError::bad(format!("{k} is given twice")));
        }
        out.push((k, v));
    }
    Ok(out)
}

/// Percent-decoding (`+` is a space), as a browser's `encodeURIComponent` writes.
fn decode(s: &str) -> Result<String, ApiError> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok());
                out.push(byte.ok_or_else(|| ApiError::bad(format!("{s}: a bad % escape")))?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| ApiError::bad(format!("{s}: not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_decoded_and_checked() {
        let p = parse_query("run=ab%2Ffrontier%2Fx&from=3", &["run", "from"]).unwrap();
        assert_eq!(param(&p, "run"), Some("ab/frontier/x"));
        assert_eq!(number(&p, "from", 0, 10).unwrap(), 3);
        assert!(number(&p, "from", 0, 2).is_err());
        assert!(
            parse_query("x=1", &["run"])
                .unwrap_err()
                .message
                .contains("unknown")
        );
        assert!(parse_query("run=a&run=b", &["run"]).is_err());
        assert!(parse_query("run=%zz", &["run"]).is_err());
        assert!(parse_query("run=%ff", &["run"]).is_err());
    }
}

//! The HTTP API: any body (or query, or path) sent to any endpoint of the app, served
//! in memory by the real router with a uniform evaluator and small caps. The answer
//! must never be a server error, and every API answer must be JSON.
#![no_main]
use std::sync::OnceLock;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::{Method, Request};
use libfuzzer_sys::fuzz_target;
use oware_zero::game::RuleSet;
use oware_zero::search::mcts::MctsConfig;
use oware_zero::search::{Evaluator, UniformEvaluator};
use oware_zero::serve::{ServeLimits, ServeSetup, app};
use tower::ServiceExt;

fn router() -> &'static (Router, tokio::runtime::Runtime) {
    static APP: OnceLock<(Router, tokio::runtime::Runtime)> = OnceLock::new();
    APP.get_or_init(|| {
        let evaluators: Vec<Box<dyn Evaluator>> = vec![Box::new(UniformEvaluator)];
        let limits = ServeLimits {
            max_sims: 64,
            max_movetime: Duration::from_millis(50),
            analyze_sims: 4,
            max_analyze_sims: 8,
            analyze_exact_depth: 2,
            analyze_exact_nodes: 2_000,
            max_plies: 400,
            max_analyze_plies: 40,
            searchers: 1,
            queue: 4,
            puzzles: 0,
            ..ServeLimits::default()
        };
        let setup = ServeSetup {
            evaluators,
            puzzle_evaluator: None,
            rules: RuleSet::abapa(),
            model: "uniform".into(),
            limits,
            seed: 1,
            trained: MctsConfig::default(),
            tablebase: None,
            runs: "experiments".into(),
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        (app(setup).unwrap(), rt)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let (method, uri, body) = match which % 6 {
        0 => (Method::POST, "/api/v1/position".to_string(), rest.to_vec()),
        1 => (Method::POST, "/api/v1/bestmove".to_string(), rest.to_vec()),
        2 => (Method::POST, "/api/v1/analyze".to_string(), rest.to_vec()),
        3 => (Method::GET, format!("/api/v1/puzzles?{text}"), Vec::new()),
        4 => (Method::GET, format!("/{text}"), Vec::new()),
        _ => (Method::POST, "/api/v1/health".to_string(), rest.to_vec()),
    };
    // A URI the http crate refuses never reaches the server.
    let Ok(request) = Request::builder()
        .method(method)
        .uri(&uri)
        .header("content-type", "application/json")
        .body(Body::from(body))
    else {
        return;
    };
    let (app, rt) = router();
    let (status, bytes) = rt.block_on(async {
        let response = app.clone().oneshot(request).await.unwrap();
        let status = response.status();
        (status, to_bytes(response.into_body(), 1 << 24).await.unwrap())
    });
    assert!(!status.is_server_error() || status.as_u16() == 503, "{uri}: {status}");
    if uri.starts_with("/api/") {
        assert!(
            serde_json::from_slice::<serde_json::Value>(&bytes).is_ok(),
            "{uri}: {status}: the answer is not JSON"
        );
    }
});

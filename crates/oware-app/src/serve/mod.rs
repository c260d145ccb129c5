//! `oware serve`: the web app and the JSON API over HTTP (axum on tokio).
//!
//! - [`api`]: the endpoints of `docs/http-api.md`, input checked before any work;
//! - [`checkpoints`]: searches by a training run's checkpoint, loaded on demand;
//! - [`pool`]: the search threads (one network copy each) behind a bounded queue;
//! - [`puzzles`]: puzzles from self-play games, each win proved unique by alpha-beta;
//! - [`runs`]: the training runs under `--runs DIR`, read without being touched;
//! - [`training`]: their endpoints (`/api/v1/runs…`), which the Training tab polls;
//! - [`web`]: the app's files (HTML, CSS, JavaScript), compiled into the binary.
//!
//! Safe to leave running: every search is capped in simulations and time (an infinite
//! analysis in time, and it stops when its client goes away), at most
//! `searchers` run at once with `queue` more waiting (the rest get HTTP 503), request
//! bodies are capped in size, bad input gets HTTP 400 with a message, and the default
//! address is loopback.

pub mod api;
pub mod checkpoints;
pub mod pool;
pub mod puzzles;
pub mod runs;
pub mod training;
pub mod web;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

use self::api::AppState;
use self::pool::SearchPool;
use self::puzzles::PuzzleBook;
use crate::player::analysis;
use oware_core::game::RuleSet;
use oware_core::rng::Rng;
use oware_core::search::Evaluator;
use oware_core::search::mcts::MctsConfig;
use oware_core::tablebase::Tablebase;

/// Seconds of the longest infinite analysis by default (`--analysis-max-seconds`).
pub const DEFAULT_ANALYSIS_SECONDS: u64 = 300;

/// The caps on the work one request may cause.
#[derive(Clone, Debug)]
pub struct ServeLimits {
    /// Most MCTS simulations per `bestmove` (also sizes each search tree).
    pub max_sims: u32,
    /// Longest `bestmove` search; every search stops by then.
    pub max_movetime: Duration,
    /// Simulations per position of `analyze` when the request gives none (`oware
    /// analyze`'s default: one review, one set of defaults).
    pub analyze_sims: u32,
    /// Most simulations per position of `analyze`.
    pub max_analyze_sims: u32,
    /// Alpha-beta depth of `analyze`'s proofs.
    pub analyze_exact_depth: u32,
    /// Alpha-beta node cap per position of `analyze`.
    pub analyze_exact_nodes: u64,
    /// Horizon of `solve` when the request gives none, in plies.
    pub solve_depth: u32,
    /// Deepest horizon `solve` accepts.
    pub max_solve_depth: u32,
    /// Alpha-beta node cap of each of `solve`'s searches.
    pub solve_nodes: u64,
    /// Most moves in a request's game.
    pub max_plies: usize,
    /// Most moves in a game sent to `analyze`.
    pub max_analyze_plies: usize,
    /// Search threads (searches running at once).
    pub searchers: usize,
    /// Searches that may wait for a thread; more are turned away with HTTP 503.
    pub queue: usize,
    /// Longest infinite analysis (`infinite`): the search stops then even if its client
    /// is still there, so that a tab left open cannot hold a search thread for ever.
    pub analysis_max_time: Duration,
    /// Largest request body in bytes (HTTP 413 above it).
    pub max_body_bytes: usize,
    /// Puzzles the generator finds before it stops.
    pub puzzles: usize,
}

impl Default for ServeLimits {
    fn default() -> Self {
        ServeLimits {
            max_sims: 3200,
            max_movetime: Duration::from_secs(5),
            analyze_sims: analysis::DEFAULT_SIMULATIONS,
            max_analyze_sims: 1600,
            analyze_exact_depth: analysis::DEFAULT_EXACT_DEPTH,
            analyze_exact_nodes: analysis::DEFAULT_EXACT_NODES,
            solve_depth: 14,
            max_solve_depth: 20,
            solve_nodes: 1_000_000,
            max_plies: 1000,
            max_analyze_plies: 400,
            searchers: 2,
            queue: 64,
            analysis_max_time: Duration::from_secs(DEFAULT_ANALYSIS_SECONDS),
            max_body_bytes: 64 * 1024,
            puzzles: 60,
        }
    }
}

/// Everything the server needs besides its address.
pub struct ServeSetup {
    /// One evaluator per search thread (`limits.searchers` of them).
    pub evaluators: Vec<Box<dyn Evaluator>>,
    /// The evaluator of the puzzle generator (`None`: no puzzles).
    pub puzzle_evaluator: Option<Box<dyn Evaluator>>,
    /// The rules when a request names none.
    pub rules: RuleSet,
    /// The model's description for `health`.
    pub model: String,
    /// The caps.
    pub limits: ServeLimits,
    /// Seed of the puzzle games and of the puzzle draws.
    pub seed: u64,
    /// The search settings the model was trained with (its manifest's): searches use
    /// their PUCT constants ([`MctsConfig::anytime`]).
    pub trained: MctsConfig,
    /// Endgame tables (`--tb`): searches end where they prove the result, `analyze`
    /// takes proven results from them, and `bestmove` reports the
    /// result with best play where proven (docs/tablebase.md, "What is stated").
    pub tablebase: Option<Arc<Tablebase>>,
    /// The folder whose training runs the Training tab shows (`--runs`).
    pub runs: std::path::PathBuf,
}

/// The app and the API as one router.
pub fn router(state: Arc<AppState>) -> Router {
    let body_limit = state.limits.max_body_bytes;
    let api = Router::new()
        .route("/health", get(api::health))
        .route("/position", post(api::position))
        .route("/bestmove", post(api::bestmove))
        .route("/analyze", post(api::analyze))
        .route("/solve", post(api::solve))
        .route("/infinite", post(api::infinite))
        .route("/puzzles", get(api::puzzles))
        .route("/runs", get(training::runs))
        .route("/runs/metrics", get(training::metrics))
        .route("/runs/games", get(training::run_games))
        .route("/runs/checkpoints", get(training::checkpoints))
        .method_not_allowed_fallback(api::wrong_method)
        .fallback(api::not_found);
    Router::new()
        .route("/", get(web::index))
        .route("/{file}", get(web::file))
        .nest("/api/v1", api)
        .fallback(api::not_found)
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(axum::middleware::from_fn(move |req, next| {
            read_body_in_time(req, next, body_limit)
        }))
        .with_state(state)
}

/// The app with everything behind it started: the search threads and the puzzle
/// generator. [`serve`] puts it on a socket; a test or a fuzzer may call it directly.
pub fn app(setup: ServeSetup) -> anyhow::Result<Router> {
    let book = Arc::new(PuzzleBook::default());
    if let Some(ev) = setup.puzzle_evaluator {
        puzzles::spawn_generator(
            ev,
            setup.rules,
            book.clone(),
            setup.limits.puzzles,
            setup.seed,
        )?;
    }
    let state = Arc::new(AppState {
        pool: Arc::new(SearchPool::new(
            setup.evaluators,
            setup.limits.queue,
            setup.limits.max_sims,
            &setup.trained,
            setup.tablebase.clone(),
        )),
        checkpoints: Default::default(),
        trained: setup.trained,
        tablebase: setup.tablebase,
        book,
        rules: setup.rules,
        model: setup.model,
        limits: setup.limits,
        rng: Mutex::new(Rng::new(setup.seed)),
        runs: Arc::new(runs::RunsIndex::new(setup.runs)),
    });
    Ok(router(state))
}

/// Serves on `listener` until the process ends ([`app`] on a small tokio runtime).
pub fn serve(listener: std::net::TcpListener, setup: ServeSetup) -> anyhow::Result<()> {
    let app = app(setup)?;
    listener.set_nonblocking(true)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("http")
        .enable_io()
        .enable_time()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        accept(listener, app).await
    })?;
    Ok(())
}

/// The longest a client may take to send a request's headers (a connection that sends
/// none in time is closed, an idle kept-alive one too), and then its body (answered 408).
pub const READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Takes connections and serves each over HTTP/1 with [`READ_TIMEOUT`] on the headers.
async fn accept(listener: tokio::net::TcpListener, app: Router) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            // Out of file descriptors or a connection reset before it was taken: the
            // listener is fine, so wait a moment and go on.
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                continue;
            }
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(READ_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Reads the request's body within [`READ_TIMEOUT`] and `limit` bytes before the
/// handler sees it: a body that stalls is answered 408, one too long 413.
async fn read_body_in_time(
    req: axum::extract::Request,
    next: axum::middleware::Next,
    limit: usize,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (parts, body) = req.into_parts();
    match tokio::time::timeout(READ_TIMEOUT, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => {
            let req = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
            next.run(req).await
        }
        Ok(Err(_)) => api::ApiError {
            status: axum::http::StatusCode::PAYLOAD_TOO_LARGE,
            message: format!(
                "the request body passes the length limit of {limit} bytes, or was cut off"
            ),
        }
        .into_response(),
        Err(_) => api::ApiError {
            status: axum::http::StatusCode::REQUEST_TIMEOUT,
            message: format!(
                "the request body did not arrive within {} s",
                READ_TIMEOUT.as_secs()
            ),
        }
        .into_response(),
    }
}

/// Whether `addr` is reachable only from this machine.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}

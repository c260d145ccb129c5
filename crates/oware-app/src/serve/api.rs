//! The JSON API (`docs/http-api.md`): request parsing with errors that name the bad
//! field, and the answers. Every handler checks its input before any work is queued,
//! so bad input costs nothing and never reaches a search.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{OriginalUri, RawQuery, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::ServeLimits;
use super::checkpoints::CheckpointPools;
use super::pool::SolveJob;
use super::pool::{AnalysisJob, AnalysisUpdate, PoolError, SearchAnswer, SearchJob, SearchPool};
use super::puzzles::PuzzleBook;
use super::runs::RunsIndex;
use crate::player::Level;
use crate::player::analysis::{ReviewConfig, result_json, review_json};
use crate::player::mcts::line_letters;
use oware_core::game::{Game, MoveInfo, Position, RuleSet, Side, mask_letters};
use oware_core::game::{move_letter, parse_moves};
use oware_core::rng::Rng;
use oware_core::search::mcts::MctsConfig;
use oware_core::tablebase::Tablebase;

/// What the handlers share.
pub struct AppState {
    /// The search threads.
    pub pool: Arc<SearchPool>,
    /// The run checkpoint a request's `model` names, loaded on demand.
    pub checkpoints: CheckpointPools,
    /// Puzzles found so far.
    pub book: Arc<PuzzleBook>,
    /// The rules when a request names none (the model's).
    pub rules: RuleSet,
    /// The model's description for `health`.
    pub model: String,
    /// The caps on work per request.
    pub limits: ServeLimits,
    /// Draws the puzzles a request gets.
    pub rng: Mutex<Rng>,
    /// The model's search settings (for `analyze`).
    pub trained: MctsConfig,
    /// Endgame tables, if the server was given some.
    pub tablebase: Option<Arc<Tablebase>>,
    /// The training runs the Training tab shows (`--runs`).
    pub runs: Arc<RunsIndex>,
}

impl AppState {
    /// The tables, if they are for `rules`.
    fn tables_for(&self, rules: RuleSet) -> Option<Arc<Tablebase>> {
        self.tablebase.clone().filter(|tb| tb.rules() == rules)
    }
}

/// Nodes the search behind the tables may take for a position (and for each move)
/// where no entry proves the value.
const TABLE_NODES: u64 = 100_000;

/// What the tables say of `game`'s position, given its history: the result with best
/// play for the mover and the moves that keep it where proven, else the bounds; `null`
/// where they do not cover the position.
fn table_json(tb: Option<&Tablebase>, game: &Game) -> Value {
    use oware_core::tablebase::prove::{Known, Prover, Source};
    let Some(tb) = tb else { return Value::Null };
    let pos = game.position();
    let (Some(p), Some(v)) = (tb.probe(pos), Prover::new(tb, TABLE_NODES).game(game)) else {
        return Value::Null;
    };
    let keep: String = (0..6)
        .filter(|a| v.keep & (1 << a) != 0)
        .map(|a| move_letter(pos.side, a))
        .collect();
    let margins: serde_json::Map<String, Value> = (0..6)
        .filter_map(|a| {
            let m = v.moves[a]?;
            Some((move_letter(pos.side, a).to_string(), json!(m.value())))
        })
        .collect();
    let (proven_by, bounds) = match v.known {
        Known::Proven(_, Source::Table) => (Some("table"), None),
        Known::Proven(_, Source::Search(_)) => (Some("search"), None),
        Known::Unproven { bounds, .. } => (None, bounds),
    };
    json!({
        "outcome": v.outcome.map(|o| o.name()),
        "margin": v.known.value(),
        "keep": keep,
        "moves": margins,
        "proven_by": proven_by,
        "bounds": bounds,
        "history": v.history,
        "history_free": v.history == 0,
        "exact": p.exact,
        "summary": v.summary(pos.side),
    })
}

/// An answer with a status other than 200 and a body `{"error": "…"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status: 400 for bad input, 404, 405, 413, 503.
    pub status: StatusCode,
    /// What was wrong, for a person to read.
    pub message: String,
}

impl ApiError {
    /// A 400 Bad Request.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, json_body(&json!({ "error": self.message }))).into_response()
    }
}

impl From<PoolError> for ApiError {
    fn from(e: PoolError) -> ApiError {
        let status = match e {
            PoolError::Busy(_) | PoolError::AnalysesBusy(_) => StatusCode::SERVICE_UNAVAILABLE,
            PoolError::Failed => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError {
            status,
            message: e.to_string(),
        }
    }
}

type ApiResult = Result<Response, ApiError>;

fn json_body(v: &Value) -> ([(header::HeaderName, &'static str); 1], String) {
    (
        [(header::CONTENT_TYPE, "application/json")],
        format!("{v}\n"),
    )
}

fn ok(v: Value) -> ApiResult {
    Ok(json_body(&v).into_response())
}

/// The request body as `T`; an empty body reads as `{}`. A byte-order mark before the
/// JSON is skipped (RFC 8259 lets a reader ignore it); a key given twice is refused; a
/// field of the wrong type is said in the words of the field ([`FIELD_KINDS`]).
fn parse_body<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = body.map_err(|r| ApiError {
        status: r.status(),
        message: format!("request body: {}", r.body_text()),
    })?;
    let text =
        std::str::from_utf8(&bytes).map_err(|_| ApiError::bad("request body: not UTF-8 text"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = if text.trim().is_empty() { "{}" } else { text };
    let v: Value =
        serde_json::from_str(text).map_err(|e| ApiError::bad(format!("request body: {e}")))?;
    // serde would also read a struct from an array of its fields in order; only an
    // object names them.
    let Some(fields) = v.as_object() else {
        return Err(ApiError::bad("request body: expected a JSON object"));
    };
    for (key, value) in fields {
        if let Some((_, number, words)) = FIELD_KINDS.iter().find(|(k, ..)| *k == key.as_str()) {
            let fits = value.is_null()
                || (if *number {
                    value.is_u64()
                } else {
                    value.is_string()
                });
            if !fits {
                return Err(ApiError::bad(format!("{key} {value}: expected {words}")));
            }
        }
    }
    // Read from the text, not from `v`, which kept only the last of a key given twice.
    serde_json::from_str(text).map_err(|e| {
        let e = e.to_string();
        let e = match e.strip_prefix("duplicate field `") {
            Some(rest) => format!("`{}` is given twice", rest.split('`').next().unwrap_or("")),
            None => e,
        };
        ApiError::bad(format!("request body: {e}"))
    })
}

/// Each field a request may carry: (name, whether it is a number, what it takes in words).
const FIELD_KINDS: [(&str, bool, &str); 9] = [
    (
        "model",
        false,
        "a run's checkpoint (RUN/checkpoints/iter-NNNN), as a string",
    ),
    ("fen", false, "a position's text, as a string"),
    ("moves", false, "move letters, as a string"),
    ("rules", false, "a rule set's name, as a string"),
    ("level", false, "a level's name, as a string"),
    ("sims", true, "a whole number of simulations"),
    ("movetime_ms", true, "a whole number of milliseconds"),
    ("seconds", true, "a whole number of seconds"),
    ("depth", true, "a whole number of plies"),
];

/// The position fields every request may carry.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PositionRequest {
    fen: Option<String>,
    moves: Option<String>,
    rules: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct BestMoveRequest {
    fen: Option<String>,
    moves: Option<String>,
    rules: Option<String>,
    model: Option<String>,
    level: Option<String>,
    sims: Option<u64>,
    movetime_ms: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalyzeRequest {
    fen: Option<String>,
    moves: Option<String>,
    rules: Option<String>,
    model: Option<String>,
    sims: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct InfiniteRequest {
    fen: Option<String>,
    moves: Option<String>,
    rules: Option<String>,
    model: Option<String>,
    seconds: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SolveRequest {
    fen: Option<String>,
    moves: Option<String>,
    rules: Option<String>,
    depth: Option<u64>,
}

/// A request that names a game: the position fields every request may carry.
trait GameRequest: DeserializeOwned {
    /// `fen`, `moves` and `rules`, as given.
    fn fields(&self) -> [Option<&str>; 3];

    /// The most moves accepted.
    fn max_plies(l: &ServeLimits) -> usize {
        l.max_plies
    }

    /// What must hold of the request before its game is built.
    fn check(&self) -> Result<(), ApiError> {
        Ok(())
    }
}

impl GameRequest for PositionRequest {
    fn fields(&self) -> [Option<&str>; 3] {
        [&self.fen, &self.moves, &self.rules].map(Option::as_deref)
    }
}

impl GameRequest for BestMoveRequest {
    fn fields(&self) -> [Option<&str>; 3] {
        [&self.fen, &self.moves, &self.rules].map(Option::as_deref)
    }
}

impl GameRequest for InfiniteRequest {
    fn fields(&self) -> [Option<&str>; 3] {
        [&self.fen, &self.moves, &self.rules].map(Option::as_deref)
    }
}

impl GameRequest for SolveRequest {
    fn fields(&self) -> [Option<&str>; 3] {
        [&self.fen, &self.moves, &self.rules].map(Option::as_deref)
    }
}

impl GameRequest for AnalyzeRequest {
    fn fields(&self) -> [Option<&str>; 3] {
        [&self.fen, &self.moves, &self.rules].map(Option::as_deref)
    }

    fn max_plies(l: &ServeLimits) -> usize {
        l.max_analyze_plies
    }

    fn check(&self) -> Result<(), ApiError> {
        if self.moves.is_none() {
            return Err(ApiError::bad(
                "moves: missing (the moves of the game to review)",
            ));
        }
        Ok(())
    }
}

/// Every handler's prelude: the request body as `T`, checked, and the game it names
/// (the server's rules when it names none), within the server's limit on moves.
fn read_request<T: GameRequest>(
    s: &AppState,
    body: Result<Bytes, BytesRejection>,
) -> Result<(T, Built), ApiError> {
    let r: T = parse_body(body)?;
    r.check()?;
    let [fen, moves, rules] = r.fields();
    let b = build_game(fen, moves, rules, s.rules, T::max_plies(&s.limits))?;
    Ok((r, b))
}

/// A game built from a request, with what each move did.
struct Built {
    game: Game,
    infos: Vec<(MoveInfo, Position)>,
}

/// Builds the game of `fen` (default: the start), `moves` and `rules` (default:
/// `default_rules`), with at most `max_plies` moves.
fn build_game(
    fen: Option<&str>,
    moves: Option<&str>,
    rules: Option<&str>,
    default_rules: RuleSet,
    max_plies: usize,
) -> Result<Built, ApiError> {
    let rules = match rules {
        Some(r) => r
            .parse::<RuleSet>()
            .map_err(|e| ApiError::bad(format!("rules: {e}")))?,
        None => default_rules,
    };
    let start = match fen {
        Some(f) => f
            .parse::<Position>()
            .map_err(|e| ApiError::bad(format!("fen: {e}")))?,
        None => Position::start(),
    };
    let mut game = Game::new(rules, start);
    let list =
        parse_moves(moves.unwrap_or("")).map_err(|e| ApiError::bad(format!("moves: {e}")))?;
    if list.len() > max_plies {
        return Err(ApiError::bad(format!(
            "moves: {} moves; at most {max_plies} are accepted",
            list.len()
        )));
    }
    let mut infos = Vec::with_capacity(list.len());
    for (side, action) in list {
        match game.play_letter(move_letter(side, action)) {
            Ok(info) => infos.push((info, *game.position())),
            Err(e) => {
                return Err(ApiError::bad(format!(
                    "moves: {}: {e}",
                    oware_core::game::after_moves(game.moves().len())
                )));
            }
        }
    }
    Ok(Built { game, infos })
}

/// Letters of the pits `info` captured, last pit first (`dcb`): the run of the
/// opponent's pits, back from the last pit sown, that the capture emptied.
fn captured_pits(mover: Side, info: &MoveInfo, after: &Position) -> String {
    let mut s = String::new();
    if info.captured == 0 {
        return s;
    }
    let opp = mover.opponent();
    let mut pit = info.last_pit as usize;
    while pit / 6 == opp.index() && after.pits[pit] == 0 {
        s.push(move_letter(opp, pit % 6));
        if pit.is_multiple_of(6) {
            break;
        }
        pit -= 1;
    }
    s
}

fn position_json(b: &Built) -> Value {
    let g = &b.game;
    let pos = g.position();
    let plies: Vec<Value> = g
        .moves()
        .iter()
        .zip(&b.infos)
        .map(|(&(side, a), (info, after))| {
            json!({
                "move": move_letter(side, a as usize).to_string(),
                "side": side.letter().to_string(),
                "captured": info.captured,
                "captured_pits": captured_pits(side, info, after),
                "grand_slam_refused": info.grand_slam_refused,
                "moves_again": info.moves_again,
                "fen": after.to_string(),
            })
        })
        .collect();
    json!({
        "rules": g.rules().name(),
        "start": g.start().to_string(),
        "moves": g.move_text(),
        "fen": pos.to_string(),
        "to_move": pos.side.letter().to_string(),
        "legal": mask_letters(pos.side, g.legal_moves()),
        "pits": pos.pits,
        "stores": pos.stores,
        "result": g.outcome().map(|o| result_json(&o)),
        "plies": plies,
    })
}

/// `GET /api/v1/health`.
pub async fn health(State(s): State<Arc<AppState>>) -> ApiResult {
    let l = &s.limits;
    ok(json!({
        "ok": true,
        "model": s.model,
        "rules": s.rules.name(),
        "version": env!("CARGO_PKG_VERSION"),
        "levels": Level::ALL.map(|l| l.name()),
        "limits": {
            "max_sims": l.max_sims,
            "max_movetime_ms": l.max_movetime.as_millis() as u64,
            "analyze_sims": l.analyze_sims,
            "max_analyze_sims": l.max_analyze_sims,
            "max_plies": l.max_plies,
            "max_analyze_plies": l.max_analyze_plies,
            "solve_depth": l.solve_depth,
            "max_solve_depth": l.max_solve_depth,
            "searchers": l.searchers,
            "queue": l.queue,
            "analysis_max_seconds": l.analysis_max_time.as_secs(),
            "max_analyses": s.pool.max_analyses(),
            "max_body_bytes": l.max_body_bytes,
        },
        "puzzles_ready": s.book.len(),
        "tablebase": s.tablebase.as_ref().map(|tb| json!({
            "rules": tb.rules().name(),
            "max_seeds": tb.max_seeds(),
        })),
    }))
}

/// `POST /api/v1/position`.
pub async fn position(
    State(s): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let (_, b) = read_request::<PositionRequest>(&s, body)?;
    ok(position_json(&b))
}

/// The search a `bestmove` request asks for: (job, level).
fn search_job(
    r: &BestMoveRequest,
    game: Game,
    l: &ServeLimits,
) -> Result<(SearchJob, Option<Level>), ApiError> {
    if r.level.is_some() && (r.sims.is_some() || r.movetime_ms.is_some()) {
        return Err(ApiError::bad(
            "give either level or sims/movetime_ms, not both",
        ));
    }
    let mut job = SearchJob {
        game,
        simulations: l.max_sims,
        noise: false,
        temperature: 0.0,
        policy_temperature: None,
        movetime: l.max_movetime,
    };
    let level = match (&r.level, r.sims, r.movetime_ms) {
        (Some(name), ..) => {
            let level = Level::from_name(name).ok_or_else(|| {
                ApiError::bad(format!(
                    "level '{name}': expected novice, amateur, strong or master"
                ))
            })?;
            let (sims, noise, t) = level.settings();
            job.simulations = sims.min(l.max_sims);
            job.noise = noise;
            job.temperature = t;
            job.policy_temperature = level.policy_temperature();
            Some(level)
        }
        (None, None, None) => {
            let (sims, ..) = Level::Strong.settings();
            job.simulations = sims.min(l.max_sims);
            Some(Level::Strong)
        }
        (None, sims, ms) => {
            let cap = l.max_sims as u64;
            job.simulations = capped("sims", sims, job.simulations as u64, cap, SERVER_CAP)? as u32;
            let cap = l.max_movetime.as_millis() as u64;
            if ms.is_some() {
                let ms = capped("movetime_ms", ms, 0, cap, SERVER_CAP)?;
                job.movetime = Duration::from_millis(ms);
            }
            None
        }
    };
    Ok((job, level))
}

/// Whose cap a count over it breaks, in most of the API's answers.
const SERVER_CAP: &str = "this server's cap";

/// A request's count `name` against its cap: absent, `default`; 1 to `cap`, itself; else
/// a 400 naming the parameter, the range and `whose` cap it is. Every count of the API
/// (simulations, milliseconds, seconds, depth) is checked here; a query string's
/// text is read in its own handler.
fn capped(
    name: &str,
    value: Option<u64>,
    default: u64,
    cap: u64,
    whose: &str,
) -> Result<u64, ApiError> {
    match value {
        None => Ok(default),
        Some(n) if (1..=cap).contains(&n) => Ok(n),
        Some(n) => Err(ApiError::bad(format!(
            "{name} {n}: expected 1 to {cap} ({whose})"
        ))),
    }
}

/// A 400 for a request that needs a move to `what` (search, prove) in a finished game.
fn going_on(game: &Game, what: &str) -> Result<(), ApiError> {
    match game.outcome() {
        Some(o) => Err(ApiError::bad(format!(
            "the game is over ({}): there is no move to {what}",
            o.reason.name()
        ))),
        None => Ok(()),
    }
}

/// `{letter: x}` over the legal moves of `side`.
fn per_move<T: serde::Serialize>(side: Side, legal: u8, x: &[T; 6]) -> Value {
    let m: serde_json::Map<String, Value> = (0..6)
        .filter(|a| legal & (1 << a) != 0)
        .map(|a| (move_letter(side, a).to_string(), json!(x[a])))
        .collect();
    Value::Object(m)
}

/// The engine a request's `model` asks for: the server's own (`None`), or a run's
/// checkpoint, loaded on a blocking thread: its pool, its search settings and its
/// description (`None` for the server's own).
async fn engine_of(
    s: &Arc<AppState>,
    model: Option<&str>,
) -> Result<(Arc<SearchPool>, MctsConfig, Option<String>), ApiError> {
    let Some(name) = model else {
        return Ok((s.pool.clone(), s.trained.clone(), None));
    };
    let (st, name) = (s.clone(), name.to_string());
    let loaded = tokio::task::spawn_blocking(move || {
        st.checkpoints
            .get(&st.runs, &name, &st.limits, st.tablebase.clone())
    })
    .await
    .map_err(|_| ApiError {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        message: "loading the checkpoint failed".into(),
    })?
    .map_err(ApiError::bad)?;
    Ok((loaded.pool, loaded.trained, Some(loaded.description)))
}

/// `POST /api/v1/bestmove`.
pub async fn bestmove(
    State(s): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let (r, b) = read_request::<BestMoveRequest>(&s, body)?;
    going_on(&b.game, "search")?;
    let pos = *b.game.position();
    let rules = b.game.rules();
    let legal = b.game.legal_moves();
    let tables = table_json(s.tables_for(rules).as_deref(), &b.game);
    let (job, level) = search_job(&r, b.game, &s.limits)?;
    let (pool, _, model) = engine_of(&s, r.model.as_deref()).await?;
    let a = pool.search(job).await?;
    let mut v = search_json(&pos, rules, legal, &a);
    v["level"] = json!(level.map(|l| l.name()));
    v["model"] = json!(model.as_deref().unwrap_or(&s.model));
    v["tablebase"] = tables;
    ok(v)
}

/// What a search found at `pos` (legal moves `legal`): the fields `bestmove` and
/// `infinite` share.
fn search_json(pos: &Position, rules: RuleSet, legal: u8, a: &SearchAnswer) -> Value {
    let side = pos.side;
    json!({
        "move": move_letter(side, a.action).to_string(),
        "value": a.value,
        "policy": per_move(side, legal, &a.policy),
        "pv": line_letters(pos, rules, a.pv.iter().copied()),
        "visits": per_move(side, legal, &a.visits),
        "q": per_move(side, legal, &a.q),
        "lines": a.lines.iter().filter_map(|l| {
            let &m = l.first()?;
            Some(json!({
                "move": move_letter(side, m).to_string(),
                "visits": a.visits[m],
                "q": if a.visits[m] > 0 { json!(a.q[m]) } else { Value::Null },
                "pv": line_letters(pos, rules, l.iter().copied()),
            }))
        }).collect::<Vec<_>>(),
        "simulations": a.simulations,
        "elapsed_ms": a.elapsed.as_secs_f64() * 1000.0,
    })
}

/// Time between two lines of an infinite analysis.
const ANALYSIS_EVERY: Duration = Duration::from_millis(250);

/// `POST /api/v1/infinite`: the search of one position, streamed as JSON lines until the
/// client closes the connection or the time is up.
pub async fn infinite(
    State(s): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let (r, b) = read_request::<InfiniteRequest>(&s, body)?;
    going_on(&b.game, "search")?;
    let cap = s.limits.analysis_max_time.as_secs();
    let whose = "this server's cap, oware serve --analysis-max-seconds";
    let seconds = capped("seconds", r.seconds, cap, cap, whose)?;
    let pos = *b.game.position();
    let rules = b.game.rules();
    let legal = b.game.legal_moves();
    let tables = table_json(s.tables_for(rules).as_deref(), &b.game);
    // A few updates of room: a client that reads slowly skips some.
    let (updates, rx) = tokio::sync::mpsc::channel(4);
    let (pool, ..) = engine_of(&s, r.model.as_deref()).await?;
    pool.analyse(AnalysisJob {
        game: b.game,
        max_time: Duration::from_secs(seconds),
        every: ANALYSIS_EVERY,
        updates,
    })?;
    let lines = JsonLines {
        rx,
        line: move |u: AnalysisUpdate| {
            let a = &u.answer;
            let mut v = search_json(&pos, rules, legal, a);
            let secs = a.elapsed.as_secs_f64();
            v["nps"] = json!((a.simulations as f64 / secs.max(1e-3)).round() as u64);
            v["depth"] = json!(a.depth);
            v["reused_visits"] = json!(u.reused);
            v["seconds"] = json!(seconds);
            v["done"] = json!(u.done);
            v["tablebase"] = tables.clone();
            v
        },
    };
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::new(lines),
    )
        .into_response())
}

/// A response body of one JSON line per message of `rx`, sent as each comes. Dropping it
/// (the client went away) drops `rx`, which tells the sender to stop.
struct JsonLines<T, F> {
    rx: tokio::sync::mpsc::Receiver<T>,
    line: F,
}

impl<T, F: FnMut(T) -> Value + Unpin> hyper::body::Body for JsonLines<T, F> {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        this.rx.poll_recv(cx).map(|m| {
            m.map(|t| {
                Ok(hyper::body::Frame::data(Bytes::from(format!(
                    "{}\n",
                    (this.line)(t)
                ))))
            })
        })
    }
}

/// `POST /api/v1/analyze`.
pub async fn analyze(
    State(s): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let (r, b) = read_request::<AnalyzeRequest>(&s, body)?;
    let l = &s.limits;
    let (default, cap) = (l.analyze_sims as u64, l.max_analyze_sims as u64);
    let sims = capped(
        "sims",
        r.sims,
        default,
        cap,
        "this server's cap for analysis",
    )? as u32;
    let (pool, trained, _) = engine_of(&s, r.model.as_deref()).await?;
    let cfg = ReviewConfig {
        simulations: sims,
        exact_depth: l.analyze_exact_depth,
        exact_nodes: l.analyze_exact_nodes,
        tablebase: s.tables_for(b.game.rules()),
        trained,
    };
    let game = b.game;
    let reviews = pool.review(game.clone(), cfg.clone()).await?;
    ok(review_json(&game, &cfg, &reviews))
}

/// `POST /api/v1/solve`.
pub async fn solve(
    State(s): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let (r, b) = read_request::<SolveRequest>(&s, body)?;
    going_on(&b.game, "prove")?;
    let l = &s.limits;
    let (default, cap) = (l.solve_depth as u64, l.max_solve_depth as u64);
    let depth = capped("depth", r.depth, default, cap, SERVER_CAP)? as u32;
    let side = b.game.position().side;
    let job = SolveJob {
        game: b.game,
        depth,
        nodes: l.solve_nodes,
    };
    let sol = s
        .pool
        .solve(job)
        .await?
        .ok_or_else(|| ApiError::bad("the game is over: there is no move to prove"))?;
    let moves: serde_json::Map<String, Value> = (0..6)
        .filter_map(|a| Some((move_letter(side, a).to_string(), json!(sol.moves[a]?))))
        .collect();
    ok(json!({
        "depth": depth,
        "result": sol.position.result,
        "plies": sol.position.plies,
        "best": move_letter(side, sol.best).to_string(),
        "line": sol.line,
        "moves": moves,
    }))
}

/// `GET /api/v1/puzzles?n=N`.
pub async fn puzzles(State(s): State<Arc<AppState>>, RawQuery(q): RawQuery) -> ApiResult {
    const MAX: usize = 50;
    let mut n = 5usize;
    for pair in q
        .as_deref()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "n" => {
                n = v
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=MAX).contains(n))
                    .ok_or_else(|| ApiError::bad(format!("n '{v}': expected 1 to {MAX}")))?;
            }
            _ => {
                return Err(ApiError::bad(format!(
                    "unknown query parameter '{k}' (only n)"
                )));
            }
        }
    }
    let picked = {
        let mut rng = s
            .rng
            .lock()
            .map_err(|_| ApiError::bad("puzzles unavailable"))?;
        s.book.sample(n, &mut rng)
    };
    ok(serde_json::to_value(picked).unwrap_or(Value::Array(Vec::new())))
}

/// Any other path: 404 with a JSON body.
pub async fn not_found(method: Method, OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!("no such endpoint: {method} {}", uri.path()),
    }
}

/// A known path with the wrong method: 405 with a JSON body.
pub async fn wrong_method(method: Method, OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        message: format!("{} does not take {method}", uri.path()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(fen: Option<&str>, moves: &str) -> Result<Built, ApiError> {
        build_game(fen, Some(moves), None, RuleSet::abapa(), 400)
    }

    #[test]
    fn bad_positions_and_moves_name_the_field() {
        let e = built(Some("1-2-3"), "").err().unwrap();
        assert!(
            e.message.starts_with("fen: ") && e.message.contains("15 fields"),
            "{e:?}"
        );
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        let e = built(None, "Fx").err().unwrap();
        assert!(
            e.message.starts_with("moves: ") && e.message.contains("'x'"),
            "{e:?}"
        );
        let e = built(None, "FF").err().unwrap();
        assert!(
            e.message.contains("after 1 move: ") && e.message.contains("North"),
            "{e:?}"
        );
        let e = build_game(None, None, Some("chess"), RuleSet::abapa(), 10)
            .err()
            .unwrap();
        assert!(e.message.starts_with("rules: ") && e.message.contains("chess"));
        let e = build_game(None, Some("FfFf"), None, RuleSet::abapa(), 3)
            .err()
            .unwrap();
        assert!(e.message.contains("at most 3"), "{e:?}");
    }

    #[test]
    fn captures_are_named_pit_by_pit() {
        // docs/rules.md example 4.
        let b = built(Some("0-0-8-0-0-1-1-1-1-1-2-3-15-15-S"), "C").unwrap();
        let (info, after) = &b.infos[0];
        assert!(info.captured > 0);
        // C sows D..e, making a..d 2 and e 3: all five are taken, e first.
        assert_eq!(info.captured, 11);
        let pits = captured_pits(Side::South, info, after);
        assert_eq!(pits, "edcba");
        let v = position_json(&b);
        assert_eq!(v["result"]["winner"], "S");
        assert!(
            v["result"]["text"]
                .as_str()
                .unwrap()
                .starts_with("South wins")
        );
        assert_eq!(v["plies"][0]["captured_pits"], pits);
        // No capture, no pits.
        let b = built(None, "F").unwrap();
        assert_eq!(captured_pits(Side::South, &b.infos[0].0, &b.infos[0].1), "");
        assert_eq!(position_json(&b)["result"], Value::Null);
        assert_eq!(position_json(&b)["legal"], "abcdef");
    }

    #[test]
    fn bestmove_limits_are_checked() {
        let l = ServeLimits::default();
        let g = Game::new(RuleSet::abapa(), Position::start());
        let req = |level: Option<&str>, sims, ms| BestMoveRequest {
            level: level.map(String::from),
            sims,
            movetime_ms: ms,
            ..BestMoveRequest::default()
        };
        let (j, lv) = search_job(&req(None, None, None), g.clone(), &l).unwrap();
        assert_eq!((j.simulations, lv), (400, Some(Level::Strong)));
        let (j, _) = search_job(&req(Some("Novice"), None, None), g.clone(), &l).unwrap();
        assert!(j.noise && j.temperature == 1.0 && j.simulations == 8);
        assert_eq!(j.policy_temperature, Some(1.0));
        let (j, _) = search_job(&req(Some("master"), None, None), g.clone(), &l).unwrap();
        assert_eq!((j.simulations, j.policy_temperature), (1600, None));
        let (j, lv) = search_job(&req(None, Some(50), Some(200)), g.clone(), &l).unwrap();
        assert_eq!((j.simulations, j.movetime.as_millis(), lv), (50, 200, None));
        for bad in [
            req(Some("strong"), Some(5), None),
            req(Some("grandmaster"), None, None),
            req(None, Some(0), None),
            req(None, Some(l.max_sims as u64 + 1), None),
            req(None, None, Some(0)),
            req(None, None, Some(10_000_000)),
        ] {
            let e = search_job(&bad, g.clone(), &l).err().unwrap();
            assert_eq!(e.status, StatusCode::BAD_REQUEST, "{bad:?}");
        }
    }

    #[test]
    fn bodies_are_strict_json() {
        let body = |s: &str| Ok(Bytes::from(s.to_string()));
        let r: PositionRequest = parse_body(body("")).unwrap();
        assert!(r.fen.is_none());
        let e = parse_body::<PositionRequest>(body("{\"fenn\": 1}")).unwrap_err();
        assert!(e.message.contains("unknown field `fenn`"), "{e:?}");
        let e = parse_body::<BestMoveRequest>(body("{\"sims\": -3}")).unwrap_err();
        assert_eq!(e.message, "sims -3: expected a whole number of simulations");
        // A type error says what the field takes, never a Rust type's name.
        for (text, said) in [
            ("{\"sims\": 1e30}", "expected a whole number of simulations"),
            ("{\"sims\": 2.5}", "expected a whole number of simulations"),
            ("{\"fen\": 5}", "expected a position's text, as a string"),
            ("{\"depth\": \"3\"}", "expected a whole number of plies"),
        ] {
            let e = parse_body::<SolveRequest>(body(text))
                .err()
                .or_else(|| parse_body::<BestMoveRequest>(body(text)).err())
                .unwrap_or_else(|| panic!("{text} was taken"));
            let field = text.split('"').nth(1).unwrap();
            assert!(
                e.message.starts_with(&format!("{field} ")) && e.message.ends_with(said),
                "{text}: {}",
                e.message
            );
            assert!(
                !e.message.contains("u64") && !e.message.contains("floating"),
                "{e:?}"
            );
        }
        // A byte-order mark before the JSON is read past; a key given twice is refused.
        let r: PositionRequest = parse_body(body("\u{feff}{\"moves\": \"Ff\"}")).unwrap();
        assert_eq!(r.moves.as_deref(), Some("Ff"));
        let e = parse_body::<PositionRequest>(body("{\"moves\": \"Ff\", \"moves\": \"Bb\"}"))
            .unwrap_err();
        assert!(e.message.contains("`moves` is given twice"), "{e:?}");
        assert!(parse_body::<PositionRequest>(body("[1,2")).is_err());
        let e = parse_body::<PositionRequest>(body("[null, null, null]")).unwrap_err();
        assert!(e.message.contains("JSON object"), "{e:?}");
    }
}

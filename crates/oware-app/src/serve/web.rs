//! The web app's files, compiled into the binary from `web/` (plain HTML, CSS and
//! JavaScript: no build step, no network access from the page).

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// (name, content type, body) of every file the app is made of: the page, its style, its
/// JavaScript modules (`app.js` imports the others) and its icon.
const FILES: [(&str, &str, &str); 17] = [
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../../../../web/index.html"),
    ),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("../../../../web/app.css"),
    ),
    ("app.js", JS, include_str!("../../../../web/app.js")),
    ("api.js", JS, include_str!("../../../../web/api.js")),
    ("board.js", JS, include_str!("../../../../web/board.js")),
    ("chart.js", JS, include_str!("../../../../web/chart.js")),
    ("editor.js", JS, include_str!("../../../../web/editor.js")),
    (
        "endgame-trainer.js",
        JS,
        include_str!("../../../../web/endgame-trainer.js"),
    ),
    (
        "engine-panel.js",
        JS,
        include_str!("../../../../web/engine-panel.js"),
    ),
    ("play.js", JS, include_str!("../../../../web/play.js")),
    ("puzzles.js", JS, include_str!("../../../../web/puzzles.js")),
    ("review.js", JS, include_str!("../../../../web/review.js")),
    ("study.js", JS, include_str!("../../../../web/study.js")),
    (
        "training.js",
        JS,
        include_str!("../../../../web/training.js"),
    ),
    ("tree.js", JS, include_str!("../../../../web/tree.js")),
    ("ui.js", JS, include_str!("../../../../web/ui.js")),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("../../../../web/favicon.svg"),
    ),
];

/// A module is served as JavaScript, or the browser refuses to run it.
const JS: &str = "text/javascript; charset=utf-8";

/// The page may load only its own files and talk only to its own server.
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self'; \
                   script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

fn send(name: &str) -> Response {
    match FILES.iter().find(|(n, ..)| *n == name) {
        Some((_, kind, body)) => (
            [
                (header::CONTENT_TYPE, *kind),
                (header::CONTENT_SECURITY_POLICY, CSP),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            *body,
        )
            .into_response(),
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!("no such file: /{name}\n"),
        )
            .into_response(),
    }
}

/// `GET /`: the app.
pub async fn index() -> Response {
    send("index.html")
}

/// `GET /FILE`: one of the app's files.
pub async fn file(Path(name): Path<String>) -> Response {
    send(&name)
}

//! `skillgate inspect`: the skillgate web console for any A2A 1.0 agent, local or remote.
//!
//! A person enters an agent URL (or passes one on the command line) and sees its Agent Card
//! with the linter's findings (`skillgate-lint`), every skill's Skill Interface Document as
//! the validated client obtains it (`describe_skill` plus the three-way digest check, with
//! its verdict), a conformance run with live progress (`skillgate-conformance`), a call form
//! whose calls are validated before sending and after answering (`skillgate-client`), and a
//! task view (get, cancel, live events) for the agent's tasks. The pages are the served
//! console's (`skillgate_server::console::render`): same layout, tables, script and CSP.
//!
//! The inspector makes outbound requests on behalf of a browser page, so it guards itself:
//! it is meant for loopback, refuses any request whose `Host` or `Origin` is not its own
//! (the server's checks, [`skillgate_server::OriginGuard`]), and sends every outbound request
//! through the client's transport policy (plain `http://` only to loopback unless allowed,
//! bounded bodies, timeouts and redirects). A bearer token for the agent comes from the
//! configuration or from a form, kept in memory for that browser session only and never
//! written into a page or a log. Schemas are never fetched: documents embed them.
//!
//! ```no_run
//! # async fn run() -> Result<(), skillgate_inspect::InspectError> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! println!("open http://{}/", listener.local_addr()?);
//! let config = skillgate_inspect::InspectConfig::default();
//! skillgate_inspect::serve(listener, config, std::future::pending()).await
//! # }
//! ```

mod api;
mod handlers;
mod pages;
mod state;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use skillgate_server::console::render;
use skillgate_transport::TransportConfig;

pub use state::MAX_SESSIONS;

/// Largest request body the inspector accepts from its browser (arguments of a call).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Most connections served at once: one person's browser needs a handful.
pub const MAX_CONNECTIONS: usize = 64;

/// What the inspector needs to start.
#[derive(Debug, Clone, Default)]
pub struct InspectConfig {
    /// Bounds, scheme policy and credentials of every outbound request (the CLI's `--token`,
    /// `--token-file`, `--header`, `--allow-http`, `--timeout`, `--cacert`). The token and
    /// headers are sent only to the origin of [`InspectConfig::agent`], never to an agent a
    /// page names; with credentials, `agent` is required.
    pub transport: TransportConfig,
    /// The agent the index shows when the browser names none, and the one the configured
    /// credentials are for.
    pub agent: Option<String>,
}

/// Why the inspector could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// Binding, accepting or serving failed.
    #[error("inspector I/O: {0}")]
    Io(#[from] std::io::Error),
    /// The outbound transport cannot be built from the configuration (a bad certificate).
    #[error("outbound client: {0}")]
    Client(String),
    /// The configuration is inconsistent (credentials without the agent they are for).
    #[error("{0}")]
    Config(String),
}

/// The inspector's routes for a server reachable at `own_url` (its `http://addr`): the Host
/// and Origin checks admit that URL's host and origin (and `localhost`, IP literals).
pub fn router(config: InspectConfig, own_url: &str) -> Result<Router, InspectError> {
    let st = state::AppState::new(config, own_url)?;
    let app = render::with_assets(Router::new())
        .route("/", get(handlers::index))
        .route("/skill", get(handlers::skill))
        .route("/task", get(handlers::task))
        .route("/task/cancel", post(handlers::cancel))
        .route("/session/token", post(handlers::set_token))
        .route("/session/forget", post(handlers::forget_token))
        .route("/api/call", post(api::call))
        .route("/api/conformance", post(api::start_conformance))
        .route("/api/conformance/{id}", get(api::conformance_progress))
        .route("/api/task/events", get(api::task_events))
        .fallback(handlers::not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(st.clone(), guard))
        .with_state(st);
    Ok(app)
}

/// Refuses, before any handler runs, a request that names another host, comes from another
/// origin, or that the browser says another site started: a web page the user visits must not
/// drive the inspector (DNS rebinding, cross-site forms, or a link or image whose URL makes the
/// inspector fetch something). `Sec-Fetch-Site` is what browsers send on every request,
/// `GET`s included, which carry no `Origin`; `none` is a URL the user typed or opened.
async fn guard(State(st): State<state::AppState>, req: Request, next: Next) -> Response {
    let site = req
        .headers()
        .get("sec-fetch-site")
        .map(|v| v.to_str().unwrap_or("?").to_owned());
    if let Some(site) = site.filter(|s| s != "same-origin" && s != "none") {
        let reason = format!(
            "requests started by another site are refused (Sec-Fetch-Site: {site}); open the inspector's URL directly"
        );
        return render::page(StatusCode::FORBIDDEN, pages::refused(&reason));
    }
    match st.guard().check(req.headers()) {
        Ok(()) => next.run(req).await,
        Err(reason) => render::page(StatusCode::FORBIDDEN, pages::refused(&reason.to_string())),
    }
}

/// Serves the inspector on `listener` until `shutdown` resolves, with the agent server's
/// connection bounds (header-read and idle timers, connection cap, shutdown grace: open
/// event relays do not hold the shutdown beyond the grace).
pub async fn serve(
    listener: tokio::net::TcpListener,
    config: InspectConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), InspectError> {
    let own = format!("http://{}", listener.local_addr()?);
    let app = router(config, &own)?;
    let bounds = skillgate_runtime::ServerConfig {
        max_connections: MAX_CONNECTIONS,
        shutdown_grace: std::time::Duration::from_secs(2),
        ..Default::default()
    };
    skillgate_server::serve_app(app, listener, &bounds, shutdown).await?;
    Ok(())
}

//! HTTP: the router and the Agent Card endpoint. The cross-cutting steps every request passes
//! (access log, panic catching, browser checks, extensions, bearer auth, version check) are one
//! layer in `edge`; the bindings live in `jsonrpc`, `rest` and their 0.3 counterparts.

mod body;
mod browser;
mod conn;
mod edge;
mod jsonrpc;
mod jsonrpc03;
mod observe;
mod refusal;
mod rest;
mod rest03;
mod sse;

pub(crate) use crate::state::{request_context, Ctx, JSON_CONTENT_TYPE};
use crate::state::{ActiveExtensions, AppState, Shared};

use browser::BrowserPolicy;
pub use browser::{OriginGuard, OriginRefused};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use skillgate_a2a as a2a;
use skillgate_runtime::metrics::Metrics;
use skillgate_runtime::{Agent, AgentSwap, ServerConfig};
use std::sync::Arc;

/// The `A2A-Version` a JSON-RPC request sent (empty when none): the JSON-RPC adapter decides
/// with it once it has read the method, which names the request's own version.
#[derive(Clone, Debug)]
pub(crate) struct RequestedVersion(pub(crate) String);

/// The router serving `agent` at `base_url` (used for the card's interface URLs).
pub fn router(agent: Agent, config: ServerConfig, base_url: String) -> Router {
    router_with_swap(agent, config, base_url).0
}

/// [`router`], plus the handle that replaces its agent while it serves.
pub fn router_with_swap(
    agent: Agent,
    config: ServerConfig,
    base_url: String,
) -> (Router, AgentSwap) {
    let metrics = metrics_of(&config);
    build_router(agent, config, base_url, Default::default(), metrics)
}

fn metrics_of(config: &ServerConfig) -> Metrics {
    if config.metrics {
        Metrics::enabled()
    } else {
        Metrics::disabled()
    }
}

fn build_router(
    agent: Agent,
    config: ServerConfig,
    base_url: String,
    streams_end: tokio_util::sync::CancellationToken,
    metrics: Metrics,
) -> (Router, AgentSwap) {
    let mut urls = vec![base_url.as_str()];
    urls.extend(config.public_url.as_deref());
    let browsers =
        browser::BrowserPolicy::new(config.allow_any_host, &urls, &config.allowed_origins);
    let swap = AgentSwap::new(agent, &config, &base_url, metrics.clone());
    let state = AppState::new(Shared {
        service: swap.service(),
        swap: swap.clone(),
        // ASCII and digits: always a valid value.
        cache_control: HeaderValue::try_from(format!(
            "public, max-age={}",
            config.card_max_age.as_secs()
        ))
        .unwrap_or(HeaderValue::from_static("no-cache")),
        body_limit: config.body_limit,
        max_depth: config.max_json_depth,
        request_timeout: config.request_timeout,
        tokens: config.tokens.map(Arc::new),
        streams_end,
        metrics,
    });
    let app = routes(state, browsers);
    (app, swap)
}

fn routes(state: AppState, browsers: BrowserPolicy) -> Router {
    let mut router = Router::new();
    if state.metrics.is_enabled() {
        router = router.route(observe::METRICS_PATH, get(metrics_scrape));
    }
    rest03::routes(crate::console::routes(router))
        .route(a2a::AGENT_CARD_PATH, get(agent_card))
        .route("/", get(root_get).post(jsonrpc::handle))
        .route("/message:send", post(rest::send_message))
        .route("/message:stream", post(rest::send_streaming_message))
        .route("/tasks", get(rest::list_tasks))
        .route(
            "/tasks/{id}",
            get(rest::get_task_or_subscribe).post(rest::post_task_action),
        )
        .route(
            "/tasks/{id}/pushNotificationConfigs",
            post(rest::create_push_config)
                .get(rest::list_push_configs)
                .fallback(rest::push_config_other),
        )
        // The collection with a trailing slash, as some clients write it.
        .route(
            "/tasks/{id}/pushNotificationConfigs/",
            get(rest::list_push_configs).fallback(rest::push_config_other),
        )
        .route(
            "/tasks/{id}/pushNotificationConfigs/{cid}",
            get(rest::get_push_config)
                .delete(rest::delete_push_config)
                .fallback(rest::push_config_other),
        )
        .route("/extendedAgentCard", get(rest::extended_card))
        .fallback(rest::not_found)
        .method_not_allowed_fallback(rest::method_not_allowed)
        // One layer runs every cross-cutting step in order (edge.rs): six `from_fn` layers
        // cost each request a clone, a boxed service and a boxed future apiece.
        .layer(middleware::from_fn_with_state(
            edge::Edge::new(state.clone(), browsers),
            edge::layer,
        ))
        .with_state(state)
}

/// An agent's router ready to serve: the app, the swap that replaces its agent, and what the
/// accept loop needs (the connection limits, the end of open streams, the counters).
pub(crate) struct Prepared {
    app: Router,
    /// The served agent and card, shared with every other binding of the server.
    pub(crate) swap: AgentSwap,
    limits: conn::Limits,
    streams_end: tokio_util::sync::CancellationToken,
    metrics: Metrics,
}

impl Prepared {
    /// The router of `agent` under `config`, its card advertising `base_url`.
    pub(crate) fn new(agent: Agent, config: ServerConfig, base_url: String) -> Self {
        let limits = conn::Limits::of(&config);
        let streams_end = tokio_util::sync::CancellationToken::new();
        let metrics = metrics_of(&config);
        let (app, swap) = build_router(
            agent,
            config,
            base_url,
            streams_end.clone(),
            metrics.clone(),
        );
        Self {
            app,
            swap,
            limits,
            streams_end,
            metrics,
        }
    }

    /// Serves on `listener` until `shutdown` resolves, then stops listening, ends open event
    /// streams, closes idle connections and gives in-flight requests the shutdown grace.
    pub(crate) async fn run(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> std::io::Result<()> {
        conn::run(
            listener,
            self.app,
            self.limits,
            shutdown,
            self.streams_end,
            self.metrics,
        )
        .await
    }
}

/// Serves any axum `app` (not an agent: `skillgate inspect`'s pages) under the same
/// connection discipline as [`crate::serve`]: the header-read and idle timers, the connection
/// cap and the shutdown grace of `config` (its other fields are not used). Returns once
/// `shutdown` resolved and the connections finished or the grace ran out.
pub async fn serve_app(
    app: Router,
    listener: tokio::net::TcpListener,
    config: &ServerConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let streams_end = tokio_util::sync::CancellationToken::new();
    conn::run(
        listener,
        app,
        conn::Limits::of(config),
        shutdown,
        streams_end,
        Metrics::disabled(),
    )
    .await
}

fn is_jsonrpc_path(path: &str) -> bool {
    path == "/"
}

/// `GET /`: the console for a browser; for anyone else the 405 the JSON-RPC endpoint has
/// always answered (with the `Allow` header axum's method fallback would have set).
async fn root_get(st: State<AppState>, method: axum::http::Method, headers: HeaderMap) -> Response {
    if let Some(page) = crate::console::root_page(st, &method, &headers).await {
        return page;
    }
    let mut r = rest::method_not_allowed(method).await.into_response();
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    r
}

/// `GET /metrics` (routed only when the metrics are on; behind the bearer check like every
/// path but the card).
async fn metrics_scrape(State(st): State<AppState>) -> Response {
    let mut r = Response::new(Body::from(st.metrics.encode().unwrap_or_default()));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(skillgate_runtime::metrics::CONTENT_TYPE),
    );
    r
}

async fn agent_card(State(st): State<AppState>, req: Request) -> Response {
    // One snapshot: body, ETag and Last-Modified always describe the same card.
    let served = st.swap.card();
    let (bytes, etag) = served.for_reader(&requested_version(req.uri(), req.headers()));
    let matches = req
        .headers()
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == etag);
    let mut resp = if matches {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = Response::new(Body::from(bytes.clone()));
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(JSON_CONTENT_TYPE),
        );
        r
    };
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, v);
    }
    h.insert(header::CACHE_CONTROL, st.cache_control.clone());
    if let Ok(v) = HeaderValue::from_str(&served.last_modified) {
        h.insert(header::LAST_MODIFIED, v);
    }
    if served.varies() {
        // Two renderings behind one URL: a cache must key them by the header.
        h.insert(
            header::VARY,
            HeaderValue::from_static(a2a::A2A_VERSION_HEADER),
        );
    }
    resp
}

/// Where a JSON answer starts: serde_json's `to_vec` starts at 128 bytes and doubles, so an
/// evaluate's answer (about 1.2 KB) cost four reallocations and their copies (callgrind).
const ANSWER_CAPACITY: usize = 2048;

/// `v` as the JSON of an answer body, written into a buffer sized for a task.
pub(crate) fn answer_json<T: serde::Serialize + ?Sized>(v: &T) -> serde_json::Result<Vec<u8>> {
    let mut body = Vec::with_capacity(ANSWER_CAPACITY);
    serde_json::to_writer(&mut body, v)?;
    Ok(body)
}

/// The A2A header names, parsed once: a lookup by `&str` parses and checks the name on every
/// request (about 300 instructions each, callgrind). Lower case, as `HeaderName` keeps names;
/// the test `a2a_header_names_are_the_crates` ties them to `skillgate_a2a`'s.
const A2A_VERSION: HeaderName = HeaderName::from_static("a2a-version");
/// `A2A-Extensions`, see [`A2A_VERSION`].
const A2A_EXTENSIONS: HeaderName = HeaderName::from_static("a2a-extensions");
/// `X-A2A-Extensions` (0.3), see [`A2A_VERSION`].
const A2A_EXTENSIONS_V03: HeaderName = HeaderName::from_static("x-a2a-extensions");

/// Reads `A2A-Version` from the header or the `A2A-Version` query parameter; missing means 0.3.
fn requested_version(uri: &axum::http::Uri, headers: &HeaderMap) -> String {
    if let Some(v) = headers.get(A2A_VERSION) {
        return v.to_str().unwrap_or("").trim().to_string();
    }
    if let Some(q) = uri.query() {
        // Percent-decoded, so `A2A-Version=1%2E0` reads as a client library would send it.
        for (k, v) in form_urlencoded::parse(q.as_bytes()) {
            if k.eq_ignore_ascii_case(a2a::A2A_VERSION_HEADER) {
                return v.trim().to_string();
            }
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a2a_header_names_are_the_crates() {
        for (parsed, name) in [
            (&A2A_VERSION, a2a::A2A_VERSION_HEADER),
            (&A2A_EXTENSIONS, a2a::A2A_EXTENSIONS_HEADER),
            (&A2A_EXTENSIONS_V03, a2a::A2A_EXTENSIONS_HEADER_V03),
        ] {
            assert_eq!(parsed.as_str(), name.to_ascii_lowercase());
        }
    }
}

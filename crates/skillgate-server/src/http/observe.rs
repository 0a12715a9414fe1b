//! The request span, the access log and the request counters, in the outermost layer: every
//! request the router sees (refusals of the layers inside it and caught panics included) is
//! logged once and counted once.
//!
//! The span `request` carries what is learned on the way in: the binding (from the path), the
//! A2A method (from the path, or from the JSON-RPC envelope through [`RpcMethod`]), the skill
//! and task id (recorded by the service), the draft error code of a refused task (`code`) and
//! the A2A error or HTTP refusal of the answer (`error`, through [`ErrorReason`]). The access
//! line is one event inside it, with the HTTP method, the path (never the query), the status
//! and the time to the response head. No header is logged, so no token can be.

use super::is_jsonrpc_path;
use axum::extract::Request;
use axum::http::Method;
use axum::response::Response;
use skillgate_a2a::{self as a2a, methods};
use skillgate_runtime::metrics::{millis, Metrics};
use std::future::Future;
use std::time::Instant;
use tracing::field::{display, Empty};
use tracing::Instrument;

/// Target of the access-log events (`RUST_LOG=skillgate::access=off` silences them alone).
pub(crate) const ACCESS_TARGET: &str = "skillgate::access";

/// The path of the metrics scrape.
pub(crate) const METRICS_PATH: &str = "/metrics";

/// The A2A method a JSON-RPC request named, set on its response by the binding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RpcMethod(pub(crate) &'static str);

/// The reason name of the A2A error (`TASK_NOT_FOUND`) or HTTP refusal (`UNAUTHENTICATED`) a
/// response carries, set on it by whoever built the error body.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ErrorReason(pub(crate) &'static str);

/// Label of a request that names no A2A method (the card, a bad envelope, an unknown path).
const NO_METHOD: &str = "none";

/// The binding label of a path.
fn binding_of(path: &str) -> &'static str {
    if is_jsonrpc_path(path) {
        "jsonrpc"
    } else if path == a2a::AGENT_CARD_PATH {
        "card"
    } else if path == METRICS_PATH {
        "metrics"
    } else if crate::console::is_console_path(path) {
        "console"
    } else if path.starts_with("/message:")
        || skillgate_a2a::v03::rest::is_v03_path(path)
        || path == "/tasks"
        || path.starts_with("/tasks/")
        || path == "/extendedAgentCard"
    {
        "http-json"
    } else {
        "none"
    }
}

/// The A2A method an HTTP+JSON request asks for, by HTTP method and path.
fn rest_method(m: &Method, path: &str) -> &'static str {
    // A 0.3 path is labelled with the 1.0 method it runs, as 0.3 JSON-RPC methods are.
    let path = match path.strip_prefix(skillgate_a2a::v03::rest::PREFIX) {
        Some("/card") => "/extendedAgentCard",
        Some(rest) if rest.starts_with('/') => rest,
        _ => path,
    };
    let post = m == Method::POST;
    let get = m == Method::GET;
    match path {
        "/message:send" if post => methods::SEND_MESSAGE,
        "/message:stream" if post => methods::SEND_STREAMING_MESSAGE,
        "/tasks" if get => methods::LIST_TASKS,
        "/extendedAgentCard" if get => methods::GET_EXTENDED_AGENT_CARD,
        _ => match path.strip_prefix("/tasks/") {
            Some(rest) if rest.contains("/pushNotificationConfigs") => "PushNotificationConfig",
            Some(rest) if rest.ends_with(":subscribe") && (get || post) => {
                methods::SUBSCRIBE_TO_TASK
            }
            Some(rest) if rest.ends_with(":cancel") && post => methods::CANCEL_TASK,
            Some(rest) if !rest.contains(':') && get => methods::GET_TASK,
            _ => NO_METHOD,
        },
    }
}

/// The label of a JSON-RPC method name: the A2A method, or `unknown` for any other string
/// (a client's string never becomes a label value: the series stay bounded).
pub(crate) fn rpc_method_label(m: &str) -> &'static str {
    // A 0.3 method is labelled with the 1.0 method it runs: one series per operation.
    methods::ALL
        .into_iter()
        .find(|k| *k == m)
        .or_else(|| skillgate_a2a::v03::methods::v1_method(m))
        .unwrap_or("unknown")
}

/// The layer: opens the span, runs the request in it, counts and logs the answer.
pub(crate) async fn layer<F: Future<Output = Response>>(
    metrics: &Metrics,
    req: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let start = Instant::now();
    let path = req.uri().path();
    // A browser's `GET /` is the console's index, not a JSON-RPC call.
    let binding = if crate::console::is_index(req.method(), path, req.headers()) {
        "console"
    } else {
        binding_of(path)
    };
    let method = if binding == "http-json" {
        rest_method(req.method(), path)
    } else {
        NO_METHOD
    };
    let span = tracing::info_span!(
        "request",
        binding = display(binding),
        method = Empty,
        skill = Empty,
        task_id = Empty,
        code = Empty,
        error = Empty,
    );
    // The request moves into the router; what the line needs is kept only when it is
    // written (a URI's first clone may copy it).
    let logged = tracing::enabled!(target: ACCESS_TARGET, tracing::Level::INFO)
        .then(|| (req.method().clone(), req.uri().clone()));
    let resp = next(req).instrument(span.clone()).await;
    let method = resp.extensions().get::<RpcMethod>().map_or(method, |m| m.0);
    let status = resp.status().as_u16();
    metrics.request(binding, method, status);
    if method != NO_METHOD {
        span.record("method", display(method));
    }
    if let Some(e) = resp.extensions().get::<ErrorReason>() {
        span.record("error", display(e.0));
    }
    if let Some((http_method, uri)) = logged {
        let took = start.elapsed();
        span.in_scope(|| {
            tracing::info!(
                target: ACCESS_TARGET,
                http_method = %http_method,
                path = %uri.path(),
                status,
                duration_ms = millis(took),
                "request"
            );
        });
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_bindings_and_methods() {
        assert_eq!(binding_of("/"), "jsonrpc");
        assert_eq!(binding_of("/.well-known/agent-card.json"), "card");
        assert_eq!(binding_of("/metrics"), "metrics");
        assert_eq!(binding_of("/tasks/abc:cancel"), "http-json");
        assert_eq!(binding_of("/favicon.ico"), "none");
        let console = if cfg!(feature = "console") {
            "console"
        } else {
            "none"
        };
        assert_eq!(binding_of("/console/skills/x"), console);
        assert_eq!(rest_method(&Method::POST, "/message:send"), "SendMessage");
        assert_eq!(rest_method(&Method::GET, "/tasks/abc"), "GetTask");
        assert_eq!(
            rest_method(&Method::GET, "/tasks/abc:subscribe"),
            "SubscribeToTask"
        );
        assert_eq!(
            rest_method(&Method::POST, "/tasks/abc:cancel"),
            "CancelTask"
        );
        assert_eq!(rest_method(&Method::DELETE, "/tasks/abc"), "none");
        assert_eq!(rpc_method_label("GetTask"), "GetTask");
        assert_eq!(rpc_method_label("DropTables"), "unknown");
    }
}

//! The one layer every request passes before its handler: the access log and counters
//! (`observe`), a caught panic, the browser checks (`browser`), the extensions a request
//! activates, the bearer check and the A2A version check, in that order.
//!
//! Each step is an `async fn` that takes the rest of the chain as a closure, so the whole
//! chain is one future in one box. As six `axum::middleware::from_fn` layers, every request
//! cloned the nested services under each layer, boxed a service and a future per layer and
//! dropped them again: about 8,000 instructions per request (callgrind, docs/benchmarks.md),
//! a fifth of serving the Agent Card.

use super::{browser, is_jsonrpc_path, observe, refusal, requested_version, rest, rest03};
use super::{ActiveExtensions, AppState, BrowserPolicy, RequestedVersion};
use super::{A2A_EXTENSIONS, A2A_EXTENSIONS_V03};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::FutureExt;
use skillgate_a2a as a2a;
use skillgate_a2a::version::WireVersion;
use skillgate_runtime::{checks, AuthRefusal};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// What the steps read: the app state and the browser policy, behind one `Arc` (cloned
/// once per request).
#[derive(Clone)]
pub(crate) struct Edge(Arc<(AppState, BrowserPolicy)>);

impl Edge {
    /// The layer's state.
    pub(crate) fn new(app: AppState, browsers: BrowserPolicy) -> Self {
        Self(Arc::new((app, browsers)))
    }
}

/// The layer (`from_fn_with_state` with an [`Edge`]): every step, then the handler.
pub(crate) async fn layer(State(edge): State<Edge>, req: Request, next: Next) -> Response {
    let (st, browsers) = (&edge.0 .0, &edge.0 .1);
    observe::layer(&st.metrics, req, |req| {
        caught(browser::layer(browsers, req, |req| {
            extensions(req, |req| {
                auth(st, req, |req| version(st, req, |req| next.run(req)))
            })
        }))
    })
    .await
}

/// A panic in the chain becomes a 500 the access log still records (inside `observe`), and
/// the connection stays usable; the body is plain text, as tower-http's panic layer answered.
/// Not an `async fn`: one would hold the chain twice (as its argument and as the future it
/// awaits), doubling the size of the future every request moves around.
fn caught(chain: impl Future<Output = Response>) -> impl Future<Output = Response> {
    AssertUnwindSafe(chain).catch_unwind().map(|done| {
        done.unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(not text)");
            tracing::error!(panic = what, "a request handler panicked");
            let mut r = Response::new(Body::from("Service panicked"));
            *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            );
            r
        })
    })
}

/// Checks the A2A version a request asks for against what the served agent speaks.
async fn version<F: Future<Output = Response>>(
    st: &AppState,
    mut req: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    // The card, the scrape and the console are read by clients that speak no A2A version.
    let path = req.uri().path();
    if path == a2a::AGENT_CARD_PATH
        || path == observe::METRICS_PATH
        || crate::console::is_console_path(path)
    {
        return next(req).await;
    }
    let v = requested_version(req.uri(), req.headers());
    if is_jsonrpc_path(path) {
        // One endpoint serves both versions: the method decides the dialect.
        req.extensions_mut().insert(RequestedVersion(v));
        return next(req).await;
    }
    // An HTTP+JSON path names its version: `/v1/...` is 0.3, every other one 1.0.
    let v03 = a2a::v03::rest::is_v03_path(path);
    let family = if v03 {
        WireVersion::V0_3
    } else {
        WireVersion::V1_0
    };
    match checks::negotiate(&v, Some(family), st.service.versions()) {
        Ok(_) => next(req).await,
        Err(r) if v03 => {
            rest03::Error03::A2a(a2a::A2aError::VersionNotSupported, r.message).into_response()
        }
        Err(r) => {
            rest::ApiError::new(a2a::A2aError::VersionNotSupported, r.message).into_response()
        }
    }
}

/// Splits comma-separated header values from every occurrence of a header.
fn header_list(headers: &HeaderMap, name: &HeaderName) -> Vec<String> {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Activates the extensions a request asks for under either header name (`A2A-Extensions`,
/// or `X-A2A-Extensions` as 0.3 clients send it) and echoes them under each name it used.
async fn extensions<F: Future<Output = Response>>(
    mut req: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let names = [A2A_EXTENSIONS, A2A_EXTENSIONS_V03];
    let used: Vec<HeaderName> = names
        .into_iter()
        .filter(|n| req.headers().contains_key(n))
        .collect();
    let requested: Vec<String> = used
        .iter()
        .flat_map(|n| header_list(req.headers(), n))
        .collect();
    let active = checks::activate_extensions(requested.iter().map(String::as_str));
    req.extensions_mut()
        .insert(ActiveExtensions(active.clone()));
    let mut resp = next(req).await;
    if !active.is_empty() {
        if let Ok(v) = HeaderValue::from_str(&active.join(", ")) {
            for name in used {
                resp.headers_mut().insert(name, v.clone());
            }
        }
    }
    resp
}

/// The bearer check, when the server has tokens: the card and the console's public pages
/// pass without one.
async fn auth<F: Future<Output = Response>>(
    st: &AppState,
    mut req: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    let Some(tokens) = st.tokens.as_ref() else {
        return next(req).await;
    };
    // The card and the console's index (the card's content as a page) are public.
    if req.uri().path() == a2a::AGENT_CARD_PATH
        || crate::console::is_public(req.method(), req.uri().path(), req.headers())
    {
        return next(req).await;
    }
    let presented = req
        .headers()
        .get_all(header::AUTHORIZATION)
        .iter()
        .map(|v| v.to_str().unwrap_or(""));
    match skillgate_runtime::authenticate(tokens, presented) {
        Ok(caller) => {
            req.extensions_mut().insert(caller);
            next(req).await
        }
        Err(e @ AuthRefusal::Ambiguous) => refusal::Dialect::of(req.uri(), req.headers())
            .refuse(a2a::HttpRefusal::BadRequest, e.to_string()),
        Err(e) => {
            let challenge = match e {
                AuthRefusal::Invalid => "Bearer realm=\"skillgate\", error=\"invalid_token\"",
                _ => "Bearer realm=\"skillgate\"",
            };
            let mut r = refusal::Dialect::of(req.uri(), req.headers())
                .refuse(a2a::HttpRefusal::Unauthenticated, e.to_string());
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_in_the_chain_is_a_500_not_a_dropped_connection() {
        let resp = caught(async { panic!("a bug in a layer") }).await;
        assert_eq!(resp.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = axum::body::to_bytes(resp.into_body(), 1024).await;
        assert_eq!(body.ok().as_deref(), Some(&b"Service panicked"[..]));
        let fine = caught(async { StatusCode::NO_CONTENT.into_response() }).await;
        assert_eq!(fine.status(), StatusCode::NO_CONTENT);
    }
}

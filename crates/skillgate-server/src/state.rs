//! What every HTTP handler shares (the served agent, limits, counters) and what the layers
//! learned about a request (caller, activated extensions). Its own module so that the
//! bindings (`http`) and the console depend on it, and not on each other.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use skillgate_runtime::metrics::Metrics;
use skillgate_runtime::{A2aService, AgentSwap, Caller, RequestContext, ServiceError, TokenTable};
use std::sync::Arc;
use std::time::Duration;

/// Content type of every JSON response (see docs/design.md, "Server runtime").
pub(crate) const JSON_CONTENT_TYPE: &str = "application/json";

/// Shared state of all handlers, behind one `Arc`: axum clones the state for every layer and
/// handler a request passes, and a clone of the fields one by one (the cancellation token
/// takes a lock to count its handles) cost about 6,000 instructions per request in the
/// callgrind profile; one reference count costs a few.
#[derive(Clone)]
pub(crate) struct AppState(Arc<Shared>);

impl AppState {
    pub(crate) fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What [`AppState`] shares.
pub(crate) struct Shared {
    pub(crate) service: A2aService,
    /// The served agent and its card; the extended card and the base URL come from it too.
    pub(crate) swap: AgentSwap,
    /// The card's `Cache-Control` value, made once (a value made per request is a copy).
    pub(crate) cache_control: axum::http::HeaderValue,
    pub(crate) body_limit: usize,
    pub(crate) max_depth: usize,
    pub(crate) request_timeout: Duration,
    pub(crate) tokens: Option<Arc<TokenTable>>,
    /// Cancelled when the server shuts down: every open event stream ends.
    pub(crate) streams_end: tokio_util::sync::CancellationToken,
    /// Counters of this server (a no-op unless `ServerConfig::metrics`).
    pub(crate) metrics: Metrics,
}

impl AppState {
    /// The extended Agent Card for the request's caller, signed like the public card.
    pub(crate) fn extended_card(
        &self,
        ctx: &RequestContext,
    ) -> Result<serde_json::Value, ServiceError> {
        self.swap.extended_card(ctx)
    }
}

/// Extension URIs activated for a request.
#[derive(Clone, Debug, Default)]
pub(crate) struct ActiveExtensions(pub(crate) Vec<String>);

/// Extractor of the [`RequestContext`] for a REST handler: what the layers
/// learned (caller, activated extensions), read from the request extensions.
pub(crate) struct Ctx(pub(crate) RequestContext);

impl<S: Send + Sync> FromRequestParts<S> for Ctx {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Ctx(request_context(&parts.extensions)))
    }
}

/// The request context the service needs, from the layers' request extensions.
pub(crate) fn request_context(ext: &axum::http::Extensions) -> RequestContext {
    RequestContext {
        caller: ext.get::<Caller>().cloned(),
        extensions: ext
            .get::<ActiveExtensions>()
            .map(|a| a.0.clone())
            .unwrap_or_default(),
        // HTTP+JSON and the console speak 1.0; the JSON-RPC handler sets what it negotiated.
        version: skillgate_a2a::version::WireVersion::V1_0,
    }
}

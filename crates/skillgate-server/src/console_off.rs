//! The web console left out of this build (the `console` feature is off): no page routes, no
//! console paths, and `GET /` answers every client with the JSON-RPC endpoint's 405. The
//! same functions as the console's, so the bindings read the same either way.

use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, Method};
use axum::response::Response;
use axum::Router;

/// No console routes: `router` as it is.
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
}

/// No request is for a page.
pub(crate) fn is_index(_: &Method, _: &str, _: &HeaderMap) -> bool {
    false
}

/// No path is the console's: every one goes through the A2A checks.
pub(crate) fn is_console_path(_: &str) -> bool {
    false
}

/// Nothing is public but the card.
pub(crate) fn is_public(_: &Method, _: &str, _: &HeaderMap) -> bool {
    false
}

/// No page: `GET /` is the JSON-RPC endpoint's for everyone.
pub(crate) async fn root_page(_: State<AppState>, _: &Method, _: &HeaderMap) -> Option<Response> {
    None
}

//! The floor of the load bench (`bench/load/run.sh`): a minimal axum server on the same tokio
//! and hyper as `skillgate serve` that answers every POST with one fixed ~1.5 KB JSON-RPC body
//! holding a completed task. Whatever `skillgate serve` does per request beyond this is the
//! cost of being an A2A agent; the bench reports each scenario as a fraction of this floor,
//! measured in the same run on the same machine.
//!
//! Usage: `axum_floor [ADDR]` (default 127.0.0.1:0); prints `listening on http://ADDR`.

use axum::http::header::CONTENT_TYPE;
use axum::routing::post;
use axum::Router;

/// A completed task the size of an evaluate answer, so wrk's check for
/// `TASK_STATE_COMPLETED` passes and the bytes on the wire are comparable.
fn body() -> String {
    let padding = "x".repeat(1100);
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"task":{{"id":"floor","contextId":"floor","status":{{"state":"TASK_STATE_COMPLETED"}},"metadata":{{"padding":"{padding}"}}}}}}}}"#
    )
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let body: &'static str = Box::leak(body().into_boxed_str());
    let app = Router::new().route(
        "/",
        // The request body is read (as a server must) so the connection stays reusable.
        post(move |_request: axum::body::Bytes| async move {
            ([(CONTENT_TYPE, "application/json")], body)
        }),
    );
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}

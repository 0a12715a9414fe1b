//! The fake's event streams: SendStreamingMessage in each [`StreamMode`], and SubscribeToTask.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::StreamMode;

pub(super) fn stream_response(
    id: Option<Value>,
    task: &Value,
    stream_mode: &StreamMode,
) -> Response {
    let (tid, ctx) = (task["id"].clone(), task["contextId"].clone());
    let mut events = Vec::new();
    let artifacts = task["artifacts"].as_array().cloned().unwrap_or_default();
    match stream_mode {
        StreamMode::Normal => {
            // No initial Task event: a robust client must assemble the task from updates.
            for a in artifacts {
                events.push(json!({"artifactUpdate": {"taskId": tid, "contextId": ctx, "artifact": a, "lastChunk": true}}));
            }
            events.push(json!({"statusUpdate": {"taskId": tid, "contextId": ctx, "status": task["status"]}}));
        }
        StreamMode::TaskFirstChunked => {
            events.push(json!({"task": {"id": tid, "contextId": ctx, "status": {"state": "TASK_STATE_SUBMITTED"}}}));
            events.push(json!({"statusUpdate": {"taskId": tid, "contextId": ctx, "status": {"state": "TASK_STATE_WORKING"}}}));
            for a in artifacts {
                let parts = a["parts"].as_array().cloned().unwrap_or_default();
                let mut first = a.clone();
                first["parts"] = json!([{"text": "placeholder"}]);
                events.push(
                    json!({"artifactUpdate": {"taskId": tid, "contextId": ctx, "artifact": first}}),
                );
                // The second chunk replaces the placeholder (append: false) with the data.
                events.push(json!({"artifactUpdate": {"taskId": tid, "contextId": ctx, "lastChunk": true,
                    "artifact": {"artifactId": a["artifactId"], "name": a["name"], "parts": parts}}}));
            }
            events.push(json!({"statusUpdate": {"taskId": tid, "contextId": ctx, "status": task["status"]}}));
        }
        StreamMode::NoTerminal | StreamMode::DropThenResume => {
            events.push(json!({"statusUpdate": {"taskId": tid, "contextId": ctx, "status": {"state": "TASK_STATE_WORKING"}}}));
        }
        StreamMode::ErrorEvent | StreamMode::MessageEvent => {}
    }
    let mut out = String::new();
    if *stream_mode == StreamMode::ErrorEvent {
        let e = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "internal error"}});
        out.push_str(&format!("event: error\ndata: {e}\n\n"));
    }
    if *stream_mode == StreamMode::MessageEvent {
        events.push(json!({"message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "hello"}]}}));
    }
    out.push_str(&sse_body(&id, events));
    (StatusCode::OK, [("content-type", "text/event-stream")], out).into_response()
}

/// `events` as server-sent events, each wrapped in a JSON-RPC response when `id` is given.
fn sse_body(id: &Option<Value>, events: Vec<Value>) -> String {
    let mut out = String::new();
    for e in events {
        let data = match id {
            Some(id) => json!({"jsonrpc": "2.0", "id": id, "result": e}),
            None => e,
        };
        out.push_str(&format!("data: {data}\n\n"));
    }
    out
}

pub(super) fn sse(id: Option<Value>, events: Vec<Value>) -> Response {
    let out = sse_body(&id, events);
    (StatusCode::OK, [("content-type", "text/event-stream")], out).into_response()
}

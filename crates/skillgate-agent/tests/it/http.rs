//! The http handler against a tiny real axum endpoint on 127.0.0.1: success with a record,
//! refusal, garbage, a forbidden code, oversize, a slow endpoint, and invalid input that never
//! reaches it.

use crate::common::*;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

async fn evaluate(State(hits): State<Arc<AtomicUsize>>, body: String) -> Response {
    hits.fetch_add(1, Ordering::SeqCst);
    let args: Value = serde_json::from_str(&body).unwrap();
    let n = args["n"].as_i64().unwrap_or(1);
    match args["mode"].as_str().unwrap_or("") {
        "ok" => {
            json!({"output": {"n": n}, "records": [{"kind": "note", "data": {"text": "via http"}}]})
                .to_string()
                .into_response()
        }
        "refuse" => (
            StatusCode::UNPROCESSABLE_ENTITY,
            json!({"error": {"code": "constraint_rejected", "message": "http says no"}})
                .to_string(),
        )
            .into_response(),
        "badcode" => (
            StatusCode::BAD_REQUEST,
            json!({"error": {"code": "authorization_failed", "message": "x"}}).to_string(),
        )
            .into_response(),
        "big" => "x".repeat(2 * 1024 * 1024).into_response(),
        "slow" => {
            // Part of the scenario, not synchronisation: an endpoint slower than the time limit.
            tokio::time::sleep(Duration::from_secs(10)).await;
            "late".into_response()
        }
        _ => "<html>not json</html>".into_response(),
    }
}

/// The endpoint on 127.0.0.1:0 and its request counter.
async fn endpoint() -> (String, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route("/evaluate", post(evaluate))
        .with_state(Arc::clone(&hits));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/evaluate", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, hits)
}

#[tokio::test]
async fn an_http_skill_is_served_like_any_other() {
    let (url, hits) = endpoint().await;
    let dir = tempfile::tempdir().unwrap();
    let doc = write_document(dir.path(), "remote", false, None);
    let config = write_config(
        dir.path(),
        &format!("[[skills]]\ninterface = \"{doc}\"\nhttp = \"{url}\"\ntimeout_ms = 1000\n"),
    );
    let s = serve(&config).await;

    let task = call(&s, "remote", json!({"mode": "ok", "n": 4})).await;
    assert_eq!(state(&task), "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(artifact(&task, "remote"), Some(&json!({"n": 4})));
    assert_eq!(artifact(&task, "note"), Some(&json!({"text": "via http"})));

    let task = call(&s, "remote", json!({"mode": "refuse"})).await;
    assert_eq!(state(&task), "TASK_STATE_REJECTED", "{task}");
    assert_eq!(error(&task)["code"], "constraint_rejected");
    assert_eq!(error(&task)["message"], "http says no");

    for mode in ["garbage", "badcode", "big"] {
        let task = call(&s, "remote", json!({"mode": mode})).await;
        assert_eq!(error(&task)["code"], "execution_failed", "{mode}: {task}");
        assert!(!task.to_string().contains("not json"), "{task}");
    }
    let task = call(&s, "remote", json!({"mode": "slow"})).await;
    assert_eq!(error(&task)["code"], "resource_limit_exceeded", "{task}");

    let before = hits.load(Ordering::SeqCst);
    assert_eq!(before, 6);
    let task = call(&s, "remote", json!({"mode": 1})).await;
    assert_eq!(error(&task)["code"], "input_invalid", "{task}");
    assert_eq!(
        hits.load(Ordering::SeqCst),
        before,
        "invalid input reached the endpoint"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn plain_http_to_a_remote_host_is_refused_at_start_up() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write_document(dir.path(), "remote", false, None);
    let config = write_config(
        dir.path(),
        &format!("[[skills]]\ninterface = \"{doc}\"\nhttp = \"http://example.com/evaluate\"\n"),
    );
    let e = skillgate_agent::load(&config).unwrap_err().to_string();
    assert!(e.contains("agent.toml:8: "), "{e}");
    assert!(e.contains("loopback"), "{e}");
}

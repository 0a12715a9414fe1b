//! An upstream agent that answers with hostile strings: a 200 KB task id, status text with
//! terminal escapes and bidi controls, record artifact ids of 100 KB with markup. A real HTTP
//! server on loopback speaking JSON-RPC; the gateway must pass none of it on as it is.

use crate::{upstream_at, write_config};
use axum::extract::State;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use skillgate_gateway::{build, config};
use skillgate_runtime::ServerConfig;
use skillgate_testkit::plain::SUM_SKILL;
use skillgate_testkit::server::TestServer;

/// What the hostile upstream answers to SendMessage.
#[derive(Clone, Copy)]
enum Hostility {
    /// A FAILED task with a 200 KB id and a status text full of control characters.
    HugeTaskId,
    /// A COMPLETED task whose record artifact id is 100 KB of markup.
    HugeRecordId,
}

const BAD_TEXT: &str = "bad\u{1b}[31m news\u{7}\u{202e}reversed\r\nforged log line";

async fn hostile_card(State((base, _)): State<(String, Hostility)>) -> Json<Value> {
    Json(json!({
        "name": "hostile upstream", "description": "A plain A2A agent", "version": "2.1.0",
        "supportedInterfaces": [{"url": format!("{base}/"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": false},
        "defaultInputModes": ["application/json"], "defaultOutputModes": ["application/json"],
        "skills": [{"id": SUM_SKILL, "name": "Sum", "description": "Adds two numbers", "tags": ["math"]}]
    }))
}

async fn hostile_rpc(
    State((_, how)): State<(String, Hostility)>,
    Json(req): Json<Value>,
) -> Json<Value> {
    let task = match how {
        Hostility::HugeTaskId => json!({
            "id": "t".repeat(200_000), "contextId": "ctx",
            "status": {"state": "TASK_STATE_FAILED", "message": {"messageId": "m", "role": "ROLE_AGENT",
                "parts": [{"text": format!("{BAD_TEXT}{}", "y".repeat(10_000))}]}},
            "artifacts": []
        }),
        Hostility::HugeRecordId => json!({
            "id": "up-1", "contextId": "ctx", "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [
                {"artifactId": format!("<script>alert(1)</script>{}", "a".repeat(100_000)),
                    "name": "trace", "parts": [{"data": {"step": "added"}}]},
                {"artifactId": "a-result", "name": "result", "parts": [{"data": {"sum": 5.0}}]}
            ]
        }),
    };
    Json(json!({"jsonrpc": "2.0", "id": req["id"], "result": {"task": task}}))
}

/// The hostile upstream on loopback, and the gateway in front of it.
async fn gateway(how: Hostility) -> (TestServer, tempfile::TempDir) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = Router::new()
        .route("/.well-known/agent-card.json", get(hostile_card))
        .route("/", post(hostile_rpc))
        .with_state((base.clone(), how));
    tokio::spawn(async move { axum::serve(listener, app).await });
    let dir = tempfile::tempdir().unwrap();
    let cfg = config::load(&write_config(dir.path(), "")).unwrap();
    let g = build(cfg, upstream_at(&base)).await.unwrap();
    (
        TestServer::start(g.agent, ServerConfig::default()).await,
        dir,
    )
}

/// The gateway's task for a valid sum call, sent raw (the client would refuse what it shows).
async fn raw_call(s: &TestServer) -> Value {
    let card = s.card().await;
    let skills = &card["capabilities"]["extensions"][0]["params"]["skills"];
    let digest = skills
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["skill_id"] == SUM_SKILL)
        .unwrap()["interface_digest"]
        .clone();
    let data = json!({"skill": SUM_SKILL, "skill_version": "1.0", "interface_digest": digest,
        "arguments": {"a": 2, "b": 3}});
    let r = s
        .rpc(
            "SendMessage",
            json!({"message": {"messageId": "m-hostile", "role": "ROLE_USER", "parts": [{"data": data}],
                "extensions": [skillgate_core::wire::EXTENSION_URI]}}),
        )
        .await;
    r["result"]["task"].clone()
}

/// Whether `s` holds a control or bidi-format character.
fn has_controls(s: &str) -> bool {
    s.chars()
        .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c))
}

#[tokio::test]
async fn a_huge_upstream_task_id_and_control_characters_are_not_echoed() {
    let (s, _dir) = gateway(Hostility::HugeTaskId).await;
    let task = raw_call(&s).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED", "{task:.300}");
    let text = task["status"].to_string();
    assert!(
        text.len() < 4096,
        "the error is {} bytes: {:.300}",
        text.len(),
        text
    );
    let message = task["status"]["message"]["parts"][0]["data"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(message.contains("upstream task"), "{message}");
    assert!(
        !has_controls(&message),
        "control characters passed on: {message:?}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_huge_record_artifact_id_with_markup_is_replaced() {
    let (s, _dir) = gateway(Hostility::HugeRecordId).await;
    let task = raw_call(&s).await;
    assert_eq!(
        task["status"]["state"], "TASK_STATE_COMPLETED",
        "{task:.300}"
    );
    for a in task["artifacts"].as_array().unwrap() {
        let id = a["artifactId"].as_str().unwrap();
        assert!(id.len() <= 256, "an artifact id of {} bytes", id.len());
        assert!(!id.contains('<'), "markup in an artifact id: {id:.80}");
    }
    s.shutdown().await;
}

//! `GET /metrics`: off by default, counting requests, gate outcomes, skill durations, tasks,
//! connections and streams when on, and behind the bearer check when auth is on.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_runtime::*;
use std::time::Duration;

const TOKEN: &str = "metrics-reader-0123456789";
const NARROW: &str = "observe-only-token-0123456789";

fn with_metrics() -> ServerConfig {
    ServerConfig {
        metrics: true,
        ..Default::default()
    }
}

/// The scrape, checked for status and content type.
async fn scrape(s: &Server, headers: &[(&str, &str)]) -> String {
    let (status, h, body) = s.get_raw("/metrics", headers).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        h["content-type"],
        "application/openmetrics-text; version=1.0.0; charset=utf-8"
    );
    assert!(body.ends_with("# EOF\n"), "{body}");
    body
}

/// The value of one series (its name and labels exactly as printed), 0 when absent.
fn value(scrape: &str, series: &str) -> f64 {
    skillgate_testkit::rawhttp::metric(scrape, series).unwrap_or(0.0)
}

/// How much each series grew between two scrapes.
fn grew(before: &str, after: &str, series: &str) -> f64 {
    value(after, series) - value(before, series)
}

async fn send(s: &Server, data: Value) -> Value {
    s.rpc("SendMessage", msg(data)).await
}

#[tokio::test]
async fn metrics_are_off_by_default_and_the_path_is_a_json_404() {
    let s = start_server().await;
    let (status, h, body) = s.get_raw("/metrics", &[]).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(h["content-type"], "application/json");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["code"], 404, "{v}");
    s.shutdown().await;
}

#[tokio::test]
async fn calls_refusals_failures_and_cancels_move_their_counters() {
    let s = Server::start(agent(), with_metrics()).await;
    let card = s.card().await;
    let before = scrape(&s, &[]).await;

    let ok = send(
        &s,
        request(&card, "evaluate_resource_condition", observe_args()),
    )
    .await;
    assert_eq!(
        task_of(&ok)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{ok}"
    );
    let bad_args = json!({"resource_id": "eth0", "condition": {"metric": "utilization", "operator": ">", "threshold": "eighty"}});
    let refused = send(&s, request(&card, "evaluate_resource_condition", bad_args)).await;
    assert_eq!(error_object(task_of(&refused))["code"], "input_invalid");
    let failed = send(&s, request(&card, "misbehave", json!({"mode": "exec"}))).await;
    assert_eq!(task_of(&failed)["status"]["state"], "TASK_STATE_FAILED");
    let mut waiting = msg(request(&card, "wait", json!({})));
    waiting["configuration"] = json!({"returnImmediately": true});
    let waiting = s.rpc("SendMessage", waiting).await;
    let id = task_of(&waiting)["id"].as_str().unwrap().to_string();
    // Admitted and running before it is canceled, so the admission is counted.
    eventually(Duration::from_secs(10), || async {
        let t = s.rpc("GetTask", json!({"id": id})).await;
        (t["result"]["status"]["state"] == "TASK_STATE_WORKING").then_some(())
    })
    .await;
    let canceled = s.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(canceled["result"]["status"]["state"], "TASK_STATE_CANCELED");
    let unknown = s.rpc("DropTables", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601);

    let after = scrape(&s, &[]).await;
    let g = |series: &str| grew(&before, &after, series);
    let rpc = |m: &str| {
        format!("skillgate_requests_total{{binding=\"jsonrpc\",method=\"{m}\",status=\"200\"}}")
    };
    assert_eq!(g(&rpc("SendMessage")), 4.0, "{after}");
    assert_eq!(g(&rpc("CancelTask")), 1.0, "{after}");
    assert_eq!(
        g(&rpc("unknown")),
        1.0,
        "a client's method name is no label: {after}"
    );
    assert!(!after.contains("DropTables"));
    let gate = |p: &str, c: &str| {
        g(&format!(
            "skillgate_gate_outcomes_total{{phase=\"{p}\",code=\"{c}\"}}"
        ))
    };
    assert_eq!(gate("admission", "input_invalid"), 1.0, "{after}");
    assert_eq!(
        gate("admission", "ok"),
        3.0,
        "observe, misbehave, wait: {after}"
    );
    assert_eq!(gate("processing", "ok"), 1.0, "{after}");
    assert_eq!(gate("processing", "execution_failed"), 1.0, "{after}");
    let tasks = |state: &str| g(&format!("skillgate_tasks_total{{state=\"{state}\"}}"));
    assert_eq!(tasks("created"), 4.0, "{after}");
    assert_eq!(tasks("completed"), 1.0, "{after}");
    assert_eq!(tasks("rejected"), 1.0, "{after}");
    assert_eq!(tasks("failed"), 1.0, "{after}");
    assert_eq!(tasks("canceled"), 1.0, "{after}");
    assert_eq!(
        g("skillgate_skill_duration_seconds_count{skill=\"evaluate_resource_condition\"}"),
        1.0,
        "{after}"
    );
    // The refused request never ran its handler: one observation, not two.
    assert_eq!(
        value(
            &after,
            "skillgate_skill_duration_seconds_bucket{le=\"+Inf\",skill=\"evaluate_resource_condition\"}"
        ),
        1.0
    );
    // The scrape itself is counted, on its own binding.
    assert!(
        value(
            &after,
            "skillgate_requests_total{binding=\"metrics\",method=\"none\",status=\"200\"}"
        ) >= 1.0
    );
    assert!(
        value(&after, "skillgate_open_connections") >= 1.0,
        "{after}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn metrics_need_any_valid_bearer_token_when_auth_is_on() {
    let cfg = ServerConfig {
        tokens: Some(
            TokenTable::parse(&format!("{TOKEN}\n{NARROW} evaluate_resource_condition\n")).unwrap(),
        ),
        metrics: true,
        ..Default::default()
    };
    let s = Server::start(agent(), cfg).await;
    let (status, h, body) = s.get_raw("/metrics", &[]).await;
    assert_eq!(status, 401, "{body}");
    assert!(h.contains_key("www-authenticate"));
    assert!(!body.contains("skillgate_"), "{body}");
    let (status, _, body) = s
        .get_raw(
            "/metrics",
            &[("Authorization", "Bearer not-a-valid-token-at-all")],
        )
        .await;
    assert_eq!(status, 401, "{body}");
    for t in [TOKEN, NARROW] {
        let text = scrape(&s, &[("Authorization", &format!("Bearer {t}"))]).await;
        assert!(text.contains("skillgate_requests_total"), "{text}");
        assert!(!text.contains(t), "a token in the scrape");
    }
    // The refusals were counted too.
    let text = scrape(&s, &[("Authorization", &format!("Bearer {TOKEN}"))]).await;
    assert_eq!(
        value(
            &text,
            "skillgate_requests_total{binding=\"metrics\",method=\"none\",status=\"401\"}"
        ),
        2.0,
        "{text}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn an_open_event_stream_is_counted_until_it_ends() {
    let s = Server::start(agent(), with_metrics()).await;
    let card = s.card().await;
    assert_eq!(value(&scrape(&s, &[]).await, "skillgate_open_streams"), 0.0);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
        "params": msg(request(&card, "wait", json!({"ms": 10_000})))});
    let mut stream = s
        .client
        .post(format!("{}/", s.base))
        .header("Content-Type", "application/json")
        .header("A2A-Version", "1.0")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let first = String::from_utf8(stream.chunk().await.unwrap().unwrap().to_vec()).unwrap();
    let task_id = sse_events(&first)[0]["result"]["task"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let open = scrape(&s, &[]).await;
    assert_eq!(value(&open, "skillgate_open_streams"), 1.0, "{open}");
    assert_eq!(
        value(
            &open,
            "skillgate_requests_total{binding=\"jsonrpc\",method=\"SendStreamingMessage\",status=\"200\"}"
        ),
        1.0,
        "counted when the stream starts: {open}"
    );
    let canceled = s.rpc("CancelTask", json!({"id": task_id})).await;
    assert_eq!(canceled["result"]["status"]["state"], "TASK_STATE_CANCELED");
    // The stream ends after the terminal event; its gauge unit is given back.
    while stream.chunk().await.unwrap().is_some() {}
    drop(stream);
    eventually(Duration::from_secs(10), || async {
        (value(&scrape(&s, &[]).await, "skillgate_open_streams") == 0.0).then_some(())
    })
    .await;
    s.shutdown().await;
}

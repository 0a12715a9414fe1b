//! Each skill handler run in-process by the runtime's own service (no HTTP), so the handler gets
//! a real `SkillContext` and its output and records go through the runtime's output gate.
//! The host is the fixture tree, so every result is exact.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use skillgate_netops::{agent_with, SysfsHost};
use skillgate_runtime::a2a::{SendMessageRequest, SendMessageResponse};
use skillgate_runtime::{A2aService, RequestContext, ServerConfig};

fn service() -> A2aService {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host-a");
    let agent = agent_with(Arc::new(SysfsHost::with_root(root)))
        .build()
        .unwrap();
    A2aService::new(agent, &ServerConfig::default())
}

/// Sends one schema-governed request for `skill` at its advertised version and digest.
async fn run(svc: &A2aService, skill: &str, arguments: Value) -> Value {
    let agent = svc.agent();
    let gate = agent.gate(skill).unwrap();
    let data = json!({"skill": skill, "skill_version": gate.skill_version(),
                      "interface_digest": gate.interface_digest_str(), "arguments": arguments});
    let req: SendMessageRequest = serde_json::from_value(json!({"message": {
        "messageId": format!("m-{skill}"), "role": "ROLE_USER",
        "parts": [{"data": data, "mediaType": "application/json"}]}}))
    .unwrap();
    let ctx = RequestContext::default();
    match svc.send_message(req, &ctx).await.unwrap() {
        SendMessageResponse::Task(t) => serde_json::to_value(t).unwrap(),
        other => panic!("expected a task, got {other:?}"),
    }
}

fn artifact_data<'a>(task: &'a Value, name: &str) -> &'a Value {
    let a = task["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("no artifact {name} in {task}"));
    &a["parts"][0]["data"]
}

fn state(task: &Value) -> &str {
    task["status"]["state"].as_str().unwrap()
}

fn error_code(task: &Value) -> &str {
    task["status"]["message"]["parts"][0]["data"]["code"]
        .as_str()
        .unwrap()
}

#[tokio::test]
async fn evaluate_handler_returns_output_and_referenced_record() {
    let svc = service();
    let t = run(
        &svc,
        "evaluate_resource_condition",
        json!({"resource_id": "eth1",
               "condition": {"metric": "rx_errors", "operator": "gte", "threshold": 50, "unit": "count"}}),
    )
    .await;
    assert_eq!(state(&t), "TASK_STATE_COMPLETED", "{t}");
    let out = artifact_data(&t, "evaluate_resource_condition");
    assert_eq!(out["result"], "condition_met");
    assert_eq!(out["observed_value"], 50);
    let record = artifact_data(&t, "resource-observation");
    assert_eq!(out["supporting_record_refs"][0], record["record_id"]);
    let record_artifact = t["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "resource-observation")
        .unwrap();
    assert_eq!(record_artifact["artifactId"], record["record_id"]);
    // Two records in one agent never share an id: ids are task-scoped artifactIds.
    let t2 = run(
        &svc,
        "evaluate_resource_condition",
        json!({"resource_id": "eth0",
               "condition": {"metric": "rx_dropped", "operator": "lt", "threshold": 1, "unit": "count"}}),
    )
    .await;
    assert_eq!(
        artifact_data(&t2, "evaluate_resource_condition")["result"],
        "condition_not_met"
    );
    assert_ne!(t["id"], t2["id"]);
}

#[tokio::test]
async fn evaluate_handler_refusals_carry_draft_codes() {
    let svc = service();
    for (args, code) in [
        (
            json!({"resource_id": "veth0", "window_ms": 100,
                   "condition": {"metric": "utilization", "operator": "gt", "threshold": 1, "unit": "percent"}}),
            "constraint_rejected",
        ),
        (
            json!({"resource_id": "eth7",
                   "condition": {"metric": "rx_errors", "operator": "gt", "threshold": 1, "unit": "count"}}),
            "constraint_rejected",
        ),
        (
            json!({"resource_id": "eth0",
                   "condition": {"metric": "utilization", "operator": "gt", "threshold": 1, "unit": "count"}}),
            "input_invalid",
        ),
        (
            json!({"resource_id": "eth0", "window_ms": 50,
                   "condition": {"metric": "utilization", "operator": "gt", "threshold": 1, "unit": "percent"}}),
            "input_invalid",
        ),
    ] {
        let t = run(&svc, "evaluate_resource_condition", args.clone()).await;
        assert_eq!(state(&t), "TASK_STATE_REJECTED", "{args} -> {t}");
        assert_eq!(error_code(&t), code, "{args} -> {t}");
    }
}

#[tokio::test]
async fn collect_and_assess_handlers_compose() {
    let svc = service();
    let mut health = Vec::new();
    for interface in ["lo", "eth0", "wlan0", "eth1"] {
        let t = run(
            &svc,
            "collect_interface_counters",
            json!({"interface": interface, "window_ms": 100}),
        )
        .await;
        assert_eq!(state(&t), "TASK_STATE_COMPLETED", "{t}");
        let m = artifact_data(&t, "collect_interface_counters").clone();
        let t = run(&svc, "assess_interface_health", m).await;
        assert_eq!(state(&t), "TASK_STATE_COMPLETED", "{t}");
        health.push(artifact_data(&t, "assess_interface_health")["health"].clone());
    }
    assert_eq!(
        health,
        [
            json!("healthy"),
            json!("healthy"),
            json!("down"),
            json!("degraded")
        ]
    );

    let t = run(
        &svc,
        "collect_interface_counters",
        json!({"interface": "nope0"}),
    )
    .await;
    assert_eq!(error_code(&t), "constraint_rejected");
    // A measurement with a member the schema does not know is refused before the handler.
    let t = run(
        &svc,
        "collect_interface_counters",
        json!({"interface": "lo", "window_ms": 100}),
    )
    .await;
    let mut m = artifact_data(&t, "collect_interface_counters").clone();
    m["vendor_extra"] = json!(1);
    let t = run(&svc, "assess_interface_health", m).await;
    assert_eq!(error_code(&t), "input_invalid");
}

//! The JSON-RPC binding end to end: the profile's mapping, every error code, streaming, polling
//! and cancel, against a real server on an ephemeral port.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_runtime::store_api::StoreLimits;
use skillgate_runtime::*;
use std::time::Duration;

pub(crate) fn code_of(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no error: {v}"))
}

fn reason_of(v: &Value) -> &str {
    let data = v["error"]["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data: {v}"));
    let info = data
        .iter()
        .find(|d| d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo")
        .unwrap();
    assert_eq!(info["domain"], "a2a-protocol.org");
    info["reason"].as_str().unwrap()
}

#[tokio::test]
async fn describe_skill_returns_the_advertised_document() {
    let s = start_server().await;
    let card = s.card().await;
    let (status, headers, resp) = s
        .rpc_with("SendMessage", msg(json!({"skill": "describe_skill", "arguments": {"skill_id": "evaluate_resource_condition"}})), &[("A2A-Extensions", EXT)])
        .await;
    assert_eq!(status, 200);
    assert_eq!(headers.get("A2A-Extensions").unwrap(), EXT);
    let task = task_of(&resp);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{resp}");
    let arts = task["artifacts"].as_array().unwrap();
    assert_eq!(arts.len(), 1);
    assert_eq!(arts[0]["name"], "describe_skill");
    let parts = arts[0]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 1);
    let data = &parts[0]["data"];
    let digest = skillgate_core::digest(&data["skill_interface"]).to_string();
    assert_eq!(data["interface_digest"], digest);
    let advertised = request(&card, "evaluate_resource_condition", json!({}));
    assert_eq!(advertised["interface_digest"], digest);
    assert_eq!(resp["id"], 1);
    // Without activation the request is still served, without the echo.
    let (_, headers, resp) = s
        .rpc_with(
            "SendMessage",
            msg(json!({"skill": "describe_skill", "arguments": {"skill_id": "slow"}})),
            &[("A2A-Extensions", "urn:unknown:ext")],
        )
        .await;
    assert!(headers.get("A2A-Extensions").is_none());
    assert_eq!(task_of(&resp)["status"]["state"], "TASK_STATE_COMPLETED");
    s.shutdown().await;
}

#[tokio::test]
async fn describe_skill_errors() {
    let s = start_server().await;
    let resp = s
        .rpc(
            "SendMessage",
            msg(json!({"skill": "describe_skill", "arguments": {"skill_id": "nope"}})),
        )
        .await;
    let task = task_of(&resp);
    assert_eq!(task["status"]["state"], "TASK_STATE_FAILED");
    assert_eq!(error_object(task)["code"], "interface_unavailable");
    let resp = s
        .rpc(
            "SendMessage",
            msg(json!({"skill": "describe_skill", "arguments": {}})),
        )
        .await;
    let task = task_of(&resp);
    assert_eq!(task["status"]["state"], "TASK_STATE_REJECTED");
    assert_eq!(error_object(task)["code"], "input_invalid");
    s.shutdown().await;
}

#[tokio::test]
async fn domain_request_completes_with_records_and_exact_numbers() {
    let s = start_server().await;
    let card = s.card().await;
    let (_, _, text) = s
        .post_raw(
            "/",
            json!({"jsonrpc": "2.0", "id": "a", "method": "SendMessage",
            "params": msg(request(&card, "evaluate_resource_condition", observe_args()))})
            .to_string(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert!(
        text.contains("9007199254740993"),
        "integers must stay exact: {text}"
    );
    assert!(!text.contains("\"kind\""));
    let resp: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(resp["id"], "a");
    let task = task_of(&resp);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{resp}");
    let arts = task["artifacts"].as_array().unwrap();
    assert_eq!(arts.len(), 3);
    let primary: Vec<&Value> = arts
        .iter()
        .filter(|a| a["name"] == "evaluate_resource_condition")
        .collect();
    assert_eq!(primary.len(), 1);
    assert_eq!(primary[0]["parts"].as_array().unwrap().len(), 1);
    let out = &primary[0]["parts"][0]["data"];
    assert_eq!(out["condition_met"], false);
    let records: Vec<&Value> = arts
        .iter()
        .filter(|a| a["name"] == "resource-observation")
        .collect();
    assert_eq!(records.len(), 2);
    let refs: Vec<&Value> = out["supporting_record_refs"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    for r in &records {
        assert!(
            refs.contains(&&r["artifactId"]),
            "output references each record by artifactId"
        );
    }
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
    s.shutdown().await;
}

#[tokio::test]
async fn integral_float_from_python_peers_is_an_integer() {
    let s = start_server().await;
    let card = s.card().await;
    let mut args = observe_args();
    args["condition"]["threshold"] = json!(80.0);
    let (_, _, text) = s
        .post_raw(
            "/",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}}"#,
                msg(request(&card, "evaluate_resource_condition", args))
            )
            .replace("\"threshold\":80,", "\"threshold\":80.0,"),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert!(text.contains("TASK_STATE_COMPLETED"), "{text}");
    s.shutdown().await;
}

#[tokio::test]
async fn gate_order_and_error_codes() {
    let s = start_server().await;
    let card = s.card().await;
    let send = |data: Value| {
        let s = &s;
        async move { s.rpc("SendMessage", msg(data)).await }
    };
    let expect = |resp: &Value, state: &str, code: &str| {
        let t = task_of(resp);
        assert_eq!(t["status"]["state"], state, "{resp}");
        assert_eq!(error_object(t)["code"], code, "{resp}");
        error_object(t).clone()
    };
    // Unknown domain skill.
    let r = send(json!({"skill": "nope", "skill_version": "1.0", "interface_digest": "sha256:00", "arguments": {}})).await;
    expect(&r, "TASK_STATE_FAILED", "interface_unavailable");
    // Mismatch: version, digest, missing; and mismatch comes before input checks.
    let mut req = request(&card, "evaluate_resource_condition", observe_args());
    req["skill_version"] = json!("1.1");
    expect(
        &send(req).await,
        "TASK_STATE_REJECTED",
        "interface_mismatch",
    );
    let mut req = request(&card, "evaluate_resource_condition", json!({"bad": true}));
    req["interface_digest"] = json!(format!("sha256:{}", "0".repeat(64)));
    expect(
        &send(req).await,
        "TASK_STATE_REJECTED",
        "interface_mismatch",
    );
    let r =
        send(json!({"skill": "evaluate_resource_condition", "arguments": observe_args()})).await;
    expect(&r, "TASK_STATE_REJECTED", "interface_mismatch");
    // Size before input validation.
    let big = json!({"resource_id": "x".repeat(500), "condition": 5});
    expect(
        &send(request(&card, "evaluate_resource_condition", big)).await,
        "TASK_STATE_REJECTED",
        "resource_limit_exceeded",
    );
    // input_invalid with details that do not echo the value.
    let mut args = observe_args();
    args["condition"]["threshold"] = json!("very-high-secret");
    let e = expect(
        &send(request(&card, "evaluate_resource_condition", args)).await,
        "TASK_STATE_REJECTED",
        "input_invalid",
    );
    let d = &e["details"][0];
    assert_eq!(d["instance_path"], "/condition/threshold");
    assert_eq!(d["keyword"], "type");
    assert_eq!(d["actual"], "string");
    assert!(!e.to_string().contains("very-high-secret"));
    // Output and record validation.
    for mode in ["output", "record", "kind", "dup"] {
        let r = send(request(&card, "misbehave", json!({"mode": mode}))).await;
        expect(&r, "TASK_STATE_FAILED", "output_invalid");
    }
    let r = send(request(&card, "misbehave", json!({"mode": "output"}))).await;
    assert!(
        task_of(&r)["artifacts"]
            .as_array()
            .is_none_or(|a| a.is_empty()),
        "no artifact on output_invalid"
    );
    // Domain errors.
    expect(
        &send(request(&card, "misbehave", json!({"mode": "constraint"}))).await,
        "TASK_STATE_REJECTED",
        "constraint_rejected",
    );
    expect(
        &send(request(&card, "misbehave", json!({"mode": "exec"}))).await,
        "TASK_STATE_FAILED",
        "execution_failed",
    );
    expect(
        &send(request(&card, "misbehave", json!({"mode": "panic"}))).await,
        "TASK_STATE_FAILED",
        "execution_failed",
    );
    let r = send(request(&card, "misbehave", json!({"mode": "fine"}))).await;
    assert_eq!(
        task_of(&r)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "still serving after a panic"
    );
    // max_duration_ms.
    expect(
        &send(request(&card, "slow", json!({"ms": 2000}))).await,
        "TASK_STATE_FAILED",
        "resource_limit_exceeded",
    );
    let r = send(request(&card, "slow", json!({"ms": 10}))).await;
    assert_eq!(task_of(&r)["status"]["state"], "TASK_STATE_COMPLETED");
    // execute mode is denied by default.
    expect(
        &send(request(&card, "restart_interface", json!({}))).await,
        "TASK_STATE_REJECTED",
        "authorization_failed",
    );
    s.shutdown().await;
}

#[tokio::test]
async fn execute_mode_runs_when_the_policy_approves() {
    let cfg = ServerConfig {
        approval: ApprovalPolicy::allow_skills(["restart_interface"]),
        ..Default::default()
    };
    let s = Server::start(agent(), cfg).await;
    let card = s.card().await;
    let r = s
        .rpc(
            "SendMessage",
            msg(request(&card, "restart_interface", json!({}))),
        )
        .await;
    assert_eq!(
        task_of(&r)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{r}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn plain_messages() {
    let s = start_server().await;
    let m =
        json!({"message": {"messageId": "p1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}});
    let r = s.rpc("SendMessage", m.clone()).await;
    let t = task_of(&r);
    assert_eq!(t["status"]["state"], "TASK_STATE_REJECTED");
    assert!(t["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .contains("schema-governed"));
    s.shutdown().await;
    let agent = Agent::builder("plain", "d", "1.0")
        .skill(observe_skill())
        .plain_handler(|m: a2a::Message, _c: PlainContext| async move {
            let text = m.parts[0].as_text().unwrap_or("").to_uppercase();
            PlainReply::Message(vec![a2a::Part::text(text)])
        })
        .build()
        .unwrap();
    let s = Server::start(agent, ServerConfig::default()).await;
    let r = s.rpc("SendMessage", m.clone()).await;
    assert_eq!(r["result"]["message"]["parts"][0]["text"], "HELLO", "{r}");
    assert_eq!(r["result"]["message"]["role"], "ROLE_AGENT");
    let (_, _, body) = s
        .post_raw(
            "/",
            json!({"jsonrpc": "2.0", "id": 2, "method": "SendStreamingMessage", "params": m})
                .to_string(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    let evs = sse_events(&body);
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0]["result"]["message"]["parts"][0]["text"], "HELLO");
    s.shutdown().await;
}

#[tokio::test]
async fn return_immediately_then_poll_with_get_task() {
    let s = start_server().await;
    let card = s.card().await;
    let mut p = msg(request(&card, "wait", json!({"ms": 300})));
    p["configuration"] = json!({"returnImmediately": true});
    let r = s.rpc("SendMessage", p).await;
    let t = task_of(&r);
    let state = t["status"]["state"].as_str().unwrap();
    assert!(
        state == "TASK_STATE_SUBMITTED" || state == "TASK_STATE_WORKING",
        "{r}"
    );
    let id = t["id"].as_str().unwrap().to_string();
    let last = eventually(Duration::from_secs(5), || async {
        let t = s
            .rpc("GetTask", json!({"id": id, "history_length": 0}))
            .await;
        (t["result"]["status"]["state"] == "TASK_STATE_COMPLETED").then_some(t)
    })
    .await;
    assert_eq!(
        last["result"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{last}"
    );
    assert!(
        last["result"].get("history").is_none(),
        "historyLength 0 drops history"
    );
    assert_eq!(
        last["result"]["artifacts"][0]["parts"][0]["data"]["waited"],
        300
    );
    s.shutdown().await;
}

#[tokio::test]
async fn cancel_task() {
    let s = start_server().await;
    let card = s.card().await;
    let mut p = msg(request(&card, "wait", json!({})));
    p["configuration"] = json!({"returnImmediately": true});
    let r = s.rpc("SendMessage", p).await;
    let id = task_of(&r)["id"].as_str().unwrap().to_string();
    let c = s.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(c["result"]["status"]["state"], "TASK_STATE_CANCELED", "{c}");
    // Not synchronisation: a window in which the canceled handler's own error would land if the
    // runtime let it overwrite CANCELED (there is no event for "the handler has returned").
    tokio::time::sleep(Duration::from_millis(50)).await;
    let g = s.rpc("GetTask", json!({"id": id})).await;
    assert_eq!(g["result"]["status"]["state"], "TASK_STATE_CANCELED");
    let again = s.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(code_of(&again), -32002);
    assert_eq!(reason_of(&again), "TASK_NOT_CANCELABLE");
    // A skill that does not declare cancelable.
    let r = s
        .rpc(
            "SendMessage",
            msg(request(
                &card,
                "evaluate_resource_condition",
                observe_args(),
            )),
        )
        .await;
    let id = task_of(&r)["id"].as_str().unwrap().to_string();
    assert_eq!(
        code_of(&s.rpc("CancelTask", json!({"id": id})).await),
        -32002
    );
    let nf = s.rpc("CancelTask", json!({"id": "no-such-task"})).await;
    assert_eq!(code_of(&nf), -32001);
    assert_eq!(reason_of(&nf), "TASK_NOT_FOUND");
    s.shutdown().await;
}

#[tokio::test]
async fn subscribe_to_task() {
    let s = start_server().await;
    let card = s.card().await;
    let mut p = msg(request(&card, "wait", json!({"ms": 800})));
    p["configuration"] = json!({"returnImmediately": true});
    let id = task_of(&s.rpc("SendMessage", p).await)["id"]
        .as_str()
        .unwrap()
        .to_string();
    let body =
        json!({"jsonrpc": "2.0", "id": 9, "method": "SubscribeToTask", "params": {"id": id}});
    let (_, _, text) = s
        .post_raw(
            "/",
            body.to_string(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    let evs = sse_events(&text);
    assert_eq!(evs[0]["result"]["task"]["id"], id.as_str(), "{text}");
    assert_eq!(
        evs.last().unwrap()["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    let again = s.rpc("SubscribeToTask", json!({"id": id})).await;
    assert_eq!(code_of(&again), -32004);
    assert_eq!(reason_of(&again), "UNSUPPORTED_OPERATION");
    assert_eq!(
        code_of(&s.rpc("SubscribeToTask", json!({"id": "nope"})).await),
        -32001
    );
    s.shutdown().await;
}

#[tokio::test]
async fn list_tasks_pages_and_filters() {
    let s = start_server().await;
    let card = s.card().await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let r = s
            .rpc(
                "SendMessage",
                msg(request(
                    &card,
                    "evaluate_resource_condition",
                    observe_args(),
                )),
            )
            .await;
        ids.push(task_of(&r)["id"].as_str().unwrap().to_string());
        // Tasks sort by their millisecond timestamps: wait until the clock has passed this one,
        // so the next task is strictly newer.
        let ts = task_of(&r)["status"]["timestamp"].as_str().unwrap();
        let ts = time::OffsetDateTime::parse(ts, &time::format_description::well_known::Rfc3339)
            .unwrap();
        eventually(Duration::from_secs(1), || async {
            (time::OffsetDateTime::now_utc() >= ts + Duration::from_millis(1)).then_some(())
        })
        .await;
    }
    let mut bad = observe_args();
    bad["condition"] = json!(1);
    s.rpc(
        "SendMessage",
        msg(request(&card, "evaluate_resource_condition", bad)),
    )
    .await;
    let r = s.rpc("ListTasks", json!({})).await;
    assert_eq!(r["result"]["totalSize"], 4, "{r}");
    assert_eq!(r["result"]["nextPageToken"], "");
    assert!(r["result"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t.get("artifacts").is_none()));
    let r = s
        .rpc(
            "ListTasks",
            json!({"status": "TASK_STATE_COMPLETED", "page_size": 2, "include_artifacts": true}),
        )
        .await;
    let page = r["result"]["tasks"].as_array().unwrap();
    assert_eq!(page.len(), 2);
    assert_eq!(page[0]["id"], ids[2].as_str(), "newest first");
    assert!(page[0].get("artifacts").is_some());
    let token = r["result"]["nextPageToken"].as_str().unwrap().to_string();
    assert!(!token.is_empty());
    let r2 = s
        .rpc(
            "ListTasks",
            json!({"status": 3, "pageSize": 2, "pageToken": token}),
        )
        .await;
    assert_eq!(r2["result"]["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(r2["result"]["nextPageToken"], "");
    assert_eq!(
        code_of(&s.rpc("ListTasks", json!({"pageSize": 0})).await),
        -32602
    );
    // statusTimestampAfter is compared as a time, whatever its offset or precision.
    let newest = s.rpc("GetTask", json!({"id": ids[2]})).await;
    let ts = newest["result"]["status"]["timestamp"]
        .as_str()
        .unwrap()
        .to_string();
    let r = s
        .rpc("ListTasks", json!({"statusTimestampAfter": ts}))
        .await;
    assert!(
        r["result"]["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["id"] != ids[2].as_str()),
        "{r}"
    );
    let r = s
        .rpc(
            "ListTasks",
            json!({"status_timestamp_after": "2000-01-01T01:00:00+01:00"}),
        )
        .await;
    assert_eq!(r["result"]["totalSize"], 4, "{r}");
    let r = s
        .rpc(
            "ListTasks",
            json!({"statusTimestampAfter": "2999-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(r["result"]["totalSize"], 0, "{r}");
    assert_eq!(
        code_of(
            &s.rpc("ListTasks", json!({"statusTimestampAfter": "yesterday"}))
                .await
        ),
        -32602
    );
    // A well-formed string naming a day the calendar does not have is not a date-time.
    assert_eq!(
        code_of(
            &s.rpc(
                "ListTasks",
                json!({"statusTimestampAfter": "2026-02-31T00:00:00Z"})
            )
            .await
        ),
        -32602
    );
    assert_eq!(
        code_of(&s.rpc("ListTasks", json!({"pageToken": "zz"})).await),
        -32602
    );
    s.shutdown().await;
}

#[tokio::test]
async fn protocol_errors_carry_error_info() {
    let s = start_server().await;
    let h = [("A2A-Version", "1.0"), ("Content-Type", "application/json")];
    let call = |body: String| {
        let s = &s;
        async move {
            let (status, _, text) = s.post_raw("/", body, &h).await;
            (status, serde_json::from_str::<Value>(&text).unwrap())
        }
    };
    let cases: Vec<(String, i64, &str)> = vec![
        ("{not json".into(), -32700, "PARSE_ERROR"),
        (r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"GetTask","params":{"id":"x"}}"#.into(), -32700, "PARSE_ERROR"),
        (format!(r#"{{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{{"id":"x","deep":{}{}}}}}"#, "[".repeat(100), "]".repeat(100)), -32700, "PARSE_ERROR"),
        (r#"{"jsonrpc":"1.0","id":1,"method":"GetTask"}"#.into(), -32600, "INVALID_REQUEST"),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]"#.into(), -32600, "INVALID_REQUEST"),
        (r#"{"jsonrpc":"2.0","id":{},"method":"GetTask"}"#.into(), -32600, "INVALID_REQUEST"),
        // (A 0.3 method such as tasks/get under A2A-Version 1.0 is a version refusal: v03.rs.)
        (r#"{"jsonrpc":"2.0","id":1,"method":"tasks/frobnicate","params":{}}"#.into(), -32601, "METHOD_NOT_FOUND"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}"#.into(), -32602, "INVALID_PARAMS"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[]}}}"#.into(), -32602, "INVALID_PARAMS"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"a","data":{}}]}}}"#.into(), -32602, "INVALID_PARAMS"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage"}"#.into(), -32602, "INVALID_PARAMS"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}"#.into(), -32001, "TASK_NOT_FOUND"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"t","url":"http://x"}}"#.into(), -32003, "PUSH_NOTIFICATION_NOT_SUPPORTED"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"ListTaskPushNotificationConfigs","params":{"taskId":"t"}}"#.into(), -32003, "PUSH_NOTIFICATION_NOT_SUPPORTED"),
        (r#"{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{}}"#.into(), -32004, "UNSUPPORTED_OPERATION"),
    ];
    for (body, code, reason) in cases {
        let (status, v) = call(body.clone()).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(code_of(&v), code, "{body} -> {v}");
        assert_eq!(reason_of(&v), reason, "{body}");
        assert_eq!(v["jsonrpc"], "2.0");
        assert!(v.get("id").is_some(), "id is always present");
    }
    // Content type.
    let (status, _, text) = s
        .post_raw(
            "/",
            r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}"#,
            &[("A2A-Version", "1.0"), ("Content-Type", "text/plain")],
        )
        .await;
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (status, code_of(&v), reason_of(&v)),
        (200, -32005, "CONTENT_TYPE_NOT_SUPPORTED")
    );
    // A message to an existing task.
    let r = s
        .rpc(
            "SendMessage",
            msg(json!({"skill": "describe_skill", "arguments": {"skill_id": "slow"}})),
        )
        .await;
    let id = task_of(&r)["id"].as_str().unwrap();
    let mut m = msg(json!({"skill": "describe_skill", "arguments": {"skill_id": "slow"}}));
    m["message"]["taskId"] = json!(id);
    let v = s.rpc("SendMessage", m).await;
    assert_eq!(code_of(&v), -32004);
    let mut m = msg(json!({}));
    m["message"]["taskId"] = json!("unknown-task");
    assert_eq!(code_of(&s.rpc("SendMessage", m).await), -32001);
    s.shutdown().await;
}

#[tokio::test]
async fn version_header_cases() {
    let s = start_server().await;
    let body = r#"{"jsonrpc":"2.0","id":5,"method":"GetTask","params":{"id":"x"}}"#;
    let ct = ("Content-Type", "application/json");
    for headers in [
        vec![ct],
        vec![ct, ("A2A-Version", "99.0")],
        vec![ct, ("A2A-Version", "0.3")],
        vec![ct, ("A2A-Version", "")],
    ] {
        let (status, _, text) = s.post_raw("/", body, &headers).await;
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(status, 200);
        assert_eq!(code_of(&v), -32009, "{headers:?} {v}");
        assert_eq!(reason_of(&v), "VERSION_NOT_SUPPORTED");
        assert_eq!(v["id"], 5);
    }
    let (_, _, text) = s.post_raw("/", body, &[ct]).await;
    assert!(text.contains("'0.3'"), "missing header means 0.3: {text}");
    for headers in [
        vec![ct, ("A2A-Version", "1.0")],
        vec![ct, ("a2a-version", "1.0")],
    ] {
        let (_, _, text) = s.post_raw("/", body, &headers).await;
        assert_eq!(
            code_of(&serde_json::from_str(&text).unwrap()),
            -32001,
            "{headers:?}"
        );
    }
    let (_, _, text) = s.post_raw("/?A2A-Version=1.0", body, &[ct]).await;
    assert_eq!(
        code_of(&serde_json::from_str(&text).unwrap()),
        -32001,
        "query parameter accepted"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn body_limits() {
    let cfg = ServerConfig {
        body_limit: 4096,
        ..Default::default()
    };
    let s = Server::start(agent(), cfg).await;
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{{"id":"{}"}}}}"#,
        "x".repeat(5000)
    );
    let (status, _, text) = s
        .post_raw(
            "/",
            big.clone(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert_eq!(status, 413);
    assert_eq!(code_of(&serde_json::from_str(&text).unwrap()), -32600);
    let (status, _, _) = s
        .post_raw(
            "/message:send",
            big,
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert_eq!(status, 413);
    s.shutdown().await;
    // The default limit is 1 MiB.
    let s = start_server().await;
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{{"id":"{}"}}}}"#,
        "x".repeat(1024 * 1024 + 1)
    );
    let (status, _, _) = s
        .post_raw(
            "/",
            big,
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert_eq!(status, 413);
    s.shutdown().await;
}

#[tokio::test]
async fn json_depth_limit_is_configurable() {
    let cfg = ServerConfig {
        max_json_depth: 8,
        ..Default::default()
    };
    let s = Server::start(agent(), cfg).await;
    let card = s.card().await;
    let ok = s
        .rpc(
            "SendMessage",
            msg(json!({"skill": "describe_skill", "arguments": {"skill_id": "slow"}})),
        )
        .await;
    assert_eq!(
        task_of(&ok)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{ok}"
    );
    let deep = s
        .rpc(
            "SendMessage",
            msg(request(&card, "slow", json!({"a": {"b": {"c": {}}}}))),
        )
        .await;
    assert_eq!(code_of(&deep), -32700, "{deep}");
    s.shutdown().await;
}

#[tokio::test]
async fn graceful_shutdown_finishes_in_flight_requests() {
    let s = start_server().await;
    let card = s.card().await;
    let client = s.client.clone();
    let url = format!("{}/", s.base);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": msg(request(&card, "wait", json!({"ms": 400})))}).to_string();
    let inflight = tokio::spawn(async move {
        client
            .post(url)
            .header("A2A-Version", "1.0")
            .header("Content-Type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    });
    // Shut down only once the request is in flight: its task is working.
    let server = &s;
    eventually(Duration::from_secs(5), || async move {
        let l = server.rpc("ListTasks", json!({})).await;
        let tasks = l["result"]["tasks"].as_array().cloned().unwrap_or_default();
        tasks
            .iter()
            .any(|t| t["status"]["state"] == "TASK_STATE_WORKING")
            .then_some(())
    })
    .await;
    s.shutdown().await;
    let text = inflight.await.unwrap();
    assert!(text.contains("TASK_STATE_COMPLETED"), "{text}");
}

#[tokio::test]
async fn server_time_limits() {
    let cfg = ServerConfig {
        request_timeout: Duration::from_millis(300),
        max_task_duration: Duration::from_millis(1500),
        ..Default::default()
    };
    let s = Server::start(agent(), cfg).await;
    let card = s.card().await;
    // A blocking send returns the still-running task once the request timeout passes ...
    let started = std::time::Instant::now();
    let r = s
        .rpc("SendMessage", msg(request(&card, "wait", json!({}))))
        .await;
    assert!(started.elapsed() < Duration::from_secs(3));
    let t = task_of(&r);
    assert_eq!(t["status"]["state"], "TASK_STATE_WORKING", "{r}");
    // ... and the server-wide duration cap fails a handler that declares no max_duration_ms.
    let id = t["id"].as_str().unwrap().to_string();
    let (server, id) = (&s, &id);
    let g = eventually(Duration::from_secs(5), || async move {
        let g = server.rpc("GetTask", json!({"id": id})).await;
        (g["result"]["status"]["state"] != "TASK_STATE_WORKING").then_some(g)
    })
    .await;
    assert_eq!(g["result"]["status"]["state"], "TASK_STATE_FAILED", "{g}");
    assert_eq!(
        error_object(&g["result"])["code"],
        "resource_limit_exceeded"
    );
    // A body that never arrives is answered after the request timeout, not held forever.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = s.base.trim_start_matches("http://").to_string();
    let mut conn = tokio::net::TcpStream::connect(&addr).await.unwrap();
    conn.write_all(format!("POST / HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{").as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), conn.read(&mut buf))
        .await
        .expect("answered in time")
        .unwrap();
    let text = String::from_utf8_lossy(&buf[..n]);
    assert!(
        text.contains("-32600") && text.contains("not received in time"),
        "{text}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_caller_at_its_running_limit_is_refused_until_a_task_finishes() {
    let cfg = ServerConfig {
        task_store: StoreLimits {
            max_running_per_caller: 1,
            ..StoreLimits::memory()
        },
        ..Default::default()
    };
    let s = Server::start(agent(), cfg).await;
    let card = s.card().await;
    let mut p = msg(request(&card, "wait", json!({})));
    p["configuration"] = json!({"returnImmediately": true});
    let r = s.rpc("SendMessage", p).await;
    let id = task_of(&r)["id"].as_str().unwrap().to_string();
    let full = s
        .rpc("SendMessage", msg(request(&card, "slow", json!({}))))
        .await;
    assert_eq!(
        code_of(&full),
        -32004,
        "a refusal, not a server error: {full}"
    );
    let message = full["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("unfinished tasks, the most allowed") && !message.contains("--"),
        "{full}"
    );
    s.rpc("CancelTask", json!({"id": id})).await;
    let ok = s
        .rpc("SendMessage", msg(request(&card, "slow", json!({}))))
        .await;
    assert_eq!(
        task_of(&ok)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "a finished task makes room"
    );
    s.shutdown().await;
}

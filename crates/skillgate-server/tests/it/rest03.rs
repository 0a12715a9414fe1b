//! The A2A 0.3 HTTP+JSON binding (`/v1/...`, 0.3 ProtoJSON) beside 1.0 on the same port, end to
//! end on a real server: send, stream, get, cancel, subscribe, push configs, the gate's codes in
//! the status Data Part, 0.3 error bodies and statuses, body limits, and negotiation.

use crate::common::*;
use crate::push::{push_server, Receiver};
use serde_json::{json, Value};
use skillgate_a2a::version::WireVersion;
use skillgate_runtime::checks::VersionSet;
use skillgate_runtime::*;
use std::time::Duration;

const JSON: (&str, &str) = ("Content-Type", "application/json");
const EXT03: (&str, &str) = ("X-A2A-Extensions", EXT);

/// A 0.3 PJ SendMessageRequest around one Data Part, blocking unless `blocking` is false.
fn send_pj(data: Value, blocking: bool) -> String {
    json!({"message": {"messageId": uuid(), "role": "ROLE_USER",
        "content": [{"data": {"data": data}}]},
        "configuration": {"blocking": blocking}})
    .to_string()
}

async fn post(
    s: &Server,
    path: &str,
    body: String,
    headers: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, Value) {
    let (status, h, text) = s.post_raw(path, body, headers).await;
    let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, h, v)
}

async fn get(s: &Server, path: &str) -> (u16, Value) {
    let (status, _, text) = s.get_raw(path, &[]).await;
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// A 0.3 error answer: the status and `{code, message}`.
fn assert_error(status: u16, v: &Value, want_status: u16, want_code: i64) {
    assert_eq!(status, want_status, "{v}");
    assert_eq!(v["code"], want_code, "{v}");
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    assert!(
        v.get("error").is_none() && v.get("details").is_none(),
        "no 1.0 body: {v}"
    );
}

#[tokio::test]
async fn a_governed_call_has_0_3_protojson_shapes_and_the_same_gate() {
    let s = start_server().await;
    let card = s.card().await;
    let ok = request(&card, "evaluate_resource_condition", observe_args());
    let (status, h, v) = post(&s, "/v1/message:send", send_pj(ok, true), &[JSON, EXT03]).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(h["x-a2a-extensions"], EXT, "echoed under the name used");
    let task = &v["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{v}");
    assert!(task.get("kind").is_none(), "no kind in ProtoJSON: {v}");
    let part = &task["artifacts"][0]["parts"][0];
    assert!(
        part["data"]["data"].is_object(),
        "a DataPart around a Struct: {v}"
    );
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
    assert!(task["history"][0]["content"].is_array(), "{v}");

    // GET /v1/tasks/{id} with historyLength, and an unknown task.
    let id = task["id"].as_str().unwrap();
    let (status, got) = get(&s, &format!("/v1/tasks/{id}?historyLength=1")).await;
    assert_eq!(status, 200, "{got}");
    assert_eq!(got["id"], id);
    assert!(
        got["history"].as_array().is_some_and(|h| h.len() <= 1),
        "{got}"
    );
    let (status, got) = get(&s, "/v1/tasks/nope").await;
    assert_error(status, &got, 404, -32001);
    let (status, got) = get(&s, &format!("/v1/tasks/{id}?historyLength=-1")).await;
    assert_error(status, &got, 422, -32602);

    // The gate's codes reach a 0.3 REST caller in the status message's data part.
    let bad = request(
        &card,
        "evaluate_resource_condition",
        json!({"resource_id": 5}),
    );
    let (status, _, v) = post(&s, "/v1/message:send", send_pj(bad, true), &[JSON, EXT03]).await;
    assert_eq!(status, 200, "{v}");
    let st = &v["task"]["status"];
    assert_eq!(st["state"], "TASK_STATE_REJECTED", "{v}");
    assert_eq!(st["message"]["role"], "ROLE_AGENT");
    assert_eq!(
        st["message"]["content"][0]["data"]["data"]["code"], "input_invalid",
        "{v}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn describe_skill_answers_over_0_3_rest_with_either_extension_header() {
    let s = start_server().await;
    let body = json!({"skill": "describe_skill", "arguments": {"skill_id": "evaluate_resource_condition"}});
    for header in ["X-A2A-Extensions", "A2A-Extensions"] {
        let (status, h, v) = post(
            &s,
            "/v1/message:send",
            send_pj(body.clone(), true),
            &[JSON, (header, EXT)],
        )
        .await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(h[header], EXT);
        let a = &v["task"]["artifacts"][0];
        assert_eq!(a["name"], "describe_skill", "{v}");
        let doc = &a["parts"][0]["data"]["data"];
        assert!(
            doc["interface_digest"]
                .as_str()
                .unwrap()
                .starts_with("sha256:"),
            "{v}"
        );
    }
    s.shutdown().await;
}

#[tokio::test]
async fn message_stream_is_protojson_events_ending_with_a_final_status_update() {
    let s = start_server().await;
    let card = s.card().await;
    let ok = request(&card, "evaluate_resource_condition", observe_args());
    let (status, h, text) = s
        .post_raw(
            "/v1/message:stream",
            send_pj(ok, true),
            &[JSON, EXT03, ("Accept", "text/event-stream")],
        )
        .await;
    assert_eq!(status, 200, "{text}");
    assert!(h["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let events = sse_events(&text);
    assert!(events.len() >= 2, "{text}");
    for e in &events {
        let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 1, "one StreamResponse member: {e}");
        assert!(
            ["task", "message", "statusUpdate", "artifactUpdate"].contains(&keys[0].as_str()),
            "{e}"
        );
    }
    let last = &events.last().unwrap()["statusUpdate"];
    assert_eq!(last["status"]["state"], "TASK_STATE_COMPLETED", "{text}");
    assert_eq!(last["final"], true);
    s.shutdown().await;
}

#[tokio::test]
async fn non_blocking_cancel_and_subscribe() {
    let s = start_server().await;
    let card = s.card().await;
    let wait = request(&card, "wait", json!({"ms": 10_000}));
    // ProtoJSON polarity: no configuration at all means return immediately.
    let body = json!({"message": {"messageId": uuid(), "role": "ROLE_USER",
        "content": [{"data": {"data": wait}}]}});
    let (status, _, v) = post(&s, "/v1/message:send", body.to_string(), &[JSON, EXT03]).await;
    assert_eq!(status, 200, "{v}");
    let state = v["task"]["status"]["state"].as_str().unwrap();
    assert!(
        ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"].contains(&state),
        "{v}"
    );
    let id = v["task"]["id"].as_str().unwrap().to_owned();

    // Subscribe with GET and with POST while it works; cancel with the proto body.
    let sub = {
        let client = reqwest::Client::new();
        let url = format!("{}/v1/tasks/{id}:subscribe", s.base);
        tokio::spawn(async move { client.get(url).send().await.unwrap().text().await.unwrap() })
    };
    let sub_post = {
        let client = reqwest::Client::new();
        let url = format!("{}/v1/tasks/{id}:subscribe", s.base);
        tokio::spawn(async move { client.post(url).send().await.unwrap().text().await.unwrap() })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let cancel = json!({"name": format!("tasks/{id}")}).to_string();
    let (status, _, v) = post(&s, &format!("/v1/tasks/{id}:cancel"), cancel, &[JSON]).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"]["state"], "TASK_STATE_CANCELLED", "{v}");
    for text in [sub.await.unwrap(), sub_post.await.unwrap()] {
        let events = sse_events(&text);
        let last = events.last().unwrap_or_else(|| panic!("no events: {text}"));
        assert_eq!(
            last["statusUpdate"]["status"]["state"], "TASK_STATE_CANCELLED",
            "{text}"
        );
        assert_eq!(last["statusUpdate"]["final"], true);
    }
    // A finished task: cancel is 409, subscribe an error answer.
    let (status, _, v) = post(&s, &format!("/v1/tasks/{id}:cancel"), String::new(), &[]).await;
    assert_error(status, &v, 409, -32002);
    // A cancel body naming another task is refused.
    let other = json!({"name": "tasks/other"}).to_string();
    let (status, _, v) = post(&s, &format!("/v1/tasks/{id}:cancel"), other, &[JSON]).await;
    assert_error(status, &v, 422, -32602);
    let (status, v) = get(&s, "/v1/tasks/nope:subscribe").await;
    assert_error(status, &v, 404, -32001);
    s.shutdown().await;
}

#[tokio::test]
async fn push_configs_over_0_3_rest() {
    let s = push_server().await;
    let rx = Receiver::start().await;
    let card = s.card().await;
    let data = request(&card, "evaluate_resource_condition", observe_args());
    let (_, _, v) = post(&s, "/v1/message:send", send_pj(data, true), &[JSON, EXT03]).await;
    let id = v["task"]["id"].as_str().unwrap().to_owned();
    let base = format!("/v1/tasks/{id}/pushNotificationConfigs");
    // a2a-sdk 0.3's body: the proto CreateTaskPushNotificationConfigRequest.
    let create = json!({"parent": format!("tasks/{id}"), "configId": "p1", "config": {
        "name": format!("tasks/{id}/pushNotificationConfigs/p1"),
        "pushNotificationConfig": {"id": "p1", "url": rx.url, "token": "tok",
            "authentication": {"schemes": ["Bearer"], "credentials": "cred"}}}});
    let (status, _, v) = post(&s, &base, create.to_string(), &[JSON]).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["name"],
        format!("tasks/{id}/pushNotificationConfigs/p1"),
        "{v}"
    );
    assert_eq!(
        v["pushNotificationConfig"]["authentication"]["schemes"],
        json!(["Bearer"])
    );
    // @a2a-js/sdk 0.3.14's body: the bare PJ config; the server assigns the id.
    let js = json!({"name": format!("tasks/{id}/pushNotificationConfigs"),
        "pushNotificationConfig": {"url": format!("{}/j", rx.url)}});
    let (status, _, v) = post(&s, &base, js.to_string(), &[JSON]).await;
    assert_eq!(status, 200, "{v}");
    let assigned = v["pushNotificationConfig"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        !assigned.is_empty() && v["name"].as_str().unwrap().ends_with(&assigned),
        "{v}"
    );

    let (status, v) = get(&s, &format!("{base}/p1")).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["pushNotificationConfig"]["url"], rx.url.as_str());
    let (status, v) = get(&s, &base).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["configs"].as_array().unwrap().len(), 2, "{v}");
    let r = reqwest::Client::new()
        .delete(format!("{}{base}/p1", s.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), json!({}));
    let (status, v) = get(&s, &format!("{base}/p1")).await;
    assert_eq!(status, 404, "{v}");
    assert!(v["code"].is_i64(), "{v}");

    // Hostile: another task's parent, a name with extra segments, an unknown member.
    for bad in [
        json!({"parent": "tasks/other", "config": {"pushNotificationConfig": {"url": "https://e/h"}}}),
        json!({"config": {"name": format!("tasks/{id}/pushNotificationConfigs/a/b"), "pushNotificationConfig": {"url": "https://e/h"}}}),
        json!({"pushNotificationConfig": {"url": "https://e/h", "bogus": 1}}),
    ] {
        let (status, _, v) = post(&s, &base, bad.to_string(), &[JSON]).await;
        assert_error(status, &v, 422, -32602);
    }
    // A private webhook address registered over 0.3 meets the same guard as over 1.0.
    let private = json!({"pushNotificationConfig": {"url": "http://10.0.0.1/h"}});
    let (status, _, v) = post(&s, &base, private.to_string(), &[JSON]).await;
    assert!(status >= 400 && v["code"].is_i64(), "{status} {v}");
    s.shutdown().await;
}

#[tokio::test]
async fn push_configs_are_refused_the_0_3_way_when_push_is_off() {
    let s = start_server().await;
    let (status, v) = get(&s, "/v1/tasks/t/pushNotificationConfigs").await;
    assert_error(status, &v, 501, -32003);
    s.shutdown().await;
}

/// A body, its headers, and the status and A2A code it must get.
type Case = (String, Vec<(&'static str, &'static str)>, u16, i64);

#[tokio::test]
async fn bad_bodies_and_paths_get_0_3_errors() {
    let s = start_server().await;
    let path = "/v1/message:send";
    let cases: Vec<Case> = vec![
        ("{".into(), vec![JSON], 400, -32700),
        (r#"{"a":1,"a":2}"#.into(), vec![JSON], 400, -32700),
        ("[]".into(), vec![JSON], 422, -32602),
        // A 0.3 JSON-RPC message sent to the ProtoJSON binding: unknown members.
        (
            json!({"message": {"kind": "message", "messageId": "m", "role": "user", "parts": []}})
                .to_string(),
            vec![JSON],
            422,
            -32602,
        ),
        (
            json!({"message": {"messageId": "m", "role": "ROLE_UNSPECIFIED", "content": []}})
                .to_string(),
            vec![JSON],
            422,
            -32602,
        ),
        (
            json!({"message": {"messageId": "m", "role": "ROLE_USER", "content": [{}]}})
                .to_string(),
            vec![JSON],
            422,
            -32602,
        ),
        (
            send_pj(json!({}), true),
            vec![("Content-Type", "text/plain")],
            415,
            -32005,
        ),
        (
            format!("{}1{}", "[".repeat(500), "]".repeat(500)),
            vec![JSON],
            400,
            -32700,
        ),
        // The 1.0 header on a 0.3 path.
        (
            send_pj(json!({}), true),
            vec![JSON, ("A2A-Version", "1.0")],
            400,
            -32009,
        ),
    ];
    for (body, headers, want_status, want_code) in cases {
        let (status, _, v) = post(&s, path, body.clone(), &headers).await;
        assert_error(status, &v, want_status, want_code);
    }
    // The body limit: 413 with a 0.3 body (no A2A code for it).
    let huge = format!(
        r#"{{"message":{{"messageId":"{}","role":"ROLE_USER","content":[]}}}}"#,
        "x".repeat(3 << 20)
    );
    let (status, _, v) = post(&s, path, huge, &[JSON]).await;
    assert_eq!(status, 413, "{v}");
    assert!(v["message"].is_string() && v.get("code").is_none(), "{v}");
    // Unknown paths and methods.
    let (status, v) = get(&s, "/v1/tasks").await;
    assert_error(status, &v, 404, -32601);
    let (status, v) = get(&s, "/v1/nothing/here").await;
    assert_error(status, &v, 404, -32601);
    let (status, v) = get(&s, path).await;
    assert_eq!(status, 405, "{v}");
    assert!(v["message"].is_string(), "{v}");
    s.shutdown().await;
}

#[tokio::test]
async fn narrowed_to_1_0_the_v1_paths_are_refused() {
    let config = ServerConfig {
        a2a_versions: VersionSet::only(WireVersion::V1_0),
        ..ServerConfig::default()
    };
    let s = Server::start(agent(), config).await;
    let (status, _, v) = post(&s, "/v1/message:send", send_pj(json!({}), true), &[JSON]).await;
    assert_error(status, &v, 400, -32009);
    let card = s.card().await;
    assert!(card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["protocolVersion"] == "1.0"));
    s.shutdown().await;
}

#[tokio::test]
async fn a_webhook_registered_over_0_3_rest_is_sent_0_3_tasks() {
    let s = push_server().await;
    let rx = Receiver::start().await;
    let card = s.card().await;
    let data = request(&card, "evaluate_resource_condition", observe_args());
    let body = json!({"message": {"messageId": uuid(), "role": "ROLE_USER",
        "content": [{"data": {"data": data}}]},
        "configuration": {"blocking": true, "pushNotification": {"url": rx.url, "token": "tok-rest"}}});
    let (status, _, v) = post(&s, "/v1/message:send", body.to_string(), &[JSON, EXT03]).await;
    assert_eq!(status, 200, "{v}");
    let id = v["task"]["id"].as_str().unwrap().to_owned();
    let seen = eventually(Duration::from_secs(10), || async {
        let b = rx.seen();
        b.iter()
            .any(|x| x.body["status"]["state"] == "completed")
            .then_some(b)
    })
    .await;
    for x in &seen {
        // The 0.3 webhook body is the 0.3 JSON Task (the 0.3 spec's), whichever 0.3 binding
        // registered it.
        assert_eq!(x.body["kind"], "task", "{}", x.body);
        assert_eq!(x.body["id"], id.as_str());
        assert_eq!(x.headers["content-type"], "application/json");
        assert_eq!(x.headers["x-a2a-notification-token"], "tok-rest");
    }
    s.shutdown().await;
}

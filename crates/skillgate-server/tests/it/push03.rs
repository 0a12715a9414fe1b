//! Push notifications to webhooks registered in A2A 0.3: each webhook is sent the version it
//! was registered in (0.3: the whole Task in 0.3 JSON, `application/json`), also when 1.0 and
//! 0.3 webhooks watch the same task.

use crate::common::*;
use crate::push::{push_server, Receiver};
use serde_json::{json, Value};
use std::time::Duration;

/// A 0.3 JSON-RPC call (no `A2A-Version`), answered 200 with a JSON body.
async fn rpc03(s: &Server, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params});
    let (status, _, text) = s
        .post_raw(
            "/",
            body.to_string(),
            &[("Content-Type", "application/json")],
        )
        .await;
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// A 0.3 user message around one Data Part.
fn message03(data: Value) -> Value {
    json!({"kind": "message", "messageId": uuid(), "role": "user",
        "parts": [{"kind": "data", "data": data}]})
}

/// Waits until a 0.3 body reports the task completed; every body so far.
async fn until_completed03(rx: &Receiver) -> Vec<Value> {
    eventually(Duration::from_secs(10), || async {
        let b = rx.bodies();
        b.iter()
            .any(|t| t["status"]["state"] == "completed")
            .then_some(b)
    })
    .await
}

#[tokio::test]
async fn a_webhook_registered_in_0_3_is_sent_0_3_tasks() {
    let s = push_server().await;
    let rx = Receiver::start().await;
    let card = s.card().await;
    let data = request(&card, "evaluate_resource_condition", observe_args());
    let params = json!({"message": message03(data), "configuration": {
        "blocking": true,
        "pushNotificationConfig": {"url": rx.url, "token": "tok-03",
            "authentication": {"schemes": ["Bearer"], "credentials": "s3cret"}}}});
    let v = rpc03(&s, "message/send", params).await;
    assert_eq!(v["result"]["status"]["state"], "completed", "{v}");
    let id = v["result"]["id"].as_str().unwrap();
    let pushed = until_completed03(&rx).await;
    for body in &pushed {
        assert_eq!(body["kind"], "task", "a 0.3 push body is a Task: {body}");
        assert_eq!(body["id"], id);
        assert!(body.get("history").is_none(), "no history: {body}");
        assert!(body.get("statusUpdate").is_none());
    }
    let last = pushed.last().unwrap();
    assert_eq!(last["artifacts"][0]["parts"][0]["kind"], "data", "{last}");
    for seen in rx.seen() {
        assert_eq!(seen.headers["content-type"], "application/json");
        assert_eq!(seen.headers["x-a2a-notification-token"], "tok-03");
        assert_eq!(seen.headers["authorization"], "Bearer s3cret");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn one_task_watched_in_both_versions_sends_each_webhook_its_own() {
    let s = push_server().await;
    let (rx03, rx10) = (Receiver::start().await, Receiver::start().await);
    let id = s.start_task("wait", json!({"ms": 1500})).await;
    let set = rpc03(
        &s,
        "tasks/pushNotificationConfig/set",
        json!({"taskId": id, "pushNotificationConfig": {"id": "old", "url": rx03.url}}),
    )
    .await;
    assert_eq!(
        set["result"]["pushNotificationConfig"]["id"], "old",
        "{set}"
    );
    let created = s
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "id": "new", "url": rx10.url}),
        )
        .await;
    assert_eq!(created["result"]["id"], "new", "{created}");

    let v1 = rx10.until_final().await;
    assert!(v1.iter().all(|e| e.get("kind").is_none()), "{v1:?}");
    let v03 = until_completed03(&rx03).await;
    assert!(v03.iter().all(|t| t["kind"] == "task"), "{v03:?}");
    assert_eq!(
        rx10.seen()[0].headers["content-type"],
        "application/a2a+json"
    );
    assert_eq!(rx03.seen()[0].headers["content-type"], "application/json");
    // Read back in 0.3, the config is the one the 0.3 client set.
    let got = rpc03(
        &s,
        "tasks/pushNotificationConfig/get",
        json!({"id": id, "pushNotificationConfigId": "old"}),
    )
    .await;
    assert_eq!(
        got["result"]["pushNotificationConfig"]["url"],
        rx03.url.as_str(),
        "{got}"
    );
    s.shutdown().await;
}

//! Every served method over gRPC, against the same service the JSON-RPC binding uses.

use crate::common::*;
use futures_util::StreamExt;
use serde_json::{json, Value};
use skillgate_grpc::pb;
use skillgate_runtime::ServerConfig;
use std::time::Duration;

#[tokio::test]
async fn card_lists_grpc_after_the_http_interfaces() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;
    let i = card["supportedInterfaces"].as_array().unwrap();
    assert_eq!(i.len(), 6, "{card}");
    // The A2A 0.3 interfaces (served by default) come last: JSON-RPC, HTTP+JSON, then gRPC
    // on the same port as 1.0's (D267).
    for (n, binding) in [(3, "JSONRPC"), (4, "HTTP+JSON"), (5, "GRPC")] {
        assert_eq!(i[n]["protocolBinding"], binding, "{card}");
        assert_eq!(i[n]["protocolVersion"], "0.3", "{card}");
    }
    assert_eq!(i[5]["url"], s.grpc_addr.as_str());
    assert_eq!(i[0]["protocolBinding"], "JSONRPC");
    assert_eq!(i[1]["protocolBinding"], "HTTP+JSON");
    assert_eq!(i[2]["protocolBinding"], "GRPC");
    assert_eq!(i[2]["url"], s.grpc_addr.as_str());
    assert_eq!(i[2]["protocolVersion"], "1.0");
    s.shutdown().await;
}

#[tokio::test]
async fn describe_skill_over_grpc() {
    let s = Both::start(ServerConfig::default()).await;
    let mut c = s.client().await;
    let m = send(json!({"skill": "describe_skill", "arguments": {"skill_id": "echo"}}));
    let r = c.send_message(req(m, &[])).await.unwrap().into_inner();
    let r = json_of(&r);
    let task = &r["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{r}");
    let doc = output(task);
    assert_eq!(doc["skill_interface"]["skill_id"], "echo", "{doc}");
    assert!(doc["interface_digest"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    s.shutdown().await;
}

#[tokio::test]
async fn governed_call_valid_and_invalid_input() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;
    let mut c = s.client().await;
    let ok = c
        .send_message(req(send(call(&card, "echo", json!({"n": 41}))), &[]))
        .await
        .unwrap()
        .into_inner();
    let ok = json_of(&ok);
    assert_eq!(
        ok["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{ok}"
    );
    // The Struct's double 41.0 reaches the skill (and comes back) as the integer 41.
    assert_eq!(output(&ok["task"])["n"], json!(41.0));

    let bad = c
        .send_message(req(send(call(&card, "echo", json!({"n": "x"}))), &[]))
        .await
        .unwrap()
        .into_inner();
    let bad = json_of(&bad);
    let task = &bad["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_REJECTED", "{bad}");
    let err = &task["status"]["message"]["parts"][0]["data"];
    assert_eq!(err["code"], "input_invalid", "{err}");
    s.shutdown().await;
}

async fn collect(mut st: tonic::Streaming<pb::StreamResponse>) -> Vec<Value> {
    let mut out = Vec::new();
    while let Some(ev) = tokio::time::timeout(Duration::from_secs(10), st.next())
        .await
        .expect("the stream ends")
    {
        out.push(json_of(&ev.unwrap()));
    }
    out
}

#[tokio::test]
async fn streaming_sends_the_task_then_updates_to_completed() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;
    let mut c = s.client().await;
    let st = c
        .send_streaming_message(req(send(call(&card, "echo", json!({"n": 3}))), &[]))
        .await
        .unwrap()
        .into_inner();
    let events = collect(st).await;
    assert!(
        events[0].get("task").is_some(),
        "first event is the task: {events:?}"
    );
    let last = events.last().unwrap();
    assert_eq!(
        last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{events:?}"
    );
    assert!(
        events.iter().any(|e| e.get("artifactUpdate").is_some()),
        "{events:?}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn subscribe_to_a_running_task_and_read_it_over_jsonrpc() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;
    let mut c = s.client().await;
    let mut m = json_of(&send(call(&card, "echo", json!({"n": 7, "ms": 400}))));
    m["configuration"] = json!({"returnImmediately": true});
    let r = c.send_message(req(pb(m), &[])).await.unwrap().into_inner();
    let r = json_of(&r);
    let id = r["task"]["id"].as_str().unwrap().to_owned();
    assert_ne!(r["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{r}");

    let st = c
        .subscribe_to_task(req(pb(json!({"id": id})), &[]))
        .await
        .unwrap()
        .into_inner();
    let events = collect(st).await;
    assert_eq!(events[0]["task"]["id"], id.as_str(), "{events:?}");
    assert_eq!(
        events.last().unwrap()["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{events:?}"
    );

    // One task store: the gRPC task is visible over JSON-RPC.
    let got = s.rpc("GetTask", json!({"id": id})).await;
    assert_eq!(got["result"]["id"], id.as_str(), "{got}");
    assert_eq!(got["result"]["status"]["state"], "TASK_STATE_COMPLETED");
    s.shutdown().await;
}

#[tokio::test]
async fn get_list_and_cancel_a_task_created_over_jsonrpc() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;
    let params = json!({"message": {"messageId": uuid(), "role": "ROLE_USER",
        "parts": [{"data": call(&card, "echo", json!({"n": 1, "ms": 5000}))}]},
        "configuration": {"returnImmediately": true}});
    let created = s.rpc("SendMessage", params).await;
    let id = created["result"]["task"]["id"].as_str().unwrap().to_owned();

    let mut c = s.client().await;
    let t = c
        .get_task(req(pb(json!({"id": id})), &[]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(t.id, id);
    let listed = c
        .list_tasks(req(pb(json!({"pageSize": 10})), &[]))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.tasks.iter().any(|t| t.id == id));
    assert_eq!(listed.total_size, 1);
    let canceled = c
        .cancel_task(req(pb(json!({"id": id})), &[]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(json_of(&canceled)["status"]["state"], "TASK_STATE_CANCELED");
    s.shutdown().await;
}

#[tokio::test]
async fn activated_extensions_are_echoed_in_response_metadata() {
    let s = Both::start(ServerConfig::default()).await;
    let mut c = s.client().await;
    let m = send(json!({"skill": "describe_skill", "arguments": {"skill_id": "echo"}}));
    let r = c
        .send_message(req(
            m,
            &[("a2a-extensions", &format!("urn:unknown, {EXT}"))],
        ))
        .await
        .unwrap();
    let echoed = r
        .metadata()
        .get("a2a-extensions")
        .unwrap()
        .to_str()
        .unwrap();
    assert_eq!(echoed, EXT);
    let m = send(json!({"skill": "describe_skill", "arguments": {"skill_id": "echo"}}));
    let r = c.send_message(req(m, &[])).await.unwrap();
    assert!(r.metadata().get("a2a-extensions").is_none());
    s.shutdown().await;
}

#[tokio::test]
async fn shutdown_ends_open_streams_within_the_grace() {
    let s = Both::start_with(agent(), ServerConfig::default(), Duration::from_secs(2)).await;
    let card = s.card().await;
    let mut c = s.client().await;
    let mut st = c
        .send_streaming_message(req(
            send(call(&card, "echo", json!({"n": 1, "ms": 60000}))),
            &[],
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(st.next().await.unwrap().unwrap().payload.is_some());
    let started = std::time::Instant::now();
    s.signal_stop();
    // The stream ends (cleanly or with a transport error) instead of waiting for the skill.
    tokio::time::timeout(Duration::from_secs(5), collect_rest(&mut st))
        .await
        .expect("stream ended at shutdown");
    assert!(started.elapsed() < Duration::from_secs(5));
    s.shutdown().await;
}

async fn collect_rest(st: &mut tonic::Streaming<pb::StreamResponse>) {
    while let Some(Ok(_)) = st.next().await {}
}

#[tokio::test]
async fn grpc_calls_count_in_the_service_metrics() {
    let config = ServerConfig {
        metrics: true,
        ..Default::default()
    };
    let s = Both::start(config).await;
    let card = s.card().await;
    let mut c = s.client().await;
    c.send_message(req(send(call(&card, "echo", json!({"n": 2}))), &[]))
        .await
        .unwrap();
    let text = s
        .http
        .get(format!("{}/metrics", s.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.lines()
            .any(|l| l == "skillgate_tasks_total{state=\"completed\"} 1"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l == "skillgate_gate_outcomes_total{phase=\"processing\",code=\"ok\"} 1"),
        "{text}"
    );
    // The request counter is the HTTP layer's: it sees the card fetch, not the gRPC call.
    assert!(!text.contains("binding=\"GRPC\""), "{text}");
    s.shutdown().await;
}

#[tokio::test]
async fn push_configs_are_created_read_listed_and_deleted_over_grpc() {
    let mut push = skillgate_runtime::PushPolicy::default();
    push.guard.allow_http_loopback = true;
    let s = Both::start(ServerConfig {
        push: Some(push),
        ..ServerConfig::default()
    })
    .await;
    let card = s.card().await;
    assert_eq!(card["capabilities"]["pushNotifications"], true, "{card}");
    let params = json!({"message": {"messageId": uuid(), "role": "ROLE_USER",
        "parts": [{"data": call(&card, "echo", json!({"n": 1, "ms": 5000}))}]},
        "configuration": {"returnImmediately": true}});
    let created = s.rpc("SendMessage", params).await;
    let id = created["result"]["task"]["id"].as_str().unwrap().to_owned();

    let mut c = s.client().await;
    // Port 9 (discard): nothing listens, and delivery failures do not concern the methods.
    let config = c
        .create_task_push_notification_config(req(
            pb(json!({"taskId": id, "url": "http://127.0.0.1:9/hook",
                "authentication": {"scheme": "Bearer", "credentials": "push-secret"}})),
            &[],
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(config.task_id, id);
    assert!(!config.id.is_empty(), "the server names the config");
    let read = c
        .get_task_push_notification_config(req(pb(json!({"taskId": id, "id": config.id})), &[]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(json_of(&read)["url"], "http://127.0.0.1:9/hook");
    // The same config is visible over JSON-RPC: one service, one store.
    let listed = s
        .rpc("ListTaskPushNotificationConfigs", json!({"taskId": id}))
        .await;
    assert_eq!(
        listed["result"]["configs"][0]["id"],
        json!(config.id),
        "{listed}"
    );
    c.delete_task_push_notification_config(req(pb(json!({"taskId": id, "id": config.id})), &[]))
        .await
        .unwrap();
    let listed = c
        .list_task_push_notification_configs(req(pb(json!({"taskId": id})), &[]))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.configs.is_empty(), "{listed:?}");
    // The guard applies here as on the HTTP bindings: a private address is refused.
    let e = c
        .create_task_push_notification_config(req(
            pb(json!({"taskId": id, "url": "https://10.0.0.5/hook"})),
            &[],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("private"), "{e:?}");
    s.shutdown().await;
}

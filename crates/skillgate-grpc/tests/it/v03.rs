//! The A2A 0.3 service `a2a.v1.A2AService` on the gRPC port, called with the generated 0.3
//! tonic client (no A2A-Version, as 0.3 clients send none), beside the 1.0 service.

use crate::common::*;
use futures_util::StreamExt;
use serde_json::{json, Value};
use skillgate_grpc::pb03;
use skillgate_grpc::pb03::a2a_service_client::A2aServiceClient;
use skillgate_runtime::checks::VersionSet;
use skillgate_runtime::ServerConfig;
use std::time::Duration;
use tonic::transport::Channel;
use tonic::Code;

async fn client03(s: &Both) -> A2aServiceClient<Channel> {
    A2aServiceClient::connect(format!("http://{}", s.grpc_addr))
        .await
        .unwrap()
}

/// A 0.3 request carrying `msg` and the extension activated the 0.3 way.
fn req03<T>(msg: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    r.metadata_mut()
        .insert("x-a2a-extensions", EXT.parse().unwrap());
    r
}

/// A blocking 0.3 SendMessageRequest (proto3: absent `blocking` is non-blocking) with one
/// Data Part.
fn send03(data: Value, blocking: bool) -> pb03::SendMessageRequest {
    pb(json!({
        "message": {"messageId": uuid(), "role": "ROLE_USER",
            "content": [{"data": {"data": data}}]},
        "configuration": {"blocking": blocking}
    }))
}

fn status_data(task: &Value) -> Value {
    task["status"]["message"]["content"][0]["data"]["data"].clone()
}

#[tokio::test]
async fn both_cards_list_grpc_03_on_the_grpc_port() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;
    let grpc03: Vec<&Value> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["protocolBinding"] == "GRPC" && i["protocolVersion"] == "0.3")
        .collect();
    assert_eq!(grpc03.len(), 1, "{card}");
    assert_eq!(grpc03[0]["url"], s.grpc_addr.as_str());
    // The header-less reader (a 0.3 client) gets the 0.3 card: JSON-RPC stays its `url`,
    // gRPC is one more additional interface.
    let body = s
        .http
        .get(format!("{}/.well-known/agent-card.json", s.base))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let v03: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v03["preferredTransport"], "JSONRPC", "{v03}");
    let extra = v03["additionalInterfaces"].as_array().unwrap();
    assert!(
        extra
            .iter()
            .any(|i| i["transport"] == "GRPC" && i["url"] == s.grpc_addr.as_str()),
        "{v03}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn get_agent_card_answers_the_03_card_in_proto_form() {
    let s = Both::start(ServerConfig::default()).await;
    let mut c = client03(&s).await;
    let card = c
        .get_agent_card(req03(pb03::GetAgentCardRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(card.name, "grpc-test-agent");
    assert_eq!(card.protocol_version, "0.3.0");
    assert_eq!(card.preferred_transport, "JSONRPC");
    assert!(card
        .additional_interfaces
        .iter()
        .any(|i| i.transport == "GRPC" && i.url == s.grpc_addr));
    let caps = card.capabilities.unwrap();
    assert!(caps.extensions.iter().any(|e| e.uri == EXT));
    s.shutdown().await;
}

#[tokio::test]
async fn get_agent_card_follows_a_reload_and_gives_a_caller_its_extended_card() {
    let tokens = skillgate_runtime::TokenTable::parse("all-secret-0123456789\n").unwrap();
    let config = ServerConfig {
        tokens: Some(tokens),
        ..Default::default()
    };
    let s = Both::start(config).await;
    let mut c = client03(&s).await;
    let get = |c: &mut A2aServiceClient<Channel>| {
        let mut r = req03(pb03::GetAgentCardRequest {});
        r.metadata_mut().insert(
            "authorization",
            "Bearer all-secret-0123456789".parse().unwrap(),
        );
        let mut c = c.clone();
        async move { c.get_agent_card(r).await.unwrap().into_inner() }
    };
    let first = get(&mut c).await;
    assert_eq!(first.name, "grpc-test-agent");
    assert_eq!(get(&mut c).await, first, "the same card until it changes");
    // A reload serves another agent: its card, not the one built before.
    let secret = skillgate_runtime::Skill::builder("secret_op", "1.0")
        .input_schema("urn:test:secret:input", "1.0", json!({"type": "object"}))
        .output_schema("urn:test:secret:output", "1.0", json!({"type": "object"}))
        .extended_only()
        .handler(
            |_a: Value, _c: skillgate_runtime::SkillContext| async move {
                Ok(skillgate_runtime::SkillOutput::new(json!({})))
            },
        )
        .build();
    let reloaded = skillgate_runtime::Agent::builder("reloaded-agent", "After a reload", "0.2.0")
        .skill(echo_skill())
        .skill(secret)
        .build()
        .unwrap();
    s.swap.replace(reloaded);
    let after = get(&mut c).await;
    assert_eq!(after.name, "reloaded-agent");
    // With a token, the agent's extended card: the extended-only skill is listed.
    let ids: Vec<&str> = after.skills.iter().map(|k| k.id.as_str()).collect();
    assert!(ids.contains(&"secret_op"), "{ids:?}");
    assert!(after.supports_authenticated_extended_card);
    // And back to an agent without one: the public card, built anew for the new agent.
    let plain = skillgate_runtime::Agent::builder("third-agent", "Another reload", "0.3.0")
        .skill(echo_skill())
        .build()
        .unwrap();
    s.swap.replace(plain);
    let third = get(&mut c).await;
    assert_eq!(third.name, "third-agent");
    assert_eq!(third.version, "0.3.0");
    s.shutdown().await;
}

#[tokio::test]
async fn describe_skill_and_a_governed_call_over_03_grpc() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;
    let mut c = client03(&s).await;
    let m = send03(
        json!({"skill": "describe_skill", "arguments": {"skill_id": "echo"}}),
        true,
    );
    let r = c.send_message(req03(m)).await.unwrap();
    assert_eq!(
        r.metadata()
            .get("x-a2a-extensions")
            .unwrap()
            .to_str()
            .unwrap(),
        EXT
    );
    let r = json_of(&r.into_inner());
    let task = &r["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{r}");
    assert_eq!(task["artifacts"][0]["name"], "describe_skill", "{r}");
    let doc = &task["artifacts"][0]["parts"][0]["data"]["data"];
    assert_eq!(doc["skill_interface"]["skill_id"], "echo", "{doc}");
    let digest = doc["interface_digest"].as_str().unwrap();
    assert!(digest.starts_with("sha256:"));

    let ok = c
        .send_message(req03(send03(call(&card, "echo", json!({"n": 41})), true)))
        .await
        .unwrap()
        .into_inner();
    let ok = json_of(&ok);
    assert_eq!(
        ok["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{ok}"
    );
    assert_eq!(
        ok["task"]["artifacts"][0]["parts"][0]["data"]["data"]["n"],
        json!(41.0),
        "{ok}"
    );

    let bad = c
        .send_message(req03(send03(call(&card, "echo", json!({"n": "x"})), true)))
        .await
        .unwrap()
        .into_inner();
    let bad = json_of(&bad);
    assert_eq!(
        bad["task"]["status"]["state"], "TASK_STATE_REJECTED",
        "{bad}"
    );
    assert_eq!(status_data(&bad["task"])["code"], "input_invalid", "{bad}");
    s.shutdown().await;
}

#[tokio::test]
async fn streaming_ends_with_a_final_completed_update() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;
    let mut c = client03(&s).await;
    let mut st = c
        .send_streaming_message(req03(send03(call(&card, "echo", json!({"n": 3})), false)))
        .await
        .unwrap()
        .into_inner();
    let mut events = Vec::new();
    while let Some(ev) = tokio::time::timeout(Duration::from_secs(10), st.next())
        .await
        .expect("the stream ends")
    {
        events.push(json_of(&ev.unwrap()));
    }
    let last = events.last().unwrap();
    assert_eq!(
        last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{events:?}"
    );
    assert_eq!(last["statusUpdate"]["final"], true, "{events:?}");
    assert!(
        events.iter().any(|e| e.get("artifactUpdate").is_some()),
        "{events:?}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn get_cancel_and_subscribe_by_resource_name() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;
    let mut c = client03(&s).await;
    let r = c
        .send_message(req03(send03(
            call(&card, "echo", json!({"n": 7, "ms": 3000})),
            false,
        )))
        .await
        .unwrap()
        .into_inner();
    let id = json_of(&r)["task"]["id"].as_str().unwrap().to_string();
    let name = format!("tasks/{id}");
    let mut sub = c
        .task_subscription(req03(pb03::TaskSubscriptionRequest { name: name.clone() }))
        .await
        .unwrap()
        .into_inner();
    let got = c
        .get_task(req03(pb03::GetTaskRequest {
            name: name.clone(),
            history_length: 0,
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.id, id);
    let canceled = c
        .cancel_task(req03(pb03::CancelTaskRequest { name }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        json_of(&canceled)["status"]["state"],
        "TASK_STATE_CANCELLED"
    );
    // The subscriber sees the cancellation and its stream ends.
    let mut last = Value::Null;
    while let Some(ev) = tokio::time::timeout(Duration::from_secs(10), sub.next())
        .await
        .expect("the subscription ends")
    {
        last = json_of(&ev.unwrap());
    }
    assert_eq!(
        last["statusUpdate"]["status"]["state"], "TASK_STATE_CANCELLED",
        "{last}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn errors_are_the_03_table_codes_and_texts() {
    let s = Both::start(ServerConfig::default()).await;
    let mut c = client03(&s).await;
    let e = c
        .get_task(req03(pb03::GetTaskRequest {
            name: "tasks/nope".into(),
            history_length: 0,
        }))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert!(e.message().starts_with("TaskNotFoundError: "), "{e:?}");
    for bad in ["nope", "tasks/", "tasks/a/b", "tasks/.."] {
        let e = c
            .cancel_task(req03(pb03::CancelTaskRequest { name: bad.into() }))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{bad}: {e:?}");
        assert!(e.message().starts_with("InvalidParamsError: "), "{e:?}");
    }
    // No `--push`: every push method answers PushNotificationNotSupported.
    let e = c
        .get_task_push_notification_config(req03(pb03::GetTaskPushNotificationConfigRequest {
            name: "tasks/a/pushNotificationConfigs/b".into(),
        }))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unimplemented);
    assert!(
        e.message()
            .starts_with("PushNotificationNotSupportedError: "),
        "{e:?}"
    );
    // A message with no content is not a valid 0.3 message.
    let e = c
        .send_message(req03(pb(
            json!({"message": {"messageId": "m", "role": "ROLE_UNSPECIFIED"}}),
        )))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    s.shutdown().await;
}

#[tokio::test]
async fn push_configs_by_resource_name() {
    let mut push = skillgate_runtime::PushPolicy::default();
    push.guard.allow_http_loopback = true;
    let s = Both::start(ServerConfig {
        push: Some(push),
        ..Default::default()
    })
    .await;
    let card = s.card().await;
    let mut c = client03(&s).await;
    let r = c
        .send_message(req03(send03(
            call(&card, "echo", json!({"n": 1, "ms": 2000})),
            false,
        )))
        .await
        .unwrap()
        .into_inner();
    let id = json_of(&r)["task"]["id"].as_str().unwrap().to_string();
    let created = c
        .create_task_push_notification_config(req03(pb(json!({
            "parent": format!("tasks/{id}"),
            "configId": "c1",
            "config": {"pushNotificationConfig": {"url": "http://127.0.0.1:9/hook",
                "token": "t"}}
        }))))
        .await
        .unwrap()
        .into_inner();
    let name = format!("tasks/{id}/pushNotificationConfigs/c1");
    assert_eq!(created.name, name);
    let got = c
        .get_task_push_notification_config(req03(pb03::GetTaskPushNotificationConfigRequest {
            name: name.clone(),
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        got.push_notification_config.unwrap().url,
        "http://127.0.0.1:9/hook"
    );
    let listed = c
        .list_task_push_notification_config(req03(pb03::ListTaskPushNotificationConfigRequest {
            parent: format!("tasks/{id}"),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.configs.len(), 1);
    c.delete_task_push_notification_config(req03(pb03::DeleteTaskPushNotificationConfigRequest {
        name: name.clone(),
    }))
    .await
    .unwrap();
    let e = c
        .get_task_push_notification_config(req03(pb03::GetTaskPushNotificationConfigRequest {
            name,
        }))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    s.shutdown().await;
}

#[tokio::test]
async fn the_03_service_refuses_when_03_is_not_served() {
    let s = Both::start(ServerConfig {
        a2a_versions: VersionSet::parse_list("1.0").unwrap(),
        ..Default::default()
    })
    .await;
    let card = s.card().await;
    assert!(
        !card["supportedInterfaces"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["protocolVersion"] == "0.3"),
        "{card}"
    );
    let mut c = client03(&s).await;
    let e = c
        .get_agent_card(req03(pb03::GetAgentCardRequest {}))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert!(
        e.message().starts_with("VersionNotSupportedError: "),
        "{e:?}"
    );
    // The 1.0 service on the same port still answers.
    let mut c10 = s.client().await;
    let m = send(json!({"skill": "describe_skill", "arguments": {"skill_id": "echo"}}));
    c10.send_message(req(m, &[])).await.unwrap();
    s.shutdown().await;
}

#[tokio::test]
async fn the_03_service_keeps_the_ports_bearer_check_and_body_limit() {
    let token = "grpc-test-token-0123456789";
    let s = Both::start(ServerConfig {
        tokens: Some(tokens(token)),
        body_limit: 2048,
        ..Default::default()
    })
    .await;
    let mut c = client03(&s).await;
    let describe = || {
        send03(
            json!({"skill": "describe_skill", "arguments": {"skill_id": "echo"}}),
            true,
        )
    };
    let e = c.send_message(req03(describe())).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    let mut r = req03(describe());
    r.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    let ok = c.send_message(r).await.unwrap().into_inner();
    assert_eq!(
        json_of(&ok)["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    // A message over the body limit is refused by tonic before it is decoded.
    let big = send03(json!({"skill": "x".repeat(4096)}), true);
    let mut r = req03(big);
    r.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    let e = c.send_message(r).await.unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
    s.shutdown().await;
}

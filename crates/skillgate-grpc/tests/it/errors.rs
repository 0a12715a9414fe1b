//! Errors as google.rpc.Status with ErrorInfo; version metadata; bearer tokens.

use crate::common::*;
use serde_json::json;
use skillgate_grpc::pb;
use skillgate_runtime::ServerConfig;
use tonic::Code;

#[tokio::test]
async fn unknown_task_is_not_found_with_error_info() {
    let s = Both::start(ServerConfig::default()).await;
    let mut c = s.client().await;
    let e = c
        .get_task(req(pb::<pb::GetTaskRequest>(json!({"id": "nope"})), &[]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound, "{e:?}");
    assert_eq!(
        error_info(&e),
        ("TASK_NOT_FOUND".to_owned(), "a2a-protocol.org".to_owned())
    );
    s.shutdown().await;
}

#[tokio::test]
async fn push_configs_are_not_supported() {
    let s = Both::start(ServerConfig::default()).await;
    let mut c = s.client().await;
    let e = c
        .create_task_push_notification_config(req(
            pb::<pb::TaskPushNotificationConfig>(
                json!({"taskId": "t", "url": "https://example.invalid/hook"}),
            ),
            &[],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert_eq!(error_info(&e).0, "PUSH_NOTIFICATION_NOT_SUPPORTED");
    s.shutdown().await;
}

#[tokio::test]
async fn an_invalid_message_is_invalid_argument() {
    let s = Both::start(ServerConfig::default()).await;
    let mut c = s.client().await;
    // No parts: the A2A types refuse it, as on JSON-RPC (-32602).
    let m: pb::SendMessageRequest = pb(json!({"message": {"messageId": "x", "role": "ROLE_USER"}}));
    let e = c.send_message(req(m, &[])).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    assert_eq!(error_info(&e).0, "INVALID_PARAMS");
    s.shutdown().await;
}

#[tokio::test]
async fn version_metadata_missing_or_unsupported_is_refused() {
    let s = Both::start(ServerConfig::default()).await;
    let mut c = s.client().await;
    let get = || pb::<pb::GetTaskRequest>(json!({"id": "nope"}));
    // No a2a-version: 0.3, as on HTTP.
    let e = c.get_task(tonic::Request::new(get())).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert_eq!(error_info(&e).0, "VERSION_NOT_SUPPORTED");
    assert!(e.message().contains("'0.3'"), "{}", e.message());
    let mut r = tonic::Request::new(get());
    r.metadata_mut()
        .insert("a2a-version", "99.0".parse().unwrap());
    let e = c.get_task(r).await.unwrap_err();
    assert_eq!(error_info(&e).0, "VERSION_NOT_SUPPORTED");
    assert!(e.message().contains("'99.0'"), "{}", e.message());
    s.shutdown().await;
}

#[tokio::test]
async fn bearer_token_is_checked_like_http() {
    let token = "grpc-test-token-0123456789";
    let config = ServerConfig {
        tokens: Some(tokens(token)),
        ..Default::default()
    };
    let s = Both::start(config).await;
    let mut c = s.client().await;
    let m = || send(json!({"skill": "describe_skill", "arguments": {"skill_id": "echo"}}));
    let e = c.send_message(req(m(), &[])).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    // The caller is checked before the version, as on HTTP.
    let e = c.send_message(tonic::Request::new(m())).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    let e = c
        .send_message(req(
            m(),
            &[("authorization", "Bearer wrong-token-0123456789")],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    assert!(e.message().contains("not valid"));
    let bearer = format!("Bearer {token}");
    let ok = c
        .send_message(req(m(), &[("authorization", &bearer)]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        json_of(&ok)["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    let e = c
        .send_message(req(
            m(),
            &[("authorization", &bearer), ("authorization", &bearer)],
        ))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    s.shutdown().await;
}

#[tokio::test]
async fn a_message_over_the_body_limit_is_refused() {
    let config = ServerConfig {
        body_limit: 2048,
        ..Default::default()
    };
    let s = Both::start(config).await;
    let mut c = s.client().await;
    let big = "x".repeat(4096);
    let m: pb::SendMessageRequest = pb(json!({"message": {"messageId": "x", "role": "ROLE_USER",
        "parts": [{"text": big}]}}));
    let e = c.send_message(req(m, &[])).await.unwrap_err();
    // tonic's own refusal, before anything is decoded.
    assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
    assert!(e.message().contains("2048"), "{}", e.message());
    s.shutdown().await;
}

#[tokio::test]
async fn no_extended_card_is_unsupported_operation() {
    let s = Both::start(ServerConfig::default()).await;
    let mut c = s.client().await;
    let e = c
        .get_extended_agent_card(req(pb::GetExtendedAgentCardRequest::default(), &[]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    assert_eq!(error_info(&e).0, "UNSUPPORTED_OPERATION");
    s.shutdown().await;
}

#[tokio::test]
async fn a_call_past_the_call_timeout_is_cancelled() {
    let grpc = skillgate_grpc::GrpcConfig {
        call_timeout: std::time::Duration::from_millis(300),
        ..Default::default()
    };
    let s = Both::start_full(agent(), ServerConfig::default(), grpc).await;
    let card = s.card().await;
    let mut c = s.client().await;
    let started = std::time::Instant::now();
    // A blocking SendMessage of a 5 s call: the service would wait for it.
    let m = send(call(&card, "echo", json!({"n": 1, "ms": 5000})));
    let e = c.send_message(req(m, &[])).await.unwrap_err();
    assert_eq!(e.code(), Code::Cancelled, "{e:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
    s.shutdown().await;
}

#[tokio::test]
async fn connections_past_the_cap_are_closed_and_a_freed_slot_is_reused() {
    let grpc = skillgate_grpc::GrpcConfig {
        max_connections: 1,
        ..Default::default()
    };
    let s = Both::start_full(agent(), ServerConfig::default(), grpc).await;
    let describe = || send(json!({"skill": "describe_skill", "arguments": {"skill_id": "echo"}}));
    let mut first = s.client().await;
    first.send_message(req(describe(), &[])).await.unwrap();
    // The one slot is held by `first`: another connection is closed on accept.
    let second = async {
        let mut c = s.client().await;
        c.send_message(req(describe(), &[])).await
    };
    let refused = tokio::time::timeout(std::time::Duration::from_secs(5), second)
        .await
        .expect("refused promptly");
    assert!(refused.is_err(), "a second connection is refused");
    drop(first);
    // The slot comes back once the first connection is gone.
    let again = skillgate_testkit::poll::eventually(std::time::Duration::from_secs(5), || async {
        let c = skillgate_grpc::pb::a2a_service_client::A2aServiceClient::connect(format!(
            "http://{}",
            s.grpc_addr
        ))
        .await
        .ok()?;
        let mut c = c;
        c.send_message(req(describe(), &[])).await.ok()
    })
    .await;
    assert!(again.get_ref().payload.is_some());
    s.shutdown().await;
}

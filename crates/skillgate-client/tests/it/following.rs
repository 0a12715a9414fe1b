//! Following a task to its end: polling an early answer, streams that break or are cut off,
//! interrupted tasks, and giving up on a timeout.

use std::time::Duration;

use serde_json::{json, Value};
use skillgate_a2a::TaskState;
use skillgate_client::{run_chain, Client, ClientConfig, ClientError, Mode, Plan, Step};
use skillgate_core::{digest, ErrorCode};
use skillgate_testkit::fake::{self, Domain, FakeAgent, StreamMode, NEXT_SKILL, SKILL};

use super::misbehaving::{args, call, call_with, client};

#[tokio::test]
async fn interrupted_task_is_a_protocol_error_keeping_task_and_state() {
    let fake =
        FakeAgent::start_with(|s| s.domain = Domain::NoErrorObject("TASK_STATE_INPUT_REQUIRED"));
    let e = call(&fake).await.unwrap_err();
    let ClientError::Protocol { task_id, state, .. } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(task_id.as_deref(), Some("task-2"));
    assert_eq!(*state, Some(TaskState::InputRequired));
    assert_eq!(
        serde_json::to_value(e.output()).unwrap()["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
}

#[tokio::test]
async fn a_task_returned_early_is_polled_with_get_task() {
    let fake = FakeAgent::start_with(|s| s.domain = Domain::Deferred);
    let r = call(&fake).await.unwrap();
    assert_eq!(r.output["verdict"], "ok");
    assert_eq!(fake.posts().last().unwrap().method, "GetTask");
}

#[tokio::test]
async fn stream_larger_than_the_response_limit_is_cut_off() {
    let big = json!({"artifactId": "rec-1", "name": "observation",
        "parts": [{"data": {"value": 1, "pad": "x".repeat(40_000)}}]});
    let out = json!({"artifactId": "a-out", "name": SKILL,
        "parts": [{"data": {"verdict": "ok", "observation_ref": "rec-1"}}]});
    let fake = FakeAgent::start_with(|s| s.domain = Domain::Artifacts(vec![big, out]));
    let c = Client::new(ClientConfig {
        transport: skillgate_transport::TransportConfig {
            response_limit: 16 * 1024,
            ..Default::default()
        },
        ..ClientConfig::default()
    })
    .unwrap();
    for mode in [Mode::Stream, Mode::Sync] {
        let e = call_with(&c, &fake, mode).await.unwrap_err();
        assert!(
            matches!(
                e,
                ClientError::Transport {
                    step: Step::Delegate,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.message().contains("limit"), "{e}");
    }
    // The same answer within a larger limit is accepted.
    call_with(&client(), &fake, Mode::Stream).await.unwrap();
}

#[tokio::test]
async fn a_task_returned_early_is_polled_over_http_json_too() {
    let fake = FakeAgent::start_with(|s| s.domain = Domain::Deferred);
    {
        let mut s = fake.state.lock().unwrap();
        let base = s.base.clone();
        s.interfaces = Some(
            json!([{"url": format!("{base}/rest"), "protocolBinding": "HTTP+JSON",
            "protocolVersion": "1.0", "tenant": "acme"}]),
        );
    }
    let r = call(&fake).await.unwrap();
    assert_eq!(r.output["verdict"], "ok");
    let last = fake.log().pop().unwrap();
    assert_eq!(last.method, "GET");
    assert_eq!(last.path, "/rest/acme/tasks/task-2");
    assert_eq!(last.headers["a2a-version"], "1.0");
}

#[tokio::test]
async fn agent_supplied_messages_are_bounded_and_stripped_of_control_characters() {
    let long = format!("\u{1b}[31mred\u{7}{}", "x".repeat(5000));
    let fake = FakeAgent::start_with(|s| {
        s.domain = Domain::Fail(
            "TASK_STATE_REJECTED",
            json!({"code": "constraint_rejected", "message": long}),
        )
    });
    let e = call(&fake).await.unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::ConstraintRejected));
    assert!(e.message().chars().count() <= 1001, "{}", e.message().len());
    assert!(
        !e.message().chars().any(char::is_control),
        "{:?}",
        &e.message()[..20]
    );
}

#[tokio::test]
async fn chain_across_two_agents_correlates_with_both_endpoints() {
    let upstream = FakeAgent::start();
    let downstream = FakeAgent::start_with(|s| {
        let d = fake::document(NEXT_SKILL, "1.0");
        s.advertised = vec![(
            NEXT_SKILL.into(),
            "1.0".into(),
            d.interface_digest().to_string(),
        )];
        s.documents = vec![(NEXT_SKILL.into(), d.value().clone())];
    });
    let plan = Plan::from_value(json!({"steps": [
        {"name": "check", "agent": upstream.base, "skill": SKILL, "arguments": args()},
        {"name": "judge", "agent": format!("{}/.well-known/agent-card.json", downstream.base), "skill": NEXT_SKILL, "from": "check"}
    ]}))
    .unwrap();
    let report = run_chain(&client(), &plan, Mode::Sync, &mut |_| {})
        .await
        .unwrap();
    let c = &report.correlations[0];
    assert_eq!(c.upstream.interface_url, format!("{}/rpc", upstream.base));
    assert_eq!(
        c.downstream.interface_url,
        format!("{}/rpc", downstream.base)
    );
    // Both agents number their tasks alike; the ids are only meaningful with their endpoint.
    assert_eq!(c.upstream.task_id, "task-2");
    assert_eq!(c.downstream.task_id, "task-2");
    assert_eq!(upstream.domain_calls(), 1);
    assert_eq!(downstream.domain_calls(), 1);
}

#[tokio::test]
async fn a_protobuf_peer_that_sends_integers_as_doubles_is_still_served() {
    // a2a-sdk re-encodes every number as a double: 1 -> 1.0. RFC 8785 writes both as 1, so the
    // digest is the same; the client must read the document as the integers it means.
    let doc = skillgate_core::document::InterfaceBuilder::new(SKILL, "1.0")
        .input(
            "urn:test:threshold-request",
            "1.0",
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}),
        )
        .output("urn:test:verdict", "1.0", json!({"type": "object"}))
        .constraints(skillgate_core::wire::Constraints {
            max_input_bytes: Some(65536),
            max_duration_ms: Some(5000),
            ..Default::default()
        })
        .build()
        .unwrap();
    let text = serde_json::to_string(doc.value())
        .unwrap()
        .replace("65536", "65536.0")
        .replace("5000", "5000.0")
        .replace("\"minimum\":1", "\"minimum\":1.0");
    assert!(
        text.contains("65536.0") && text.contains("\"minimum\":1.0"),
        "{text}"
    );
    let doubled: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(digest(&doubled), doc.interface_digest());
    let fake = FakeAgent::start_with(|s| {
        s.domain = Domain::Artifacts(vec![
            json!({"artifactId": "a", "name": SKILL, "parts": [{"data": {"n": 2.0}}]}),
        ])
    });
    fake.set_document(SKILL, doubled, true);
    let r = client()
        .call(
            &fake.base,
            SKILL,
            &json!({"n": 3}),
            Mode::Sync,
            &mut |_, _| {},
        )
        .await
        .unwrap();
    assert_eq!(r.interface_digest, doc.interface_digest());
    assert_eq!(r.output["n"], 2.0);
}

#[tokio::test]
async fn a_dropped_stream_is_resumed_once_with_subscribe_to_task() {
    let fake = FakeAgent::start_with(|s| s.stream = StreamMode::DropThenResume);
    let r = call_with(&client(), &fake, Mode::Stream).await.unwrap();
    assert_eq!(r.output["verdict"], "ok");
    let methods: Vec<String> = fake.posts().iter().map(|p| p.method.clone()).collect();
    assert_eq!(
        methods.iter().filter(|m| *m == "SubscribeToTask").count(),
        1,
        "{methods:?}"
    );
    // A stream that drops again after the resume is reported, not resumed forever.
    let fake = FakeAgent::start_with(|s| s.stream = StreamMode::NoTerminal);
    let e = call_with(&client(), &fake, Mode::Stream).await.unwrap_err();
    assert!(
        e.message()
            .contains("ended while the task was TASK_STATE_WORKING"),
        "{e}"
    );
    let subscribes = fake
        .posts()
        .iter()
        .filter(|p| p.method == "SubscribeToTask")
        .count();
    assert_eq!(subscribes, 1);
}

#[tokio::test]
async fn a_client_that_gives_up_on_a_timeout_cancels_its_task() {
    let fake = FakeAgent::start_with(|s| s.domain = Domain::NeverFinishes);
    let c = Client::new(ClientConfig {
        transport: skillgate_transport::TransportConfig {
            timeout: Duration::from_millis(600),
            ..Default::default()
        },
        ..ClientConfig::default()
    })
    .unwrap();
    let e = call_with(&c, &fake, Mode::Sync).await.unwrap_err();
    assert!(e.message().contains("still TASK_STATE_WORKING"), "{e}");
    let posts = fake.posts();
    let cancel = posts
        .iter()
        .find(|p| p.method == "CancelTask")
        .unwrap_or_else(|| {
            panic!(
                "no CancelTask was sent: {:?}",
                posts.iter().map(|p| &p.method).collect::<Vec<_>>()
            )
        });
    let task_id = fake.state.lock().unwrap().deferred[0].0.clone();
    assert_eq!(
        cancel.body["params"]["id"],
        task_id.as_str(),
        "{:?}",
        cancel.body
    );
}

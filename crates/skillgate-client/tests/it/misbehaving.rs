//! Every step of the client sequence against real agents on 127.0.0.1 that get one thing
//! wrong each; every failure must carry the right code, side, step, and send nothing it
//! must not send.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use skillgate_a2a::TaskState;
use skillgate_client::output::Outcome;
use skillgate_client::{
    run_chain, ChainEvent, ChainFailure, Client, ClientConfig, ClientError, InterfaceSource, Mode,
    Plan, Step, Where,
};
use skillgate_core::{digest, ErrorCode};
use skillgate_testkit::fake::{
    self, CardMode, Domain, FakeAgent, StreamMode, LOOKALIKE_SKILL, NEXT_SKILL, SKILL,
};

fn client() -> Client {
    Client::new(ClientConfig::default()).unwrap()
}

fn args() -> Value {
    json!({"metric": "rx", "threshold": 10})
}

async fn call(fake: &FakeAgent) -> Result<skillgate_client::SkillResult, ClientError> {
    call_with(&client(), fake, Mode::Sync).await
}

async fn call_with(
    c: &Client,
    fake: &FakeAgent,
    mode: Mode,
) -> Result<skillgate_client::SkillResult, ClientError> {
    c.call(&fake.base, SKILL, &args(), mode, &mut |_, _| {})
        .await
}

#[track_caller]
fn assert_local(e: &ClientError, code: ErrorCode, step: Step) {
    assert!(
        matches!(e, ClientError::Local { .. }),
        "expected local error, got {e:?}"
    );
    assert_eq!(e.code(), Some(code), "{e}");
    assert_eq!(e.step(), Some(step), "{e}");
    assert_eq!(e.where_(), Where::Local);
    assert_eq!(e.outcome(), Outcome::Finding);
}

#[tokio::test]
async fn happy_path_sync_runs_all_eleven_steps_and_carries_version_and_digest() {
    let fake = FakeAgent::start();
    let mut seen = Vec::new();
    let r = client()
        .call(&fake.base, SKILL, &args(), Mode::Sync, &mut |s, _| {
            seen.push(s)
        })
        .await
        .unwrap();
    assert_eq!(seen, Step::ALL.to_vec());
    assert_eq!(r.state, TaskState::Completed);
    assert_eq!(r.output["verdict"], "ok");
    assert_eq!(r.records.len(), 1);
    assert_eq!(r.records[0].kind, "observation");
    let doc = fake::document(SKILL, "1.0");
    assert_eq!(r.interface_digest, doc.interface_digest());
    let posts = fake.posts();
    assert_eq!(posts.len(), 2);
    for p in &posts {
        assert_eq!(p.headers["a2a-version"], "1.0");
        assert_eq!(
            p.headers["a2a-extensions"],
            skillgate_core::wire::EXTENSION_URI
        );
        assert_eq!(p.method, "SendMessage");
    }
    let req = posts[1].skill_request();
    assert_eq!(req["skill"], SKILL);
    assert_eq!(req["skill_version"], "1.0");
    assert_eq!(req["interface_digest"], doc.interface_digest().to_string());
    assert_eq!(req["arguments"], args());
    let j = serde_json::to_value(r.output()).unwrap();
    assert_eq!(j["ok"], true);
    assert_eq!(j["state"], "TASK_STATE_COMPLETED");
    assert_eq!(j["records"][0]["artifact_id"], "rec-1");
}

#[tokio::test]
async fn happy_path_stream_assembles_a_stream_that_does_not_start_with_a_task() {
    let fake = FakeAgent::start();
    let r = call_with(&client(), &fake, Mode::Stream).await.unwrap();
    assert_eq!(r.output["observation_ref"], "rec-1");
    assert_eq!(r.records.len(), 1);
    let last = fake.posts().pop().unwrap();
    assert_eq!(last.method, "SendStreamingMessage");
    assert_eq!(last.headers["accept"], "text/event-stream");
}

#[tokio::test]
async fn http_json_binding_with_tenant_and_bearer_token() {
    let fake = FakeAgent::start_with(|s| s.interfaces = Some(json!([])));
    {
        let mut s = fake.state.lock().unwrap();
        let base = s.base.clone();
        s.interfaces = Some(json!([
            {"url": format!("{base}/grpc"), "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": format!("{base}/rest"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": "t1"}
        ]));
    }
    let c = Client::new(ClientConfig {
        token: Some("s3cret".into()),
        ..ClientConfig::default()
    })
    .unwrap();
    let r = call_with(&c, &fake, Mode::Sync).await.unwrap();
    assert_eq!(r.output["verdict"], "ok");
    let posts = fake.posts();
    assert_eq!(posts[1].path, "/rest/t1/message:send");
    assert_eq!(posts[1].body["tenant"], "t1");
    assert_eq!(posts[1].headers["authorization"], "Bearer s3cret");
    let r = call_with(&c, &fake, Mode::Stream).await.unwrap();
    assert_eq!(r.records[0].data["value"], 1.5);
    assert_eq!(fake.posts().last().unwrap().path, "/rest/t1/message:stream");
}

#[tokio::test]
async fn wrong_advertised_digest_is_local_interface_invalid_at_step_4() {
    let fake = FakeAgent::start_with(|s| s.advertised[0].2 = digest(&json!({"other": 1})).to_string());
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::InterfaceInvalid, Step::CheckDigests);
    assert!(e.message().contains("advertises"), "{e}");
    assert_eq!(fake.domain_calls(), 0);
}

#[tokio::test]
async fn tampered_document_fails_the_computed_digest_at_step_4() {
    let fake = FakeAgent::start();
    let mut doc = fake::document(SKILL, "1.0").value().clone();
    doc["authority"]["default_mode"] = json!("execute");
    // Served tampered, but still claims (and the card advertises) the original digest.
    fake.set_document(SKILL, doc, false);
    fake.state.lock().unwrap().returned_digest = Some(
        fake::document(SKILL, "1.0")
            .interface_digest()
            .to_string(),
    );
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::InterfaceInvalid, Step::CheckDigests);
    assert!(e.message().contains("hashes to"), "{e}");
    assert_eq!(fake.domain_calls(), 0);
}

#[tokio::test]
async fn tampered_embedded_schema_fails_at_step_6() {
    let fake = FakeAgent::start();
    let mut doc = fake::document(SKILL, "1.0").value().clone();
    doc["input_schema"]["resolution"]["schema"]["properties"]["threshold"] =
        json!({"type": "string"});
    // The publisher re-advertised the whole document, but the schema digest is stale.
    fake.set_document(SKILL, doc, true);
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::InterfaceInvalid, Step::VerifySchemaDigests);
    assert!(e.message().contains("/input_schema/digest"), "{e}");
    assert_eq!(fake.domain_calls(), 0);
}

#[tokio::test]
async fn document_for_another_skill_fails_at_step_5() {
    let fake = FakeAgent::start();
    let other = fake::document("some_other_skill", "1.0").value().clone();
    {
        let mut s = fake.state.lock().unwrap();
        s.documents = vec![(SKILL.into(), other.clone())];
        s.advertised[0].2 = digest(&other).to_string();
    }
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::InterfaceInvalid, Step::ValidateDocument);
    assert!(e.message().contains("some_other_skill"), "{e}");
    assert_eq!(fake.domain_calls(), 0);
}

#[tokio::test]
async fn document_for_another_version_fails_at_step_5() {
    let fake = FakeAgent::start();
    let v11 = fake::document(SKILL, "1.1").value().clone();
    {
        let mut s = fake.state.lock().unwrap();
        s.documents = vec![(SKILL.into(), v11.clone())];
        s.advertised[0].2 = digest(&v11).to_string(); // still advertises version 1.0
    }
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::InterfaceInvalid, Step::ValidateDocument);
    assert!(e.message().contains("1.1"), "{e}");
}

#[tokio::test]
async fn remote_ref_in_a_schema_is_refused_and_never_fetched() {
    // A listener that records whether anything ever connects to it.
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    probe.set_nonblocking(true).unwrap();
    let remote = format!("http://{}/schema.json", probe.local_addr().unwrap());
    let fake = FakeAgent::start();
    let mut doc = fake::document(SKILL, "1.0").value().clone();
    let schema = json!({"$ref": remote});
    doc["input_schema"]["resolution"]["schema"] = schema.clone();
    doc["input_schema"]["digest"] = json!(digest(&schema).to_string());
    fake.set_document(SKILL, doc, true);
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::InterfaceInvalid, Step::ValidateDocument);
    assert!(e.message().contains("leaves the embedded schema"), "{e}");
    assert!(
        probe.accept().is_err(),
        "the client fetched the remote $ref"
    );
    assert_eq!(fake.domain_calls(), 0);
}

#[tokio::test]
async fn bad_output_after_completed_is_local_output_invalid_with_the_task_id() {
    let fake = FakeAgent::start_with(|s| s.domain = Domain::BadOutput);
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::OutputInvalid, Step::ValidateOutput);
    let ClientError::Local {
        details, task_id, ..
    } = &e
    else {
        unreachable!()
    };
    assert_eq!(task_id.as_deref(), Some("task-2"));
    assert_eq!(details[0].instance_path, "/verdict");
    let j = serde_json::to_value(e.output()).unwrap();
    assert_eq!(j["where"], "local");
    assert!(
        j.get("state").is_none(),
        "a local error must not carry a remote state: {j}"
    );
    assert_eq!(j["task_id"], "task-2");
}

#[tokio::test]
async fn bad_supporting_record_is_local_output_invalid() {
    let fake = FakeAgent::start_with(|s| s.domain = Domain::BadRecord);
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::OutputInvalid, Step::ValidateOutput);
    assert!(e.message().contains("rec-1"), "{e}");
}

#[tokio::test]
async fn missing_extension_is_skill_not_advertised_and_nothing_is_sent() {
    let fake = FakeAgent::start_with(|s| s.extension = false);
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::SkillNotAdvertised, Step::SelectSkill);
    assert!(
        e.message().contains("does not provide schema interfaces"),
        "{e}"
    );
    assert!(fake.posts().is_empty());
}

#[tokio::test]
async fn unadvertised_skill_is_skill_not_advertised_and_nothing_is_sent() {
    let fake = FakeAgent::start();
    let e = client()
        .call(&fake.base, "not_there", &args(), Mode::Sync, &mut |_, _| {})
        .await
        .unwrap_err();
    assert_local(&e, ErrorCode::SkillNotAdvertised, Step::SelectSkill);
    assert!(fake.posts().is_empty());
}

#[tokio::test]
async fn invalid_input_is_local_input_invalid_with_details_and_nothing_is_delegated() {
    let fake = FakeAgent::start();
    let e = client()
        .call(
            &fake.base,
            SKILL,
            &json!({"metric": "rx", "threshold": "high"}),
            Mode::Sync,
            &mut |_, _| {},
        )
        .await
        .unwrap_err();
    assert_local(&e, ErrorCode::InputInvalid, Step::ValidateInput);
    let ClientError::Local { details, .. } = &e else {
        unreachable!()
    };
    assert_eq!(details[0].instance_path, "/threshold");
    assert_eq!(details[0].keyword.as_deref(), Some("type"));
    assert_eq!(details[0].expected.as_deref(), Some("number"));
    assert_eq!(details[0].actual.as_deref(), Some("string"));
    assert_eq!(fake.domain_calls(), 0);
    assert_eq!(fake.describe_calls(), 1);
}

#[tokio::test]
async fn remote_rejection_keeps_its_code_state_and_task_id() {
    let fake = FakeAgent::start_with(|s| {
        s.domain = Domain::Fail(
            "TASK_STATE_REJECTED",
            json!({"code": "interface_mismatch", "message": "stale digest"}),
        )
    });
    let e = call(&fake).await.unwrap_err();
    let ClientError::Remote {
        code,
        state,
        task_id,
        step,
        ..
    } = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!(*code, ErrorCode::InterfaceMismatch);
    assert_eq!(*state, TaskState::Rejected);
    assert_eq!(task_id, "task-2");
    assert_eq!(*step, Step::ReadResult);
    assert_eq!(e.outcome(), Outcome::Finding);
    let j = serde_json::to_value(e.output()).unwrap();
    assert_eq!(j["where"], "remote");
    assert_eq!(j["state"], "TASK_STATE_REJECTED");
}

#[tokio::test]
async fn remote_failure_without_error_object_is_a_protocol_error_keeping_the_task() {
    let fake = FakeAgent::start_with(|s| s.domain = Domain::NoErrorObject("TASK_STATE_FAILED"));
    let e = call(&fake).await.unwrap_err();
    assert!(matches!(e, ClientError::Protocol { .. }), "{e:?}");
    assert_eq!(e.task_id(), Some("task-2"));
    assert_eq!(e.outcome(), Outcome::Failure);
}

#[tokio::test]
async fn describe_skill_failure_is_remote_at_step_3() {
    let fake = FakeAgent::start_with(|s| s.describe_fails = Some(ErrorCode::InterfaceUnavailable));
    let e = call(&fake).await.unwrap_err();
    assert_eq!(e.where_(), Where::Remote);
    assert_eq!(e.code(), Some(ErrorCode::InterfaceUnavailable));
    assert_eq!(e.step(), Some(Step::DescribeSkill));
    assert_eq!(fake.domain_calls(), 0);
}

#[tokio::test]
async fn oversized_card_is_refused_by_content_length_and_while_streaming() {
    for mode in [
        CardMode::Oversized(2 * 1024 * 1024),
        CardMode::OversizedChunked(3 * 1024 * 1024),
    ] {
        let fake = FakeAgent::start_with(|s| s.card = mode.clone());
        let e = call(&fake).await.unwrap_err();
        assert!(
            matches!(
                e,
                ClientError::Transport {
                    step: Step::FetchCard,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.message().contains("limit"), "{e}");
        assert_eq!(e.outcome(), Outcome::Failure);
    }
}

#[tokio::test]
async fn slow_server_hits_the_timeout() {
    let fake = FakeAgent::start_with(|s| s.card = CardMode::Slow(Duration::from_secs(5)));
    let c = Client::new(ClientConfig {
        timeout: Duration::from_millis(400),
        ..ClientConfig::default()
    })
    .unwrap();
    let t = Instant::now();
    let e = call_with(&c, &fake, Mode::Sync).await.unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(3));
    assert!(
        matches!(
            e,
            ClientError::Transport {
                step: Step::FetchCard,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.message().contains("timed out"), "{e}");
    let fake = FakeAgent::start_with(|s| s.rpc_delay = Duration::from_secs(5));
    let e = call_with(&c, &fake, Mode::Sync).await.unwrap_err();
    assert!(
        matches!(
            e,
            ClientError::Transport {
                step: Step::DescribeSkill,
                ..
            }
        ),
        "{e:?}"
    );
}

#[tokio::test]
async fn redirects_are_followed_up_to_three_and_a_loop_fails() {
    let fake = FakeAgent::start_with(|s| s.card = CardMode::Redirects(3));
    call(&fake).await.unwrap();
    let fake = FakeAgent::start_with(|s| s.card = CardMode::Redirects(4));
    let e = call(&fake).await.unwrap_err();
    assert!(
        matches!(
            e,
            ClientError::Transport {
                step: Step::FetchCard,
                ..
            }
        ),
        "{e:?}"
    );
    let fake = FakeAgent::start_with(|s| s.card = CardMode::RedirectLoop);
    let e = call(&fake).await.unwrap_err();
    assert!(e.message().contains("redirects"), "{e}");
    assert_eq!(fake.log().len(), 4, "initial request plus three redirects");
}

#[tokio::test]
async fn non_a2a_server_is_a_protocol_error() {
    let html = b"<!doctype html><html><body>hello</body></html>".to_vec();
    let fake = FakeAgent::start_with(|s| s.card = CardMode::Raw("text/html", html));
    let e = call(&fake).await.unwrap_err();
    assert!(
        matches!(
            e,
            ClientError::Protocol {
                step: Step::FetchCard,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.message().contains("not an A2A agent"), "{e}");
    let fake = FakeAgent::start_with(|s| {
        s.card = CardMode::Raw("application/json", br#"{"a":1,"a":2}"#.to_vec())
    });
    let e = call(&fake).await.unwrap_err();
    assert!(e.message().contains("duplicate"), "{e}");
}

#[tokio::test]
async fn plain_http_to_a_non_loopback_host_is_refused_before_connecting() {
    let e = client()
        .call(
            "http://example.com",
            SKILL,
            &args(),
            Mode::Sync,
            &mut |_, _| {},
        )
        .await
        .unwrap_err();
    assert!(matches!(e, ClientError::Usage { .. }), "{e:?}");
    // A loopback card pointing at a non-loopback plain-HTTP interface is refused too.
    let fake = FakeAgent::start_with(|s| {
        s.interfaces = Some(
            json!([{"url": "http://192.0.2.1/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]),
        )
    });
    let e = call(&fake).await.unwrap_err();
    assert!(
        matches!(
            e,
            ClientError::Transport {
                step: Step::FetchCard,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.message().contains("HTTPS"), "{e}");
}

#[tokio::test]
async fn cache_reuses_only_while_the_card_still_advertises_the_same_binding() {
    let fake = FakeAgent::start();
    let c = client();
    call_with(&c, &fake, Mode::Sync).await.unwrap();
    call_with(&c, &fake, Mode::Sync).await.unwrap();
    assert_eq!(
        fake.describe_calls(),
        1,
        "second call must reuse the cached document"
    );
    // Redeployment: a new version with a new digest forces a fresh describe_skill.
    let v2 = fake::document(SKILL, "1.1").value().clone();
    fake.set_document(SKILL, v2, true);
    let r = call_with(&c, &fake, Mode::Sync).await.unwrap();
    assert_eq!(fake.describe_calls(), 2);
    assert_eq!(r.skill_version, "1.1");
}

#[tokio::test]
async fn disk_cache_is_revalidated_on_load_and_corrupt_files_are_ignored() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("cache");
    let fake = FakeAgent::start();
    let config = ClientConfig {
        cache_dir: Some(dir.clone()),
        ..ClientConfig::default()
    };
    let c1 = Client::new(config.clone()).unwrap();
    call_with(&c1, &fake, Mode::Sync).await.unwrap();
    assert_eq!(fake.describe_calls(), 1);
    let c2 = Client::new(config.clone()).unwrap();
    let resolved = c2.resolve(&fake.base, SKILL, &mut |_, _| {}).await.unwrap();
    assert_eq!(
        resolved.source,
        InterfaceSource::Cache(skillgate_client::CacheHit::Disk)
    );
    assert_eq!(fake.describe_calls(), 1);
    // Tamper with the stored document: it no longer hashes to the key's digest.
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let mut stored: Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    stored["skill_interface"]["authority"]["default_mode"] = json!("execute");
    std::fs::write(&files[0], serde_json::to_vec(&stored).unwrap()).unwrap();
    let c3 = Client::new(config.clone()).unwrap();
    let resolved = c3.resolve(&fake.base, SKILL, &mut |_, _| {}).await.unwrap();
    assert!(matches!(resolved.source, InterfaceSource::Described { .. }));
    assert_eq!(fake.describe_calls(), 2);
    // Garbage is ignored too (and replaced by the fresh, validated entry).
    std::fs::write(&files[0], b"{not json").unwrap();
    let c4 = Client::new(config).unwrap();
    let resolved = c4.resolve(&fake.base, SKILL, &mut |_, _| {}).await.unwrap();
    assert!(matches!(resolved.source, InterfaceSource::Described { .. }));
    assert_eq!(fake.describe_calls(), 3);
}

#[tokio::test]
async fn chain_composes_runs_each_step_as_its_own_task_and_correlates() {
    let fake = FakeAgent::start();
    fake.add_skill(NEXT_SKILL);
    let plan = Plan::from_value(json!({"steps": [
        {"name": "check", "agent": fake.base, "skill": SKILL, "arguments": args()},
        {"name": "judge", "agent": fake.base, "skill": NEXT_SKILL, "from": "check"}
    ]}))
    .unwrap();
    let mut composed = 0;
    let report = run_chain(&client(), &plan, Mode::Sync, &mut |e| {
        if matches!(e, ChainEvent::Composes { .. }) {
            composed += 1
        }
    })
    .await
    .unwrap();
    assert_eq!(composed, 1);
    assert_eq!(report.steps.len(), 2);
    assert_eq!(report.steps[1].result.output["fine"], true);
    let c = &report.correlations[0];
    assert_ne!(c.upstream.task_id, c.downstream.task_id);
    assert_eq!(c.upstream.task_id, report.steps[0].result.task_id);
    assert_eq!(c.downstream.task_id, report.steps[1].result.task_id);
    let judge_req = fake.posts().pop().unwrap().skill_request();
    assert_eq!(judge_req["arguments"], report.steps[0].result.output);
}

#[tokio::test]
async fn chain_link_that_does_not_compose_stops_before_any_delegation() {
    let fake = FakeAgent::start();
    fake.add_skill(LOOKALIKE_SKILL);
    let plan = Plan::from_value(json!({"steps": [
        {"name": "check", "agent": fake.base, "skill": SKILL, "arguments": args()},
        {"name": "judge", "agent": fake.base, "skill": LOOKALIKE_SKILL, "from": "check"}
    ]}))
    .unwrap();
    let (failure, report) = run_chain(&client(), &plan, Mode::Sync, &mut |_| {})
        .await
        .unwrap_err();
    let ChainFailure::NotComposable { error, .. } = &failure else {
        panic!("{failure:?}")
    };
    assert_eq!(error.field.as_str(), "version");
    assert_eq!(failure.outcome(), Outcome::Finding);
    assert_eq!(
        serde_json::to_value(failure.output()).unwrap()["field"],
        "version"
    );
    assert!(report.steps.is_empty());
    assert_eq!(fake.domain_calls(), 0);
}

#[tokio::test]
async fn chain_with_invalid_literal_input_delegates_nothing() {
    let fake = FakeAgent::start();
    fake.add_skill(NEXT_SKILL);
    let plan = Plan::from_value(json!({"steps": [
        {"name": "check", "agent": fake.base, "skill": SKILL, "arguments": {"metric": "bogus", "threshold": 1}},
        {"name": "judge", "agent": fake.base, "skill": NEXT_SKILL, "from": "check"}
    ]}))
    .unwrap();
    let (failure, _) = run_chain(&client(), &plan, Mode::Sync, &mut |_| {})
        .await
        .unwrap_err();
    let ChainFailure::Step {
        error, delegated, ..
    } = &failure
    else {
        panic!("{failure:?}")
    };
    assert_eq!(error.code(), Some(ErrorCode::InputInvalid));
    assert!(!delegated);
    assert_eq!(fake.domain_calls(), 0);
}

#[test]
fn plan_shape_is_checked() {
    for bad in [
        json!({"steps": []}),
        json!({"steps": [{"name": "a", "agent": "x", "skill": "s"}]}),
        json!({"steps": [{"name": "a", "agent": "x", "skill": "s", "arguments": {}, "from": "a"}]}),
        json!({"steps": [{"name": "a", "agent": "x", "skill": "s", "from": "b"}]}),
        json!({"steps": [{"name": "a", "agent": "x", "skill": "s", "arguments": {}},
                         {"name": "a", "agent": "x", "skill": "s", "arguments": {}}]}),
        json!({"steps": [{"name": "a", "agent": "x", "skill": "s", "arguments": {}, "extra": 1}]}),
    ] {
        assert!(Plan::from_value(bad.clone()).is_err(), "{bad}");
    }
}

#[tokio::test]
async fn redirect_to_plain_http_on_a_non_loopback_host_is_refused() {
    let fake =
        FakeAgent::start_with(|s| s.card = CardMode::RedirectTo("http://192.0.2.1/card.json".into()));
    let t = Instant::now();
    let e = call(&fake).await.unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(2), "it tried to connect");
    assert!(
        matches!(
            e,
            ClientError::Transport {
                step: Step::FetchCard,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.message().contains("HTTPS"), "{e}");
}

#[tokio::test]
async fn card_that_is_json_but_not_an_agent_card_or_has_no_usable_interface() {
    let fake = FakeAgent::start_with(|s| {
        s.card = CardMode::Raw("application/json", br#"{"hello": "world"}"#.to_vec())
    });
    let e = call(&fake).await.unwrap_err();
    assert!(
        matches!(
            e,
            ClientError::Protocol {
                step: Step::FetchCard,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.message().contains("Agent Card"), "{e}");
    let fake = FakeAgent::start_with(|s| {
        s.interfaces = Some(
            json!([{"url": "http://127.0.0.1:1/", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                                   {"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]),
        )
    });
    let e = call(&fake).await.unwrap_err();
    assert!(
        matches!(
            e,
            ClientError::Protocol {
                step: Step::FetchCard,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.message().contains("GRPC"), "{e}");
}

#[tokio::test]
async fn too_deep_json_is_a_protocol_error() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200)).into_bytes();
    let fake = FakeAgent::start_with(|s| s.card = CardMode::Raw("application/json", deep));
    let e = call(&fake).await.unwrap_err();
    assert!(
        matches!(
            e,
            ClientError::Protocol {
                step: Step::FetchCard,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.message().contains("too_deep"), "{e}");
}

#[tokio::test]
async fn malformed_advertisement_is_skill_not_advertised() {
    let fake = FakeAgent::start();
    fake.state.lock().unwrap().advertised[0].2 = "sha256:NOT-HEX".into();
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::SkillNotAdvertised, Step::SelectSkill);
    let fake = FakeAgent::start();
    let dup = fake.state.lock().unwrap().advertised[0].clone();
    fake.state.lock().unwrap().advertised.push(dup);
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::SkillNotAdvertised, Step::SelectSkill);
    assert!(e.message().contains("more than once"), "{e}");
    assert!(fake.posts().is_empty());
}

#[tokio::test]
async fn describe_skill_without_its_artifact_is_local_interface_invalid_at_step_3() {
    let fake = FakeAgent::start_with(|s| {
        s.describe_artifacts = Some(vec![
            json!({"artifactId": "x", "name": "something_else", "parts": [{"data": {}}]}),
        ])
    });
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::InterfaceInvalid, Step::DescribeSkill);
    let fake = FakeAgent::start_with(|s| {
        s.describe_artifacts = Some(vec![
            json!({"artifactId": "x", "name": "describe_skill", "parts": [{"text": "{}"}]}),
        ])
    });
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::InterfaceInvalid, Step::DescribeSkill);
    assert!(e.message().contains("Data Part"), "{e}");
    assert_eq!(fake.domain_calls(), 0);
}

#[tokio::test]
async fn result_artifacts_must_be_the_skill_and_declared_kinds() {
    let out = json!({"verdict": "ok", "observation_ref": "r"});
    let data = |name: &str, id: &str, v: Value| json!({"artifactId": id, "name": name, "parts": [{"data": v}]});
    let cases = [
        (
            vec![data("observation", "r", json!({"value": 1}))],
            "without an artifact named",
        ),
        (
            vec![data(SKILL, "a", out.clone()), data(SKILL, "b", out.clone())],
            "more than one",
        ),
        (
            vec![
                data(SKILL, "a", out.clone()),
                data("undeclared", "r", json!({})),
            ],
            "neither the skill id",
        ),
    ];
    for (artifacts, want) in cases {
        let fake = FakeAgent::start_with(|s| s.domain = Domain::Artifacts(artifacts));
        let e = call(&fake).await.unwrap_err();
        assert_local(&e, ErrorCode::OutputInvalid, Step::ReadResult);
        assert!(e.message().contains(want), "{want}: {e}");
        assert_eq!(e.task_id(), Some("task-2"));
    }
}

#[tokio::test]
async fn interrupted_task_is_a_protocol_error_keeping_task_and_state() {
    let fake = FakeAgent::start_with(|s| s.domain = Domain::NoErrorObject("TASK_STATE_INPUT_REQUIRED"));
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
async fn stream_misbehaviours() {
    let fake = FakeAgent::start_with(|s| s.stream = StreamMode::TaskFirstChunked);
    let r = call_with(&client(), &fake, Mode::Stream).await.unwrap();
    assert_eq!(r.records[0].data["value"], 1.5);
    for (mode, want) in [
        (
            StreamMode::NoTerminal,
            "ended while the task was TASK_STATE_WORKING",
        ),
        (StreamMode::ErrorEvent, "-32603"),
        (StreamMode::MessageEvent, "Message"),
    ] {
        let fake = FakeAgent::start_with(|s| s.stream = mode.clone());
        let e = call_with(&client(), &fake, Mode::Stream).await.unwrap_err();
        assert!(
            matches!(
                e,
                ClientError::Protocol {
                    step: Step::Delegate,
                    ..
                }
            ),
            "{mode:?}: {e:?}"
        );
        assert!(e.message().contains(want), "{mode:?}: {e}");
    }
}

#[tokio::test]
async fn stream_larger_than_the_response_limit_is_cut_off() {
    let big = json!({"artifactId": "rec-1", "name": "observation",
        "parts": [{"data": {"value": 1, "pad": "x".repeat(40_000)}}]});
    let out = json!({"artifactId": "a-out", "name": SKILL,
        "parts": [{"data": {"verdict": "ok", "observation_ref": "rec-1"}}]});
    let fake = FakeAgent::start_with(|s| s.domain = Domain::Artifacts(vec![big, out]));
    let c = Client::new(ClientConfig {
        response_limit: 16 * 1024,
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
async fn max_input_bytes_is_checked_locally() {
    let fake = FakeAgent::start();
    let doc = skillgate_core::document::InterfaceBuilder::new(SKILL, "1.0")
        .input(
            "urn:test:threshold-request",
            "1.0",
            json!({"type": "object"}),
        )
        .output("urn:test:verdict", "1.0", json!({"type": "object"}))
        .constraints(skillgate_core::wire::Constraints {
            max_input_bytes: Some(10),
            ..Default::default()
        })
        .build()
        .unwrap();
    fake.set_document(SKILL, doc.value().clone(), true);
    let e = call(&fake).await.unwrap_err();
    assert_local(&e, ErrorCode::ResourceLimitExceeded, Step::ValidateInput);
    assert_eq!(fake.domain_calls(), 0);
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

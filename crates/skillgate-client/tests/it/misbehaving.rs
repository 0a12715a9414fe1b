//! Every step of the client sequence against real agents on 127.0.0.1 that get one thing
//! wrong each; every failure must carry the right code, side, step, and send nothing it
//! must not send.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use skillgate_a2a::TaskState;
use skillgate_client::Outcome;
use skillgate_client::{Client, ClientConfig, ClientError, InterfaceSource, Mode, Step, Where};
use skillgate_core::{digest, ErrorCode};
use skillgate_testkit::fake::{self, CardMode, Domain, FakeAgent, StreamMode, SKILL};

pub(crate) fn client() -> Client {
    Client::new(ClientConfig::default()).unwrap()
}

pub(crate) fn args() -> Value {
    json!({"metric": "rx", "threshold": 10})
}

pub(crate) async fn call(fake: &FakeAgent) -> Result<skillgate_client::SkillResult, ClientError> {
    call_with(&client(), fake, Mode::Sync).await
}

pub(crate) async fn call_with(
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

/// What a misbehaving agent must make the call fail with.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// `ClientError::Local` with this code at this step (a finding).
    Local(ErrorCode, Step),
    /// `ClientError::Remote` with this code at this step (a finding).
    Remote(ErrorCode, Step),
    /// `ClientError::Transport` at this step (a failure).
    Transport(Step),
    /// `ClientError::Protocol` at this step (a failure).
    Protocol(Step),
}

/// What the agent may have been sent by the time the call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    /// No POST at all (the card alone decided).
    Nothing,
    /// describe_skill perhaps, but no domain call.
    NoDelegation,
    /// The domain call was delegated (the failure is in its result).
    Delegated,
}

/// One way an agent gets the contract wrong, and how the client must report it.
struct Case {
    name: &'static str,
    /// Breaks the running fake (everything it reads is read per request).
    misbehave: fn(&FakeAgent),
    mode: Mode,
    expect: Expect,
    /// A substring the error message must contain.
    message: &'static str,
    sent: Sent,
    /// The task id the error must keep.
    task_id: Option<&'static str>,
}

/// A copy of `SKILL`'s document with `edit` applied.
fn edited_document(edit: impl FnOnce(&mut Value)) -> Value {
    let mut doc = fake::document(SKILL, "1.0").value().clone();
    edit(&mut doc);
    doc
}

/// Serves `doc` for `SKILL` and advertises its digest, keeping the advertised version.
fn serve_advertising_digest_only(fake: &FakeAgent, doc: Value) {
    let mut s = fake.state.lock().unwrap();
    s.advertised[0].2 = digest(&doc).to_string();
    s.documents = vec![(SKILL.into(), doc)];
}

fn artifact(name: &str, id: &str, data: Value) -> Value {
    json!({"artifactId": id, "name": name, "parts": [{"data": data}]})
}

fn verdict() -> Value {
    json!({"verdict": "ok", "observation_ref": "r"})
}

const CASES: &[Case] = &[
    Case {
        name: "wrong advertised digest",
        misbehave: |f| {
            f.state.lock().unwrap().advertised[0].2 = digest(&json!({"other": 1})).to_string()
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::InterfaceInvalid, Step::CheckDigests),
        message: "advertises",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        // Served tampered, but still claims (and the card advertises) the original digest.
        name: "tampered document",
        misbehave: |f| {
            let doc = edited_document(|d| d["authority"]["default_mode"] = json!("execute"));
            f.set_document(SKILL, doc, false);
            f.state.lock().unwrap().returned_digest =
                Some(fake::document(SKILL, "1.0").interface_digest().to_string());
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::InterfaceInvalid, Step::CheckDigests),
        message: "hashes to",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        // The publisher re-advertised the whole document, but the schema digest is stale.
        name: "tampered embedded schema",
        misbehave: |f| {
            let doc = edited_document(|d| {
                d["input_schema"]["resolution"]["schema"]["properties"]["threshold"] =
                    json!({"type": "string"})
            });
            f.set_document(SKILL, doc, true);
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::InterfaceInvalid, Step::VerifySchemaDigests),
        message: "/input_schema/digest",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        name: "document for another skill",
        misbehave: |f| {
            let other = fake::document("some_other_skill", "1.0").value().clone();
            serve_advertising_digest_only(f, other);
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::InterfaceInvalid, Step::ValidateDocument),
        message: "some_other_skill",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        // The card still advertises version 1.0.
        name: "document for another version",
        misbehave: |f| {
            let v11 = fake::document(SKILL, "1.1").value().clone();
            serve_advertising_digest_only(f, v11);
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::InterfaceInvalid, Step::ValidateDocument),
        message: "1.1",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        name: "max_input_bytes exceeded",
        misbehave: |f| {
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
            f.set_document(SKILL, doc.value().clone(), true);
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::ResourceLimitExceeded, Step::ValidateInput),
        message: "",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        name: "describe_skill without its artifact",
        misbehave: |f| {
            f.state.lock().unwrap().describe_artifacts =
                Some(vec![artifact("something_else", "x", json!({}))])
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::InterfaceInvalid, Step::DescribeSkill),
        message: "",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        name: "describe_skill artifact without a Data Part",
        misbehave: |f| {
            f.state.lock().unwrap().describe_artifacts = Some(vec![
                json!({"artifactId": "x", "name": "describe_skill", "parts": [{"text": "{}"}]}),
            ])
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::InterfaceInvalid, Step::DescribeSkill),
        message: "Data Part",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        name: "describe_skill returns a malformed digest",
        misbehave: |f| f.state.lock().unwrap().returned_digest = Some("sha256:NOT-HEX".into()),
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::InterfaceInvalid, Step::DescribeSkill),
        message: "interface_digest: invalid digest",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        // The document is the advertised one; only the digest beside it is wrong.
        name: "describe_skill returns another digest beside the advertised document",
        misbehave: |f| {
            f.state.lock().unwrap().returned_digest = Some(digest(&json!("other")).to_string())
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::InterfaceInvalid, Step::CheckDigests),
        message: "which is what the served document hashes to",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        name: "describe_skill fails remotely",
        misbehave: |f| {
            f.state.lock().unwrap().describe_fails = Some(ErrorCode::InterfaceUnavailable)
        },
        mode: Mode::Sync,
        expect: Expect::Remote(ErrorCode::InterfaceUnavailable, Step::DescribeSkill),
        message: "",
        sent: Sent::NoDelegation,
        task_id: None,
    },
    Case {
        name: "missing extension",
        misbehave: |f| f.state.lock().unwrap().extension = false,
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::SkillNotAdvertised, Step::SelectSkill),
        message: "does not provide schema interfaces",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "advertised digest is not hex",
        misbehave: |f| f.state.lock().unwrap().advertised[0].2 = "sha256:NOT-HEX".into(),
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::SkillNotAdvertised, Step::SelectSkill),
        message: "",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "skill advertised twice",
        misbehave: |f| {
            let mut s = f.state.lock().unwrap();
            let dup = s.advertised[0].clone();
            s.advertised.push(dup);
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::SkillNotAdvertised, Step::SelectSkill),
        message: "more than once",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "bad supporting record",
        misbehave: |f| f.state.lock().unwrap().domain = Domain::BadRecord,
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::OutputInvalid, Step::ValidateOutput),
        message: "rec-1",
        sent: Sent::Delegated,
        task_id: Some("task-2"),
    },
    Case {
        name: "no artifact named the skill",
        misbehave: |f| {
            f.state.lock().unwrap().domain =
                Domain::Artifacts(vec![artifact("observation", "r", json!({"value": 1}))])
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::OutputInvalid, Step::ReadResult),
        message: "without an artifact named",
        sent: Sent::Delegated,
        task_id: Some("task-2"),
    },
    Case {
        name: "two artifacts named the skill",
        misbehave: |f| {
            f.state.lock().unwrap().domain = Domain::Artifacts(vec![
                artifact(SKILL, "a", verdict()),
                artifact(SKILL, "b", verdict()),
            ])
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::OutputInvalid, Step::ReadResult),
        message: "more than one",
        sent: Sent::Delegated,
        task_id: Some("task-2"),
    },
    Case {
        name: "an artifact of an undeclared kind",
        misbehave: |f| {
            f.state.lock().unwrap().domain = Domain::Artifacts(vec![
                artifact(SKILL, "a", verdict()),
                artifact("undeclared", "r", json!({})),
            ])
        },
        mode: Mode::Sync,
        expect: Expect::Local(ErrorCode::OutputInvalid, Step::ReadResult),
        message: "neither the skill id",
        sent: Sent::Delegated,
        task_id: Some("task-2"),
    },
    Case {
        name: "failed task without an error object",
        misbehave: |f| f.state.lock().unwrap().domain = Domain::NoErrorObject("TASK_STATE_FAILED"),
        mode: Mode::Sync,
        expect: Expect::Protocol(Step::ReadResult),
        message: "",
        sent: Sent::Delegated,
        task_id: Some("task-2"),
    },
    Case {
        name: "card over the size limit by Content-Length",
        misbehave: |f| f.state.lock().unwrap().card = CardMode::Oversized(2 * 1024 * 1024),
        mode: Mode::Sync,
        expect: Expect::Transport(Step::FetchCard),
        message: "limit",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "card over the size limit while streaming",
        misbehave: |f| f.state.lock().unwrap().card = CardMode::OversizedChunked(3 * 1024 * 1024),
        mode: Mode::Sync,
        expect: Expect::Transport(Step::FetchCard),
        message: "limit",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "card interface is plain HTTP on a non-loopback host",
        misbehave: |f| {
            f.state.lock().unwrap().interfaces = Some(
                json!([{"url": "http://192.0.2.1/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]),
            )
        },
        mode: Mode::Sync,
        expect: Expect::Transport(Step::FetchCard),
        message: "HTTPS",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "HTML instead of a card",
        misbehave: |f| {
            f.state.lock().unwrap().card = CardMode::Raw(
                "text/html",
                b"<!doctype html><html><body>hello</body></html>".to_vec(),
            )
        },
        mode: Mode::Sync,
        expect: Expect::Protocol(Step::FetchCard),
        message: "not an A2A agent",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "card with a duplicate member name",
        misbehave: |f| {
            f.state.lock().unwrap().card =
                CardMode::Raw("application/json", br#"{"a":1,"a":2}"#.to_vec())
        },
        mode: Mode::Sync,
        expect: Expect::Protocol(Step::FetchCard),
        message: "duplicate",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "JSON that is not an Agent Card",
        misbehave: |f| {
            f.state.lock().unwrap().card =
                CardMode::Raw("application/json", br#"{"hello": "world"}"#.to_vec())
        },
        mode: Mode::Sync,
        expect: Expect::Protocol(Step::FetchCard),
        message: "Agent Card",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "card without a usable interface",
        misbehave: |f| {
            f.state.lock().unwrap().interfaces = Some(
                json!([{"url": "http://127.0.0.1:1/", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                       {"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "0.2"}]),
            )
        },
        mode: Mode::Sync,
        expect: Expect::Protocol(Step::FetchCard),
        message: "GRPC",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "card nested too deep",
        misbehave: |f| {
            let deep = format!("{}{}", "[".repeat(200), "]".repeat(200)).into_bytes();
            f.state.lock().unwrap().card = CardMode::Raw("application/json", deep)
        },
        mode: Mode::Sync,
        expect: Expect::Protocol(Step::FetchCard),
        message: "too_deep",
        sent: Sent::Nothing,
        task_id: None,
    },
    Case {
        name: "stream ends while the task is working",
        misbehave: |f| f.state.lock().unwrap().stream = StreamMode::NoTerminal,
        mode: Mode::Stream,
        expect: Expect::Protocol(Step::Delegate),
        message: "ended while the task was TASK_STATE_WORKING",
        sent: Sent::Delegated,
        task_id: None,
    },
    Case {
        name: "stream sends an error event",
        misbehave: |f| f.state.lock().unwrap().stream = StreamMode::ErrorEvent,
        mode: Mode::Stream,
        expect: Expect::Protocol(Step::Delegate),
        message: "-32603",
        sent: Sent::Delegated,
        task_id: None,
    },
    Case {
        name: "stream answers with a Message",
        misbehave: |f| f.state.lock().unwrap().stream = StreamMode::MessageEvent,
        mode: Mode::Stream,
        expect: Expect::Protocol(Step::Delegate),
        message: "Message",
        sent: Sent::Delegated,
        task_id: None,
    },
];

/// Every case against a fresh fake: the error's kind, code, step, outcome, message, task id,
/// and what was sent before the client stopped.
#[tokio::test]
async fn each_misbehaviour_fails_with_its_code_step_and_sends_nothing_it_must_not() {
    for case in CASES {
        let name = case.name;
        let fake = FakeAgent::start();
        (case.misbehave)(&fake);
        let e = call_with(&client(), &fake, case.mode)
            .await
            .expect_err(name);
        match case.expect {
            Expect::Local(code, step) => {
                assert!(matches!(e, ClientError::Local { .. }), "{name}: {e:?}");
                assert_eq!(e.code(), Some(code), "{name}: {e}");
                assert_eq!(e.step(), Some(step), "{name}: {e}");
                assert_eq!(e.where_(), Where::Local, "{name}");
            }
            Expect::Remote(code, step) => {
                assert!(matches!(e, ClientError::Remote { .. }), "{name}: {e:?}");
                assert_eq!(e.code(), Some(code), "{name}: {e}");
                assert_eq!(e.step(), Some(step), "{name}: {e}");
                assert_eq!(e.where_(), Where::Remote, "{name}");
            }
            Expect::Transport(want) => assert!(
                matches!(e, ClientError::Transport { step, .. } if step == want),
                "{name}: {e:?}"
            ),
            Expect::Protocol(want) => assert!(
                matches!(e, ClientError::Protocol { step, .. } if step == want),
                "{name}: {e:?}"
            ),
        }
        let outcome = match case.expect {
            Expect::Local(..) | Expect::Remote(..) => Outcome::Finding,
            Expect::Transport(_) | Expect::Protocol(_) => Outcome::Failure,
        };
        assert_eq!(e.outcome(), outcome, "{name}");
        assert!(e.message().contains(case.message), "{name}: {e}");
        if let Some(id) = case.task_id {
            assert_eq!(e.task_id(), Some(id), "{name}");
        }
        match case.sent {
            Sent::Nothing => assert!(fake.posts().is_empty(), "{name}: sent {:?}", fake.posts()),
            Sent::NoDelegation => assert_eq!(fake.domain_calls(), 0, "{name}"),
            Sent::Delegated => assert_eq!(fake.domain_calls(), 1, "{name}"),
        }
    }
}

#[tokio::test]
async fn stream_with_a_task_first_and_replaced_chunks_is_assembled() {
    let fake = FakeAgent::start_with(|s| s.stream = StreamMode::TaskFirstChunked);
    let r = call_with(&client(), &fake, Mode::Stream).await.unwrap();
    assert_eq!(r.records[0].data["value"], 1.5);
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
        transport: skillgate_transport::TransportConfig {
            token: Some("s3cret".into()),
            credential_origins: vec![url::Url::parse(&fake.base).unwrap().origin()],
            ..Default::default()
        },
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
async fn slow_server_hits_the_timeout() {
    let fake = FakeAgent::start_with(|s| s.card = CardMode::Slow(Duration::from_secs(5)));
    let c = Client::new(ClientConfig {
        transport: skillgate_transport::TransportConfig {
            timeout: Duration::from_millis(400),
            ..Default::default()
        },
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

/// A redeployed skill whose new document only widens its input: the cache had 1.0, so the
/// step output (and the describe JSON) says what 1.1 is, not only that the digest moved.
#[tokio::test]
async fn a_redeployed_skill_is_reported_as_a_compatible_minor_update() {
    let fake = FakeAgent::start();
    let c = client();
    call_with(&c, &fake, Mode::Sync).await.unwrap();
    // Compatible for callers: a new optional member of the (closed) arguments object.
    let mut input = fake::threshold_input();
    input["properties"]["window"] = json!({"type": "integer"});
    let v11 = fake::document_with_input("1.1", input);
    fake.set_document(SKILL, v11.value().clone(), true);
    let mut lines = Vec::new();
    let r = c
        .resolve(&fake.base, SKILL, &mut |step, line| {
            lines.push((step, line.to_owned()))
        })
        .await
        .unwrap();
    assert_eq!(fake.describe_calls(), 2, "the new document is described");
    let validated = lines
        .iter()
        .find(|(s, _)| *s == Step::ValidateDocument)
        .map(|(_, l)| l.as_str())
        .unwrap();
    assert!(
        validated.contains("replaces the cached 1.0")
            && validated.contains("compatible: minor update 1.0 -> 1.1")
            && validated.contains("1.1 carries it"),
        "{validated}"
    );
    let out = serde_json::to_value(r.output()).unwrap();
    assert_eq!(out["update"]["previous_version"], "1.0", "{out}");
    assert_eq!(out["update"]["class"], "compatible", "{out}");
    assert_eq!(out["update"]["required"], "minor", "{out}");
    assert_eq!(out["update"]["carried"], true, "{out}");
    // A client that never saw 1.0 has nothing to compare with, and says nothing.
    let fresh = client()
        .resolve(&fake.base, SKILL, &mut |_, _| {})
        .await
        .unwrap();
    assert!(fresh.update.is_none());
    assert!(serde_json::to_value(fresh.output())
        .unwrap()
        .get("update")
        .is_none());
}

/// The same across processes: a new client reads the older document from the cache
/// directory (validated again) and reports the breaking change with its bump.
#[tokio::test]
async fn a_redeployed_skill_is_compared_with_the_document_on_disk() {
    let scratch = tempfile::tempdir().unwrap();
    let config = ClientConfig {
        cache_dir: Some(scratch.path().join("cache")),
        ..ClientConfig::default()
    };
    let fake = FakeAgent::start();
    call_with(&Client::new(config.clone()).unwrap(), &fake, Mode::Sync)
        .await
        .unwrap();
    let mut input = fake::threshold_input();
    input["required"] = json!(["metric"]);
    input["properties"]["metric"]["enum"] = json!(["rx"]);
    fake.set_document(
        SKILL,
        fake::document_with_input("2.0", input).value().clone(),
        true,
    );
    let r = Client::new(config)
        .unwrap()
        .resolve(&fake.base, SKILL, &mut |_, _| {})
        .await
        .unwrap();
    let update = r.update.expect("the 1.0 entry on disk is compared");
    assert_eq!(update.old_version, "1.0");
    assert_eq!(update.required, skillgate_evolve::Bump::Major);
    let verdict = update.verdict();
    assert!(
        verdict.starts_with("breaking for callers (EVO-SCHEMA-003")
            && verdict.ends_with("major bump needed, 2.0 carries it"),
        "{verdict}"
    );
}

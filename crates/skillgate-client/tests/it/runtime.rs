//! The happy path (and the remote errors) against the real runtime: skillgate-server hosting a
//! test skill, and the netops example agent, each on 127.0.0.1:0.

use std::time::Duration;

use serde_json::{json, Value};
use skillgate_a2a::TaskState;
use skillgate_client::Outcome;
use skillgate_client::{run_chain, Client, ClientConfig, ClientError, Mode, Plan, Step, Where};
use skillgate_core::ErrorCode;
use skillgate_runtime::{
    Agent, ServerConfig, Skill, SkillContext, SkillError, SkillOutput, SupportingRecord, TokenTable,
};
use skillgate_testkit::server::TestServer;

/// `word_stats`: counts words; `mode` makes it succeed, refuse, fail or return a bad output.
fn word_stats() -> Skill {
    Skill::builder("word_stats", "1.2")
        .name("Word statistics")
        .description("Counts the words of a text")
        .tags(["test"])
        .input_schema(
            "urn:skillgate-client-test:word-stats:input",
            "1.0",
            json!({"type": "object", "required": ["text"], "additionalProperties": false,
                   "properties": {"text": {"type": "string", "maxLength": 1000},
                                  "mode": {"enum": ["normal", "refuse", "fail", "bad_output"]}}}),
        )
        .output_schema(
            "urn:skillgate-client-test:word-stats:output",
            "1.0",
            json!({"type": "object", "required": ["words", "sample_ref"], "additionalProperties": false,
                   "properties": {"words": {"type": "integer", "minimum": 0}, "sample_ref": {"type": "string"}}}),
        )
        .record_schema(
            "first-word",
            "urn:skillgate-client-test:first-word",
            "1.0",
            json!({"type": "object", "required": ["word"], "properties": {"word": {"type": "string"}}}),
        )
        .handler(|args: Value, ctx: SkillContext| async move {
            let text = args["text"].as_str().unwrap_or("").to_owned();
            match args["mode"].as_str().unwrap_or("normal") {
                "refuse" => Err(SkillError::constraint_rejected("texts about refusals are refused")),
                "fail" => Err(SkillError::execution_failed("the word counter broke")),
                "bad_output" => Ok(SkillOutput::new(json!({"words": "many", "sample_ref": "x"}))),
                _ => {
                    let id = ctx.new_record_artifact_id();
                    let first = text.split_whitespace().next().unwrap_or("").to_owned();
                    Ok(SkillOutput::new(json!({"words": text.split_whitespace().count(), "sample_ref": id}))
                        .with_record(SupportingRecord { artifact_id: id, kind: "first-word".into(), data: json!({"word": first}) }))
                }
            }
        })
        .build()
}

async fn test_agent() -> TestServer {
    let agent = Agent::builder("client-test", "hosts word_stats", "0.1.0")
        .skill(word_stats())
        .build()
        .unwrap();
    TestServer::start(agent, ServerConfig::default()).await
}

fn client() -> Client {
    Client::new(ClientConfig::default()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_happy_path_sync_and_stream() {
    let srv = test_agent().await;
    let c = client();
    for mode in [Mode::Sync, Mode::Stream] {
        let mut steps = Vec::new();
        let r = c
            .call(
                &srv.base,
                "word_stats",
                &json!({"text": "one two three"}),
                mode,
                &mut |s, _| steps.push(s),
            )
            .await
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        assert_eq!(steps.last(), Some(&Step::Result));
        assert_eq!(r.state, TaskState::Completed);
        assert_eq!(r.skill_version, "1.2");
        assert_eq!(r.output["words"], 3);
        assert_eq!(r.records.len(), 1);
        assert_eq!(r.records[0].kind, "first-word");
        assert_eq!(r.records[0].data["word"], "one");
        assert_eq!(r.output["sample_ref"], r.records[0].artifact_id.as_str());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_remote_errors_keep_code_state_and_task_id() {
    let srv = test_agent().await;
    let c = client();
    for (mode, code, state) in [
        ("refuse", ErrorCode::ConstraintRejected, TaskState::Rejected),
        ("fail", ErrorCode::ExecutionFailed, TaskState::Failed),
        ("bad_output", ErrorCode::OutputInvalid, TaskState::Failed),
    ] {
        let e = c
            .call(
                &srv.base,
                "word_stats",
                &json!({"text": "x", "mode": mode}),
                Mode::Sync,
                &mut |_, _| {},
            )
            .await
            .unwrap_err();
        let ClientError::Remote {
            code: got,
            state: st,
            task_id,
            ..
        } = &e
        else {
            panic!("{mode}: {e:?}")
        };
        assert_eq!((*got, *st), (code, state), "{mode}");
        assert!(!task_id.is_empty());
        assert_eq!(e.where_(), Where::Remote);
        assert_eq!(e.outcome(), Outcome::Finding);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_input_invalid_is_caught_locally_before_the_server_sees_it() {
    let srv = test_agent().await;
    let e = client()
        .call(
            &srv.base,
            "word_stats",
            &json!({"text": 5}),
            Mode::Sync,
            &mut |_, _| {},
        )
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::InputInvalid));
    assert_eq!(e.where_(), Where::Local);
    assert_eq!(e.step(), Some(Step::ValidateInput));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_with_bearer_auth_needs_the_token() {
    let agent = Agent::builder("auth-test", "hosts word_stats", "0.1.0")
        .skill(word_stats())
        .build()
        .unwrap();
    let config = ServerConfig {
        tokens: Some(TokenTable::parse("tok-a-0123456789abcdef word_stats\n").unwrap()),
        ..ServerConfig::default()
    };
    let srv = TestServer::start(agent, config).await;
    let args = json!({"text": "a b"});
    let e = client()
        .call(&srv.base, "word_stats", &args, Mode::Sync, &mut |_, _| {})
        .await
        .unwrap_err();
    assert_eq!(e.outcome(), Outcome::Failure, "{e:?}");
    assert!(e.message().contains("401"), "{e}");
    let c = Client::new(ClientConfig {
        transport: skillgate_transport::TransportConfig {
            token: Some("tok-a-0123456789abcdef".into()),
            credential_origins: vec![url::Url::parse(&srv.base).unwrap().origin()],
            ..Default::default()
        },
        ..ClientConfig::default()
    })
    .unwrap();
    let r = c
        .call(&srv.base, "word_stats", &args, Mode::Sync, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(r.output["words"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn netops_skills_and_chain_on_loopback() {
    let agent = skillgate_netops::agent().build().unwrap();
    let srv = TestServer::start(agent, ServerConfig::default()).await;
    let c = Client::new(ClientConfig {
        transport: skillgate_transport::TransportConfig {
            timeout: Duration::from_secs(20),
            ..Default::default()
        },
        ..ClientConfig::default()
    })
    .unwrap();
    let args = json!({"resource_id": "lo", "window_ms": 100,
        "condition": {"metric": "rx_bytes_per_second", "operator": "gte", "threshold": 0, "unit": "bytes_per_second"}});
    for mode in [Mode::Sync, Mode::Stream] {
        let r = c
            .call(
                &srv.base,
                "evaluate_resource_condition",
                &args,
                mode,
                &mut |_, _| {},
            )
            .await
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        assert_eq!(r.output["result"], "condition_met", "{}", r.output);
        assert_eq!(r.records[0].kind, "resource-observation");
    }
    // Utilization needs a link speed; lo has none, which the agent refuses as constraint_rejected.
    let util = json!({"resource_id": "lo",
        "condition": {"metric": "utilization", "operator": "gt", "threshold": 50, "unit": "percent"}});
    let e = c
        .call(
            &srv.base,
            "evaluate_resource_condition",
            &util,
            Mode::Sync,
            &mut |_, _| {},
        )
        .await
        .unwrap_err();
    assert_eq!(e.where_(), Where::Remote, "{e}");
    assert_eq!(e.code(), Some(ErrorCode::ConstraintRejected), "{e}");
    let plan = Plan::from_value(json!({"steps": [
        {"name": "collect", "agent": srv.base, "skill": "collect_interface_counters", "arguments": {"interface": "lo", "window_ms": 100}},
        {"name": "assess", "agent": srv.base, "skill": "assess_interface_health", "from": "collect"}
    ]}))
    .unwrap();
    let report = run_chain(&c, &plan, Mode::Sync, &mut |_| {}).await.unwrap();
    assert_eq!(report.steps[1].result.output["interface"], "lo");
    assert_eq!(report.correlations.len(), 1);
    assert_ne!(
        report.correlations[0].upstream.task_id,
        report.correlations[0].downstream.task_id
    );
}

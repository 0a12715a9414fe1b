//! Chains against the fake agent: composition checked before any delegation, one task per step.

use std::time::{Duration, Instant};

use serde_json::json;
use skillgate_client::Outcome;
use skillgate_client::{run_chain, ChainEvent, ChainFailure, ClientError, Mode, Plan, Step};
use skillgate_core::ErrorCode;
use skillgate_testkit::fake::{CardMode, FakeAgent, LOOKALIKE_SKILL, NEXT_SKILL, SKILL};

use super::misbehaving::{args, call, client};

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
    let fake = FakeAgent::start_with(|s| {
        s.card = CardMode::RedirectTo("http://192.0.2.1/card.json".into())
    });
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

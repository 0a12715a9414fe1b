//! The describe_skill answer as the checker judges it with core's reader and three-way
//! digest check (real fake agents on 127.0.0.1): each way of getting the answer wrong fails
//! the one check that states it.

use serde_json::{json, Value};
use skillgate_conformance::{check, Options, Report, Verdict};
use skillgate_core::digest;
use skillgate_testkit::fake::{ping_document, FakeAgent, FakeState, Faults, PING_SKILL};

async fn run_with(edit: impl FnOnce(&mut FakeState)) -> Report {
    let agent = FakeAgent::start_conformant(Faults::default());
    edit(&mut agent.state.lock().unwrap());
    check(&agent.base, &Options::default()).await.unwrap()
}

fn evidence(r: &Report, id: &str) -> String {
    r.results(id).next().unwrap().evidence.join("\n")
}

fn verdict(r: &Report, id: &str) -> Verdict {
    r.results(id).next().unwrap().verdict
}

/// The answer the agent gives, with its one artifact named `describe_skill`.
fn describe_artifact(data: Value) -> Value {
    json!({"artifactId": "a-describe", "name": "describe_skill", "parts": [{"data": data}]})
}

fn served() -> Value {
    let doc = ping_document();
    json!({"interface_digest": doc.interface_digest().to_string(), "skill_interface": doc.value()})
}

#[tokio::test]
async fn an_artifact_beside_the_result_fails_the_result_shape() {
    let r = run_with(|s| {
        let log = json!({"artifactId": "a-log", "name": "log", "parts": [{"text": "hi"}]});
        s.describe_artifacts = Some(vec![describe_artifact(served()), log]);
    })
    .await;
    assert_eq!(r.failed_ids(), vec!["SI-DESC-001"], "{}", r.to_text());
    assert!(
        evidence(&r, "SI-DESC-001").contains("expected exactly one Artifact, got 2"),
        "{}",
        r.to_text()
    );
}

#[tokio::test]
async fn a_result_without_the_named_artifact_says_how_many_were_named() {
    let r = run_with(|s| {
        let mut wrong = describe_artifact(served());
        wrong["name"] = json!("interface");
        s.describe_artifacts = Some(vec![wrong]);
    })
    .await;
    assert_eq!(r.failed_ids(), vec!["SI-DESC-001"], "{}", r.to_text());
    let ev = evidence(&r, "SI-DESC-001");
    assert!(ev.contains("0 artifacts named \"describe_skill\""), "{ev}");
}

#[tokio::test]
async fn a_malformed_returned_digest_makes_the_result_unreadable() {
    let r = run_with(|s| s.returned_digest = Some("sha256:NOT-HEX".into())).await;
    assert_eq!(r.failed_ids(), vec!["SI-DESC-001"], "{}", r.to_text());
    let ev = evidence(&r, "SI-DESC-001");
    assert!(ev.contains("interface_digest: invalid digest"), "{ev}");
    // Nothing can be compared or validated without a result.
    assert_eq!(verdict(&r, "SI-DESC-002"), Verdict::Skip);
    assert_eq!(verdict(&r, "SI-DESC-003"), Verdict::Skip);
}

#[tokio::test]
async fn extra_members_are_noted_not_failed() {
    let r = run_with(|s| {
        let mut data = served();
        data["served_by"] = json!("test");
        s.describe_artifacts = Some(vec![describe_artifact(data)]);
    })
    .await;
    assert!(r.failed_ids().is_empty(), "{}", r.to_text());
    let ev = evidence(&r, "SI-DESC-001");
    assert!(ev.contains("note: extra members [\"served_by\"]"), "{ev}");
}

#[tokio::test]
async fn a_wrong_returned_digest_beside_the_advertised_document_fails_the_digest_check() {
    let r = run_with(|s| s.returned_digest = Some(digest(&json!("other")).to_string())).await;
    assert_eq!(r.failed_ids(), vec!["SI-DESC-002"], "{}", r.to_text());
    let ev = evidence(&r, "SI-DESC-002");
    assert!(
        ev.contains("which is what the served document hashes to"),
        "{ev}"
    );
    // The document itself is the advertised one, so it is still judged (and passes).
    assert_eq!(verdict(&r, "SI-DESC-003"), Verdict::Pass);
    assert_eq!(
        r.results("SI-DESC-002").next().unwrap().skill.as_deref(),
        Some(PING_SKILL)
    );
}

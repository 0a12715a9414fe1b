//! The checker against deliberately broken agents (real axum servers on 127.0.0.1:0): each
//! broken rule must fail exactly the checks that state it, and a correct agent must pass.

use skillgate_conformance::{check, Fatal, Options, Outcome, Report, Verdict};
use skillgate_testkit::fake::{CardMode, FakeAgent, Faults, PING_SKILL as SKILL};

async fn run(faults: Faults) -> Report {
    let agent = FakeAgent::start_conformant(faults);
    check(&agent.base, &Options::default()).await.unwrap()
}

fn verdict(r: &Report, id: &str) -> Vec<Verdict> {
    r.results(id).map(|c| c.verdict).collect()
}

fn assert_fails(r: &Report, ids: &[&str]) {
    let failed = r.failed_ids();
    for id in ids {
        assert!(
            failed.contains(id),
            "{id} should fail; failed: {failed:?}\n{}",
            r.to_text()
        );
    }
    assert_eq!(r.outcome(), Outcome::NotConformant, "{}", r.to_text());
}

fn assert_only_fails(r: &Report, ids: &[&str]) {
    assert_fails(r, ids);
    let failed = r.failed_ids();
    assert_eq!(
        failed.len(),
        ids.len(),
        "unexpected failures {failed:?}, expected {ids:?}\n{}",
        r.to_text()
    );
}

#[tokio::test]
async fn a_correct_agent_passes_every_check() {
    let r = run(Faults::default()).await;
    assert_eq!(r.outcome(), Outcome::Conformant, "{}", r.to_text());
    assert!(r.failed_ids().is_empty());
    // Every check of the catalogue ran, and none was skipped on a fully generatable schema.
    for def in skillgate_conformance::catalogue::CATALOGUE {
        let v = verdict(&r, def.id);
        assert!(!v.is_empty(), "{} did not run", def.id);
        assert!(
            v.iter().all(|v| *v == Verdict::Pass),
            "{}: {v:?}\n{}",
            def.id,
            r.to_text()
        );
    }
    assert_eq!(r.outcome(), Outcome::Conformant);
    let json = serde_json::to_value(r.output()).unwrap();
    assert_eq!(json["summary"]["fail"], 0);
    assert_eq!(json["binding"], "JSONRPC");
    let first = &json["checks"][0];
    assert_eq!(first["id"], "SI-CARD-001");
    assert_eq!(first["verdict"], "pass");
    assert!(first["evidence"].as_array().unwrap().len() >= 2);
    let per_skill = r.results("SI-CALL-001").next().unwrap();
    assert_eq!(per_skill.skill.as_deref(), Some(SKILL));
}

#[tokio::test]
async fn no_extension_fails_and_stops() {
    let agent = FakeAgent::start_conformant(Faults::default());
    agent.state.lock().unwrap().extension = false;
    let r = check(&agent.base, &Options::default()).await.unwrap();
    assert_only_fails(&r, &["SI-EXT-001"]);
    assert!(r.fatal.is_none());
    // Nothing was delegated to an agent that does not implement the draft.
    assert!(agent.posts().is_empty(), "{:?}", agent.posts());
}

#[tokio::test]
async fn wrong_advertised_digest_fails_the_three_way_digest() {
    let r = run(Faults {
        wrong_advertised_digest: true,
        ..Default::default()
    })
    .await;
    assert_only_fails(&r, &["SI-DESC-002"]);
    let ev = r.results("SI-DESC-002").next().unwrap().evidence.join("\n");
    assert!(
        ev.contains("does not hash to the advertised digest"),
        "{ev}"
    );
}

#[tokio::test]
async fn accepting_a_wrong_version_fails_the_mismatch_checks() {
    let r = run(Faults {
        mismatch_not_enforced: true,
        ..Default::default()
    })
    .await;
    // The probes carry invalid arguments, so a non-enforcing agent answers input_invalid.
    assert_only_fails(&r, &["SI-MISMATCH-001", "SI-MISMATCH-002"]);
}

#[tokio::test]
async fn checking_input_before_the_interface_fails_the_mismatch_checks() {
    let r = run(Faults {
        input_before_mismatch: true,
        ..Default::default()
    })
    .await;
    assert_only_fails(&r, &["SI-MISMATCH-001", "SI-MISMATCH-002"]);
    let ev = r
        .results("SI-MISMATCH-001")
        .next()
        .unwrap()
        .evidence
        .join("\n");
    assert!(ev.contains("validated arguments before"), "{ev}");
}

#[tokio::test]
async fn a_record_named_the_skill_id_fails_artifact_naming() {
    let r = run(Faults {
        record_named_skill_id: true,
        ..Default::default()
    })
    .await;
    assert_fails(&r, &["SI-CALL-003"]);
    let ev = r.results("SI-CALL-003").next().unwrap().evidence.join("\n");
    assert!(ev.contains("never the skill id"), "{ev}");
    assert_eq!(verdict(&r, "SI-CALL-001"), vec![Verdict::Pass]);
}

#[tokio::test]
async fn no_extension_echo_fails_the_echo_check() {
    let r = run(Faults {
        no_echo: true,
        ..Default::default()
    })
    .await;
    assert_only_fails(&r, &["SI-ECHO-001"]);
}

#[tokio::test]
async fn input_invalid_without_details_fails() {
    let r = run(Faults {
        no_details: true,
        ..Default::default()
    })
    .await;
    assert_only_fails(&r, &["SI-INPUT-001", "SI-INPUT-002"]);
}

#[tokio::test]
async fn echoing_input_values_fails() {
    let r = run(Faults {
        echo_values: true,
        ..Default::default()
    })
    .await;
    assert_only_fails(&r, &["SI-INPUT-003"]);
}

#[tokio::test]
async fn unknown_skill_must_be_interface_unavailable() {
    let r = run(Faults {
        unknown_skill_completes: true,
        ..Default::default()
    })
    .await;
    assert_only_fails(&r, &["SI-DESC-004"]);
}

#[tokio::test]
async fn text_error_messages_fail_the_error_shape() {
    let r = run(Faults {
        text_errors: true,
        ..Default::default()
    })
    .await;
    assert_fails(
        &r,
        &[
            "SI-ERR-001",
            "SI-MISMATCH-001",
            "SI-INPUT-001",
            "SI-DESC-004",
        ],
    );
}

#[tokio::test]
async fn constraint_rejected_valid_calls_are_skipped_not_failed() {
    let r = run(Faults {
        refuse_valid_calls: true,
        ..Default::default()
    })
    .await;
    assert_eq!(r.outcome(), Outcome::Conformant, "{}", r.to_text());
    assert_eq!(verdict(&r, "SI-CALL-001"), vec![Verdict::Skip]);
    let ev = r.results("SI-CALL-001").next().unwrap().evidence.join("\n");
    assert!(ev.contains("constraint_rejected"), "{ev}");
    // Several generated candidates were tried before giving up.
    assert!(ev.matches("sent ").count() >= 2, "{ev}");
    assert_eq!(verdict(&r, "SI-CALL-002"), vec![Verdict::Skip]);
}

#[tokio::test]
async fn integers_sent_as_floats_are_still_integers() {
    let r = run(Faults {
        floats_in_document: true,
        ..Default::default()
    })
    .await;
    assert_eq!(r.outcome(), Outcome::Conformant, "{}", r.to_text());
    let ev = r.results("SI-DESC-003").next().unwrap().evidence.join("\n");
    assert!(ev.contains("arrived as floats"), "{ev}");
    // The bounds read from the float-encoded schema still shaped the probes.
    assert_eq!(verdict(&r, "SI-CALL-001"), vec![Verdict::Pass]);
}

#[tokio::test]
async fn refusing_integers_written_as_floats_fails_the_interop_check() {
    let r = run(Faults {
        refuse_integral_floats: true,
        ..Default::default()
    })
    .await;
    assert_eq!(
        verdict(&r, "SI-CALL-004"),
        vec![Verdict::Fail],
        "{}",
        r.to_text()
    );
    let ev = r.results("SI-CALL-004").next().unwrap().evidence.join("\n");
    assert!(ev.contains("\"count\":1.0"), "{ev}");
    assert!(ev.contains("valid arguments were refused"), "{ev}");
    // An interop check, not a draft requirement: the run still passes.
    assert_eq!(r.outcome(), Outcome::Conformant, "{}", r.to_text());
}

#[tokio::test]
async fn unreachable_and_non_a2a_targets_exit_2() {
    // A port that was bound and released: nothing listens there.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    let r = check(&format!("http://{addr}"), &Options::default())
        .await
        .unwrap();
    assert_eq!(r.fatal, Some(Fatal::Unreachable));
    assert_eq!(r.outcome(), Outcome::NoAgent(Fatal::Unreachable));
    assert_eq!(verdict(&r, "SI-CARD-001"), vec![Verdict::Fail]);

    let html = FakeAgent::start_with(|s| {
        s.card = CardMode::Raw("text/html", b"<html>hello</html>".to_vec())
    });
    let r = check(&html.base, &Options::default()).await.unwrap();
    assert_eq!(r.fatal, Some(Fatal::NotA2aAgent));
    assert_eq!(r.outcome(), Outcome::NoAgent(Fatal::NotA2aAgent));
    assert!(r.to_text().contains("not an A2A agent"));
}

#[tokio::test]
async fn plain_http_to_other_hosts_is_refused_before_any_request() {
    let e = check("http://example.invalid/", &Options::default())
        .await
        .unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("refusing plain HTTP to non-loopback host example.invalid")
            && m.contains("must be allowed explicitly"),
        "{m}"
    );
    assert!(
        !m.contains("--"),
        "a library message names no CLI flag: {m}"
    );
}

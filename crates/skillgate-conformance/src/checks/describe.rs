//! The describe family: describe_skill results, the three-way digest, the served document
//! (SI-DESC-001..003) and the refusal of an unknown skill (SI-DESC-004).

use serde_json::Value;
use skillgate_a2a::{self as a2a, TaskState};
use skillgate_core::describe;
use skillgate_core::document::{Expectations, ValidatedDocument};
use skillgate_core::wire::{self, DescribeSkillArguments, DescribeSkillResponse, SkillRequest};
use skillgate_core::{Digest, ErrorCode};

use super::floats::integral_float_count;
use super::{parse_error, payload, Run, Target};
use crate::catalogue as cat;
use crate::probe::{show, Exchange};
use crate::report::Verdict;

/// The describe_skill request for `skill_id`.
pub(crate) fn describe_request(skill_id: &str) -> Value {
    let arguments = serde_json::to_value(DescribeSkillArguments {
        skill_id: skill_id.to_owned(),
    })
    .unwrap_or_default();
    payload(&SkillRequest {
        skill: wire::DESCRIBE_SKILL.to_owned(),
        skill_version: None,
        interface_digest: None,
        arguments,
    })
}

/// SI-DESC-001: the describe_skill result, read by core's rules. On top of what a reader
/// needs, the profile's answer has no other artifact (a failure here) and no other member
/// (a note).
fn describe_result(ex: &Exchange, ev: &mut Vec<String>) -> Option<DescribeSkillResponse> {
    ev.push(format!("got {}", ex.describe()));
    let task = ex.task()?;
    if task.status.state != TaskState::Completed {
        ev.push(format!(
            "expected TASK_STATE_COMPLETED, got {}",
            task.status.state
        ));
        if let Ok(e) = parse_error(task) {
            ev.push(format!("error code {:?}", e.code));
        }
        return None;
    }
    let picked = match describe::result_artifact(&task.artifacts, |a| a.name.as_str()) {
        Ok(p) => p,
        Err(e) => {
            ev.push(format!("the task {e}"));
            return None;
        }
    };
    if picked.others > 0 {
        ev.push(format!(
            "expected exactly one Artifact, got {}",
            task.artifacts.len()
        ));
        return None;
    }
    let data = match a2a::single_data(&picked.artifact.parts) {
        Ok(d) => d,
        Err(a2a::SingleDataError::PartCount(n)) => {
            ev.push(format!("the Artifact has {n} parts, not one Data Part"));
            return None;
        }
        Err(a2a::SingleDataError::NotData(m)) => {
            ev.push(format!("the Artifact part is a {m} part, not data"));
            return None;
        }
    };
    match describe::read_result(data) {
        Ok(read) => {
            if !read.extra_members.is_empty() {
                ev.push(format!("note: extra members {:?}", read.extra_members));
            }
            Some(read.response)
        }
        Err(e) => {
            ev.push(e.to_string());
            None
        }
    }
}

/// SI-DESC-001: calls describe_skill; returns the typed result or `None` after recording
/// the failure.
pub(crate) async fn describe_check(
    run: &mut Run,
    to: Target<'_>,
    skill_id: &str,
) -> Option<DescribeSkillResponse> {
    let request = describe_request(skill_id);
    let mut ev = vec![format!("sent {}", show(&request, 300))];
    let label = format!("describe_skill {skill_id}");
    let ex = match run.send(to, label.clone(), request).await {
        Ok(ex) => ex,
        Err(e) => {
            ev.push(e);
            run.push(cat::DESCRIBE_RESULT, Some(skill_id), Verdict::Fail, ev);
            return None;
        }
    };
    let result = describe_result(&ex, &mut ev);
    if result.is_none() {
        if let Some(t) = ex.task() {
            run.note_error(&label, t);
        }
    }
    run.judge(cat::DESCRIBE_RESULT, Some(skill_id), result.is_some(), ev);
    result
}

/// SI-DESC-002: advertised == returned == computed interface digest (core's three-way
/// check); the evidence shows all three and, on a mismatch, which one is the odd one.
pub(crate) fn digest_check(
    run: &mut Run,
    skill_id: &str,
    adv_digest: Digest,
    response: &DescribeSkillResponse,
) {
    let checked = describe::check_digests(adv_digest, response);
    let computed = match &checked {
        Ok(d) => *d,
        Err(m) => m.computed,
    };
    let mut ev = vec![
        format!("advertised {adv_digest}"),
        format!("returned   {}", response.interface_digest),
        format!("computed   {computed} (RFC 8785 over skill_interface)"),
    ];
    if let Err(m) = &checked {
        ev.push(m.to_string());
    }
    run.judge(cat::DESCRIBE_DIGEST, Some(skill_id), checked.is_ok(), ev);
}

/// SI-DESC-003: the served document is valid and describes the advertised skill version.
pub(crate) fn document_check(
    run: &mut Run,
    skill_id: &str,
    adv_version: &str,
    doc_value: &Value,
) -> Option<ValidatedDocument> {
    let expect = Expectations {
        skill_id: Some(skill_id.to_owned()),
        skill_version: Some(adv_version.to_owned()),
        interface_digest: None,
    };
    // Peers that transcode Data Parts through protobuf send every integer as a float
    // (`5000.0`); JSON Schema and RFC 8785 treat that as the integer, so the document is read
    // the same way (the digest is over what was received and is unaffected).
    let rewritten = integral_float_count(doc_value);
    match ValidatedDocument::from_value(doc_value, &expect) {
        Ok(doc) => {
            let mut ev = vec![format!(
                "valid document {} {} with {} record kind(s)",
                doc.skill_id(),
                doc.skill_version(),
                doc.document().supporting_record_schemas.len()
            )];
            if rewritten > 0 {
                ev.push(format!(
                    "note: {rewritten} integral number(s) arrived as floats (e.g. 5000.0) and were read as integers"
                ));
            }
            run.push(cat::DESCRIBE_DOCUMENT, Some(skill_id), Verdict::Pass, ev);
            Some(doc)
        }
        Err(e) => {
            let ev = e
                .findings
                .iter()
                .map(|f| format!("{} at {:?}: {}", f.code, f.path, f.message))
                .collect();
            run.push(cat::DESCRIBE_DOCUMENT, Some(skill_id), Verdict::Fail, ev);
            None
        }
    }
}

/// SI-DESC-004: describe_skill for a skill the card does not list fails with
/// interface_unavailable.
pub(crate) async fn unknown_skill_check(run: &mut Run, to: Target<'_>, card: &a2a::AgentCard) {
    let mut unknown = "skillgate_conformance_no_such_skill".to_owned();
    while card.skills.iter().any(|s| s.id == unknown) {
        unknown.push('_');
    }
    let request = describe_request(&unknown);
    let mut ev = vec![format!("sent {}", show(&request, 300))];
    let label = "describe_skill unknown skill".to_owned();
    match run.send(to, label.clone(), request).await {
        Ok(ex) => {
            let (ok, _) = run.expect_error(
                &label,
                &ex,
                ErrorCode::InterfaceUnavailable,
                TaskState::Failed,
                &mut ev,
            );
            run.judge(cat::DESCRIBE_UNKNOWN, None, ok, ev);
        }
        Err(e) => {
            ev.push(e);
            run.push(cat::DESCRIBE_UNKNOWN, None, Verdict::Fail, ev);
        }
    }
}

//! The describe family: describe_skill results, the three-way digest, the served document
//! (SI-DESC-001..003) and the refusal of an unknown skill (SI-DESC-004).

use serde_json::Value;
use skillgate_a2a::{self as a2a, TaskState};
use skillgate_core::document::{Expectations, ValidatedDocument};
use skillgate_core::wire::{self, names, DescribeSkillArguments, SkillRequest};
use skillgate_core::{digest, Digest, ErrorCode};

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

/// SI-DESC-001: the describe_skill result, as (interface_digest value, skill_interface).
fn describe_result(ex: &Exchange, ev: &mut Vec<String>) -> Option<(Value, Value)> {
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
    let [art] = task.artifacts.as_slice() else {
        ev.push(format!(
            "expected exactly one Artifact, got {}",
            task.artifacts.len()
        ));
        return None;
    };
    if art.name != wire::DESCRIBE_SKILL_ARTIFACT {
        ev.push(format!(
            "the Artifact is named {:?}, not \"describe_skill\"",
            art.name
        ));
        return None;
    }
    let data = match a2a::single_data(&art.parts) {
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
    let (Some(d), Some(doc)) = (
        data.get(names::INTERFACE_DIGEST),
        data.get(names::SKILL_INTERFACE),
    ) else {
        ev.push("the Data Part lacks interface_digest or skill_interface".into());
        return None;
    };
    if let Some(obj) = data.as_object() {
        let extra: Vec<&String> = obj
            .keys()
            .filter(|k| {
                k.as_str() != names::INTERFACE_DIGEST && k.as_str() != names::SKILL_INTERFACE
            })
            .collect();
        if !extra.is_empty() {
            ev.push(format!("note: extra members {extra:?}"));
        }
    }
    Some((d.clone(), doc.clone()))
}

/// SI-DESC-001: calls describe_skill; returns (returned digest, served document) or `None`
/// after recording the failure.
pub(crate) async fn describe_check(
    run: &mut Run,
    to: Target<'_>,
    skill_id: &str,
) -> Option<(Value, Value)> {
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

/// SI-DESC-002: advertised == returned == computed interface digest.
pub(crate) fn digest_check(
    run: &mut Run,
    skill_id: &str,
    adv_digest: Digest,
    returned: &Value,
    doc_value: &Value,
) {
    let computed = digest(doc_value);
    let returned_d = returned.as_str().map(Digest::parse);
    let mut ev = vec![
        format!("advertised {adv_digest}"),
        format!("returned   {}", show(returned, 80)),
        format!("computed   {computed} (RFC 8785 over skill_interface)"),
    ];
    let ok = matches!(&returned_d, Some(Ok(r)) if *r == adv_digest && *r == computed);
    if !ok {
        if !matches!(returned_d, Some(Ok(_))) {
            ev.push("returned interface_digest is not a sha256: digest string".into());
        }
        if computed != adv_digest {
            ev.push("the served document does not hash to the advertised digest".into());
        }
    }
    run.judge(cat::DESCRIBE_DIGEST, Some(skill_id), ok, ev);
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

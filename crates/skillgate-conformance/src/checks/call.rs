//! The call family: a valid call completes (SI-CALL-001), its primary Artifact and supporting
//! records are named and valid (SI-CALL-002/-003, [`super::artifacts`]) and integers written
//! as floats are accepted (SI-CALL-004).

use serde_json::Value;
use skillgate_a2a::{Task, TaskState};
use skillgate_core::document::ValidatedDocument;
use skillgate_core::ErrorCode;

use super::floats::integers_as_floats;
use super::{artifacts, domain_request, is_error_state, Run, Target};
use crate::catalogue as cat;
use crate::probe::show;
use crate::report::Verdict;

/// Every check that needs a completed call; skipped together when there is none.
const AFTER_COMPLETION: [crate::catalogue::CheckDef; 3] = [
    cat::CALL_PRIMARY,
    cat::CALL_RECORDS,
    cat::CALL_INTEGRAL_FLOATS,
];

/// SI-CALL-001..004 for one skill.
pub(crate) async fn call_checks(
    run: &mut Run,
    to: Target<'_>,
    doc: &ValidatedDocument,
    valid: &[Value],
) {
    let skill_id = doc.skill_id();
    let skill = Some(skill_id);
    if valid.is_empty() {
        let why = "no valid arguments could be generated";
        run.skip_all(&[cat::CALL_COMPLETES], skill, why);
        run.skip_all(&AFTER_COMPLETION, skill, "no valid call was made");
        return;
    }
    let Some((task, args)) = completes_check(run, to, doc, valid).await else {
        run.skip_all(&AFTER_COMPLETION, skill, "no valid call completed");
        return;
    };
    artifacts::primary_check(run, doc, &task);
    artifacts::records_check(run, doc, &task);
    integral_floats_check(run, to, doc, &args).await;
}

/// SI-CALL-001: the first generated valid instance that is not refused with
/// constraint_rejected completes; returns that task and its arguments.
async fn completes_check(
    run: &mut Run,
    to: Target<'_>,
    doc: &ValidatedDocument,
    valid: &[Value],
) -> Option<(Task, Value)> {
    let skill_id = doc.skill_id();
    let skill = Some(skill_id);
    let mut ev = Vec::new();
    for args in valid {
        let request = domain_request(
            skill_id,
            doc.skill_version(),
            doc.interface_digest().to_string(),
            args.clone(),
        );
        ev.push(format!("sent {}", show(&request, 300)));
        let label = format!("{skill_id} valid call");
        let ex = match run.send(to, label.clone(), request).await {
            Ok(ex) => ex,
            Err(e) => {
                ev.push(e);
                run.push(cat::CALL_COMPLETES, skill, Verdict::Fail, ev);
                return None;
            }
        };
        ev.push(format!("got {}", ex.describe()));
        let Some(task) = ex.task() else {
            run.push(cat::CALL_COMPLETES, skill, Verdict::Fail, ev);
            return None;
        };
        if task.status.state == TaskState::Completed {
            run.push(cat::CALL_COMPLETES, skill, Verdict::Pass, ev);
            return Some((task.clone(), args.clone()));
        }
        let err = if is_error_state(task.status.state) {
            run.error_of(&label, task).ok()
        } else {
            None
        };
        match err {
            Some(e)
                if e.code == ErrorCode::ConstraintRejected.as_str()
                    && task.status.state == TaskState::Rejected =>
            {
                ev.push("refused with constraint_rejected: valid input the skill will not accept; trying the next candidate".into());
            }
            Some(e) => {
                ev.push(format!("error code {:?}", e.code));
                run.push(cat::CALL_COMPLETES, skill, Verdict::Fail, ev);
                return None;
            }
            None => {
                ev.push("expected TASK_STATE_COMPLETED".into());
                run.push(cat::CALL_COMPLETES, skill, Verdict::Fail, ev);
                return None;
            }
        }
    }
    ev.push("every generated valid instance was refused with constraint_rejected".into());
    run.push(cat::CALL_COMPLETES, skill, Verdict::Skip, ev);
    None
}

/// SI-CALL-004: the completed call again, with every integer written as a float.
async fn integral_floats_check(
    run: &mut Run,
    to: Target<'_>,
    doc: &ValidatedDocument,
    args: &Value,
) {
    let skill_id = doc.skill_id();
    let skill = Some(skill_id);
    let (floats, n) = integers_as_floats(args);
    if n == 0 {
        let why = "the completed arguments hold no integer";
        run.skip_all(&[cat::CALL_INTEGRAL_FLOATS], skill, why);
        return;
    }
    let request = domain_request(
        skill_id,
        doc.skill_version(),
        doc.interface_digest().to_string(),
        floats,
    );
    let mut ev = vec![format!(
        "sent the completed call again with {n} integer(s) written as floats: {}",
        show(&request, 300)
    )];
    let label = format!("{skill_id} integral floats");
    let ex = match run.send(to, label.clone(), request).await {
        Ok(ex) => ex,
        Err(e) => {
            ev.push(e);
            run.push(cat::CALL_INTEGRAL_FLOATS, skill, Verdict::Fail, ev);
            return;
        }
    };
    ev.push(format!("got {}", ex.describe()));
    let completed = match ex.task() {
        Some(t) if t.status.state == TaskState::Completed => true,
        Some(t) if is_error_state(t.status.state) => {
            match run.error_of(&label, t) {
                Ok(e) => {
                    ev.push(format!("error code {:?}", e.code));
                    if e.code == ErrorCode::InputInvalid.as_str() {
                        ev.push(
                            "JSON Schema reads 2.0 as the integer 2: valid arguments were refused"
                                .into(),
                        );
                    }
                }
                Err(e) => ev.push(format!("error result malformed: {e}")),
            }
            false
        }
        _ => false,
    };
    run.judge(cat::CALL_INTEGRAL_FLOATS, skill, completed, ev);
}

//! The check families of a run, one module each, over a shared [`Run`] that records results,
//! exchanges and the error shapes the summary checks judge at the end.

use serde_json::Value;
use skillgate_a2a::{self as a2a, Role, SingleDataError, Task, TaskState};
use skillgate_core::wire::{self, ErrorObject, SkillRequest};
use skillgate_core::ErrorCode;

use crate::catalogue::CheckDef;
use crate::probe::{Exchange, Probed, Prober};
use crate::report::{CheckResult, Report, Verdict};

pub(crate) mod artifacts;
pub(crate) mod call;
pub(crate) mod card;
pub(crate) mod describe;
pub(crate) mod extension;
pub(crate) mod floats;
pub(crate) mod probes;
pub(crate) mod skill;
pub(crate) mod summary;

/// The state of one run: the prober, the report being written and what the summary checks
/// need from every exchange.
pub(crate) struct Run {
    pub(crate) prober: Prober,
    pub(crate) report: Report,
    /// Every exchange that activated the extension: (label, echoed?).
    pub(crate) echoes: Vec<(String, bool)>,
    /// Every error result seen: (label, problem if malformed).
    pub(crate) error_shapes: Vec<(String, Option<String>)>,
}

/// Where a run sends its requests: the chosen binding at the chosen interface URL, in the
/// chosen A2A version.
pub(crate) type Target<'a> = &'a Probed;

/// The error object of a failed or rejected task, as seen on the wire.
#[derive(Debug, Clone)]
pub(crate) struct SeenError {
    /// The wire spelling of the code (always one of the ten).
    pub(crate) code: String,
    /// The raw `details` entries, judged by the input checks.
    pub(crate) details: Vec<Value>,
}

impl Run {
    /// Records one result.
    pub(crate) fn push(
        &mut self,
        def: CheckDef,
        skill: Option<&str>,
        verdict: Verdict,
        evidence: Vec<String>,
    ) {
        self.report.checks.push(CheckResult {
            id: def.id,
            skill: skill.map(str::to_owned),
            title: def.title,
            required: def.required,
            verdict,
            evidence,
        });
    }

    /// Records a pass or a fail.
    pub(crate) fn judge(&mut self, def: CheckDef, skill: Option<&str>, ok: bool, ev: Vec<String>) {
        self.push(def, skill, Verdict::from_ok(ok), ev);
    }

    /// Records the same skip, with one reason, for each of `defs`.
    pub(crate) fn skip_all(&mut self, defs: &[CheckDef], skill: Option<&str>, why: &str) {
        for d in defs {
            self.push(*d, skill, Verdict::Skip, vec![why.to_owned()]);
        }
    }

    /// Sends one request and records whether the response echoed the extension.
    pub(crate) async fn send(
        &mut self,
        to: Target<'_>,
        label: String,
        payload: Value,
    ) -> Result<Exchange, String> {
        match self.prober.send_data(to, payload, true).await {
            Ok(ex) => {
                self.echoes.push((label, ex.echoed(wire::EXTENSION_URI)));
                Ok(ex)
            }
            Err(e) => Err(format!("request failed: {e}")),
        }
    }

    /// Extracts the error object of a task's final status, recording its shape for SI-ERR-001.
    pub(crate) fn error_of(&mut self, label: &str, task: &Task) -> Result<SeenError, String> {
        let r = parse_error(task);
        self.error_shapes
            .push((label.to_owned(), r.as_ref().err().cloned()));
        r
    }

    /// Records the error shape of `task` when it is an error state; the result is not needed.
    pub(crate) fn note_error(&mut self, label: &str, task: &Task) {
        if is_error_state(task.status.state) {
            let _ = self.error_of(label, task);
        }
    }

    /// Checks an exchange against an expected error code and terminal state.
    pub(crate) fn expect_error(
        &mut self,
        label: &str,
        ex: &Exchange,
        code: ErrorCode,
        state: TaskState,
        ev: &mut Vec<String>,
    ) -> (bool, Option<SeenError>) {
        ev.push(format!("got {}", ex.describe()));
        let Some(task) = ex.task() else {
            ev.push(format!("expected a Task in {state} with code {code}"));
            return (false, None);
        };
        let seen = if is_error_state(task.status.state) {
            match self.error_of(label, task) {
                Ok(s) => Some(s),
                Err(e) => {
                    ev.push(format!("error result malformed: {e}"));
                    None
                }
            }
        } else {
            None
        };
        let code_ok = seen.as_ref().is_some_and(|s| s.code == code.as_str());
        if let Some(s) = &seen {
            ev.push(format!(
                "error code {:?}, {} detail(s)",
                s.code,
                s.details.len()
            ));
        }
        let state_ok = task.status.state == state;
        if !state_ok {
            ev.push(format!("expected state {state}, got {}", task.status.state));
        }
        if !code_ok {
            ev.push(format!("expected code {code}"));
        }
        (state_ok && code_ok, seen)
    }
}

/// Parses the draft's error object out of a task's final status message (the shape rules
/// are core's [`ErrorObject::shape_of`]; the role rule is checked here because only the
/// checker reports it).
pub(crate) fn parse_error(task: &Task) -> Result<SeenError, String> {
    let msg = task
        .status
        .message
        .as_ref()
        .ok_or("the final status has no message")?;
    if msg.role != Role::Agent {
        return Err(format!(
            "status message role is {}, not ROLE_AGENT",
            msg.role
        ));
    }
    let data = a2a::single_data(&msg.parts).map_err(|e| match e {
        SingleDataError::PartCount(n) => {
            format!("status message has {n} parts, not exactly one Data Part")
        }
        SingleDataError::NotData(m) => format!("status message part is a {m} part, not data"),
    })?;
    let shape = ErrorObject::shape_of(data).map_err(|e| e.to_string())?;
    Ok(SeenError {
        code: shape.code.as_str().to_owned(),
        details: shape.details.to_vec(),
    })
}

/// The only Data Part of an artifact, with the checker's wording of what is wrong.
pub(crate) fn single_data(art: &a2a::Artifact) -> Result<&Value, String> {
    a2a::single_data(&art.parts).map_err(|e| match e {
        SingleDataError::PartCount(n) => format!("{n} parts, expected one Data Part"),
        SingleDataError::NotData(m) => format!("a {m} part, expected a Data Part"),
    })
}

/// Failed and rejected tasks carry the draft's error object.
pub(crate) fn is_error_state(s: TaskState) -> bool {
    matches!(s, TaskState::Failed | TaskState::Rejected)
}

/// The wire payload of a request object. Serializing these plain structs cannot fail; the
/// fallback exists only so no panic path is left.
pub(crate) fn payload(request: &SkillRequest) -> Value {
    serde_json::to_value(request).unwrap_or_default()
}

/// A domain-skill request selecting `version` and `digest`.
pub(crate) fn domain_request(
    skill: &str,
    version: &str,
    digest: String,
    arguments: Value,
) -> Value {
    payload(&SkillRequest {
        skill: skill.to_owned(),
        skill_version: Some(version.to_owned()),
        interface_digest: Some(digest),
        arguments,
    })
}

//! The schema gate of one skill: the checks the profile orders around domain logic, on
//! pre-compiled validators and a pre-computed digest (nothing is compiled or hashed per request).

use crate::auth::Caller;
use crate::config::{ApprovalPolicy, ApprovalRequest};
use crate::skill::SkillOutput;
use serde_json::Value;
use skillgate_a2a::TaskState;
use skillgate_core::document::ValidatedDocument;
use skillgate_core::jcs::{write_canonical, Sink};
use skillgate_core::wire::{names, AuthorityMode, ErrorDetail, ErrorObject};
use skillgate_core::{ErrorCode, TerminalState};
use std::collections::HashSet;
use std::time::Duration;

/// artifactId of the primary result artifact.
pub const RESULT_ARTIFACT_ID: &str = "result";

/// Where in the profile a refusal arose. With the error code it fixes the task state, because
/// `resource_limit_exceeded` is a rejection before acceptance and a failure during processing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Before the request was accepted: the handler never ran.
    Admission,
    /// After acceptance: while the handler ran, or when its output was checked.
    Processing,
}

/// A refused or failed request: the draft error object and the phase it arose in.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    /// The error object the task's status message carries.
    pub error: ErrorObject,
    /// The phase, which with the code decides between `REJECTED` and `FAILED`.
    pub phase: Phase,
}

impl Rejection {
    /// A refusal before acceptance.
    pub fn admission(error: ErrorObject) -> Self {
        Self {
            error,
            phase: Phase::Admission,
        }
    }

    /// A failure after acceptance.
    pub fn processing(error: ErrorObject) -> Self {
        Self {
            error,
            phase: Phase::Processing,
        }
    }

    /// The terminal task state the profile assigns to this code in this phase; a code only a
    /// client reports (`skill_not_advertised`) never reaches a server task, so it fails.
    pub fn task_state(&self) -> TaskState {
        match (self.error.code.terminal_state(), self.phase) {
            (TerminalState::Rejected, _) | (TerminalState::RejectedOrFailed, Phase::Admission) => {
                TaskState::Rejected
            }
            (TerminalState::Failed, _)
            | (TerminalState::RejectedOrFailed, Phase::Processing)
            | (TerminalState::ClientLocal, _) => TaskState::Failed,
        }
    }
}

/// A request the gate let through: the arguments its handler receives.
#[derive(Clone, Debug, PartialEq)]
pub struct Admission {
    /// The validated arguments, integral floats normalised (80.0 becomes 80) so a typed handler
    /// sees the same view the JSON Schema validator saw.
    pub arguments: Value,
}

/// The validated document of a skill with everything the request path needs, precomputed.
#[derive(Clone, Debug)]
pub struct SkillGate {
    doc: ValidatedDocument,
    digest: String,
    max_input_bytes: Option<u64>,
    max_duration: Option<Duration>,
}

/// Counts canonical bytes without building them.
struct CountingSink(u64);

impl Sink for CountingSink {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.0 = self.0.saturating_add(bytes.len() as u64);
    }
}

/// The RFC 8785 size of a value in bytes.
pub fn canonical_size(v: &Value) -> u64 {
    let mut s = CountingSink(0);
    write_canonical(v, &mut s);
    s.0
}

impl SkillGate {
    /// Wraps a validated document.
    pub fn new(doc: ValidatedDocument) -> Self {
        let digest = doc.interface_digest().to_string();
        let c = &doc.document().constraints;
        let max_input_bytes = c.max_input_bytes;
        let max_duration = c.max_duration_ms.map(Duration::from_millis);
        Self {
            doc,
            digest,
            max_input_bytes,
            max_duration,
        }
    }

    /// The document.
    pub fn document(&self) -> &ValidatedDocument {
        &self.doc
    }
    /// The skill id.
    pub fn skill_id(&self) -> &str {
        self.doc.skill_id()
    }
    /// The active skill version.
    pub fn skill_version(&self) -> &str {
        self.doc.skill_version()
    }
    /// The interface digest as its wire string.
    pub fn interface_digest_str(&self) -> &str {
        &self.digest
    }
    /// `constraints.max_duration_ms`.
    pub fn max_duration(&self) -> Option<Duration> {
        self.max_duration
    }
    /// `interaction.cancelable`.
    pub fn cancelable(&self) -> bool {
        self.doc.document().interaction.cancelable
    }
    /// Whether the skill's default authority mode is `execute`.
    pub fn is_execute(&self) -> bool {
        self.doc.document().authority.default_mode == AuthorityMode::Execute
    }

    /// Every pre-acceptance check of the profile, in its order: `interface_mismatch`,
    /// `resource_limit_exceeded`, `input_invalid` (see [`SkillGate::check_request`]), then
    /// `authorization_failed` for a caller whose token does not cover the skill, then the
    /// approval policy for an `execute`-mode skill (also `authorization_failed`).
    pub fn admit(
        &self,
        request: &Value,
        caller: Option<&Caller>,
        approval: &ApprovalPolicy,
    ) -> Result<Admission, Rejection> {
        let args = self.check_request(request).map_err(Rejection::admission)?;
        if let Some(c) = caller {
            if !c.allows(self.skill_id()) {
                return Err(Rejection::admission(ErrorObject::new(
                    ErrorCode::AuthorizationFailed,
                    format!(
                        "the presented credentials are not authorized for skill {}",
                        self.skill_id()
                    ),
                )));
            }
        }
        if self.is_execute() {
            let req = ApprovalRequest {
                skill_id: self.skill_id(),
                caller: caller.map(|c| &*c.label),
            };
            if !approval.approves(&req) {
                return Err(Rejection::admission(ErrorObject::new(
                    ErrorCode::AuthorizationFailed,
                    format!(
                        "skill {} has authority mode execute and the approval policy did not approve this request",
                        self.skill_id()
                    ),
                )));
            }
        }
        let mut arguments = args.clone();
        skillgate_core::instance::normalize_integral_floats(&mut arguments);
        Ok(Admission { arguments })
    }

    /// Pre-acceptance checks on the request Data Part, in the profile's order:
    /// `interface_mismatch`, then `resource_limit_exceeded` (max_input_bytes), then
    /// `input_invalid`. Returns the arguments.
    pub fn check_request<'a>(&self, request: &'a Value) -> Result<&'a Value, ErrorObject> {
        let version = request.get(names::SKILL_VERSION);
        let digest = request.get(names::INTERFACE_DIGEST);
        let version_ok = version.and_then(Value::as_str) == Some(self.skill_version());
        let digest_ok = digest.and_then(Value::as_str) == Some(self.digest.as_str());
        if !version_ok || !digest_ok {
            let what = match (version_ok, digest_ok) {
                (false, false) => "skill_version and interface_digest do",
                (false, true) => "skill_version does",
                _ => "interface_digest does",
            };
            return Err(ErrorObject::new(
                ErrorCode::InterfaceMismatch,
                format!(
                    "{what} not match the active interface of {} (skill_version {}, interface_digest {}); fetch it again with describe_skill",
                    self.skill_id(),
                    self.skill_version(),
                    self.digest
                ),
            ));
        }
        static NULL: Value = Value::Null;
        let args = request.get(names::ARGUMENTS).unwrap_or(&NULL);
        if let Some(limit) = self.max_input_bytes {
            let size = canonical_size(args);
            if size > limit {
                return Err(ErrorObject::new(
                    ErrorCode::ResourceLimitExceeded,
                    format!("arguments are {size} bytes in canonical form; {} accepts at most {limit} (max_input_bytes)", self.skill_id()),
                ));
            }
        }
        if let Err(details) = self.doc.input_validator().validate(args) {
            return Err(ErrorObject::new(
                ErrorCode::InputInvalid,
                format!(
                    "arguments do not conform to the input schema of {}",
                    self.skill_id()
                ),
            )
            .with_details(details));
        }
        Ok(args)
    }

    /// Post-execution checks: the output against `output_schema` and every record against the
    /// schema of its declared kind, with unique non-empty artifactIds.
    pub fn check_output(&self, out: &SkillOutput) -> Result<(), Rejection> {
        self.check_output_object(out).map_err(Rejection::processing)
    }

    fn check_output_object(&self, out: &SkillOutput) -> Result<(), ErrorObject> {
        if let Err(details) = self.doc.output_validator().validate(&out.output) {
            return Err(ErrorObject::new(
                ErrorCode::OutputInvalid,
                format!(
                    "the output of {} does not conform to its output schema",
                    self.skill_id()
                ),
            )
            .with_details(details));
        }
        let mut seen: HashSet<&str> = HashSet::with_capacity(out.records.len());
        for r in &out.records {
            let Some(validator) = self.doc.record_validator(&r.kind) else {
                return Err(ErrorObject::new(
                    ErrorCode::OutputInvalid,
                    format!(
                        "{} returned a record of undeclared kind {:?}",
                        self.skill_id(),
                        r.kind
                    ),
                ));
            };
            if r.artifact_id.is_empty()
                || r.artifact_id == RESULT_ARTIFACT_ID
                || !seen.insert(r.artifact_id.as_str())
            {
                return Err(ErrorObject::new(
                    ErrorCode::OutputInvalid,
                    format!(
                        "{} returned a {} record with an empty, reserved or repeated artifactId",
                        self.skill_id(),
                        r.kind
                    ),
                ));
            }
            if let Err(details) = validator.validate(&r.data) {
                return Err(ErrorObject::new(
                    ErrorCode::OutputInvalid,
                    format!(
                        "record {} (kind {}) of {} does not conform to its schema",
                        r.artifact_id,
                        r.kind,
                        self.skill_id()
                    ),
                )
                .with_details(details));
            }
        }
        Ok(())
    }
}

/// A one-detail `input_invalid` for describe_skill arguments, which have a fixed shape.
pub(crate) fn describe_args_invalid(message: &str) -> ErrorObject {
    ErrorObject::new(ErrorCode::InputInvalid, message).with_details(vec![ErrorDetail {
        instance_path: "/skill_id".into(),
        schema_path: Some("/required".into()),
        keyword: Some("required".into()),
        expected: Some("string".into()),
        actual: None,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(code: ErrorCode, phase: Phase) -> TaskState {
        Rejection {
            error: ErrorObject::new(code, "m"),
            phase,
        }
        .task_state()
    }

    #[test]
    fn task_state_follows_code_and_phase() {
        use Phase::{Admission, Processing};
        assert_eq!(
            state(ErrorCode::InputInvalid, Admission),
            TaskState::Rejected
        );
        assert_eq!(
            state(ErrorCode::AuthorizationFailed, Admission),
            TaskState::Rejected
        );
        assert_eq!(
            state(ErrorCode::ConstraintRejected, Processing),
            TaskState::Rejected
        );
        assert_eq!(
            state(ErrorCode::ResourceLimitExceeded, Admission),
            TaskState::Rejected
        );
        assert_eq!(
            state(ErrorCode::ResourceLimitExceeded, Processing),
            TaskState::Failed
        );
        assert_eq!(
            state(ErrorCode::InterfaceUnavailable, Admission),
            TaskState::Failed
        );
        assert_eq!(
            state(ErrorCode::OutputInvalid, Processing),
            TaskState::Failed
        );
        assert_eq!(
            state(ErrorCode::SkillNotAdvertised, Admission),
            TaskState::Failed
        );
    }
}

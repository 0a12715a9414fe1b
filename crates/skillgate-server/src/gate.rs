//! The schema gate of one skill: the checks the profile orders around domain logic, on
//! pre-compiled validators and a pre-computed digest (nothing is compiled or hashed per request).

use crate::skill::SkillOutput;
use serde_json::Value;
use skillgate_core::document::ValidatedDocument;
use skillgate_core::jcs::{write_canonical, Sink};
use skillgate_core::wire::{names, AuthorityMode, ErrorDetail, ErrorObject};
use skillgate_core::ErrorCode;
use std::collections::HashSet;
use std::time::Duration;

/// artifactId of the primary result artifact.
pub const RESULT_ARTIFACT_ID: &str = "result";

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
    pub fn check_output(&self, out: &SkillOutput) -> Result<(), ErrorObject> {
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

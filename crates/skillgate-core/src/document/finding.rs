//! What [`super::validate_document`] reports: one [`Finding`] per problem, each with a
//! machine-readable [`FindingKind`] so that a caller can act on a kind of problem without
//! reading the message (which is worded for a publisher and may change).

use std::fmt;

use crate::error_code::ErrorCode;

/// Which rule a document finding breaks. A caller matches on this, never on the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FindingKind {
    /// The document violates the trusted local Skill Interface Schema (`skill-interface-v1.json`).
    TrustedSchema,
    /// The built-in Skill Interface Schema could not be loaded: a build defect, not the
    /// document's fault, but the document cannot be judged.
    TrustedSchemaUnavailable,
    /// `interface_version` is not the one version this implementation supports.
    InterfaceVersion,
    /// A `skill_version` or a Schema Reference `version` is not `Major.Minor` without leading
    /// zeros.
    VersionSyntax,
    /// A supporting record kind does not match `^[a-z0-9][a-z0-9_.-]*$`.
    RecordKindSyntax,
    /// A supporting record kind equals the skill id, so a record could pass for the primary
    /// result.
    RecordKindIsSkillId,
    /// A Schema Reference's declared `digest` is a well-formed digest that does not match
    /// its embedded schema.
    EmbeddedDigestMismatch,
    /// A Schema Reference's declared `digest` is not a `sha256:` digest at all.
    MalformedDigest,
    /// An embedded schema is not a valid JSON Schema 2020-12 (meta-schema violation).
    NotJsonSchema,
    /// An embedded schema references something outside itself (nothing is ever fetched).
    ExternalReference,
    /// An embedded schema declares a `$schema` other than 2020-12.
    WrongDialect,
    /// An embedded schema passed the meta-schema but did not compile.
    SchemaCompile,
    /// The document describes another skill than the one expected.
    SkillIdMismatch,
    /// The document describes another skill version than the one expected.
    SkillVersionMismatch,
    /// The document hashes to another digest than the one expected.
    DigestMismatch,
    /// The document could not be read into (or, in the builder, assembled as) the typed
    /// form after its checks passed.
    Unreadable,
}

/// One problem found in a document, located by a JSON Pointer into it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// Always [`ErrorCode::InterfaceInvalid`] for document findings.
    pub code: ErrorCode,
    /// Which rule is broken. Not serialized: the JSON form of a finding is
    /// `{code, path, message}`, as it always was.
    #[serde(skip)]
    pub kind: FindingKind,
    /// JSON Pointer into the document (`""` for the whole document).
    pub path: String,
    /// What is wrong, in words a publisher can act on.
    pub message: String,
}

impl Finding {
    pub(super) fn new(
        kind: FindingKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            code: ErrorCode::InterfaceInvalid,
            kind,
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{} at {}: {}", self.code, path, self.message)
    }
}

/// A document that failed validation; holds every finding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct InterfaceError {
    /// All findings, in document order.
    pub findings: Vec<Finding>,
}

impl InterfaceError {
    /// Whether every finding is of `kind` (and there is at least one): a caller that treats
    /// one kind of problem apart (the client reports a document whose only problem is stale
    /// embedded-schema digests as its own step) asks this.
    pub fn only(&self, kind: FindingKind) -> bool {
        !self.findings.is_empty() && self.findings.iter().all(|f| f.kind == kind)
    }
}

impl fmt::Display for InterfaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid Skill Interface Document")?;
        for finding in &self.findings {
            write!(f, "; {finding}")?;
        }
        Ok(())
    }
}

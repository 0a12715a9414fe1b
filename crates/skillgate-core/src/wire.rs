//! Every wire name of the schema-interface profile, in one place.
//!
//! The draft is at revision -00; when a later revision renames a member, this is the only
//! file that changes. Business logic uses the Rust names below, never the string literals.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use std::fmt;
use std::str::FromStr;

use crate::digest::Digest;

/// URI of the A2A extension that advertises schema interfaces.
pub const EXTENSION_URI: &str =
    "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1";
/// The only Skill Interface Schema version this crate implements.
pub const INTERFACE_VERSION: &str = "1.0";
/// The only schema dialect allowed in a Schema Reference in interface version 1.0.
pub const DIALECT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";
/// The only `resolution.type` in interface version 1.0.
pub const RESOLUTION_INLINE: &str = "inline";
/// Skill id of the interface-retrieval skill.
pub const DESCRIBE_SKILL: &str = "describe_skill";
/// Artifact name of the describe_skill result.
pub const DESCRIBE_SKILL_ARTIFACT: &str = "describe_skill";
/// Pattern of a skill or schema version string.
pub const VERSION_PATTERN: &str = r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$";
/// Pattern of a record kind.
pub const RECORD_KIND_PATTERN: &str = r"^[a-z0-9][a-z0-9_.-]*$";
/// Pattern of a digest string.
pub const DIGEST_PATTERN: &str = r"^sha256:[0-9a-f]{64}$";
/// Media type of every Data Part this profile sends.
pub const MEDIA_TYPE_JSON: &str = "application/json";

/// Wire names of Skill Interface Document members (used for JSON Pointers in findings).
pub mod names {
    /// `interface_version`
    pub const INTERFACE_VERSION: &str = "interface_version";
    /// `skill_id`
    pub const SKILL_ID: &str = "skill_id";
    /// `skill_version`
    pub const SKILL_VERSION: &str = "skill_version";
    /// `input_schema`
    pub const INPUT_SCHEMA: &str = "input_schema";
    /// `output_schema`
    pub const OUTPUT_SCHEMA: &str = "output_schema";
    /// `supporting_record_schemas`
    pub const SUPPORTING_RECORD_SCHEMAS: &str = "supporting_record_schemas";
    /// `interaction`
    pub const INTERACTION: &str = "interaction";
    /// `authority`
    pub const AUTHORITY: &str = "authority";
    /// `constraints`
    pub const CONSTRAINTS: &str = "constraints";
    /// `schema_uri`
    pub const SCHEMA_URI: &str = "schema_uri";
    /// `version`
    pub const VERSION: &str = "version";
    /// `dialect`
    pub const DIALECT: &str = "dialect";
    /// `digest`
    pub const DIGEST: &str = "digest";
    /// `resolution`
    pub const RESOLUTION: &str = "resolution";
    /// `schema` (inside `resolution`)
    pub const SCHEMA: &str = "schema";
    /// `interface_digest`
    pub const INTERFACE_DIGEST: &str = "interface_digest";
    /// `skill_interface` (describe_skill response)
    pub const SKILL_INTERFACE: &str = "skill_interface";
    /// `skill` (request object)
    pub const SKILL: &str = "skill";
    /// `arguments` (request object)
    pub const ARGUMENTS: &str = "arguments";
    /// `skills` (extension params)
    pub const SKILLS: &str = "skills";
    /// `max_input_bytes` (constraints)
    pub const MAX_INPUT_BYTES: &str = "max_input_bytes";
    /// `max_duration_ms` (constraints)
    pub const MAX_DURATION_MS: &str = "max_duration_ms";
}

/// How a Schema Reference carries its schema; version 1.0 knows only inline content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resolution {
    /// Always `"inline"` in interface version 1.0.
    #[serde(rename = "type")]
    pub kind: String,
    /// The embedded JSON Schema (2020-12).
    pub schema: Value,
}

/// A portable schema identity plus its SHA-256 fingerprint and inline content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchemaReference {
    /// Stable identity of the schema; an absolute URI that is never fetched.
    pub schema_uri: String,
    /// Publisher-defined version (`Major.Minor`).
    pub version: String,
    /// Schema language; always the 2020-12 meta-schema URI in version 1.0.
    pub dialect: String,
    /// `digest(resolution.schema)`.
    pub digest: Digest,
    /// The schema content.
    pub resolution: Resolution,
}

/// A response mode a skill supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseMode {
    /// A blocking request returns the terminal task.
    Sync,
    /// Results stream as A2A events.
    Stream,
    /// The task is returned early and polled.
    Poll,
}

/// Interaction behaviour of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interaction {
    /// Non-empty, unique list of supported modes.
    pub response_modes: Vec<ResponseMode>,
    /// Whether a running invocation can be canceled.
    pub cancelable: bool,
}

/// The advertised default authority mode: descriptive, never a permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthorityMode {
    /// Reads and analyses only.
    ObserveOnly,
    /// May propose a change but does not apply it.
    RecommendOnly,
    /// May cause an operational side effect.
    Execute,
}

/// Authority posture of a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Authority {
    /// Default mode of the skill.
    pub default_mode: AuthorityMode,
    /// Whether approval may apply; never a statement that approval was granted.
    pub approval_may_be_required: bool,
}

/// Applicable constraints; unknown members are kept (and ignored) so digests stay exact.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Constraints {
    /// Upper bound on the canonical size of `arguments`, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_input_bytes: Option<u64>,
    /// Upper bound on execution time, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_duration_ms: Option<u64>,
    /// Members this profile does not define.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

/// A Skill Interface Document: one version of one skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillInterfaceDocument {
    /// Always `"1.0"`.
    pub interface_version: String,
    /// The skill this document describes.
    pub skill_id: String,
    /// The skill's version (`Major.Minor`).
    pub skill_version: String,
    /// Schema of `arguments`.
    pub input_schema: SchemaReference,
    /// Schema of the primary result.
    pub output_schema: SchemaReference,
    /// Record kind -> schema of that supporting record.
    pub supporting_record_schemas: BTreeMap<String, SchemaReference>,
    /// Interaction behaviour.
    pub interaction: Interaction,
    /// Authority posture.
    pub authority: Authority,
    /// Constraints.
    pub constraints: Constraints,
}

/// One `params.skills[]` entry of the extension advertisement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdvertisedSkill {
    /// The skill id (also present in the card's `skills[]`).
    pub skill_id: String,
    /// The one advertised version.
    pub skill_version: String,
    /// Digest of the skill's interface document.
    pub interface_digest: Digest,
}

/// `params` of the schema-interface extension in an Agent Card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtensionParams {
    /// Always `"1.0"`.
    pub interface_version: String,
    /// One binding per domain skill.
    pub skills: Vec<AdvertisedSkill>,
}

/// `arguments` of a describe_skill request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DescribeSkillArguments {
    /// The skill whose interface is wanted.
    pub skill_id: String,
}

/// Data of the single Data Part of a describe_skill result artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DescribeSkillResponse {
    /// Digest of `skill_interface`.
    pub interface_digest: Digest,
    /// The document, kept as a raw value so the receiver hashes exactly what was sent.
    pub skill_interface: Value,
}

/// The request object carried by the single Data Part of a schema-governed message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillRequest {
    /// The skill to run (`describe_skill` or a domain skill).
    pub skill: String,
    /// Selected skill version (domain requests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_version: Option<String>,
    /// Selected interface digest (domain requests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface_digest: Option<String>,
    /// The complete domain input.
    #[serde(default)]
    pub arguments: Value,
}

/// One diagnostic entry of `input_invalid` / `output_invalid`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail {
    /// JSON Pointer to the offending member of the instance.
    pub instance_path: String,
    /// JSON Pointer to the failing keyword in the schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_path: Option<String>,
    /// The failing keyword.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    /// What the schema expects (never derived from the instance value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The JSON type found; never the value itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
}

/// The machine-readable error object carried in a failed task's final status message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// One of the ten codes.
    pub code: ErrorCode,
    /// Human-readable explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Only for `input_invalid` and `output_invalid`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<ErrorDetail>,
}

impl ErrorObject {
    /// An error object with a message and no details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: Some(message.into()),
            details: Vec::new(),
        }
    }

    /// Attaches diagnostic details.
    pub fn with_details(mut self, details: Vec<ErrorDetail>) -> Self {
        self.details = details;
        self
    }

    /// Reads the error object from the single Data Part of a failed task's status message
    /// (`data`, as found by `skillgate_a2a::single_data`), checking the draft's shape member
    /// by member so a reader can say which rule is broken; details stay raw JSON.
    pub fn shape_of(data: &Value) -> Result<ErrorShape<'_>, ErrorObjectError> {
        let obj = data.as_object().ok_or(ErrorObjectError::NotAnObject)?;
        let code = obj
            .get("code")
            .and_then(Value::as_str)
            .ok_or(ErrorObjectError::NoCode)?;
        let code = code
            .parse::<ErrorCode>()
            .map_err(|e| ErrorObjectError::UnknownCode(e.0))?;
        let message = match obj.get("message") {
            None => None,
            Some(Value::String(m)) => Some(m.as_str()),
            Some(_) => return Err(ErrorObjectError::MessageNotAString),
        };
        let details = match obj.get("details") {
            None => &[][..],
            Some(Value::Array(d)) => d.as_slice(),
            Some(_) => return Err(ErrorObjectError::DetailsNotAnArray),
        };
        Ok(ErrorShape {
            code,
            message,
            details,
        })
    }

    /// [`ErrorObject::shape_of`], then every detail read as an [`ErrorDetail`].
    pub fn from_status_data(data: &Value) -> Result<Self, ErrorObjectError> {
        let shape = Self::shape_of(data)?;
        let details = shape
            .details
            .iter()
            .map(|d| serde_json::from_value(d.clone()))
            .collect::<Result<_, _>>()
            .map_err(|e| ErrorObjectError::BadDetail(e.to_string()))?;
        Ok(Self {
            code: shape.code,
            message: shape.message.map(str::to_owned),
            details,
        })
    }
}

/// An error object whose members have the right types; details are not yet interpreted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorShape<'a> {
    /// One of the ten codes.
    pub code: ErrorCode,
    /// The message, when present.
    pub message: Option<&'a str>,
    /// The raw `details` entries (empty when absent).
    pub details: &'a [Value],
}

/// Why a status Data Part is not the draft's error object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorObjectError {
    /// The data is not a JSON object.
    #[error("the error Data Part is not an object")]
    NotAnObject,
    /// `code` is absent or not a string.
    #[error("the error object has no string `code`")]
    NoCode,
    /// `code` is a string but not one of the ten.
    #[error("{0:?} is not one of the ten error codes")]
    UnknownCode(String),
    /// `message` is present and not a string.
    #[error("`message` is not a string")]
    MessageNotAString,
    /// `details` is present and not an array.
    #[error("`details` is not an array")]
    DetailsNotAnArray,
    /// A `details` entry is not an error detail object.
    #[error("a detail is malformed: {0}")]
    BadDetail(String),
}

/// A draft error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The Agent Card does not advertise the selected skill (client-local, nothing sent).
    SkillNotAdvertised,
    /// An advertised interface cannot currently be returned.
    InterfaceUnavailable,
    /// The Skill Interface Document or an embedded schema is defective.
    InterfaceInvalid,
    /// The request's skill version or interface digest is not the active one.
    InterfaceMismatch,
    /// The arguments fail the input schema.
    InputInvalid,
    /// Valid input that the skill will not accept.
    ConstraintRejected,
    /// The caller is not authenticated or not authorized.
    AuthorizationFailed,
    /// A declared constraint or a server limit was exceeded.
    ResourceLimitExceeded,
    /// The output or a supporting record fails its schema.
    OutputInvalid,
    /// Accepted work that could not finish.
    ExecutionFailed,
}

impl ErrorCode {
    /// All ten codes, in the draft's order.
    pub const ALL: [ErrorCode; 10] = [
        ErrorCode::SkillNotAdvertised,
        ErrorCode::InterfaceUnavailable,
        ErrorCode::InterfaceInvalid,
        ErrorCode::InterfaceMismatch,
        ErrorCode::InputInvalid,
        ErrorCode::ConstraintRejected,
        ErrorCode::AuthorizationFailed,
        ErrorCode::ResourceLimitExceeded,
        ErrorCode::OutputInvalid,
        ErrorCode::ExecutionFailed,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::SkillNotAdvertised => "skill_not_advertised",
            ErrorCode::InterfaceUnavailable => "interface_unavailable",
            ErrorCode::InterfaceInvalid => "interface_invalid",
            ErrorCode::InterfaceMismatch => "interface_mismatch",
            ErrorCode::InputInvalid => "input_invalid",
            ErrorCode::ConstraintRejected => "constraint_rejected",
            ErrorCode::AuthorizationFailed => "authorization_failed",
            ErrorCode::ResourceLimitExceeded => "resource_limit_exceeded",
            ErrorCode::OutputInvalid => "output_invalid",
            ErrorCode::ExecutionFailed => "execution_failed",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The string is not one of the ten codes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown error code {0:?}")]
pub struct UnknownErrorCode(pub String);

impl FromStr for ErrorCode {
    type Err = UnknownErrorCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorCode::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownErrorCode(s.to_owned()))
    }
}

//! Core of skillgate: RFC 8785 canonical JSON, `sha256:` digests, Schema References and Skill
//! Interface Documents (draft-huang-ainetops-agent-schema-interfaces-00), their validation,
//! instance validation with draft-style error details, and direct-composition checks.

#![warn(missing_docs)]

pub mod digest;
pub mod error_code;
pub mod jcs;
pub mod wire;

pub use digest::{digest, Digest, DigestParseError};
pub use error_code::{ErrorCode, TerminalState};
pub use jcs::{canonicalize, JcsError, JcsErrorKind};

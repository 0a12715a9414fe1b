//! Core of skillgate: RFC 8785 canonical JSON, `sha256:` digests, Schema References and Skill
//! Interface Documents (draft-huang-ainetops-agent-schema-interfaces-00), their validation,
//! instance validation with draft-style error details, and direct-composition checks.
//!
//! Digest a value (whitespace and member order never change it):
//! ```
//! let a: serde_json::Value = serde_json::from_str(r#"{"b":1, "a":[true]}"#).unwrap();
//! let b: serde_json::Value = serde_json::from_str(r#"{ "a": [true], "b": 1.0 }"#).unwrap();
//! assert_eq!(skillgate_core::digest(&a), skillgate_core::digest(&b));
//! assert!(skillgate_core::digest(&a).to_string().starts_with("sha256:"));
//! ```
//!
//! Assemble a document, then check an instance against its compiled input schema:
//! ```
//! use serde_json::json;
//! use skillgate_core::document::InterfaceBuilder;
//! let doc = InterfaceBuilder::new("ping", "1.0")
//!     .input("urn:example:ping:in", "1.0", json!({"type": "object", "required": ["host"]}))
//!     .output("urn:example:ping:out", "1.0", json!({"type": "object"}))
//!     .build()
//!     .unwrap();
//! assert!(doc.input_validator().is_valid(&json!({"host": "h1"})));
//! let details = doc.input_validator().validate(&json!({})).unwrap_err();
//! assert_eq!(details[0].instance_path, "/host");
//! println!("{}", doc.interface_digest());
//! ```
//!
//! Decide direct composition:
//! ```
//! use serde_json::json;
//! use skillgate_core::{compose::direct_composition, document::schema_reference};
//! let out = schema_reference("urn:example:m", "1.0", json!({"type": "object"}));
//! let inp = schema_reference("urn:example:m", "1.1", json!({"type": "object"}));
//! let err = direct_composition(&out, &inp).unwrap_err();
//! assert_eq!(err.field.as_str(), "version");
//! ```

pub mod advertisement;
pub mod compose;
pub mod describe;
pub mod digest;
pub mod document;
pub mod error_code;
pub mod fields;
pub mod instance;
pub mod jcs;
mod jcs_text;
mod jcs_typed;
pub mod refs;
pub mod version;
pub mod wire;

pub use digest::{digest, digest_text, Digest, DigestParseError};
pub use error_code::{ErrorCode, TerminalState};
pub use jcs::{canonicalize, JcsError, JcsErrorKind};
pub use version::{Version, VersionError};

//! Breaking-change detection between two versions of one skill's Skill Interface Document
//! (draft-huang-ainetops-agent-schema-interfaces-00 pins a version with a digest; this crate
//! says whether the new version breaks anyone and which `Major.Minor` bump that takes).
//!
//! Input compatibility is "every value OLD accepts, NEW accepts"; output and record
//! compatibility is the reverse. The structural walk names each change and its rule; the
//! schema algebra of `jsonschema` proves containment where it can. Where neither decides, a
//! change is possibly breaking, never compatible (docs/interface-diff.md, docs/design.md
//! D210-D219).
//!
//! ```
//! use serde_json::json;
//! use skillgate_core::document::InterfaceBuilder;
//! use skillgate_evolve::{diff, Bump};
//! let doc = |v: &str, input| InterfaceBuilder::new("ping", v)
//!     .input("urn:example:ping:in", "1.0", input)
//!     .output("urn:example:ping:out", "1.0", json!({"type": "object"}))
//!     .build()
//!     .unwrap();
//! let old = doc("1.0", json!({"type": "object", "properties": {"host": {"type": "string"}}}));
//! let new = doc("1.1", json!({"type": "object", "required": ["host"],
//!                             "properties": {"host": {"type": "string"}}}));
//! let report = diff(&old, &new);
//! assert_eq!(report.required, Bump::Major);
//! assert!(!report.carried);
//! assert!(report.findings.iter().any(|f| f.rule == "EVO-SCHEMA-011"));
//! assert!(report
//!     .verdict()
//!     .starts_with("breaking for callers (EVO-SCHEMA-011 at /input_schema/"));
//! ```

pub mod algebra;
mod card;
mod document;
mod finding;
mod keywords;
pub mod output;
mod pointer;
pub mod rules;
mod schema;
mod walk;

pub use algebra::Decision;
pub use card::{diff_cards, CardReport, SkillChange, SkillEntry};
pub use document::{carries, diff, diff_values, DiffError, Report};
pub use finding::{Bump, Class, Effect, Finding, Side};
pub use schema::{compare_schema, compare_schema_structural, inclusion, Inclusion, SchemaDiff};

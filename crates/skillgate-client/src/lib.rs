//! The validated skillgate client: the draft's eleven-step client sequence
//! (draft-huang-ainetops-agent-schema-interfaces-00) over A2A 1.0, an interface cache bound to
//! the current Agent Card, single calls and chains.
//!
//! The gate rule is absolute: nothing is delegated unless the target's `describe_skill` returned
//! a document whose digest matches the card three ways, that validates against the trusted
//! local Skill Interface Schema, whose embedded schemas match their digests, and the input
//! validates against its `input_schema`. Each step is a function of its own, tested on its own;
//! [`Client`] runs them in order (`resolve`: steps 1 to 6, `invoke`: 7 to 11) and reports each
//! to an [`Observer`] as it passes. Errors say where they happened ([`Where::Local`] or [`Where::Remote`])
//! and at which [`Step`]; a local error is never reported as the state of a remote task.
//!
//! ```no_run
//! # async fn run() -> Result<(), skillgate_client::ClientError> {
//! use skillgate_client::{Client, ClientConfig, Mode};
//! let client = Client::new(ClientConfig::default())?;
//! let args = serde_json::json!({"interface": "lo"});
//! let mut show = |step: skillgate_client::Step, summary: &str| println!("✓ {} {summary}", step.number());
//! let result = client
//!     .call("http://127.0.0.1:8080", "collect_interface_counters", &args, Mode::Sync, &mut show)
//!     .await?;
//! println!("{}", result.output);
//! # Ok(()) }
//! ```

// The public API is the set of `pub use` below, each item by one path; everything else is
// crate-private, and this lint says so if a `pub` slips in that nothing exports.
#![warn(unreachable_pub)]

mod a2a;
mod audit;
mod cache;
mod chain;
mod client;
mod error;
mod http;
mod ops;
mod output;
mod steps;
mod suggest;

// Running the draft's client sequence.
pub use a2a::Mode;
pub use cache::CacheHit;
pub use client::{Client, InterfaceSource, Observer, Resolved};
pub use http::{default_cache_dir, ClientConfig, EventSink};
pub use skillgate_transport::Binding;
pub use steps::{Record, Selection, SkillResult, Target};
// Failures, and what they look like as JSON.
pub use a2a::BEARER_HINT;
pub use error::{ClientError, Step, Where};
pub use output::{
    CallOutput, ChainFields, ChainOutput, ChainStatus, ChainStepOutput, DescribeOutput,
    FailureOutput, Outcome, StepRef,
};
pub use steps::bounded_text;
// Chains.
pub use chain::{
    run_chain, ChainEvent, ChainFailure, ChainReport, ChainStepResult, Correlation, Plan,
    PlanError, PlanStep, TaskRef,
};
// `card lint --deep`.
pub use audit::{audit_card, AuditFinding, AuditKind, AuditedSkill};
// Plain A2A outside the eleven steps: the card's skills, task operations, plain messages, and
// the connection and HTTP client underneath (the gateway forwards through them).
pub use a2a::{A2aConn, Answer};
pub use http::Http;
pub use ops::{skills, Content, SkillSummary};
pub use steps::card_url;

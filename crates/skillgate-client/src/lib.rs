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
//! # Calling a governed skill
//!
//! A call resolves the skill (steps 1 to 6, the interface checked three ways) before it sends
//! anything; bad input is refused locally, at step 7, and never reaches the agent.
//!
//! ```
//! use skillgate_client::{Client, ClientConfig, Mode, Step, Where};
//! use skillgate_core::ErrorCode;
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! # let agent = skillgate_netops::agent().build()?;
//! # let agent = skillgate_testkit::server::TestServer::start(agent, Default::default()).await;
//! # let url = agent.base.as_str();
//! // `url` is a running agent's base URL, e.g. "http://127.0.0.1:7420" for `skillgate serve`.
//! let client = Client::new(ClientConfig::default())?;
//! let mut show = |step: Step, summary: &str| println!("✓ {} {summary}", step.number());
//!
//! let args = serde_json::json!({"interface": "lo"});
//! let done = client
//!     .call(url, "collect_interface_counters", &args, Mode::Sync, &mut show)
//!     .await?;
//! assert_eq!(done.output["interface"], "lo");
//!
//! let wrong = serde_json::json!({"interface": 7});
//! let refused = client
//!     .call(url, "collect_interface_counters", &wrong, Mode::Sync, &mut show)
//!     .await
//!     .unwrap_err();
//! assert_eq!(refused.step(), Some(Step::ValidateInput));
//! assert_eq!(refused.code(), Some(ErrorCode::InputInvalid));
//! assert_eq!(refused.where_(), Where::Local);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The public API is the set of `pub use` below, each item by one path; everything else is
// crate-private, and this lint says so if a `pub` slips in that nothing exports.
#![warn(unreachable_pub)]

mod a2a;
mod audit;
mod cache;
mod cancel;
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
    FailureOutput, Outcome, StepRef, UpdateOutput,
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
// In-process bindings (an MCP listener inside the agent): the request message of step 8 and
// steps 9 to 11 over a task the service handed back directly.
pub use steps::{governed_message, task_result};

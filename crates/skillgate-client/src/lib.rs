//! The validated skillgate client: the draft's eleven-step client sequence
//! (draft-huang-ainetops-agent-schema-interfaces-00) over A2A 1.0, an interface cache bound to
//! the current Agent Card, single calls and chains.
//!
//! The gate rule is absolute: nothing is delegated unless the target's `describe_skill` returned
//! a document whose digest matches the card three ways, that validates against the trusted
//! local Skill Interface Schema, whose embedded schemas match their digests, and the input
//! validates against its `input_schema`. Each step is a public function in [`steps`]; [`Client`]
//! runs them in order. Errors say where they happened ([`Where::Local`] or [`Where::Remote`])
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


pub mod a2a;
pub mod audit;
pub mod cache;
pub mod chain;
pub mod client;
pub mod error;
pub mod http;
pub mod ops;
pub mod output;
pub mod steps;
pub mod suggest;

pub use a2a::{Binding, Mode};
pub use audit::{audit_card, AuditFinding, AuditKind, AuditedSkill};
pub use cache::{Cache, CacheHit, CacheKey, CacheWriteError};
pub use chain::{run_chain, ChainEvent, ChainFailure, ChainReport, Plan, PlanError};
pub use client::{Client, InterfaceSource, Observer, Resolved};
pub use error::{ClientError, Step, Where};
pub use http::{default_cache_dir, ClientConfig, EventSink};
pub use ops::{skills, Content, SkillSummary};
pub use steps::{Record, SkillResult};

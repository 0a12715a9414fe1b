//! skillgate-runtime: the agent runtime that hosts schema-governed skills, with no wire.
//!
//! A skill is a Rust async function plus its input, output and supporting-record JSON Schemas.
//! At start-up [`AgentBuilder::build`] assembles and validates every Skill Interface Document
//! with the core builder (refusing to start on any finding); the runtime then advertises the
//! skills in a generated Agent Card, answers `describe_skill`, and gates every domain request
//! in the profile's order: `interface_mismatch`, `resource_limit_exceeded`, `input_invalid`,
//! `authorization_failed`, domain logic, then output and record validation.
//!
//! [`A2aService`] has one method per A2A operation and knows no wire format: the bindings
//! (skillgate-server's JSON-RPC and HTTP+JSON, skillgate-grpc) are thin adapters that decode a
//! request, run the checks every binding shares ([`checks`], [`auth`]) and call it. An
//! [`AgentSwap`] holds the service and the served Agent Card, so a reload replaces both for
//! every binding at once.
//!
//! ```
//! use serde_json::json;
//! use skillgate_runtime::{
//!     Agent, AgentSwap, Caller, RequestContext, ServerConfig, Skill, SkillContext, SkillError,
//!     SkillOutput,
//! };
//!
//! let echo = Skill::builder("echo_interface", "1.0")
//!     .description("Returns the interface name it was given")
//!     .input_schema("urn:example:echo:input", "1.0", json!({
//!         "$schema": "https://json-schema.org/draft/2020-12/schema",
//!         "type": "object", "required": ["resource_id"],
//!         "properties": {"resource_id": {"type": "string"}}}))
//!     .output_schema("urn:example:echo:output", "1.0", json!({
//!         "$schema": "https://json-schema.org/draft/2020-12/schema",
//!         "type": "object", "required": ["resource_id"]}))
//!     .handler(|args: serde_json::Value, _ctx: SkillContext| async move {
//!         if args["resource_id"] == "eth9" {
//!             return Err(SkillError::constraint_rejected("no such interface"));
//!         }
//!         Ok(SkillOutput::new(json!({"resource_id": args["resource_id"]})))
//!     })
//!     .build();
//! // Assembles and validates the Skill Interface Document; an invalid one is a StartupError.
//! let agent = Agent::builder("echo agent", "An example", "0.1.0").skill(echo).build().unwrap();
//! let swap = AgentSwap::new(
//!     agent,
//!     &ServerConfig::default(),
//!     "http://127.0.0.1:7420",
//!     skillgate_runtime::metrics::Metrics::disabled(),
//! );
//! // The card every binding serves: describe_skill plus the one domain skill.
//! let card: serde_json::Value = serde_json::from_slice(&swap.card().bytes).unwrap();
//! assert_eq!(card["skills"].as_array().unwrap().len(), 2);
//! // The service answers without any wire: a binding would decode this from its request.
//! let ctx = RequestContext { caller: None::<Caller>, ..RequestContext::default() };
//! let extended = swap.extended_card(&ctx);
//! assert!(extended.is_err()); // no extended card is declared
//! ```

pub mod agent;
pub mod auth;
pub mod checks;
pub mod config;
pub mod gate;
pub mod metrics;
pub mod push;
pub mod service;
pub mod skill;
mod swap;
mod task;
mod time;

pub use agent::{Agent, AgentBuilder, PlainContext, PlainReply, PlainStep, StartupError};
pub use auth::{
    authenticate, AuthRefusal, Caller, TokenEntry, TokenFileError, TokenTable, BEARER_SCHEME_NAME,
    MIN_TOKEN_BYTES,
};
pub use config::{
    check_public_url, ApprovalPolicy, ApprovalRequest, PublicUrlError, PublicUrlProblem,
    ServerConfig,
};
pub use gate::SkillGate;
pub use push::PushPolicy;
pub use service::{A2aService, EventStream, PushConfigs, RequestContext, ServiceError};
pub use skill::{Skill, SkillBuilder, SkillContext, SkillError, SkillOutput, SupportingRecord};
pub use skillgate_a2a as a2a;
/// The task stores (memory, SQLite, PostgreSQL) and their trait, for embedding applications.
pub use skillgate_store as store_api;
pub use swap::{AgentSource, AgentSwap, Reloader, ServedCard};

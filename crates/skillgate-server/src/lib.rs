//! skillgate-server: an A2A 1.0 agent runtime that hosts schema-governed skills.
//!
//! A skill is a Rust async function plus its input, output and supporting-record JSON Schemas.
//! At start-up [`AgentBuilder::build`] assembles and validates every Skill Interface Document
//! with the core builder (refusing to start on any finding); the runtime then advertises the
//! skills in a generated Agent Card, answers `describe_skill`, and gates every domain request
//! in the profile's order: `interface_mismatch`, `resource_limit_exceeded`, `input_invalid`,
//! `authorization_failed`, domain logic, then output and record validation.
//!
//! Both A2A bindings are served from one [`A2aService`]: JSON-RPC 2.0 at `/` and HTTP+JSON at
//! `/message:send`, `/tasks/{id}`, ... with server-sent event streaming.
//!
//! ```
//! use serde_json::json;
//! use skillgate_server::{Agent, ServerConfig, Skill, SkillContext, SkillError, SkillOutput};
//!
//! let echo = Skill::builder("echo_interface", "1.0")
//!     .description("Returns the interface name it was given")
//!     .tags(["example"])
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
//! let card = agent.card("http://127.0.0.1:7420", false);
//! assert_eq!(card.skills.len(), 2); // describe_skill + echo_interface
//! // Serve it: `skillgate_server::serve(agent, listener, ServerConfig::default(), shutdown).await`,
//! // or embed `skillgate_server::router(agent, ServerConfig::default(), base_url)` in axum.
//! let _app = skillgate_server::router(agent, ServerConfig::default(), "http://127.0.0.1:7420".into());
//! ```

#![warn(missing_docs)]

pub mod agent;
pub mod binding;
pub mod config;
pub mod console;
pub mod gate;
mod http;
mod metrics;
pub mod push;
pub mod service;
pub mod skill;
mod store;
mod time;

pub use agent::{Agent, AgentBuilder, PlainContext, PlainReply, PlainStep, StartupError};
pub use config::{
    check_public_url, ApprovalPolicy, ApprovalRequest, ServerConfig, TokenEntry, TokenFileError,
    TokenTable, MIN_TOKEN_BYTES,
};
pub use gate::SkillGate;
pub use http::{
    router, router_with_swap, serve, serve_app, serve_swappable, AgentSwap, OriginGuard,
    BEARER_SCHEME_NAME,
};
pub use push::PushPolicy;
pub use service::{A2aService, Caller, EventStream, RequestContext, ServiceError};
pub use skill::{Skill, SkillBuilder, SkillContext, SkillError, SkillOutput, SupportingRecord};
pub use skillgate_a2a as a2a;
/// The task stores (memory, SQLite, PostgreSQL) and their trait, for embedding applications.
pub use skillgate_store as store_api;

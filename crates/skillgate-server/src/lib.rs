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

#![warn(missing_docs)]

pub mod agent;
pub mod config;
pub mod gate;
mod http;
pub mod service;
pub mod skill;
mod store;
mod time;

pub use agent::{Agent, AgentBuilder, PlainContext, PlainReply, StartupError};
pub use config::{
    ApprovalPolicy, ApprovalRequest, ServerConfig, TaskStoreConfig, TokenEntry, TokenFileError,
    TokenTable,
};
pub use gate::SkillGate;
pub use http::{router, serve, BEARER_SCHEME_NAME};
pub use service::{A2aService, Caller, EventStream, RequestContext, ServiceError};
pub use skill::{Skill, SkillBuilder, SkillContext, SkillError, SkillOutput, SupportingRecord};
pub use skillgate_a2a as a2a;

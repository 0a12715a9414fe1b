//! Any governed A2A agent as an MCP server: each schema-governed skill whose interface checks
//! out (the client's steps 1 to 6, the three-way digest included) becomes one MCP tool, and a
//! `tools/call` runs the client's steps 7 to 11.
//!
//! This crate is a thin adapter over [`skillgate_client::Client`]: it holds no draft rule of
//! its own. What it adds is the mapping between the two vocabularies (see [`tool_for`] and
//! [`call_result`]) and the two MCP transports of the official Rust SDK (`rmcp`): stdio for
//! desktop hosts ([`serve_stdio`]) and Streamable HTTP on a listener ([`serve_http`]).
//!
//! | MCP | from |
//! |---|---|
//! | tool `name` | the skill id |
//! | `title`, `description` | the card's skill `name` and `description` |
//! | `inputSchema`, `outputSchema` | the document's embedded input and output schemas, whole (local `$ref`s resolve inside them) |
//! | `annotations.readOnlyHint` | `true` when `authority.default_mode` is `observe_only` or `recommend_only` |
//! | tool `_meta` | `skillgate/skill_version`, `skillgate/interface_digest`, the schema identities, the authority posture |
//! | `structuredContent` | the validated output (step 10) |
//! | result `_meta` | the task id and state, the supporting records (validated) |
//! | `isError: true` | any client failure: the draft code, every detail, the step |
//!
//! An agent can also serve its own skills as MCP tools, with no A2A hop: [`AgentTools`] is a
//! binding over the runtime's service (`skillgate serve --mcp-listen`, [`agent_router`]),
//! with the same mapping ([`tool_from`], [`call_result`], [`failure_result`]).
//!
//! The other direction (an MCP server's tools as governed skills: `skillgate interface
//! from-mcp` and a gateway's MCP upstream) uses the SDK's client: [`McpUpstream`] holds the
//! session, [`document_for`] makes a tool's document, [`check_tool`] tells drift, and
//! [`outcome`] reads a tool result as an output.

// The public API is the set of `pub use` below; everything else is crate-private.
#![warn(unreachable_pub)]

mod error;
mod import;
mod local;
mod progress;
mod result;
mod serve;
mod server;
mod tool;
mod upstream;

pub use error::McpError;
pub use import::{
    check_tool, document_for, fallback_output_schema, import_server, outcome, output_schema_of,
    Drift, ImportError, ImportOptions, Imported, ToolOutcome,
};
pub use local::AgentTools;
pub use result::{call_result, failure_result, META_PREFIX};
/// The SDK's tool and tool-result types, as [`McpUpstream`] returns them.
pub use rmcp::model::{CallToolResult, JsonObject, Tool};
pub use serve::{agent_router, bind_loopback, serve_http, serve_stdio, HttpServer};
pub use server::{SkillServer, PROTOCOL_VERSIONS};
pub use tool::{tool_for, tool_from, Unlistable};
pub use upstream::{Bounds, Credentials, McpEndpoint, McpUpstream, SharedUpstream, UpstreamError};

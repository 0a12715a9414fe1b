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

// The public API is the set of `pub use` below; everything else is crate-private.
#![warn(unreachable_pub)]

mod error;
mod result;
mod serve;
mod server;
mod tool;

pub use error::McpError;
pub use result::{call_result, failure_result, META_PREFIX};
pub use serve::{serve_http, serve_stdio, HttpServer};
pub use server::{SkillServer, PROTOCOL_VERSIONS};
pub use tool::{tool_for, Unlistable};

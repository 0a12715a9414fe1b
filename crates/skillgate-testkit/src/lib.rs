//! Test-only helpers shared by the workspace's integration tests (a dev-dependency only, never
//! published):
//!
//! - [`fake`]: one configurable fake A2A 1.0 agent, a real axum server on 127.0.0.1:0 that gets
//!   the schema-interface contract wrong in exactly the way a test asks for;
//! - [`server`]: the real `skillgate-server` runtime on an ephemeral loopback port, with an
//!   HTTP client that speaks its bindings;
//! - [`plain`]: a plain A2A agent (no extension) for the gateway to front;
//! - [`cli`]: runs a built binary (the `skillgate` CLI) and captures stdout, stderr and exit code;
//! - [`mcp_tools`]: a real MCP server (rmcp) whose tools count their calls, can drift and
//!   can answer badly, for MCP tools as governed skills;
//! - [`browser`]: headless chromium over chromedriver, for the consoles' browser tests;
//! - [`poll`]: waiting for an observable state with a deadline instead of sleeping;
//! - [`requests`]: skill requests and SendMessage params, shared by every binding's tests;
//! - [`rawhttp`]: HTTP/1.1 by hand over a kept-alive TCP connection, for tests that must
//!   control (or count) the connections a server sees.

// Test-only crate: every helper panics on a broken precondition, and a failure is the point.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod browser;
pub mod cli;
pub mod fake;
pub mod mcp_tools;
pub mod plain;
pub mod poll;
pub mod rawhttp;
pub mod requests;
pub mod server;

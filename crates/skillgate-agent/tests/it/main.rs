//! skillgate-agent's integration tests, linked as one binary: declarative agents built from
//! real files (configs, documents, Python and shell scripts) served by the real runtime on
//! 127.0.0.1:0 and driven over JSON-RPC.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

mod common;
mod containment;
mod exec;
mod http;

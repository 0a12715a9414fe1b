//! The CLI's integration tests, linked as one binary: the built `skillgate` binary run as a
//! process on real files, stdin, real agents on 127.0.0.1 (the misbehaving fake, the real
//! runtime) and as a server itself.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

mod architecture;
mod authoring;
mod card_lint;
mod cli_docs;
mod client_cli;
mod commands;
mod conformance_cli;
mod contract;
mod core_cli;
mod credential_origins;
mod declarative;
mod doc_links;
mod evolve_cli;
mod from_mcp;
mod gateway;
mod inspect_cli;
mod logs;
mod mcp;
mod mcp_listen;
mod messages;
mod net_flags;
mod pipes;
mod secrets;
mod serve;
mod signing;
mod store;
mod store_fault;
mod v03_client;
mod v03_operations;

use skillgate_testkit::cli::Bin;

/// The `skillgate` binary Cargo built for these tests.
fn skillgate() -> Bin {
    Bin::new(env!("CARGO_BIN_EXE_skillgate"))
}

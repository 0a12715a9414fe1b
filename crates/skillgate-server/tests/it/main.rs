//! The server's integration tests, linked as one binary: each module starts real servers on
//! ephemeral loopback ports and talks to them with a real HTTP client.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

mod artifact_update;
mod common;
mod connections;
#[cfg(feature = "console")]
mod console;
mod extended_card;
mod hardening;
mod hostile_bodies;
mod jsonrpc;
mod launch;
mod metrics;
#[cfg(not(feature = "console"))]
mod no_console;
mod plain_tasks;
mod push;
mod push03;
mod refusals03;
mod rest03;
mod rest_card_auth;
mod store_bounds;
mod streaming;
mod tck_schema;
mod typed_read;
mod v03;
mod writes;

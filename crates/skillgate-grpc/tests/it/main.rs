//! The gRPC binding's integration tests, linked as one binary: each test starts the real HTTP
//! server and the real gRPC server over one service on ephemeral loopback ports, and talks to
//! them with a real tonic client (and a real HTTP client for the JSON-RPC side).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

mod common;
mod errors;
mod limits;
mod methods;
mod numbers;
mod v03;

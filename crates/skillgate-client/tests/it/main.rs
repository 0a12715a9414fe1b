//! The client's integration tests, linked as one binary: the 11-step sequence against the
//! misbehaving fake agent, against the real runtime, and over HTTPS with a test CA.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

mod chains;
mod describe_answers;
mod following;
mod misbehaving;
mod runtime;
mod tls;

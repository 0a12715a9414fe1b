//! The conformance checker's integration tests, linked as one binary: against deliberately
//! broken fake agents and against the real netops agent on the real runtime.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

mod broken_agents;
mod describe_answers;
mod netops;

//! The linter's integration tests, linked as one binary: the fixture corpus, the rendered rule
//! catalogue, AgentVault's observed behaviour and robustness against hostile input. Fixtures
//! are found through `CARGO_MANIFEST_DIR` (`tests/fixtures`, `tests/data`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

mod agentvault_observed;
mod catalogue;
mod corpus;
mod robustness;

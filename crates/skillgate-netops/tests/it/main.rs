//! netops' integration tests, linked as one binary: the domain logic over fixture and scratch
//! hosts, the documents, the handlers through the service, and the agent over real HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

mod domain;
mod handlers;
mod http;
mod interfaces;

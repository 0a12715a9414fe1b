//! netops' integration tests, linked as one binary: the domain logic over fixture and scratch
//! hosts, the documents, the handlers through the service, and the agent over real HTTP.

mod domain;
mod handlers;
mod http;
mod interfaces;

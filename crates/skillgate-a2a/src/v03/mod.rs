//! A2A 0.3 at the edges: wire types and their translation to and from the 1.0 model, which
//! stays the only model inside skillgate (`docs/a2a-0.3.md` 3.1). A request in the 0.3
//! JSON-RPC dialect is read into the 1.0 request ([`rpc::read_request`]); the service answers
//! in 1.0 types; the answer is written back ([`rpc`]'s `write_*`, or the typed
//! [`translate`] functions when a shared document must not be copied).
//!
//! Built: the JSON dialect (JSON-RPC, the 0.3 card, webhook bodies) and the ProtoJSON of
//! the 0.3 HTTP+JSON binding ([`pj`], its paths and errors in [`rest`]), which the 0.3 gRPC
//! binding reaches through the generated pbjson impls (its status codes and texts in
//! [`error::grpc_status`], its card form in [`card::to_proto_json`]). Not here yet: the
//! per-reader card signing views.

pub mod card;
pub mod error;
pub mod json;
pub mod methods;
pub mod pj;
pub mod rest;
pub mod rpc;
pub mod translate;

pub use error::{jsonrpc_error, ReadError, WriteError};

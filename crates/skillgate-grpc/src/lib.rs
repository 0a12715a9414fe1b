//! skillgate-grpc: the A2A gRPC binding, generated from the normative `a2a.proto`.

/// The generated messages, service and client of package `lf.a2a.v1`.
#[allow(
    missing_docs,
    clippy::all,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/lf.a2a.v1.rs"));
    include!(concat!(env!("OUT_DIR"), "/lf.a2a.v1.serde.rs"));
}

//! skillgate-grpc: the A2A gRPC binding (`lf.a2a.v1.A2AService`), generated at build time
//! from the vendored normative `proto/a2a.proto` (A2A 1.0.1), and the A2A 0.3 service
//! `a2a.v1.A2AService` on the same port (`proto/a2a_v0_3.proto`, [`Adapter03`]), which
//! reaches the same service through `skillgate_a2a::v03`'s translation.
//!
//! It is a thin adapter: [`serve`] answers every method through the same
//! [`skillgate_runtime::A2aService`] as the server's JSON-RPC and HTTP+JSON bindings (one gate,
//! one task store, reloads included), reached through the [`skillgate_runtime::AgentSwap`] the
//! HTTP server hands out. Messages convert through their ProtoJSON form into the
//! skillgate-a2a types ([`convert`]); errors are `google.rpc.Status` with an `ErrorInfo`
//! ([`status`]). Version, extension and bearer checks are the runtime's
//! ([`skillgate_runtime::checks`]), read from gRPC metadata.
//!
//! Without the default `server` feature only the generated code (with its client) and
//! [`numbers`] are built, for the client transport, which must not depend on the server.
//!
//! One difference from the JSON bindings is the protobuf `Struct` in Data Parts and metadata:
//! its numbers are doubles, so an integer beyond 2^53 reaches a skill rounded (see
//! [`numbers::integral_numbers`]).

#[cfg(feature = "server")]
mod adapter;
#[cfg(feature = "server")]
mod adapter03;
#[cfg(feature = "server")]
mod codec;
#[cfg(feature = "server")]
pub mod convert;
#[cfg(feature = "server")]
mod limit;
pub mod numbers;
#[cfg(feature = "server")]
mod server;
#[cfg(feature = "server")]
pub mod status;
#[cfg(feature = "server")]
mod watch;

#[cfg(feature = "server")]
pub use adapter::{Adapter, EventStream};
#[cfg(feature = "server")]
pub use adapter03::{Adapter03, EventStream03};
#[cfg(feature = "server")]
pub use server::{serve, GrpcConfig, GrpcError};

/// The generated messages, service and client of package `lf.a2a.v1` (prost + tonic +
/// pbjson serde impls, the latter speaking ProtoJSON).
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
    // The service side, generated on its own with the request codec (build.rs).
    #[cfg(feature = "server")]
    include!(concat!(env!("OUT_DIR"), "/server/lf.a2a.v1.rs"));
}

/// The generated messages, service and client of the A2A 0.3 package `a2a.v1` (the proto
/// a2a-sdk ships, `proto/a2a_v0_3.proto`), with ProtoJSON serde impls: the bridge to the
/// `skillgate_a2a::v03::pj` types, through which every 0.3 rule is reached.
#[allow(
    missing_docs,
    clippy::all,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
pub mod pb03 {
    include!(concat!(env!("OUT_DIR"), "/v03/a2a.v1.rs"));
    include!(concat!(env!("OUT_DIR"), "/v03/a2a.v1.serde.rs"));
    #[cfg(feature = "server")]
    include!(concat!(env!("OUT_DIR"), "/v03/server/a2a.v1.rs"));
}

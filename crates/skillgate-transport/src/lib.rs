//! The one A2A client transport of skillgate: A2A 1.0 on every binding, and A2A 0.3 over
//! JSON-RPC with its answers handed back in the 1.0 shapes (see [`Interface::version`]).
//!
//! The validated client, the conformance checker and `card lint URL` all talk to agents
//! through this crate, so they share one policy: which interface of a card is used
//! ([`Interface::select`]), where the card lives ([`card_url`]), how a request is bounded
//! ([`TransportConfig`]: connect, read and overall timeouts, redirects, body limits enforced
//! while the body streams in, plain HTTP only to loopback unless allowed, re-checked on every
//! redirect), where credentials may go ([`TransportConfig::credential_origins`], checked on
//! every request and every redirect hop), how each A2A operation is put on the wire for each
//! binding ([`Endpoint`]), how an event stream is decoded ([`SseParser`]) and how ids are made
//! ([`fresh_id`]).
//!
//! The transport moves bytes and reports what came back ([`Reply`]); it does not judge the
//! answer. The client interprets an exchange strictly, the conformance checker records it as
//! evidence. Every URL in an error message is redacted ([`redact`]).
//!
//! # From a URL to an interface
//!
//! A user gives an agent's base URL (or its card's); the card says which interfaces the agent
//! serves, in its order of preference. Nothing here needs the network:
//!
//! ```
//! use skillgate_transport::{card_url, origin_of, Binding, Interface, TransportConfig};
//!
//! let url = card_url("http://127.0.0.1:7420")?;
//! assert_eq!(url.as_str(), "http://127.0.0.1:7420/.well-known/agent-card.json");
//!
//! let card: skillgate_a2a::AgentCard = serde_json::from_value(serde_json::json!({
//!     "name": "netops", "description": "d", "version": "1.0.0",
//!     "supportedInterfaces": [
//!         {"url": "http://127.0.0.1:7421", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
//!         {"url": "http://127.0.0.1:7420/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
//!     ],
//!     "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
//! }))?;
//! // gRPC is used only when asked for; otherwise the first JSON-RPC or HTTP+JSON interface.
//! let chosen = Interface::select(&card, None, false)?;
//! assert_eq!(chosen.binding, Binding::JsonRpc);
//! let grpc = Interface::select(&card, Some(Binding::Grpc), false)?;
//! assert_eq!(grpc.url.as_str(), "http://127.0.0.1:7421/");
//!
//! // Credentials go only where the user pointed, never where a card points.
//! let config = TransportConfig {
//!     token: Some("s3cret".into()),
//!     credential_origins: vec![origin_of("http://127.0.0.1:7420")?],
//!     ..TransportConfig::default()
//! };
//! assert!(config.has_credentials());
//! assert_eq!(format!("{:?}", config.token), "Some(Secret(***))");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Then, with a tokio runtime, [`Transport::new`] builds the client from the config and
//! [`Transport::get_card`] fetches the card within its bounds; [`Endpoint`] sends each A2A
//! operation on the chosen interface.

mod binding;
mod config;
mod endpoint;
mod error;
mod extra;
mod grpc;
mod grpc03;
mod http;
mod id;
mod origin;
mod sse;
mod urls;
mod v03;
mod v03rest;

pub use binding::{Binding, Interface, NoInterface};
pub use config::{
    Secret, TransportConfig, UnknownVersionChoice, VersionChoice, DEFAULT_CARD_LIMIT,
    DEFAULT_RESPONSE_LIMIT, MAX_REDIRECTS,
};
pub use endpoint::{Endpoint, Sent};
pub use error::TransportError;
pub use extra::{ExtraHeader, HeaderError, TraceEvent, Tracer};
pub use http::{Reply, StatusCode, Streaming, Transport};
pub use id::fresh_id;
pub use origin::{origin_of, Withheld};
pub use skillgate_a2a::redact::{redact, redact_str, redact_text};
pub use skillgate_a2a::url_policy::{check_scheme, is_loopback, SchemeRefused, PLAIN_HTTP_NOTE};
pub use sse::{SseEvent, SseParser};
pub use urls::{card_url, join, looks_like_url, parse_url};

//! The one A2A 1.0 client transport of skillgate.
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

mod binding;
mod config;
mod endpoint;
mod error;
mod extra;
mod grpc;
mod http;
mod id;
mod origin;
mod sse;
mod urls;

pub use binding::{Binding, Interface, NoInterface};
pub use config::{
    Secret, TransportConfig, DEFAULT_CARD_LIMIT, DEFAULT_RESPONSE_LIMIT, MAX_REDIRECTS,
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

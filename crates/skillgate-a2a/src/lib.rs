//! A2A protocol 1.0 wire types for skillgate, written against the normative `a2a.proto` (package
//! `lf.a2a.v1`) and serialized exactly as ProtoJSON: camelCase names out, camelCase and the proto's
//! snake_case names accepted in, enums as their proto names (integers accepted), no `kind`
//! discriminators, default values of non-`optional` fields omitted, `optional` fields keep presence.
//!
//! Data Part payloads are kept as untouched [`serde_json::Value`]s: integers stay integers, which is
//! one reason skillgate does not transcode through protobuf (see `docs/design.md`).
//!
//! ```
//! use skillgate_a2a::{Part, PartContent};
//! let p: Part = serde_json::from_str(r#"{"data":{"n":1},"media_type":"application/json"}"#).unwrap();
//! assert_eq!(p.content, PartContent::Data(serde_json::json!({"n": 1})));
//! assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"data":{"n":1},"mediaType":"application/json"}"#);
//! ```

pub mod card;
mod de;
pub mod error;
pub mod jsonrpc;
pub mod methods;
pub mod redact;
pub mod requests;
mod shared;
pub mod timestamp;
pub mod types;
pub mod url_policy;
pub mod v03;
pub mod version;

pub use card::*;
pub use error::{A2aError, ErrorInfo, HttpRefusal, RestError, RestErrorBody};
pub use jsonrpc::{
    EnvelopeError, JsonRpcError, JsonRpcId, JsonRpcRequest, JsonRpcResponse, JsonRpcSuccess,
};
pub use requests::*;
pub use shared::SharedJson;
pub use types::*;
pub use version::WireVersion;

/// The protocol version this crate speaks, as carried in `A2A-Version` and `protocolVersion`.
pub const PROTOCOL_VERSION: &str = "1.0";
/// The version a request without `A2A-Version` means (spec §3.2.6: empty or missing is 0.3).
pub const IMPLICIT_PROTOCOL_VERSION: &str = "0.3";
/// Header (and query parameter) naming the requested protocol version.
pub const A2A_VERSION_HEADER: &str = "A2A-Version";
/// Header listing the extension URIs a client asks to activate, echoed by the server when active.
pub const A2A_EXTENSIONS_HEADER: &str = "A2A-Extensions";
/// The A2A 0.3 name of [`A2A_EXTENSIONS_HEADER`], which 0.3 clients send (and expect echoed)
/// instead; a server reads both on every request.
pub const A2A_EXTENSIONS_HEADER_V03: &str = "X-A2A-Extensions";
/// Well-known path of the public Agent Card.
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";
/// `protocolBinding` value of the JSON-RPC 2.0 binding.
pub const BINDING_JSONRPC: &str = "JSONRPC";
/// `protocolBinding` value of the HTTP+JSON (REST) binding.
pub const BINDING_HTTP_JSON: &str = "HTTP+JSON";
/// `protocolBinding` value of the gRPC binding (served by `skillgate-grpc`, `serve --grpc-listen`).
pub const BINDING_GRPC: &str = "GRPC";
/// Media type registered for the HTTP+JSON binding.
pub const MEDIA_TYPE_A2A_JSON: &str = "application/a2a+json";
/// Plain JSON media type.
pub const MEDIA_TYPE_JSON: &str = "application/json";
/// Media type of server-sent event streams.
pub const MEDIA_TYPE_EVENT_STREAM: &str = "text/event-stream";

//! Refusals made before any binding has read the request's method (no bearer token, a foreign
//! `Host` or `Origin`, the connection limit), written in the dialect the request speaks: a
//! 0.3 client must be able to read why it was refused as it reads every other error of its
//! version (`docs/a2a-0.3.md` 1.12, design.md D300).
//!
//! Which dialect is decided here once, from what is known before the body is read: the path
//! names it for HTTP+JSON (`/v1` and below is 0.3, the rest 1.0), and at the JSON-RPC endpoint
//! the `A2A-Version` header does (`checks::version_before_method`: none is 0.3). The method
//! is not read for this: a refused request's body is never read.

use super::observe::ErrorReason;
use super::{is_jsonrpc_path, jsonrpc, requested_version, rest, rest03};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{self as a2a, HttpRefusal, JsonRpcId, JsonRpcResponse};
use skillgate_runtime::checks;

/// The shapes an early refusal is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// HTTP+JSON of this version: the 1.0 `google.rpc.Status` body, or 0.3's `{message}`.
    Rest(WireVersion),
    /// JSON-RPC of this version: 1.0 keeps the `google.rpc.Status` body its clients have
    /// always read for HTTP-layer refusals; 0.3 gets a JSON-RPC error object with `id: null`.
    JsonRpc(WireVersion),
}

impl Dialect {
    /// The dialect of a request with this URI and these headers, before its method is read.
    pub(crate) fn of(uri: &Uri, headers: &HeaderMap) -> Self {
        let path = uri.path();
        if is_jsonrpc_path(path) {
            let header = requested_version(uri, headers);
            Self::JsonRpc(checks::version_before_method(&header))
        } else if a2a::v03::rest::is_v03_path(path) {
            Self::Rest(WireVersion::V0_3)
        } else {
            Self::Rest(WireVersion::V1_0)
        }
    }

    /// The answer refusing the request: the refusal's HTTP status, the body of this dialect.
    pub(crate) fn refuse(self, refusal: HttpRefusal, message: String) -> Response {
        match self {
            Self::Rest(WireVersion::V0_3) => {
                rest03::Error03::Refused(refusal, message).into_response()
            }
            Self::JsonRpc(WireVersion::V0_3) => {
                let status =
                    StatusCode::from_u16(refusal.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
                let error = a2a::v03::error::refusal_jsonrpc(refusal, message);
                let mut r = jsonrpc::reply(status, &JsonRpcResponse::error(JsonRpcId::Null, error));
                r.extensions_mut()
                    .insert(ErrorReason(refusal.grpc_status()));
                r
            }
            Self::Rest(WireVersion::V1_0) | Self::JsonRpc(WireVersion::V1_0) => {
                rest::ApiError::Refused(refusal, message).into_response()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn dialect(uri: &str, version: Option<&'static str>) -> Dialect {
        let mut h = HeaderMap::new();
        if let Some(v) = version {
            h.insert(a2a::A2A_VERSION_HEADER, HeaderValue::from_static(v));
        }
        Dialect::of(&uri.parse().unwrap_or_default(), &h)
    }

    #[test]
    fn the_path_names_the_rest_dialect_and_the_header_the_json_rpc_one() {
        use WireVersion::{V0_3, V1_0};
        assert_eq!(dialect("/v1/message:send", None), Dialect::Rest(V0_3));
        assert_eq!(dialect("/v1", Some("1.0")), Dialect::Rest(V0_3));
        assert_eq!(dialect("/message:send", None), Dialect::Rest(V1_0));
        assert_eq!(dialect("/tasks/t", Some("0.3")), Dialect::Rest(V1_0));
        assert_eq!(dialect("/", None), Dialect::JsonRpc(V0_3));
        assert_eq!(dialect("/", Some("1.0")), Dialect::JsonRpc(V1_0));
        assert_eq!(dialect("/?A2A-Version=1.0", None), Dialect::JsonRpc(V1_0));
        assert_eq!(dialect("/", Some("9.9")), Dialect::JsonRpc(V1_0));
    }
}

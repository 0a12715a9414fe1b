//! Reading request bodies: content type, size limit, read timeout and strict, depth-limited
//! I-JSON parsing (duplicate keys are errors). The REST binding reads them through the
//! [`StrictJson`] and [`OptionalJson`] extractors; JSON-RPC calls [`read_bytes`] and [`parse`] itself, since
//! its errors need the request id.

use super::rest::ApiError;
use super::AppState;
use axum::body::Body;
use axum::extract::{FromRequest, Request};
use axum::http::{header, HeaderMap};
use serde::de::DeserializeOwned;
use serde_json::Value;
use skillgate_a2a::A2aError;
use skillgate_core::jcs::{from_slice_strict, parse_strict_with, JcsError, ParseOptions};

/// Why a body could not be read as JSON.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// Larger than the configured limit.
    TooLarge(usize),
    /// Not received within the request timeout.
    Timeout,
    /// The connection failed while reading.
    Read,
    /// Not strict I-JSON (syntax, duplicate key, depth, lone surrogate, ...).
    Parse(JcsError),
}

impl BodyError {
    pub(crate) fn message(&self) -> String {
        match self {
            Self::TooLarge(n) => format!("request body exceeds the limit of {n} bytes"),
            Self::Timeout => "request body was not received in time".into(),
            Self::Read => "request body could not be read".into(),
            Self::Parse(e) => format!(
                "request body is not valid JSON ({}): {} at line {}, column {}",
                e.kind.as_str(),
                e.message,
                e.line,
                e.column
            ),
        }
    }
}

/// True when the Content-Type is a JSON media type (`application/json`,
/// `application/a2a+json`, any `+json`). An absent one is not: a browser sends a cross-site
/// "simple" POST without a preflight only with no or a form/text content type.
pub(crate) fn is_json_content_type(headers: &HeaderMap) -> bool {
    let Some(v) = headers.get(header::CONTENT_TYPE) else {
        return false;
    };
    let Ok(v) = v.to_str() else {
        return false;
    };
    let essence = v
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Reads the whole body within the limits.
pub(crate) async fn read_bytes(st: &AppState, body: Body) -> Result<bytes::Bytes, BodyError> {
    let limit = st.body_limit;
    match tokio::time::timeout(st.request_timeout, axum::body::to_bytes(body, limit)).await {
        Err(_) => Err(BodyError::Timeout),
        Ok(Err(e)) => {
            // to_bytes reports the limit through a boxed LengthLimitError source.
            let mut src: Option<&(dyn std::error::Error + 'static)> = Some(&e);
            while let Some(s) = src {
                if s.is::<http_body_util::LengthLimitError>() {
                    return Err(BodyError::TooLarge(limit));
                }
                src = s.source();
            }
            Err(BodyError::Read)
        }
        Ok(Ok(b)) => Ok(b),
    }
}

/// Strictly parses bytes with the server's depth limit.
pub(crate) fn parse(st: &AppState, bytes: &[u8]) -> Result<Value, BodyError> {
    parse_strict_with(
        bytes,
        ParseOptions {
            max_depth: st.max_depth,
        },
    )
    .map_err(BodyError::Parse)
}

/// Reads and strictly parses the body.
pub(crate) async fn read_json(st: &AppState, body: Body) -> Result<Value, BodyError> {
    let bytes = read_bytes(st, body).await?;
    parse(st, &bytes)
}

/// The deepest body the typed read takes; a deeper one (hostile, or a configured limit above
/// this) is read as a `Value` first, which needs less stack per level of nesting.
pub(crate) const TYPED_MAX_DEPTH: usize = 64;

/// A JSON object body read straight into `T` in one strict pass (as strict as [`parse`]);
/// `None` on any error, when the caller reads it through [`parse`] for the exact answer.
pub(crate) fn read_typed<'de, T: serde::Deserialize<'de>>(
    st: &AppState,
    bytes: &'de [u8],
) -> Option<T> {
    // A struct would take an array as its members in order: only an object is read here.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let max_depth = st.max_depth.min(TYPED_MAX_DEPTH);
    from_slice_strict(bytes, ParseOptions { max_depth }).ok()
}

/// Refuses a REST request whose Content-Type is not JSON.
fn require_json_content_type(req: &Request) -> Result<(), ApiError> {
    if is_json_content_type(req.headers()) {
        Ok(())
    } else {
        Err(content_type_error())
    }
}

fn content_type_error() -> ApiError {
    ApiError::new(
        A2aError::ContentTypeNotSupported,
        "request bodies must be sent with Content-Type application/json or application/a2a+json",
    )
}

/// A REST request body: a JSON content type, within the size limit and read timeout, strict
/// I-JSON, a JSON object, and of type `T` (unknown members are `T`'s business).
pub(crate) struct StrictJson<T>(pub(crate) T);

impl<T: DeserializeOwned> FromRequest<AppState> for StrictJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, st: &AppState) -> Result<Self, Self::Rejection> {
        require_json_content_type(&req)?;
        let bytes = read_bytes(st, req.into_body()).await?;
        if let Some(typed) = read_typed(st, &bytes) {
            return Ok(StrictJson(typed));
        }
        let v = parse(st, &bytes)?;
        if !v.is_object() {
            return Err(ApiError::new(
                A2aError::InvalidParams,
                "the request body must be a JSON object",
            ));
        }
        serde_json::from_value(v)
            .map(StrictJson)
            .map_err(|e| ApiError::new(A2aError::InvalidParams, format!("invalid request: {e}")))
    }
}

/// An optional REST request body (`POST /tasks/{id}:cancel`): the same content-type, limit and
/// parsing rules as [`StrictJson`], but an empty or all-whitespace body is `None`, and an
/// empty one needs no Content-Type.
pub(crate) struct OptionalJson(pub(crate) Option<Value>);

impl FromRequest<AppState> for OptionalJson {
    type Rejection = ApiError;

    async fn from_request(req: Request, st: &AppState) -> Result<Self, Self::Rejection> {
        let typed = req.headers().contains_key(header::CONTENT_TYPE);
        if typed {
            require_json_content_type(&req)?;
        }
        let bytes = read_bytes(st, req.into_body()).await?;
        if bytes.is_empty() {
            // No body, nothing to type: a bare `POST /tasks/{id}:cancel` needs no Content-Type
            // (a browser's would carry an Origin, refused in front of this).
            return Ok(OptionalJson(None));
        }
        if !typed {
            return Err(content_type_error());
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(None));
        }
        Ok(OptionalJson(Some(parse(st, &bytes)?)))
    }
}

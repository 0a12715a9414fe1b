//! The JSON-RPC 2.0 binding at the interface URL: a thin adapter over the service.

use super::body::{
    is_json_content_type, parse, read_bytes, read_typed, BodyError, TYPED_MAX_DEPTH,
};
use super::observe::{rpc_method_label, ErrorReason, RpcMethod};
use super::{jsonrpc03, request_context, sse, AppState, RequestedVersion, JSON_CONTENT_TYPE};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::Value;
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{self as a2a, methods, A2aError, JsonRpcId, JsonRpcRequest, JsonRpcResponse};
use skillgate_core::jcs::{from_slice_strict, parse_strict_with, ParseOptions};
use skillgate_runtime::checks;
use skillgate_runtime::service::{RequestContext, ServiceError};
use std::borrow::Cow;

pub(super) fn reply(status: StatusCode, resp: &JsonRpcResponse) -> Response {
    reply_bytes(status, super::answer_json(resp).unwrap_or_default())
}

pub(super) fn reply_bytes(status: StatusCode, body: Vec<u8>) -> Response {
    let mut r = (status, body).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(JSON_CONTENT_TYPE),
    );
    r
}

fn error(id: JsonRpcId, kind: A2aError, message: &str) -> Response {
    error_with_status(StatusCode::OK, id, kind, message)
}

fn error_with_status(status: StatusCode, id: JsonRpcId, kind: A2aError, message: &str) -> Response {
    let mut r = reply(
        status,
        &JsonRpcResponse::error(id, kind.to_jsonrpc(message)),
    );
    r.extensions_mut().insert(ErrorReason(kind.reason()));
    r
}

fn service_error(id: JsonRpcId, e: ServiceError) -> Response {
    error(id, e.kind, &e.message)
}

fn params<T: DeserializeOwned>(p: Option<Value>) -> Result<T, ServiceError> {
    let p = match p {
        Some(v @ Value::Object(_)) => v,
        Some(_) => {
            return Err(ServiceError::new(
                A2aError::InvalidParams,
                "params must be an object",
            ))
        }
        None => {
            return Err(ServiceError::new(
                A2aError::InvalidParams,
                "params are required",
            ))
        }
    };
    serde_json::from_value(p)
        .map_err(|e| ServiceError::new(A2aError::InvalidParams, format!("invalid params: {e}")))
}

/// Serializes the result straight into the body: through a `Value` the describe_skill
/// document would be copied again (and parsed back from its shared text).
fn ok<T: serde::Serialize>(id: JsonRpcId, v: &T) -> Response {
    match super::answer_json(&a2a::JsonRpcSuccess { id: &id, result: v }) {
        Ok(body) => reply_bytes(StatusCode::OK, body),
        Err(_) => error(
            id,
            A2aError::InternalError,
            "could not serialize the result",
        ),
    }
}

/// The id exactly as written, when it is a number a `serde_json::Number` would turn into a
/// float (outside the 64-bit integers, or with a fraction or exponent): the top-level `id`
/// is read again from the body as raw text. The strict parse already refused duplicate keys,
/// so the raw `id` is the one parsed.
fn exact_id(value: &Value, bytes: &[u8]) -> Option<JsonRpcId> {
    let n = value.get("id")?.as_number()?;
    if n.is_i64() || n.is_u64() {
        return None;
    }
    #[derive(serde::Deserialize)]
    struct IdOnly<'a> {
        #[serde(borrow)]
        id: &'a serde_json::value::RawValue,
    }
    let raw: IdOnly<'_> = serde_json::from_slice(bytes).ok()?;
    JsonRpcId::raw_number(raw.id.get())
}

/// An error found before the method is read (content type, body, envelope), in the shapes of
/// the version the request's header names (`checks::version_before_method`: none is 0.3), so
/// a 0.3 client gets the 0.3 error object it reads for every other error.
fn early_error(
    version: WireVersion,
    status: StatusCode,
    id: JsonRpcId,
    kind: A2aError,
    message: &str,
) -> Response {
    match version {
        WireVersion::V0_3 => jsonrpc03::error_with_status(status, id, kind, message),
        WireVersion::V1_0 => error_with_status(status, id, kind, message),
    }
}

/// `POST /`: one JSON-RPC request. What fails before the method is read (content type, body,
/// envelope) is answered in the shapes of the version the request's header names
/// ([`early_error`]), decided only when something fails.
pub(crate) async fn handle(State(st): State<AppState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    if !is_json_content_type(&parts.headers) {
        return early_error(
            checks::version_before_method(requested(&parts)),
            StatusCode::OK,
            JsonRpcId::Null,
            A2aError::ContentTypeNotSupported,
            "JSON-RPC requests must be sent as application/json",
        );
    }
    let bytes = match read_bytes(&st, body).await {
        Ok(bytes) => bytes,
        Err(e) => return body_error(&parts, e),
    };
    let call = match Call::typed(&st, &parts, &bytes) {
        Some(call) => call,
        None => match Call::from_value(&st, &parts, &bytes) {
            Ok(call) => call,
            Err(answer) => return *answer,
        },
    };
    let method = RpcMethod(rpc_method_label(&call.rpc.method));
    let mut resp = match call.version {
        WireVersion::V1_0 => dispatch(&st, call.id, call.rpc, call.send, &call.ctx).await,
        WireVersion::V0_3 => jsonrpc03::dispatch(&st, call.id, call.rpc, &call.ctx).await,
    };
    resp.extensions_mut().insert(method);
    resp
}

/// The answer to a body that could not be read as JSON, in the dialect of the request's
/// header ([`early_error`]).
fn body_error(parts: &Parts, e: BodyError) -> Response {
    let (status, kind) = match e {
        BodyError::TooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, A2aError::InvalidRequest),
        BodyError::Parse(_) => (StatusCode::OK, A2aError::ParseError),
        _ => (StatusCode::OK, A2aError::InvalidRequest),
    };
    early_error(
        checks::version_before_method(requested(parts)),
        status,
        JsonRpcId::Null,
        kind,
        &e.message(),
    )
}

/// A JSON-RPC envelope as the typed read sees it: `id` and `params` kept as their text, so
/// each is read once, into what the method needs.
#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
}

/// A member that is present, `null` included (an `Option` alone would read `null` as absent).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue as serde::Deserialize>::deserialize(d).map(Some)
}

/// A request ready for its method: the envelope, the negotiated version, the context, and for
/// a 1.0 `SendMessage` read the typed way its params already typed.
struct Call {
    rpc: JsonRpcRequest,
    id: JsonRpcId,
    version: WireVersion,
    ctx: RequestContext,
    send: Option<a2a::SendMessageRequest>,
}

impl Call {
    /// The request read in one strict typed pass (params once more, from their own text, into
    /// their type), as strict as the `Value` parse: `None` for anything but a well-formed call
    /// with a string or 64-bit integer id (any error among them), which [`Call::from_value`]
    /// then reads and answers exactly as before this path existed.
    fn typed(st: &AppState, parts: &Parts, bytes: &[u8]) -> Option<Self> {
        let env: Envelope<'_> = read_typed(st, bytes)?;
        let max_depth = st.max_depth.min(TYPED_MAX_DEPTH);
        if env.jsonrpc != "2.0" || env.method.is_empty() {
            return None;
        }
        let id = match env.id {
            None => None,
            Some(raw) => Some(typed_id(raw.get())?),
        };
        let version = checks::negotiate(
            requested(parts),
            methods::family(&env.method),
            st.service.versions(),
        )
        .ok()?;
        if id.is_none() && version == WireVersion::V1_0 {
            return None;
        }
        // Params sit one level below the envelope.
        let inner = ParseOptions {
            max_depth: max_depth.checked_sub(1)?,
        };
        let (params, send) = match env.params {
            None => (None, None),
            Some(raw) => {
                let text = raw.get().as_bytes();
                match text.first() {
                    Some(b'{')
                        if version == WireVersion::V1_0 && env.method == methods::SEND_MESSAGE =>
                    {
                        (None, Some(from_slice_strict(text, inner).ok()?))
                    }
                    Some(b'{' | b'[') => (Some(parse_strict_with(text, inner).ok()?), None),
                    _ => return None,
                }
            }
        };
        let ctx = RequestContext {
            version,
            ..request_context(&parts.extensions)
        };
        let rpc = JsonRpcRequest {
            jsonrpc: "2.0".into(),
            id: id.clone(),
            method: env.method.into_owned(),
            params,
        };
        Some(Self {
            rpc,
            id: id.unwrap_or(JsonRpcId::Null),
            version,
            ctx,
            send,
        })
    }

    /// The request read as a strict `Value` first, then checked as an envelope: every
    /// malformed request is answered here, with its error.
    fn from_value(st: &AppState, parts: &Parts, bytes: &[u8]) -> Result<Self, Box<Response>> {
        let value = parse(st, bytes).map_err(|e| Box::new(body_error(parts, e)))?;
        let early = || checks::version_before_method(requested(parts));
        if value.is_array() {
            return Err(Box::new(early_error(
                early(),
                StatusCode::OK,
                JsonRpcId::Null,
                A2aError::InvalidRequest,
                "batch requests are not supported",
            )));
        }
        let exact = exact_id(&value, bytes);
        let fallback_id = exact
            .clone()
            .unwrap_or_else(|| JsonRpcRequest::id_of(&value));
        let mut rpc = match JsonRpcRequest::from_value(value) {
            Ok(r) => r,
            Err(e) => {
                return Err(Box::new(early_error(
                    early(),
                    StatusCode::OK,
                    fallback_id,
                    A2aError::InvalidRequest,
                    &e.0,
                )))
            }
        };
        if exact.is_some() {
            rpc.id = exact;
        }
        let id = rpc.id.clone().unwrap_or(JsonRpcId::Null);
        // The method names its own version; the header must agree with it (docs/a2a-0.3.md 3.3).
        let version = match checks::negotiate(
            requested(parts),
            methods::family(&rpc.method),
            st.service.versions(),
        ) {
            Ok(v) => v,
            Err(r) if r.answer_in == WireVersion::V0_3 => {
                return Err(Box::new(jsonrpc03::error(
                    id,
                    A2aError::VersionNotSupported,
                    &r.message,
                )))
            }
            Err(r) => {
                return Err(Box::new(error(
                    id,
                    A2aError::VersionNotSupported,
                    &r.message,
                )))
            }
        };
        // A 1.0 request must carry an id. A 0.3 one is answered with `"id": null` as a2a-sdk 0.3
        // answers it (the 0.3 TCK sends id-less requests and expects their method and params
        // errors).
        if rpc.id.is_none() && version == WireVersion::V1_0 {
            return Err(Box::new(error(
                JsonRpcId::Null,
                A2aError::InvalidRequest,
                "\"id\" is required: A2A methods always answer",
            )));
        }
        let ctx = RequestContext {
            version,
            ..request_context(&parts.extensions)
        };
        Ok(Self {
            rpc,
            id,
            version,
            ctx,
            send: None,
        })
    }
}

/// The A2A version the request's header asked for (empty when none).
fn requested(parts: &Parts) -> &str {
    parts
        .extensions
        .get::<RequestedVersion>()
        .map_or("", |r| r.0.as_str())
}

/// A request id from its text, when it is one the typed read takes: a string (read strictly),
/// `null`, or an integer that fits 64 bits. Any other number is left to the `Value` read, which
/// refuses the ones out of the double range and echoes the others as written.
fn typed_id(text: &str) -> Option<JsonRpcId> {
    match text.as_bytes().first()? {
        b'"' => from_slice_strict::<String>(text.as_bytes(), ParseOptions::default())
            .ok()
            .map(JsonRpcId::String),
        b'n' if text == "null" => Some(JsonRpcId::Null),
        b'-' | b'0'..=b'9' => {
            if let Ok(i) = text.parse::<i64>() {
                Some(JsonRpcId::Number(i.into()))
            } else {
                text.parse::<u64>()
                    .ok()
                    .map(|u| JsonRpcId::Number(u.into()))
            }
        }
        _ => None,
    }
}

/// The four push notification config methods, through the service's one push guard, taken
/// before the params are read (see [`skillgate_runtime::A2aService::push_configs`]).
async fn push_method(
    svc: &skillgate_runtime::service::A2aService,
    m: &str,
    p: Option<Value>,
    ctx: &RequestContext,
) -> Result<Value, ServiceError> {
    let push = svc.push_configs()?;
    fn json<T: serde::Serialize>(v: Result<T, ServiceError>) -> Result<Value, ServiceError> {
        v.map(|v| serde_json::to_value(v).unwrap_or_default())
    }
    match m {
        methods::CREATE_TASK_PUSH_NOTIFICATION_CONFIG => json(push.create(params(p)?, ctx).await),
        methods::GET_TASK_PUSH_NOTIFICATION_CONFIG => json(push.get(&params(p)?, ctx).await),
        methods::LIST_TASK_PUSH_NOTIFICATION_CONFIGS => json(push.list(&params(p)?, ctx).await),
        _ => push
            .delete(&params(p)?, ctx)
            .await
            .map(|()| Value::Object(Default::default())),
    }
}

async fn dispatch(
    st: &AppState,
    id: JsonRpcId,
    rpc: JsonRpcRequest,
    send: Option<a2a::SendMessageRequest>,
    ctx: &RequestContext,
) -> Response {
    let svc = &st.service;
    let m = rpc.method.as_str();
    let result = match m {
        methods::SEND_MESSAGE => match send.map_or_else(|| params(rpc.params), Ok) {
            Ok(p) => svc.send_message(p, ctx).await.map(|r| ok(id.clone(), &r)),
            Err(e) => Err(e),
        },
        methods::SEND_STREAMING_MESSAGE => match params::<a2a::SendMessageRequest>(rpc.params) {
            Ok(p) => svc
                .send_streaming_message(p, ctx)
                .await
                .map(|s| sse::jsonrpc(id.clone(), s, st)),
            Err(e) => Err(e),
        },
        methods::GET_TASK => match params::<a2a::GetTaskRequest>(rpc.params) {
            Ok(p) => svc.get_task(&p, ctx).await.map(|t| ok(id.clone(), &t)),
            Err(e) => Err(e),
        },
        methods::LIST_TASKS => {
            let p = if rpc.params.is_none() {
                Ok(a2a::ListTasksRequest::default())
            } else {
                params::<a2a::ListTasksRequest>(rpc.params)
            };
            match p {
                Ok(p) => svc.list_tasks(&p, ctx).await.map(|t| ok(id.clone(), &t)),
                Err(e) => Err(e),
            }
        }
        methods::CANCEL_TASK => match params::<a2a::CancelTaskRequest>(rpc.params) {
            Ok(p) => svc.cancel_task(&p, ctx).await.map(|t| ok(id.clone(), &t)),
            Err(e) => Err(e),
        },
        methods::SUBSCRIBE_TO_TASK => match params::<a2a::SubscribeToTaskRequest>(rpc.params) {
            Ok(p) => svc
                .subscribe_to_task(&p, ctx)
                .await
                .map(|s| sse::jsonrpc(id.clone(), s, st)),
            Err(e) => Err(e),
        },
        m if methods::PUSH_NOTIFICATION_METHODS.contains(&m) => {
            push_method(svc, m, rpc.params, ctx)
                .await
                .map(|v| ok(id.clone(), &v))
        }
        methods::GET_EXTENDED_AGENT_CARD => st.extended_card(ctx).map(|card| ok(id.clone(), &card)),
        other => Err(ServiceError::new(
            A2aError::MethodNotFound,
            format!("method {other:?} not found"),
        )),
    };
    result.unwrap_or_else(|e| service_error(id, e))
}

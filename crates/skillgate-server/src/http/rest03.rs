//! The A2A 0.3 HTTP+JSON binding (`/v1/...`, bodies in 0.3 ProtoJSON): each request is read
//! into the 1.0 request by `skillgate_a2a::v03`, answered by the same service as a 1.0
//! request, and the answer written back in 0.3 shapes by the same module. As in `jsonrpc03`,
//! no rule of the draft or of A2A lives here: only which service method each path calls.
//! Errors are `{code, message}` with a2a-sdk 0.3's statuses (`v03::rest::error_status`).

use super::body::{self, BodyError};
use super::observe::ErrorReason;
use super::{sse, AppState, JSON_CONTENT_TYPE};
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Serialize;
use serde_json::Value;
use skillgate_a2a::v03::rest::{self as paths, ErrorBody};
use skillgate_a2a::v03::translate::{history_length_from_v03, pj as t};
use skillgate_a2a::v03::{pj, ReadError, WriteError};
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{self as a2a, A2aError, HttpRefusal};
use skillgate_runtime::service::{PushConfigs, RequestContext, ServiceError};
use std::collections::HashMap;

/// The `/v1` routes, merged into the server's router beside the 1.0 ones.
pub(super) fn routes(router: Router<AppState>) -> Router<AppState> {
    let configs = format!("/v1/tasks/{{id}}/{}", paths::PUSH_CONFIGS);
    router
        .route(
            paths::MESSAGE_SEND,
            post(send_message).fallback(method_not_allowed),
        )
        .route(
            paths::MESSAGE_STREAM,
            post(send_streaming_message).fallback(method_not_allowed),
        )
        .route(
            "/v1/tasks/{id}",
            get(get_task_or_subscribe)
                .post(post_task_action)
                .fallback(method_not_allowed),
        )
        .route(
            &configs,
            post(create_push_config)
                .get(list_push_configs)
                .fallback(method_not_allowed),
        )
        .route(
            &format!("{configs}/{{cid}}"),
            get(get_push_config)
                .delete(delete_push_config)
                .fallback(method_not_allowed),
        )
        .route(paths::CARD, get(extended_card).fallback(method_not_allowed))
        .route("/v1/{*rest}", axum::routing::any(not_found))
}

/// A failure on the 0.3 HTTP+JSON binding.
#[derive(Debug)]
pub(crate) enum Error03 {
    /// An A2A error and its message.
    A2a(A2aError, String),
    /// A refusal outside the A2A table (401, 413, 405, ...), which has no A2A code.
    Refused(HttpRefusal, String),
}

impl From<ServiceError> for Error03 {
    fn from(e: ServiceError) -> Self {
        Self::A2a(e.kind, e.message)
    }
}

impl From<ReadError> for Error03 {
    fn from(e: ReadError) -> Self {
        Self::A2a(e.a2a_error(), e.to_string())
    }
}

impl From<WriteError> for Error03 {
    fn from(e: WriteError) -> Self {
        // Our own service never writes an UNSPECIFIED role or state; reported, not invented.
        Self::A2a(
            A2aError::InternalError,
            format!("the answer has no A2A 0.3 form: {e}"),
        )
    }
}

impl From<BodyError> for Error03 {
    fn from(e: BodyError) -> Self {
        let message = e.message();
        match e {
            BodyError::TooLarge(_) => Self::Refused(HttpRefusal::PayloadTooLarge, message),
            BodyError::Parse(_) => Self::A2a(A2aError::ParseError, message),
            BodyError::Timeout | BodyError::Read => Self::A2a(A2aError::InvalidRequest, message),
        }
    }
}

impl IntoResponse for Error03 {
    fn into_response(self) -> Response {
        let (status, body, reason) = match self {
            Self::A2a(kind, message) => (
                paths::error_status(kind),
                ErrorBody::new(kind, message),
                kind.reason(),
            ),
            Self::Refused(r, message) => (
                r.http_status(),
                ErrorBody {
                    code: None,
                    message,
                },
                r.grpc_status(),
            ),
        };
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
        let mut r = json(status, &body);
        r.extensions_mut().insert(ErrorReason(reason));
        r
    }
}

fn json<T: Serialize>(status: StatusCode, v: &T) -> Response {
    // Writes the typed value straight into the body: the describe_skill document inside it is
    // a shared part serialized from its stored text, never copied.
    match super::answer_json(v) {
        Ok(body) => {
            let mut r = (status, body).into_response();
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(JSON_CONTENT_TYPE),
            );
            r
        }
        Err(_) => Error03::A2a(
            A2aError::InternalError,
            "could not serialize the answer".into(),
        )
        .into_response(),
    }
}

fn ok<T: Serialize>(v: &T) -> Result<Response, Error03> {
    Ok(json(StatusCode::OK, v))
}

/// The request context of a 0.3 request: what the layers learned, and the version, which
/// decides the webhook body of a push config registered here.
pub(crate) struct Ctx03(RequestContext);

impl<S: Send + Sync> FromRequestParts<S> for Ctx03 {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let mut ctx = super::request_context(&parts.extensions);
        ctx.version = WireVersion::V0_3;
        Ok(Ctx03(ctx))
    }
}

/// A 0.3 request body, within the server's content-type, size, time and depth limits (the
/// same reader as every other binding), parsed strictly as the ProtoJSON type `T`.
pub(crate) struct Pj<T>(T);

impl<T: serde::de::DeserializeOwned> FromRequest<AppState> for Pj<T> {
    type Rejection = Error03;

    async fn from_request(req: Request, st: &AppState) -> Result<Self, Self::Rejection> {
        let v = json_body(req, st).await?;
        serde_json::from_value(v)
            .map(Pj)
            .map_err(|e| ReadError::shape("body", &e).into())
    }
}

async fn json_body(req: Request, st: &AppState) -> Result<Value, Error03> {
    if !body::is_json_content_type(req.headers()) {
        return Err(content_type_error());
    }
    let v = body::read_json(st, req.into_body()).await?;
    if !v.is_object() {
        return Err(Error03::A2a(
            A2aError::InvalidParams,
            "the request body must be a JSON object".into(),
        ));
    }
    Ok(v)
}

fn content_type_error() -> Error03 {
    Error03::A2a(
        A2aError::ContentTypeNotSupported,
        "request bodies must be sent with Content-Type application/json".into(),
    )
}

/// `POST /v1/message:send`.
async fn send_message(
    State(st): State<AppState>,
    Ctx03(ctx): Ctx03,
    Pj(p): Pj<pj::SendMessageRequest>,
) -> Result<Response, Error03> {
    let request = t::send_message_request_from_pj(p)?;
    let r = st.service.send_message(request, &ctx).await?;
    ok(&t::send_message_response_to_pj(&r)?)
}

/// One SSE `data:` line of a 0.3 HTTP+JSON stream: the PJ StreamResponse, or the 0.3 error
/// body if an event has no 0.3 form.
fn stream_event(ev: a2a::StreamResponse) -> String {
    let written = match t::stream_response_to_pj(&ev) {
        Ok(e) => serde_json::to_string(&e),
        Err(e) => serde_json::to_string(&ErrorBody::new(
            A2aError::InternalError,
            format!("an event has no A2A 0.3 form: {e}"),
        )),
    };
    written.unwrap_or_default()
}

/// `POST /v1/message:stream`.
async fn send_streaming_message(
    State(st): State<AppState>,
    Ctx03(ctx): Ctx03,
    Pj(p): Pj<pj::SendMessageRequest>,
) -> Result<Response, Error03> {
    let request = t::send_message_request_from_pj(p)?;
    let s = st.service.send_streaming_message(request, &ctx).await?;
    Ok(sse::rest_mapped(s, &st, stream_event))
}

/// `GET`/`POST /v1/tasks/{id}:subscribe`.
async fn subscribe(
    st: &AppState,
    task_id: &str,
    ctx: &RequestContext,
) -> Result<Response, Error03> {
    let p = a2a::SubscribeToTaskRequest {
        id: task_id.to_string(),
        ..Default::default()
    };
    let s = st.service.subscribe_to_task(&p, ctx).await?;
    Ok(sse::rest_mapped(s, st, stream_event))
}

/// `historyLength` of the query (`history_length` too, as ProtoJSON names it), read by the
/// one 0.3 rule (0 = all, negative refused).
fn history_length(q: &HashMap<String, String>) -> Result<Option<i32>, Error03> {
    let n = match q.get("historyLength").or_else(|| q.get("history_length")) {
        None => None,
        Some(s) => Some(s.trim().parse::<i32>().map_err(|_| {
            Error03::A2a(
                A2aError::InvalidParams,
                format!("historyLength {s:?} is not an integer"),
            )
        })?),
    };
    Ok(history_length_from_v03(n)?)
}

/// `GET /v1/tasks/{id}` and `GET /v1/tasks/{id}:subscribe`.
async fn get_task_or_subscribe(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    Ctx03(ctx): Ctx03,
) -> Result<Response, Error03> {
    if let Some(task_id) = id.strip_suffix(":subscribe") {
        return subscribe(&st, task_id, &ctx).await;
    }
    if id.contains(':') {
        return Err(no_such_endpoint());
    }
    let p = a2a::GetTaskRequest {
        id,
        history_length: history_length(&q)?,
        ..Default::default()
    };
    ok(&t::task_to_pj(&st.service.get_task(&p, &ctx).await?)?)
}

/// The optional body of `POST /v1/tasks/{id}:cancel`: nothing, `{}`, or the proto
/// CancelTaskRequest `{"name": "tasks/{id}"}` naming the path's task.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CancelBody {
    #[serde(default)]
    name: String,
}

/// `POST /v1/tasks/{id}:cancel` and `POST /v1/tasks/{id}:subscribe`.
async fn post_task_action(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Ctx03(ctx): Ctx03,
    req: Request,
) -> Result<Response, Error03> {
    if let Some(task_id) = id.strip_suffix(":subscribe") {
        return subscribe(&st, task_id, &ctx).await;
    }
    let Some(task_id) = id.strip_suffix(":cancel") else {
        return Err(no_such_endpoint());
    };
    let typed = req.headers().contains_key(header::CONTENT_TYPE);
    let bytes = body::read_bytes(&st, req.into_body()).await?;
    if !bytes.iter().all(u8::is_ascii_whitespace) {
        if !typed {
            return Err(content_type_error());
        }
        let b: CancelBody = serde_json::from_value(body::parse(&st, &bytes)?)
            .map_err(|e| ReadError::shape("body", &e))?;
        if !b.name.is_empty() && paths::parse_task_name(&b.name).ok() != Some(task_id) {
            return Err(
                ReadError::new("name", format!("{:?} is not tasks/{task_id}", b.name)).into(),
            );
        }
    }
    let p = a2a::CancelTaskRequest {
        id: task_id.to_string(),
        ..Default::default()
    };
    ok(&t::task_to_pj(&st.service.cancel_task(&p, &ctx).await?)?)
}

/// The push config methods, behind the service's one push guard, taken before any body is
/// read (a server without push answers every push request the same).
pub(crate) struct Push(PushConfigs);

impl FromRequestParts<AppState> for Push {
    type Rejection = Error03;

    async fn from_request_parts(_: &mut Parts, st: &AppState) -> Result<Self, Self::Rejection> {
        Ok(Push(st.service.push_configs()?))
    }
}

/// `POST /v1/tasks/{id}/pushNotificationConfigs`: either body in use (see
/// `create_push_config_from_pj`).
async fn create_push_config(
    State(st): State<AppState>,
    Path(task_id): Path<String>,
    Ctx03(ctx): Ctx03,
    Push(push): Push,
    req: Request,
) -> Result<Response, Error03> {
    let v = json_body(req, &st).await?;
    let c = t::create_push_config_from_pj(v, &task_id)?;
    ok(&t::push_config_to_pj(&push.create(c, &ctx).await?))
}

/// `GET /v1/tasks/{id}/pushNotificationConfigs`: `{configs, nextPageToken}`.
async fn list_push_configs(
    Path(task_id): Path<String>,
    Ctx03(ctx): Ctx03,
    Push(push): Push,
) -> Result<Response, Error03> {
    let p = a2a::ListTaskPushNotificationConfigsRequest {
        task_id,
        ..Default::default()
    };
    ok(&t::list_push_configs_response_to_pj(
        &push.list(&p, &ctx).await?,
    ))
}

/// `GET /v1/tasks/{id}/pushNotificationConfigs/{cid}`.
async fn get_push_config(
    Path((task_id, id)): Path<(String, String)>,
    Ctx03(ctx): Ctx03,
    Push(push): Push,
) -> Result<Response, Error03> {
    let p = a2a::TaskPushNotificationConfigRef {
        task_id,
        id,
        ..Default::default()
    };
    ok(&t::push_config_to_pj(&push.get(&p, &ctx).await?))
}

/// `DELETE /v1/tasks/{id}/pushNotificationConfigs/{cid}`: `{}`.
async fn delete_push_config(
    Path((task_id, id)): Path<(String, String)>,
    Ctx03(ctx): Ctx03,
    Push(push): Push,
) -> Result<Response, Error03> {
    let p = a2a::TaskPushNotificationConfigRef {
        task_id,
        id,
        ..Default::default()
    };
    push.delete(&p, &ctx).await?;
    ok(&serde_json::json!({}))
}

/// `GET /v1/card`: the authenticated extended card, in 0.3 JSON (as a2a-sdk 0.3 serves it,
/// so its signatures verify for 0.3 readers).
async fn extended_card(State(st): State<AppState>, Ctx03(ctx): Ctx03) -> Result<Response, Error03> {
    ok(&st.swap.extended_card_in(&ctx, WireVersion::V0_3)?)
}

fn no_such_endpoint() -> Error03 {
    Error03::A2a(A2aError::MethodNotFound, "no such A2A 0.3 endpoint".into())
}

/// Any other `/v1` path.
async fn not_found() -> Error03 {
    no_such_endpoint()
}

/// A `/v1` path asked with a method it does not answer.
async fn method_not_allowed(method: axum::http::Method) -> Error03 {
    Error03::Refused(
        HttpRefusal::MethodNotAllowed,
        format!("this A2A 0.3 endpoint does not answer {method}"),
    )
}

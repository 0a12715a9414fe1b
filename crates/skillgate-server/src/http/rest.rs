//! The HTTP+JSON (REST) binding: a thin adapter over the service. Bodies come in through the
//! extractors of `body`; every failure is an [`ApiError`], answered as a `google.rpc.Status`
//! body built by `skillgate_a2a`.

use super::body::{BodyError, OptionalJson, StrictJson};
use super::observe::ErrorReason;
use super::{sse, AppState, Ctx, JSON_CONTENT_TYPE};
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use skillgate_a2a::{self as a2a, A2aError, HttpRefusal, RestErrorBody};
use skillgate_runtime::service::ServiceError;
use std::collections::HashMap;

fn json_response<T: serde::Serialize>(status: StatusCode, v: &T) -> Response {
    let body = super::answer_json(v).unwrap_or_default();
    let mut r = (status, body).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(JSON_CONTENT_TYPE),
    );
    r
}

/// A failure on the REST binding (or in a layer in front of both bindings), answered as a
/// `google.rpc.Status` body with the HTTP status the body's `code` names.
#[derive(Debug)]
pub(crate) enum ApiError {
    /// An A2A error and the message for the caller.
    A2a(A2aError, String),
    /// A refusal outside the A2A error table (401, 413) and its message.
    Refused(HttpRefusal, String),
}

impl ApiError {
    /// An A2A error with a message.
    pub(crate) fn new(kind: A2aError, message: impl Into<String>) -> Self {
        Self::A2a(kind, message.into())
    }
}

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        Self::A2a(e.kind, e.message)
    }
}

impl From<BodyError> for ApiError {
    fn from(e: BodyError) -> Self {
        let message = e.message();
        match e {
            BodyError::TooLarge(_) => Self::Refused(HttpRefusal::PayloadTooLarge, message),
            BodyError::Parse(_) => Self::A2a(A2aError::ParseError, message),
            BodyError::Timeout | BodyError::Read => Self::A2a(A2aError::InvalidRequest, message),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (body, reason): (RestErrorBody, _) = match self {
            Self::A2a(kind, message) => (kind.to_rest(message), kind.reason()),
            Self::Refused(refusal, message) => (
                A2aError::refusal_to_rest(refusal, message),
                refusal.grpc_status(),
            ),
        };
        // An unknown code cannot come out of the two tables above; 400 keeps the answer valid.
        let status = StatusCode::from_u16(body.error.code).unwrap_or(StatusCode::BAD_REQUEST);
        let mut r = json_response(status, &body);
        r.extensions_mut().insert(ErrorReason(reason));
        r
    }
}

/// `POST /message:send`.
pub(crate) async fn send_message(
    State(st): State<AppState>,
    Ctx(ctx): Ctx,
    StrictJson(p): StrictJson<a2a::SendMessageRequest>,
) -> Result<Response, ApiError> {
    let r = st.service.send_message(p, &ctx).await?;
    Ok(json_response(StatusCode::OK, &r))
}

/// `POST /message:stream`.
pub(crate) async fn send_streaming_message(
    State(st): State<AppState>,
    Ctx(ctx): Ctx,
    StrictJson(p): StrictJson<a2a::SendMessageRequest>,
) -> Result<Response, ApiError> {
    Ok(sse::rest(
        st.service.send_streaming_message(p, &ctx).await?,
        &st,
    ))
}

fn query_int(
    q: &HashMap<String, String>,
    camel: &str,
    snake: &str,
) -> Result<Option<i32>, ServiceError> {
    match q.get(camel).or_else(|| q.get(snake)) {
        None => Ok(None),
        Some(s) => s.parse::<i32>().map(Some).map_err(|_| {
            ServiceError::new(
                A2aError::InvalidParams,
                format!("{camel} must be an integer"),
            )
        }),
    }
}

fn query_str(q: &HashMap<String, String>, camel: &str, snake: &str) -> Option<String> {
    q.get(camel).or_else(|| q.get(snake)).cloned()
}

/// `GET`/`POST /tasks/{id}:subscribe`: the task's events as SSE.
async fn subscribe(
    st: &AppState,
    task_id: &str,
    ctx: &skillgate_runtime::service::RequestContext,
) -> Result<Response, ApiError> {
    let p = a2a::SubscribeToTaskRequest {
        id: task_id.to_string(),
        ..Default::default()
    };
    Ok(sse::rest(st.service.subscribe_to_task(&p, ctx).await?, st))
}

/// `GET /tasks/{id}` and `GET /tasks/{id}:subscribe`.
pub(crate) async fn get_task_or_subscribe(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    Ctx(ctx): Ctx,
) -> Result<Response, ApiError> {
    if let Some(task_id) = id.strip_suffix(":subscribe") {
        return subscribe(&st, task_id, &ctx).await;
    }
    let p = a2a::GetTaskRequest {
        id,
        history_length: query_int(&q, "historyLength", "history_length")?,
        ..Default::default()
    };
    Ok(json_response(
        StatusCode::OK,
        &st.service.get_task(&p, &ctx).await?,
    ))
}

/// `POST /tasks/{id}:cancel` and `POST /tasks/{id}:subscribe`. Only cancel reads the body,
/// so the body extractor runs in that branch.
pub(crate) async fn post_task_action(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Ctx(ctx): Ctx,
    req: Request,
) -> Result<Response, ApiError> {
    if let Some(task_id) = id.strip_suffix(":subscribe") {
        return subscribe(&st, task_id, &ctx).await;
    }
    let Some(task_id) = id.strip_suffix(":cancel") else {
        return Err(not_found_error());
    };
    // The body is optional (`{}` or metadata); it is read within the same limits.
    let OptionalJson(body) = OptionalJson::from_request(req, &st).await?;
    let p = a2a::CancelTaskRequest {
        id: task_id.to_string(),
        metadata: match body.as_ref().and_then(|v| v.get("metadata")) {
            Some(Value::Object(md)) => Some(md.clone()),
            _ => None,
        },
        ..Default::default()
    };
    Ok(json_response(
        StatusCode::OK,
        &st.service.cancel_task(&p, &ctx).await?,
    ))
}

/// `GET /tasks`.
pub(crate) async fn list_tasks(
    State(st): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
    Ctx(ctx): Ctx,
) -> Result<Response, ApiError> {
    let p = list_request(&q)?;
    Ok(json_response(
        StatusCode::OK,
        &st.service.list_tasks(&p, &ctx).await?,
    ))
}

/// The `ListTasks` request the query string describes (camelCase or snake_case names).
fn list_request(q: &HashMap<String, String>) -> Result<a2a::ListTasksRequest, ServiceError> {
    let status = match query_str(q, "status", "status") {
        None => a2a::TaskState::Unspecified,
        Some(s) => s
            .parse()
            .map_err(|e: String| ServiceError::new(A2aError::InvalidParams, e))?,
    };
    let include_artifacts = match query_str(q, "includeArtifacts", "include_artifacts").as_deref() {
        None => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(_) => {
            return Err(ServiceError::new(
                A2aError::InvalidParams,
                "includeArtifacts must be true or false",
            ))
        }
    };
    Ok(a2a::ListTasksRequest {
        tenant: String::new(),
        context_id: query_str(q, "contextId", "context_id").unwrap_or_default(),
        status,
        page_size: query_int(q, "pageSize", "page_size")?,
        page_token: query_str(q, "pageToken", "page_token").unwrap_or_default(),
        history_length: query_int(q, "historyLength", "history_length")?,
        status_timestamp_after: query_str(q, "statusTimestampAfter", "status_timestamp_after"),
        include_artifacts,
    })
}

/// The push config methods, taken from the service's one push guard by an extractor that runs
/// before the body is read: a server without push notifications answers every push request
/// the same, whatever it carries.
pub(crate) struct Push(skillgate_runtime::PushConfigs);

impl FromRequestParts<AppState> for Push {
    type Rejection = ApiError;

    async fn from_request_parts(_: &mut Parts, st: &AppState) -> Result<Self, Self::Rejection> {
        Ok(Push(st.service.push_configs()?))
    }
}

/// `POST /tasks/{id}/pushNotificationConfigs`: the body is the config (its `taskId`, when
/// present, must be the path's).
pub(crate) async fn create_push_config(
    Path(task_id): Path<String>,
    Ctx(ctx): Ctx,
    Push(push): Push,
    StrictJson(mut c): StrictJson<a2a::TaskPushNotificationConfig>,
) -> Result<Response, ApiError> {
    if !c.task_id.is_empty() && c.task_id != task_id {
        return Err(ApiError::new(
            A2aError::InvalidParams,
            "taskId in the body must be empty or the task of the path",
        ));
    }
    c.task_id = task_id;
    let created = push.create(c, &ctx).await?;
    Ok(json_response(StatusCode::OK, &created))
}

/// `GET /tasks/{id}/pushNotificationConfigs?pageSize=&pageToken=`.
pub(crate) async fn list_push_configs(
    Path(task_id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    Ctx(ctx): Ctx,
    Push(push): Push,
) -> Result<Response, ApiError> {
    let p = a2a::ListTaskPushNotificationConfigsRequest {
        task_id,
        page_size: query_int(&q, "pageSize", "page_size")?,
        page_token: query_str(&q, "pageToken", "page_token").unwrap_or_default(),
        ..Default::default()
    };
    Ok(json_response(StatusCode::OK, &push.list(&p, &ctx).await?))
}

/// `GET /tasks/{id}/pushNotificationConfigs/{cid}`.
pub(crate) async fn get_push_config(
    Path((task_id, id)): Path<(String, String)>,
    Ctx(ctx): Ctx,
    Push(push): Push,
) -> Result<Response, ApiError> {
    let p = a2a::TaskPushNotificationConfigRef {
        task_id,
        id,
        ..Default::default()
    };
    Ok(json_response(StatusCode::OK, &push.get(&p, &ctx).await?))
}

/// `DELETE /tasks/{id}/pushNotificationConfigs/{cid}`: `{}`.
pub(crate) async fn delete_push_config(
    Path((task_id, id)): Path<(String, String)>,
    Ctx(ctx): Ctx,
    Push(push): Push,
) -> Result<Response, ApiError> {
    let p = a2a::TaskPushNotificationConfigRef {
        task_id,
        id,
        ..Default::default()
    };
    push.delete(&p, &ctx).await?;
    Ok(json_response(StatusCode::OK, &serde_json::json!({})))
}

/// Any other method on a push config path: refused like the others while push notifications
/// are off (by the [`Push`] extractor), else 405.
pub(crate) async fn push_config_other(_: Push, method: axum::http::Method) -> ApiError {
    method_not_allowed(method).await
}

/// `GET /extendedAgentCard`.
pub(crate) async fn extended_card(
    State(st): State<AppState>,
    Ctx(ctx): Ctx,
) -> Result<Response, ApiError> {
    Ok(json_response(StatusCode::OK, &st.extended_card(&ctx)?))
}

/// The answer to a path that is no A2A endpoint.
fn not_found_error() -> ApiError {
    ApiError::new(A2aError::MethodNotFound, "no such A2A endpoint")
}

/// Anything else.
pub(crate) async fn not_found() -> ApiError {
    not_found_error()
}

/// An A2A path asked with a method it does not answer: 405 with a JSON body (axum's default
/// is an empty one).
pub(crate) async fn method_not_allowed(method: axum::http::Method) -> ApiError {
    ApiError::Refused(
        HttpRefusal::MethodNotAllowed,
        format!("this A2A endpoint does not answer {method}"),
    )
}

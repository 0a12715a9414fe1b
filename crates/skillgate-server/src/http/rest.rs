//! The HTTP+JSON (REST) binding: a thin adapter over the service.

use super::body::{is_json_content_type, read_bytes, read_json, BodyError};
use super::{request_context, sse, AppState, JSON_CONTENT_TYPE};
use crate::service::ServiceError;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::Value;
use skillgate_a2a::{self as a2a, A2aError};
use std::collections::HashMap;

fn json_response<T: serde::Serialize>(status: StatusCode, v: &T) -> Response {
    let body = serde_json::to_vec(v).unwrap_or_default();
    let mut r = (status, body).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(JSON_CONTENT_TYPE),
    );
    r
}

/// A `google.rpc.Status` error response.
pub(crate) fn error_response(kind: A2aError, message: &str) -> Response {
    let status = StatusCode::from_u16(kind.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
    json_response(status, &kind.to_rest(message))
}

fn service_error(e: ServiceError) -> Response {
    error_response(e.kind, &e.message)
}

fn body_error(e: BodyError) -> Response {
    match e {
        BodyError::TooLarge(_) => {
            let body = serde_json::json!({"error": {"code": 413, "status": "RESOURCE_EXHAUSTED",
                "message": e.message(), "details": []}});
            json_response(StatusCode::PAYLOAD_TOO_LARGE, &body)
        }
        BodyError::Parse(_) => error_response(A2aError::ParseError, &e.message()),
        _ => error_response(A2aError::InvalidRequest, &e.message()),
    }
}

async fn typed_body<T: DeserializeOwned>(st: &AppState, req: Request) -> Result<T, Response> {
    if !is_json_content_type(req.headers()) {
        return Err(error_response(
            A2aError::ContentTypeNotSupported,
            "request bodies must be application/json or application/a2a+json",
        ));
    }
    let v = read_json(st, req.into_body()).await.map_err(body_error)?;
    if !v.is_object() {
        return Err(error_response(
            A2aError::InvalidParams,
            "the request body must be a JSON object",
        ));
    }
    serde_json::from_value(v)
        .map_err(|e| error_response(A2aError::InvalidParams, &format!("invalid request: {e}")))
}

/// `POST /message:send`.
pub(crate) async fn send_message(State(st): State<AppState>, req: Request) -> Response {
    let ctx = request_context(req.extensions());
    let p: a2a::SendMessageRequest = match typed_body(&st, req).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    match st.service.send_message(p, &ctx).await {
        Ok(r) => json_response(StatusCode::OK, &r),
        Err(e) => service_error(e),
    }
}

/// `POST /message:stream`.
pub(crate) async fn send_streaming_message(State(st): State<AppState>, req: Request) -> Response {
    let ctx = request_context(req.extensions());
    let p: a2a::SendMessageRequest = match typed_body(&st, req).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    match st.service.send_streaming_message(p, &ctx).await {
        Ok(s) => sse::rest(s),
        Err(e) => service_error(e),
    }
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

/// `GET /tasks/{id}` and `GET /tasks/{id}:subscribe`.
pub(crate) async fn get_task_or_subscribe(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    req: Request,
) -> Response {
    let ctx = request_context(req.extensions());
    if let Some(task_id) = id.strip_suffix(":subscribe") {
        let p = a2a::SubscribeToTaskRequest {
            id: task_id.to_string(),
            ..Default::default()
        };
        return match st.service.subscribe_to_task(&p, &ctx).await {
            Ok(s) => sse::rest(s),
            Err(e) => service_error(e),
        };
    }
    let history_length = match query_int(&q, "historyLength", "history_length") {
        Ok(h) => h,
        Err(e) => return service_error(e),
    };
    let p = a2a::GetTaskRequest {
        id,
        history_length,
        ..Default::default()
    };
    match st.service.get_task(&p, &ctx).await {
        Ok(t) => json_response(StatusCode::OK, &t),
        Err(e) => service_error(e),
    }
}

/// `POST /tasks/{id}:cancel` and `POST /tasks/{id}:subscribe`.
pub(crate) async fn post_task_action(
    State(st): State<AppState>,
    Path(id): Path<String>,
    req: Request,
) -> Response {
    let ctx = request_context(req.extensions());
    if let Some(task_id) = id.strip_suffix(":subscribe") {
        let p = a2a::SubscribeToTaskRequest {
            id: task_id.to_string(),
            ..Default::default()
        };
        return match st.service.subscribe_to_task(&p, &ctx).await {
            Ok(s) => sse::rest(s),
            Err(e) => service_error(e),
        };
    }
    let Some(task_id) = id.strip_suffix(":cancel") else {
        return not_found().await;
    };
    // The body is optional (`{}` or metadata); read it within the same limits.
    if !is_json_content_type(req.headers()) {
        return error_response(
            A2aError::ContentTypeNotSupported,
            "request bodies must be application/json or application/a2a+json",
        );
    }
    let bytes = match read_bytes(&st, req.into_body()).await {
        Ok(b) => b,
        Err(e) => return body_error(e),
    };
    let mut p = a2a::CancelTaskRequest::default();
    if !bytes.iter().all(u8::is_ascii_whitespace) {
        let v = match skillgate_core::jcs::parse_strict_with(
            &bytes,
            skillgate_core::jcs::ParseOptions {
                max_depth: st.max_depth,
            },
        ) {
            Ok(v) => v,
            Err(e) => return body_error(BodyError::Parse(e)),
        };
        if let Some(Value::Object(md)) = v.get("metadata") {
            p.metadata = Some(md.clone());
        }
    }
    p.id = task_id.to_string();
    match st.service.cancel_task(&p, &ctx).await {
        Ok(t) => json_response(StatusCode::OK, &t),
        Err(e) => service_error(e),
    }
}

/// `GET /tasks`.
pub(crate) async fn list_tasks(
    State(st): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
    req: Request,
) -> Response {
    let ctx = request_context(req.extensions());
    let parse = || -> Result<a2a::ListTasksRequest, ServiceError> {
        let status = match query_str(&q, "status", "status") {
            None => a2a::TaskState::Unspecified,
            Some(s) => s
                .parse()
                .map_err(|e: String| ServiceError::new(A2aError::InvalidParams, e))?,
        };
        let include_artifacts =
            match query_str(&q, "includeArtifacts", "include_artifacts").as_deref() {
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
            context_id: query_str(&q, "contextId", "context_id").unwrap_or_default(),
            status,
            page_size: query_int(&q, "pageSize", "page_size")?,
            page_token: query_str(&q, "pageToken", "page_token").unwrap_or_default(),
            history_length: query_int(&q, "historyLength", "history_length")?,
            status_timestamp_after: query_str(&q, "statusTimestampAfter", "status_timestamp_after"),
            include_artifacts,
        })
    };
    let p = match parse() {
        Ok(p) => p,
        Err(e) => return service_error(e),
    };
    match st.service.list_tasks(&p, &ctx).await {
        Ok(r) => json_response(StatusCode::OK, &r),
        Err(e) => service_error(e),
    }
}

/// Push notification config paths.
pub(crate) async fn push_not_supported(State(st): State<AppState>) -> Response {
    match st.service.push_notification_config() {
        Ok(()) => json_response(StatusCode::OK, &serde_json::Value::Null),
        Err(e) => service_error(e),
    }
}

/// `GET /extendedAgentCard`.
pub(crate) async fn extended_card(State(st): State<AppState>) -> Response {
    match st.service.extended_agent_card() {
        Ok(()) => json_response(StatusCode::OK, &serde_json::Value::Null),
        Err(e) => service_error(e),
    }
}

/// Anything else.
pub(crate) async fn not_found() -> Response {
    error_response(A2aError::MethodNotFound, "no such A2A endpoint")
}

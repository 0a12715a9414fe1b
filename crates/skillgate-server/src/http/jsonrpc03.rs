//! The A2A 0.3 dialect of the JSON-RPC binding (`message/send`, `tasks/get`, ...): each request
//! is read into the 1.0 request by `skillgate_a2a::v03`, answered by the same service as a 1.0
//! request, and the 1.0 answer written back in 0.3 shapes by the same module. No rule of the
//! draft or of A2A lives here: only which service method each 0.3 method calls.

use super::jsonrpc::{reply, reply_bytes};
use super::observe::ErrorReason;
use super::{sse, AppState};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;
use skillgate_a2a::v03::rpc::{self, Request};
use skillgate_a2a::v03::translate as t;
use skillgate_a2a::v03::WriteError;
use skillgate_a2a::{self as a2a, A2aError, JsonRpcId, JsonRpcRequest, JsonRpcResponse};
use skillgate_runtime::service::{PushConfigs, RequestContext, ServiceError};

/// A 0.3 JSON-RPC error answer: `{code, message}`, no `data` (0.3 defines none).
pub(super) fn error(id: JsonRpcId, kind: A2aError, message: &str) -> Response {
    error_with_status(StatusCode::OK, id, kind, message)
}

/// [`error`] with another HTTP status (413 for a body over the limit).
pub(super) fn error_with_status(
    status: StatusCode,
    id: JsonRpcId,
    kind: A2aError,
    message: &str,
) -> Response {
    let mut r = reply(
        status,
        &JsonRpcResponse::error(id, a2a::v03::jsonrpc_error(kind, message)),
    );
    r.extensions_mut().insert(ErrorReason(kind.reason()));
    r
}

fn service_error(id: JsonRpcId, e: ServiceError) -> Response {
    error(id, e.kind, &e.message)
}

/// A 1.0 answer our own service produced that 0.3 cannot say: never expected (the service
/// writes no UNSPECIFIED role or state), reported rather than invented.
fn unwritable(id: JsonRpcId, e: &WriteError) -> Response {
    error(
        id,
        A2aError::InternalError,
        &format!("the answer has no A2A 0.3 form: {e}"),
    )
}

/// Writes `result` straight into the body, as the 1.0 adapter does: the describe_skill
/// document inside it is a shared part serialized from its stored text, never copied.
fn ok<T: Serialize>(id: JsonRpcId, result: &T) -> Response {
    match super::answer_json(&a2a::JsonRpcSuccess { id: &id, result }) {
        Ok(body) => reply_bytes(StatusCode::OK, body),
        Err(_) => error(
            id,
            A2aError::InternalError,
            "could not serialize the result",
        ),
    }
}

/// One SSE `data:` line of a 0.3 stream: the event as the bare 0.3 object (with `kind`, and
/// `final` on status updates), or a JSON-RPC error if it has no 0.3 form.
fn stream_event(id: &JsonRpcId, ev: a2a::StreamResponse) -> String {
    let body = match t::stream_response_to_v03(&ev) {
        Ok(e) => serde_json::to_string(&a2a::JsonRpcSuccess { id, result: &e }),
        Err(e) => serde_json::to_string(&JsonRpcResponse::error(
            id.clone(),
            a2a::v03::jsonrpc_error(
                A2aError::InternalError,
                format!("an event has no A2A 0.3 form: {e}"),
            ),
        )),
    };
    body.unwrap_or_default()
}

/// Answers one 0.3 JSON-RPC request whose version was already negotiated.
pub(super) async fn dispatch(
    st: &AppState,
    id: JsonRpcId,
    rpc: JsonRpcRequest,
    ctx: &RequestContext,
) -> Response {
    let request = match rpc::read_request(&rpc.method, rpc.params) {
        Ok(r) => r,
        Err(e) => return error(id, e.a2a_error(), &e.to_string()),
    };
    let svc = &st.service;
    match request {
        Request::SendMessage(p) => match svc.send_message(p, ctx).await {
            Ok(r) => match t::send_message_response_to_v03(&r) {
                Ok(r) => ok(id, &r),
                Err(e) => unwritable(id, &e),
            },
            Err(e) => service_error(id, e),
        },
        Request::SendStreamingMessage(p) => match svc.send_streaming_message(p, ctx).await {
            Ok(s) => sse::jsonrpc_mapped(id, s, st, stream_event),
            Err(e) => service_error(id, e),
        },
        Request::GetTask(p) => task(id, svc.get_task(&p, ctx).await),
        Request::CancelTask(p) => task(id, svc.cancel_task(&p, ctx).await),
        Request::SubscribeToTask(p) => match svc.subscribe_to_task(&p, ctx).await {
            Ok(s) => sse::jsonrpc_mapped(id, s, st, stream_event),
            // 0.3 reports an error found before the first event inside the stream.
            Err(e) => sse::single(
                serde_json::to_string(&JsonRpcResponse::error(
                    id,
                    a2a::v03::jsonrpc_error(e.kind, e.message),
                ))
                .unwrap_or_default(),
            ),
        },
        Request::GetExtendedAgentCard => {
            match st
                .swap
                .extended_card_in(ctx, a2a::version::WireVersion::V0_3)
            {
                Ok(card) => ok(id, &card),
                Err(e) => service_error(id, e),
            }
        }
        push => match svc.push_configs() {
            Ok(configs) => push_method(id, &configs, push, ctx).await,
            Err(e) => service_error(id, e),
        },
    }
}

fn task(id: JsonRpcId, r: Result<a2a::Task, ServiceError>) -> Response {
    match r {
        Ok(task) => match t::task_to_v03(&task) {
            Ok(task) => ok(id, &task),
            Err(e) => unwritable(id, &e),
        },
        Err(e) => service_error(id, e),
    }
}

/// The four push config methods, behind the service's one push guard.
async fn push_method(
    id: JsonRpcId,
    push: &PushConfigs,
    request: Request,
    ctx: &RequestContext,
) -> Response {
    let written = match request {
        Request::CreateTaskPushNotificationConfig(c) => push
            .create(c, ctx)
            .await
            .map(|c| ok(id.clone(), &t::push_config_to_v03(&c))),
        // No config id: 0.3 had one config per task, so the oldest one.
        Request::GetTaskPushNotificationConfig(r) if r.id.is_empty() => push
            .oldest(&r.task_id, ctx)
            .await
            .map(|c| ok(id.clone(), &t::push_config_to_v03(&c))),
        Request::GetTaskPushNotificationConfig(r) => push
            .get(&r, ctx)
            .await
            .map(|c| ok(id.clone(), &t::push_config_to_v03(&c))),
        Request::ListTaskPushNotificationConfigs(r) => push
            .list(&r, ctx)
            .await
            .map(|l| ok(id.clone(), &t::list_push_configs_response_to_v03(&l))),
        Request::DeleteTaskPushNotificationConfig(r) => push
            .delete(&r, ctx)
            .await
            .map(|()| ok(id.clone(), &rpc::write_delete_result())),
        _ => Err(ServiceError::new(
            A2aError::MethodNotFound,
            "not a push notification config method",
        )),
    };
    written.unwrap_or_else(|e| service_error(id, e))
}

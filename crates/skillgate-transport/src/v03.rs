//! The A2A 0.3 JSON-RPC dialect on the client side (`docs/a2a-0.3.md` 3.7), and the 0.3
//! event stream reader both 0.3 dialects share (HTTP+JSON's requests are in `v03rest`).
//!
//! An [`crate::Endpoint`] on a 0.3 interface writes each 1.0 operation as its 0.3 method
//! (`message/send`, `tasks/get`, ...) with 0.3 params, and turns every answer back into the 1.0
//! JSON-RPC shapes before anyone reads it: a whole body here ([`translate_body`]), an event
//! stream one event at a time ([`V03Events`]). So the client, the conformance checker and the
//! gateway parse 1.0 only. Every object mapping is `skillgate_a2a::v03`'s; this module only
//! picks which mapping an answer needs and frames the result.

use serde::Serialize;
use serde_json::Value;
use skillgate_a2a::v03::rpc::{self, Request};
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{methods, JsonRpcId, JsonRpcRequest, JsonRpcResponse};
use url::Url;

use crate::{redact, SseEvent, SseParser, TransportError};

/// What the `result` of a 0.3 answer is, so it is read with the right mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResultKind {
    /// `message/send`: a bare Task or Message (1.0 `{"task":..}` / `{"message":..}`).
    SendMessage,
    /// `tasks/get`, `tasks/cancel`: a Task.
    Task,
    /// `message/stream`, `tasks/resubscribe`: one stream event per SSE `data:`.
    StreamEvent,
    /// `agent/getAuthenticatedExtendedCard`: a 0.3 card, handed back as the 1.0 card.
    Card,
    /// `tasks/pushNotificationConfig/set` and `.../get`: a nested 0.3 config, handed back
    /// as the flat 1.0 config.
    PushConfig,
    /// `tasks/pushNotificationConfig/list`: a bare array, handed back as 1.0's `{configs}`.
    PushConfigs,
    /// `tasks/pushNotificationConfig/delete`: `null`, handed back as 1.0's `{}`.
    Deleted,
}

/// A 1.0 operation's params as the typed 1.0 request `T` (the endpoint's callers hand over
/// typed requests; they reach here serialized so one function serves every operation).
fn typed<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, TransportError> {
    serde_json::from_value(params)
        .map_err(|e| TransportError::Config(format!("cannot encode the request: {e}")))
}

/// The 0.3 request of a 1.0 operation, with what its answer will hold: every operation 0.3
/// JSON-RPC has. The one it does not have (`ListTasks`) is refused before anything is sent.
fn request_of(
    method: &'static str,
    params: Value,
) -> Result<(Request, ResultKind), TransportError> {
    Ok(match method {
        methods::SEND_MESSAGE => (
            Request::SendMessage(typed(params)?),
            ResultKind::SendMessage,
        ),
        methods::SEND_STREAMING_MESSAGE => (
            Request::SendStreamingMessage(typed(params)?),
            ResultKind::StreamEvent,
        ),
        methods::GET_TASK => (Request::GetTask(typed(params)?), ResultKind::Task),
        methods::CANCEL_TASK => (Request::CancelTask(typed(params)?), ResultKind::Task),
        methods::SUBSCRIBE_TO_TASK => (
            Request::SubscribeToTask(typed(params)?),
            ResultKind::StreamEvent,
        ),
        methods::GET_EXTENDED_AGENT_CARD => (Request::GetExtendedAgentCard, ResultKind::Card),
        methods::CREATE_TASK_PUSH_NOTIFICATION_CONFIG => (
            Request::CreateTaskPushNotificationConfig(typed(params)?),
            ResultKind::PushConfig,
        ),
        methods::GET_TASK_PUSH_NOTIFICATION_CONFIG => (
            Request::GetTaskPushNotificationConfig(typed(params)?),
            ResultKind::PushConfig,
        ),
        methods::LIST_TASK_PUSH_NOTIFICATION_CONFIGS => (
            Request::ListTaskPushNotificationConfigs(typed(params)?),
            ResultKind::PushConfigs,
        ),
        methods::DELETE_TASK_PUSH_NOTIFICATION_CONFIG => (
            Request::DeleteTaskPushNotificationConfig(typed(params)?),
            ResultKind::Deleted,
        ),
        other => {
            return Err(TransportError::Unsupported {
                operation: other,
                version: WireVersion::V0_3,
            })
        }
    })
}

/// The body of the 0.3 JSON-RPC request for 1.0 `method` with `params`, under `id`, and what
/// its answer's `result` is.
pub(crate) fn request<P: Serialize>(
    method: &'static str,
    params: &P,
    id: &JsonRpcId,
) -> Result<(Vec<u8>, ResultKind), TransportError> {
    let params = serde_json::to_value(params)
        .map_err(|e| TransportError::Config(format!("cannot encode the request: {e}")))?;
    let (request, kind) = request_of(method, params)?;
    let (name, params) = rpc::write_request(&request)
        .map_err(|e| TransportError::Config(format!("the request has no A2A 0.3 form: {e}")))?;
    let envelope = JsonRpcRequest {
        params,
        ..JsonRpcRequest::new(id.clone(), name, Value::Null)
    };
    let body = serde_json::to_vec(&envelope)
        .map_err(|e| TransportError::Config(format!("cannot encode the request: {e}")))?;
    Ok((body, kind))
}

fn bad(url: &Url, reason: impl Into<String>) -> TransportError {
    TransportError::V03Answer {
        url: redact(url),
        reason: reason.into(),
    }
}

fn json<T: Serialize>(v: &T, url: &Url) -> Result<Value, TransportError> {
    serde_json::to_value(v).map_err(|e| bad(url, format!("no 1.0 JSON form: {e}")))
}

/// A 0.3 `result` as the 1.0 `result` of the same operation.
fn result(kind: ResultKind, v: Value, url: &Url) -> Result<Value, TransportError> {
    let read = |e: skillgate_a2a::v03::ReadError| bad(url, e.to_string());
    match kind {
        ResultKind::SendMessage => json(&rpc::read_send_message_result(v).map_err(read)?, url),
        ResultKind::Task => json(&rpc::read_task(v).map_err(read)?, url),
        ResultKind::StreamEvent => json(&rpc::read_stream_event(v).map_err(read)?, url),
        ResultKind::Card => {
            let (card, _) =
                skillgate_a2a::v03::card::read(&v).map_err(|e| bad(url, format!("result: {e}")))?;
            json(&card, url)
        }
        ResultKind::PushConfig => json(&rpc::read_push_config(v).map_err(read)?, url),
        ResultKind::PushConfigs => json(&rpc::read_push_configs(v).map_err(read)?, url),
        // 0.3 answers `null`; anything else is not a delete's answer.
        ResultKind::Deleted if v.is_null() => Ok(Value::Object(Default::default())),
        ResultKind::Deleted => Err(bad(url, "result: a delete answers null")),
    }
}

/// Takes the `data` out of a 0.3 error object before the 1.0 envelope reads it: the codes are
/// shared (0.3's -32007 AuthenticatedExtendedCardNotConfigured is 1.0's
/// ExtendedAgentCardNotConfigured), but 0.3 leaves `data` free-form where 1.0 holds typed
/// ErrorInfo objects, and a 0.3 agent's string or object there would make the whole answer
/// unreadable.
fn drop_error_data(v: &mut Value) {
    if let Some(Value::Object(e)) = v.get_mut("error") {
        e.remove("data");
    }
}

/// One 0.3 JSON-RPC answer (a whole body, or one SSE `data:`) as the 1.0 answer: parsed
/// strictly (I-JSON, as the 1.0 readers do), the envelope kept, the `result` translated, the
/// error reduced to what 1.0 can read.
fn envelope(kind: ResultKind, bytes: &[u8], url: &Url) -> Result<JsonRpcResponse, TransportError> {
    let v = skillgate_core::jcs::parse_strict(bytes).map_err(|e| {
        bad(
            url,
            format!(
                "not JSON ({}: {} at {}:{})",
                e.kind.as_str(),
                e.message,
                e.line,
                e.column
            ),
        )
    })?;
    let mut v = v;
    drop_error_data(&mut v);
    if kind == ResultKind::Deleted {
        // A delete's `result` is `null`, and a2a-sdk 0.3 leaves null members out of every
        // answer: no `result` and no `error` is that `null`.
        if let Value::Object(m) = &mut v {
            if !m.contains_key("result") && !m.contains_key("error") {
                m.insert("result".into(), Value::Null);
            }
        }
    }
    let r = JsonRpcResponse::from_value(v).map_err(|e| bad(url, e.0))?;
    let outcome = match r.outcome {
        Ok(v) => Ok(result(kind, v, url)?),
        Err(e) => Err(e),
    };
    Ok(JsonRpcResponse { outcome, ..r })
}

/// A whole 0.3 answer body as the 1.0 body.
pub(crate) fn translate_body(
    kind: ResultKind,
    bytes: &[u8],
    url: &Url,
) -> Result<Vec<u8>, TransportError> {
    let r = envelope(kind, bytes, url)?;
    serde_json::to_vec(&r).map_err(|e| bad(url, format!("no 1.0 JSON form: {e}")))
}

/// Server-sent events of a 0.3 stream re-framed as the 1.0 events: one `data:` line each
/// (after the `event:` line, if the agent sent one), the JSON-RPC envelope translated.
fn reframe(events: Vec<SseEvent>, url: &Url, rest: bool) -> Result<Vec<u8>, TransportError> {
    let mut out = Vec::new();
    for e in events {
        let line = if rest {
            crate::v03rest::event(e.data.as_bytes(), url)?
        } else {
            let r = envelope(ResultKind::StreamEvent, e.data.as_bytes(), url)?;
            serde_json::to_string(&r).map_err(|e| bad(url, format!("no 1.0 JSON form: {e}")))?
        };
        if !e.event.is_empty() {
            out.extend_from_slice(format!("event: {}\n", e.event).as_bytes());
        }
        out.extend_from_slice(format!("data: {line}\n\n").as_bytes());
    }
    Ok(out)
}

/// A 0.3 event stream read as 1.0 events (see [`crate::Streaming`]): JSON-RPC envelopes, or
/// (`rest`) the ProtoJSON StreamResponses of 0.3 HTTP+JSON. The raw bytes are bounded here as
/// they arrive, before the parser buffers them, by the same limit the caller puts on the
/// translated stream.
pub(crate) struct V03Events {
    response: reqwest::Response,
    parser: SseParser,
    read: usize,
    limit: usize,
    finished: bool,
    rest: bool,
}

impl V03Events {
    /// The stream of `response`, bounded by `limit` bytes as received; `rest` for a 0.3
    /// HTTP+JSON stream.
    pub(crate) fn new(response: reqwest::Response, limit: usize, rest: bool) -> Self {
        Self {
            response,
            parser: SseParser::default(),
            read: 0,
            limit,
            finished: false,
            rest,
        }
    }

    /// The next translated events as event-stream bytes, or `None` at the end.
    pub(crate) async fn next_chunk(
        &mut self,
        url: &Url,
    ) -> Result<Option<Vec<u8>>, TransportError> {
        while !self.finished {
            let events = match self.response.chunk().await {
                Err(e) => return Err(crate::http::reqwest_error(e)),
                Ok(Some(c)) => {
                    self.read = self.read.saturating_add(c.len());
                    if self.read > self.limit {
                        return Err(TransportError::TooLarge {
                            limit: self.limit,
                            url: redact(url),
                        });
                    }
                    self.parser.push(&c)
                }
                Ok(None) => {
                    self.finished = true;
                    self.parser.finish()
                }
            };
            if !events.is_empty() {
                return reframe(events, url, self.rest).map(Some);
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> Url {
        Url::parse("http://127.0.0.1:1/").unwrap()
    }

    #[test]
    fn list_tasks_is_refused_before_sending() {
        let e = request(
            methods::LIST_TASKS,
            &serde_json::json!({}),
            &JsonRpcId::Null,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                TransportError::Unsupported {
                    operation: "ListTasks",
                    version: WireVersion::V0_3
                }
            ),
            "{e:?}"
        );
        assert_eq!(e.code(), "unsupported_operation");
    }

    #[test]
    fn a_0_3_task_becomes_the_1_0_send_result_and_errors_lose_free_form_data() {
        let body = br#"{"jsonrpc":"2.0","id":"r1","result":{"kind":"task","id":"t","contextId":"c","status":{"state":"input-required"}}}"#;
        let out: Value =
            serde_json::from_slice(&translate_body(ResultKind::SendMessage, body, &url()).unwrap())
                .unwrap();
        assert_eq!(
            out["result"]["task"]["status"]["state"],
            "TASK_STATE_INPUT_REQUIRED"
        );
        assert_eq!(out["id"], "r1");
        let err = br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"Task not found","data":"free text"}}"#;
        let out: Value =
            serde_json::from_slice(&translate_body(ResultKind::Task, err, &url()).unwrap())
                .unwrap();
        assert_eq!(
            out,
            serde_json::json!({"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"Task not found"}})
        );
    }

    #[test]
    fn hostile_answers_are_typed_errors() {
        for body in [
            &b"<html>"[..],
            br#"{"jsonrpc":"2.0","id":"r","result":{"kind":"bogus"}}"#,
            br#"{"jsonrpc":"2.0","id":"r","result":{"kind":"message","messageId":"m","role":"system","parts":[]}}"#,
            br#"{"jsonrpc":"2.0","id":"r"}"#,
            br#"{"a":1,"a":2}"#,
        ] {
            let e = translate_body(ResultKind::SendMessage, body, &url()).unwrap_err();
            assert!(matches!(e, TransportError::V03Answer { .. }), "{e:?}");
        }
    }
}

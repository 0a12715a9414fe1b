//! The A2A 0.3 HTTP+JSON dialect on the client side (`docs/a2a-0.3.md` 1.10, 1.12, 3.7).
//!
//! An [`crate::Endpoint`] on a 0.3 HTTP+JSON interface writes each 1.0 operation as its `/v1`
//! request with a 0.3 ProtoJSON body, and hands every answer back in the 1.0 HTTP+JSON shapes:
//! a whole body here ([`translate_body`]), a 0.3 error as the 1.0 `google.rpc.Status` body
//! ([`translate_error`]), an event stream one event at a time (through
//! [`crate::v03::V03Events`] with [`event`]). So the client, the conformance checker and the
//! gateway parse 1.0 only. Every object mapping is `skillgate_a2a::v03`'s.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use skillgate_a2a::v03::rest::ErrorBody;
use skillgate_a2a::v03::translate::{history_length_to_v03, pj as t};
use skillgate_a2a::v03::{pj, ReadError};
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{methods, CancelTaskRequest, GetTaskRequest, SendMessageRequest};
use skillgate_a2a::{
    ListTaskPushNotificationConfigsRequest, TaskPushNotificationConfig,
    TaskPushNotificationConfigRef,
};
use url::Url;

use crate::{redact, TransportError};

/// What the body of a 0.3 HTTP+JSON answer is, so it is read with the right mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// `message:send`: a PJ SendMessageResponse.
    SendMessage,
    /// `tasks/{id}`, `tasks/{id}:cancel`: a PJ Task.
    Task,
    /// `message:stream`, `tasks/{id}:subscribe`: PJ StreamResponses as server-sent events.
    Events,
    /// `card`: a 0.3 card (0.3 JSON), handed back as the 1.0 card; a 0.3 gRPC
    /// `GetAgentCard` answer, its proto form undone first.
    Card,
    /// A PJ push config (create, get), handed back as the flat 1.0 config.
    PushConfig,
    /// A PJ `{configs, nextPageToken}` (list), handed back as the 1.0 list result.
    PushConfigs,
    /// A delete's answer (`{}`, or nothing), handed back as 1.0's `{}`.
    Deleted,
}

/// The HTTP method of a 0.3 HTTP+JSON request, with the body of a POST.
#[derive(Debug)]
pub(crate) enum Verb03 {
    /// `GET`.
    Get,
    /// `POST` with this ProtoJSON body.
    Post(Vec<u8>),
    /// `DELETE`.
    Delete,
}

/// One 0.3 HTTP+JSON request: the path segments under the interface URL (after `v1`), the
/// query, the method with its body, and what its answer holds.
#[derive(Debug)]
pub(crate) struct Request {
    /// Segments after `/v1`, each percent-encoded when the URL is built.
    pub(crate) segments: Vec<String>,
    /// `historyLength`, for `GET tasks/{id}`.
    pub(crate) history_length: Option<i32>,
    /// The method, and the ProtoJSON body of a POST.
    pub(crate) verb: Verb03,
    /// What the answer holds.
    pub(crate) answer: Answer,
}

fn config_error(e: impl std::fmt::Display) -> TransportError {
    TransportError::Config(format!("cannot encode the request: {e}"))
}

fn typed<T: DeserializeOwned>(params: Value) -> Result<T, TransportError> {
    serde_json::from_value(params).map_err(config_error)
}

fn post<T: Serialize>(v: &T) -> Result<Verb03, TransportError> {
    serde_json::to_vec(v)
        .map(Verb03::Post)
        .map_err(config_error)
}

/// `tasks/{t}/pushNotificationConfigs[/{id}]` as path segments.
fn config_segments(task_id: &str, id: Option<&str>) -> Vec<String> {
    let mut s = vec![
        "tasks".to_owned(),
        task_id.to_owned(),
        skillgate_a2a::v03::rest::PUSH_CONFIGS.to_owned(),
    ];
    s.extend(id.map(str::to_owned));
    s
}

/// The 0.3 HTTP+JSON request of 1.0 operation `method` with `params`. `ListTasks` has no
/// 0.3 form (the 0.3 proto has no such RPC) and is refused before anything is sent.
pub(crate) fn request<P: Serialize>(
    method: &'static str,
    params: &P,
) -> Result<Request, TransportError> {
    let params = serde_json::to_value(params).map_err(config_error)?;
    let no_form = |e: skillgate_a2a::v03::WriteError| {
        TransportError::Config(format!("the request has no A2A 0.3 form: {e}"))
    };
    let mut r = Request {
        segments: Vec::new(),
        history_length: None,
        verb: Verb03::Get,
        answer: Answer::Task,
    };
    match method {
        methods::SEND_MESSAGE | methods::SEND_STREAMING_MESSAGE => {
            let s: SendMessageRequest = typed(params)?;
            let streaming = method == methods::SEND_STREAMING_MESSAGE;
            let segment = if streaming {
                "message:stream"
            } else {
                "message:send"
            };
            r.segments.push(segment.to_owned());
            r.verb = post(&t::send_message_request_to_pj(&s).map_err(no_form)?)?;
            r.answer = if streaming {
                Answer::Events
            } else {
                Answer::SendMessage
            };
        }
        methods::GET_TASK => {
            let g: GetTaskRequest = typed(params)?;
            r.segments = vec!["tasks".into(), g.id];
            r.history_length = history_length_to_v03(g.history_length);
        }
        methods::CANCEL_TASK => {
            let c: CancelTaskRequest = typed(params)?;
            r.segments = vec!["tasks".into(), format!("{}:cancel", c.id)];
            // The proto's CancelTaskRequest minus its path member `name`.
            r.verb = Verb03::Post(b"{}".to_vec());
        }
        methods::SUBSCRIBE_TO_TASK => {
            let s: skillgate_a2a::SubscribeToTaskRequest = typed(params)?;
            r.segments = vec!["tasks".into(), format!("{}:subscribe", s.id)];
            r.answer = Answer::Events;
        }
        methods::GET_EXTENDED_AGENT_CARD => {
            r.segments.push("card".into());
            r.answer = Answer::Card;
        }
        methods::CREATE_TASK_PUSH_NOTIFICATION_CONFIG => {
            let c: TaskPushNotificationConfig = typed(params)?;
            r.segments = config_segments(&c.task_id, None);
            // The proto request, as a2a-sdk 0.3's client sends it (D263).
            r.verb = post(&t::create_push_config_to_pj(&c))?;
            r.answer = Answer::PushConfig;
        }
        methods::GET_TASK_PUSH_NOTIFICATION_CONFIG => {
            let g: TaskPushNotificationConfigRef = typed(params)?;
            r.segments = config_segments(&g.task_id, Some(&g.id));
            r.answer = Answer::PushConfig;
        }
        methods::LIST_TASK_PUSH_NOTIFICATION_CONFIGS => {
            let l: ListTaskPushNotificationConfigsRequest = typed(params)?;
            r.segments = config_segments(&l.task_id, None);
            r.answer = Answer::PushConfigs;
        }
        methods::DELETE_TASK_PUSH_NOTIFICATION_CONFIG => {
            let d: TaskPushNotificationConfigRef = typed(params)?;
            r.segments = config_segments(&d.task_id, Some(&d.id));
            r.verb = Verb03::Delete;
            r.answer = Answer::Deleted;
        }
        other => {
            return Err(TransportError::Unsupported {
                operation: other,
                version: WireVersion::V0_3,
            })
        }
    }
    Ok(r)
}

fn bad(url: &Url, reason: impl Into<String>) -> TransportError {
    TransportError::V03Answer {
        url: redact(url),
        reason: reason.into(),
    }
}

/// Strict I-JSON, as the 1.0 readers parse.
fn parse(bytes: &[u8], url: &Url) -> Result<Value, TransportError> {
    skillgate_core::jcs::parse_strict(bytes).map_err(|e| {
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
    })
}

fn read<T: DeserializeOwned>(v: Value, url: &Url) -> Result<T, TransportError> {
    serde_json::from_value(v).map_err(|e| bad(url, ReadError::shape("body", &e).to_string()))
}

fn to_vec<T: Serialize>(v: &T, url: &Url) -> Result<Vec<u8>, TransportError> {
    serde_json::to_vec(v).map_err(|e| bad(url, format!("no 1.0 JSON form: {e}")))
}

/// A successful 0.3 answer body as the 1.0 HTTP+JSON body of the same operation.
pub(crate) fn translate_body(
    answer: Answer,
    bytes: &[u8],
    url: &Url,
) -> Result<Vec<u8>, TransportError> {
    if answer == Answer::Deleted {
        // Whatever a successful delete says (`{}`, or no body at all), 1.0 says `{}`.
        return Ok(b"{}".to_vec());
    }
    let v = parse(bytes, url)?;
    let read_err = |e: ReadError| bad(url, e.to_string());
    match answer {
        Answer::SendMessage => {
            let r: pj::SendMessageResponse = read(v, url)?;
            to_vec(&t::send_message_response_from_pj(r).map_err(read_err)?, url)
        }
        Answer::Task => {
            let r: pj::Task = read(v, url)?;
            to_vec(&t::task_from_pj(r).map_err(read_err)?, url)
        }
        // An event stream answered as one JSON body: a single event.
        Answer::Events => event(bytes, url).map(String::into_bytes),
        Answer::Card => {
            let (card, _) =
                skillgate_a2a::v03::card::read(&v).map_err(|e| bad(url, format!("card: {e}")))?;
            to_vec(&card, url)
        }
        Answer::PushConfig => {
            let c: pj::TaskPushNotificationConfig = read(v, url)?;
            to_vec(&t::push_config_answer_from_pj(c).map_err(read_err)?, url)
        }
        Answer::PushConfigs => {
            let l: pj::ListTaskPushNotificationConfigResponse = read(v, url)?;
            to_vec(
                &t::list_push_configs_response_from_pj(l).map_err(read_err)?,
                url,
            )
        }
        Answer::Deleted => Ok(b"{}".to_vec()),
    }
}

/// One 0.3 event (an SSE `data:`) as the 1.0 StreamResponse text.
pub(crate) fn event(data: &[u8], url: &Url) -> Result<String, TransportError> {
    let r: pj::StreamResponse = read(parse(data, url)?, url)?;
    let e = t::stream_response_from_pj(r).map_err(|e| bad(url, e.to_string()))?;
    serde_json::to_string(&e).map_err(|e| bad(url, format!("no 1.0 JSON form: {e}")))
}

/// A 0.3 error answer (`{code?, message}` with a2a-sdk 0.3's statuses) as the 1.0
/// `google.rpc.Status` body the HTTP+JSON readers take: the A2A error from `code`, else from
/// the status; the HTTP status stays the agent's. `None` when the body is not a 0.3 error
/// (an HTML page from a proxy, say): the caller then reports the HTTP failure as it came.
pub(crate) fn translate_error(status: u16, bytes: &[u8]) -> Option<Vec<u8>> {
    let v = skillgate_core::jcs::parse_strict(bytes).ok()?;
    let body: ErrorBody = serde_json::from_value(v).ok()?;
    let error = body.error(status)?;
    let mut rest = error.to_rest(body.message);
    rest.error.code = status;
    serde_json::to_vec(&rest).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> Url {
        Url::parse("http://127.0.0.1:1/").unwrap()
    }

    #[test]
    fn list_tasks_is_refused_before_sending() {
        let e = request(methods::LIST_TASKS, &serde_json::json!({})).unwrap_err();
        assert!(matches!(e, TransportError::Unsupported { .. }), "{e:?}");
    }

    #[test]
    fn a_0_3_sdk_error_body_becomes_the_1_0_status_body() {
        let out = translate_error(404, br#"{"message":"Task not found"}"#).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["error"]["code"], 404);
        assert_eq!(v["error"]["status"], "NOT_FOUND");
        assert_eq!(v["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
        let ours = translate_error(400, br#"{"code":-32009,"message":"no"}"#).unwrap();
        let v: Value = serde_json::from_slice(&ours).unwrap();
        assert_eq!(v["error"]["details"][0]["reason"], "VERSION_NOT_SUPPORTED");
        assert!(translate_error(502, b"<html>").is_none());
    }

    #[test]
    fn hostile_answers_are_typed_errors() {
        for body in [
            &b"<html>"[..],
            br#"{"task":{"id":"t","contextId":"c","status":{"state":"done"}}}"#,
            br#"{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}},"extra":1}"#,
            br#"{"a":1,"a":2}"#,
            br#"{}"#,
        ] {
            let e = translate_body(Answer::SendMessage, body, &url()).unwrap_err();
            assert!(matches!(e, TransportError::V03Answer { .. }), "{e:?}");
        }
    }
}

//! One function per object and direction between the 0.3 JSON types ([`super::json`]) and the
//! 1.0 model. Every 0.3 rule lives here and nowhere else: the non-object Data Part wrap, the
//! state and role tables, `final`, timestamp normalization, `blocking` polarity,
//! `historyLength` 0, and the nesting of push configs (`docs/a2a-0.3.md` 1.5-1.8).
//!
//! `*_from_v03` reads (errors: [`ReadError`], InvalidParams), `*_to_v03` writes (errors:
//! [`WriteError`], only for 1.0 values 0.3 cannot say). The 0.3 ProtoJSON of HTTP+JSON is
//! translated by [`pj`], through these functions, so each rule above still lives here only.

pub mod pj;

use super::error::{ReadError, WriteError};
use super::json as v03;
use crate::requests::{
    AuthenticationInfo, CancelTaskRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, SendMessageConfiguration, SendMessageRequest,
    SubscribeToTaskRequest, TaskPushNotificationConfig, TaskPushNotificationConfigRef,
};
use crate::timestamp::{format_unix_millis, parse_rfc3339_millis};
use crate::types::{
    Artifact, Message, Part, PartContent, Role, SendMessageResponse, StreamResponse, Struct, Task,
    TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use serde_json::{Map, Value};

/// The metadata key a2a-sdk and a2a-js put on a Data Part whose 1.0 payload was not an object
/// and was wrapped as `{"value": X}` for 0.3.
pub const DATA_PART_COMPAT: &str = "data_part_compat";

/// The member a wrapped non-object payload sits under.
const WRAP_KEY: &str = "value";

// ---------------------------------------------------------------- roles and states

/// 0.3 role -> 1.0 role (total: 0.3 has no unspecified role).
pub fn role_from_v03(r: v03::Role) -> Role {
    match r {
        v03::Role::User => Role::User,
        v03::Role::Agent => Role::Agent,
    }
}

/// 1.0 role -> 0.3 role; `ROLE_UNSPECIFIED` has no 0.3 form.
pub fn role_to_v03(r: Role) -> Result<v03::Role, WriteError> {
    match r {
        Role::User => Ok(v03::Role::User),
        Role::Agent => Ok(v03::Role::Agent),
        Role::Unspecified => Err(WriteError {
            at: "role".into(),
            reason: "ROLE_UNSPECIFIED",
        }),
    }
}

/// 0.3 state -> 1.0 state; `unknown` reads as UNSPECIFIED, which the 1.0 client judges as
/// it judges any unspecified state.
pub fn state_from_v03(s: v03::TaskState) -> TaskState {
    match s {
        v03::TaskState::Submitted => TaskState::Submitted,
        v03::TaskState::Working => TaskState::Working,
        v03::TaskState::InputRequired => TaskState::InputRequired,
        v03::TaskState::Completed => TaskState::Completed,
        v03::TaskState::Canceled => TaskState::Canceled,
        v03::TaskState::Failed => TaskState::Failed,
        v03::TaskState::Rejected => TaskState::Rejected,
        v03::TaskState::AuthRequired => TaskState::AuthRequired,
        v03::TaskState::Unknown => TaskState::Unspecified,
    }
}

/// 1.0 state -> 0.3 state. UNSPECIFIED is refused rather than written as `unknown`: a 0.3
/// client cannot act on `unknown`, and our services never report it.
pub fn state_to_v03(s: TaskState) -> Result<v03::TaskState, WriteError> {
    Ok(match s {
        TaskState::Submitted => v03::TaskState::Submitted,
        TaskState::Working => v03::TaskState::Working,
        TaskState::InputRequired => v03::TaskState::InputRequired,
        TaskState::Completed => v03::TaskState::Completed,
        TaskState::Canceled => v03::TaskState::Canceled,
        TaskState::Failed => v03::TaskState::Failed,
        TaskState::Rejected => v03::TaskState::Rejected,
        TaskState::AuthRequired => v03::TaskState::AuthRequired,
        TaskState::Unspecified => {
            return Err(WriteError {
                at: "state".into(),
                reason: "TASK_STATE_UNSPECIFIED",
            })
        }
    })
}

/// The 0.3 `final` of a status update in this state: terminal **or** interrupted, because our
/// streams end at an interrupted state too and 0.3 defines `final` as the stream's last event.
pub fn is_final(s: TaskState) -> bool {
    s.is_terminal() || s.is_interrupted()
}

// ---------------------------------------------------------------- parts

/// 0.3 part -> 1.0 part. A Data Part gets `mediaType: application/json`; a wrapped
/// non-object payload (`{"value": X}` with `data_part_compat: true`, exactly) is unwrapped.
pub fn part_from_v03(p: v03::Part) -> Result<Part, ReadError> {
    let mut metadata = p.metadata;
    let mut part = match p.content {
        v03::PartBody::Text(t) => Part::from_content(PartContent::Text(t)),
        v03::PartBody::File(f) => {
            let content = match f.body {
                v03::FileBody::Bytes(b) => PartContent::Raw(b),
                v03::FileBody::Uri(u) => PartContent::Url(u),
            };
            let mut part = Part::from_content(content);
            part.filename = f.name.unwrap_or_default();
            part.media_type = f.mime_type.unwrap_or_default();
            part
        }
        v03::PartBody::Data(v03::DataContent::Object(o)) => {
            Part::data(unwrap_data(o, &mut metadata))
        }
        // Never produced by parsing; read it like the object it holds.
        v03::PartBody::Data(v03::DataContent::Shared(s)) => Part::data(s.value().clone()),
    };
    part.metadata = metadata;
    Ok(part)
}

/// The 1.0 payload of a 0.3 data object: the wrapped value when the marker is exactly `true`
/// and the object is exactly `{"value": X}` (then the marker is removed, and the metadata if
/// nothing else is left), else the object itself with metadata untouched (a forged marker on
/// a real object changes nothing).
fn unwrap_data(mut o: Struct, metadata: &mut Option<Struct>) -> Value {
    let marked =
        metadata.as_ref().and_then(|m| m.get(DATA_PART_COMPAT)) == Some(&Value::Bool(true));
    if !(marked && o.len() == 1 && o.contains_key(WRAP_KEY)) {
        return Value::Object(o);
    }
    if let Some(m) = metadata.as_mut() {
        m.remove(DATA_PART_COMPAT);
        if m.is_empty() {
            *metadata = None;
        }
    }
    o.remove(WRAP_KEY).unwrap_or(Value::Null)
}

/// 1.0 part -> 0.3 part. Text and data parts lose `mediaType`/`filename` (0.3 has no place
/// for them); a non-object payload is wrapped with the marker; a shared object payload stays
/// shared (written from its stored text, not copied).
pub fn part_to_v03(p: &Part) -> v03::Part {
    let mut metadata = p.metadata.clone();
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let content = match &p.content {
        PartContent::Text(t) => v03::PartBody::Text(t.clone()),
        PartContent::Raw(b) => v03::PartBody::File(v03::FileContent {
            body: v03::FileBody::Bytes(b.clone()),
            name: opt(&p.filename),
            mime_type: opt(&p.media_type),
        }),
        PartContent::Url(u) => v03::PartBody::File(v03::FileContent {
            body: v03::FileBody::Uri(u.clone()),
            name: opt(&p.filename),
            mime_type: opt(&p.media_type),
        }),
        PartContent::SharedData(s) if s.value().is_object() => {
            v03::PartBody::Data(v03::DataContent::Shared(s.clone()))
        }
        PartContent::Data(Value::Object(o)) => {
            v03::PartBody::Data(v03::DataContent::Object(o.clone()))
        }
        PartContent::Data(v) => wrap_data(v.clone(), &mut metadata),
        PartContent::SharedData(s) => wrap_data(s.value().clone(), &mut metadata),
    };
    v03::Part { content, metadata }
}

fn wrap_data(v: Value, metadata: &mut Option<Struct>) -> v03::PartBody {
    metadata
        .get_or_insert_with(Map::new)
        .insert(DATA_PART_COMPAT.into(), Value::Bool(true));
    let mut o = Map::new();
    o.insert(WRAP_KEY.into(), v);
    v03::PartBody::Data(v03::DataContent::Object(o))
}

fn parts_from_v03(parts: Vec<v03::Part>) -> Result<Vec<Part>, ReadError> {
    parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| part_from_v03(p).map_err(|e| e.under(&format!("parts[{i}]"))))
        .collect()
}

// ---------------------------------------------------------------- message

/// 0.3 message -> 1.0 message.
pub fn message_from_v03(m: v03::Message) -> Result<Message, ReadError> {
    Ok(Message {
        message_id: m.message_id,
        context_id: m.context_id.unwrap_or_default(),
        task_id: m.task_id.unwrap_or_default(),
        role: role_from_v03(m.role),
        parts: parts_from_v03(m.parts)?,
        metadata: m.metadata,
        extensions: m.extensions.unwrap_or_default(),
        reference_task_ids: m.reference_task_ids.unwrap_or_default(),
    })
}

/// 1.0 message -> 0.3 message; empty ids and lists are left out, as 1.0 leaves them out.
pub fn message_to_v03(m: &Message) -> Result<v03::Message, WriteError> {
    Ok(v03::Message {
        kind: v03::MessageKind,
        message_id: m.message_id.clone(),
        context_id: non_empty(&m.context_id),
        task_id: non_empty(&m.task_id),
        role: role_to_v03(m.role)?,
        parts: m.parts.iter().map(part_to_v03).collect(),
        metadata: m.metadata.clone(),
        extensions: non_empty_list(&m.extensions),
        reference_task_ids: non_empty_list(&m.reference_task_ids),
    })
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

fn non_empty_list(v: &[String]) -> Option<Vec<String>> {
    (!v.is_empty()).then(|| v.to_vec())
}

// ---------------------------------------------------------------- status, artifact, task

/// A 0.3 timestamp (any RFC 3339 offset; a2a-sdk 0.3.26 writes `+00:00` with microseconds)
/// as this crate writes timestamps: UTC, milliseconds, `Z`.
pub fn timestamp_from_v03(s: &str) -> Result<String, ReadError> {
    parse_rfc3339_millis(s)
        .map(format_unix_millis)
        .ok_or_else(|| ReadError::new("timestamp", format!("{s:?} is not an RFC 3339 date-time")))
}

/// A 1.0 timestamp for 0.3: normalized to `Z` when it parses; a text that does not parse (a
/// peer's, relayed) is passed on unchanged rather than invented.
fn timestamp_to_v03(s: &str) -> String {
    parse_rfc3339_millis(s).map_or_else(|| s.to_string(), format_unix_millis)
}

/// 0.3 status -> 1.0 status.
pub fn status_from_v03(s: v03::TaskStatus) -> Result<TaskStatus, ReadError> {
    Ok(TaskStatus {
        state: state_from_v03(s.state),
        message: s
            .message
            .map(|m| message_from_v03(m).map_err(|e| e.under("message")))
            .transpose()?,
        timestamp: s.timestamp.as_deref().map(timestamp_from_v03).transpose()?,
    })
}

/// 1.0 status -> 0.3 status.
pub fn status_to_v03(s: &TaskStatus) -> Result<v03::TaskStatus, WriteError> {
    Ok(v03::TaskStatus {
        state: state_to_v03(s.state)?,
        message: s
            .message
            .as_ref()
            .map(|m| message_to_v03(m).map_err(|e| e.under("message")))
            .transpose()?,
        timestamp: s.timestamp.as_deref().map(timestamp_to_v03),
    })
}

/// 0.3 artifact -> 1.0 artifact.
pub fn artifact_from_v03(a: v03::Artifact) -> Result<Artifact, ReadError> {
    Ok(Artifact {
        artifact_id: a.artifact_id,
        name: a.name.unwrap_or_default(),
        description: a.description.unwrap_or_default(),
        parts: parts_from_v03(a.parts)?,
        metadata: a.metadata,
        extensions: a.extensions.unwrap_or_default(),
    })
}

/// 1.0 artifact -> 0.3 artifact.
pub fn artifact_to_v03(a: &Artifact) -> v03::Artifact {
    v03::Artifact {
        artifact_id: a.artifact_id.clone(),
        name: non_empty(&a.name),
        description: non_empty(&a.description),
        parts: a.parts.iter().map(part_to_v03).collect(),
        metadata: a.metadata.clone(),
        extensions: non_empty_list(&a.extensions),
    }
}

/// 0.3 task -> 1.0 task.
pub fn task_from_v03(t: v03::Task) -> Result<Task, ReadError> {
    let artifacts = t
        .artifacts
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, a)| artifact_from_v03(a).map_err(|e| e.under(&format!("artifacts[{i}]"))))
        .collect::<Result<_, _>>()?;
    let history = t
        .history
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, m)| message_from_v03(m).map_err(|e| e.under(&format!("history[{i}]"))))
        .collect::<Result<_, _>>()?;
    Ok(Task {
        id: t.id,
        context_id: t.context_id,
        status: status_from_v03(t.status).map_err(|e| e.under("status"))?,
        artifacts,
        history,
        metadata: t.metadata,
    })
}

/// 1.0 task -> 0.3 task (the caller has already trimmed `history` to the requested length).
pub fn task_to_v03(t: &Task) -> Result<v03::Task, WriteError> {
    let history = t
        .history
        .iter()
        .enumerate()
        .map(|(i, m)| message_to_v03(m).map_err(|e| e.under(&format!("history[{i}]"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(v03::Task {
        kind: v03::TaskKind,
        id: t.id.clone(),
        context_id: t.context_id.clone(),
        status: status_to_v03(&t.status).map_err(|e| e.under("status"))?,
        artifacts: (!t.artifacts.is_empty())
            .then(|| t.artifacts.iter().map(artifact_to_v03).collect()),
        history: (!history.is_empty()).then_some(history),
        metadata: t.metadata.clone(),
    })
}

// ---------------------------------------------------------------- events and results

/// 0.3 status update -> 1.0; the 0.3 `final` is ignored (the state decides where a stream
/// ends).
pub fn status_update_from_v03(
    e: v03::TaskStatusUpdateEvent,
) -> Result<TaskStatusUpdateEvent, ReadError> {
    Ok(TaskStatusUpdateEvent {
        task_id: e.task_id,
        context_id: e.context_id,
        status: status_from_v03(e.status).map_err(|e| e.under("status"))?,
        metadata: e.metadata,
    })
}

/// 1.0 status update -> 0.3, with `final` from [`is_final`].
pub fn status_update_to_v03(
    e: &TaskStatusUpdateEvent,
) -> Result<v03::TaskStatusUpdateEvent, WriteError> {
    Ok(v03::TaskStatusUpdateEvent {
        kind: v03::StatusUpdateKind,
        task_id: e.task_id.clone(),
        context_id: e.context_id.clone(),
        status: status_to_v03(&e.status).map_err(|e| e.under("status"))?,
        is_final: is_final(e.status.state),
        metadata: e.metadata.clone(),
    })
}

/// 0.3 artifact update -> 1.0 (absent `append`/`lastChunk` = false).
pub fn artifact_update_from_v03(
    e: v03::TaskArtifactUpdateEvent,
) -> Result<TaskArtifactUpdateEvent, ReadError> {
    Ok(TaskArtifactUpdateEvent {
        task_id: e.task_id,
        context_id: e.context_id,
        artifact: artifact_from_v03(e.artifact).map_err(|e| e.under("artifact"))?,
        append: e.append.unwrap_or(false),
        last_chunk: e.last_chunk.unwrap_or(false),
        metadata: e.metadata,
    })
}

/// 1.0 artifact update -> 0.3 (`append`/`lastChunk` written only when true, as 1.0 does).
pub fn artifact_update_to_v03(e: &TaskArtifactUpdateEvent) -> v03::TaskArtifactUpdateEvent {
    v03::TaskArtifactUpdateEvent {
        kind: v03::ArtifactUpdateKind,
        task_id: e.task_id.clone(),
        context_id: e.context_id.clone(),
        artifact: artifact_to_v03(&e.artifact),
        append: e.append.then_some(true),
        last_chunk: e.last_chunk.then_some(true),
        metadata: e.metadata.clone(),
    }
}

/// 0.3 stream event -> 1.0 StreamResponse.
pub fn stream_response_from_v03(e: v03::StreamEvent) -> Result<StreamResponse, ReadError> {
    Ok(match e {
        v03::StreamEvent::Task(t) => StreamResponse::Task(task_from_v03(t)?),
        v03::StreamEvent::Message(m) => StreamResponse::Message(message_from_v03(m)?),
        v03::StreamEvent::StatusUpdate(s) => {
            StreamResponse::StatusUpdate(status_update_from_v03(s)?)
        }
        v03::StreamEvent::ArtifactUpdate(a) => {
            StreamResponse::ArtifactUpdate(artifact_update_from_v03(a)?)
        }
    })
}

/// 1.0 StreamResponse -> the bare 0.3 event.
pub fn stream_response_to_v03(e: &StreamResponse) -> Result<v03::StreamEvent, WriteError> {
    Ok(match e {
        StreamResponse::Task(t) => v03::StreamEvent::Task(task_to_v03(t)?),
        StreamResponse::Message(m) => v03::StreamEvent::Message(message_to_v03(m)?),
        StreamResponse::StatusUpdate(s) => v03::StreamEvent::StatusUpdate(status_update_to_v03(s)?),
        StreamResponse::ArtifactUpdate(a) => {
            v03::StreamEvent::ArtifactUpdate(artifact_update_to_v03(a))
        }
    })
}

/// 0.3 `message/send` result -> 1.0 SendMessageResponse.
pub fn send_message_response_from_v03(
    r: v03::SendMessageResult,
) -> Result<SendMessageResponse, ReadError> {
    Ok(match r {
        v03::SendMessageResult::Task(t) => SendMessageResponse::Task(task_from_v03(t)?),
        v03::SendMessageResult::Message(m) => SendMessageResponse::Message(message_from_v03(m)?),
    })
}

/// 1.0 SendMessageResponse -> the bare 0.3 Task or Message.
pub fn send_message_response_to_v03(
    r: &SendMessageResponse,
) -> Result<v03::SendMessageResult, WriteError> {
    Ok(match r {
        SendMessageResponse::Task(t) => v03::SendMessageResult::Task(task_to_v03(t)?),
        SendMessageResponse::Message(m) => v03::SendMessageResult::Message(message_to_v03(m)?),
    })
}

// ---------------------------------------------------------------- request params

/// A 0.3 `historyLength` in 1.0 terms: 0 means "all" in 0.3 (a2a-sdk 0.3.26), which 1.0
/// says by leaving it unset; a negative length is refused.
pub fn history_length_from_v03(n: Option<i32>) -> Result<Option<i32>, ReadError> {
    match n {
        Some(n) if n < 0 => Err(ReadError::new(
            "historyLength",
            format!("{n} is negative; use a count of messages, or leave it out for all"),
        )),
        Some(0) | None => Ok(None),
        Some(n) => Ok(Some(n)),
    }
}

/// A 1.0 `historyLength` for a 0.3 peer: only a positive length can be said. `Some(0)` ("no
/// history") would mean "all" to a 0.3 server, so nothing is sent and the caller trims the
/// answer's history itself.
pub fn history_length_to_v03(n: Option<i32>) -> Option<i32> {
    n.filter(|n| *n > 0)
}

/// 0.3 `message/send` / `message/stream` params -> 1.0 SendMessageRequest.
pub fn send_message_request_from_v03(
    p: v03::MessageSendParams,
) -> Result<SendMessageRequest, ReadError> {
    Ok(SendMessageRequest {
        tenant: String::new(),
        message: message_from_v03(p.message).map_err(|e| e.under("message"))?,
        configuration: match p.configuration {
            Some(c) => configuration_from_v03(c).map_err(|e| e.under("configuration"))?,
            None => None,
        },
        metadata: p.metadata,
    })
}

/// 0.3 send options -> 1.0. JSON-RPC polarity: an absent `blocking` is blocking (1.0
/// `returnImmediately: false`), only `blocking: false` returns immediately. Options that
/// all say the 1.0 defaults come back as `None`, which means the same in 1.0.
pub fn configuration_from_v03(
    c: v03::MessageSendConfiguration,
) -> Result<Option<SendMessageConfiguration>, ReadError> {
    let config = SendMessageConfiguration {
        accepted_output_modes: c.accepted_output_modes.unwrap_or_default(),
        task_push_notification_config: c
            .push_notification_config
            .map(|p| {
                push_notification_config_from_v03(p, String::new())
                    .map_err(|e| e.under("pushNotificationConfig"))
            })
            .transpose()?,
        history_length: history_length_from_v03(c.history_length)?,
        return_immediately: c.blocking == Some(false),
    };
    Ok((config != SendMessageConfiguration::default()).then_some(config))
}

/// 1.0 SendMessageRequest -> 0.3 params. The configuration is always written with an
/// explicit `blocking`, so 0.3 servers that read an absent one either way (JSON-RPC: blocking;
/// ProtoJSON: not) all do what the 1.0 request says. `tenant` has no 0.3 form and is dropped.
pub fn send_message_request_to_v03(
    r: &SendMessageRequest,
) -> Result<v03::MessageSendParams, WriteError> {
    let c = r.configuration.clone().unwrap_or_default();
    Ok(v03::MessageSendParams {
        message: message_to_v03(&r.message).map_err(|e| e.under("message"))?,
        configuration: Some(v03::MessageSendConfiguration {
            accepted_output_modes: Some(c.accepted_output_modes),
            blocking: Some(!c.return_immediately),
            history_length: history_length_to_v03(c.history_length),
            push_notification_config: c
                .task_push_notification_config
                .as_ref()
                .map(push_notification_config_to_v03),
        }),
        metadata: r.metadata.clone(),
    })
}

/// 0.3 `tasks/get` params -> 1.0 GetTaskRequest (0.3 `metadata` has no 1.0 place: ignored).
pub fn get_task_request_from_v03(p: v03::TaskQueryParams) -> Result<GetTaskRequest, ReadError> {
    Ok(GetTaskRequest {
        tenant: String::new(),
        id: p.id,
        history_length: history_length_from_v03(p.history_length)?,
    })
}

/// 1.0 GetTaskRequest -> 0.3 params (see [`history_length_to_v03`] for `Some(0)`).
pub fn get_task_request_to_v03(r: &GetTaskRequest) -> v03::TaskQueryParams {
    v03::TaskQueryParams {
        id: r.id.clone(),
        history_length: history_length_to_v03(r.history_length),
        metadata: None,
    }
}

/// 0.3 `tasks/cancel` params -> 1.0 CancelTaskRequest.
pub fn cancel_task_request_from_v03(p: v03::TaskIdParams) -> CancelTaskRequest {
    CancelTaskRequest {
        tenant: String::new(),
        id: p.id,
        metadata: p.metadata,
    }
}

/// 1.0 CancelTaskRequest -> 0.3 params.
pub fn cancel_task_request_to_v03(r: &CancelTaskRequest) -> v03::TaskIdParams {
    v03::TaskIdParams {
        id: r.id.clone(),
        metadata: r.metadata.clone(),
    }
}

/// 0.3 `tasks/resubscribe` params -> 1.0 SubscribeToTaskRequest (`metadata` ignored).
pub fn subscribe_request_from_v03(p: v03::TaskIdParams) -> SubscribeToTaskRequest {
    SubscribeToTaskRequest {
        tenant: String::new(),
        id: p.id,
    }
}

/// 1.0 SubscribeToTaskRequest -> 0.3 params.
pub fn subscribe_request_to_v03(r: &SubscribeToTaskRequest) -> v03::TaskIdParams {
    v03::TaskIdParams {
        id: r.id.clone(),
        metadata: None,
    }
}

// ---------------------------------------------------------------- push configs

/// A nested 0.3 push config, with its task id, -> the flat 1.0 config. `schemes[0]` becomes
/// `scheme` (further schemes are dropped, as both SDKs do); an empty list is refused because
/// 1.0 requires a scheme.
pub fn push_notification_config_from_v03(
    c: v03::PushNotificationConfig,
    task_id: String,
) -> Result<TaskPushNotificationConfig, ReadError> {
    let authentication = match c.authentication {
        None => None,
        Some(a) => {
            let scheme = a.schemes.into_iter().next().ok_or_else(|| {
                ReadError::new(
                    "authentication.schemes",
                    "is empty; name the scheme the webhook expects, e.g. [\"Bearer\"]",
                )
            })?;
            Some(AuthenticationInfo {
                scheme,
                credentials: a.credentials.unwrap_or_default(),
            })
        }
    };
    Ok(TaskPushNotificationConfig {
        tenant: String::new(),
        id: c.id.unwrap_or_default(),
        task_id,
        url: c.url,
        token: c.token.unwrap_or_default(),
        authentication,
    })
}

/// The flat 1.0 config -> the nested 0.3 config (task id dropped: it sits one level up).
pub fn push_notification_config_to_v03(
    c: &TaskPushNotificationConfig,
) -> v03::PushNotificationConfig {
    v03::PushNotificationConfig {
        id: non_empty(&c.id),
        url: c.url.clone(),
        token: non_empty(&c.token),
        authentication: c.authentication.as_ref().map(|a| {
            v03::PushNotificationAuthenticationInfo {
                schemes: vec![a.scheme.clone()],
                credentials: non_empty(&a.credentials),
            }
        }),
    }
}

/// 0.3 TaskPushNotificationConfig (`.../set` params, `.../get` result) -> 1.0.
pub fn push_config_from_v03(
    c: v03::TaskPushNotificationConfig,
) -> Result<TaskPushNotificationConfig, ReadError> {
    push_notification_config_from_v03(c.push_notification_config, c.task_id)
        .map_err(|e| e.under("pushNotificationConfig"))
}

/// 1.0 TaskPushNotificationConfig -> 0.3 (the `.../set` and `.../get` result).
pub fn push_config_to_v03(c: &TaskPushNotificationConfig) -> v03::TaskPushNotificationConfig {
    v03::TaskPushNotificationConfig {
        task_id: c.task_id.clone(),
        push_notification_config: push_notification_config_to_v03(c),
    }
}

/// 0.3 `.../get` params -> 1.0 ref. Without `pushNotificationConfigId` the ref's `id` is
/// empty, which means "the task's oldest config" (`docs/a2a-0.3.md` 1.8): the server, not
/// this function, resolves it.
pub fn get_push_config_request_from_v03(
    p: v03::GetTaskPushNotificationConfigParams,
) -> TaskPushNotificationConfigRef {
    TaskPushNotificationConfigRef {
        tenant: String::new(),
        task_id: p.id,
        id: p.push_notification_config_id.unwrap_or_default(),
    }
}

/// 1.0 ref -> 0.3 `.../get` params (an empty config id is left out).
pub fn get_push_config_request_to_v03(
    r: &TaskPushNotificationConfigRef,
) -> v03::GetTaskPushNotificationConfigParams {
    v03::GetTaskPushNotificationConfigParams {
        id: r.task_id.clone(),
        push_notification_config_id: non_empty(&r.id),
        metadata: None,
    }
}

/// 0.3 `.../delete` params -> 1.0 ref.
pub fn delete_push_config_request_from_v03(
    p: v03::DeleteTaskPushNotificationConfigParams,
) -> TaskPushNotificationConfigRef {
    TaskPushNotificationConfigRef {
        tenant: String::new(),
        task_id: p.id,
        id: p.push_notification_config_id,
    }
}

/// 1.0 ref -> 0.3 `.../delete` params.
pub fn delete_push_config_request_to_v03(
    r: &TaskPushNotificationConfigRef,
) -> v03::DeleteTaskPushNotificationConfigParams {
    v03::DeleteTaskPushNotificationConfigParams {
        id: r.task_id.clone(),
        push_notification_config_id: r.id.clone(),
        metadata: None,
    }
}

/// 0.3 `.../list` params -> 1.0 request (no paging in 0.3: the server's one page).
pub fn list_push_configs_request_from_v03(
    p: v03::ListTaskPushNotificationConfigParams,
) -> ListTaskPushNotificationConfigsRequest {
    ListTaskPushNotificationConfigsRequest {
        task_id: p.id,
        ..Default::default()
    }
}

/// 1.0 request -> 0.3 `.../list` params (paging dropped: a 0.3 server answers with all).
pub fn list_push_configs_request_to_v03(
    r: &ListTaskPushNotificationConfigsRequest,
) -> v03::ListTaskPushNotificationConfigParams {
    v03::ListTaskPushNotificationConfigParams {
        id: r.task_id.clone(),
        metadata: None,
    }
}

/// 1.0 list result -> the bare 0.3 array (`nextPageToken` has no 0.3 place; the server sends
/// every config in one page).
pub fn list_push_configs_response_to_v03(
    r: &ListTaskPushNotificationConfigsResponse,
) -> Vec<v03::TaskPushNotificationConfig> {
    r.configs.iter().map(push_config_to_v03).collect()
}

/// The bare 0.3 array -> 1.0 list result (one page).
pub fn list_push_configs_response_from_v03(
    r: Vec<v03::TaskPushNotificationConfig>,
) -> Result<ListTaskPushNotificationConfigsResponse, ReadError> {
    let configs = r
        .into_iter()
        .enumerate()
        .map(|(i, c)| push_config_from_v03(c).map_err(|e| e.under(&format!("[{i}]"))))
        .collect::<Result<_, _>>()?;
    Ok(ListTaskPushNotificationConfigsResponse {
        configs,
        next_page_token: String::new(),
    })
}

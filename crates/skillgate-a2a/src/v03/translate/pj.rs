//! 0.3 ProtoJSON ([`crate::v03::pj`]) to and from the 1.0 model. Each object goes through
//! its 0.3 JSON form ([`crate::v03::json`]) and the functions of the parent module, so the
//! rules shared by both 0.3 dialects (the Data Part wrap, states and roles, `final`,
//! timestamps, `historyLength` 0, schemes) are written once. What is here is what only
//! ProtoJSON has: member and enum spellings (`content`, `TASK_STATE_CANCELLED`), the proto3
//! `blocking` default (absent = not blocking), resource names instead of task ids, and the
//! loss of `referenceTaskIds`, which the 0.3 proto lacks (`docs/a2a-0.3.md` 1.5-1.8).

use super::{
    artifact_from_v03, artifact_to_v03, message_from_v03, message_to_v03, part_from_v03,
    part_to_v03, push_notification_config_from_v03, push_notification_config_to_v03,
    send_message_request_from_v03, send_message_request_to_v03, status_from_v03, status_to_v03,
    status_update_from_v03, status_update_to_v03, task_from_v03, task_to_v03,
};
use crate::requests::{
    ListTaskPushNotificationConfigsResponse, SendMessageRequest, TaskPushNotificationConfig,
};
use crate::types::{
    Artifact, Message, Part, SendMessageResponse, StreamResponse, Task, TaskArtifactUpdateEvent,
    TaskStatus, TaskStatusUpdateEvent,
};
use crate::v03::error::{ReadError, WriteError};
use crate::v03::rest::{parse_task_name, task_name, ConfigName};
use crate::v03::{json as j, pj};
use serde_json::Value;

fn opt(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

// ---------------------------------------------------------------- enums

fn role_to_json(r: pj::Role) -> Result<j::Role, ReadError> {
    match r {
        pj::Role::User => Ok(j::Role::User),
        pj::Role::Agent => Ok(j::Role::Agent),
        pj::Role::Unspecified => Err(ReadError::new(
            "role",
            "ROLE_UNSPECIFIED; a message is sent by ROLE_USER or ROLE_AGENT",
        )),
    }
}

fn role_to_pj(r: j::Role) -> pj::Role {
    match r {
        j::Role::User => pj::Role::User,
        j::Role::Agent => pj::Role::Agent,
    }
}

fn state_to_json(s: pj::TaskState) -> j::TaskState {
    match s {
        pj::TaskState::Unspecified => j::TaskState::Unknown,
        pj::TaskState::Submitted => j::TaskState::Submitted,
        pj::TaskState::Working => j::TaskState::Working,
        pj::TaskState::Completed => j::TaskState::Completed,
        pj::TaskState::Failed => j::TaskState::Failed,
        pj::TaskState::Cancelled => j::TaskState::Canceled,
        pj::TaskState::InputRequired => j::TaskState::InputRequired,
        pj::TaskState::Rejected => j::TaskState::Rejected,
        pj::TaskState::AuthRequired => j::TaskState::AuthRequired,
    }
}

fn state_to_pj(s: j::TaskState) -> pj::TaskState {
    match s {
        j::TaskState::Unknown => pj::TaskState::Unspecified,
        j::TaskState::Submitted => pj::TaskState::Submitted,
        j::TaskState::Working => pj::TaskState::Working,
        j::TaskState::Completed => pj::TaskState::Completed,
        j::TaskState::Failed => pj::TaskState::Failed,
        j::TaskState::Canceled => pj::TaskState::Cancelled,
        j::TaskState::InputRequired => pj::TaskState::InputRequired,
        j::TaskState::Rejected => pj::TaskState::Rejected,
        j::TaskState::AuthRequired => pj::TaskState::AuthRequired,
    }
}

// ---------------------------------------------------------------- parts and messages

fn part_to_json(p: pj::Part) -> j::Part {
    let content = match p.content {
        pj::PartBody::Text(t) => j::PartBody::Text(t),
        pj::PartBody::File(f) => j::PartBody::File(j::FileContent {
            body: f.body,
            name: f.name,
            mime_type: f.mime_type,
        }),
        pj::PartBody::Data(d) => j::PartBody::Data(d),
    };
    j::Part {
        content,
        metadata: p.metadata,
    }
}

fn part_from_json(p: j::Part) -> pj::Part {
    let content = match p.content {
        j::PartBody::Text(t) => pj::PartBody::Text(t),
        j::PartBody::File(f) => pj::PartBody::File(pj::FilePart {
            body: f.body,
            mime_type: f.mime_type,
            name: f.name,
        }),
        j::PartBody::Data(d) => pj::PartBody::Data(d),
    };
    pj::Part {
        content,
        metadata: p.metadata,
    }
}

/// 0.3 PJ part -> 1.0 part (the 0.3 JSON rules: `mediaType` of data, the compat unwrap).
pub fn part_from_pj(p: pj::Part) -> Result<Part, ReadError> {
    part_from_v03(part_to_json(p))
}

/// 1.0 part -> 0.3 PJ part.
pub fn part_to_pj(p: &Part) -> pj::Part {
    part_from_json(part_to_v03(p))
}

fn message_to_json(m: pj::Message) -> Result<j::Message, ReadError> {
    Ok(j::Message {
        kind: j::MessageKind,
        message_id: m.message_id,
        context_id: opt(m.context_id),
        task_id: opt(m.task_id),
        role: role_to_json(m.role)?,
        parts: m.content.into_iter().map(part_to_json).collect(),
        metadata: m.metadata,
        extensions: (!m.extensions.is_empty()).then_some(m.extensions),
        reference_task_ids: None,
    })
}

fn message_from_json(m: j::Message) -> pj::Message {
    pj::Message {
        message_id: m.message_id,
        context_id: m.context_id.unwrap_or_default(),
        task_id: m.task_id.unwrap_or_default(),
        role: role_to_pj(m.role),
        content: m.parts.into_iter().map(part_from_json).collect(),
        metadata: m.metadata,
        extensions: m.extensions.unwrap_or_default(),
    }
}

/// 0.3 PJ message -> 1.0 message; `ROLE_UNSPECIFIED` is refused.
pub fn message_from_pj(m: pj::Message) -> Result<Message, ReadError> {
    message_from_v03(message_to_json(m)?)
}

/// 1.0 message -> 0.3 PJ message; `referenceTaskIds` is dropped (no proto field).
pub fn message_to_pj(m: &Message) -> Result<pj::Message, WriteError> {
    message_to_v03(m).map(message_from_json)
}

// ---------------------------------------------------------------- status, artifact, task

fn status_to_json(s: pj::TaskStatus) -> Result<j::TaskStatus, ReadError> {
    Ok(j::TaskStatus {
        state: state_to_json(s.state),
        message: s
            .message
            .map(|m| message_to_json(m).map_err(|e| e.under("message")))
            .transpose()?,
        timestamp: s.timestamp,
    })
}

fn status_from_json(s: j::TaskStatus) -> pj::TaskStatus {
    pj::TaskStatus {
        state: state_to_pj(s.state),
        message: s.message.map(message_from_json),
        timestamp: s.timestamp,
    }
}

/// 0.3 PJ status -> 1.0 status.
pub fn status_from_pj(s: pj::TaskStatus) -> Result<TaskStatus, ReadError> {
    status_from_v03(status_to_json(s)?)
}

/// 1.0 status -> 0.3 PJ status.
pub fn status_to_pj(s: &TaskStatus) -> Result<pj::TaskStatus, WriteError> {
    status_to_v03(s).map(status_from_json)
}

fn artifact_to_json(a: pj::Artifact) -> j::Artifact {
    j::Artifact {
        artifact_id: a.artifact_id,
        name: opt(a.name),
        description: opt(a.description),
        parts: a.parts.into_iter().map(part_to_json).collect(),
        metadata: a.metadata,
        extensions: (!a.extensions.is_empty()).then_some(a.extensions),
    }
}

fn artifact_from_json(a: j::Artifact) -> pj::Artifact {
    pj::Artifact {
        artifact_id: a.artifact_id,
        name: a.name.unwrap_or_default(),
        description: a.description.unwrap_or_default(),
        parts: a.parts.into_iter().map(part_from_json).collect(),
        metadata: a.metadata,
        extensions: a.extensions.unwrap_or_default(),
    }
}

/// 0.3 PJ artifact -> 1.0 artifact.
pub fn artifact_from_pj(a: pj::Artifact) -> Result<Artifact, ReadError> {
    artifact_from_v03(artifact_to_json(a))
}

/// 1.0 artifact -> 0.3 PJ artifact.
pub fn artifact_to_pj(a: &Artifact) -> pj::Artifact {
    artifact_from_json(artifact_to_v03(a))
}

fn list<T, U>(
    items: Vec<T>,
    at: &str,
    f: impl Fn(T) -> Result<U, ReadError>,
) -> Result<Vec<U>, ReadError> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, x)| f(x).map_err(|e| e.under(&format!("{at}[{i}]"))))
        .collect()
}

fn task_to_json(t: pj::Task) -> Result<j::Task, ReadError> {
    let history = list(t.history, "history", message_to_json)?;
    Ok(j::Task {
        kind: j::TaskKind,
        id: t.id,
        context_id: t.context_id,
        status: status_to_json(t.status).map_err(|e| e.under("status"))?,
        artifacts: Some(t.artifacts.into_iter().map(artifact_to_json).collect()),
        history: Some(history),
        metadata: t.metadata,
    })
}

fn task_from_json(t: j::Task) -> pj::Task {
    pj::Task {
        id: t.id,
        context_id: t.context_id,
        status: status_from_json(t.status),
        artifacts: t
            .artifacts
            .unwrap_or_default()
            .into_iter()
            .map(artifact_from_json)
            .collect(),
        history: t
            .history
            .unwrap_or_default()
            .into_iter()
            .map(message_from_json)
            .collect(),
        metadata: t.metadata,
    }
}

/// 0.3 PJ task -> 1.0 task.
pub fn task_from_pj(t: pj::Task) -> Result<Task, ReadError> {
    task_from_v03(task_to_json(t)?)
}

/// 1.0 task -> 0.3 PJ task (history already trimmed by the caller).
pub fn task_to_pj(t: &Task) -> Result<pj::Task, WriteError> {
    task_to_v03(t).map(task_from_json)
}

// ---------------------------------------------------------------- events and results

/// 0.3 PJ status update -> 1.0 (`final` ignored: the state decides).
pub fn status_update_from_pj(
    e: pj::TaskStatusUpdateEvent,
) -> Result<TaskStatusUpdateEvent, ReadError> {
    status_update_from_v03(j::TaskStatusUpdateEvent {
        kind: j::StatusUpdateKind,
        task_id: e.task_id,
        context_id: e.context_id,
        status: status_to_json(e.status).map_err(|e| e.under("status"))?,
        is_final: e.is_final,
        metadata: e.metadata,
    })
}

/// 1.0 status update -> 0.3 PJ, `final` as 0.3 JSON writes it.
pub fn status_update_to_pj(
    e: &TaskStatusUpdateEvent,
) -> Result<pj::TaskStatusUpdateEvent, WriteError> {
    let j = status_update_to_v03(e)?;
    Ok(pj::TaskStatusUpdateEvent {
        task_id: j.task_id,
        context_id: j.context_id,
        status: status_from_json(j.status),
        is_final: j.is_final,
        metadata: j.metadata,
    })
}

/// 0.3 PJ artifact update -> 1.0.
pub fn artifact_update_from_pj(
    e: pj::TaskArtifactUpdateEvent,
) -> Result<TaskArtifactUpdateEvent, ReadError> {
    Ok(TaskArtifactUpdateEvent {
        task_id: e.task_id,
        context_id: e.context_id,
        artifact: artifact_from_pj(e.artifact).map_err(|e| e.under("artifact"))?,
        append: e.append,
        last_chunk: e.last_chunk,
        metadata: e.metadata,
    })
}

/// 1.0 artifact update -> 0.3 PJ.
pub fn artifact_update_to_pj(e: &TaskArtifactUpdateEvent) -> pj::TaskArtifactUpdateEvent {
    pj::TaskArtifactUpdateEvent {
        task_id: e.task_id.clone(),
        context_id: e.context_id.clone(),
        artifact: artifact_to_pj(&e.artifact),
        append: e.append,
        last_chunk: e.last_chunk,
        metadata: e.metadata.clone(),
    }
}

/// 0.3 PJ StreamResponse -> 1.0 StreamResponse.
pub fn stream_response_from_pj(e: pj::StreamResponse) -> Result<StreamResponse, ReadError> {
    Ok(match e {
        pj::StreamResponse::Task(t) => {
            StreamResponse::Task(task_from_pj(t).map_err(|e| e.under("task"))?)
        }
        pj::StreamResponse::Message(m) => {
            StreamResponse::Message(message_from_pj(m).map_err(|e| e.under("message"))?)
        }
        pj::StreamResponse::StatusUpdate(s) => StreamResponse::StatusUpdate(
            status_update_from_pj(s).map_err(|e| e.under("statusUpdate"))?,
        ),
        pj::StreamResponse::ArtifactUpdate(a) => StreamResponse::ArtifactUpdate(
            artifact_update_from_pj(a).map_err(|e| e.under("artifactUpdate"))?,
        ),
    })
}

/// 1.0 StreamResponse -> 0.3 PJ StreamResponse.
pub fn stream_response_to_pj(e: &StreamResponse) -> Result<pj::StreamResponse, WriteError> {
    Ok(match e {
        StreamResponse::Task(t) => pj::StreamResponse::Task(task_to_pj(t)?),
        StreamResponse::Message(m) => pj::StreamResponse::Message(message_to_pj(m)?),
        StreamResponse::StatusUpdate(s) => {
            pj::StreamResponse::StatusUpdate(status_update_to_pj(s)?)
        }
        StreamResponse::ArtifactUpdate(a) => {
            pj::StreamResponse::ArtifactUpdate(artifact_update_to_pj(a))
        }
    })
}

/// 0.3 PJ SendMessageResponse -> 1.0.
pub fn send_message_response_from_pj(
    r: pj::SendMessageResponse,
) -> Result<SendMessageResponse, ReadError> {
    Ok(match r {
        pj::SendMessageResponse::Task(t) => {
            SendMessageResponse::Task(task_from_pj(t).map_err(|e| e.under("task"))?)
        }
        pj::SendMessageResponse::Message(m) => {
            SendMessageResponse::Message(message_from_pj(m).map_err(|e| e.under("message"))?)
        }
    })
}

/// 1.0 SendMessageResponse -> 0.3 PJ.
pub fn send_message_response_to_pj(
    r: &SendMessageResponse,
) -> Result<pj::SendMessageResponse, WriteError> {
    Ok(match r {
        SendMessageResponse::Task(t) => pj::SendMessageResponse::Task(task_to_pj(t)?),
        SendMessageResponse::Message(m) => pj::SendMessageResponse::Message(message_to_pj(m)?),
    })
}

// ---------------------------------------------------------------- requests

fn push_to_json(c: pj::PushNotificationConfig) -> j::PushNotificationConfig {
    j::PushNotificationConfig {
        id: opt(c.id),
        url: c.url,
        token: opt(c.token),
        authentication: c
            .authentication
            .map(|a| j::PushNotificationAuthenticationInfo {
                schemes: a.schemes,
                credentials: opt(a.credentials),
            }),
    }
}

fn push_from_json(c: j::PushNotificationConfig) -> pj::PushNotificationConfig {
    pj::PushNotificationConfig {
        id: c.id.unwrap_or_default(),
        url: c.url,
        token: c.token.unwrap_or_default(),
        authentication: c.authentication.map(|a| pj::AuthenticationInfo {
            schemes: a.schemes,
            credentials: a.credentials.unwrap_or_default(),
        }),
    }
}

/// 0.3 PJ SendMessageRequest -> 1.0. ProtoJSON polarity: `blocking` absent, or no
/// `configuration` at all, means return immediately (a2a-sdk 0.3's REST server reads it so,
/// and its client writes `{"configuration":{}}` for a non-blocking send).
pub fn send_message_request_from_pj(
    r: pj::SendMessageRequest,
) -> Result<SendMessageRequest, ReadError> {
    let c = r.configuration.unwrap_or_default();
    let configuration = j::MessageSendConfiguration {
        accepted_output_modes: Some(c.accepted_output_modes),
        blocking: Some(c.blocking),
        history_length: c.history_length,
        push_notification_config: c.push_notification.map(push_to_json),
    };
    let params = j::MessageSendParams {
        message: message_to_json(r.message).map_err(|e| e.under("message"))?,
        configuration: Some(configuration),
        metadata: r.metadata,
    };
    send_message_request_from_v03(params).map_err(|mut e| {
        // The 0.3 JSON member name for the push config is not the PJ one.
        e.at = e.at.replace("pushNotificationConfig", "pushNotification");
        e
    })
}

/// 1.0 SendMessageRequest -> 0.3 PJ, `blocking` always written (so a proto3 reader that drops
/// a `false` still gets what 1.0 said: absent is not blocking there too).
pub fn send_message_request_to_pj(
    r: &SendMessageRequest,
) -> Result<pj::SendMessageRequest, WriteError> {
    let p = send_message_request_to_v03(r)?;
    let c = p.configuration.unwrap_or_default();
    Ok(pj::SendMessageRequest {
        message: message_from_json(p.message),
        configuration: Some(pj::SendMessageConfiguration {
            accepted_output_modes: c.accepted_output_modes.unwrap_or_default(),
            push_notification: c.push_notification_config.map(push_from_json),
            history_length: c.history_length,
            blocking: c.blocking.unwrap_or(true),
        }),
        metadata: p.metadata,
    })
}

// ---------------------------------------------------------------- push configs

/// A 0.3 PJ TaskPushNotificationConfig -> 1.0, for the task `task_id` names (the path's, on a
/// server). Its `name`, when present, must name that task, and its config id (if any) must
/// agree with `pushNotificationConfig.id`.
pub fn push_config_from_pj(
    c: pj::TaskPushNotificationConfig,
    task_id: &str,
) -> Result<TaskPushNotificationConfig, ReadError> {
    let mut inner = c.push_notification_config;
    if !c.name.is_empty() {
        let name = ConfigName::parse(&c.name).map_err(|e| ReadError::new("name", e.to_string()))?;
        if name.task_id != task_id {
            return Err(ReadError::new(
                "name",
                format!("names task {:?}, not {task_id:?}", name.task_id),
            ));
        }
        match (name.config_id.is_empty(), inner.id.is_empty()) {
            (false, true) => inner.id = name.config_id,
            (false, false) if inner.id != name.config_id => {
                return Err(ReadError::new(
                    "pushNotificationConfig.id",
                    format!(
                        "{:?} differs from the name's {:?}",
                        inner.id, name.config_id
                    ),
                ))
            }
            _ => {}
        }
    }
    push_notification_config_from_v03(push_to_json(inner), task_id.to_string())
        .map_err(|e| e.under("pushNotificationConfig"))
}

/// 1.0 config -> 0.3 PJ, named `tasks/{t}/pushNotificationConfigs/{id}`.
pub fn push_config_to_pj(c: &TaskPushNotificationConfig) -> pj::TaskPushNotificationConfig {
    pj::TaskPushNotificationConfig {
        name: ConfigName {
            task_id: c.task_id.clone(),
            config_id: c.id.clone(),
        }
        .render(),
        push_notification_config: push_from_json(push_notification_config_to_v03(c)),
    }
}

/// The body of `POST /v1/tasks/{id}/pushNotificationConfigs` -> the 1.0 config to create.
/// Two bodies are in use (`docs/a2a-0.3.md` 1.8): the proto request `{parent, configId,
/// config}` (a2a-sdk 0.3's client) and the bare PJ config `{name, pushNotificationConfig}`
/// (@a2a-js/sdk 0.3.14's client); the form is told by its members and then read strictly.
pub fn create_push_config_from_pj(
    body: Value,
    task_id: &str,
) -> Result<TaskPushNotificationConfig, ReadError> {
    let shape = |e: serde_json::Error| ReadError::new("body", e.to_string());
    let has = |k: &str| body.get(k).is_some();
    if has("config") || has("parent") {
        let r: pj::CreateTaskPushNotificationConfigRequest =
            serde_json::from_value(body).map_err(shape)?;
        if !r.parent.is_empty() {
            let parent =
                parse_task_name(&r.parent).map_err(|e| ReadError::new("parent", e.to_string()))?;
            if parent != task_id {
                return Err(ReadError::new(
                    "parent",
                    format!("{:?} is not {:?}", r.parent, task_name(task_id)),
                ));
            }
        }
        let mut c = push_config_from_pj(r.config, task_id).map_err(|e| e.under("config"))?;
        if c.id.is_empty() {
            c.id = r.config_id;
        }
        return Ok(c);
    }
    let c: pj::TaskPushNotificationConfig = serde_json::from_value(body).map_err(shape)?;
    push_config_from_pj(c, task_id)
}

/// The body our client would send to create `c` (the proto request, as a2a-sdk 0.3 sends it).
pub fn create_push_config_to_pj(
    c: &TaskPushNotificationConfig,
) -> pj::CreateTaskPushNotificationConfigRequest {
    pj::CreateTaskPushNotificationConfigRequest {
        parent: task_name(&c.task_id),
        config_id: c.id.clone(),
        config: push_config_to_pj(c),
    }
}

/// 1.0 list result -> 0.3 PJ (`nextPageToken` kept: the proto has it).
pub fn list_push_configs_response_to_pj(
    r: &ListTaskPushNotificationConfigsResponse,
) -> pj::ListTaskPushNotificationConfigResponse {
    pj::ListTaskPushNotificationConfigResponse {
        configs: r.configs.iter().map(push_config_to_pj).collect(),
        next_page_token: r.next_page_token.clone(),
    }
}

/// A 0.3 PJ config a server answered with -> 1.0, for a client: its task is the one its
/// `name` (`tasks/{t}/pushNotificationConfigs/{id}`) names, which a 0.3 server always sets.
pub fn push_config_answer_from_pj(
    c: pj::TaskPushNotificationConfig,
) -> Result<TaskPushNotificationConfig, ReadError> {
    let name = ConfigName::parse(&c.name).map_err(|e| ReadError::new("name", e.to_string()))?;
    push_config_from_pj(c, &name.task_id)
}

/// A 0.3 PJ list answer -> the 1.0 list result, for a client (each config read as
/// [`push_config_answer_from_pj`] reads it).
pub fn list_push_configs_response_from_pj(
    r: pj::ListTaskPushNotificationConfigResponse,
) -> Result<ListTaskPushNotificationConfigsResponse, ReadError> {
    let configs = r
        .configs
        .into_iter()
        .enumerate()
        .map(|(i, c)| push_config_answer_from_pj(c).map_err(|e| e.under(&format!("configs[{i}]"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ListTaskPushNotificationConfigsResponse {
        configs,
        next_page_token: r.next_page_token,
    })
}

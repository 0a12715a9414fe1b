//! A2A 0.3 JSON: the objects of the 0.3 JSON Schema as the JSON-RPC binding, the well-known
//! 0.3 card and 0.3 webhooks carry them (`kind` discriminators, lower-case enums).
//!
//! These types only hold and check shapes; every rule that relates them to the 1.0 model
//! lives in [`super::translate`]. Reading follows this crate's conventions: unknown members
//! are ignored, a repeated member is refused (serde's derive), and where 0.3 is strict we are
//! too: roles and states outside 0.3's lists, a `kind` that names another object than its
//! members, and a part with no content member or with two are refused.

use crate::de::{opt_bool, opt_int32, present};
use crate::shared::SharedJson;
use crate::types::Struct;
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A `kind` member with one permitted value: written always, optional on read, and when read
/// it must name this object (a `kind` contradicting the members is refused, not guessed at).
macro_rules! kind_tag {
    ($(#[$m:meta])* $name:ident = $wire:literal) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct $name;
        impl $name {
            /// The only `kind` text this tag reads and writes.
            pub const WIRE: &'static str = $wire;
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($wire)
            }
        }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                if s == $wire {
                    Ok(Self)
                } else {
                    Err(D::Error::custom(format!(
                        "kind {s:?} on an object whose kind is {:?}",
                        $wire
                    )))
                }
            }
        }
    };
}

kind_tag!(
    /// `kind: "message"`.
    MessageKind = "message"
);
kind_tag!(
    /// `kind: "task"`.
    TaskKind = "task"
);
kind_tag!(
    /// `kind: "status-update"`.
    StatusUpdateKind = "status-update"
);
kind_tag!(
    /// `kind: "artifact-update"`.
    ArtifactUpdateKind = "artifact-update"
);

/// 0.3 message sender; 0.3 has exactly these two, so `system` or `""` is refused on read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `user`.
    User,
    /// `agent`.
    Agent,
}

/// 0.3 task state, the kebab-case strings of the 0.3 schema; any other string is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskState {
    /// `submitted`.
    Submitted,
    /// `working`.
    Working,
    /// `input-required` (interrupted).
    InputRequired,
    /// `completed` (terminal).
    Completed,
    /// `canceled` (terminal; one `l`, unlike the 0.3 proto).
    Canceled,
    /// `failed` (terminal).
    Failed,
    /// `rejected` (terminal).
    Rejected,
    /// `auth-required` (interrupted).
    AuthRequired,
    /// `unknown`: readable, never written by skillgate.
    Unknown,
}

/// A 0.3 part: one content member plus optional metadata. The `kind` is derived from the
/// content when written, so the two cannot disagree in a value we produce.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The content member.
    pub content: PartBody,
    /// `metadata` (for a wrapped non-object Data Part it carries the `data_part_compat` marker).
    pub metadata: Option<Struct>,
}

/// The content of a 0.3 part (`kind` `text`, `file` or `data`).
#[derive(Debug, Clone, PartialEq)]
pub enum PartBody {
    /// `{"kind":"text","text":..}`.
    Text(String),
    /// `{"kind":"file","file":{..}}`.
    File(FileContent),
    /// `{"kind":"data","data":{..}}`: always a JSON object in 0.3.
    Data(DataContent),
}

impl PartBody {
    /// The `kind` this content is written with, which is also its member name.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Text(_) => "text",
            Self::File(_) => "file",
            Self::Data(_) => "data",
        }
    }
}

/// The payload of a 0.3 Data Part. [`DataContent::Shared`] exists so a 1.0
/// [`crate::PartContent::SharedData`] (the describe_skill document every answer carries) is
/// written from its stored text instead of being copied into a new tree per answer.
#[derive(Debug, Clone, PartialEq)]
pub enum DataContent {
    /// An object, owned.
    Object(Struct),
    /// An object held by a [`SharedJson`]; only ever produced when writing, and only for a
    /// value that is an object (a shared non-object is wrapped like any other).
    Shared(SharedJson),
}

/// The `file` member of a 0.3 file part.
#[derive(Debug, Clone, PartialEq)]
pub struct FileContent {
    /// Exactly one of `bytes` (base64 text, not decoded) or `uri`.
    pub body: FileBody,
    /// `name`.
    pub name: Option<String>,
    /// `mimeType`.
    pub mime_type: Option<String>,
}

/// Where a 0.3 file's content is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileBody {
    /// `bytes`: base64 text, kept as text.
    Bytes(String),
    /// `uri`.
    Uri(String),
}

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("kind", self.content.kind())?;
        match &self.content {
            PartBody::Text(t) => m.serialize_entry("text", t)?,
            PartBody::File(f) => m.serialize_entry("file", f)?,
            PartBody::Data(DataContent::Object(o)) => m.serialize_entry("data", o)?,
            PartBody::Data(DataContent::Shared(j)) => m.serialize_entry("data", j)?,
        }
        if let Some(md) = &self.metadata {
            m.serialize_entry("metadata", md)?;
        }
        m.end()
    }
}

impl Serialize for FileContent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match &self.body {
            FileBody::Bytes(b) => m.serialize_entry("bytes", b)?,
            FileBody::Uri(u) => m.serialize_entry("uri", u)?,
        }
        if let Some(n) = &self.name {
            m.serialize_entry("name", n)?;
        }
        if let Some(t) = &self.mime_type {
            m.serialize_entry("mimeType", t)?;
        }
        m.end()
    }
}

#[derive(Deserialize)]
struct PartRepr {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default, deserialize_with = "present")]
    text: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    file: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    data: Option<Value>,
    #[serde(default)]
    metadata: Option<Struct>,
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = PartRepr::deserialize(d)?;
        let members: Vec<(&'static str, Value)> =
            [("text", r.text), ("file", r.file), ("data", r.data)]
                .into_iter()
                .filter_map(|(name, v)| v.map(|v| (name, v)))
                .collect();
        let [(member, value)] = <[_; 1]>::try_from(members).map_err(|found: Vec<_>| {
            let names: Vec<&str> = found.iter().map(|(n, _)| *n).collect();
            D::Error::custom(format!(
                "a 0.3 part needs exactly one of text, file, data (found {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
        })?;
        if let Some(kind) = r.kind.as_deref() {
            if !["text", "file", "data"].contains(&kind) {
                return Err(D::Error::custom(format!("unknown part kind {kind:?}")));
            }
            if kind != member {
                return Err(D::Error::custom(format!(
                    "part kind {kind:?} but its content member is `{member}`"
                )));
            }
        }
        let content = match (member, value) {
            ("text", Value::String(t)) => PartBody::Text(t),
            ("text", other) => {
                return Err(D::Error::custom(format!(
                    "`text` must be a string, not {}",
                    type_name(&other)
                )))
            }
            ("file", v) => PartBody::File(serde_json::from_value(v).map_err(D::Error::custom)?),
            (_, Value::Object(o)) => PartBody::Data(DataContent::Object(o)),
            (_, other) => {
                return Err(D::Error::custom(format!(
                    "0.3 `data` must be a JSON object, not {}",
                    type_name(&other)
                )))
            }
        };
        Ok(Part {
            content,
            metadata: r.metadata,
        })
    }
}

/// A JSON type's name for error messages.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileRepr {
    #[serde(default)]
    bytes: Option<String>,
    #[serde(default)]
    uri: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    mime_type: Option<String>,
}

impl<'de> Deserialize<'de> for FileContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = FileRepr::deserialize(d)?;
        let body = match (r.bytes, r.uri) {
            (Some(b), None) => FileBody::Bytes(b),
            (None, Some(u)) => FileBody::Uri(u),
            (Some(_), Some(_)) => {
                return Err(D::Error::custom("a 0.3 file has both `bytes` and `uri`"))
            }
            (None, None) => return Err(D::Error::custom("a 0.3 file needs `bytes` or `uri`")),
        };
        Ok(FileContent {
            body,
            name: r.name,
            mime_type: r.mime_type,
        })
    }
}

/// A 0.3 Message (`kind: "message"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Always written; optional on read.
    #[serde(default)]
    pub kind: MessageKind,
    /// `messageId` (required).
    pub message_id: String,
    /// `contextId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// `taskId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// `role` (required).
    pub role: Role,
    /// `parts` (required).
    pub parts: Vec<Part>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
    /// `extensions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    /// `referenceTaskIds`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_task_ids: Option<Vec<String>>,
}

/// A 0.3 TaskStatus; `timestamp` is kept as received (translation normalizes it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatus {
    /// `state` (required).
    pub state: TaskState,
    /// `message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// `timestamp` (ISO 8601, any offset on read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// A 0.3 Artifact (no `kind` in 0.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// `artifactId` (required).
    pub artifact_id: String,
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `description`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `parts` (required).
    pub parts: Vec<Part>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
    /// `extensions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
}

/// A 0.3 Task (`kind: "task"`); `contextId` is required in 0.3.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Always written; optional on read.
    #[serde(default)]
    pub kind: TaskKind,
    /// `id` (required).
    pub id: String,
    /// `contextId` (required).
    pub context_id: String,
    /// `status` (required).
    pub status: TaskStatus,
    /// `artifacts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
    /// `history`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<Message>>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// A 0.3 status-update stream event. `final` is written from the state and ignored on read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusUpdateEvent {
    /// Always written; optional on read.
    #[serde(default)]
    pub kind: StatusUpdateKind,
    /// `taskId` (required).
    pub task_id: String,
    /// `contextId` (required).
    pub context_id: String,
    /// `status` (required).
    pub status: TaskStatus,
    /// `final`: the last event of the stream (absent on read = false).
    #[serde(rename = "final", default, deserialize_with = "bool_or_absent")]
    pub is_final: bool,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// A 0.3 artifact-update stream event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskArtifactUpdateEvent {
    /// Always written; optional on read.
    #[serde(default)]
    pub kind: ArtifactUpdateKind,
    /// `taskId` (required).
    pub task_id: String,
    /// `contextId` (required).
    pub context_id: String,
    /// `artifact` (required).
    pub artifact: Artifact,
    /// `append` (absent = false).
    #[serde(
        default,
        deserialize_with = "opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub append: Option<bool>,
    /// `lastChunk` (absent = false).
    #[serde(
        default,
        deserialize_with = "opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_chunk: Option<bool>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

fn bool_or_absent<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(opt_bool(d)?.unwrap_or(false))
}

/// The `result` of 0.3 `message/send`: the bare Task or Message, told apart by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SendMessageResult {
    /// `kind: "task"`.
    Task(Task),
    /// `kind: "message"`.
    Message(Message),
}

/// One event of a 0.3 stream (`message/stream`, `tasks/resubscribe`): the bare object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StreamEvent {
    /// `kind: "task"`.
    Task(Task),
    /// `kind: "message"`.
    Message(Message),
    /// `kind: "status-update"`.
    StatusUpdate(TaskStatusUpdateEvent),
    /// `kind: "artifact-update"`.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

/// The `kind` of a union member, or, when a peer left it out, the kind its members imply
/// (a status update carries `taskId`, a task `id` and `status`, a message `role`).
fn union_kind(v: &Value) -> Result<&str, String> {
    let Value::Object(o) = v else {
        return Err(format!("expected an object, found {}", type_name(v)));
    };
    match o.get("kind") {
        Some(Value::String(k)) => Ok(k),
        Some(other) => Err(format!("`kind` must be a string, not {}", type_name(other))),
        None if o.contains_key("artifact") => Ok(ArtifactUpdateKind::WIRE),
        None if o.contains_key("taskId") && o.contains_key("status") => Ok(StatusUpdateKind::WIRE),
        None if o.contains_key("status") => Ok(TaskKind::WIRE),
        None if o.contains_key("role") => Ok(MessageKind::WIRE),
        None => Err("no `kind` and no members that tell what the object is".into()),
    }
}

impl<'de> Deserialize<'de> for SendMessageResult {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match union_kind(&v).map_err(D::Error::custom)? {
            "task" => serde_json::from_value(v).map(Self::Task),
            "message" => serde_json::from_value(v).map(Self::Message),
            k => {
                return Err(D::Error::custom(format!(
                    "a message/send result of kind {k:?}"
                )))
            }
        }
        .map_err(D::Error::custom)
    }
}

impl<'de> Deserialize<'de> for StreamEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match union_kind(&v).map_err(D::Error::custom)? {
            "task" => serde_json::from_value(v).map(Self::Task),
            "message" => serde_json::from_value(v).map(Self::Message),
            "status-update" => serde_json::from_value(v).map(Self::StatusUpdate),
            "artifact-update" => serde_json::from_value(v).map(Self::ArtifactUpdate),
            k => return Err(D::Error::custom(format!("a stream event of kind {k:?}"))),
        }
        .map_err(D::Error::custom)
    }
}

/// Params of `message/send` and `message/stream`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendParams {
    /// `message` (required).
    pub message: Message,
    /// `configuration`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<MessageSendConfiguration>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// 0.3 send options. On JSON-RPC an absent `blocking` means blocking (the inverse of 1.0's
/// `returnImmediately`); only JSON booleans are accepted for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendConfiguration {
    /// `acceptedOutputModes` (`[]` = no constraint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_output_modes: Option<Vec<String>>,
    /// `blocking`.
    #[serde(
        default,
        deserialize_with = "opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub blocking: Option<bool>,
    /// `historyLength`; in 0.3, 0 means "all" (translation turns it into unset).
    #[serde(
        default,
        deserialize_with = "opt_int32",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    /// `pushNotificationConfig` (nested, without a task id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config: Option<PushNotificationConfig>,
}

/// A 0.3 push notification config: the 1.0 flat config minus the task id, with a list of
/// schemes instead of one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushNotificationConfig {
    /// `id` (server-assigned when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `url` (required).
    pub url: String,
    /// `token`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// `authentication`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<PushNotificationAuthenticationInfo>,
}

/// 0.3 webhook authentication: `schemes[]` where 1.0 has one `scheme`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushNotificationAuthenticationInfo {
    /// `schemes` (required; the first is the one used).
    pub schemes: Vec<String>,
    /// `credentials`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

/// Params and result of `tasks/pushNotificationConfig/set` (and items of `.../list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfig {
    /// `taskId` (required).
    pub task_id: String,
    /// `pushNotificationConfig` (required).
    pub push_notification_config: PushNotificationConfig,
}

/// Params of `tasks/get`; `metadata` is read and ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskQueryParams {
    /// Task `id` (required).
    pub id: String,
    /// `historyLength` (0 = all in 0.3).
    #[serde(
        default,
        deserialize_with = "opt_int32",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// Params of `tasks/cancel` and `tasks/resubscribe`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// Task `id` (required).
    pub id: String,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// Params of `tasks/pushNotificationConfig/get`: without a config id (a TaskIdParams, as 0.3
/// clients of single-config servers send) it means the task's oldest config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskPushNotificationConfigParams {
    /// Task `id` (required).
    pub id: String,
    /// `pushNotificationConfigId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config_id: Option<String>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// Params of `tasks/pushNotificationConfig/list` (no paging in 0.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigParams {
    /// Task `id` (required).
    pub id: String,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// Params of `tasks/pushNotificationConfig/delete`; both ids are required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteTaskPushNotificationConfigParams {
    /// Task `id`.
    pub id: String,
    /// `pushNotificationConfigId`.
    pub push_notification_config_id: String,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

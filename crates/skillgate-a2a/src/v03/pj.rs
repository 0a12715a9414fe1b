//! A2A 0.3 ProtoJSON ("0.3 PJ"): the JSON form of the 0.3 proto (package `a2a.v1`) that the
//! 0.3 HTTP+JSON binding carries (`docs/a2a-0.3.md` 1.5-1.8). It differs from the 0.3 JSON of
//! [`super::json`] in shape only: a message's parts are `content`, parts have no `kind`
//! (`{text}`, `{file:{fileWithBytes|fileWithUri,..}}`, `{data:{data:{..}}}`), enums are the
//! proto names (`ROLE_USER`, `TASK_STATE_CANCELLED`), results and events are wrapped
//! (`{task}`, `{message}`, `{statusUpdate}`), push configs are named by resource names.
//!
//! Reading is strict where [`super::json`] is lenient: these bodies come from generated proto
//! code, so an unknown member is a peer bug or a forgery and is refused (the error names it),
//! as is an enum name outside the proto's list. A member may be written under its json_name
//! or its proto field name (`messageId` or `message_id`, `message` or `request`), as every
//! ProtoJSON reader accepts; both at once is a duplicate and refused. Every rule relating
//! these types to the 1.0 model is in [`super::translate::pj`].

use super::json::{DataContent, FileBody};
use crate::de::{opt_bool, opt_int32, present};
use crate::types::Struct;
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A proto enum written by name; read by name or by number (ProtoJSON readers accept both).
/// Anything else is refused with the list of names.
macro_rules! proto_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = ($wire:literal, $num:literal)),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vm])* $variant),+
        }
        impl $name {
            /// The proto name this value is written as.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $wire),+ }
            }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = Value::deserialize(d)?;
                let found = match &v {
                    Value::String(s) => [$(($wire, Self::$variant)),+]
                        .into_iter()
                        .find(|(w, _)| *w == s.as_str())
                        .map(|(_, x)| x),
                    Value::Number(n) => [$(($num, Self::$variant)),+]
                        .into_iter()
                        .find(|(w, _)| Some(*w) == n.as_i64())
                        .map(|(_, x)| x),
                    _ => None,
                };
                found.ok_or_else(|| D::Error::custom(format!(
                    "{v} is not a {}; expected one of {}",
                    stringify!($name),
                    [$($wire),+].join(", ")
                )))
            }
        }
    };
}

proto_enum!(
    /// 0.3 proto `Role`. `ROLE_UNSPECIFIED` is readable here and refused by translation.
    Role {
        /// `ROLE_UNSPECIFIED`.
        Unspecified = ("ROLE_UNSPECIFIED", 0),
        /// `ROLE_USER`.
        User = ("ROLE_USER", 1),
        /// `ROLE_AGENT`.
        Agent = ("ROLE_AGENT", 2),
    }
);

proto_enum!(
    /// 0.3 proto `TaskState`; note `TASK_STATE_CANCELLED` with two `l` (1.0 and 0.3 JSON
    /// have one).
    TaskState {
        /// `TASK_STATE_UNSPECIFIED` (read, never written).
        Unspecified = ("TASK_STATE_UNSPECIFIED", 0),
        /// `TASK_STATE_SUBMITTED`.
        Submitted = ("TASK_STATE_SUBMITTED", 1),
        /// `TASK_STATE_WORKING`.
        Working = ("TASK_STATE_WORKING", 2),
        /// `TASK_STATE_COMPLETED`.
        Completed = ("TASK_STATE_COMPLETED", 3),
        /// `TASK_STATE_FAILED`.
        Failed = ("TASK_STATE_FAILED", 4),
        /// `TASK_STATE_CANCELLED`.
        Cancelled = ("TASK_STATE_CANCELLED", 5),
        /// `TASK_STATE_INPUT_REQUIRED`.
        InputRequired = ("TASK_STATE_INPUT_REQUIRED", 6),
        /// `TASK_STATE_REJECTED`.
        Rejected = ("TASK_STATE_REJECTED", 7),
        /// `TASK_STATE_AUTH_REQUIRED`.
        AuthRequired = ("TASK_STATE_AUTH_REQUIRED", 8),
    }
);

/// A 0.3 PJ part: the proto `oneof part` (exactly one of `text`, `file`, `data`) plus
/// `metadata`.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The one content member.
    pub content: PartBody,
    /// `metadata` (carries `data_part_compat` for a wrapped non-object Data Part).
    pub metadata: Option<Struct>,
}

/// The content of a 0.3 PJ part.
#[derive(Debug, Clone, PartialEq)]
pub enum PartBody {
    /// `{"text": ..}`.
    Text(String),
    /// `{"file": {..}}`.
    File(FilePart),
    /// `{"data": {"data": {..}}}`: a `DataPart` whose `data` is a `Struct` (an object).
    Data(DataContent),
}

/// The proto `FilePart`: `fileWithBytes` (base64 text, kept as text) or `fileWithUri`.
#[derive(Debug, Clone, PartialEq)]
pub struct FilePart {
    /// Where the content is.
    pub body: FileBody,
    /// `mimeType`.
    pub mime_type: Option<String>,
    /// `name`.
    pub name: Option<String>,
}

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        /// `{"data": X}`: the proto `DataPart` around the Struct.
        struct Wrapped<'a>(&'a DataContent);
        impl Serialize for Wrapped<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(1))?;
                match self.0 {
                    DataContent::Object(o) => m.serialize_entry("data", o)?,
                    DataContent::Shared(j) => m.serialize_entry("data", j)?,
                }
                m.end()
            }
        }
        let mut m = s.serialize_map(None)?;
        match &self.content {
            PartBody::Text(t) => m.serialize_entry("text", t)?,
            PartBody::File(f) => m.serialize_entry("file", f)?,
            PartBody::Data(d) => m.serialize_entry("data", &Wrapped(d))?,
        }
        if let Some(md) = &self.metadata {
            m.serialize_entry("metadata", md)?;
        }
        m.end()
    }
}

impl Serialize for FilePart {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match &self.body {
            FileBody::Bytes(b) => m.serialize_entry("fileWithBytes", b)?,
            FileBody::Uri(u) => m.serialize_entry("fileWithUri", u)?,
        }
        if let Some(t) = &self.mime_type {
            m.serialize_entry("mimeType", t)?;
        }
        if let Some(n) = &self.name {
            m.serialize_entry("name", n)?;
        }
        m.end()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PartRepr {
    #[serde(default, deserialize_with = "present")]
    text: Option<Value>,
    #[serde(default)]
    file: Option<FileRepr>,
    #[serde(default)]
    data: Option<DataRepr>,
    #[serde(default)]
    metadata: Option<Struct>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRepr {
    #[serde(default, alias = "file_with_uri", rename = "fileWithUri")]
    uri: Option<String>,
    #[serde(default, alias = "file_with_bytes", rename = "fileWithBytes")]
    bytes: Option<String>,
    #[serde(default, alias = "mime_type", rename = "mimeType")]
    mime_type: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DataRepr {
    #[serde(default, deserialize_with = "present")]
    data: Option<Value>,
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = PartRepr::deserialize(d)?;
        let content = match (r.text, r.file, r.data) {
            (Some(Value::String(t)), None, None) => PartBody::Text(t),
            (Some(other), None, None) => {
                return Err(D::Error::custom(format!(
                    "`text` must be a string, not {}",
                    super::json::type_name(&other)
                )))
            }
            (None, Some(f), None) => PartBody::File(FilePart {
                body: match (f.bytes, f.uri) {
                    (Some(b), None) => FileBody::Bytes(b),
                    (None, Some(u)) => FileBody::Uri(u),
                    (Some(_), Some(_)) => {
                        return Err(D::Error::custom(
                            "a file part has both `fileWithBytes` and `fileWithUri`",
                        ))
                    }
                    (None, None) => {
                        return Err(D::Error::custom(
                            "a file part needs `fileWithBytes` or `fileWithUri`",
                        ))
                    }
                },
                mime_type: f.mime_type,
                name: f.name,
            }),
            (None, None, Some(DataRepr { data })) => match data {
                Some(Value::Object(o)) => PartBody::Data(DataContent::Object(o)),
                Some(other) => {
                    return Err(D::Error::custom(format!(
                        "`data.data` is a Struct (a JSON object), not {}",
                        super::json::type_name(&other)
                    )))
                }
                // An empty DataPart is an empty Struct in proto3.
                None => PartBody::Data(DataContent::Object(Struct::new())),
            },
            (t, f, d) => {
                let names: Vec<&str> = [("text", t.is_some()), ("file", f.is_some())]
                    .into_iter()
                    .chain([("data", d.is_some())])
                    .filter(|(_, on)| *on)
                    .map(|(n, _)| n)
                    .collect();
                return Err(D::Error::custom(format!(
                    "a part needs exactly one of text, file, data (found {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
        };
        Ok(Part {
            content,
            metadata: r.metadata,
        })
    }
}

/// The proto `Message`: parts under `content`; no `kind` and no `referenceTaskIds`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Message {
    /// `messageId`.
    #[serde(default, alias = "message_id")]
    pub message_id: String,
    /// `contextId`.
    #[serde(
        default,
        alias = "context_id",
        skip_serializing_if = "String::is_empty"
    )]
    pub context_id: String,
    /// `taskId`.
    #[serde(default, alias = "task_id", skip_serializing_if = "String::is_empty")]
    pub task_id: String,
    /// `role`.
    pub role: Role,
    /// `content`: the parts.
    #[serde(default)]
    pub content: Vec<Part>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
    /// `extensions`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
}

/// The proto `TaskStatus`; its message field is `update`, json_name `message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskStatus {
    /// `state`.
    pub state: TaskState,
    /// `message` (proto name `update`).
    #[serde(default, alias = "update", skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// `timestamp` (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// The proto `Artifact`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Artifact {
    /// `artifactId`.
    #[serde(default, alias = "artifact_id")]
    pub artifact_id: String,
    /// `name`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `description`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// `parts`.
    #[serde(default)]
    pub parts: Vec<Part>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
    /// `extensions`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
}

/// The proto `Task`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Task {
    /// `id`.
    #[serde(default)]
    pub id: String,
    /// `contextId`.
    #[serde(default, alias = "context_id")]
    pub context_id: String,
    /// `status`.
    pub status: TaskStatus,
    /// `artifacts`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
    /// `history`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Message>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// The proto `TaskStatusUpdateEvent`; `final` is written from the state and ignored on read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskStatusUpdateEvent {
    /// `taskId`.
    #[serde(default, alias = "task_id")]
    pub task_id: String,
    /// `contextId`.
    #[serde(default, alias = "context_id")]
    pub context_id: String,
    /// `status`.
    pub status: TaskStatus,
    /// `final`.
    #[serde(rename = "final", default, deserialize_with = "bool_or_absent")]
    pub is_final: bool,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// The proto `TaskArtifactUpdateEvent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskArtifactUpdateEvent {
    /// `taskId`.
    #[serde(default, alias = "task_id")]
    pub task_id: String,
    /// `contextId`.
    #[serde(default, alias = "context_id")]
    pub context_id: String,
    /// `artifact`.
    pub artifact: Artifact,
    /// `append` (proto3: absent = false, written only when true).
    #[serde(
        default,
        deserialize_with = "bool_or_absent",
        skip_serializing_if = "crate::de::is_false"
    )]
    pub append: bool,
    /// `lastChunk`.
    #[serde(
        default,
        alias = "last_chunk",
        deserialize_with = "bool_or_absent",
        skip_serializing_if = "crate::de::is_false"
    )]
    pub last_chunk: bool,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

fn bool_or_absent<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(opt_bool(d)?.unwrap_or(false))
}

/// The proto `AuthenticationInfo` of a webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthenticationInfo {
    /// `schemes` (the first is the one used).
    #[serde(default)]
    pub schemes: Vec<String>,
    /// `credentials`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub credentials: String,
}

/// The proto `PushNotificationConfig` (no task id: it is in the resource name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PushNotificationConfig {
    /// `id`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// `url`.
    #[serde(default)]
    pub url: String,
    /// `token`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub token: String,
    /// `authentication`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<AuthenticationInfo>,
}

/// The proto `TaskPushNotificationConfig`: `name` is
/// `tasks/{taskId}/pushNotificationConfigs/{configId}` (see [`super::rest::ConfigName`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskPushNotificationConfig {
    /// `name`.
    #[serde(default)]
    pub name: String,
    /// `pushNotificationConfig`.
    #[serde(alias = "push_notification_config")]
    pub push_notification_config: PushNotificationConfig,
}

/// The proto `CreateTaskPushNotificationConfigRequest`, the body a2a-sdk 0.3 clients POST to
/// `/v1/tasks/{id}/pushNotificationConfigs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateTaskPushNotificationConfigRequest {
    /// `parent`: `tasks/{taskId}`.
    #[serde(default)]
    pub parent: String,
    /// `configId` (empty: the server assigns one).
    #[serde(default, alias = "config_id", skip_serializing_if = "String::is_empty")]
    pub config_id: String,
    /// `config`.
    pub config: TaskPushNotificationConfig,
}

/// The proto `ListTaskPushNotificationConfigResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListTaskPushNotificationConfigResponse {
    /// `configs`.
    #[serde(default)]
    pub configs: Vec<TaskPushNotificationConfig>,
    /// `nextPageToken`.
    #[serde(
        default,
        alias = "next_page_token",
        skip_serializing_if = "String::is_empty"
    )]
    pub next_page_token: String,
}

/// The proto `SendMessageConfiguration`. `blocking` is a plain proto3 bool: absent means
/// false, i.e. not blocking (the inverse of 0.3 JSON-RPC, `docs/a2a-0.3.md` 1.7).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendMessageConfiguration {
    /// `acceptedOutputModes`.
    #[serde(default, alias = "accepted_output_modes")]
    pub accepted_output_modes: Vec<String>,
    /// `pushNotification`.
    #[serde(
        default,
        alias = "push_notification",
        skip_serializing_if = "Option::is_none"
    )]
    pub push_notification: Option<PushNotificationConfig>,
    /// `historyLength` (0 = all, as in 0.3 JSON-RPC).
    #[serde(
        default,
        alias = "history_length",
        deserialize_with = "opt_int32",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    /// `blocking`.
    #[serde(default, deserialize_with = "bool_or_absent")]
    pub blocking: bool,
}

/// The proto `SendMessageRequest`: the message under `message` (proto name `request`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendMessageRequest {
    /// `message`.
    #[serde(alias = "request")]
    pub message: Message,
    /// `configuration` (absent: non-blocking, no constraint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<SendMessageConfiguration>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Struct>,
}

/// The proto `SendMessageResponse`: `{"task": ..}` or `{"message": ..}` (proto name `msg`).
#[derive(Debug, Clone, PartialEq)]
pub enum SendMessageResponse {
    /// `task`.
    Task(Task),
    /// `message`.
    Message(Message),
}

/// The proto `StreamResponse`: one of `task`, `message` (`msg`), `statusUpdate`,
/// `artifactUpdate`.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamResponse {
    /// `task`.
    Task(Task),
    /// `message`.
    Message(Message),
    /// `statusUpdate`.
    StatusUpdate(TaskStatusUpdateEvent),
    /// `artifactUpdate`.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

fn one<S: Serializer, T: Serialize>(s: S, key: &str, v: &T) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(1))?;
    m.serialize_entry(key, v)?;
    m.end()
}

impl Serialize for SendMessageResponse {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Task(t) => one(s, "task", t),
            Self::Message(m) => one(s, "message", m),
        }
    }
}

impl Serialize for StreamResponse {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Task(t) => one(s, "task", t),
            Self::Message(m) => one(s, "message", m),
            Self::StatusUpdate(u) => one(s, "statusUpdate", u),
            Self::ArtifactUpdate(a) => one(s, "artifactUpdate", a),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ResponseRepr {
    #[serde(default)]
    task: Option<Task>,
    #[serde(default, alias = "msg")]
    message: Option<Message>,
    #[serde(default, alias = "status_update")]
    status_update: Option<TaskStatusUpdateEvent>,
    #[serde(default, alias = "artifact_update")]
    artifact_update: Option<TaskArtifactUpdateEvent>,
}

impl ResponseRepr {
    fn into_stream(self) -> Result<StreamResponse, String> {
        let mut found = Vec::new();
        if let Some(t) = self.task {
            found.push(StreamResponse::Task(t));
        }
        if let Some(m) = self.message {
            found.push(StreamResponse::Message(m));
        }
        if let Some(u) = self.status_update {
            found.push(StreamResponse::StatusUpdate(u));
        }
        if let Some(a) = self.artifact_update {
            found.push(StreamResponse::ArtifactUpdate(a));
        }
        let n = found.len();
        match <[_; 1]>::try_from(found) {
            Ok([one]) => Ok(one),
            Err(_) => Err(format!(
                "needs exactly one of task, message, statusUpdate, artifactUpdate (found {n})"
            )),
        }
    }
}

impl<'de> Deserialize<'de> for StreamResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ResponseRepr::deserialize(d)?
            .into_stream()
            .map_err(D::Error::custom)
    }
}

impl<'de> Deserialize<'de> for SendMessageResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match ResponseRepr::deserialize(d)?
            .into_stream()
            .map_err(D::Error::custom)?
        {
            StreamResponse::Task(t) => Ok(Self::Task(t)),
            StreamResponse::Message(m) => Ok(Self::Message(m)),
            _ => Err(D::Error::custom(
                "a SendMessageResponse holds a task or a message, not a stream update",
            )),
        }
    }
}

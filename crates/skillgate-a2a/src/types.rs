//! Core A2A objects: Message, Part, Task, TaskStatus, Artifact, stream events.

use crate::de::{is_false, nullable, present};
use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::shared::SharedJson;

/// A JSON object (`google.protobuf.Struct`).
pub type Struct = Map<String, Value>;

macro_rules! proto_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $num:literal => $wire:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }
        impl $name {
            /// The proto enum value name, as emitted in JSON.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $wire,)+ }
            }
            /// The proto enum number.
            pub fn number(self) -> i32 {
                match self { $(Self::$variant => $num,)+ }
            }
            /// Looks up a value by proto number.
            pub fn from_number(n: i64) -> Option<Self> {
                match n { $($num => Some(Self::$variant),)+ _ => None }
            }
            /// Looks up a value by proto name.
            pub fn from_name(s: &str) -> Option<Self> {
                match s { $($wire => Some(Self::$variant),)+ _ => None }
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                if let Some(v) = Self::from_name(s) {
                    return Ok(v);
                }
                s.parse::<i64>().ok().and_then(Self::from_number)
                    .ok_or_else(|| format!("unknown {} value {s:?}", stringify!($name)))
            }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                match Value::deserialize(d)? {
                    Value::Null => Ok(Self::default()),
                    Value::String(s) => Self::from_name(&s)
                        .ok_or_else(|| D::Error::custom(format!("unknown {} name {s:?}", stringify!($name)))),
                    Value::Number(n) => n.as_i64().and_then(Self::from_number)
                        .ok_or_else(|| D::Error::custom(format!("unknown {} number {n}", stringify!($name)))),
                    _ => Err(D::Error::custom(concat!("expected a ", stringify!($name), " name or number"))),
                }
            }
        }
    };
}

proto_enum! {
    /// Sender of a message.
    Role {
        /// `ROLE_UNSPECIFIED` (0).
        #[default]
        Unspecified = 0 => "ROLE_UNSPECIFIED",
        /// `ROLE_USER` (1): the client.
        User = 1 => "ROLE_USER",
        /// `ROLE_AGENT` (2): the server.
        Agent = 2 => "ROLE_AGENT",
    }
}

proto_enum! {
    /// Lifecycle state of a task.
    TaskState {
        /// `TASK_STATE_UNSPECIFIED` (0).
        #[default]
        Unspecified = 0 => "TASK_STATE_UNSPECIFIED",
        /// `TASK_STATE_SUBMITTED` (1).
        Submitted = 1 => "TASK_STATE_SUBMITTED",
        /// `TASK_STATE_WORKING` (2).
        Working = 2 => "TASK_STATE_WORKING",
        /// `TASK_STATE_COMPLETED` (3, terminal).
        Completed = 3 => "TASK_STATE_COMPLETED",
        /// `TASK_STATE_FAILED` (4, terminal).
        Failed = 4 => "TASK_STATE_FAILED",
        /// `TASK_STATE_CANCELED` (5, terminal).
        Canceled = 5 => "TASK_STATE_CANCELED",
        /// `TASK_STATE_INPUT_REQUIRED` (6, interrupted).
        InputRequired = 6 => "TASK_STATE_INPUT_REQUIRED",
        /// `TASK_STATE_REJECTED` (7, terminal).
        Rejected = 7 => "TASK_STATE_REJECTED",
        /// `TASK_STATE_AUTH_REQUIRED` (8, interrupted).
        AuthRequired = 8 => "TASK_STATE_AUTH_REQUIRED",
    }
}

impl TaskState {
    /// Completed, failed, canceled or rejected: no further transitions.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Failed | Self::Canceled | Self::Rejected
        )
    }
    /// Input or auth required: the task waits for the client.
    pub fn is_interrupted(self) -> bool {
        matches!(self, Self::InputRequired | Self::AuthRequired)
    }
}

/// The content of a Part: exactly one of the oneof `content` members.
#[derive(Debug, Clone)]
pub enum PartContent {
    /// `text`: a string.
    Text(String),
    /// `raw`: file bytes, kept in their base64 JSON form.
    Raw(String),
    /// `url`: a reference to file content.
    Url(String),
    /// `data`: any JSON value, kept untouched.
    Data(Value),
    /// `data` on the wire too: an immutable value shared by every part that holds it,
    /// serialized once (a server's describe_skill document). Never produced by parsing; equal
    /// to a [`PartContent::Data`] of the same value.
    SharedData(SharedJson),
}

impl PartContent {
    /// The oneof member name.
    pub fn member(&self) -> &'static str {
        match self {
            Self::Text(_) => "text",
            Self::Raw(_) => "raw",
            Self::Url(_) => "url",
            Self::Data(_) | Self::SharedData(_) => "data",
        }
    }

    /// The `data` payload, whichever way it is held.
    pub fn data(&self) -> Option<&Value> {
        match self {
            Self::Data(v) => Some(v),
            Self::SharedData(s) => Some(s.value()),
            _ => None,
        }
    }
}

impl PartialEq for PartContent {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Text(a), Self::Text(b))
            | (Self::Raw(a), Self::Raw(b))
            | (Self::Url(a), Self::Url(b)) => a == b,
            (Self::SharedData(a), Self::SharedData(b)) => a == b,
            _ => match (self.data(), other.data()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }
}

/// A content part of a Message or Artifact.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The part's content (exactly one member on the wire).
    pub content: PartContent,
    /// Optional metadata object.
    pub metadata: Option<Struct>,
    /// Optional file name (empty = unset).
    pub filename: String,
    /// Optional media type (empty = unset).
    pub media_type: String,
}

impl Part {
    /// A text part.
    pub fn text(s: impl Into<String>) -> Self {
        Self::from_content(PartContent::Text(s.into()))
    }
    /// A Data Part with `mediaType: application/json`.
    pub fn data(v: Value) -> Self {
        let mut p = Self::from_content(PartContent::Data(v));
        p.media_type = crate::MEDIA_TYPE_JSON.to_string();
        p
    }
    /// A part with the given content and no metadata.
    pub fn from_content(content: PartContent) -> Self {
        Self {
            content,
            metadata: None,
            filename: String::new(),
            media_type: String::new(),
        }
    }
    /// A Data Part with `mediaType: application/json` whose payload is shared, not copied.
    pub fn shared_data(v: SharedJson) -> Self {
        let mut p = Self::from_content(PartContent::SharedData(v));
        p.media_type = crate::MEDIA_TYPE_JSON.to_string();
        p
    }
    /// The Data Part payload, if this is a Data Part.
    pub fn as_data(&self) -> Option<&Value> {
        self.content.data()
    }
    /// The text, if this is a text part.
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            PartContent::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// Why a list of parts is not exactly one Data Part.
///
/// This reader lives in skillgate-a2a, not in core, because "one part, and it is `data`" is a
/// statement about A2A's `Part` structure; core (which must not depend on this crate) then
/// applies the draft's rules to the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SingleDataError {
    /// The list does not hold exactly one part.
    #[error("{0} parts, not exactly one Data Part")]
    PartCount(usize),
    /// The one part is another oneof member (its name).
    #[error("a {0} part, not a Data Part")]
    NotData(&'static str),
}

/// The payload of the only part in `parts`, which must be a Data Part (the draft's shape of a
/// request message, a result Artifact and an error status message alike).
pub fn single_data(parts: &[Part]) -> Result<&Value, SingleDataError> {
    match parts {
        [part] => part
            .as_data()
            .ok_or(SingleDataError::NotData(part.content.member())),
        more => Err(SingleDataError::PartCount(more.len())),
    }
}

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match &self.content {
            PartContent::Text(t) => m.serialize_entry("text", t)?,
            PartContent::Raw(r) => m.serialize_entry("raw", r)?,
            PartContent::Url(u) => m.serialize_entry("url", u)?,
            PartContent::Data(d) => m.serialize_entry("data", d)?,
            PartContent::SharedData(d) => m.serialize_entry("data", d)?,
        }
        if let Some(md) = &self.metadata {
            m.serialize_entry("metadata", md)?;
        }
        if !self.filename.is_empty() {
            m.serialize_entry("filename", &self.filename)?;
        }
        if !self.media_type.is_empty() {
            m.serialize_entry("mediaType", &self.media_type)?;
        }
        m.end()
    }
}

#[derive(Deserialize)]
struct PartRepr {
    #[serde(default, deserialize_with = "nullable")]
    text: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    raw: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    url: Option<String>,
    #[serde(default, deserialize_with = "present")]
    data: Option<Value>,
    #[serde(default, deserialize_with = "nullable")]
    metadata: Option<Struct>,
    #[serde(default, deserialize_with = "nullable")]
    filename: String,
    #[serde(
        default,
        rename = "mediaType",
        alias = "media_type",
        deserialize_with = "nullable"
    )]
    media_type: String,
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut r = PartRepr::deserialize(d)?;
        let mut contents = Vec::with_capacity(1);
        if let Some(t) = r.text.take() {
            contents.push(PartContent::Text(t));
        }
        if let Some(t) = r.raw.take() {
            contents.push(PartContent::Raw(t));
        }
        if let Some(t) = r.url.take() {
            contents.push(PartContent::Url(t));
        }
        if let Some(t) = r.data.take() {
            contents.push(PartContent::Data(t));
        }
        if contents.len() != 1 {
            return Err(D::Error::custom(format!(
                "a Part must have exactly one of text, raw, url, data (found {})",
                contents.len()
            )));
        }
        let content = contents
            .pop()
            .ok_or_else(|| D::Error::custom("empty Part"))?;
        Ok(Part {
            content,
            metadata: r.metadata,
            filename: r.filename,
            media_type: r.media_type,
        })
    }
}

/// A message between client and agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Unique message id (REQUIRED).
    #[serde(alias = "message_id")]
    pub message_id: String,
    /// Conversation context id.
    #[serde(
        default,
        alias = "context_id",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub context_id: String,
    /// Task this message belongs to.
    #[serde(
        default,
        alias = "task_id",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub task_id: String,
    /// Sender (REQUIRED).
    pub role: Role,
    /// Content parts (REQUIRED, at least one).
    pub parts: Vec<Part>,
    /// Optional metadata.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata: Option<Struct>,
    /// Extension URIs present in or contributing to this message.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub extensions: Vec<String>,
    /// Tasks this message refers to.
    #[serde(
        default,
        alias = "reference_task_ids",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub reference_task_ids: Vec<String>,
}

/// Status of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatus {
    /// Current state (REQUIRED).
    pub state: TaskState,
    /// Optional message about this status.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub message: Option<Message>,
    /// ISO-8601 UTC timestamp of the status.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub timestamp: Option<String>,
}

/// An output of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// Id unique within the task (REQUIRED).
    #[serde(alias = "artifact_id")]
    pub artifact_id: String,
    /// Human-readable name.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub name: String,
    /// Human-readable description.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    /// Content parts (REQUIRED, at least one).
    pub parts: Vec<Part>,
    /// Optional metadata.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata: Option<Struct>,
    /// Extension URIs that contributed to this artifact.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub extensions: Vec<String>,
}

/// A unit of work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Server-generated id (REQUIRED).
    pub id: String,
    /// Context id.
    #[serde(
        default,
        alias = "context_id",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub context_id: String,
    /// Current status (REQUIRED).
    pub status: TaskStatus,
    /// Outputs so far.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub artifacts: Vec<Artifact>,
    /// Message history.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub history: Vec<Message>,
    /// Optional metadata.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata: Option<Struct>,
}

impl Task {
    /// Applies one artifact update (a `TaskArtifactUpdateEvent`) the way A2A 1.0 defines it,
    /// so the server that records a task and a client that rebuilds it from a stream end with
    /// the same artifacts: with `append`, the parts join the artifact that has the same id
    /// (or the artifact is added when there is none); without it, an artifact with the same
    /// id is replaced in place (its position kept), else the artifact is added at the end.
    pub fn apply_artifact_update(&mut self, artifact: Artifact, append: bool) {
        match self
            .artifacts
            .iter_mut()
            .find(|a| a.artifact_id == artifact.artifact_id)
        {
            Some(existing) if append => existing.parts.extend(artifact.parts),
            Some(existing) => *existing = artifact,
            None => self.artifacts.push(artifact),
        }
    }

    /// The bytes the `status` and `artifacts` members add to this task's compact JSON (each
    /// member's name, value and the comma before it: `id` is always written first). A change
    /// of these alone changes the JSON's length by the difference, so a store that keeps
    /// typed tasks sizes such a write without serializing the whole task again.
    pub fn status_and_artifacts_json_len(&self) -> u64 {
        /// The two members as `Task` writes them (the test below holds them to it).
        #[derive(Serialize)]
        struct Members<'a> {
            status: &'a TaskStatus,
            #[serde(skip_serializing_if = "<[Artifact]>::is_empty")]
            artifacts: &'a [Artifact],
        }
        // `{..}` is two bytes the task has once anyway; the members have one comma between
        // them here and one each in the task.
        json_len(&Members {
            status: &self.status,
            artifacts: &self.artifacts,
        }) - 1
    }
}

/// The length of `value`'s compact JSON, counted without writing it anywhere.
pub fn json_len<T: Serialize + ?Sized>(value: &T) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail; A2A types always serialize.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// A status change of a task, sent on streams.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusUpdateEvent {
    /// Task id (REQUIRED).
    #[serde(alias = "task_id")]
    pub task_id: String,
    /// Context id (REQUIRED).
    #[serde(alias = "context_id")]
    pub context_id: String,
    /// New status (REQUIRED).
    pub status: TaskStatus,
    /// Optional metadata.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata: Option<Struct>,
}

/// A new or updated artifact, sent on streams.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TaskArtifactUpdateEvent {
    /// Task id (REQUIRED).
    #[serde(alias = "task_id")]
    pub task_id: String,
    /// Context id (REQUIRED).
    #[serde(alias = "context_id")]
    pub context_id: String,
    /// The artifact (REQUIRED).
    pub artifact: Artifact,
    /// Whether the parts append to an earlier artifact with the same id.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub append: bool,
    /// Whether this is the last chunk of the artifact.
    #[serde(
        default,
        alias = "last_chunk",
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub last_chunk: bool,
    /// Optional metadata.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata: Option<Struct>,
}

/// Result of `SendMessage`: `{"task":..}` or `{"message":..}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SendMessageResponse {
    /// The task created or updated.
    Task(Task),
    /// A direct message from the agent.
    Message(Message),
}

/// One event of a stream: exactly one of `task`, `message`, `statusUpdate`, `artifactUpdate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StreamResponse {
    /// The current task.
    Task(Task),
    /// A direct message (only event of a message-only stream).
    Message(Message),
    /// A status update.
    #[serde(alias = "status_update")]
    StatusUpdate(TaskStatusUpdateEvent),
    /// An artifact update.
    #[serde(alias = "artifact_update")]
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact(id: &str, texts: &[&str]) -> Artifact {
        Artifact {
            artifact_id: id.into(),
            parts: texts.iter().map(|t| Part::text(*t)).collect(),
            ..Default::default()
        }
    }

    fn shown(task: &Task) -> Vec<(String, Vec<String>)> {
        task.artifacts
            .iter()
            .map(|a| {
                let texts = a.parts.iter().filter_map(Part::as_text).map(str::to_owned);
                (a.artifact_id.clone(), texts.collect())
            })
            .collect()
    }

    fn expect(rows: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        rows.iter()
            .map(|(id, t)| {
                (
                    (*id).to_owned(),
                    t.iter().map(|s| (*s).to_owned()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn a_replacing_update_replaces_the_artifact_with_its_id_in_place() {
        let mut t = Task::default();
        t.apply_artifact_update(artifact("a", &["draft"]), false);
        t.apply_artifact_update(artifact("b", &["other"]), false);
        t.apply_artifact_update(artifact("a", &["final"]), false);
        assert_eq!(shown(&t), expect(&[("a", &["final"]), ("b", &["other"])]));
    }

    #[test]
    fn an_appending_update_extends_the_artifact_with_its_id() {
        let mut t = Task::default();
        t.apply_artifact_update(artifact("a", &["one "]), false);
        t.apply_artifact_update(artifact("a", &["two", "three"]), true);
        assert_eq!(shown(&t), expect(&[("a", &["one ", "two", "three"])]));
    }

    #[test]
    fn an_update_for_an_unknown_id_adds_the_artifact_either_way() {
        let mut t = Task::default();
        t.apply_artifact_update(artifact("a", &["x"]), true);
        t.apply_artifact_update(artifact("b", &["y"]), false);
        assert_eq!(shown(&t), expect(&[("a", &["x"]), ("b", &["y"])]));
    }

    #[test]
    fn status_and_artifacts_are_sized_as_the_task_writes_them() {
        let artifact = |id: &str| Artifact {
            artifact_id: id.into(),
            parts: vec![Part::text("a \"quoted\" é")],
            ..Default::default()
        };
        let mut base = Task {
            id: "t".into(),
            history: vec![Message {
                message_id: "m".into(),
                parts: vec![Part::text("hi")],
                ..Default::default()
            }],
            ..Default::default()
        };
        for context in ["", "c"] {
            base.context_id = context.into();
            let rest = json_len(&base) - base.status_and_artifacts_json_len();
            for artifacts in [
                vec![],
                vec![artifact("a")],
                vec![artifact("a"), artifact("b")],
            ] {
                let mut t = base.clone();
                t.artifacts = artifacts;
                t.status.state = TaskState::Completed;
                t.status.timestamp = Some("2026-12-05T00:00:00.000Z".into());
                assert_eq!(json_len(&t), serde_json::to_vec(&t).unwrap().len() as u64);
                assert_eq!(json_len(&t) - t.status_and_artifacts_json_len(), rest);
            }
        }
    }
}

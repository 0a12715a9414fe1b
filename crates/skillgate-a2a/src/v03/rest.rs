//! The A2A 0.3 HTTP+JSON binding at the level of paths, resource names and errors
//! (`docs/a2a-0.3.md` 1.10 and 1.12). Server and client both take the `/v1` paths, the
//! `tasks/{id}[/pushNotificationConfigs/{cid}]` names and the error statuses from here.

use crate::error::A2aError;
use serde::{Deserialize, Serialize};

/// The prefix every 0.3 HTTP+JSON path has under the interface URL; a request path starting
/// with it speaks 0.3 (the negotiation family, `docs/a2a-0.3.md` 3.3).
pub const PREFIX: &str = "/v1";
/// `POST /v1/message:send`.
pub const MESSAGE_SEND: &str = "/v1/message:send";
/// `POST /v1/message:stream`.
pub const MESSAGE_STREAM: &str = "/v1/message:stream";
/// `GET /v1/card`: the authenticated extended card, in 0.3 JSON.
pub const CARD: &str = "/v1/card";
/// The collection segment of push configs in paths and resource names.
pub const PUSH_CONFIGS: &str = "pushNotificationConfigs";

/// Whether `path` is in the 0.3 HTTP+JSON family (`/v1` or below it).
pub fn is_v03_path(path: &str) -> bool {
    path == PREFIX || path.starts_with("/v1/")
}

/// Why a resource name is refused: it must be exactly `tasks/{id}` or
/// `tasks/{id}/pushNotificationConfigs/{cid}` with non-empty segments free of `/`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name:?} is not a resource name of the form {expected}")]
pub struct NameError {
    /// The name as received.
    pub name: String,
    /// The form that was expected.
    pub expected: &'static str,
}

/// An id usable as one path segment and one resource-name segment: non-empty, and neither
/// `/` nor the `..`/`.` segments that would walk out of the collection.
fn segment_ok(s: &str) -> bool {
    !s.is_empty() && !s.contains('/') && s != "." && s != ".."
}

/// `tasks/{id}` of a task id.
pub fn task_name(task_id: &str) -> String {
    format!("tasks/{task_id}")
}

/// The task id of a `tasks/{id}` name.
pub fn parse_task_name(name: &str) -> Result<&str, NameError> {
    name.strip_prefix("tasks/")
        .filter(|id| segment_ok(id))
        .ok_or_else(|| NameError {
            name: name.to_string(),
            expected: "tasks/{id}",
        })
}

/// A push config's resource name, `tasks/{taskId}/pushNotificationConfigs/{configId}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigName {
    /// The task id.
    pub task_id: String,
    /// The config id (empty when the name stops at the collection, which a server reads as
    /// "assign one").
    pub config_id: String,
}

impl ConfigName {
    /// The name's text; with an empty config id, the collection name
    /// `tasks/{t}/pushNotificationConfigs`.
    pub fn render(&self) -> String {
        if self.config_id.is_empty() {
            format!("tasks/{}/{PUSH_CONFIGS}", self.task_id)
        } else {
            format!("tasks/{}/{PUSH_CONFIGS}/{}", self.task_id, self.config_id)
        }
    }

    /// Reads a config name; the collection form (no config id) is accepted too.
    pub fn parse(name: &str) -> Result<Self, NameError> {
        let err = || NameError {
            name: name.to_string(),
            expected: "tasks/{id}/pushNotificationConfigs/{configId}",
        };
        let mut it = name.split('/');
        let (Some("tasks"), Some(task), Some(PUSH_CONFIGS)) = (it.next(), it.next(), it.next())
        else {
            return Err(err());
        };
        let config = it.next();
        if it.next().is_some() || !segment_ok(task) || config.is_some_and(|c| !segment_ok(c)) {
            return Err(err());
        }
        Ok(Self {
            task_id: task.to_string(),
            config_id: config.unwrap_or_default().to_string(),
        })
    }
}

/// The HTTP status a 0.3 HTTP+JSON server answers an A2A error with: a2a-sdk 0.3.26's table
/// (the most-deployed 0.3 server), with the 1.0-only errors as 400.
pub fn error_status(e: A2aError) -> u16 {
    match e {
        A2aError::ParseError | A2aError::InvalidRequest => 400,
        A2aError::MethodNotFound | A2aError::TaskNotFound => 404,
        A2aError::InvalidParams => 422,
        A2aError::InternalError => 500,
        A2aError::TaskNotCancelable => 409,
        A2aError::PushNotificationNotSupported | A2aError::UnsupportedOperation => 501,
        A2aError::ContentTypeNotSupported => 415,
        A2aError::InvalidAgentResponse => 502,
        A2aError::ExtendedAgentCardNotConfigured => 404,
        A2aError::ExtensionSupportRequired | A2aError::VersionNotSupported => 400,
    }
}

/// The A2A error a 0.3 HTTP+JSON answer stands for, when its body carries no `code` (a2a-sdk
/// 0.3.26 sends `{"message"}` only): the inverse of [`error_status`] where that is one-to-one,
/// the error the table's servers send most for the shared statuses (404: TaskNotFound,
/// 400: InvalidRequest, 501: UnsupportedOperation). `None` for statuses outside the table.
pub fn error_of_status(status: u16) -> Option<A2aError> {
    Some(match status {
        400 => A2aError::InvalidRequest,
        404 => A2aError::TaskNotFound,
        409 => A2aError::TaskNotCancelable,
        415 => A2aError::ContentTypeNotSupported,
        422 => A2aError::InvalidParams,
        500 => A2aError::InternalError,
        501 => A2aError::UnsupportedOperation,
        502 => A2aError::InvalidAgentResponse,
        _ => return None,
    })
}

/// The 0.3 HTTP+JSON error body: `{"code": <JSON-RPC code>, "message": ..}`, a superset of
/// a2a-sdk 0.3.26's `{"message"}` and the shape @a2a-js/sdk 0.3 writes. `code` is absent for
/// HTTP-layer refusals (401, 413, ...), which have no A2A error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The JSON-RPC code of the A2A error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// What went wrong.
    #[serde(default)]
    pub message: String,
}

impl ErrorBody {
    /// The body for an A2A error.
    pub fn new(e: A2aError, message: impl Into<String>) -> Self {
        Self {
            code: Some(i64::from(e.code())),
            message: message.into(),
        }
    }

    /// The A2A error of an answer with this body and HTTP `status`: the `code` when it is an
    /// A2A code, else the status's ([`error_of_status`]).
    pub fn error(&self, status: u16) -> Option<A2aError> {
        self.code
            .and_then(A2aError::from_code)
            .or_else(|| error_of_status(status))
    }
}

//! Request and response objects of the A2A methods.

use crate::de::{int32, is_false, nullable, opt_bool, opt_int32};
use crate::types::{Message, Struct, Task, TaskState};
use serde::{Deserialize, Serialize};

/// Params of `SendMessage` / `SendStreamingMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SendMessageRequest {
    /// Tenant.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    /// The message (REQUIRED).
    pub message: Message,
    /// Send options.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub configuration: Option<SendMessageConfiguration>,
    /// Optional metadata.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata: Option<Struct>,
}

/// Options of a send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SendMessageConfiguration {
    /// Output media types the client accepts.
    #[serde(
        default,
        alias = "accepted_output_modes",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub accepted_output_modes: Vec<String>,
    /// Push configuration for this task.
    #[serde(
        default,
        alias = "task_push_notification_config",
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub task_push_notification_config: Option<TaskPushNotificationConfig>,
    /// Most recent messages to include in the returned task's history (`optional int32`).
    #[serde(
        default,
        alias = "history_length",
        deserialize_with = "opt_int32",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    /// Return the task before it is terminal (default: wait).
    #[serde(
        default,
        alias = "return_immediately",
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub return_immediately: bool,
}

/// Params of `GetTask`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskRequest {
    /// Tenant.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    /// Task id (REQUIRED).
    pub id: String,
    /// History length (`optional int32`).
    #[serde(
        default,
        alias = "history_length",
        deserialize_with = "opt_int32",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
}

/// Params of `ListTasks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksRequest {
    /// Tenant.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    /// Only tasks of this context.
    #[serde(
        default,
        alias = "context_id",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub context_id: String,
    /// Only tasks in this state (UNSPECIFIED = any).
    #[serde(default, skip_serializing_if = "is_unspecified")]
    pub status: TaskState,
    /// Page size 1..100, default 50 (`optional int32`).
    #[serde(
        default,
        alias = "page_size",
        deserialize_with = "opt_int32",
        skip_serializing_if = "Option::is_none"
    )]
    pub page_size: Option<i32>,
    /// Continuation token from a previous page.
    #[serde(
        default,
        alias = "page_token",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub page_token: String,
    /// History length (`optional int32`).
    #[serde(
        default,
        alias = "history_length",
        deserialize_with = "opt_int32",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<i32>,
    /// Only tasks whose status changed after this ISO-8601 time.
    #[serde(
        default,
        alias = "status_timestamp_after",
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub status_timestamp_after: Option<String>,
    /// Include artifacts (`optional bool`, default false).
    #[serde(
        default,
        alias = "include_artifacts",
        deserialize_with = "opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub include_artifacts: Option<bool>,
}

fn is_unspecified(s: &TaskState) -> bool {
    *s == TaskState::Unspecified
}

/// Result of `ListTasks`; every member is REQUIRED, so none is omitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResponse {
    /// The page of tasks.
    #[serde(default, deserialize_with = "nullable")]
    pub tasks: Vec<Task>,
    /// Token of the next page, `""` on the last.
    #[serde(default, alias = "next_page_token", deserialize_with = "nullable")]
    pub next_page_token: String,
    /// Page size used.
    #[serde(default, alias = "page_size", deserialize_with = "int32")]
    pub page_size: i32,
    /// Total number of matching tasks.
    #[serde(default, alias = "total_size", deserialize_with = "int32")]
    pub total_size: i32,
}

/// Params of `CancelTask`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct CancelTaskRequest {
    /// Tenant.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    /// Task id (REQUIRED).
    pub id: String,
    /// Optional metadata.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata: Option<Struct>,
}

/// Params of `SubscribeToTask`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeToTaskRequest {
    /// Tenant.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    /// Task id (REQUIRED).
    pub id: String,
}

/// Push notification configuration of a task (flat in 1.0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfig {
    /// Tenant.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    /// Config id.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub id: String,
    /// Task id.
    #[serde(
        default,
        alias = "task_id",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub task_id: String,
    /// Webhook URL (REQUIRED).
    pub url: String,
    /// Token for the webhook.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub token: String,
    /// Credentials the server sends to the webhook.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub authentication: Option<AuthenticationInfo>,
}

/// Authentication for a push webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AuthenticationInfo {
    /// Scheme, e.g. `Bearer` (REQUIRED).
    pub scheme: String,
    /// Credentials.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub credentials: String,
}

/// Params of `GetTaskPushNotificationConfig` and `DeleteTaskPushNotificationConfig`: one
/// config of one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfigRef {
    /// Tenant.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    /// The task the config belongs to (REQUIRED).
    #[serde(default, alias = "task_id", deserialize_with = "nullable")]
    pub task_id: String,
    /// The config id (REQUIRED).
    #[serde(default, deserialize_with = "nullable")]
    pub id: String,
}

/// Params of `GetTaskPushNotificationConfig`.
pub type GetTaskPushNotificationConfigRequest = TaskPushNotificationConfigRef;

/// Params of `DeleteTaskPushNotificationConfig`.
pub type DeleteTaskPushNotificationConfigRequest = TaskPushNotificationConfigRef;

/// Params of `ListTaskPushNotificationConfigs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigsRequest {
    /// Tenant.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    /// The task whose configs are listed (REQUIRED).
    #[serde(default, alias = "task_id", deserialize_with = "nullable")]
    pub task_id: String,
    /// Most configs per page (0 or absent: the server's default).
    #[serde(
        default,
        alias = "page_size",
        deserialize_with = "opt_int32",
        skip_serializing_if = "Option::is_none"
    )]
    pub page_size: Option<i32>,
    /// Continuation token from a previous page.
    #[serde(
        default,
        alias = "page_token",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub page_token: String,
}

/// Result of `ListTaskPushNotificationConfigs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigsResponse {
    /// The page of configs, oldest first.
    #[serde(default, deserialize_with = "nullable")]
    pub configs: Vec<TaskPushNotificationConfig>,
    /// Token of the next page, `""` on the last.
    #[serde(default, alias = "next_page_token", deserialize_with = "nullable")]
    pub next_page_token: String,
}

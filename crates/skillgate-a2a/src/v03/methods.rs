//! The 0.3 JSON-RPC method names (`category/action`) and their 1.0 counterparts.

use crate::methods as v1;

/// `message/send` (1.0 `SendMessage`): result is the bare Task or Message.
pub const MESSAGE_SEND: &str = "message/send";
/// `message/stream` (1.0 `SendStreamingMessage`): answered as server-sent events.
pub const MESSAGE_STREAM: &str = "message/stream";
/// `tasks/get` (1.0 `GetTask`).
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/cancel` (1.0 `CancelTask`).
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// `tasks/resubscribe` (1.0 `SubscribeToTask`): errors before the first event go inside the
/// event stream in 0.3.
pub const TASKS_RESUBSCRIBE: &str = "tasks/resubscribe";
/// `tasks/pushNotificationConfig/set` (1.0 `CreateTaskPushNotificationConfig`).
pub const PUSH_CONFIG_SET: &str = "tasks/pushNotificationConfig/set";
/// `tasks/pushNotificationConfig/get` (1.0 `GetTaskPushNotificationConfig`); the config id
/// is optional in 0.3.
pub const PUSH_CONFIG_GET: &str = "tasks/pushNotificationConfig/get";
/// `tasks/pushNotificationConfig/list` (1.0 `ListTaskPushNotificationConfigs`): result is a
/// bare array.
pub const PUSH_CONFIG_LIST: &str = "tasks/pushNotificationConfig/list";
/// `tasks/pushNotificationConfig/delete` (1.0 `DeleteTaskPushNotificationConfig`): result is
/// `null`.
pub const PUSH_CONFIG_DELETE: &str = "tasks/pushNotificationConfig/delete";
/// `agent/getAuthenticatedExtendedCard` (1.0 `GetExtendedAgentCard`): result is a 0.3 card.
pub const GET_AUTHENTICATED_EXTENDED_CARD: &str = "agent/getAuthenticatedExtendedCard";

/// Every 0.3 JSON-RPC method with its 1.0 method. 1.0 `ListTasks` has no 0.3 JSON-RPC
/// method (`tasks/list` is REST/gRPC-only in 0.3), so it is absent in both directions.
pub const METHODS: [(&str, &str); 10] = [
    (MESSAGE_SEND, v1::SEND_MESSAGE),
    (MESSAGE_STREAM, v1::SEND_STREAMING_MESSAGE),
    (TASKS_GET, v1::GET_TASK),
    (TASKS_CANCEL, v1::CANCEL_TASK),
    (TASKS_RESUBSCRIBE, v1::SUBSCRIBE_TO_TASK),
    (PUSH_CONFIG_SET, v1::CREATE_TASK_PUSH_NOTIFICATION_CONFIG),
    (PUSH_CONFIG_GET, v1::GET_TASK_PUSH_NOTIFICATION_CONFIG),
    (PUSH_CONFIG_LIST, v1::LIST_TASK_PUSH_NOTIFICATION_CONFIGS),
    (PUSH_CONFIG_DELETE, v1::DELETE_TASK_PUSH_NOTIFICATION_CONFIG),
    (GET_AUTHENTICATED_EXTENDED_CARD, v1::GET_EXTENDED_AGENT_CARD),
];

/// The 1.0 method (a constant of [`crate::methods`]) a 0.3 method name stands for; `None`
/// for anything else, including 1.0 names (the two families do not overlap).
pub fn v1_method(name: &str) -> Option<&'static str> {
    METHODS
        .iter()
        .find(|(v03, _)| *v03 == name)
        .map(|(_, v1)| *v1)
}

/// The 0.3 method name of a 1.0 method; `None` for `ListTasks` (no 0.3 JSON-RPC form) and
/// for names that are not 1.0 methods.
pub fn v03_method(v1_name: &str) -> Option<&'static str> {
    METHODS
        .iter()
        .find(|(_, v1)| *v1 == v1_name)
        .map(|(v03, _)| *v03)
}

/// Whether `name` is a 0.3 JSON-RPC method, which tells a server the request's dialect
/// before any header is looked at (the header must then agree, `docs/a2a-0.3.md` 3.3).
pub fn is_v03_method(name: &str) -> bool {
    v1_method(name).is_some()
}

/// Whether the 0.3 method answers with server-sent events.
pub fn is_streaming(name: &str) -> bool {
    name == MESSAGE_STREAM || name == TASKS_RESUBSCRIBE
}

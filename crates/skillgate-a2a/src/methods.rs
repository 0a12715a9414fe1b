//! JSON-RPC method names of A2A 1.0 (service `lf.a2a.v1.A2AService`).

/// `SendMessage`.
pub const SEND_MESSAGE: &str = "SendMessage";
/// `SendStreamingMessage` (answered as a server-sent event stream).
pub const SEND_STREAMING_MESSAGE: &str = "SendStreamingMessage";
/// `GetTask`.
pub const GET_TASK: &str = "GetTask";
/// `ListTasks`.
pub const LIST_TASKS: &str = "ListTasks";
/// `CancelTask`.
pub const CANCEL_TASK: &str = "CancelTask";
/// `SubscribeToTask` (answered as a server-sent event stream).
pub const SUBSCRIBE_TO_TASK: &str = "SubscribeToTask";
/// `CreateTaskPushNotificationConfig`.
pub const CREATE_TASK_PUSH_NOTIFICATION_CONFIG: &str = "CreateTaskPushNotificationConfig";
/// `GetTaskPushNotificationConfig`.
pub const GET_TASK_PUSH_NOTIFICATION_CONFIG: &str = "GetTaskPushNotificationConfig";
/// `ListTaskPushNotificationConfigs`.
pub const LIST_TASK_PUSH_NOTIFICATION_CONFIGS: &str = "ListTaskPushNotificationConfigs";
/// `DeleteTaskPushNotificationConfig`.
pub const DELETE_TASK_PUSH_NOTIFICATION_CONFIG: &str = "DeleteTaskPushNotificationConfig";
/// `GetExtendedAgentCard`.
pub const GET_EXTENDED_AGENT_CARD: &str = "GetExtendedAgentCard";

/// The four push-notification configuration methods.
pub const PUSH_NOTIFICATION_METHODS: [&str; 4] = [
    CREATE_TASK_PUSH_NOTIFICATION_CONFIG,
    GET_TASK_PUSH_NOTIFICATION_CONFIG,
    LIST_TASK_PUSH_NOTIFICATION_CONFIGS,
    DELETE_TASK_PUSH_NOTIFICATION_CONFIG,
];

/// Every A2A 1.0 JSON-RPC method: a name outside this list is not 1.0 (it may be 0.3, see
/// [`crate::v03::methods`], or nothing).
pub const ALL: [&str; 11] = [
    SEND_MESSAGE,
    SEND_STREAMING_MESSAGE,
    GET_TASK,
    LIST_TASKS,
    CANCEL_TASK,
    SUBSCRIBE_TO_TASK,
    CREATE_TASK_PUSH_NOTIFICATION_CONFIG,
    GET_TASK_PUSH_NOTIFICATION_CONFIG,
    LIST_TASK_PUSH_NOTIFICATION_CONFIGS,
    DELETE_TASK_PUSH_NOTIFICATION_CONFIG,
    GET_EXTENDED_AGENT_CARD,
];

/// The A2A version a JSON-RPC method name belongs to: the endpoint family a server negotiates
/// the request's version against; `None` for a name of neither version.
pub fn family(name: &str) -> Option<crate::version::WireVersion> {
    if ALL.contains(&name) {
        Some(crate::version::WireVersion::V1_0)
    } else if crate::v03::methods::is_v03_method(name) {
        Some(crate::version::WireVersion::V0_3)
    } else {
        None
    }
}

//! 0.3 JSON-RPC at the level of methods: a request's `method` and `params` in, the 1.0
//! request out (server side, and the reverse for a client calling a 0.3 agent); 1.0 results
//! out as 0.3 `result` values (and the reverse).
//!
//! The `write_*` functions return a [`Value`]. A server that answers with the describe_skill
//! document should serialize the typed value of [`super::translate`] instead (e.g.
//! [`super::translate::send_message_response_to_v03`] inside a [`crate::JsonRpcSuccess`]): a
//! `Value` is a tree of its own, so building one copies the shared document.

use super::error::{jsonrpc_error, ReadError, WriteError};
use super::json as v03;
use super::methods as m;
use super::translate as t;
use crate::error::A2aError;
use crate::jsonrpc::JsonRpcError;
use crate::requests::{
    CancelTaskRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, SendMessageRequest, SubscribeToTaskRequest,
    TaskPushNotificationConfig, TaskPushNotificationConfigRef,
};
use crate::types::{SendMessageResponse, StreamResponse, Task};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// A 0.3 JSON-RPC request, read into the 1.0 request the service answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `message/send`.
    SendMessage(SendMessageRequest),
    /// `message/stream`.
    SendStreamingMessage(SendMessageRequest),
    /// `tasks/get`.
    GetTask(GetTaskRequest),
    /// `tasks/cancel`.
    CancelTask(CancelTaskRequest),
    /// `tasks/resubscribe`.
    SubscribeToTask(SubscribeToTaskRequest),
    /// `tasks/pushNotificationConfig/set`.
    CreateTaskPushNotificationConfig(TaskPushNotificationConfig),
    /// `tasks/pushNotificationConfig/get`; an empty `id` means the task's oldest config.
    GetTaskPushNotificationConfig(TaskPushNotificationConfigRef),
    /// `tasks/pushNotificationConfig/list`.
    ListTaskPushNotificationConfigs(ListTaskPushNotificationConfigsRequest),
    /// `tasks/pushNotificationConfig/delete`.
    DeleteTaskPushNotificationConfig(TaskPushNotificationConfigRef),
    /// `agent/getAuthenticatedExtendedCard` (no params).
    GetExtendedAgentCard,
}

impl Request {
    /// The 0.3 method name this request is sent under.
    pub fn v03_method(&self) -> &'static str {
        match self {
            Self::SendMessage(_) => m::MESSAGE_SEND,
            Self::SendStreamingMessage(_) => m::MESSAGE_STREAM,
            Self::GetTask(_) => m::TASKS_GET,
            Self::CancelTask(_) => m::TASKS_CANCEL,
            Self::SubscribeToTask(_) => m::TASKS_RESUBSCRIBE,
            Self::CreateTaskPushNotificationConfig(_) => m::PUSH_CONFIG_SET,
            Self::GetTaskPushNotificationConfig(_) => m::PUSH_CONFIG_GET,
            Self::ListTaskPushNotificationConfigs(_) => m::PUSH_CONFIG_LIST,
            Self::DeleteTaskPushNotificationConfig(_) => m::PUSH_CONFIG_DELETE,
            Self::GetExtendedAgentCard => m::GET_AUTHENTICATED_EXTENDED_CARD,
        }
    }

    /// The 1.0 method the service runs for it.
    pub fn v1_method(&self) -> &'static str {
        // Every 0.3 name above is in the table; the fallback keeps this total without a
        // panic path.
        m::v1_method(self.v03_method()).unwrap_or(crate::methods::SEND_MESSAGE)
    }
}

/// Why a 0.3 JSON-RPC request has no 1.0 request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    /// Not a 0.3 method name (MethodNotFound). 1.0 names are refused here too: the caller
    /// dispatches on the dialect first.
    #[error("{0:?} is not an A2A 0.3 JSON-RPC method")]
    UnknownMethod(String),
    /// The params do not fit the method (InvalidParams).
    #[error("invalid params: {0}")]
    Invalid(#[from] ReadError),
}

impl ParamsError {
    /// The A2A error to answer with.
    pub fn a2a_error(&self) -> A2aError {
        match self {
            Self::UnknownMethod(_) => A2aError::MethodNotFound,
            Self::Invalid(_) => A2aError::InvalidParams,
        }
    }

    /// The 0.3 JSON-RPC error object (no `data`).
    pub fn to_jsonrpc(&self) -> JsonRpcError {
        jsonrpc_error(self.a2a_error(), self.to_string())
    }
}

/// Reads a 0.3 params object as `T`. Only an object is accepted: serde would also take a
/// struct from a JSON array by position, which 0.3 does not allow.
fn params<T: DeserializeOwned>(params: Option<Value>) -> Result<T, ReadError> {
    match params {
        Some(v @ Value::Object(_)) => {
            serde_json::from_value(v).map_err(|e| ReadError::shape("params", &e))
        }
        Some(other) => Err(ReadError::new(
            "params",
            format!("must be an object, not {}", v03::type_name(&other)),
        )),
        None => Err(ReadError::new("params", "missing")),
    }
}

/// Server side: a 0.3 JSON-RPC `method` and `params` as the 1.0 request.
pub fn read_request(method: &str, params_value: Option<Value>) -> Result<Request, ParamsError> {
    let p = params_value;
    Ok(match method {
        m::MESSAGE_SEND => Request::SendMessage(t::send_message_request_from_v03(params(p)?)?),
        m::MESSAGE_STREAM => {
            Request::SendStreamingMessage(t::send_message_request_from_v03(params(p)?)?)
        }
        m::TASKS_GET => Request::GetTask(t::get_task_request_from_v03(params(p)?)?),
        m::TASKS_CANCEL => Request::CancelTask(t::cancel_task_request_from_v03(params(p)?)),
        m::TASKS_RESUBSCRIBE => Request::SubscribeToTask(t::subscribe_request_from_v03(params(p)?)),
        m::PUSH_CONFIG_SET => {
            Request::CreateTaskPushNotificationConfig(t::push_config_from_v03(params(p)?)?)
        }
        m::PUSH_CONFIG_GET => {
            Request::GetTaskPushNotificationConfig(t::get_push_config_request_from_v03(params(p)?))
        }
        m::PUSH_CONFIG_LIST => Request::ListTaskPushNotificationConfigs(
            t::list_push_configs_request_from_v03(params(p)?),
        ),
        m::PUSH_CONFIG_DELETE => Request::DeleteTaskPushNotificationConfig(
            t::delete_push_config_request_from_v03(params(p)?),
        ),
        m::GET_AUTHENTICATED_EXTENDED_CARD => Request::GetExtendedAgentCard,
        other => return Err(ParamsError::UnknownMethod(other.to_string())),
    })
}

fn value<T: Serialize>(v: &T) -> Result<Value, WriteError> {
    // Cannot fail for these types (string keys, finite numbers); mapped rather than unwrapped.
    serde_json::to_value(v).map_err(|_| WriteError {
        at: String::new(),
        reason: "a value serde_json cannot represent",
    })
}

/// Client side: the 0.3 method name and params of a 1.0 request. `GetExtendedAgentCard` has
/// no params (`None`).
pub fn write_request(r: &Request) -> Result<(&'static str, Option<Value>), WriteError> {
    let p = match r {
        Request::SendMessage(s) | Request::SendStreamingMessage(s) => {
            value(&t::send_message_request_to_v03(s)?)?
        }
        Request::GetTask(g) => value(&t::get_task_request_to_v03(g))?,
        Request::CancelTask(c) => value(&t::cancel_task_request_to_v03(c))?,
        Request::SubscribeToTask(s) => value(&t::subscribe_request_to_v03(s))?,
        Request::CreateTaskPushNotificationConfig(c) => value(&t::push_config_to_v03(c))?,
        Request::GetTaskPushNotificationConfig(g) => value(&t::get_push_config_request_to_v03(g))?,
        Request::ListTaskPushNotificationConfigs(l) => {
            value(&t::list_push_configs_request_to_v03(l))?
        }
        Request::DeleteTaskPushNotificationConfig(d) => {
            value(&t::delete_push_config_request_to_v03(d))?
        }
        Request::GetExtendedAgentCard => return Ok((r.v03_method(), None)),
    };
    Ok((r.v03_method(), Some(p)))
}

/// Server side: the `result` of `message/send` (the bare Task or Message with `kind`).
pub fn write_send_message_result(r: &SendMessageResponse) -> Result<Value, WriteError> {
    value(&t::send_message_response_to_v03(r)?)
}

/// Server side: the `result` of one stream event (the bare object with `kind`; a status
/// update carries `final`).
pub fn write_stream_event(e: &StreamResponse) -> Result<Value, WriteError> {
    value(&t::stream_response_to_v03(e)?)
}

/// Server side: the `result` of `tasks/get` and `tasks/cancel`, and a 0.3 webhook body.
pub fn write_task(task: &Task) -> Result<Value, WriteError> {
    value(&t::task_to_v03(task)?)
}

/// Server side: the `result` of `.../set` and `.../get`.
pub fn write_push_config(c: &TaskPushNotificationConfig) -> Result<Value, WriteError> {
    value(&t::push_config_to_v03(c))
}

/// Server side: the `result` of `.../list`, a bare array.
pub fn write_push_configs(
    r: &ListTaskPushNotificationConfigsResponse,
) -> Result<Value, WriteError> {
    value(&t::list_push_configs_response_to_v03(r))
}

/// Server side: the `result` of `.../delete`, which is `null` in 0.3 (1.0 answers `{}`).
pub fn write_delete_result() -> Value {
    Value::Null
}

fn read<T: DeserializeOwned>(v: Value) -> Result<T, ReadError> {
    serde_json::from_value(v).map_err(|e| ReadError::shape("result", &e))
}

/// Client side: a 0.3 `message/send` result as the 1.0 SendMessageResponse.
pub fn read_send_message_result(v: Value) -> Result<SendMessageResponse, ReadError> {
    t::send_message_response_from_v03(read(v)?).map_err(|e| e.under("result"))
}

/// Client side: one 0.3 stream event (the `result` of an SSE `data:` line) as the 1.0
/// StreamResponse.
pub fn read_stream_event(v: Value) -> Result<StreamResponse, ReadError> {
    t::stream_response_from_v03(read(v)?).map_err(|e| e.under("result"))
}

/// Client side: a 0.3 Task (`tasks/get`, `tasks/cancel`) as the 1.0 Task.
pub fn read_task(v: Value) -> Result<Task, ReadError> {
    t::task_from_v03(read(v)?).map_err(|e| e.under("result"))
}

/// Client side: a 0.3 push config result as the flat 1.0 config.
pub fn read_push_config(v: Value) -> Result<TaskPushNotificationConfig, ReadError> {
    t::push_config_from_v03(read(v)?).map_err(|e| e.under("result"))
}

/// Client side: the 0.3 `.../list` array as the 1.0 list result.
pub fn read_push_configs(v: Value) -> Result<ListTaskPushNotificationConfigsResponse, ReadError> {
    t::list_push_configs_response_from_v03(read(v)?).map_err(|e| e.under("result"))
}

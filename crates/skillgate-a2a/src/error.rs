//! A2A errors: JSON-RPC codes, `google.rpc.ErrorInfo` reasons, HTTP statuses (1.0.1 table) and the
//! REST `google.rpc.Status` error body.

use crate::jsonrpc::JsonRpcError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `@type` of `google.rpc.ErrorInfo`.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";
/// `@type` of `google.rpc.BadRequest`.
pub const BAD_REQUEST_TYPE: &str = "type.googleapis.com/google.rpc.BadRequest";
/// ErrorInfo `domain` of A2A errors.
pub const ERROR_DOMAIN: &str = "a2a-protocol.org";

/// The errors an A2A server can return, with their standard codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum A2aError {
    /// -32700: the body is not valid JSON.
    ParseError,
    /// -32600: not a valid JSON-RPC request envelope.
    InvalidRequest,
    /// -32601: unknown method.
    MethodNotFound,
    /// -32602: params do not fit the method.
    InvalidParams,
    /// -32603: internal error.
    InternalError,
    /// -32001.
    TaskNotFound,
    /// -32002.
    TaskNotCancelable,
    /// -32003.
    PushNotificationNotSupported,
    /// -32004.
    UnsupportedOperation,
    /// -32005.
    ContentTypeNotSupported,
    /// -32006.
    InvalidAgentResponse,
    /// -32007.
    ExtendedAgentCardNotConfigured,
    /// -32008.
    ExtensionSupportRequired,
    /// -32009.
    VersionNotSupported,
}

impl A2aError {
    /// Every variant, for tables and tests.
    pub const ALL: [A2aError; 14] = [
        Self::ParseError,
        Self::InvalidRequest,
        Self::MethodNotFound,
        Self::InvalidParams,
        Self::InternalError,
        Self::TaskNotFound,
        Self::TaskNotCancelable,
        Self::PushNotificationNotSupported,
        Self::UnsupportedOperation,
        Self::ContentTypeNotSupported,
        Self::InvalidAgentResponse,
        Self::ExtendedAgentCardNotConfigured,
        Self::ExtensionSupportRequired,
        Self::VersionNotSupported,
    ];

    /// JSON-RPC error code.
    pub fn code(self) -> i32 {
        match self {
            Self::ParseError => -32700,
            Self::InvalidRequest => -32600,
            Self::MethodNotFound => -32601,
            Self::InvalidParams => -32602,
            Self::InternalError => -32603,
            Self::TaskNotFound => -32001,
            Self::TaskNotCancelable => -32002,
            Self::PushNotificationNotSupported => -32003,
            Self::UnsupportedOperation => -32004,
            Self::ContentTypeNotSupported => -32005,
            Self::InvalidAgentResponse => -32006,
            Self::ExtendedAgentCardNotConfigured => -32007,
            Self::ExtensionSupportRequired => -32008,
            Self::VersionNotSupported => -32009,
        }
    }

    /// The variant with this JSON-RPC code.
    pub fn from_code(code: i64) -> Option<Self> {
        Self::ALL.into_iter().find(|e| i64::from(e.code()) == code)
    }

    /// `google.rpc.ErrorInfo.reason`.
    pub fn reason(self) -> &'static str {
        match self {
            Self::ParseError => "PARSE_ERROR",
            Self::InvalidRequest => "INVALID_REQUEST",
            Self::MethodNotFound => "METHOD_NOT_FOUND",
            Self::InvalidParams => "INVALID_PARAMS",
            Self::InternalError => "INTERNAL_ERROR",
            Self::TaskNotFound => "TASK_NOT_FOUND",
            Self::TaskNotCancelable => "TASK_NOT_CANCELABLE",
            Self::PushNotificationNotSupported => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            Self::UnsupportedOperation => "UNSUPPORTED_OPERATION",
            Self::ContentTypeNotSupported => "CONTENT_TYPE_NOT_SUPPORTED",
            Self::InvalidAgentResponse => "INVALID_AGENT_RESPONSE",
            Self::ExtendedAgentCardNotConfigured => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            Self::ExtensionSupportRequired => "EXTENSION_SUPPORT_REQUIRED",
            Self::VersionNotSupported => "VERSION_NOT_SUPPORTED",
        }
    }

    /// HTTP status on the HTTP+JSON binding (A2A 1.0.1 table).
    pub fn http_status(self) -> u16 {
        match self {
            Self::ParseError | Self::InvalidRequest | Self::InvalidParams => 400,
            Self::MethodNotFound | Self::TaskNotFound => 404,
            Self::InternalError | Self::InvalidAgentResponse => 500,
            Self::TaskNotCancelable
            | Self::PushNotificationNotSupported
            | Self::UnsupportedOperation
            | Self::ContentTypeNotSupported
            | Self::ExtendedAgentCardNotConfigured
            | Self::ExtensionSupportRequired
            | Self::VersionNotSupported => 400,
        }
    }

    /// gRPC status name (1.0.1 table), used as `status` of the REST error body.
    pub fn grpc_status(self) -> &'static str {
        match self {
            Self::ParseError | Self::InvalidRequest | Self::InvalidParams => "INVALID_ARGUMENT",
            Self::ContentTypeNotSupported => "INVALID_ARGUMENT",
            Self::MethodNotFound => "UNIMPLEMENTED",
            Self::TaskNotFound => "NOT_FOUND",
            Self::InternalError | Self::InvalidAgentResponse => "INTERNAL",
            Self::TaskNotCancelable
            | Self::PushNotificationNotSupported
            | Self::UnsupportedOperation
            | Self::ExtendedAgentCardNotConfigured
            | Self::ExtensionSupportRequired
            | Self::VersionNotSupported => "FAILED_PRECONDITION",
        }
    }

    /// A short default message.
    pub fn default_message(self) -> &'static str {
        match self {
            Self::ParseError => "Parse error",
            Self::InvalidRequest => "Invalid request",
            Self::MethodNotFound => "Method not found",
            Self::InvalidParams => "Invalid params",
            Self::InternalError => "Internal error",
            Self::TaskNotFound => "Task not found",
            Self::TaskNotCancelable => "Task cannot be canceled",
            Self::PushNotificationNotSupported => "Push notifications are not supported",
            Self::UnsupportedOperation => "This operation is not supported",
            Self::ContentTypeNotSupported => "Content type not supported",
            Self::InvalidAgentResponse => "Invalid agent response",
            Self::ExtendedAgentCardNotConfigured => "Extended agent card not configured",
            Self::ExtensionSupportRequired => "Extension support required",
            Self::VersionNotSupported => "Protocol version not supported",
        }
    }

    /// The `google.rpc.ErrorInfo` detail for this error.
    pub fn error_info(self) -> ErrorInfo {
        ErrorInfo::new(self.reason())
    }

    /// A JSON-RPC error object with ErrorInfo in `data`.
    pub fn to_jsonrpc(self, message: impl Into<String>) -> JsonRpcError {
        JsonRpcError {
            code: self.code(),
            message: message.into(),
            data: Some(vec![self.error_info().to_value()]),
        }
    }

    /// The REST (`google.rpc.Status`) error body with ErrorInfo in `details`.
    pub fn to_rest(self, message: impl Into<String>) -> RestErrorBody {
        RestErrorBody::new(
            self.http_status(),
            self.grpc_status(),
            message,
            vec![self.error_info().to_value()],
        )
    }

    /// The REST error body for a refusal the HTTP layer makes before any A2A method runs
    /// (authentication, body size): the A2A table has no error for those, so the status comes
    /// from [`HttpRefusal`] and `details` carries no ErrorInfo.
    pub fn refusal_to_rest(refusal: HttpRefusal, message: impl Into<String>) -> RestErrorBody {
        RestErrorBody::new(
            refusal.http_status(),
            refusal.grpc_status(),
            message,
            Vec::new(),
        )
    }
}

/// HTTP-layer refusals outside the A2A error table, answered with a `google.rpc.Status` body
/// by [`A2aError::refusal_to_rest`] on either binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HttpRefusal {
    /// 401 `UNAUTHENTICATED`: no valid bearer token (sent with a `WWW-Authenticate` challenge).
    Unauthenticated,
    /// 413 `RESOURCE_EXHAUSTED`: the request body exceeds the server's limit.
    PayloadTooLarge,
    /// 400 `INVALID_ARGUMENT`: a malformed HTTP request (two `Authorization` headers, say).
    BadRequest,
    /// 403 `PERMISSION_DENIED`: a browser origin or a `Host` the server does not serve.
    Forbidden,
    /// 405 `UNIMPLEMENTED`: an A2A path asked with a method it does not answer.
    MethodNotAllowed,
    /// 503 `UNAVAILABLE`: the server is at its connection limit.
    Unavailable,
}

impl HttpRefusal {
    /// The HTTP status code (also the `code` of the body).
    pub fn http_status(self) -> u16 {
        match self {
            Self::Unauthenticated => 401,
            Self::PayloadTooLarge => 413,
            Self::BadRequest => 400,
            Self::Forbidden => 403,
            Self::MethodNotAllowed => 405,
            Self::Unavailable => 503,
        }
    }

    /// The gRPC status name used as `status` of the body.
    pub fn grpc_status(self) -> &'static str {
        match self {
            Self::Unauthenticated => "UNAUTHENTICATED",
            Self::PayloadTooLarge => "RESOURCE_EXHAUSTED",
            Self::BadRequest => "INVALID_ARGUMENT",
            Self::Forbidden => "PERMISSION_DENIED",
            Self::MethodNotAllowed => "UNIMPLEMENTED",
            Self::Unavailable => "UNAVAILABLE",
        }
    }
}

impl std::fmt::Display for A2aError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.reason(), self.code())
    }
}

/// `google.rpc.ErrorInfo`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorInfo {
    /// Always [`ERROR_INFO_TYPE`].
    #[serde(rename = "@type")]
    pub type_url: String,
    /// UPPER_SNAKE_CASE reason.
    pub reason: String,
    /// Error domain.
    #[serde(default)]
    pub domain: String,
    /// String metadata (kept as JSON values when parsing lenient peers).
    #[serde(default)]
    pub metadata: Map<String, Value>,
}

impl ErrorInfo {
    /// An ErrorInfo with the A2A domain and no metadata.
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            type_url: ERROR_INFO_TYPE.to_string(),
            reason: reason.into(),
            domain: ERROR_DOMAIN.to_string(),
            metadata: Map::new(),
        }
    }

    /// As a JSON value for a `data`/`details` array.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("@type".into(), Value::String(self.type_url.clone()));
        m.insert("reason".into(), Value::String(self.reason.clone()));
        m.insert("domain".into(), Value::String(self.domain.clone()));
        m.insert("metadata".into(), Value::Object(self.metadata.clone()));
        Value::Object(m)
    }

    /// The first ErrorInfo in a `data`/`details` array.
    pub fn find(details: &[Value]) -> Option<ErrorInfo> {
        details
            .iter()
            .filter(|d| d.get("@type").and_then(Value::as_str) == Some(ERROR_INFO_TYPE))
            .find_map(|d| serde_json::from_value(d.clone()).ok())
    }
}

/// REST error body: `{"error": Status}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestErrorBody {
    /// The status.
    pub error: RestError,
}

impl RestErrorBody {
    /// The one place a `google.rpc.Status` body is assembled, so every REST error has the same
    /// members.
    fn new(code: u16, status: &str, message: impl Into<String>, details: Vec<Value>) -> Self {
        Self {
            error: RestError {
                code,
                status: status.to_string(),
                message: message.into(),
                details,
            },
        }
    }
}

/// `google.rpc.Status` as used by AIP-193 REST errors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestError {
    /// HTTP status code.
    pub code: u16,
    /// gRPC status name.
    #[serde(default)]
    pub status: String,
    /// Message.
    #[serde(default)]
    pub message: String,
    /// Typed details (`@type` objects).
    #[serde(default)]
    pub details: Vec<Value>,
}

//! Errors of the 0.3 translation, and the 0.3 JSON-RPC error object.

use crate::error::{A2aError, HttpRefusal};
use crate::jsonrpc::JsonRpcError;

/// Why a 0.3 request (or answer) cannot be read as its 1.0 counterpart. Always an
/// InvalidParams on the server side; the message names the member and what was wrong with it,
/// so a 0.3 client's author can fix the request from the error alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {reason}")]
pub struct ReadError {
    /// The member, as a path from the params (`message.parts[1].data`), or `params` when serde
    /// refused the shape as a whole.
    pub at: String,
    /// What was wrong.
    pub reason: String,
}

impl ReadError {
    /// An error at `at`.
    pub fn new(at: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            at: at.into(),
            reason: reason.into(),
        }
    }

    /// The same error, placed under `prefix` (`parts[0]` becomes `message.parts[0]`).
    pub fn under(mut self, prefix: &str) -> Self {
        self.at = if self.at.is_empty() {
            prefix.to_string()
        } else {
            format!("{prefix}.{}", self.at)
        };
        self
    }

    /// A serde refusal of the whole object at `at` (serde's text names the member and the
    /// expected form, e.g. "unknown variant `system`, expected `user` or `agent`").
    pub fn shape(at: &str, e: &serde_json::Error) -> Self {
        Self::new(at, e.to_string())
    }

    /// The A2A error a server answers with: InvalidParams, whatever was wrong.
    pub fn a2a_error(&self) -> A2aError {
        A2aError::InvalidParams
    }

    /// The 0.3 JSON-RPC error object for this refusal.
    pub fn to_jsonrpc(&self) -> JsonRpcError {
        jsonrpc_error(self.a2a_error(), self.to_string())
    }
}

/// Why a 1.0 value has no 0.3 form: it holds a value 0.3 cannot say and we refuse to invent
/// one (`ROLE_UNSPECIFIED`; `TASK_STATE_UNSPECIFIED`, since we never write 0.3's `unknown`).
/// Our own services never produce these, so on a server this is an InternalError.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {reason} has no A2A 0.3 form")]
pub struct WriteError {
    /// The member, as a path from the object written.
    pub at: String,
    /// The value that cannot be written.
    pub reason: &'static str,
}

impl WriteError {
    /// The same error, placed under `prefix`.
    pub fn under(mut self, prefix: &str) -> Self {
        self.at = format!("{prefix}.{}", self.at);
        self
    }
}

/// The 0.3 JSON-RPC error object: `{code, message}` with no `data`, because 0.3 defines no
/// structure for it and a2a-sdk 0.3.26 sends none. Codes are the 1.0 codes; the 1.0-only
/// -32008 and -32009 are sent as they are (a 0.3 client shows them as generic errors).
pub fn jsonrpc_error(error: A2aError, message: impl Into<String>) -> JsonRpcError {
    JsonRpcError {
        code: error.code(),
        message: message.into(),
        data: None,
    }
}

/// The 0.3 JSON-RPC error object of a refusal the HTTP layer makes before the method is read
/// (no token, a foreign origin, the connection limit, a body over the limit). The HTTP status
/// says what happened (401, 403, 413, 503, ...); JSON-RPC has no code for these, so the object
/// carries InvalidRequest (-32600) for a refusal of the request itself and InternalError
/// (-32603) for the server's own state (503), and a 0.3 client that reads the body (as
/// @a2a-js/sdk 0.3 does on a non-2xx answer) finds `code` and `message` where it looks.
pub fn refusal_jsonrpc(refusal: HttpRefusal, message: impl Into<String>) -> JsonRpcError {
    let kind = match refusal {
        HttpRefusal::Unavailable => A2aError::InternalError,
        HttpRefusal::Unauthenticated
        | HttpRefusal::PayloadTooLarge
        | HttpRefusal::BadRequest
        | HttpRefusal::Forbidden
        | HttpRefusal::MethodNotAllowed => A2aError::InvalidRequest,
    };
    jsonrpc_error(kind, message)
}

/// A 1.0 JSON-RPC error object (with its ErrorInfo `data`) as a 0.3 client gets it: the same
/// code and message, `data` removed.
pub fn to_v03_error(error: JsonRpcError) -> JsonRpcError {
    JsonRpcError {
        data: None,
        ..error
    }
}

/// The gRPC status of an A2A error on the 0.3 service `a2a.v1.A2AService`
/// (`docs/a2a-0.3.md` 1.12): the code a2a-sdk 0.3.26's gRPC server sends (a name of the
/// `google.rpc.Code` enum, as [`A2aError::grpc_status`] spells the 1.0 ones), and the status
/// message `"<ErrorName>: <message>"` it writes, so a 0.3 client that shows or parses the
/// text sees the same thing from us. The extended-card error, which 0.3.26 answers UNKNOWN,
/// and the 1.0-only errors are FAILED_PRECONDITION, as in the 1.0 table.
pub fn grpc_status(e: A2aError, message: &str) -> (&'static str, String) {
    let (code, name) = match e {
        A2aError::ParseError => ("INTERNAL", "JSONParseError"),
        A2aError::InvalidRequest => ("INVALID_ARGUMENT", "InvalidRequestError"),
        A2aError::MethodNotFound => ("NOT_FOUND", "MethodNotFoundError"),
        A2aError::InvalidParams => ("INVALID_ARGUMENT", "InvalidParamsError"),
        A2aError::InternalError => ("INTERNAL", "InternalError"),
        A2aError::TaskNotFound => ("NOT_FOUND", "TaskNotFoundError"),
        A2aError::TaskNotCancelable => ("UNIMPLEMENTED", "TaskNotCancelableError"),
        A2aError::PushNotificationNotSupported => {
            ("UNIMPLEMENTED", "PushNotificationNotSupportedError")
        }
        A2aError::UnsupportedOperation => ("UNIMPLEMENTED", "UnsupportedOperationError"),
        A2aError::ContentTypeNotSupported => ("UNIMPLEMENTED", "ContentTypeNotSupportedError"),
        A2aError::InvalidAgentResponse => ("INTERNAL", "InvalidAgentResponseError"),
        A2aError::ExtendedAgentCardNotConfigured => (
            "FAILED_PRECONDITION",
            "AuthenticatedExtendedCardNotConfiguredError",
        ),
        A2aError::ExtensionSupportRequired => {
            ("FAILED_PRECONDITION", "ExtensionSupportRequiredError")
        }
        A2aError::VersionNotSupported => ("FAILED_PRECONDITION", "VersionNotSupportedError"),
    };
    (code, format!("{name}: {message}"))
}

/// The A2A error a 0.3 gRPC status stands for, for a client reading a 0.3 server's answer:
/// the `<ErrorName>` before the first `": "` of the status message when it is one
/// [`grpc_status`] writes (a2a-sdk 0.3.26 writes the same names), else `None` (the caller
/// then falls back on the code alone).
pub fn error_of_grpc_message(message: &str) -> Option<A2aError> {
    let name = message.split_once(": ").map(|(n, _)| n)?;
    A2aError::ALL
        .into_iter()
        .find(|e| grpc_status(*e, "").1.trim_end_matches(": ") == name)
}

/// The text after `"<ErrorName>: "` of a 0.3 gRPC status message (the whole text when it has
/// no known error name).
pub fn grpc_message_text(message: &str) -> &str {
    match (error_of_grpc_message(message), message.split_once(": ")) {
        (Some(_), Some((_, rest))) => rest,
        _ => message,
    }
}

#[cfg(test)]
mod grpc_tests {
    use super::*;

    #[test]
    fn every_error_has_a_03_grpc_status_that_reads_back() {
        for e in A2aError::ALL {
            let (code, text) = grpc_status(e, "why it failed");
            assert!(!code.is_empty());
            assert_eq!(error_of_grpc_message(&text), Some(e), "{text}");
            assert_eq!(grpc_message_text(&text), "why it failed");
        }
        assert_eq!(
            grpc_status(A2aError::TaskNotFound, "x"),
            ("NOT_FOUND", "TaskNotFoundError: x".to_string())
        );
        assert_eq!(
            grpc_status(A2aError::TaskNotCancelable, "x").0,
            "UNIMPLEMENTED"
        );
        assert_eq!(error_of_grpc_message("no name here"), None);
        assert_eq!(error_of_grpc_message("SomethingElse: x"), None);
        assert_eq!(grpc_message_text("SomethingElse: x"), "SomethingElse: x");
    }
}

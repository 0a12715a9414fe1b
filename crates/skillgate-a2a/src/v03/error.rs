//! Errors of the 0.3 translation, and the 0.3 JSON-RPC error object.

use crate::error::A2aError;
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

/// A 1.0 JSON-RPC error object (with its ErrorInfo `data`) as a 0.3 client gets it: the same
/// code and message, `data` removed.
pub fn to_v03_error(error: JsonRpcError) -> JsonRpcError {
    JsonRpcError {
        data: None,
        ..error
    }
}

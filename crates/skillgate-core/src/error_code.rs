//! The ten machine-readable error codes and the task state each one ends in.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A draft error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The Agent Card does not advertise the selected skill (client-local, nothing sent).
    SkillNotAdvertised,
    /// An advertised interface cannot currently be returned.
    InterfaceUnavailable,
    /// The Skill Interface Document or an embedded schema is defective.
    InterfaceInvalid,
    /// The request's skill version or interface digest is not the active one.
    InterfaceMismatch,
    /// The arguments fail the input schema.
    InputInvalid,
    /// Valid input that the skill will not accept.
    ConstraintRejected,
    /// The caller is not authenticated or not authorized.
    AuthorizationFailed,
    /// A declared constraint or a server limit was exceeded.
    ResourceLimitExceeded,
    /// The output or a supporting record fails its schema.
    OutputInvalid,
    /// Accepted work that could not finish.
    ExecutionFailed,
}

/// Where an error code is reported and which terminal task state it maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerminalState {
    /// Only ever reported by the client; no remote task exists.
    ClientLocal,
    /// `TASK_STATE_REJECTED`: understood but not accepted for execution.
    Rejected,
    /// `TASK_STATE_FAILED`: accepted but could not complete.
    Failed,
    /// `TASK_STATE_REJECTED` when checked before acceptance, `TASK_STATE_FAILED` during processing.
    RejectedOrFailed,
}

impl ErrorCode {
    /// All ten codes, in the draft's order.
    pub const ALL: [ErrorCode; 10] = [
        ErrorCode::SkillNotAdvertised,
        ErrorCode::InterfaceUnavailable,
        ErrorCode::InterfaceInvalid,
        ErrorCode::InterfaceMismatch,
        ErrorCode::InputInvalid,
        ErrorCode::ConstraintRejected,
        ErrorCode::AuthorizationFailed,
        ErrorCode::ResourceLimitExceeded,
        ErrorCode::OutputInvalid,
        ErrorCode::ExecutionFailed,
    ];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::SkillNotAdvertised => "skill_not_advertised",
            ErrorCode::InterfaceUnavailable => "interface_unavailable",
            ErrorCode::InterfaceInvalid => "interface_invalid",
            ErrorCode::InterfaceMismatch => "interface_mismatch",
            ErrorCode::InputInvalid => "input_invalid",
            ErrorCode::ConstraintRejected => "constraint_rejected",
            ErrorCode::AuthorizationFailed => "authorization_failed",
            ErrorCode::ResourceLimitExceeded => "resource_limit_exceeded",
            ErrorCode::OutputInvalid => "output_invalid",
            ErrorCode::ExecutionFailed => "execution_failed",
        }
    }

    /// The terminal state a server reports this code with.
    pub fn terminal_state(self) -> TerminalState {
        match self {
            ErrorCode::SkillNotAdvertised => TerminalState::ClientLocal,
            ErrorCode::InterfaceMismatch
            | ErrorCode::InputInvalid
            | ErrorCode::ConstraintRejected
            | ErrorCode::AuthorizationFailed => TerminalState::Rejected,
            ErrorCode::InterfaceUnavailable
            | ErrorCode::InterfaceInvalid
            | ErrorCode::OutputInvalid
            | ErrorCode::ExecutionFailed => TerminalState::Failed,
            ErrorCode::ResourceLimitExceeded => TerminalState::RejectedOrFailed,
        }
    }

    /// Whether the error object for this code may carry `details`.
    pub fn allows_details(self) -> bool {
        matches!(self, ErrorCode::InputInvalid | ErrorCode::OutputInvalid)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The string is not one of the ten codes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown error code {0:?}")]
pub struct UnknownErrorCode(pub String);

impl FromStr for ErrorCode {
    type Err = UnknownErrorCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorCode::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownErrorCode(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_through_its_wire_name() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            assert_eq!(code.as_str().parse::<ErrorCode>().unwrap(), code);
        }
        assert!("nope".parse::<ErrorCode>().is_err());
    }

    #[test]
    fn states_follow_the_draft_table() {
        use TerminalState::*;
        let expected = [
            ClientLocal,
            Failed,
            Failed,
            Rejected,
            Rejected,
            Rejected,
            Rejected,
            RejectedOrFailed,
            Failed,
            Failed,
        ];
        for (code, state) in ErrorCode::ALL.into_iter().zip(expected) {
            assert_eq!(code.terminal_state(), state, "{code}");
        }
    }
}

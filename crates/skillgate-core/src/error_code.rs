//! The ten machine-readable error codes and the task state each one ends in.

pub use crate::wire::{ErrorCode, UnknownErrorCode};

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

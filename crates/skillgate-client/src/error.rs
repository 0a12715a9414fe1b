//! The client's typed errors: where a failure happened (local or remote), at which of the
//! draft's eleven steps, and what kind of outcome it is (the CLI chooses the exit code).

use std::fmt;

use skillgate_a2a::TaskState;
use skillgate_core::wire::ErrorDetail;
use skillgate_core::ErrorCode;

/// One step of the draft's client validation sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    /// 1. Retrieve the Agent Card, its A2A endpoint and the extension advertisement.
    FetchCard,
    /// 2. Verify describe_skill and the skill are advertised; select version and digest.
    SelectSkill,
    /// 3. Call describe_skill for the selected skill.
    DescribeSkill,
    /// 4. Advertised == returned == computed interface digest.
    CheckDigests,
    /// 5. Validate the document against the trusted Skill Interface Schema and expectations.
    ValidateDocument,
    /// 6. Verify every embedded schema against its Schema Reference digest.
    VerifySchemaDigests,
    /// 7. Validate the outgoing input against `input_schema`.
    ValidateInput,
    /// 8. Delegate the task with `skill_version` and `interface_digest`.
    Delegate,
    /// 9. Receive task status, the primary Artifact and supporting records.
    ReadResult,
    /// 10. Validate the output and every supporting record.
    ValidateOutput,
    /// 11. Hand back the typed result.
    Result,
}

impl Step {
    /// All steps in order.
    pub const ALL: [Step; 11] = [
        Step::FetchCard,
        Step::SelectSkill,
        Step::DescribeSkill,
        Step::CheckDigests,
        Step::ValidateDocument,
        Step::VerifySchemaDigests,
        Step::ValidateInput,
        Step::Delegate,
        Step::ReadResult,
        Step::ValidateOutput,
        Step::Result,
    ];

    /// The step's number in the draft (1..=11).
    pub fn number(self) -> u8 {
        match self {
            Step::FetchCard => 1,
            Step::SelectSkill => 2,
            Step::DescribeSkill => 3,
            Step::CheckDigests => 4,
            Step::ValidateDocument => 5,
            Step::VerifySchemaDigests => 6,
            Step::ValidateInput => 7,
            Step::Delegate => 8,
            Step::ReadResult => 9,
            Step::ValidateOutput => 10,
            Step::Result => 11,
        }
    }

    /// A short machine-readable name, used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Step::FetchCard => "fetch_card",
            Step::SelectSkill => "select_skill",
            Step::DescribeSkill => "describe_skill",
            Step::CheckDigests => "check_digests",
            Step::ValidateDocument => "validate_document",
            Step::VerifySchemaDigests => "verify_schema_digests",
            Step::ValidateInput => "validate_input",
            Step::Delegate => "delegate",
            Step::ReadResult => "read_result",
            Step::ValidateOutput => "validate_output",
            Step::Result => "result",
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.number(), self.name())
    }
}

/// Which side detected a draft error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Where {
    /// This client, before or without a remote task state to report.
    Local,
    /// The remote agent, in a task's final status.
    Remote,
}

impl Where {
    /// `"local"` or `"remote"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Where::Local => "local",
            Where::Remote => "remote",
        }
    }
}

/// Everything that can stop the validated client.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ClientError {
    /// A draft error found by this client; never reported as the state of a remote task.
    #[error("{code} (local, step {step}): {message}")]
    Local {
        /// The step that failed.
        step: Step,
        /// The draft error code.
        code: ErrorCode,
        /// What failed.
        message: String,
        /// Draft-style details (input_invalid / output_invalid only).
        details: Vec<ErrorDetail>,
        /// A remote task this error refers to without changing its state (e.g. a COMPLETED
        /// task whose output this client found invalid).
        task_id: Option<String>,
    },
    /// A draft error reported by the remote agent; keeps the task's id and terminal state.
    #[error("{code} (remote task {task_id}, {state}, step {step}): {message}")]
    Remote {
        /// The step during which the agent reported it.
        step: Step,
        /// The draft error code from the final status message.
        code: ErrorCode,
        /// The agent's message (empty if none).
        message: String,
        /// The agent's details.
        details: Vec<ErrorDetail>,
        /// The remote task id.
        task_id: String,
        /// The remote task's terminal state.
        state: TaskState,
    },
    /// Connection, TLS, timeout, HTTP status, redirect or size-limit failure.
    #[error("transport failure at step {step}: {message}")]
    Transport {
        /// The step that failed.
        step: Step,
        /// One-line reason.
        message: String,
        /// The HTTP status when the agent answered with a non-2xx status (401: it wants a
        /// bearer token; 403: it refuses the one sent); `None` for every other failure.
        status: Option<u16>,
    },
    /// The peer does not speak A2A 1.0 as this profile requires.
    #[error("protocol failure at step {step}: {message}")]
    Protocol {
        /// The step that failed.
        step: Step,
        /// One-line reason.
        message: String,
        /// The remote task, when one exists.
        task_id: Option<String>,
        /// Its state, when known.
        state: Option<TaskState>,
    },
    /// The request cannot be made as given (bad URL, plain HTTP refused, bad option).
    #[error("{message}")]
    Usage {
        /// One-line reason.
        message: String,
    },
}

impl ClientError {
    /// A local draft error without details.
    pub fn local(step: Step, code: ErrorCode, message: impl Into<String>) -> Self {
        ClientError::Local {
            step,
            code,
            message: message.into(),
            details: Vec::new(),
            task_id: None,
        }
    }

    /// A transport failure.
    pub fn transport(step: Step, message: impl Into<String>) -> Self {
        ClientError::Transport {
            step,
            message: message.into(),
            status: None,
        }
    }

    /// The HTTP status of a non-2xx answer this error reports, if it reports one (so a
    /// caller can tell, say, a missing credential from a dead host without reading the text).
    pub fn http_status(&self) -> Option<u16> {
        match self {
            ClientError::Transport { status, .. } => *status,
            _ => None,
        }
    }

    /// A protocol failure with no remote task.
    pub fn protocol(step: Step, message: impl Into<String>) -> Self {
        ClientError::Protocol {
            step,
            message: message.into(),
            task_id: None,
            state: None,
        }
    }

    /// A usage error.
    pub fn usage(message: impl Into<String>) -> Self {
        ClientError::Usage {
            message: message.into(),
        }
    }

    /// The step that failed, if the error belongs to one.
    pub fn step(&self) -> Option<Step> {
        match self {
            ClientError::Local { step, .. }
            | ClientError::Remote { step, .. }
            | ClientError::Transport { step, .. }
            | ClientError::Protocol { step, .. } => Some(*step),
            ClientError::Usage { .. } => None,
        }
    }

    /// The draft error code, for local and remote draft errors.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            ClientError::Local { code, .. } | ClientError::Remote { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The `code` member of the JSON failure object: a draft code, or `transport_error`,
    /// `protocol_error`, `usage_error` for the failures outside the draft's ten.
    pub fn code_str(&self) -> &'static str {
        match self {
            ClientError::Local { code, .. } | ClientError::Remote { code, .. } => code.as_str(),
            ClientError::Transport { .. } => "transport_error",
            ClientError::Protocol { .. } => "protocol_error",
            ClientError::Usage { .. } => "usage_error",
        }
    }

    /// Remote only for errors the agent reported in a task; everything else is local.
    pub fn where_(&self) -> Where {
        match self {
            ClientError::Remote { .. } => Where::Remote,
            _ => Where::Local,
        }
    }

    /// The bare message, without the code and step prefix.
    pub fn message(&self) -> &str {
        match self {
            ClientError::Local { message, .. }
            | ClientError::Remote { message, .. }
            | ClientError::Transport { message, .. }
            | ClientError::Protocol { message, .. }
            | ClientError::Usage { message } => message,
        }
    }

    /// The remote task id this error refers to, if any.
    pub fn task_id(&self) -> Option<&str> {
        match self {
            ClientError::Local { task_id, .. } | ClientError::Protocol { task_id, .. } => {
                task_id.as_deref()
            }
            ClientError::Remote { task_id, .. } => Some(task_id),
            _ => None,
        }
    }
}

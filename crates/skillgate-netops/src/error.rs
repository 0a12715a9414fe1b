//! Why a netops skill refused or failed, and which draft error code that is.

use skillgate_core::ErrorCode;

use crate::host::{CounterReset, HostError};

/// Longest interface name quoted back in a message; the schema allows 256 characters, and a
/// message should stay readable.
const MAX_QUOTED_NAME: usize = 64;

/// An error of a netops domain function.
#[derive(Debug, thiserror::Error)]
pub enum NetopsError {
    /// The arguments do not have the shape of the skill's input schema. Only reachable when a
    /// domain function is called directly: the runtime validates input first.
    #[error("arguments do not match the input schema of {skill}")]
    InvalidArguments {
        /// The skill whose arguments were wrong.
        skill: &'static str,
    },
    /// The named interface does not exist on this host (schema-valid, so not `input_invalid`).
    #[error("no interface named {name} on this host; known: {}", known.join(", "))]
    UnknownInterface {
        /// The requested name (shortened for the message).
        name: String,
        /// Interfaces the host does have, in `/proc/net/dev` order.
        known: Vec<String>,
    },
    /// Utilization needs a link speed the kernel does not report for this interface.
    #[error("link speed of {interface} is unknown (sysfs speed missing or -1), so utilization cannot be computed; use rx_bytes_per_second or tx_bytes_per_second")]
    UnknownLinkSpeed {
        /// The interface.
        interface: String,
    },
    /// The unit does not fit the metric (the input schema also says so; this is the second line).
    #[error("metric {metric} is measured in {expected}, not {unit}")]
    UnitMismatch {
        /// The requested metric.
        metric: &'static str,
        /// The unit given.
        unit: &'static str,
        /// The unit the metric is measured in.
        expected: &'static str,
    },
    /// The host could not be read.
    #[error("reading the host failed: {0}")]
    Host(#[from] HostError),
    /// A counter went backwards during the sampling window.
    #[error(transparent)]
    CounterReset(#[from] CounterReset),
    /// The interface disappeared between the two readings.
    #[error("interface {0} disappeared during the sampling window")]
    Vanished(String),
    /// A result could not be turned into JSON (not expected; kept so nothing panics).
    #[error("encoding the result failed: {0}")]
    Encode(String),
}

impl NetopsError {
    /// The draft error code the runtime reports for this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            NetopsError::InvalidArguments { .. } => ErrorCode::InputInvalid,
            NetopsError::UnknownInterface { .. }
            | NetopsError::UnknownLinkSpeed { .. }
            | NetopsError::UnitMismatch { .. } => ErrorCode::ConstraintRejected,
            NetopsError::Host(_)
            | NetopsError::CounterReset(_)
            | NetopsError::Vanished(_)
            | NetopsError::Encode(_) => ErrorCode::ExecutionFailed,
        }
    }

    /// Builds [`NetopsError::UnknownInterface`], shortening a long name for the message.
    pub(crate) fn unknown_interface(name: &str, known: Vec<String>) -> Self {
        let name = if name.chars().count() > MAX_QUOTED_NAME {
            let mut short: String = name.chars().take(MAX_QUOTED_NAME).collect();
            short.push('…');
            short
        } else {
            name.to_owned()
        };
        NetopsError::UnknownInterface { name, known }
    }
}

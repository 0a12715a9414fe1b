//! Why an exchange could not be completed at the HTTP level.

/// A request that failed before an answer could be read whole. Every URL inside is redacted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The URL is not absolute, not http(s), or cannot be built.
    #[error("{0}")]
    BadUrl(String),
    /// The scheme policy refused the URL (plain HTTP to a host that is not loopback).
    #[error("{0}")]
    Refused(String),
    /// The configuration is unusable (a bad CA certificate, a client that cannot be built).
    #[error("{0}")]
    Config(String),
    /// The peer could not be reached.
    #[error("the agent at {url} is not reachable ({reason}){}", connect_hint(.reason))]
    Connect {
        /// The redacted URL.
        url: String,
        /// The underlying reason.
        reason: String,
    },
    /// A timeout fired (connect, read or the overall deadline).
    #[error("timed out ({url})")]
    Timeout {
        /// The redacted URL.
        url: String,
    },
    /// A redirect was refused: too many, or to a URL the scheme policy refuses.
    #[error("{reason}")]
    Redirect {
        /// What the redirect policy said.
        reason: String,
    },
    /// The body (or the whole stream) exceeds its limit.
    #[error("response larger than the {limit} byte limit ({url})")]
    TooLarge {
        /// The limit in bytes.
        limit: usize,
        /// The redacted URL.
        url: String,
    },
    /// The card is not signed by a trusted key (`trusted_keys` is set).
    #[error("the Agent Card at {url} is not trusted: {reason}")]
    Untrusted {
        /// The redacted URL.
        url: String,
        /// Why no signature verified.
        reason: String,
    },
    /// An A2A 0.3 agent answered with something that is not a 0.3 answer to the request
    /// (not JSON, not a JSON-RPC envelope, a `result` of the wrong `kind` or shape), so it has
    /// no 1.0 form to hand back.
    #[error("the A2A 0.3 agent's answer cannot be read ({url}): {reason}")]
    V03Answer {
        /// The redacted URL.
        url: String,
        /// What was wrong, with the member's path when the translation names one.
        reason: String,
    },
    /// The operation has no form in the interface's A2A version (`ListTasks` on 0.3
    /// JSON-RPC): refused here, before anything is sent.
    #[error(
        "{operation} has no A2A {version} JSON-RPC form and the interface in use speaks A2A \
         {version}; nothing was sent"
    )]
    Unsupported {
        /// The 1.0 method name.
        operation: &'static str,
        /// The interface's version.
        version: skillgate_a2a::version::WireVersion,
    },
    /// Anything else reqwest reported while sending or reading.
    #[error("{reason} ({url})")]
    Http {
        /// The redacted URL.
        url: String,
        /// The reason chain.
        reason: String,
    },
}

/// The question a refused connection raises.
fn connect_hint(reason: &str) -> &'static str {
    if reason == CONNECTION_REFUSED {
        ": is it running?"
    } else {
        ""
    }
}

/// The reason of a [`TransportError::Connect`] when nothing listens at the address.
pub const CONNECTION_REFUSED: &str = "connection refused";

impl TransportError {
    /// A stable machine-readable name of the failure, for `--format json` output.
    pub fn code(&self) -> &'static str {
        match self {
            TransportError::BadUrl(_) => "bad_url",
            TransportError::Refused(_) => "scheme_refused",
            TransportError::Config(_) => "bad_config",
            TransportError::Connect { .. } => "unreachable",
            TransportError::Timeout { .. } => "timeout",
            TransportError::Redirect { .. } => "redirect_refused",
            TransportError::TooLarge { .. } => "too_large",
            TransportError::Untrusted { .. } => "card_untrusted",
            TransportError::V03Answer { .. } => "bad_v03_answer",
            TransportError::Unsupported { .. } => "unsupported_operation",
            TransportError::Http { .. } => "http_failed",
        }
    }

    /// Whether the caller's input (URL, policy, configuration) is at fault rather than the peer.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            TransportError::BadUrl(_) | TransportError::Config(_) | TransportError::Refused(_)
        )
    }
}

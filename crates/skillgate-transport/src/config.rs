//! What bounds and authenticates every request of the transport.

use std::fmt;
use std::time::Duration;

use crate::{ExtraHeader, Tracer, Withheld};

/// Default limit on an Agent Card body (1 MiB).
pub const DEFAULT_CARD_LIMIT: usize = 1024 * 1024;
/// Default limit on any other response body, a whole event stream included (4 MiB).
pub const DEFAULT_RESPONSE_LIMIT: usize = 4 * 1024 * 1024;
/// Redirects followed at most; one more is a transport failure.
pub const MAX_REDIRECTS: usize = 3;

/// A credential that never shows itself: `Debug` prints `Secret(***)`, and there is no
/// `Display`, so a token cannot reach a log line or an error message by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a credential.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The credential itself, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Self(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Self(value.to_owned())
    }
}

/// Bounds, policy and credentials of one transport.
#[derive(Debug, Clone)]
pub struct TransportConfig {
    /// Largest accepted Agent Card, in bytes.
    pub card_limit: usize,
    /// Largest accepted response body (a whole event stream included), in bytes.
    pub response_limit: usize,
    /// Time allowed to establish a connection.
    pub connect_timeout: Duration,
    /// Longest pause allowed between two reads of a response.
    pub read_timeout: Duration,
    /// Longest time one request may take, its body (or stream) included.
    pub timeout: Duration,
    /// Redirects followed at most (each one re-checked against the scheme policy).
    pub max_redirects: usize,
    /// Permit plain `http://` to hosts that are not loopback.
    pub allow_http: bool,
    /// Bearer token sent as `Authorization: Bearer …` on every request to one of
    /// `credential_origins`.
    pub token: Option<Secret>,
    /// Extra trusted root certificates (PEM bundles), added to the platform's roots.
    pub ca_certificates: Vec<Vec<u8>>,
    /// `User-Agent` of every request.
    pub user_agent: String,
    /// Keys an Agent Card must be signed with: every card fetched is refused unless one of its
    /// signatures verifies with one of them (`None`: cards are not checked).
    pub trusted_keys: Option<skillgate_sign::TrustedKeys>,
    /// Headers added to every request to one of `credential_origins` (after the transport's
    /// own, replacing one of the same name: an `Authorization` here wins over `token`).
    pub headers: Vec<ExtraHeader>,
    /// The only origins (scheme, host, port) that receive `token` and `headers`: the one the
    /// user named and those allowed explicitly. A request anywhere else (an interface URL a
    /// card names on another origin, a redirect hop to another origin) carries neither, since
    /// whoever serves a card or a redirect chooses those URLs. Empty: credentials are sent
    /// nowhere.
    pub credential_origins: Vec<url::Origin>,
    /// Told once per origin that a request went there without the credentials.
    pub withheld: Option<Withheld>,
    /// Told about every request (method, redacted URL, status, time), for `--verbose`.
    pub trace: Option<Tracer>,
}

impl TransportConfig {
    /// Whether there is anything to withhold: a token or an extra header.
    pub fn has_credentials(&self) -> bool {
        self.token.is_some() || !self.headers.is_empty()
    }
}

impl Default for TransportConfig {
    fn default() -> Self {
        Self {
            card_limit: DEFAULT_CARD_LIMIT,
            response_limit: DEFAULT_RESPONSE_LIMIT,
            connect_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_secs(15),
            timeout: Duration::from_secs(30),
            max_redirects: MAX_REDIRECTS,
            allow_http: false,
            token: None,
            ca_certificates: Vec::new(),
            user_agent: skillgate_platform::http::user_agent(""),
            trusted_keys: None,
            headers: Vec::new(),
            credential_origins: Vec::new(),
            withheld: None,
            trace: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_do_not_print() {
        let c = TransportConfig {
            token: Some("h4shSecretSuffix".into()),
            ..TransportConfig::default()
        };
        let shown = format!("{c:?}");
        assert!(!shown.contains("h4sh"), "{shown}");
        assert!(shown.contains("Secret(***)"), "{shown}");
    }
}

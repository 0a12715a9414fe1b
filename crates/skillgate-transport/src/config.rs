//! What bounds and authenticates every request of the transport.

use std::fmt;
use std::time::Duration;

use skillgate_a2a::version::WireVersion;

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

/// Which A2A versions a client may speak to an agent (`--a2a-version auto|1.0|0.3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VersionChoice {
    /// A 1.x interface if the card offers one, else a 0.3 one.
    #[default]
    Auto,
    /// This version's interfaces only; the card's others are passed over.
    Only(WireVersion),
}

impl VersionChoice {
    /// Whether an interface of `version` may be chosen.
    pub fn allows(self, version: WireVersion) -> bool {
        match self {
            VersionChoice::Auto => true,
            VersionChoice::Only(v) => v == version,
        }
    }
}

/// Why a `--a2a-version` value is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown A2A version {0:?}: use auto, 1.0 or 0.3")]
pub struct UnknownVersionChoice(pub String);

impl std::str::FromStr for VersionChoice {
    type Err = UnknownVersionChoice;

    /// `auto`, or a version [`WireVersion::parse`] reads (`1.0`, `1.1`, `0.3.0`); an empty
    /// string is refused here although it means 0.3 on the wire: as a flag value it is a typo.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("auto") {
            return Ok(VersionChoice::Auto);
        }
        match (t.is_empty(), WireVersion::parse(t)) {
            (false, Some(v)) => Ok(VersionChoice::Only(v)),
            _ => Err(UnknownVersionChoice(s.to_owned())),
        }
    }
}

impl fmt::Display for VersionChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionChoice::Auto => f.write_str("auto"),
            VersionChoice::Only(v) => f.write_str(v.as_str()),
        }
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
    /// The A2A versions interface selection may choose from (`--a2a-version`).
    pub a2a_version: VersionChoice,
}

impl TransportConfig {
    /// The defaults with `timeout` as the overall limit of each request: the connect and
    /// read limits never exceed it (a 0.5 s budget does not wait 5 s to connect).
    pub fn with_timeout(timeout: Duration) -> Self {
        let d = Self::default();
        Self {
            connect_timeout: d.connect_timeout.min(timeout),
            read_timeout: d.read_timeout.min(timeout),
            timeout,
            ..d
        }
    }

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
            a2a_version: VersionChoice::Auto,
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

    #[test]
    fn version_choices_read_and_print() {
        for (text, want) in [
            ("auto", VersionChoice::Auto),
            ("1.0", VersionChoice::Only(WireVersion::V1_0)),
            ("0.3", VersionChoice::Only(WireVersion::V0_3)),
            ("0.3.0", VersionChoice::Only(WireVersion::V0_3)),
        ] {
            let got: VersionChoice = text.parse().unwrap();
            assert_eq!(got, want, "{text}");
        }
        assert_eq!(VersionChoice::Only(WireVersion::V0_3).to_string(), "0.3");
        for bad in ["", "2.0", "0.2", "latest"] {
            assert!(bad.parse::<VersionChoice>().is_err(), "{bad:?}");
        }
    }
}

//! What a caller adds to every request: extra headers (`--header NAME:VALUE`) and a request
//! trace (`--verbose`). Header values may be credentials, so they never show themselves.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};

/// Headers the transport itself must control: framing and routing, which a caller's value
/// would corrupt rather than extend.
const RESERVED: [&str; 5] = [
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "upgrade",
];

/// One extra request header, checked when it is made. `Debug` shows the name only: the value
/// may be a credential (an API key, a cookie).
#[derive(Clone, PartialEq, Eq)]
pub struct ExtraHeader {
    name: HeaderName,
    value: HeaderValue,
}

impl fmt::Debug for ExtraHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ExtraHeader({}: ***)", self.name)
    }
}

/// Why an extra header given as `NAME:VALUE` is refused. No variant carries the value, which
/// may be a credential.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The text has no `:` separating the name from the value.
    #[error("a header is NAME:VALUE, e.g. 'X-Request-Id: 42' (no ':' found)")]
    NoColon,
    /// Nothing (or only spaces) before the `:`.
    #[error("a header is NAME:VALUE: the name before ':' is empty")]
    EmptyName,
    /// The name has characters HTTP does not allow in a header name.
    #[error(
        "header name {shown:?} is not a valid HTTP header name (letters, digits and \
         !#$%&'*+-.^_`|~ only)"
    )]
    InvalidName {
        /// The name as given, cut to its first 64 characters.
        shown: String,
    },
    /// A header the transport sets itself (framing and routing: `Host`, `Content-Length`,
    /// `Transfer-Encoding`, `Connection`, `Upgrade`), which a caller must not override.
    #[error("header {name} is set by the transport and cannot be given as an extra header")]
    Reserved {
        /// The header's name, lower-cased.
        name: HeaderName,
    },
    /// The value has characters HTTP does not allow (control characters, line breaks).
    #[error(
        "the value of header {name} is not a valid HTTP header value (visible ASCII, spaces \
         and tabs only; no line breaks)"
    )]
    InvalidValue {
        /// The header's name, lower-cased.
        name: HeaderName,
    },
}

impl ExtraHeader {
    /// Parses `NAME:VALUE` (spaces around the value are trimmed). The error names the header
    /// and what is wrong, never the value.
    pub fn parse(spec: &str) -> Result<Self, HeaderError> {
        let Some((name, value)) = spec.split_once(':') else {
            return Err(HeaderError::NoColon);
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(HeaderError::EmptyName);
        }
        let header_name =
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| HeaderError::InvalidName {
                shown: name.chars().take(64).collect(),
            })?;
        if RESERVED.contains(&header_name.as_str()) {
            return Err(HeaderError::Reserved { name: header_name });
        }
        let mut value =
            HeaderValue::from_str(value.trim()).map_err(|_| HeaderError::InvalidValue {
                name: header_name.clone(),
            })?;
        value.set_sensitive(true);
        Ok(Self {
            name: header_name,
            value,
        })
    }

    /// The header's name, lower-cased (safe to show).
    pub fn name(&self) -> &str {
        self.name.as_str()
    }

    pub(crate) fn parts(&self) -> (&HeaderName, &HeaderValue) {
        (&self.name, &self.value)
    }

    /// The name and the value (marked sensitive, so HTTP stacks that log headers hide it),
    /// for a client that is not this transport and must send the header itself (the MCP
    /// client of a gateway's MCP upstream).
    pub fn to_pair(&self) -> (HeaderName, HeaderValue) {
        (self.name.clone(), self.value.clone())
    }
}

/// One request as a trace shows it: nothing secret (no headers, no body, the URL redacted).
#[derive(Debug, Clone)]
pub struct TraceEvent {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The request URL with any credentials removed.
    pub url: String,
    /// The status of the answer, or why there was none.
    pub outcome: Result<u16, String>,
    /// Time from sending the request to the answer's head (or the failure).
    pub elapsed: Duration,
}

impl fmt::Display for TraceEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.elapsed.as_secs_f64() * 1000.0;
        match &self.outcome {
            Ok(status) => write!(f, "{} {} -> {status} ({ms:.1} ms)", self.method, self.url),
            Err(why) => write!(
                f,
                "{} {} -> failed: {why} ({ms:.1} ms)",
                self.method, self.url
            ),
        }
    }
}

/// Receives a [`TraceEvent`] for every request the transport makes. Cheap to clone.
#[derive(Clone)]
pub struct Tracer(Arc<dyn Fn(&TraceEvent) + Send + Sync>);

impl Tracer {
    /// A tracer calling `f` for each request.
    pub fn new(f: impl Fn(&TraceEvent) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    pub(crate) fn emit(&self, event: &TraceEvent) {
        (self.0)(event)
    }
}

impl fmt::Debug for Tracer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tracer")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_checked_and_never_show_their_value() {
        let h = ExtraHeader::parse("X-Api-Key: s3cr3tValue").unwrap();
        assert_eq!(h.name(), "x-api-key");
        assert!(!format!("{h:?}").contains("s3cr3t"));
        for bad in [
            "no-colon",
            ": zzSECRET",
            "bad name: zzSECRET",
            "Host: zzSECRET",
            "X-A: zzSECRET\nbreak",
        ] {
            let e = ExtraHeader::parse(bad).unwrap_err();
            assert!(!e.to_string().contains("zzSECRET"), "{e}");
            assert!(!format!("{e:?}").contains("zzSECRET"), "{e:?}");
        }
        let e = ExtraHeader::parse("X-A: secret\u{7f}").unwrap_err();
        assert!(
            matches!(&e, HeaderError::InvalidValue { name } if name == "x-a"),
            "{e:?}"
        );
        assert!(e.to_string().contains("x-a"), "{e}");
        for (spec, message) in [
            (
                "no-colon",
                "a header is NAME:VALUE, e.g. 'X-Request-Id: 42' (no ':' found)",
            ),
            (
                "Host: h",
                "header host is set by the transport and cannot be given as an extra header",
            ),
        ] {
            assert_eq!(ExtraHeader::parse(spec).unwrap_err().to_string(), message);
        }
    }
}

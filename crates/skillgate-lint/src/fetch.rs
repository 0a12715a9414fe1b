//! Fetching a card from a URL, bounded in size, time and redirects.

use std::io::Read;
use std::time::Duration;

/// Limits of one fetch.
#[derive(Debug, Clone, Copy)]
pub struct FetchLimits {
    /// Largest body accepted.
    pub max_bytes: usize,
    /// Whole-request timeout.
    pub timeout: Duration,
    /// Redirects followed at most.
    pub max_redirects: usize,
}

impl Default for FetchLimits {
    fn default() -> Self {
        Self {
            max_bytes: crate::MAX_CARD_BYTES,
            timeout: Duration::from_secs(10),
            max_redirects: 3,
        }
    }
}

/// Why a card could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// Not an http(s) URL.
    #[error("not an http(s) URL: {0}")]
    BadUrl(String),
    /// The server answered with a non-success status.
    #[error("HTTP status {status} from {url}")]
    Status {
        /// The status code.
        status: u16,
        /// The final URL.
        url: String,
    },
    /// The body is larger than the limit.
    #[error("response body is larger than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// Connection, TLS, timeout or redirect failure.
    #[error("fetch failed: {0}")]
    Transport(String),
}

/// Whether a command-line input names a URL rather than a file.
pub fn looks_like_url(input: &str) -> bool {
    let lower = input.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The card URL for a command-line URL, as the skillgate client resolves it: a path ending in
/// `.json` is the card itself, anything else is an agent base URL and gets
/// `/.well-known/agent-card.json` appended.
pub fn card_url(url: &str) -> Result<url::Url, FetchError> {
    let parsed = url::Url::parse(url).map_err(|e| FetchError::BadUrl(format!("{url}: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(FetchError::BadUrl(url.to_string()));
    }
    if parsed.path().ends_with(".json") {
        return Ok(parsed);
    }
    let joined = format!(
        "{}/.well-known/agent-card.json",
        parsed.as_str().trim_end_matches('/')
    );
    url::Url::parse(&joined).map_err(|e| FetchError::BadUrl(format!("{joined}: {e}")))
}

/// GETs the card at [`card_url`]`(url)` and returns the body.
pub fn fetch_card(url: &str, limits: FetchLimits) -> Result<Vec<u8>, FetchError> {
    let parsed = card_url(url)?;
    // reqwest is built without a bundled crypto provider; installing ring twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::blocking::Client::builder()
        .timeout(limits.timeout)
        .connect_timeout(limits.timeout)
        .redirect(reqwest::redirect::Policy::limited(limits.max_redirects))
        .user_agent(concat!("skillgate/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| FetchError::Transport(e.to_string()))?;
    let resp = client
        .get(parsed)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .map_err(|e| FetchError::Transport(error_chain(&e)))?;
    let status = resp.status();
    if !status.is_success() {
        return Err(FetchError::Status {
            status: status.as_u16(),
            url: resp.url().to_string(),
        });
    }
    if resp
        .content_length()
        .is_some_and(|n| n > limits.max_bytes as u64)
    {
        return Err(FetchError::TooLarge {
            limit: limits.max_bytes,
        });
    }
    let mut body = Vec::new();
    resp.take(limits.max_bytes as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|e| FetchError::Transport(e.to_string()))?;
    if body.len() > limits.max_bytes {
        return Err(FetchError::TooLarge {
            limit: limits.max_bytes,
        });
    }
    Ok(body)
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

//! URLs: the card's location and REST paths under an interface (redaction for messages is
//! skillgate-a2a's, re-exported by the crate).

use url::Url;

use crate::{redact_str, TransportError};

/// Whether a command-line argument names an http(s) URL rather than a file.
pub fn looks_like_url(input: &str) -> bool {
    let lower = input.get(..8).unwrap_or(input).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// Parses an absolute URL and applies the scheme policy (plain HTTP only to loopback unless
/// `allow_http`).
pub fn parse_url(s: &str, allow_http: bool) -> Result<Url, TransportError> {
    let url = Url::parse(s).map_err(|e| {
        TransportError::BadUrl(format!("{:?} is not an absolute URL: {e}", redact_str(s)))
    })?;
    crate::check_scheme(&url, allow_http).map_err(|e| TransportError::Refused(e.to_string()))?;
    Ok(url)
}

/// The Agent Card URL for a target: the target itself when its path ends in `.json`, else the
/// well-known card path under the target's path (`https://h/a2a` -> `https://h/a2a/.well-known/agent-card.json`).
///
/// Only the syntax is checked here; the scheme policy is applied when the card is fetched.
pub fn card_url(target: &str) -> Result<Url, TransportError> {
    // `127.0.0.1:7420` is no URL and `localhost:7420` one of scheme "localhost": both meant
    // http://, which is worth saying.
    let suggest = |why: &str| {
        let shown = redact_str(target);
        if target.contains("://") {
            TransportError::BadUrl(format!("{shown:?} {why}"))
        } else {
            TransportError::BadUrl(format!(
                "{shown:?} {why}: an agent URL starts with http:// or https:// (did you mean \
                 http://{shown}?)"
            ))
        }
    };
    let url = Url::parse(target).map_err(|e| suggest(&format!("is not an absolute URL ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(suggest("is not an http or https URL"));
    }
    if url.path().ends_with(".json") {
        return Ok(url);
    }
    join(&url, skillgate_a2a::AGENT_CARD_PATH.trim_start_matches('/'))
}

/// Appends `rel` (already percent-encoded) to `base`, keeping the base's path as a prefix
/// (unlike [`Url::join`], which would replace the last segment).
pub fn join(base: &Url, rel: &str) -> Result<Url, TransportError> {
    let mut s = base.as_str().trim_end_matches('/').to_owned();
    if !rel.is_empty() {
        s.push('/');
        s.push_str(rel.trim_start_matches('/'));
    }
    Url::parse(&s).map_err(|e| {
        TransportError::BadUrl(format!("cannot build the URL {:?}: {e}", redact_str(&s)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_urls_keep_the_interface_path() {
        let u = |s: &str| card_url(s).unwrap().to_string();
        assert_eq!(
            u("http://127.0.0.1:9"),
            "http://127.0.0.1:9/.well-known/agent-card.json"
        );
        assert_eq!(
            u("http://127.0.0.1:9/a2a/"),
            "http://127.0.0.1:9/a2a/.well-known/agent-card.json"
        );
        assert_eq!(
            u("https://h.example/cards/x.json"),
            "https://h.example/cards/x.json"
        );
        assert!(card_url("127.0.0.1:7420").is_err());
        assert!(card_url("ftp://h/x").is_err());
    }

    #[test]
    fn join_keeps_the_prefix() {
        let b = Url::parse("http://127.0.0.1:9/a2a/").unwrap();
        assert_eq!(
            join(&b, "message:send").unwrap().as_str(),
            "http://127.0.0.1:9/a2a/message:send"
        );
    }

    #[test]
    fn passwords_stay_out_of_url_errors() {
        let e = parse_url("http://alice:S3cret@example.com/", false).unwrap_err();
        assert!(!e.to_string().contains("S3cret"), "{e}");
        assert!(looks_like_url("HTTPS://x"));
        assert!(!looks_like_url("card.json"));
    }
}

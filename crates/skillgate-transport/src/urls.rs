//! URLs: the card's location, REST paths under an interface, and redaction for messages.

use url::Url;

use crate::TransportError;

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
    crate::check_scheme(&url, allow_http).map_err(TransportError::Refused)?;
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

/// The URL as it may appear in output: a password in the user-info becomes `***`.
pub fn redact(url: &Url) -> String {
    if url.password().is_none() {
        return url.to_string();
    }
    let mut shown = url.clone();
    // Cannot fail: a URL that carries a password has a host.
    let _ = shown.set_password(Some("***"));
    shown.to_string()
}

/// [`redact`] for a string that may or may not parse as a URL; unparseable input with a `@`
/// loses everything between the scheme and the `@`, since it may hold a password.
pub fn redact_str(s: &str) -> String {
    match Url::parse(s) {
        Ok(u) => redact(&u),
        Err(_) => match (s.find("://"), s.rfind('@')) {
            (Some(scheme_end), Some(at)) if at > scheme_end => {
                format!("{}://***{}", &s[..scheme_end], &s[at..])
            }
            _ => s.to_owned(),
        },
    }
}

/// Replaces the password of every URL in a whole text (a report in any format, a message)
/// with `***`: `scheme://user:pass@host` becomes `scheme://user:***@host`. The last line of
/// defence for output: whatever path a URL took into the text (the command line, a redirect's
/// `Location`, a card's interface URL, an error message), its password does not leave.
/// Characters that end a URL in text or JSON (`/ ? #`, white space, quotes, `<>`, `\\`) bound
/// the authority, so a JSON document stays valid.
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| {
                c.is_whitespace() || matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>' | '\\')
            })
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(at) => {
                let userinfo = &authority[..at];
                match userinfo.find(':') {
                    Some(colon) => {
                        out.push_str(&userinfo[..colon]);
                        out.push_str(":***");
                    }
                    None => out.push_str(userinfo),
                }
                out.push_str(&authority[at..]);
            }
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_leave_no_text() {
        assert_eq!(
            redact_text("GET http://alice:S3cret@h:1/p?q=a@b x"),
            "GET http://alice:***@h:1/p?q=a@b x"
        );
        assert_eq!(
            redact_text(r#"{"uri":"https://bob:p%40ss:w@h/","n":"http://h/a@b"}"#),
            r#"{"uri":"https://bob:***@h/","n":"http://h/a@b"}"#
        );
        assert_eq!(
            redact_text("http://tok@h/ and ://"),
            "http://tok@h/ and ://"
        );
        assert_eq!(redact_text("no urls"), "no urls");
        assert_eq!(redact_text("x://a:b@c"), "x://a:***@c");
    }

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
    fn passwords_are_redacted() {
        let u = Url::parse("http://alice:S3cret@127.0.0.1:9/x").unwrap();
        assert_eq!(redact(&u), "http://alice:***@127.0.0.1:9/x");
        assert_eq!(
            redact_str("http://alice:S3cret@127.0.0.1:9/x"),
            "http://alice:***@127.0.0.1:9/x"
        );
        assert_eq!(
            redact_str("http://alice:S3 cret@[bad/x"),
            "http://***@[bad/x"
        );
        let e = parse_url("http://alice:S3cret@example.com/", false).unwrap_err();
        assert!(!e.to_string().contains("S3cret"), "{e}");
        assert!(looks_like_url("HTTPS://x"));
        assert!(!looks_like_url("card.json"));
    }
}

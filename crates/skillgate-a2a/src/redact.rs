//! URL passwords out of output: the one redaction every crate uses (the transport, the store,
//! the card linter), here because it is the lowest crate they all depend on. A password in a
//! URL's user-info becomes `***`, and input that does not parse as a URL but looks like
//! `scheme://user:pass@...` loses everything between the scheme and the last `@`.

use url::Url;

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
    fn passwords_are_redacted() {
        let u = Url::parse("http://alice:S3cret@127.0.0.1:9/x").unwrap();
        assert_eq!(redact(&u), "http://alice:***@127.0.0.1:9/x");
        assert_eq!(
            redact_str("http://alice:S3cret@127.0.0.1:9/x"),
            "http://alice:***@127.0.0.1:9/x"
        );
        assert_eq!(redact_str("memory"), "memory");
    }

    #[test]
    fn a_user_and_password_that_do_not_parse_are_removed_whole() {
        assert_eq!(
            redact_str("http://alice:S3 cret@[bad/x"),
            "http://***@[bad/x"
        );
        assert_eq!(
            redact_str("postgres://alice:S3 cret@[bad/tasks"),
            "postgres://***@[bad/tasks"
        );
        // An `@` only before the scheme separator is no user-info.
        assert_eq!(redact_str("a@b://[bad"), "a@b://[bad");
    }
}

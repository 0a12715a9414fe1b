//! Where plain HTTP is acceptable: one decision shared by the client, the conformance checker
//! and the card linter, so a card the linter calls loopback is one the client will call.

use std::net::Ipv4Addr;

use url::{Host, Url};

/// True when the URL's parsed host is loopback: `localhost`, `127.0.0.0/8`, `::1` (or
/// `::ffff:127.x.y.z`).
///
/// Decided on the parsed host, never on a string prefix (`127.0.0.1.example.com` is not). Names
/// under `.localhost` are not treated as loopback: a resolver is not bound to send them there,
/// and plain HTTP must never leave the host on a guess.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => d
            .strip_suffix('.')
            .unwrap_or(d)
            .eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => {
            ip.is_loopback()
                || ip
                    .to_ipv4_mapped()
                    .is_some_and(|v4: Ipv4Addr| v4.is_loopback())
        }
        None => false,
    }
}

/// The scheme policy for one URL: `https` always, `http` to loopback or when allowed.
pub fn check_scheme(url: &Url, allow_http: bool) -> Result<(), SchemeRefused> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if allow_http || is_loopback(url) => Ok(()),
        "http" => Err(SchemeRefused::PlainHttp {
            host: url.host_str().unwrap_or("?").to_owned(),
        }),
        other => Err(SchemeRefused::Unsupported {
            scheme: other.to_owned(),
        }),
    }
}

/// How [`SchemeRefused::PlainHttp`]'s message ends: what would change the decision, in words
/// (a front end may replace it with its own switch's name).
pub const PLAIN_HTTP_NOTE: &str =
    "HTTPS is required; plain HTTP to other hosts must be allowed explicitly";

/// Why [`check_scheme`] refuses a URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemeRefused {
    /// `http://` to a host that is not loopback while plain HTTP is not allowed (the
    /// `allow_http` argument).
    #[error("refusing plain HTTP to non-loopback host {host} ({PLAIN_HTTP_NOTE})")]
    PlainHttp {
        /// The URL's host (`?` when it has none).
        host: String,
    },
    /// A scheme other than `https` and `http` (`file`, `ftp`, ...), never fetched.
    #[error("unsupported URL scheme {scheme:?} (only https and http)")]
    Unsupported {
        /// The scheme.
        scheme: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn loopback_is_decided_from_the_parsed_host() {
        for ok in [
            "http://localhost:1/",
            "http://LOCALHOST./",
            "http://127.0.0.1/",
            "http://127.255.0.9/",
            "http://127.1/",
            "http://0x7f.1/",
            "http://[::1]:8080/",
            "http://[::ffff:127.0.0.1]/",
        ] {
            assert!(is_loopback(&u(ok)), "{ok}");
        }
        for no in [
            "http://127.0.0.1.example.com/",
            "http://localhost.example.com/",
            "http://a.localhost/",
            "http://localhost@evil.example/",
            "http://evil.example/?localhost",
            "http://128.0.0.1/",
            "http://[::2]/",
            "http://10.0.0.1/",
            "http://example.com/127.0.0.1",
        ] {
            assert!(!is_loopback(&u(no)), "{no}");
        }
    }

    #[test]
    fn scheme_policy() {
        assert!(check_scheme(&u("https://example.com/"), false).is_ok());
        assert_eq!(
            check_scheme(&u("http://example.com/"), false),
            Err(SchemeRefused::PlainHttp {
                host: "example.com".into()
            })
        );
        assert_eq!(
            check_scheme(&u("http://example.com/"), false)
                .unwrap_err()
                .to_string(),
            "refusing plain HTTP to non-loopback host example.com (HTTPS is required; plain \
             HTTP to other hosts must be allowed explicitly)"
        );
        assert!(check_scheme(&u("http://example.com/"), true).is_ok());
        assert!(check_scheme(&u("http://127.0.0.1:9/"), false).is_ok());
        assert_eq!(
            check_scheme(&u("ftp://127.0.0.1/"), true),
            Err(SchemeRefused::Unsupported {
                scheme: "ftp".into()
            })
        );
        assert!(check_scheme(&u("file:///etc/passwd"), true).is_err());
    }
}

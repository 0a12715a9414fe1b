//! Where credentials may go: the origins (scheme, host, port) that receive the bearer token
//! and the caller's extra headers. Every request is checked here, the first one and each
//! redirect hop alike, so an Agent Card that names an interface on another origin, or a
//! redirect to another origin, never carries the user's credentials there.

use std::fmt;
use std::sync::{Arc, Mutex};

use url::{Origin, Url};

use crate::{redact_str, TransportError};

/// The origin of an agent URL or of an `--allow-credentials-to` value: an absolute http(s)
/// URL, of which only scheme, host and port count (`https://h` and `https://h:443/x` are the
/// same origin).
pub fn origin_of(s: &str) -> Result<Origin, TransportError> {
    let url = Url::parse(s.trim()).map_err(|e| {
        TransportError::BadUrl(format!(
            "{:?} is not an origin: expected scheme://host[:port] ({e})",
            redact_str(s)
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(TransportError::BadUrl(format!(
            "{:?} is not an http or https origin",
            redact_str(s)
        )));
    }
    Ok(url.origin())
}

/// Told once per origin that a request went there without the credentials (the token and
/// the extra headers), with that origin as `scheme://host:port`. Cheap to clone.
#[derive(Clone)]
pub struct Withheld(Arc<dyn Fn(&str) + Send + Sync>);

impl Withheld {
    /// A notice calling `f` with each origin that was refused the credentials.
    pub fn new(f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }
}

impl fmt::Debug for Withheld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Withheld")
    }
}

/// The per-transport half of the rule: the allowed origins and which refused origins were
/// already reported (a card's other origin is named once, not on every poll).
#[derive(Debug)]
pub(crate) struct Scope {
    allowed: Vec<Origin>,
    notice: Option<Withheld>,
    told: Mutex<Vec<Origin>>,
}

impl Scope {
    pub(crate) fn new(allowed: Vec<Origin>, notice: Option<Withheld>) -> Self {
        Self {
            allowed,
            notice,
            told: Mutex::new(Vec::new()),
        }
    }

    /// Whether a request to `url` carries the credentials; reports the origin the first time
    /// it does not.
    pub(crate) fn admits(&self, url: &Url) -> bool {
        let origin = url.origin();
        if origin.is_tuple() && self.allowed.contains(&origin) {
            return true;
        }
        if let Some(notice) = &self.notice {
            // A poisoned lock only guards the list of origins already named.
            let mut told = match self.told.lock() {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
            if !told.contains(&origin) {
                told.push(origin.clone());
                (notice.0)(&origin.ascii_serialization());
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_scheme_host_and_port() {
        let a = origin_of("https://agent.example").unwrap();
        assert_eq!(a, origin_of("https://agent.example:443/a2a/x?y").unwrap());
        assert_ne!(a, origin_of("http://agent.example").unwrap());
        assert_ne!(a, origin_of("https://agent.example:8443").unwrap());
        assert!(origin_of("agent.example").is_err());
        assert!(origin_of("ftp://agent.example").is_err());
        let e = origin_of("ftp://user:pw@h").unwrap_err();
        assert!(!e.to_string().contains("pw"), "{e}");
    }

    #[test]
    fn another_origin_is_refused_and_named_once() {
        let named = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&named);
        let scope = Scope::new(
            vec![origin_of("http://127.0.0.1:1").unwrap()],
            Some(Withheld::new(move |o| {
                sink.lock().unwrap().push(o.to_owned())
            })),
        );
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(scope.admits(&u("http://127.0.0.1:1/rpc")));
        assert!(!scope.admits(&u("http://127.0.0.1:2/rpc")));
        assert!(!scope.admits(&u("http://127.0.0.1:2/other")));
        assert!(!scope.admits(&u("http://localhost:1/rpc")));
        assert_eq!(
            *named.lock().unwrap(),
            vec!["http://127.0.0.1:2", "http://localhost:1"]
        );
    }
}

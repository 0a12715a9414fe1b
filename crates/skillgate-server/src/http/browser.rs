//! What keeps a web page from driving the agent through a visitor's browser: the `Host` check
//! (a DNS-rebinding page reaches a loopback agent under its own name) and the `Origin` check
//! (a cross-site request carries its page's origin), with CORS answers for allowed origins.
//! JSON content types on POST are required by the bindings themselves (`body.rs`, `jsonrpc.rs`).

use super::refusal::Dialect;
use axum::extract::Request;
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use skillgate_a2a::HttpRefusal;
use std::collections::BTreeSet;
use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;

/// The allowed `Host` names and browser origins.
#[derive(Clone, Debug)]
pub(crate) struct BrowserPolicy {
    /// `None`: any host (`allow_any_host`).
    hosts: Option<Arc<BTreeSet<String>>>,
    origins: Arc<BTreeSet<String>>,
    /// The origins of the served URLs: the agent's own pages (the console) call from these.
    own: Arc<BTreeSet<String>>,
}

/// Headers a browser may send on an allowed cross-origin call.
const ALLOW_HEADERS: &str = "authorization, content-type, a2a-version, a2a-extensions";
/// Headers a page may read from the answer.
const EXPOSE_HEADERS: &str = "a2a-extensions, www-authenticate, retry-after";

impl BrowserPolicy {
    /// Hosts: `localhost`, any IP address (a rebinding page cannot be served from an IP
    /// literal of the victim's machine), and the hosts of `urls` (the advertised base URL and
    /// the public URL); `None` when any host is allowed.
    /// Requests from the agent's own origin (the served URLs' origins, or, while the Host
    /// check is on, the origin naming the checked `Host`) are same-origin and always allowed.
    pub(crate) fn new(allow_any_host: bool, urls: &[&str], origins: &[String]) -> Self {
        let hosts = (!allow_any_host).then(|| {
            let mut h = BTreeSet::from(["localhost".to_string()]);
            for u in urls {
                if let Some(name) = url::Url::parse(u)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
                {
                    h.insert(
                        name.trim_start_matches('[')
                            .trim_end_matches(']')
                            .to_string(),
                    );
                }
            }
            Arc::new(h)
        });
        let origins = origins.iter().map(|o| normalize_origin(o)).collect();
        let own = urls
            .iter()
            .filter_map(|u| url::Url::parse(u).ok())
            .map(|u| normalize_origin(&u.origin().ascii_serialization()))
            .collect();
        Self {
            hosts,
            origins: Arc::new(origins),
            own: Arc::new(own),
        }
    }

    /// Whether `origin` is the agent's own: a served URL's origin, or `http(s)://` + the
    /// request's `Host` when the Host check is on. Without the Host check the second form
    /// would let a DNS-rebinding page (whose origin names the attacker's host, which it also
    /// sends as `Host`) pass as same-origin, so it then counts only the served URLs.
    fn same_origin(&self, origin: &str, host: Option<&str>) -> bool {
        let origin = normalize_origin(origin);
        if self.own.contains(&origin) {
            return true;
        }
        let (Some(_), Some(host)) = (&self.hosts, host) else {
            return false;
        };
        let authority = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        authority.is_some_and(|a| a == host.trim().to_ascii_lowercase())
    }

    fn host_allowed(&self, host: &str) -> bool {
        let Some(hosts) = &self.hosts else {
            return true;
        };
        let name = host_name(host);
        name.parse::<IpAddr>().is_ok() || hosts.contains(&name)
    }
}

/// The server's `Host` and `Origin` checks for another local web UI (`skillgate inspect`):
/// a request must name one of the UI's own hosts (its address, `localhost`, an IP literal)
/// and, when it carries an `Origin`, come from the UI's own origin. No origin is ever
/// allowed cross-origin, so no CORS answer exists.
#[derive(Clone, Debug)]
pub struct OriginGuard(BrowserPolicy);

impl OriginGuard {
    /// The guard of a UI served at `own_urls` (absolute URLs; their hosts and origins are the
    /// UI's own).
    pub fn new(own_urls: &[&str]) -> Self {
        Self(BrowserPolicy::new(false, own_urls, &[]))
    }

    /// `Err` with the reason when the request must be refused (answer 403).
    pub fn check(&self, headers: &axum::http::HeaderMap) -> Result<(), OriginRefused> {
        let hosts: Vec<&HeaderValue> = headers.get_all(header::HOST).iter().collect();
        if hosts.len() > 1 {
            return Err(OriginRefused::ManyHosts);
        }
        let host = hosts.first().map(|h| h.to_str().unwrap_or(""));
        if let Some(h) = host {
            if !self.0.host_allowed(h) {
                return Err(OriginRefused::ForeignHost { host: h.to_owned() });
            }
        }
        match headers.get(header::ORIGIN) {
            None => Ok(()),
            Some(o) => {
                let shown = o.to_str().unwrap_or("<not text>");
                if self.0.same_origin(shown, host) {
                    Ok(())
                } else {
                    Err(OriginRefused::ForeignOrigin {
                        origin: shown.to_owned(),
                    })
                }
            }
        }
    }
}

/// Why [`OriginGuard::check`] refuses a request. The message is meant for the refused
/// client, so it says what is wrong with the request and nothing about how the guard is
/// configured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OriginRefused {
    /// More than one `Host` header: which one names the server is ambiguous.
    #[error("send exactly one Host header")]
    ManyHosts,
    /// The `Host` header names a host that is not one of the UI's own (DNS rebinding looks
    /// like this).
    #[error("the Host header names {host:?}, which this server does not serve")]
    ForeignHost {
        /// The `Host` header's value (empty when it is not text).
        host: String,
    },
    /// The `Origin` header names another origin: a page elsewhere sent the request.
    #[error("requests from other web pages are refused: Origin {origin:?} is not this server's")]
    ForeignOrigin {
        /// The `Origin` header's value (`<not text>` when it is not text).
        origin: String,
    },
}

/// An origin as browsers send it: lower case, no trailing slash.
fn normalize_origin(o: &str) -> String {
    o.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// The host name of a `Host` header value: lower case, port and IPv6 brackets removed.
fn host_name(host: &str) -> String {
    let h = host.trim().to_ascii_lowercase();
    if let Some(rest) = h.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("").to_string();
    }
    match h.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name.to_string(),
        _ => h,
    }
    .trim_end_matches('.')
    .to_string()
}

/// The layer: refuses a foreign `Host` or `Origin` with 403, answers an allowed origin's
/// preflight and adds the CORS headers to its answers.
pub(crate) async fn layer<F: Future<Output = Response>>(
    policy: &BrowserPolicy,
    req: Request,
    next: impl FnOnce(Request) -> F,
) -> Response {
    // Refused in the dialect the request speaks (a 0.3 client reads 0.3 bodies); decided
    // only when refusing.
    let dialect = || Dialect::of(req.uri(), req.headers());
    let hosts: Vec<&HeaderValue> = req.headers().get_all(header::HOST).iter().collect();
    if hosts.len() > 1 {
        return dialect().refuse(
            HttpRefusal::BadRequest,
            "send exactly one Host header".to_owned(),
        );
    }
    if let Some(h) = hosts.first() {
        let host = h.to_str().unwrap_or("");
        if !policy.host_allowed(host) {
            return dialect().refuse(HttpRefusal::Forbidden, format!(
                "the Host header names {host:?}, which this server does not serve (requests must name its address, localhost or its public URL's host)"
            ));
        }
    }
    let Some(origin) = req.headers().get(header::ORIGIN).cloned() else {
        return next(req).await;
    };
    let shown = origin.to_str().unwrap_or("<not text>").to_owned();
    let host = hosts.first().and_then(|h| h.to_str().ok());
    if policy.same_origin(&shown, host) {
        // The agent's own page (the console): no CORS answer is needed or given.
        return next(req).await;
    }
    if !policy.origins.contains(&normalize_origin(&shown)) {
        return dialect().refuse(
            HttpRefusal::Forbidden,
            format!("requests from browser pages are refused: Origin {shown:?} is not allowed"),
        );
    }
    let preflight = req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let mut resp = if preflight {
        let mut r = StatusCode::NO_CONTENT.into_response();
        let h = r.headers_mut();
        h.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST"),
        );
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(ALLOW_HEADERS),
        );
        h.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
        r
    } else {
        next(req).await
    };
    let h = resp.headers_mut();
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    h.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSE_HEADERS),
    );
    h.append(header::VARY, HeaderValue::from_static("origin"));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names() {
        assert_eq!(host_name("Example.COM:8080"), "example.com");
        assert_eq!(host_name("[::1]:7420"), "::1");
        assert_eq!(host_name("localhost."), "localhost");
        let p = BrowserPolicy::new(false, &["http://agent.example:7420/"], &[]);
        assert!(p.host_allowed("agent.example"));
        assert!(p.host_allowed("[::1]:1"));
        assert!(p.host_allowed("10.0.0.7:7420"));
        assert!(!p.host_allowed("rebind.example:7420"));
        assert!(BrowserPolicy::new(true, &[], &[]).host_allowed("rebind.example"));
    }

    #[test]
    fn origin_guard() {
        let g = OriginGuard::new(&["http://127.0.0.1:7421"]);
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut h = axum::http::HeaderMap::new();
            for (k, v) in pairs {
                h.append(*k, HeaderValue::from_static(v));
            }
            h
        };
        assert!(g.check(&headers(&[("host", "127.0.0.1:7421")])).is_ok());
        assert!(g
            .check(&headers(&[
                ("host", "127.0.0.1:7421"),
                ("origin", "http://127.0.0.1:7421")
            ]))
            .is_ok());
        assert_eq!(
            g.check(&headers(&[("host", "rebind.example:7421")])),
            Err(OriginRefused::ForeignHost {
                host: "rebind.example:7421".into()
            })
        );
        assert_eq!(
            g.check(&headers(&[
                ("host", "127.0.0.1:7421"),
                ("origin", "https://evil.example")
            ])),
            Err(OriginRefused::ForeignOrigin {
                origin: "https://evil.example".into()
            })
        );
        assert_eq!(
            g.check(&headers(&[
                ("host", "127.0.0.1:7421"),
                ("host", "127.0.0.1:7421")
            ])),
            Err(OriginRefused::ManyHosts)
        );
    }

    #[test]
    fn same_origin() {
        let p = BrowserPolicy::new(false, &["http://127.0.0.1:7420"], &[]);
        assert!(p.same_origin("http://127.0.0.1:7420", Some("127.0.0.1:7420")));
        assert!(p.same_origin("http://127.0.0.1:7420", None));
        assert!(p.same_origin("http://localhost:7420", Some("localhost:7420")));
        assert!(p.same_origin("HTTP://LOCALHOST:7420/", Some("LocalHost:7420")));
        // Another port, another host or a foreign page are not the agent's origin.
        assert!(!p.same_origin("http://127.0.0.1:9999", Some("127.0.0.1:7420")));
        assert!(!p.same_origin("http://evil.example", Some("127.0.0.1:7420")));
        assert!(!p.same_origin("null", Some("127.0.0.1:7420")));
        // Without the Host check, a rebinding page's Origin matches its own Host: refused.
        let any = BrowserPolicy::new(true, &["http://127.0.0.1:7420"], &[]);
        assert!(!any.same_origin("http://rebind.example:7420", Some("rebind.example:7420")));
        assert!(any.same_origin("http://127.0.0.1:7420", Some("rebind.example:7420")));
    }
}

//! Bounded HTTP over reqwest: one client per transport, the scheme policy and the credential
//! origins on the first request and on every redirect, body limits enforced while the body
//! streams in.

use std::sync::Arc;
use std::time::Instant;

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, LOCATION};
use skillgate_a2a::version::WireVersion;
use url::Url;

use crate::origin::Scope;
use crate::{
    check_scheme, redact, SseEvent, SseParser, TraceEvent, TransportConfig, TransportError,
};

pub use reqwest::StatusCode;

/// A response read whole within its limit.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status.
    pub status: StatusCode,
    /// `Content-Type`, lower-cased, without parameters (empty if absent).
    pub content_type: String,
    /// Every `A2A-Extensions` value of the response joined with `,`; `None` if absent.
    pub extensions: Option<String>,
    /// The URL that answered (after redirects).
    pub url: Url,
    /// The body.
    pub bytes: Vec<u8>,
}

/// An open response whose body is read in bounded chunks (event streams).
pub struct Streaming {
    /// HTTP status.
    pub status: StatusCode,
    /// `Content-Type`, lower-cased, without parameters.
    pub content_type: String,
    /// Every `A2A-Extensions` value of the response joined with `,`; `None` if absent.
    pub extensions: Option<String>,
    /// The URL that answered (after redirects).
    pub url: Url,
    source: Source,
    limit: usize,
    read: usize,
    parser: SseParser,
    finished: bool,
}

/// Where a [`Streaming`] body comes from.
enum Source {
    /// An HTTP response body.
    Http(reqwest::Response),
    /// A gRPC server stream, each message re-framed as one server-sent event of its
    /// ProtoJSON form, so every reader decodes both bindings the same way.
    Grpc(crate::grpc::EventSource),
    /// A body known whole (a gRPC refusal before streaming, a translated 0.3 answer),
    /// handed out once.
    Whole(Option<Vec<u8>>),
    /// An A2A 0.3 event stream, each event translated to its 1.0 form as it arrives.
    V03(crate::v03::V03Events),
}

impl std::fmt::Debug for Streaming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streaming")
            .field("status", &self.status)
            .field("content_type", &self.content_type)
            .field("read", &self.read)
            .finish_non_exhaustive()
    }
}

impl Streaming {
    /// Whether the answer is an event stream (an error found before streaming starts comes
    /// back as a plain JSON body instead).
    pub fn is_event_stream(&self) -> bool {
        self.content_type == skillgate_a2a::MEDIA_TYPE_EVENT_STREAM
    }

    /// The next chunk, or `None` at the end; fails once the total exceeds the limit.
    pub async fn chunk(&mut self) -> Result<Option<Vec<u8>>, TransportError> {
        let next = match &mut self.source {
            Source::Http(response) => match response.chunk().await {
                Ok(c) => c.map(|c| c.to_vec()),
                Err(e) => return Err(reqwest_error(e)),
            },
            Source::Grpc(events) => events.next_event(&self.url).await?,
            Source::Whole(body) => body.take(),
            Source::V03(events) => events.next_chunk(&self.url).await?,
        };
        if let Some(c) = &next {
            self.read = self.read.saturating_add(c.len());
            if self.read > self.limit {
                return Err(TransportError::TooLarge {
                    limit: self.limit,
                    url: redact(&self.url),
                });
            }
        }
        Ok(next)
    }

    /// A gRPC answer as an open response: an event stream of `events`, or `whole` (a refusal
    /// before streaming, in the HTTP+JSON error shape) with `status`.
    pub(crate) fn from_grpc(
        url: Url,
        outcome: Result<crate::grpc::EventSource, Reply>,
        extensions: Option<String>,
        limit: usize,
    ) -> Self {
        let (status, content_type, source) = match outcome {
            Ok(events) => (
                StatusCode::OK,
                skillgate_a2a::MEDIA_TYPE_EVENT_STREAM.to_owned(),
                Source::Grpc(events),
            ),
            Err(reply) => (
                reply.status,
                reply.content_type,
                Source::Whole(Some(reply.bytes)),
            ),
        };
        Streaming {
            status,
            content_type,
            extensions,
            url,
            source,
            limit,
            read: 0,
            parser: SseParser::default(),
            finished: false,
        }
    }

    /// A reply known whole, handed out as the body of an open response.
    pub(crate) fn from_reply(reply: Reply, limit: usize) -> Self {
        Streaming {
            status: reply.status,
            content_type: reply.content_type,
            extensions: reply.extensions,
            url: reply.url,
            source: Source::Whole(Some(reply.bytes)),
            limit,
            read: 0,
            parser: SseParser::default(),
            finished: false,
        }
    }

    /// This open HTTP event stream, read from now on as a 0.3 stream translated to 1.0
    /// events (`rest`: 0.3 HTTP+JSON events, else 0.3 JSON-RPC ones). Any other source is
    /// left as it is (only HTTP carries these dialects).
    pub(crate) fn into_v03_events(mut self, rest: bool) -> Self {
        let source = std::mem::replace(&mut self.source, Source::Whole(None));
        self.source = match source {
            Source::Http(response) => {
                Source::V03(crate::v03::V03Events::new(response, self.limit, rest))
            }
            other => other,
        };
        self
    }

    /// The next batch of server-sent events (never empty), or `None` at the end of the stream.
    pub async fn events(&mut self) -> Result<Option<Vec<SseEvent>>, TransportError> {
        while !self.finished {
            let events = match self.chunk().await? {
                Some(c) => self.parser.push(&c),
                None => {
                    self.finished = true;
                    self.parser.finish()
                }
            };
            if !events.is_empty() {
                return Ok(Some(events));
            }
        }
        Ok(None)
    }

    /// Reads the remaining body within the limit.
    pub async fn rest(mut self) -> Result<Reply, TransportError> {
        let mut bytes = Vec::new();
        while let Some(c) = self.chunk().await? {
            bytes.extend_from_slice(&c);
        }
        Ok(Reply {
            status: self.status,
            content_type: self.content_type,
            extensions: self.extensions,
            url: self.url,
            bytes,
        })
    }
}

/// The bounded HTTP client shared by every exchange of one run. Cheap to clone.
#[derive(Clone)]
pub struct Transport {
    client: reqwest::Client,
    config: Arc<TransportConfig>,
    scope: Arc<Scope>,
}

/// One request as each redirect hop sends it: a redirect may change the URL, and (303, or
/// 301/302 after a POST) turn it into a body-less GET; the headers are chosen again for every
/// hop, so credentials never follow a redirect to another origin.
struct Outgoing {
    method: reqwest::Method,
    url: Url,
    accept: String,
    content_type: Option<String>,
    activate: bool,
    /// The dialect the request is written in, which picks the version and extension headers.
    version: WireVersion,
    body: Option<Vec<u8>>,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport").finish_non_exhaustive()
    }
}

/// reqwest's own `Display` is generic ("error sending request"); the source chain holds the
/// actual reason (the redirect policy's message, the connection error, ...). The URL is taken
/// out of the error and shown redacted.
pub(crate) fn reqwest_error(e: reqwest::Error) -> TransportError {
    let url = e.url().map(redact).unwrap_or_default();
    let timeout = e.is_timeout();
    let is_redirect = e.is_redirect();
    let connect = e.is_connect();
    let e = e.without_url();
    let mut chain = Vec::new();
    let mut refused = false;
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(&e);
    while let Some(s) = src {
        chain.push(s.to_string());
        refused |= s
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused);
        src = s.source();
    }
    chain.dedup();
    if timeout {
        TransportError::Timeout { url }
    } else if is_redirect {
        TransportError::Redirect {
            reason: chain
                .last()
                .cloned()
                .unwrap_or_else(|| "redirect refused".to_owned()),
        }
    } else if connect {
        // The innermost reason ("Connection refused (os error 111)", a DNS or TLS failure)
        // is the one a user can act on; the outer layers only name reqwest's internals.
        TransportError::Connect {
            url,
            reason: if refused {
                crate::error::CONNECTION_REFUSED.to_owned()
            } else {
                chain
                    .last()
                    .cloned()
                    .unwrap_or_else(|| "connection failed".to_owned())
            },
        }
    } else {
        TransportError::Http {
            url,
            reason: if chain.is_empty() {
                e.to_string()
            } else {
                chain.join(": ")
            },
        }
    }
}

impl Outgoing {
    fn get(url: &Url, accept: &str, activate: bool) -> Self {
        Self {
            method: reqwest::Method::GET,
            url: url.clone(),
            accept: accept.to_owned(),
            content_type: None,
            activate,
            version: WireVersion::V1_0,
            body: None,
        }
    }
}

/// The redirects followed, as browsers and reqwest follow them (a 300 or 304 is an answer).
fn is_followed(status: StatusCode) -> bool {
    matches!(
        status,
        StatusCode::MOVED_PERMANENTLY
            | StatusCode::FOUND
            | StatusCode::SEE_OTHER
            | StatusCode::TEMPORARY_REDIRECT
            | StatusCode::PERMANENT_REDIRECT
    )
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    let values: Vec<&str> = headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    (!values.is_empty()).then(|| values.join(","))
}

fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

impl Transport {
    /// Builds the client; installs rustls' ring provider if none is installed yet.
    pub fn new(config: TransportConfig) -> Result<Self, TransportError> {
        let mut roots = Vec::new();
        for pem in &config.ca_certificates {
            let certs = reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| TransportError::Config(format!("not a PEM certificate: {e}")))?;
            if certs.is_empty() {
                return Err(TransportError::Config(
                    "no certificate in the PEM data".to_owned(),
                ));
            }
            roots.extend(certs);
        }
        // Redirects stay off (the platform base): `follow` takes them, picking the headers for
        // each hop, where reqwest would carry every extra header (all but `Authorization`) to
        // another origin.
        let client = skillgate_platform::http::client_builder("")
            .tls_certs_merge(roots)
            .connect_timeout(config.connect_timeout)
            .read_timeout(config.read_timeout)
            .timeout(config.timeout)
            .user_agent(config.user_agent.clone())
            .build()
            .map_err(|e| TransportError::Config(format!("cannot build the HTTP client: {e}")))?;
        let scope = Scope::new(config.credential_origins.clone(), config.withheld.clone());
        Ok(Self {
            client,
            config: Arc::new(config),
            scope: Arc::new(scope),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &TransportConfig {
        &self.config
    }

    /// Parses an absolute URL and applies this transport's scheme policy.
    pub fn parse_url(&self, s: &str) -> Result<Url, TransportError> {
        crate::parse_url(s, self.config.allow_http)
    }

    /// The headers of a request to `url` in the `version` dialect: the token and the extra
    /// headers only when `url` is on one of the credential origins. A 0.3 request says
    /// `A2A-Version: 0.3` (a pure 0.3 server ignores it, a 1.x server with 0.3 compatibility
    /// needs it) and activates the extension under both header names, since 0.3 servers read
    /// `X-A2A-Extensions` and newer ones `A2A-Extensions`.
    pub(crate) fn headers(
        &self,
        accept: &str,
        activate: bool,
        version: WireVersion,
        url: &Url,
    ) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Ok(v) = HeaderValue::from_str(accept) {
            h.insert(ACCEPT, v);
        }
        let version_text = match version {
            WireVersion::V1_0 => skillgate_a2a::PROTOCOL_VERSION,
            WireVersion::V0_3 => WireVersion::V0_3.as_str(),
        };
        h.insert(
            skillgate_a2a::A2A_VERSION_HEADER,
            HeaderValue::from_static(version_text),
        );
        if activate {
            h.insert(
                skillgate_a2a::A2A_EXTENSIONS_HEADER,
                HeaderValue::from_static(skillgate_core::wire::EXTENSION_URI),
            );
            if version == WireVersion::V0_3 {
                h.insert(
                    skillgate_a2a::A2A_EXTENSIONS_HEADER_V03,
                    HeaderValue::from_static(skillgate_core::wire::EXTENSION_URI),
                );
            }
        }
        if !self.config.has_credentials() || !self.scope.admits(url) {
            return h;
        }
        if let Some(token) = &self.config.token {
            if let Ok(mut v) = HeaderValue::from_str(&format!("Bearer {}", token.expose())) {
                v.set_sensitive(true);
                h.insert(AUTHORIZATION, v);
            }
        }
        for extra in &self.config.headers {
            h.remove(extra.parts().0);
        }
        for extra in &self.config.headers {
            let (name, value) = extra.parts();
            h.append(name.clone(), value.clone());
        }
        h
    }

    /// Sends `out`, following redirects: each hop is re-checked against the scheme policy and
    /// counted, and gets its own headers (see [`Transport::headers`]).
    async fn follow(&self, mut out: Outgoing) -> Result<reqwest::Response, TransportError> {
        // `timeout` bounds the whole request, as it did when reqwest followed redirects: each
        // hop (and the final body) gets only what is left of it.
        let deadline = Instant::now() + self.config.timeout;
        let mut hops = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(TransportError::Timeout {
                    url: redact(&out.url),
                });
            }
            let mut headers = self.headers(&out.accept, out.activate, out.version, &out.url);
            if let Some(v) = out
                .content_type
                .as_deref()
                .and_then(|c| HeaderValue::from_str(c).ok())
            {
                headers.insert(CONTENT_TYPE, v);
            }
            let mut request = self
                .client
                .request(out.method.clone(), out.url.clone())
                .headers(headers)
                .timeout(left);
            if let Some(body) = &out.body {
                request = request.body(body.clone());
            }
            let response = request.send().await.map_err(reqwest_error)?;
            let status = response.status();
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok());
            let (true, Some(location)) = (is_followed(status), location) else {
                return Ok(response);
            };
            let next = out
                .url
                .join(location)
                .map_err(|e| TransportError::Redirect {
                    reason: format!("redirect to an unusable location ({e})"),
                })?;
            hops += 1;
            if hops > self.config.max_redirects {
                return Err(TransportError::Redirect {
                    reason: format!("more than {} redirects", self.config.max_redirects),
                });
            }
            check_scheme(&next, self.config.allow_http).map_err(|e| TransportError::Redirect {
                reason: format!("redirect refused: {e}"),
            })?;
            if status == StatusCode::SEE_OTHER
                || (out.method == reqwest::Method::POST
                    && matches!(status, StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND))
            {
                out.method = reqwest::Method::GET;
                out.body = None;
                out.content_type = None;
            }
            out.url = next;
        }
    }

    async fn open(
        &self,
        method: &'static str,
        out: Outgoing,
        limit: usize,
    ) -> Result<Streaming, TransportError> {
        let url = out.url.clone();
        let version = out.version;
        check_scheme(&url, self.config.allow_http)
            .map_err(|e| TransportError::Refused(e.to_string()))?;
        let started = Instant::now();
        let sent = self.follow(out).await;
        if let Some(trace) = &self.config.trace {
            trace.emit(&TraceEvent {
                method,
                url: redact(&url),
                outcome: match &sent {
                    Ok(r) => Ok(r.status().as_u16()),
                    Err(e) => Err(e.to_string()),
                },
                elapsed: started.elapsed(),
            });
        }
        let response = sent?;
        let final_url = response.url().clone();
        if let Some(len) = response.content_length() {
            if len > limit as u64 {
                return Err(TransportError::TooLarge {
                    limit,
                    url: redact(&final_url),
                });
            }
        }
        let mut extensions = header_text(response.headers(), skillgate_a2a::A2A_EXTENSIONS_HEADER);
        if version == WireVersion::V0_3 {
            // A 0.3 server echoes activation under the 0.3 name; both count.
            let v03 = header_text(response.headers(), skillgate_a2a::A2A_EXTENSIONS_HEADER_V03);
            extensions = match (extensions, v03) {
                (Some(a), Some(b)) => Some(format!("{a},{b}")),
                (a, b) => a.or(b),
            };
        }
        Ok(Streaming {
            status: response.status(),
            content_type: content_type(response.headers()),
            extensions,
            url: final_url,
            source: Source::Http(response),
            limit,
            read: 0,
            parser: SseParser::default(),
            finished: false,
        })
    }

    /// `GET` an Agent Card within the card limit (the extension is not activated). With
    /// `trusted_keys`, a card (a successful JSON answer) must carry a signature one of them
    /// verifies, else it is refused here, before any caller reads it.
    pub async fn get_card(&self, url: &Url) -> Result<Reply, TransportError> {
        let mut out = Outgoing::get(url, skillgate_a2a::MEDIA_TYPE_JSON, false);
        if self.config.a2a_version == crate::VersionChoice::Only(WireVersion::V0_3) {
            // A server of both versions picks the card by this header: a 0.3-only caller
            // reads (and a linter lints) the card 0.3 readers get.
            out.version = WireVersion::V0_3;
        }
        let reply = self
            .open("GET", out, self.config.card_limit)
            .await?
            .rest()
            .await?;
        if let (Some(keys), true) = (&self.config.trusted_keys, reply.status.is_success()) {
            // A body that is not JSON is left to the caller, which refuses it anyway.
            if let Ok(card) = skillgate_core::jcs::parse_strict(&reply.bytes) {
                skillgate_sign::verify(&card, keys).map_err(|e| TransportError::Untrusted {
                    url: crate::redact(url),
                    reason: e.to_string(),
                })?;
            }
        }
        Ok(reply)
    }

    /// `GET` a resource and return the open response, bounded by the response limit.
    pub async fn get(
        &self,
        url: &Url,
        accept: &str,
        activate: bool,
    ) -> Result<Streaming, TransportError> {
        let out = Outgoing::get(url, accept, activate);
        self.open("GET", out, self.config.response_limit).await
    }

    /// `POST` a body and return the open response, bounded by the response limit.
    pub async fn post(
        &self,
        url: &Url,
        content_type: &str,
        accept: &str,
        activate: bool,
        body: Vec<u8>,
    ) -> Result<Streaming, TransportError> {
        self.post_as(WireVersion::V1_0, url, content_type, accept, activate, body)
            .await
    }

    /// `GET` in the `version` dialect (its headers, see [`Transport::headers`]).
    pub(crate) async fn get_as(
        &self,
        version: WireVersion,
        url: &Url,
        accept: &str,
        activate: bool,
    ) -> Result<Streaming, TransportError> {
        let out = Outgoing {
            version,
            ..Outgoing::get(url, accept, activate)
        };
        self.open("GET", out, self.config.response_limit).await
    }

    /// `DELETE` in the `version` dialect (its headers, see [`Transport::headers`]).
    pub(crate) async fn delete_as(
        &self,
        version: WireVersion,
        url: &Url,
        accept: &str,
        activate: bool,
    ) -> Result<Streaming, TransportError> {
        let out = Outgoing {
            method: reqwest::Method::DELETE,
            version,
            ..Outgoing::get(url, accept, activate)
        };
        self.open("DELETE", out, self.config.response_limit).await
    }

    /// `POST` in the `version` dialect (its headers, see [`Transport::headers`]).
    pub(crate) async fn post_as(
        &self,
        version: WireVersion,
        url: &Url,
        content_type: &str,
        accept: &str,
        activate: bool,
        body: Vec<u8>,
    ) -> Result<Streaming, TransportError> {
        let out = Outgoing {
            method: reqwest::Method::POST,
            url: url.clone(),
            accept: accept.to_owned(),
            content_type: Some(content_type.to_owned()),
            activate,
            version,
            body: Some(body),
        };
        self.open("POST", out, self.config.response_limit).await
    }
}

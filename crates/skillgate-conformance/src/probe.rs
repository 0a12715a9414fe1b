//! The bounded HTTP side of the checker: fetch a card, send one Data Part message over
//! JSON-RPC or HTTP+JSON, follow a non-terminal task with `GetTask`, and keep what the agent
//! answered as evidence. Every request has connect and overall timeouts, at most three
//! redirects and a body limit enforced while the body streams in.

use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use reqwest::redirect;
use serde_json::{json, Value};
use skillgate_a2a as a2a;
use skillgate_core::jcs::{parse_strict_with, ParseOptions};
use url::Url;

/// Bounds and credentials of a run.
#[derive(Debug, Clone)]
pub struct ProbeConfig {
    /// Time allowed to establish a connection.
    pub connect_timeout: Duration,
    /// Longest time one request may take, body included.
    pub request_timeout: Duration,
    /// Longest time a non-terminal task is followed with `GetTask`.
    pub task_deadline: Duration,
    /// Largest accepted Agent Card.
    pub card_limit: usize,
    /// Largest accepted response body.
    pub response_limit: usize,
    /// Deepest JSON nesting accepted in a response.
    pub max_depth: usize,
    /// Bearer token for `Authorization`.
    pub token: Option<String>,
    /// Permit plain `http://` to hosts that are not loopback.
    pub allow_http: bool,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            task_deadline: Duration::from_secs(30),
            card_limit: 1024 * 1024,
            response_limit: 4 * 1024 * 1024,
            max_depth: 128,
            token: None,
            allow_http: false,
        }
    }
}

/// A request that could not be completed at the HTTP level.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct TransportError(pub String);

/// The A2A binding probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// JSON-RPC 2.0 (`JSONRPC`).
    JsonRpc,
    /// HTTP+JSON (`HTTP+JSON`).
    HttpJson,
}

impl Binding {
    /// The `protocolBinding` string.
    pub fn as_str(self) -> &'static str {
        match self {
            Binding::JsonRpc => a2a::BINDING_JSONRPC,
            Binding::HttpJson => a2a::BINDING_HTTP_JSON,
        }
    }
}

/// A fetched body with its status and content type.
#[derive(Debug)]
pub struct Fetched {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type` without parameters, lower-cased.
    pub content_type: String,
    /// The body.
    pub bytes: Vec<u8>,
}

/// What the agent answered to one message.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// A Task (after following it to a terminal or interrupted state when possible).
    Task(a2a::Task),
    /// A direct Message instead of a Task.
    Message(a2a::Message),
    /// A protocol-level error (JSON-RPC error object or REST error body).
    ProtocolError {
        /// JSON-RPC code or HTTP status.
        code: i64,
        /// The error message.
        message: String,
    },
    /// The response could not be understood.
    Malformed(String),
}

/// One message exchange: what was sent and what came back.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The Data Part payload sent.
    pub sent: Value,
    /// HTTP status of the `SendMessage` response.
    pub http_status: u16,
    /// `A2A-Extensions` of the `SendMessage` response, if present.
    pub echoed_extensions: Option<String>,
    /// The decoded answer.
    pub outcome: Outcome,
    /// How many `GetTask` polls followed the answer.
    pub polls: usize,
}

impl Exchange {
    /// The task, if the answer was one.
    pub fn task(&self) -> Option<&a2a::Task> {
        match &self.outcome {
            Outcome::Task(t) => Some(t),
            _ => None,
        }
    }

    /// A short description of the answer for evidence lines.
    pub fn describe(&self) -> String {
        match &self.outcome {
            Outcome::Task(t) => {
                let names: Vec<String> = t
                    .artifacts
                    .iter()
                    .map(|a| format!("{:?}", a.name))
                    .collect();
                format!(
                    "HTTP {}: task {} in {} with {} artifact(s) [{}]",
                    self.http_status,
                    t.id,
                    t.status.state,
                    t.artifacts.len(),
                    names.join(", ")
                )
            }
            Outcome::Message(_) => {
                format!("HTTP {}: a direct Message, not a Task", self.http_status)
            }
            Outcome::ProtocolError { code, message } => format!(
                "HTTP {}: protocol error {code}: {}",
                self.http_status,
                clip(message, 200)
            ),
            Outcome::Malformed(m) => format!("HTTP {}: malformed answer: {m}", self.http_status),
        }
    }

    /// Whether the response echoed `uri` in `A2A-Extensions`.
    pub fn echoed(&self, uri: &str) -> bool {
        self.echoed_extensions
            .as_deref()
            .is_some_and(|h| h.split(',').any(|u| u.trim() == uri))
    }
}

/// Shortens a string for evidence, on a character boundary.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}

/// Compact JSON of a value, shortened for evidence.
pub fn show(v: &Value, max: usize) -> String {
    clip(&v.to_string(), max)
}

pub use skillgate_a2a::url_policy::check_scheme;

/// The bounded HTTP client of one run.
#[derive(Clone)]
pub struct Prober {
    client: reqwest::Client,
    config: ProbeConfig,
}

impl std::fmt::Debug for Prober {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prober").finish_non_exhaustive()
    }
}

fn reqwest_reason(e: &reqwest::Error) -> String {
    let mut parts = vec![if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        "connection failed".to_owned()
    } else {
        e.to_string()
    }];
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e);
    while let Some(s) = src {
        parts.push(s.to_string());
        src = s.source();
    }
    parts.dedup();
    parts.join(": ")
}

impl Prober {
    /// Builds the client (installing rustls' ring provider if none is installed yet).
    pub fn new(config: ProbeConfig) -> Result<Self, TransportError> {
        // Ignored error: another part of the process already installed a provider.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let allow_http = config.allow_http;
        let policy = redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > 3 {
                attempt.error("more than 3 redirects")
            } else if let Err(e) = check_scheme(attempt.url(), allow_http) {
                attempt.error(format!("redirect refused: {e}"))
            } else {
                attempt.follow()
            }
        });
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .redirect(policy)
            .user_agent(concat!("skillgate-conformance/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| TransportError(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self { client, config })
    }

    /// The configuration.
    pub fn config(&self) -> &ProbeConfig {
        &self.config
    }

    fn headers(&self, accept: &str, activate: bool) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Ok(v) = HeaderValue::from_str(accept) {
            h.insert(ACCEPT, v);
        }
        h.insert(
            a2a::A2A_VERSION_HEADER,
            HeaderValue::from_static(a2a::PROTOCOL_VERSION),
        );
        if activate {
            h.insert(
                a2a::A2A_EXTENSIONS_HEADER,
                HeaderValue::from_static(skillgate_core::wire::EXTENSION_URI),
            );
        }
        if let Some(t) = &self.config.token {
            if let Ok(mut v) = HeaderValue::from_str(&format!("Bearer {t}")) {
                v.set_sensitive(true);
                h.insert(AUTHORIZATION, v);
            }
        }
        h
    }

    async fn read(
        &self,
        req: reqwest::RequestBuilder,
        limit: usize,
    ) -> Result<(Fetched, Option<String>), TransportError> {
        let mut resp = req
            .send()
            .await
            .map_err(|e| TransportError(reqwest_reason(&e)))?;
        if resp.content_length().is_some_and(|n| n > limit as u64) {
            return Err(TransportError(format!(
                "response larger than the {limit} byte limit"
            )));
        }
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|v| v.trim().to_ascii_lowercase())
            .unwrap_or_default();
        let echo = resp
            .headers()
            .get_all(a2a::A2A_EXTENSIONS_HEADER)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect::<Vec<_>>();
        let echo = (!echo.is_empty()).then(|| echo.join(","));
        let mut bytes = Vec::new();
        while let Some(chunk) = resp
            .chunk()
            .await
            .map_err(|e| TransportError(reqwest_reason(&e)))?
        {
            if bytes.len() + chunk.len() > limit {
                return Err(TransportError(format!(
                    "response larger than the {limit} byte limit"
                )));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok((
            Fetched {
                status,
                content_type,
                bytes,
            },
            echo,
        ))
    }

    /// `GET` the Agent Card.
    pub async fn get_card(&self, url: &Url) -> Result<Fetched, TransportError> {
        check_scheme(url, self.config.allow_http).map_err(TransportError)?;
        let req = self
            .client
            .get(url.clone())
            .headers(self.headers(a2a::MEDIA_TYPE_JSON, false));
        Ok(self.read(req, self.config.card_limit).await?.0)
    }

    /// Strict I-JSON parse of a response body within the depth bound.
    pub fn parse(&self, bytes: &[u8]) -> Result<Value, String> {
        parse_strict_with(
            bytes,
            ParseOptions {
                max_depth: self.config.max_depth,
            },
        )
        .map_err(|e| e.to_string())
    }

    /// Sends one `ROLE_USER` message whose only part is a Data Part holding `payload`.
    pub async fn send_data(
        &self,
        binding: Binding,
        endpoint: &Url,
        payload: Value,
        activate: bool,
    ) -> Result<Exchange, TransportError> {
        let message = a2a::Message {
            message_id: new_message_id(),
            role: a2a::Role::User,
            parts: vec![a2a::Part::data(payload.clone())],
            ..Default::default()
        };
        let request = a2a::SendMessageRequest {
            tenant: String::new(),
            message,
            configuration: None,
            metadata: None,
        };
        let params = serde_json::to_value(&request)
            .map_err(|e| TransportError(format!("cannot encode the request: {e}")))?;
        let (fetched, echo) = match binding {
            Binding::JsonRpc => {
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": a2a::methods::SEND_MESSAGE, "params": params});
                self.post(endpoint.clone(), a2a::MEDIA_TYPE_JSON, &body, activate)
                    .await?
            }
            Binding::HttpJson => {
                let url = join(endpoint, "message:send")?;
                self.post(url, a2a::MEDIA_TYPE_A2A_JSON, &params, activate)
                    .await?
            }
        };
        let http_status = fetched.status;
        let outcome = self.decode_send(binding, &fetched);
        let mut exchange = Exchange {
            sent: payload,
            http_status,
            echoed_extensions: echo,
            outcome,
            polls: 0,
        };
        self.follow(binding, endpoint, &mut exchange).await;
        Ok(exchange)
    }

    async fn post(
        &self,
        url: Url,
        content_type: &'static str,
        body: &Value,
        activate: bool,
    ) -> Result<(Fetched, Option<String>), TransportError> {
        check_scheme(&url, self.config.allow_http).map_err(TransportError)?;
        let mut headers = self.headers(content_type, activate);
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        let req = self
            .client
            .post(url)
            .headers(headers)
            .body(body.to_string());
        self.read(req, self.config.response_limit).await
    }

    /// Follows a non-terminal, non-interrupted task with `GetTask` until the deadline.
    async fn follow(&self, binding: Binding, endpoint: &Url, exchange: &mut Exchange) {
        let started = Instant::now();
        let mut delay = Duration::from_millis(50);
        loop {
            let Outcome::Task(task) = &exchange.outcome else {
                return;
            };
            let state = task.status.state;
            if state.is_terminal() || state.is_interrupted() {
                return;
            }
            if started.elapsed() >= self.config.task_deadline {
                return;
            }
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(Duration::from_millis(500));
            let id = task.id.clone();
            match self.get_task(binding, endpoint, &id).await {
                Ok(Outcome::Task(t)) => {
                    exchange.outcome = Outcome::Task(t);
                    exchange.polls += 1;
                }
                // A broken GetTask leaves the last task seen as the evidence.
                _ => return,
            }
        }
    }

    async fn get_task(
        &self,
        binding: Binding,
        endpoint: &Url,
        id: &str,
    ) -> Result<Outcome, TransportError> {
        let fetched = match binding {
            Binding::JsonRpc => {
                let body = json!({"jsonrpc": "2.0", "id": 2, "method": a2a::methods::GET_TASK, "params": {"id": id}});
                self.post(endpoint.clone(), a2a::MEDIA_TYPE_JSON, &body, true)
                    .await?
                    .0
            }
            Binding::HttpJson => {
                let url = join(endpoint, &format!("tasks/{}", encode_segment(id)))?;
                check_scheme(&url, self.config.allow_http).map_err(TransportError)?;
                let req = self
                    .client
                    .get(url)
                    .headers(self.headers(a2a::MEDIA_TYPE_A2A_JSON, true));
                self.read(req, self.config.response_limit).await?.0
            }
        };
        let v = match self.parse(&fetched.bytes) {
            Ok(v) => v,
            Err(e) => return Ok(Outcome::Malformed(format!("GetTask body: {e}"))),
        };
        let result = match binding {
            Binding::JsonRpc => match rpc_result(v) {
                Ok(r) => r,
                Err(o) => return Ok(*o),
            },
            Binding::HttpJson => v,
        };
        Ok(match serde_json::from_value::<a2a::Task>(result) {
            Ok(t) => Outcome::Task(t),
            Err(e) => Outcome::Malformed(format!("GetTask result is not a Task: {e}")),
        })
    }

    fn decode_send(&self, binding: Binding, fetched: &Fetched) -> Outcome {
        let v = match self.parse(&fetched.bytes) {
            Ok(v) => v,
            Err(e) => {
                return Outcome::Malformed(format!(
                    "body ({}) is not strict JSON: {e}",
                    if fetched.content_type.is_empty() {
                        "no content type"
                    } else {
                        &fetched.content_type
                    }
                ))
            }
        };
        let result = match binding {
            Binding::JsonRpc => match rpc_result(v) {
                Ok(r) => r,
                Err(o) => return *o,
            },
            Binding::HttpJson => {
                if !(200..300).contains(&fetched.status) {
                    let message = v
                        .pointer("/error/message")
                        .and_then(Value::as_str)
                        .unwrap_or("(no error.message)")
                        .to_owned();
                    return Outcome::ProtocolError {
                        code: i64::from(fetched.status),
                        message,
                    };
                }
                v
            }
        };
        match serde_json::from_value::<a2a::SendMessageResponse>(result) {
            Ok(a2a::SendMessageResponse::Task(t)) => Outcome::Task(t),
            Ok(a2a::SendMessageResponse::Message(m)) => Outcome::Message(m),
            Err(e) => Outcome::Malformed(format!("not a SendMessageResponse: {e}")),
        }
    }
}

/// The `result` of a JSON-RPC response, or the outcome an error / bad envelope means.
fn rpc_result(v: Value) -> Result<Value, Box<Outcome>> {
    match a2a::JsonRpcResponse::from_value(v) {
        Ok(r) => match r.outcome {
            Ok(result) => Ok(result),
            Err(e) => Err(Box::new(Outcome::ProtocolError {
                code: i64::from(e.code),
                message: e.message,
            })),
        },
        Err(e) => Err(Box::new(Outcome::Malformed(format!(
            "not a JSON-RPC response: {e}"
        )))),
    }
}

/// Appends a relative path to an interface URL, keeping the interface path as a prefix.
pub fn join(base: &Url, rel: &str) -> Result<Url, TransportError> {
    let mut s = base.as_str().trim_end_matches('/').to_owned();
    s.push('/');
    s.push_str(rel);
    Url::parse(&s).map_err(|e| TransportError(format!("cannot build {s:?}: {e}")))
}

fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn new_message_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "skillgate-conformance-{nanos:x}-{}",
        N.fetch_add(1, Ordering::Relaxed)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_keeps_the_interface_path() {
        let b = Url::parse("http://127.0.0.1:9/a2a/").unwrap();
        assert_eq!(
            join(&b, "message:send").unwrap().as_str(),
            "http://127.0.0.1:9/a2a/message:send"
        );
        let b = Url::parse("http://127.0.0.1:9").unwrap();
        assert_eq!(
            join(&b, "tasks/x").unwrap().as_str(),
            "http://127.0.0.1:9/tasks/x"
        );
    }

    #[test]
    fn scheme_policy_is_decided_on_the_host() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(check_scheme(&u("http://127.0.0.1:1/"), false).is_ok());
        assert!(check_scheme(&u("http://[::1]:1/"), false).is_ok());
        assert!(check_scheme(&u("http://localhost/"), false).is_ok());
        assert!(check_scheme(&u("http://127.0.0.1.example.com/"), false).is_err());
        assert!(check_scheme(&u("http://example.com/"), true).is_ok());
        assert!(check_scheme(&u("file:///etc/passwd"), true).is_err());
    }

    #[test]
    fn segments_are_percent_encoded() {
        assert_eq!(encode_segment("a/b c"), "a%2Fb%20c");
    }
}

//! The checker's side of the shared transport (`skillgate-transport`): fetch a card, send one
//! Data Part message over JSON-RPC or HTTP+JSON, follow a non-terminal task with `GetTask`,
//! and keep what the agent answered as evidence. The transport bounds every request
//! (timeouts, redirects re-checked against the scheme policy, body limits while the body
//! streams in); this module records, it does not judge.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use skillgate_a2a as a2a;
use skillgate_a2a::version::WireVersion;
use skillgate_core::jcs::{parse_strict_with, JcsError, ParseOptions};
use skillgate_transport::{fresh_id, Endpoint, Interface, Reply, Transport, TransportConfig};
use url::Url;

pub use skillgate_transport::Binding;

/// The `User-Agent` of the checker's requests, so an agent's logs tell probes from calls.
pub const USER_AGENT: &str = concat!("skillgate-conformance/", env!("CARGO_PKG_VERSION"));

/// Bounds and credentials of a run: the transport's configuration as every other command
/// builds it (trusted card keys included), plus what only the checker needs.
#[derive(Debug, Clone)]
pub struct ProbeConfig {
    /// Bounds, scheme policy, credentials and trusted card keys of every request.
    pub transport: TransportConfig,
    /// Longest time a non-terminal task is followed with `GetTask`.
    pub task_deadline: Duration,
    /// Deepest JSON nesting accepted in a response.
    pub max_depth: usize,
}

impl ProbeConfig {
    /// The checker's configuration over `transport` (the bounds, credentials and trusted keys
    /// every command builds): each request is bounded as a whole by the transport's overall
    /// timeout (a stalled read is caught by that, so the read timeout is the same), requests
    /// name the checker ([`USER_AGENT`]) so an agent's logs tell probes from calls, and a
    /// non-terminal task is followed for as long as one request may take.
    pub fn from_transport(transport: TransportConfig) -> Self {
        Self {
            task_deadline: transport.timeout,
            transport: TransportConfig {
                read_timeout: transport.timeout,
                user_agent: USER_AGENT.to_owned(),
                ..transport
            },
            max_depth: 128,
        }
    }
}

impl Default for ProbeConfig {
    /// [`ProbeConfig::from_transport`] over the transport's defaults.
    fn default() -> Self {
        Self::from_transport(TransportConfig::default())
    }
}

/// A request that could not be completed at the HTTP level: the transport's own error, kept
/// typed so a caller can tell an untrusted card from an unreachable agent.
pub use skillgate_transport::TransportError;

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

pub use skillgate_transport::check_scheme;

/// The interface a run probes: binding, URL and the A2A version spoken to it.
#[derive(Debug, Clone)]
pub struct Probed {
    /// The binding.
    pub binding: Binding,
    /// The interface URL (for gRPC, `http://host:port`).
    pub url: Url,
    /// The dialect: 1.0, or 0.3 through the transport's translation.
    pub version: WireVersion,
}

/// The transport of one run, with the checker's bounds.
#[derive(Debug, Clone)]
pub struct Prober {
    transport: Transport,
    config: ProbeConfig,
    /// The first 401 or 403 a message exchange got (0: none), shared by clones.
    refused: Arc<AtomicU16>,
}

fn fetched(reply: Reply) -> (Fetched, Option<String>) {
    (
        Fetched {
            status: reply.status.as_u16(),
            content_type: reply.content_type,
            bytes: reply.bytes,
        },
        reply.extensions,
    )
}

impl Prober {
    /// Builds the transport (installing rustls' ring provider if none is installed yet).
    pub fn new(config: ProbeConfig) -> Result<Self, TransportError> {
        let transport = Transport::new(config.transport.clone())?;
        Ok(Self {
            transport,
            config,
            refused: Arc::new(AtomicU16::new(0)),
        })
    }

    /// The HTTP status (401 or 403) of the first message the agent refused for want of
    /// credentials, if any: the run then says nothing about conformance.
    pub fn auth_refused(&self) -> Option<u16> {
        match self.refused.load(Ordering::Relaxed) {
            0 => None,
            s => Some(s),
        }
    }

    fn note_status(&self, status: u16) {
        if status == 401 || status == 403 {
            let _ = self
                .refused
                .compare_exchange(0, status, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ProbeConfig {
        &self.config
    }

    /// The interface `endpoint` in the `version` dialect: on 0.3 the transport writes the 0.3
    /// requests and hands every answer back in the 1.0 shapes, so decoding stays one path.
    fn endpoint(&self, to: &Probed) -> Endpoint {
        Endpoint::new(
            self.transport.clone(),
            Interface {
                url: to.url.clone(),
                binding: to.binding,
                tenant: String::new(),
                version: to.version,
            },
        )
    }

    /// `GET` the Agent Card.
    pub async fn get_card(&self, url: &Url) -> Result<Fetched, TransportError> {
        let reply = self.transport.get_card(url).await?;
        Ok(fetched(reply).0)
    }

    /// Strict I-JSON parse of a response body within the depth bound.
    pub fn parse(&self, bytes: &[u8]) -> Result<Value, JcsError> {
        parse_strict_with(
            bytes,
            ParseOptions {
                max_depth: self.config.max_depth,
            },
        )
    }

    /// Sends one `ROLE_USER` message whose only part is a Data Part holding `payload`.
    pub async fn send_data(
        &self,
        to: &Probed,
        payload: Value,
        activate: bool,
    ) -> Result<Exchange, TransportError> {
        let message = a2a::Message {
            message_id: fresh_id("skillgate-conformance"),
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
        let sent = self.endpoint(to).send_message(&request, activate).await?;
        let (fetched, echo) = fetched(sent.reply);
        let http_status = fetched.status;
        self.note_status(http_status);
        let outcome = self.decode_send(to.binding, &fetched);
        let mut exchange = Exchange {
            sent: payload,
            http_status,
            echoed_extensions: echo,
            outcome,
            polls: 0,
        };
        self.follow(to, &mut exchange).await;
        Ok(exchange)
    }

    /// Follows a non-terminal, non-interrupted task with `GetTask` until the deadline.
    async fn follow(&self, to: &Probed, exchange: &mut Exchange) {
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
            match self.get_task(to, &id).await {
                Ok(Outcome::Task(t)) => {
                    exchange.outcome = Outcome::Task(t);
                    exchange.polls += 1;
                }
                // A broken GetTask leaves the last task seen as the evidence.
                _ => return,
            }
        }
    }

    async fn get_task(&self, to: &Probed, id: &str) -> Result<Outcome, TransportError> {
        let sent = self.endpoint(to).get_task(id).await?;
        let v = match self.parse(&sent.reply.bytes) {
            Ok(v) => v,
            Err(e) => return Ok(Outcome::Malformed(format!("GetTask body: {e}"))),
        };
        let result = match to.binding {
            Binding::JsonRpc => match rpc_result(v) {
                Ok(r) => r,
                Err(o) => return Ok(*o),
            },
            // gRPC answers come back in the HTTP+JSON shapes (skillgate-transport).
            Binding::HttpJson | Binding::Grpc => v,
        };
        Ok(match serde_json::from_value::<a2a::Task>(result) {
            Ok(t) => Outcome::Task(t),
            Err(e) => Outcome::Malformed(format!("GetTask result is not a Task: {e}")),
        })
    }

    fn decode_send(&self, binding: Binding, fetched: &Fetched) -> Outcome {
        if fetched.status == 401 || fetched.status == 403 {
            return Outcome::ProtocolError {
                code: i64::from(fetched.status),
                message: format!(
                    "authentication failed: HTTP {} (the agent wants a bearer token it accepts)",
                    fetched.status
                ),
            };
        }
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
            Binding::HttpJson | Binding::Grpc => {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

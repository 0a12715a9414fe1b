//! The client's configuration and its view of the shared transport (`skillgate-transport`):
//! every request is bounded there (timeouts, redirects, body limits while the body streams
//! in, the scheme policy on every redirect); this module only tags failures with the step.

use std::path::PathBuf;
use std::time::Duration;

use skillgate_a2a::StreamResponse;
use skillgate_transport::{
    Binding, ExtraHeader, Reply, Secret, Tracer, Transport, TransportConfig, TransportError,
};
use url::Url;

use crate::error::{ClientError, Step};

pub use skillgate_transport::{
    check_scheme, is_loopback, DEFAULT_CARD_LIMIT, DEFAULT_RESPONSE_LIMIT, MAX_REDIRECTS,
};

/// Everything that bounds or authenticates the client's requests. `Debug` never shows the
/// token.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Largest accepted Agent Card, in bytes.
    pub card_limit: usize,
    /// Largest accepted response body (and event stream), in bytes.
    pub response_limit: usize,
    /// Time allowed to establish a connection.
    pub connect_timeout: Duration,
    /// Longest pause allowed between two reads of a response.
    pub read_timeout: Duration,
    /// Longest time one request may take, body included (a stream included).
    pub timeout: Duration,
    /// Permit plain `http://` to hosts that are not loopback.
    pub allow_http: bool,
    /// Bearer token sent as `Authorization: Bearer …`.
    pub token: Option<Secret>,
    /// Directory of the on-disk interface cache; `None` keeps the cache in memory only.
    pub cache_dir: Option<PathBuf>,
    /// Extra trusted root certificates (PEM), added to the platform's roots, for agents
    /// behind a private CA.
    pub ca_certificates: Vec<Vec<u8>>,
    /// Keys the agent's card must be signed with (`--trust-jwks`): step 1 refuses an unsigned
    /// or badly signed card before anything else is requested. `None`: not checked.
    pub trusted_keys: Option<skillgate_sign::TrustedKeys>,
    /// Use only this binding of the card (`None`: the card's first supported interface).
    pub binding: Option<Binding>,
    /// Headers added to every request (`--header`); values never shown.
    pub headers: Vec<ExtraHeader>,
    /// Told about every request, for a `--verbose` trace.
    pub trace: Option<Tracer>,
    /// Told about every event of a stream as it arrives (`call --stream`), before the
    /// client assembles the task from them.
    pub events: Option<EventSink>,
}

/// Receives each decoded stream event as it arrives. Cheap to clone.
#[derive(Clone)]
pub struct EventSink(std::sync::Arc<dyn Fn(&StreamResponse) + Send + Sync>);

impl EventSink {
    /// A sink calling `f` for each event.
    pub fn new(f: impl Fn(&StreamResponse) + Send + Sync + 'static) -> Self {
        Self(std::sync::Arc::new(f))
    }

    /// Hands `event` to the sink.
    pub fn emit(&self, event: &StreamResponse) {
        (self.0)(event)
    }
}

impl std::fmt::Debug for EventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventSink")
    }
}

impl Default for ClientConfig {
    fn default() -> Self {
        let t = TransportConfig::default();
        Self {
            card_limit: t.card_limit,
            response_limit: t.response_limit,
            connect_timeout: t.connect_timeout,
            read_timeout: t.read_timeout,
            timeout: t.timeout,
            allow_http: t.allow_http,
            token: None,
            cache_dir: None,
            ca_certificates: Vec::new(),
            trusted_keys: None,
            binding: None,
            headers: Vec::new(),
            trace: None,
            events: None,
        }
    }
}

impl ClientConfig {
    /// The transport half of the configuration.
    pub fn transport(&self) -> TransportConfig {
        TransportConfig {
            card_limit: self.card_limit,
            response_limit: self.response_limit,
            connect_timeout: self.connect_timeout,
            read_timeout: self.read_timeout,
            timeout: self.timeout,
            allow_http: self.allow_http,
            token: self.token.clone(),
            ca_certificates: self.ca_certificates.clone(),
            trusted_keys: self.trusted_keys.clone(),
            headers: self.headers.clone(),
            trace: self.trace.clone(),
            ..TransportConfig::default()
        }
    }

    /// The client configuration with the bounds, policy, credentials, headers and trace of
    /// `t` (no cache, the card's first interface, no event sink).
    pub fn from_transport(t: TransportConfig) -> Self {
        Self {
            card_limit: t.card_limit,
            response_limit: t.response_limit,
            connect_timeout: t.connect_timeout,
            read_timeout: t.read_timeout,
            timeout: t.timeout,
            allow_http: t.allow_http,
            token: t.token,
            ca_certificates: t.ca_certificates,
            headers: t.headers,
            trace: t.trace,
            trusted_keys: t.trusted_keys,
            ..Self::default()
        }
    }
}

/// The user's default cache directory for interfaces: `$XDG_CACHE_HOME/skillgate/interfaces`
/// or `$HOME/.cache/skillgate/interfaces`.
pub fn default_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("skillgate").join("interfaces"))
}

/// A transport failure as a client error of `step`: the caller's input (URL, policy,
/// certificates) is a usage error, anything the peer or the network did is a transport error.
pub fn transport_error(step: Step, e: TransportError) -> ClientError {
    match e {
        TransportError::BadUrl(m) | TransportError::Config(m) => ClientError::usage(m),
        other => ClientError::transport(step, other.to_string()),
    }
}

/// The transport plus the client's own configuration, shared by every step. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Http {
    transport: Transport,
    config: std::sync::Arc<ClientConfig>,
}

impl Http {
    /// Builds the transport; installs the ring crypto provider for rustls if none is installed.
    pub fn new(config: ClientConfig) -> Result<Self, ClientError> {
        let transport =
            Transport::new(config.transport()).map_err(|e| ClientError::usage(e.to_string()))?;
        Ok(Self {
            transport,
            config: std::sync::Arc::new(config),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The shared transport.
    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// Parses an absolute URL and applies the scheme policy.
    pub fn parse_url(&self, s: &str) -> Result<Url, String> {
        self.transport.parse_url(s).map_err(|e| e.to_string())
    }

    /// `GET` an Agent Card within the card limit.
    pub async fn get_card(&self, url: &Url) -> Result<Reply, ClientError> {
        self.transport
            .get_card(url)
            .await
            .map_err(|e| transport_error(Step::FetchCard, e))
    }
}

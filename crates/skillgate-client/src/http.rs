//! The client's configuration and its view of the shared transport (`skillgate-transport`):
//! every request is bounded there (timeouts, redirects, body limits while the body streams
//! in, the scheme policy on every redirect); this module only tags failures with the step.

use std::path::PathBuf;

use skillgate_a2a::StreamResponse;
use skillgate_transport::{Binding, Reply, Transport, TransportConfig, TransportError};
use url::Url;

use crate::error::{ClientError, Step};

/// The client's configuration: the transport's own configuration (bounds, scheme policy,
/// credentials, trusted keys, trace), embedded whole so that every command hands the same
/// value to the client and to the conformance checker, plus what only the client uses.
/// `Debug` never shows the token.
#[derive(Debug, Clone, Default)]
pub struct ClientConfig {
    /// Bounds, scheme policy, credentials and trusted card keys of every request.
    pub transport: TransportConfig,
    /// Directory of the on-disk interface cache; `None` keeps the cache in memory only.
    pub cache_dir: Option<PathBuf>,
    /// Use only this binding of the card (`None`: the card's first supported interface).
    pub binding: Option<Binding>,
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

impl ClientConfig {
    /// The client configuration around `transport` (no on-disk cache, the card's first
    /// interface, no event sink).
    pub fn from_transport(transport: TransportConfig) -> Self {
        Self {
            transport,
            ..Self::default()
        }
    }
}

/// The user's default cache directory for interfaces: `$XDG_CACHE_HOME/skillgate/interfaces`
/// or `$HOME/.cache/skillgate/interfaces` (`skillgate_platform::dirs` has the rules).
pub fn default_cache_dir() -> Option<PathBuf> {
    let dir = skillgate_platform::dirs::skillgate_dir(skillgate_platform::dirs::BaseDir::Cache)?;
    Some(dir.join("interfaces"))
}

/// A transport failure as a client error of `step`: the caller's input (URL, policy,
/// certificates) is a usage error, anything the peer or the network did is a transport error.
pub(crate) fn transport_error(step: Step, e: TransportError) -> ClientError {
    match e {
        TransportError::BadUrl(m) | TransportError::Config(m) => ClientError::usage(m),
        // The agent answered, but not with a 0.3 answer: a protocol failure, like a 1.0
        // answer of the wrong shape.
        e @ TransportError::V03Answer { .. } => ClientError::protocol(step, e.to_string()),
        // Nothing was sent: the operation does not exist in the agent's version.
        e @ TransportError::Unsupported { .. } => ClientError::usage(e.to_string()),
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
        let transport = Transport::new(config.transport.clone())
            .map_err(|e| ClientError::usage(e.to_string()))?;
        Ok(Self {
            transport,
            config: std::sync::Arc::new(config),
        })
    }

    /// The same transport with `sink` as the stream event sink (see `Client::with_events`).
    pub fn with_events(&self, sink: EventSink) -> Self {
        Self {
            transport: self.transport.clone(),
            config: std::sync::Arc::new(ClientConfig {
                events: Some(sink),
                ..(*self.config).clone()
            }),
        }
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
    pub fn parse_url(&self, s: &str) -> Result<Url, TransportError> {
        self.transport.parse_url(s)
    }

    /// `GET` an Agent Card within the card limit.
    pub async fn get_card(&self, url: &Url) -> Result<Reply, ClientError> {
        self.transport
            .get_card(url)
            .await
            .map_err(|e| transport_error(Step::FetchCard, e))
    }
}

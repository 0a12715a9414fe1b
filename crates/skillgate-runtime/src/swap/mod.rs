//! The agent a running server serves, and its Agent Card as served: one [`AgentSwap`] per
//! server, shared by every binding (HTTP and gRPC), so a reload changes the card and the skills
//! together for all of them. A [`Reloader`] rebuilds the agent and swaps it in.

mod reload;

pub use reload::{AgentSource, Reloader};

use crate::agent::Agent;
use crate::config::ServerConfig;
use crate::metrics::Metrics;
use crate::service::{A2aService, RequestContext, ServiceError};
use skillgate_sign::SigningKey;
use std::sync::{Arc, RwLock};

/// The public Agent Card as served: its bytes and the validators of HTTP caching, computed
/// once per agent (a reload makes a new one).
#[derive(Debug)]
pub struct ServedCard {
    /// The card's JSON, signed when the server signs cards.
    pub bytes: bytes::Bytes,
    /// A strong entity tag: the card's SHA-256 over its canonical JSON, quoted.
    pub etag: String,
    /// When this agent started being served, as an IMF-fixdate.
    pub last_modified: String,
}

impl ServedCard {
    /// The card of `agent` as `swap` serves it.
    fn of(agent: &Agent, swap: &CardSettings, push: bool) -> Self {
        let mut card = agent.card(&swap.base_url, swap.auth);
        crate::agent::add_grpc_interface(&mut card, swap.grpc_url.as_deref());
        card.capabilities.push_notifications = Some(push);
        let mut value = serde_json::to_value(&card).unwrap_or_default();
        if let Some(key) = swap.signer.as_deref() {
            // Signing a card the runtime built cannot fail (it is an object and the key was
            // proven at load time); if it ever did, the card is served unsigned and a client
            // that requires signatures refuses it, which is the safe direction.
            let _ = key.sign(&mut value);
        }
        let digest = skillgate_core::digest(&value).to_string();
        ServedCard {
            bytes: bytes::Bytes::from(serde_json::to_vec(&value).unwrap_or_default()),
            etag: format!("\"{}\"", digest.trim_start_matches("sha256:")),
            last_modified: crate::time::now_http_date(),
        }
    }
}

/// What every card of one server shares, whatever agent it serves.
struct CardSettings {
    base_url: Arc<str>,
    grpc_url: Option<Arc<str>>,
    auth: bool,
    signer: Option<Arc<SigningKey>>,
}

/// Replaces the agent a running server serves (a configuration reload): the card (and with it
/// every advertised digest) and the skills change together. Requests already accepted finish
/// on the agent they started with. Cheap to clone.
#[derive(Clone)]
pub struct AgentSwap {
    service: A2aService,
    card: Arc<RwLock<Arc<ServedCard>>>,
    settings: Arc<CardSettings>,
}

impl AgentSwap {
    /// The service for `agent` under `config`, with its card served at `base_url` (the HTTP
    /// interfaces; `config.grpc_url` adds the gRPC one). `metrics` counts what the service does.
    pub fn new(agent: Agent, config: &ServerConfig, base_url: &str, metrics: Metrics) -> Self {
        let settings = Arc::new(CardSettings {
            base_url: base_url.into(),
            grpc_url: config.grpc_url.as_deref().map(Arc::from),
            auth: config.tokens.is_some(),
            signer: config.card_signer.clone(),
        });
        let service = A2aService::with_metrics(agent.clone(), config, metrics);
        let card = ServedCard::of(&agent, &settings, service.push_enabled());
        AgentSwap {
            service,
            card: Arc::new(RwLock::new(Arc::new(card))),
            settings,
        }
    }

    /// The one service behind every binding of this server: another binding (gRPC) built
    /// on it shares the gate, the task store and every reload.
    pub fn service(&self) -> A2aService {
        self.service.clone()
    }

    /// The base URL the card advertises (no trailing slash).
    pub fn base_url(&self) -> &str {
        &self.settings.base_url
    }

    /// Whether callers authenticate (a token table is configured).
    pub fn auth_enabled(&self) -> bool {
        self.settings.auth
    }

    /// The public card now served. One snapshot: its body, ETag and Last-Modified always
    /// describe the same card.
    pub fn card(&self) -> Arc<ServedCard> {
        match self.card.read() {
            Ok(c) => Arc::clone(&c),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }

    /// The extended Agent Card for the request's caller, exactly as every binding answers
    /// `GetExtendedAgentCard` (interfaces listed and signed like the public card).
    pub fn extended_card(&self, ctx: &RequestContext) -> Result<serde_json::Value, ServiceError> {
        let s = &self.settings;
        let mut card =
            self.service
                .extended_agent_card(ctx.caller.as_ref(), &s.base_url, s.auth)?;
        crate::agent::add_grpc_interface(&mut card, s.grpc_url.as_deref());
        let mut value = serde_json::to_value(&card).unwrap_or_default();
        if let Some(key) = s.signer.as_deref() {
            let _ = key.sign(&mut value);
        }
        Ok(value)
    }

    /// Serves `agent` from now on. The card is held for writing while the agent is replaced,
    /// so no client can read the new card and still reach the old skills.
    pub fn replace(&self, agent: Agent) {
        let cache = Arc::new(ServedCard::of(
            &agent,
            &self.settings,
            self.service.push_enabled(),
        ));
        let mut guard = match self.card.write() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        self.service.replace_agent(agent);
        *guard = cache;
    }
}

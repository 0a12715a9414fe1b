//! The agent a running server serves, and its Agent Card as served: one [`AgentSwap`] per
//! server, shared by every binding (HTTP and gRPC), so a reload changes the card and the skills
//! together for all of them. A [`Reloader`] rebuilds the agent and swaps it in.

mod reload;

pub use reload::{AgentSource, Reloader};

use crate::agent::Agent;
use crate::checks::VersionSet;
use crate::config::ServerConfig;
use crate::metrics::Metrics;
use crate::service::{A2aService, RequestContext, ServiceError};
use serde_json::Value;
use skillgate_a2a::{self as a2a, version::WireVersion};
use skillgate_sign::SigningKey;
use std::sync::{Arc, RwLock};

/// The public Agent Card as served: its bytes and the validators of HTTP caching, computed
/// once per agent (a reload makes a new one). `bytes` and `etag` are the 1.0 card; `v03` the
/// 0.3 rendering when 0.3 is served.
#[derive(Debug)]
pub struct ServedCard {
    /// The card's JSON, signed when the server signs cards.
    pub bytes: bytes::Bytes,
    /// A strong entity tag: the card's SHA-256 over its canonical JSON, quoted.
    pub etag: String,
    /// When this agent started being served, as an IMF-fixdate.
    pub last_modified: String,
    /// The 0.3 card (`docs/a2a-0.3.md` 3.5) when 0.3 is served: what a reader that sends no
    /// `A2A-Version` gets, since a 0.3 client never sends one.
    pub v03: Option<CardRendering>,
    /// Whether 1.0 is served: with 0.3 only, every reader gets the 0.3 card.
    v1_served: bool,
}

/// One rendering of the card: its bytes and entity tag.
#[derive(Debug)]
pub struct CardRendering {
    /// The rendering's JSON.
    pub bytes: bytes::Bytes,
    /// Its strong entity tag (SHA-256 over its canonical JSON, quoted).
    pub etag: String,
}

impl CardRendering {
    fn of(value: &serde_json::Value) -> Self {
        let digest = skillgate_core::digest(value).to_string();
        CardRendering {
            bytes: bytes::Bytes::from(serde_json::to_vec(value).unwrap_or_default()),
            etag: format!("\"{}\"", digest.trim_start_matches("sha256:")),
        }
    }
}

impl ServedCard {
    /// The card of `agent` as `swap` serves it.
    fn of(agent: &Agent, swap: &CardSettings, push: bool) -> Self {
        let mut card = agent.card(&swap.base_url, swap.auth);
        swap.add_interfaces(&mut card);
        card.capabilities.push_notifications = Some(push);
        let (value, v03) = swap.render(&card);
        let v1 = CardRendering::of(&value);
        ServedCard {
            bytes: v1.bytes,
            etag: v1.etag,
            last_modified: crate::time::now_http_date(),
            v03: v03.as_ref().map(CardRendering::of),
            v1_served: swap.versions.contains(WireVersion::V1_0),
        }
    }

    /// The rendering a reader gets for the `A2A-Version` it sent (empty when none): a 1.x
    /// reader the 1.0 card, anyone else the 0.3 card while 0.3 is served (no header means 0.3,
    /// and 0.3 clients send none), and an unknown version the 1.0 card (discovery must not
    /// fail; the card lists what is served). Returns the bytes and the entity tag.
    pub fn for_reader(&self, requested_version: &str) -> (&bytes::Bytes, &str) {
        let asked = WireVersion::parse(requested_version);
        match &self.v03 {
            Some(v03) if !self.v1_served || asked == Some(WireVersion::V0_3) => {
                (&v03.bytes, &v03.etag)
            }
            _ => (&self.bytes, &self.etag),
        }
    }

    /// Whether the answer depends on `A2A-Version` (both renderings are served), so caches
    /// must be told with `Vary`.
    pub fn varies(&self) -> bool {
        self.v03.is_some() && self.v1_served
    }
}

/// What every card of one server shares, whatever agent it serves.
struct CardSettings {
    base_url: Arc<str>,
    grpc_url: Option<Arc<str>>,
    auth: bool,
    signer: Option<Arc<SigningKey>>,
    versions: VersionSet,
}

impl CardSettings {
    /// Adds the interfaces the server serves beyond the agent's own HTTP ones: gRPC, then
    /// the 0.3 JSON-RPC and HTTP+JSON interfaces at the same URL when 0.3 is served. With 0.3 only, the 1.0
    /// interfaces go.
    fn add_interfaces(&self, card: &mut a2a::AgentCard) {
        crate::agent::add_grpc_interface(card, self.grpc_url.as_deref());
        if !self.versions.contains(WireVersion::V1_0) {
            card.supported_interfaces.clear();
        }
        if self.versions.contains(WireVersion::V0_3) {
            // JSON-RPC first: it is the 0.3 card's `url`/`preferredTransport`, the binding
            // 0.3 clients default to. HTTP+JSON's URL is the base `/v1/...` hangs off.
            card.supported_interfaces.push(a2a::AgentInterface {
                url: format!("{}/", self.base_url),
                protocol_binding: a2a::BINDING_JSONRPC.into(),
                tenant: String::new(),
                protocol_version: WireVersion::V0_3.as_str().into(),
            });
            card.supported_interfaces.push(a2a::AgentInterface {
                url: self.base_url.to_string(),
                protocol_binding: a2a::BINDING_HTTP_JSON.into(),
                tenant: String::new(),
                protocol_version: WireVersion::V0_3.as_str().into(),
            });
            // gRPC last (D267): the same port serves `a2a.v1` beside `lf.a2a.v1`, and a 0.3
            // client picks it only when asked, so it must not become the 0.3 card's `url`.
            if let Some(url) = self.grpc_url.as_deref() {
                card.supported_interfaces.push(a2a::AgentInterface {
                    url: url.to_owned(),
                    protocol_binding: a2a::BINDING_GRPC.into(),
                    tenant: String::new(),
                    protocol_version: WireVersion::V0_3.as_str().into(),
                });
            }
        }
    }

    /// The card as JSON, signed when the server signs cards, and its 0.3 rendering when 0.3
    /// is served. A signed 0.3 rendering carries the 1.0 card's signature first, then one
    /// over the view an A2A 0.3 reader checks (`skillgate_sign::v03_signing_payload`), so
    /// readers of either version find a signature they can verify.
    fn render(&self, card: &a2a::AgentCard) -> (serde_json::Value, Option<serde_json::Value>) {
        let mut value = serde_json::to_value(card).unwrap_or_default();
        if let Some(key) = self.signer.as_deref() {
            // Signing a card the runtime built cannot fail (it is an object and the key was
            // proven at load time); if it ever did, the card is served unsigned and a client
            // that requires signatures refuses it, which is the safe direction.
            let _ = key.sign(&mut value);
        }
        let v03 = if self.versions.contains(WireVersion::V0_3) {
            // Cannot fail: the 0.3 interface was just added.
            a2a::v03::card::render(card).ok().map(|mut v| {
                if let (Some(key), Some(Value::Array(sigs))) =
                    (self.signer.as_deref(), value.get("signatures"))
                {
                    let mut sigs = sigs.clone();
                    // As above: if this ever failed, 0.3 readers that require a
                    // signature would refuse the card.
                    if let Ok(s) = key.v03_signature(&v) {
                        sigs.push(s);
                    }
                    if let Some(o) = v.as_object_mut() {
                        o.insert("signatures".into(), Value::Array(sigs));
                    }
                }
                v
            })
        } else {
            None
        };
        (value, v03)
    }
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
            versions: config.a2a_versions,
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
        self.extended_card_in(ctx, WireVersion::V1_0)
    }

    /// [`Self::extended_card`] in `version`'s shape: 0.3 clients ask for it with
    /// `agent/getAuthenticatedExtendedCard` and read a 0.3 card.
    pub fn extended_card_in(
        &self,
        ctx: &RequestContext,
        version: WireVersion,
    ) -> Result<serde_json::Value, ServiceError> {
        let s = &self.settings;
        let mut card =
            self.service
                .extended_agent_card(ctx.caller.as_ref(), &s.base_url, s.auth)?;
        s.add_interfaces(&mut card);
        let (value, v03) = s.render(&card);
        match (version, v03) {
            (WireVersion::V0_3, Some(v03)) => Ok(v03),
            _ => Ok(value),
        }
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

//! Which of a card's interfaces is used, and how it is addressed.

use skillgate_a2a::AgentCard;
use url::Url;

use crate::{check_scheme, redact_str};

/// A protocol binding the transport speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Binding {
    /// JSON-RPC 2.0 over HTTP (`JSONRPC`).
    JsonRpc,
    /// HTTP+JSON / REST (`HTTP+JSON`).
    HttpJson,
    /// gRPC over plain HTTP/2 (`GRPC`); used only when asked for (`preferred`), never picked
    /// by default.
    Grpc,
}

impl Binding {
    /// The card's `protocolBinding` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Binding::JsonRpc => skillgate_a2a::BINDING_JSONRPC,
            Binding::HttpJson => skillgate_a2a::BINDING_HTTP_JSON,
            Binding::Grpc => skillgate_a2a::BINDING_GRPC,
        }
    }

    /// The URL of a card interface of this binding: gRPC's `host:port` form (what gRPC
    /// clients dial, and what A2A allows for it) reads as `http://host:port`.
    pub fn parse_url(self, card_url: &str) -> Result<Url, url::ParseError> {
        if self == Binding::Grpc && !card_url.contains("://") {
            Url::parse(&format!("http://{card_url}"))
        } else {
            Url::parse(card_url)
        }
    }

    /// The binding a card's `protocolBinding` names, if the transport speaks it.
    pub fn from_card(name: &str) -> Option<Self> {
        match name {
            skillgate_a2a::BINDING_JSONRPC => Some(Binding::JsonRpc),
            skillgate_a2a::BINDING_HTTP_JSON => Some(Binding::HttpJson),
            skillgate_a2a::BINDING_GRPC => Some(Binding::Grpc),
            _ => None,
        }
    }
}

/// One interface of an agent: endpoint, binding and tenant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// Endpoint URL (scheme policy already applied).
    pub url: Url,
    /// Binding.
    pub binding: Binding,
    /// Tenant to put in every request (empty = none).
    pub tenant: String,
}

/// Why no interface of a card can be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoInterface {
    /// The chosen interface's URL is not absolute.
    #[error("interface URL {url:?} is not absolute: {reason}")]
    BadUrl {
        /// The URL as the card wrote it (redacted).
        url: String,
        /// The parser's reason.
        reason: String,
    },
    /// The chosen interface's URL is refused by the scheme policy.
    #[error("interface {url}: {reason}")]
    Refused {
        /// The URL (redacted).
        url: String,
        /// The policy's reason.
        reason: skillgate_a2a::url_policy::SchemeRefused,
    },
    /// No interface has a binding the transport speaks at an A2A 1.x version.
    #[error("the card offers no A2A 1.x {wanted} interface (found: {found})")]
    None {
        /// What was looked for (`JSONRPC or HTTP+JSON`, or the one preferred binding).
        wanted: String,
        /// What the card offers instead, or `none`.
        found: String,
    },
}

impl Interface {
    /// Step 1's interface selection: the first interface, in the card's order of preference,
    /// whose binding the transport speaks (only `preferred` if given) at protocol version 1.x.
    /// gRPC is chosen only when `preferred`; its `host:port` URL is read as `http://host:port`
    /// (plain HTTP/2, so the scheme policy allows it on loopback or with `allow_http`).
    ///
    /// The first such interface is the choice: a bad or refused URL there is an error rather
    /// than a silent fall-back to a later, less preferred interface.
    pub fn select(
        card: &AgentCard,
        preferred: Option<Binding>,
        allow_http: bool,
    ) -> Result<Self, NoInterface> {
        let mut seen = Vec::new();
        for i in &card.supported_interfaces {
            let binding = match Binding::from_card(&i.protocol_binding) {
                Some(Binding::Grpc) if preferred != Some(Binding::Grpc) => {
                    seen.push(i.protocol_binding.clone());
                    continue;
                }
                Some(b) if preferred.is_none_or(|p| p == b) => b,
                _ => {
                    seen.push(i.protocol_binding.clone());
                    continue;
                }
            };
            if i.protocol_version.split('.').next() != Some("1") {
                seen.push(format!("{} {}", i.protocol_binding, i.protocol_version));
                continue;
            }
            let url = binding.parse_url(&i.url).map_err(|e| NoInterface::BadUrl {
                url: redact_str(&i.url),
                reason: e.to_string(),
            })?;
            check_scheme(&url, allow_http).map_err(|reason| NoInterface::Refused {
                url: crate::redact(&url),
                reason,
            })?;
            return Ok(Self {
                url,
                binding,
                tenant: i.tenant.clone(),
            });
        }
        Err(NoInterface::None {
            wanted: match preferred {
                Some(b) => b.as_str().to_owned(),
                None => "JSONRPC or HTTP+JSON".to_owned(),
            },
            found: if seen.is_empty() {
                "none".to_owned()
            } else {
                seen.join(", ")
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(interfaces: serde_json::Value) -> AgentCard {
        serde_json::from_value(serde_json::json!({
            "name": "a", "description": "d", "version": "1",
            "supportedInterfaces": interfaces,
            "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
        }))
        .unwrap()
    }

    #[test]
    fn grpc_is_chosen_only_when_asked_for_and_its_host_port_is_plain_http() {
        let c = card(serde_json::json!([
            {"url": "127.0.0.1:9", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ]));
        let default = Interface::select(&c, None, false).unwrap();
        assert_eq!(
            default.binding,
            Binding::JsonRpc,
            "GRPC first, but never by default"
        );
        let g = Interface::select(&c, Some(Binding::Grpc), false).unwrap();
        assert_eq!(g.binding, Binding::Grpc);
        assert_eq!(g.url.as_str(), "http://127.0.0.1:9/");
        let remote = card(serde_json::json!([
            {"url": "agent.example.net:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        ]));
        assert!(matches!(
            Interface::select(&remote, Some(Binding::Grpc), false),
            Err(NoInterface::Refused { .. })
        ));
        let only_grpc = card(serde_json::json!([
            {"url": "127.0.0.1:9", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        ]));
        assert!(matches!(
            Interface::select(&only_grpc, None, false),
            Err(NoInterface::None { .. })
        ));
    }

    #[test]
    fn card_order_decides_and_preference_filters() {
        let c = card(serde_json::json!([
            {"url": "http://127.0.0.1:1/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": "http://127.0.0.1:1/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0", "tenant": "t"}
        ]));
        let first = Interface::select(&c, None, false).unwrap();
        assert_eq!(first.binding, Binding::HttpJson);
        let rpc = Interface::select(&c, Some(Binding::JsonRpc), false).unwrap();
        assert_eq!(rpc.url.path(), "/rpc");
        assert_eq!(rpc.tenant, "t");
    }

    #[test]
    fn old_versions_unknown_bindings_and_refused_urls() {
        let c = card(serde_json::json!([
            {"url": "http://127.0.0.1:1/", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
        ]));
        let e = Interface::select(&c, None, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the card offers no A2A 1.x JSONRPC or HTTP+JSON interface (found: GRPC, JSONRPC 0.3)"
        );
        let c = card(serde_json::json!([
            {"url": "http://example.com/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ]));
        assert!(matches!(
            Interface::select(&c, None, false),
            Err(NoInterface::Refused { .. })
        ));
        assert!(Interface::select(&c, None, true).is_ok());
    }
}

//! Which of a card's interfaces is used, and how it is addressed.

use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{AgentCard, AgentInterface};
use url::Url;

use crate::{check_scheme, redact_str, VersionChoice};

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

/// One interface of an agent: endpoint, binding, tenant and the A2A version it speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// Endpoint URL (scheme policy already applied).
    pub url: Url,
    /// Binding.
    pub binding: Binding,
    /// Tenant to put in every request (empty = none).
    pub tenant: String,
    /// The dialect every request on this interface is written in (and every answer read in):
    /// 1.0 as it is, 0.3 translated at the [`crate::Endpoint`] so callers see 1.0 only.
    pub version: WireVersion,
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
    /// No interface has a binding the transport speaks at a version it may use.
    #[error("the card offers no {wanted} interface (found: {found})")]
    None {
        /// What was looked for: the versions allowed and, per version, the bindings
        /// (`A2A 1.x JSONRPC or HTTP+JSON, or A2A 0.3 JSONRPC`, or the one preferred binding).
        wanted: String,
        /// What the card offers instead, or `none`.
        found: String,
    },
}

/// The `protocolBinding protocolVersion` text an error shows for an interface.
fn shown_interface(i: &AgentInterface) -> String {
    if i.protocol_version.is_empty() {
        i.protocol_binding.clone()
    } else {
        format!("{} {}", i.protocol_binding, i.protocol_version)
    }
}

/// The version an interface's `protocolVersion` names; an empty one is not taken as 0.3 here
/// (1.0 requires the member, so its absence says nothing about 0.3).
fn interface_version(i: &AgentInterface) -> Option<WireVersion> {
    if i.protocol_version.trim().is_empty() {
        None
    } else {
        WireVersion::parse(&i.protocol_version)
    }
}

impl Interface {
    /// Step 1's interface selection with every version allowed ([`VersionChoice::Auto`]);
    /// see [`Interface::select_version`].
    pub fn select(
        card: &AgentCard,
        preferred: Option<Binding>,
        allow_http: bool,
    ) -> Result<Self, NoInterface> {
        Self::select_version(card, preferred, VersionChoice::Auto, allow_http)
    }

    /// Step 1's interface selection. First pass (unless `version` is 0.3 only): the first
    /// interface, in the card's order of preference, whose binding the transport speaks (only
    /// `preferred` if given) at protocol version 1.x. Second pass (unless `version` is 1.0
    /// only), when the first found nothing: the card's 0.3 interfaces, JSON-RPC preferred
    /// whatever the card's order, since only 0.3 JSON-RPC carries files and large integers
    /// faithfully, then HTTP+JSON, then gRPC (each when it is the agent's only 0.3 binding
    /// left, or the one `preferred`). In the first pass gRPC is chosen only when `preferred`;
    /// its `host:port` URL is read as `http://host:port` (plain HTTP/2, so the scheme policy
    /// allows it on loopback or with `allow_http`).
    ///
    /// The first such interface is the choice: a bad or refused URL there is an error rather
    /// than a silent fall-back to a later, less preferred interface.
    pub fn select_version(
        card: &AgentCard,
        preferred: Option<Binding>,
        version: VersionChoice,
        allow_http: bool,
    ) -> Result<Self, NoInterface> {
        let mut seen = Vec::new();
        if version.allows(WireVersion::V1_0) {
            if let Some(i) = Self::first_v1(card, preferred, &mut seen) {
                return Self::checked(i, WireVersion::V1_0, allow_http);
            }
        }
        if version.allows(WireVersion::V0_3) {
            let v03: Vec<&AgentInterface> = card
                .supported_interfaces
                .iter()
                .filter(|i| interface_version(i) == Some(WireVersion::V0_3))
                .collect();
            // gRPC last: without `preferred`, it is chosen only when it is the agent's one
            // 0.3 binding, since only JSON-RPC carries files and large integers faithfully.
            for written in [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc] {
                let found = v03.iter().find(|i| {
                    Binding::from_card(&i.protocol_binding) == Some(written)
                        && preferred.is_none_or(|p| p == written)
                });
                if let Some(i) = found {
                    return Self::checked(i, WireVersion::V0_3, allow_http);
                }
            }
        }
        let found: Vec<String> = if seen.is_empty() {
            card.supported_interfaces
                .iter()
                .map(shown_interface)
                .collect()
        } else {
            seen
        };
        Err(NoInterface::None {
            wanted: wanted(preferred, version),
            found: if found.is_empty() {
                "none".to_owned()
            } else {
                found.join(", ")
            },
        })
    }

    /// The first pass of [`Interface::select_version`]: the first 1.x interface of a binding
    /// the transport may use; what was passed over goes to `seen` for the error text.
    fn first_v1<'c>(
        card: &'c AgentCard,
        preferred: Option<Binding>,
        seen: &mut Vec<String>,
    ) -> Option<&'c AgentInterface> {
        for i in &card.supported_interfaces {
            let usable = match Binding::from_card(&i.protocol_binding) {
                Some(Binding::Grpc) => preferred == Some(Binding::Grpc),
                Some(b) => preferred.is_none_or(|p| p == b),
                None => false,
            };
            if !usable {
                seen.push(i.protocol_binding.clone());
                continue;
            }
            if interface_version(i) != Some(WireVersion::V1_0) {
                seen.push(shown_interface(i));
                continue;
            }
            return Some(i);
        }
        None
    }

    /// The chosen card interface as an [`Interface`], its URL parsed and policy-checked.
    fn checked(
        i: &AgentInterface,
        version: WireVersion,
        allow_http: bool,
    ) -> Result<Self, NoInterface> {
        // `from_card` succeeded in the pass that chose `i`; JSON-RPC is only a total fallback.
        let binding = Binding::from_card(&i.protocol_binding).unwrap_or(Binding::JsonRpc);
        let url = binding.parse_url(&i.url).map_err(|e| NoInterface::BadUrl {
            url: redact_str(&i.url),
            reason: e.to_string(),
        })?;
        check_scheme(&url, allow_http).map_err(|reason| NoInterface::Refused {
            url: crate::redact(&url),
            reason,
        })?;
        Ok(Self {
            url,
            binding,
            tenant: i.tenant.clone(),
            version,
        })
    }
}

/// What a selection looked for, for [`NoInterface::None`].
fn wanted(preferred: Option<Binding>, version: VersionChoice) -> String {
    let v1 = match preferred {
        Some(b) => format!("A2A 1.x {}", b.as_str()),
        None => "A2A 1.x JSONRPC or HTTP+JSON".to_owned(),
    };
    let v03 = match preferred {
        Some(b) => format!("A2A 0.3 {}", b.as_str()),
        None => "A2A 0.3 JSONRPC, HTTP+JSON or GRPC".to_owned(),
    };
    match version {
        VersionChoice::Auto => format!("{v1}, or {v03}"),
        VersionChoice::Only(WireVersion::V1_0) => v1,
        VersionChoice::Only(WireVersion::V0_3) => v03,
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
            {"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "0.2"}
        ]));
        let e = Interface::select(&c, None, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the card offers no A2A 1.x JSONRPC or HTTP+JSON, or A2A 0.3 JSONRPC, HTTP+JSON or GRPC interface \
             (found: GRPC, JSONRPC 0.2)"
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

    #[test]
    fn v1_first_then_v03_json_rpc_whatever_its_place() {
        let both = card(serde_json::json!([
            {"url": "http://127.0.0.1:1/v03rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
            {"url": "http://127.0.0.1:1/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3.0"},
            {"url": "http://127.0.0.1:1/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ]));
        let auto = Interface::select(&both, None, false).unwrap();
        assert_eq!((auto.url.path(), auto.version), ("/v1", WireVersion::V1_0));
        let only03 =
            Interface::select_version(&both, None, VersionChoice::Only(WireVersion::V0_3), false)
                .unwrap();
        assert_eq!(
            (only03.url.path(), only03.version, only03.binding),
            ("/v03", WireVersion::V0_3, Binding::JsonRpc),
            "0.3 JSON-RPC preferred over the card's first 0.3 interface"
        );
        let v03_only_card = card(serde_json::json!([
            {"url": "http://127.0.0.1:1/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
        ]));
        let e = Interface::select_version(
            &v03_only_card,
            None,
            VersionChoice::Only(WireVersion::V1_0),
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the card offers no A2A 1.x JSONRPC or HTTP+JSON interface (found: JSONRPC 0.3)"
        );
    }

    #[test]
    fn v03_rest_is_chosen_after_v03_json_rpc_and_grpc_when_asked_or_alone() {
        let c = card(serde_json::json!([
            {"url": "http://127.0.0.1:1/", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
            {"url": "127.0.0.1:2", "protocolBinding": "GRPC", "protocolVersion": "0.3"}
        ]));
        let i = Interface::select(&c, None, false).unwrap();
        assert_eq!(
            (i.binding, i.version),
            (Binding::HttpJson, WireVersion::V0_3)
        );
        let both = card(serde_json::json!([
            {"url": "http://127.0.0.1:1/", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
            {"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
        ]));
        let i = Interface::select(&both, None, false).unwrap();
        assert_eq!(
            i.binding,
            Binding::JsonRpc,
            "JSON-RPC first whatever the card's order"
        );
        let i = Interface::select(&both, Some(Binding::HttpJson), false).unwrap();
        assert_eq!(
            (i.binding, i.version),
            (Binding::HttpJson, WireVersion::V0_3)
        );
        // gRPC 0.3 when asked for, or when it is the agent's only 0.3 binding; its
        // `host:port` is read as plain HTTP/2.
        let g = Interface::select(&c, Some(Binding::Grpc), false).unwrap();
        assert_eq!((g.binding, g.version), (Binding::Grpc, WireVersion::V0_3));
        assert_eq!(g.url.as_str(), "http://127.0.0.1:2/");
        let only = card(serde_json::json!([
            {"url": "127.0.0.1:2", "protocolBinding": "GRPC", "protocolVersion": "0.3"}
        ]));
        let i = Interface::select(&only, None, false).unwrap();
        assert_eq!((i.binding, i.version), (Binding::Grpc, WireVersion::V0_3));
        let e = Interface::select(&only, Some(Binding::JsonRpc), false).unwrap_err();
        assert!(matches!(e, NoInterface::None { .. }), "{e:?}");
    }
}

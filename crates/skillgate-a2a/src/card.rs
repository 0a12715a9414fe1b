//! The Agent Card and its parts (security schemes, interfaces, skills, extensions).

use crate::de::{is_false, nullable, opt_bool};
use crate::types::Struct;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Kept at its old path for the linter and other callers; it now lives with the 0.3 card code.
pub use crate::v03::card::V03_ONLY_CARD_MEMBERS;

/// Self-description of an agent, served at `/.well-known/agent-card.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct AgentCard {
    /// Agent name (REQUIRED).
    pub name: String,
    /// Agent description (REQUIRED).
    pub description: String,
    /// Interfaces, first is preferred (REQUIRED, at least one).
    #[serde(alias = "supported_interfaces")]
    pub supported_interfaces: Vec<AgentInterface>,
    /// Who provides the agent.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub provider: Option<AgentProvider>,
    /// The agent's own version (REQUIRED).
    pub version: String,
    /// Documentation URL (`optional string`: presence kept).
    #[serde(
        default,
        alias = "documentation_url",
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub documentation_url: Option<String>,
    /// Capabilities (REQUIRED, may be `{}`).
    pub capabilities: AgentCapabilities,
    /// Security schemes by name.
    #[serde(
        default,
        alias = "security_schemes",
        deserialize_with = "nullable",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub security_schemes: BTreeMap<String, SecurityScheme>,
    /// Security requirements (any one of them satisfied suffices).
    #[serde(
        default,
        alias = "security_requirements",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub security_requirements: Vec<SecurityRequirement>,
    /// Default accepted input media types (REQUIRED).
    #[serde(alias = "default_input_modes")]
    pub default_input_modes: Vec<String>,
    /// Default output media types (REQUIRED).
    #[serde(alias = "default_output_modes")]
    pub default_output_modes: Vec<String>,
    /// Skills (REQUIRED, at least one).
    pub skills: Vec<AgentSkill>,
    /// JWS signatures of the card.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub signatures: Vec<AgentCardSignature>,
    /// Icon URL (`optional string`).
    #[serde(
        default,
        alias = "icon_url",
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub icon_url: Option<String>,
}

impl AgentCard {
    /// The extension declaration with this URI, if the card has one.
    pub fn extension(&self, uri: &str) -> Option<&AgentExtension> {
        self.capabilities.extensions.iter().find(|e| e.uri == uri)
    }
    /// The first interface with this protocol binding.
    pub fn interface(&self, binding: &str) -> Option<&AgentInterface> {
        self.supported_interfaces
            .iter()
            .find(|i| i.protocol_binding == binding)
    }
}

/// One endpoint of an agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct AgentInterface {
    /// Absolute URL (REQUIRED).
    pub url: String,
    /// `JSONRPC`, `GRPC`, `HTTP+JSON` or a URI (REQUIRED).
    #[serde(alias = "protocol_binding")]
    pub protocol_binding: String,
    /// Tenant to put in every request, if set.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub tenant: String,
    /// `Major.Minor` protocol version (REQUIRED).
    #[serde(alias = "protocol_version")]
    pub protocol_version: String,
}

/// The agent's provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct AgentProvider {
    /// Provider URL (REQUIRED).
    pub url: String,
    /// Organization name (REQUIRED).
    pub organization: String,
}

/// Optional capabilities; the bools are proto3 `optional`, so an explicit `false` is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// Streaming methods supported.
    #[serde(
        default,
        deserialize_with = "opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub streaming: Option<bool>,
    /// Push notifications supported.
    #[serde(
        default,
        alias = "push_notifications",
        deserialize_with = "opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub push_notifications: Option<bool>,
    /// Extensions supported.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub extensions: Vec<AgentExtension>,
    /// Extended card available.
    #[serde(
        default,
        alias = "extended_agent_card",
        deserialize_with = "opt_bool",
        skip_serializing_if = "Option::is_none"
    )]
    pub extended_agent_card: Option<bool>,
}

/// An extension the agent supports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct AgentExtension {
    /// Extension URI.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub uri: String,
    /// Description.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    /// Whether clients must activate it.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub required: bool,
    /// Extension-specific parameters.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub params: Option<Struct>,
}

/// A skill the agent offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct AgentSkill {
    /// Skill id (REQUIRED).
    pub id: String,
    /// Name (REQUIRED).
    pub name: String,
    /// Description (REQUIRED).
    pub description: String,
    /// Tags (REQUIRED, at least one).
    pub tags: Vec<String>,
    /// Example prompts.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub examples: Vec<String>,
    /// Input media types overriding the card defaults.
    #[serde(
        default,
        alias = "input_modes",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub input_modes: Vec<String>,
    /// Output media types overriding the card defaults.
    #[serde(
        default,
        alias = "output_modes",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub output_modes: Vec<String>,
    /// Security requirements for this skill.
    #[serde(
        default,
        alias = "security_requirements",
        deserialize_with = "nullable",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub security_requirements: Vec<SecurityRequirement>,
}

/// A JWS signature over the card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct AgentCardSignature {
    /// base64url protected header (REQUIRED).
    pub protected: String,
    /// base64url signature (REQUIRED).
    pub signature: String,
    /// Unprotected header.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub header: Option<Struct>,
}

/// A list of strings (`StringList`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct StringList {
    /// The strings (scopes).
    #[serde(default, deserialize_with = "nullable")]
    pub list: Vec<String>,
}

/// One way to satisfy security: scheme name -> required scopes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SecurityRequirement {
    /// Scheme name to scopes.
    #[serde(default, deserialize_with = "nullable")]
    pub schemes: BTreeMap<String, StringList>,
}

impl SecurityRequirement {
    /// A requirement of one scheme with no scopes.
    pub fn scheme(name: impl Into<String>) -> Self {
        let mut schemes = BTreeMap::new();
        schemes.insert(name.into(), StringList::default());
        Self { schemes }
    }
}

/// A security scheme, keyed on the wire by its oneof member name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SecurityScheme {
    /// API key.
    #[serde(alias = "api_key_security_scheme")]
    ApiKeySecurityScheme(ApiKeySecurityScheme),
    /// HTTP auth (Basic, Bearer, ...).
    #[serde(alias = "http_auth_security_scheme")]
    HttpAuthSecurityScheme(HttpAuthSecurityScheme),
    /// OAuth 2.0.
    #[serde(alias = "oauth2_security_scheme")]
    Oauth2SecurityScheme(OAuth2SecurityScheme),
    /// OpenID Connect.
    #[serde(alias = "open_id_connect_security_scheme")]
    OpenIdConnectSecurityScheme(OpenIdConnectSecurityScheme),
    /// Mutual TLS.
    #[serde(alias = "mtls_security_scheme")]
    MtlsSecurityScheme(MutualTlsSecurityScheme),
}

impl SecurityScheme {
    /// An HTTP Bearer scheme.
    pub fn bearer(description: impl Into<String>) -> Self {
        Self::HttpAuthSecurityScheme(HttpAuthSecurityScheme {
            description: description.into(),
            scheme: "Bearer".into(),
            bearer_format: String::new(),
        })
    }
}

/// API key scheme.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ApiKeySecurityScheme {
    /// Description.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    /// `query`, `header` or `cookie` (REQUIRED).
    pub location: String,
    /// Parameter name (REQUIRED).
    pub name: String,
}

/// HTTP authentication scheme.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct HttpAuthSecurityScheme {
    /// Description.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    /// RFC 7235 scheme name, e.g. `Bearer` (REQUIRED).
    pub scheme: String,
    /// Bearer token format hint.
    #[serde(
        default,
        alias = "bearer_format",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub bearer_format: String,
}

/// OAuth 2.0 scheme.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuth2SecurityScheme {
    /// Description.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    /// The flow (REQUIRED).
    pub flows: OAuthFlows,
    /// RFC 8414 metadata URL.
    #[serde(
        default,
        alias = "oauth2_metadata_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub oauth2_metadata_url: String,
}

/// OpenID Connect scheme.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct OpenIdConnectSecurityScheme {
    /// Description.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    /// Discovery URL (REQUIRED).
    #[serde(alias = "open_id_connect_url")]
    pub open_id_connect_url: String,
}

/// Mutual TLS scheme.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct MutualTlsSecurityScheme {
    /// Description.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
}

/// The OAuth flow, keyed by oneof member name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OAuthFlows {
    /// Authorization code.
    #[serde(alias = "authorization_code")]
    AuthorizationCode(OAuthFlow),
    /// Client credentials.
    #[serde(alias = "client_credentials")]
    ClientCredentials(OAuthFlow),
    /// Implicit (deprecated).
    Implicit(OAuthFlow),
    /// Password (deprecated).
    Password(OAuthFlow),
    /// Device code.
    #[serde(alias = "device_code")]
    DeviceCode(OAuthFlow),
}

/// The members of any OAuth flow (each flow uses a subset).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct OAuthFlow {
    /// Authorization URL.
    #[serde(
        default,
        alias = "authorization_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub authorization_url: String,
    /// Device authorization URL.
    #[serde(
        default,
        alias = "device_authorization_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub device_authorization_url: String,
    /// Token URL.
    #[serde(
        default,
        alias = "token_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub token_url: String,
    /// Refresh URL.
    #[serde(
        default,
        alias = "refresh_url",
        deserialize_with = "nullable",
        skip_serializing_if = "String::is_empty"
    )]
    pub refresh_url: String,
    /// Scope name to description.
    #[serde(default, deserialize_with = "nullable")]
    pub scopes: BTreeMap<String, String>,
    /// PKCE required.
    #[serde(
        default,
        alias = "pkce_required",
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub pkce_required: bool,
}

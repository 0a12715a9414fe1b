//! The Agent Card both ways between 1.0 and 0.3 (`docs/a2a-0.3.md` 1.2-1.4, 3.5, 3.7).
//!
//! [`render`] writes the 0.3 card a header-less reader gets: the 1.0 card plus the 0.3-only
//! members, so one document serves 0.3 readers and still reads as 1.0. [`read`] takes any
//! card a peer serves (1.0, 0.3, or a 1.0 card carrying 0.3 members) and gives the 1.0 model.

use crate::card::{AgentCard, AgentInterface, OAuthFlows, SecurityRequirement, SecurityScheme};
use crate::version::WireVersion;
use crate::{BINDING_GRPC, BINDING_HTTP_JSON, BINDING_JSONRPC};
use serde_json::{json, Map, Value};

/// The top-level Agent Card members that only A2A 0.3 defines. A 1.0 reader ignores them
/// (none has a 1.0 meaning), so a card may carry them for 0.3 readers; the card linter names
/// each one with its 1.0 form.
pub const V03_ONLY_CARD_MEMBERS: [&str; 6] = [
    "url",
    "protocolVersion",
    "preferredTransport",
    "additionalInterfaces",
    "supportsAuthenticatedExtendedCard",
    "security",
];

/// The `protocolVersion` a 0.3 card carries at its top level (the 0.3 schema's default).
pub const V03_CARD_PROTOCOL_VERSION: &str = "0.3.0";

/// The security scheme wrapper names of 1.0 (camelCase and the proto's snake_case): the
/// members a 1.0 reader keeps from a dual-form scheme.
const SCHEME_WRAPPERS: [&str; 10] = [
    "apiKeySecurityScheme",
    "httpAuthSecurityScheme",
    "oauth2SecurityScheme",
    "openIdConnectSecurityScheme",
    "mtlsSecurityScheme",
    "api_key_security_scheme",
    "http_auth_security_scheme",
    "oauth2_security_scheme",
    "open_id_connect_security_scheme",
    "mtls_security_scheme",
];

/// Which form a card was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardForm {
    /// A pure 1.0 card: `supportedInterfaces`, no 0.3 members, wrapper schemes only.
    V1_0,
    /// A 0.3 card (`url`, no `supportedInterfaces`): the 1.0 card was synthesized from it.
    V0_3,
    /// A 1.0 card that also carries 0.3 members or `type`-form schemes (our 0.3 rendering,
    /// a2a-sdk 1.3.0's compat card); read as 1.0, the 0.3 members ignored.
    Mixed,
}

/// Why a card has no 0.3 rendering.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// No interface says a 0.x `protocolVersion` with a standard binding and no tenant, so
    /// there is no `url` to write: a 0.3 card without one would be invalid, and whether 0.3
    /// is served at all is the caller's decision, not something to derive here.
    #[error(
        "the card has no A2A 0.3 interface (standard binding, no tenant) to render as a 0.3 card"
    )]
    NoV03Interface,
}

/// Why a document is not a card we can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardReadError {
    /// The document is not a JSON object.
    #[error("an Agent Card must be a JSON object")]
    NotAnObject,
    /// Neither form's entry point is there.
    #[error("the card has neither `supportedInterfaces` (A2A 1.0) nor `url` (A2A 0.3)")]
    NoInterfaces,
    /// A member has the wrong shape (path and reason).
    #[error("{at}: {reason}")]
    Member {
        /// The member, as a path from the card.
        at: String,
        /// What was wrong.
        reason: String,
    },
    /// The card, once in 1.0 shape, does not parse as a 1.0 card (serde's reason).
    #[error("not a valid A2A {form} card: {reason}")]
    Invalid {
        /// `1.0` or `0.3`: the form it was read in.
        form: &'static str,
        /// serde's message.
        reason: String,
    },
}

fn member(at: impl Into<String>, reason: impl Into<String>) -> CardReadError {
    CardReadError::Member {
        at: at.into(),
        reason: reason.into(),
    }
}

/// Whether this interface is rendered in a 0.3 card: a 0.x `protocolVersion` (an empty one is
/// not taken as 0.3 here: 1.0 requires the member), a binding 0.3 knows, and no tenant
/// (0.3 has nowhere to say it).
pub fn is_v03_interface(i: &AgentInterface) -> bool {
    !i.protocol_version.trim().is_empty()
        && WireVersion::parse(&i.protocol_version) == Some(WireVersion::V0_3)
        && i.tenant.is_empty()
        && [BINDING_JSONRPC, BINDING_HTTP_JSON, BINDING_GRPC].contains(&i.protocol_binding.as_str())
}

/// The 0.3 card: the 1.0 card's members plus `url`/`preferredTransport` (first 0.x
/// interface), `additionalInterfaces` (every 0.x interface, the first included, as the 0.3
/// spec asks), `protocolVersion: "0.3.0"`, `supportsAuthenticatedExtendedCard`, `security`
/// and skill `security`, and every security scheme in both forms at once (wrapper for
/// ProtoJSON/1.0 readers, `type` form for 0.3 JSON readers). `signatures` are copied as they
/// are; per-view signing is the signer's job.
pub fn render(card: &AgentCard) -> Result<Value, RenderError> {
    let ifaces: Vec<&AgentInterface> = card
        .supported_interfaces
        .iter()
        .filter(|i| is_v03_interface(i))
        .collect();
    let first = ifaces.first().ok_or(RenderError::NoV03Interface)?;
    let mut o = match serde_json::to_value(card) {
        Ok(Value::Object(o)) => o,
        // A struct always serializes to an object; keep the function total anyway.
        _ => Map::new(),
    };
    o.insert("url".into(), json!(first.url));
    o.insert("preferredTransport".into(), json!(first.protocol_binding));
    let additional: Vec<Value> = ifaces
        .iter()
        .map(|i| json!({"url": i.url, "transport": i.protocol_binding}))
        .collect();
    o.insert("additionalInterfaces".into(), Value::Array(additional));
    o.insert("protocolVersion".into(), json!(V03_CARD_PROTOCOL_VERSION));
    if let Some(ext) = card.capabilities.extended_agent_card {
        o.insert("supportsAuthenticatedExtendedCard".into(), json!(ext));
    }
    // `required` written even when false: a2a-sdk 0.3 reads a card fetched over gRPC with
    // `required` always set (a proto3 bool), so its signature view has `"required": false`
    // there; written here too, the HTTP and the gRPC reading rebuild the same bytes and one
    // 0.3 signature verifies both ways (design.md D303). 1.0 readers do not sign a `false`.
    if let Some(Value::Array(exts)) = o
        .get_mut("capabilities")
        .and_then(|c| c.get_mut("extensions"))
    {
        for e in exts.iter_mut().filter_map(Value::as_object_mut) {
            e.entry("required").or_insert(json!(false));
        }
    }
    if !card.security_requirements.is_empty() {
        o.insert(
            "security".into(),
            security_to_v03(&card.security_requirements),
        );
    }
    if let Some(Value::Array(skills)) = o.get_mut("skills") {
        for (skill, out) in card.skills.iter().zip(skills.iter_mut()) {
            if let (false, Value::Object(out)) = (skill.security_requirements.is_empty(), out) {
                out.insert(
                    "security".into(),
                    security_to_v03(&skill.security_requirements),
                );
            }
        }
    }
    if let Some(Value::Object(schemes)) = o.get_mut("securitySchemes") {
        for (name, scheme) in &card.security_schemes {
            if let Some(Value::Object(out)) = schemes.get_mut(name) {
                out.extend(scheme_type_form(scheme));
            }
        }
    }
    Ok(Value::Object(o))
}

/// A 0.3 card of [`render`] (signed or not) in the ProtoJSON of the 0.3 proto's `AgentCard`,
/// what `a2a.v1.A2AService/GetAgentCard` answers (`docs/a2a-0.3.md` 1.11): `security` (top
/// level and per skill) in the proto form `[{schemes:{n:{list:[s]}}}]` instead of the 0.3 JSON
/// `[{n:[s]}]`. Everything else already fits: the schemes carry their wrapper half, and the
/// members the proto lacks (`supportedInterfaces`, the schemes' `type` half) are left for a
/// ProtoJSON reader to skip, as it must skip unknown members.
pub fn to_proto_json(v03_card: &Value) -> Value {
    let mut card = v03_card.clone();
    proto_security(&mut card);
    if let Some(Value::Array(skills)) = card.get_mut("skills") {
        skills.iter_mut().for_each(proto_security);
    }
    card
}

/// The inverse of [`to_proto_json`], for a client reading `GetAgentCard`'s answer: the proto
/// `security` form `[{schemes:{n:{list:[s]}}}]` (top level and per skill) back to the 0.3
/// JSON `[{n:[s]}]`, so [`read`] takes the card as it takes one fetched over HTTP. An entry
/// not in the proto form is left as it is (and judged by [`read`]).
pub fn from_proto_json(proto_card: &Value) -> Value {
    let mut card = proto_card.clone();
    v03_security(&mut card);
    if let Some(Value::Array(skills)) = card.get_mut("skills") {
        skills.iter_mut().for_each(v03_security);
    }
    card
}

/// `security: [{schemes:{n:{list:[s]}}}]` -> `[{n:[s]}]` in place, on an object that has it.
fn v03_security(o: &mut Value) {
    if let Some(Value::Array(reqs)) = o.get_mut("security") {
        for r in reqs.iter_mut() {
            let Some(Value::Object(schemes)) = r.get("schemes") else {
                continue;
            };
            let flat: Map<String, Value> = schemes
                .iter()
                .map(|(n, s)| (n.clone(), s.get("list").cloned().unwrap_or(json!([]))))
                .collect();
            *r = Value::Object(flat);
        }
    }
}

/// `security: [{n:[s]}]` -> `[{schemes:{n:{list:[s]}}}]` in place, on an object that has it.
fn proto_security(o: &mut Value) {
    if let Some(Value::Array(reqs)) = o.get_mut("security") {
        for r in reqs.iter_mut() {
            let schemes: Map<String, Value> = match r {
                Value::Object(m) => m
                    .iter()
                    .map(|(n, scopes)| (n.clone(), json!({ "list": scopes })))
                    .collect(),
                _ => Map::new(),
            };
            *r = json!({ "schemes": schemes });
        }
    }
}

/// `[{schemes:{n:{list:[s]}}}]` -> `[{n:[s]}]`.
fn security_to_v03(reqs: &[SecurityRequirement]) -> Value {
    reqs.iter()
        .map(|r| {
            r.schemes
                .iter()
                .map(|(name, scopes)| (name.clone(), json!(scopes.list)))
                .collect::<Map<_, _>>()
        })
        .map(Value::Object)
        .collect()
}

/// The 0.3 `type`-form members of a scheme. OAuth2 `deviceCode` and `pkceRequired` have no
/// 0.3 form and are left out of this half only (the wrapper half keeps them).
fn scheme_type_form(s: &SecurityScheme) -> Map<String, Value> {
    let mut m = Map::new();
    let mut put = |k: &str, v: &str| {
        if !v.is_empty() {
            m.insert(k.into(), json!(v));
        }
    };
    let ty = match s {
        SecurityScheme::ApiKeySecurityScheme(k) => {
            put("in", &k.location);
            put("name", &k.name);
            put("description", &k.description);
            "apiKey"
        }
        SecurityScheme::HttpAuthSecurityScheme(h) => {
            put("scheme", &h.scheme);
            put("bearerFormat", &h.bearer_format);
            put("description", &h.description);
            "http"
        }
        SecurityScheme::Oauth2SecurityScheme(o) => {
            put("oauth2MetadataUrl", &o.oauth2_metadata_url);
            put("description", &o.description);
            m.insert("flows".into(), flows_to_v03(&o.flows));
            "oauth2"
        }
        SecurityScheme::OpenIdConnectSecurityScheme(o) => {
            put("openIdConnectUrl", &o.open_id_connect_url);
            put("description", &o.description);
            "openIdConnect"
        }
        SecurityScheme::MtlsSecurityScheme(t) => {
            put("description", &t.description);
            "mutualTLS"
        }
    };
    m.insert("type".into(), json!(ty));
    m
}

fn flows_to_v03(f: &OAuthFlows) -> Value {
    let (name, flow) = match f {
        OAuthFlows::AuthorizationCode(f) => ("authorizationCode", f),
        OAuthFlows::ClientCredentials(f) => ("clientCredentials", f),
        OAuthFlows::Implicit(f) => ("implicit", f),
        OAuthFlows::Password(f) => ("password", f),
        OAuthFlows::DeviceCode(_) => return json!({}),
    };
    let mut flow = match serde_json::to_value(flow) {
        Ok(Value::Object(o)) => o,
        _ => Map::new(),
    };
    flow.remove("pkceRequired");
    flow.remove("deviceAuthorizationUrl");
    json!({ name: flow })
}

/// The 1.0 view of a card that also carries 0.3 members (the rendering [`render`] writes):
/// the card without [`V03_ONLY_CARD_MEMBERS`] and skill `security`, each dual-form security
/// scheme reduced to its 1.0 wrapper. This is what a 1.0 reader reads of it (see [`read`]) and
/// so what a signature for 1.0 readers covers. `None` when there is nothing to remove: the
/// card is a plain 1.0 card, or not a 1.0 card at all (no `supportedInterfaces`).
pub fn v1_view(value: &Value) -> Option<Value> {
    let Value::Object(o) = value else {
        return None;
    };
    if !o.contains_key("supportedInterfaces") {
        return None;
    }
    let mut view = o.clone();
    let mut changed = false;
    for m in V03_ONLY_CARD_MEMBERS {
        changed |= view.remove(m).is_some();
    }
    if let Some(Value::Array(skills)) = view.get_mut("skills") {
        for skill in skills.iter_mut().filter_map(Value::as_object_mut) {
            changed |= skill.remove("security").is_some();
        }
    }
    if let Some(Value::Object(schemes)) = view.get_mut("securitySchemes") {
        for s in schemes.values_mut().filter_map(Value::as_object_mut) {
            if s.keys().any(|k| SCHEME_WRAPPERS.contains(&k.as_str())) && s.len() > 1 {
                s.retain(|k, _| SCHEME_WRAPPERS.contains(&k.as_str()));
                changed = true;
            }
        }
    }
    changed.then_some(Value::Object(view))
}

/// Reads any card: `supportedInterfaces` present -> a 1.0 reading (0.3 members ignored; of a
/// dual-form scheme only the wrapper is read; a `type`-only scheme is converted); else `url`
/// present -> a 0.3 card, from which a 1.0 card is synthesized whose interfaces carry
/// `protocolVersion: "0.3"` (`url` with `preferredTransport`, default `JSONRPC`, first, then
/// `additionalInterfaces` minus exact duplicates), schemes from the `type` form (a wrapper
/// wins if present), `security` as `securityRequirements` (a 1.0 member wins if present).
pub fn read(value: &Value) -> Result<(AgentCard, CardForm), CardReadError> {
    let Value::Object(o) = value else {
        return Err(CardReadError::NotAnObject);
    };
    if o.contains_key("supportedInterfaces") || o.contains_key("supported_interfaces") {
        let mut card = o.clone();
        let mut form = if V03_ONLY_CARD_MEMBERS.iter().any(|m| o.contains_key(*m)) {
            CardForm::Mixed
        } else {
            CardForm::V1_0
        };
        for key in ["securitySchemes", "security_schemes"] {
            if let Some(schemes) = card.get_mut(key) {
                if normalize_schemes(schemes)? {
                    form = CardForm::Mixed;
                }
            }
        }
        return parse(card, "1.0").map(|c| (c, form));
    }
    if o.contains_key("url") {
        return read_v03(o).map(|c| (c, CardForm::V0_3));
    }
    Err(CardReadError::NoInterfaces)
}

fn parse(card: Map<String, Value>, form: &'static str) -> Result<AgentCard, CardReadError> {
    serde_json::from_value(Value::Object(card)).map_err(|e| CardReadError::Invalid {
        form,
        reason: e.to_string(),
    })
}

/// Rewrites every scheme to its wrapper member alone; true when any scheme carried a `type`
/// form (the card is then mixed).
fn normalize_schemes(schemes: &mut Value) -> Result<bool, CardReadError> {
    let Value::Object(schemes) = schemes else {
        return Ok(false);
    };
    let mut saw_type_form = false;
    for (name, scheme) in schemes.iter_mut() {
        let Value::Object(s) = scheme else { continue };
        saw_type_form |= s.contains_key("type");
        if s.keys().any(|k| SCHEME_WRAPPERS.contains(&k.as_str())) {
            s.retain(|k, _| SCHEME_WRAPPERS.contains(&k.as_str()));
        } else if s.contains_key("type") {
            *scheme = scheme_from_type_form(name, s)?;
        }
    }
    Ok(saw_type_form)
}

/// A 0.3 `type`-form scheme as its 1.0 wrapper. 0.3 OAuth2 `flows` may name several flows;
/// 1.0 holds one, so the first of authorizationCode, clientCredentials, implicit, password
/// is kept.
fn scheme_from_type_form(name: &str, s: &Map<String, Value>) -> Result<Value, CardReadError> {
    let at = format!("securitySchemes.{name}");
    let mut inner = s.clone();
    let ty = match inner.remove("type") {
        Some(Value::String(t)) => t,
        _ => return Err(member(&at, "`type` must be a string")),
    };
    let wrapper = match ty.as_str() {
        "apiKey" => {
            if let Some(loc) = inner.remove("in") {
                inner.insert("location".into(), loc);
            }
            "apiKeySecurityScheme"
        }
        "http" => "httpAuthSecurityScheme",
        "oauth2" => {
            let flows = inner.remove("flows").unwrap_or(Value::Null);
            let one = [
                "authorizationCode",
                "clientCredentials",
                "implicit",
                "password",
            ]
            .into_iter()
            .find_map(|f| flows.get(f).map(|v| json!({ f: v })))
            .ok_or_else(|| member(format!("{at}.flows"), "names no flow A2A 1.0 knows"))?;
            inner.insert("flows".into(), one);
            "oauth2SecurityScheme"
        }
        "openIdConnect" => "openIdConnectSecurityScheme",
        "mutualTLS" => "mtlsSecurityScheme",
        other => {
            return Err(member(
                &at,
                format!("unknown security scheme type {other:?}"),
            ))
        }
    };
    Ok(json!({ wrapper: inner }))
}

/// `[{n:[s]}]` -> `[{schemes:{n:{list:[s]}}}]`.
fn security_from_v03(v: &Value, at: &str) -> Result<Value, CardReadError> {
    let Value::Array(reqs) = v else {
        return Err(member(at, "must be an array of {scheme: [scopes]} objects"));
    };
    let mut out = Vec::with_capacity(reqs.len());
    for (i, r) in reqs.iter().enumerate() {
        let Value::Object(r) = r else {
            return Err(member(format!("{at}[{i}]"), "must be an object"));
        };
        let mut schemes = Map::new();
        for (name, scopes) in r {
            if !scopes
                .as_array()
                .is_some_and(|s| s.iter().all(Value::is_string))
            {
                return Err(member(
                    format!("{at}[{i}].{name}"),
                    "must be an array of scope strings",
                ));
            }
            schemes.insert(name.clone(), json!({ "list": scopes }));
        }
        out.push(json!({ "schemes": schemes }));
    }
    Ok(Value::Array(out))
}

fn str_member<'a>(
    o: &'a Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Option<&'a str>, CardReadError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(member(format!("{at}{key}"), "must be a string")),
    }
}

/// The 1.0 interfaces of a 0.3 card.
fn interfaces_from_v03(o: &Map<String, Value>) -> Result<Vec<Value>, CardReadError> {
    let url = str_member(o, "url", "")?.ok_or_else(|| member("url", "must be a string"))?;
    let transport = str_member(o, "preferredTransport", "")?.unwrap_or(BINDING_JSONRPC);
    let v03 = WireVersion::V0_3.as_str();
    let mut seen = vec![(url.to_string(), transport.to_string())];
    match o.get("additionalInterfaces") {
        None | Some(Value::Null) => {}
        Some(Value::Array(more)) => {
            for (i, item) in more.iter().enumerate() {
                let at = format!("additionalInterfaces[{i}].");
                let Value::Object(item) = item else {
                    return Err(member(
                        format!("additionalInterfaces[{i}]"),
                        "must be an object",
                    ));
                };
                let u = str_member(item, "url", &at)?
                    .ok_or_else(|| member(format!("{at}url"), "missing"))?;
                let t = str_member(item, "transport", &at)?
                    .ok_or_else(|| member(format!("{at}transport"), "missing"))?;
                let pair = (u.to_string(), t.to_string());
                if !seen.contains(&pair) {
                    seen.push(pair);
                }
            }
        }
        Some(_) => return Err(member("additionalInterfaces", "must be an array")),
    }
    Ok(seen
        .into_iter()
        .map(|(u, t)| json!({"url": u, "protocolBinding": t, "protocolVersion": v03}))
        .collect())
}

/// A 1.0 card synthesized from a 0.3 card.
fn read_v03(o: &Map<String, Value>) -> Result<AgentCard, CardReadError> {
    const COPIED: [&str; 9] = [
        "name",
        "description",
        "version",
        "provider",
        "documentationUrl",
        "iconUrl",
        "defaultInputModes",
        "defaultOutputModes",
        "signatures",
    ];
    let mut card: Map<String, Value> = COPIED
        .iter()
        .filter_map(|k| o.get(*k).map(|v| ((*k).to_string(), v.clone())))
        .collect();
    card.insert(
        "supportedInterfaces".into(),
        Value::Array(interfaces_from_v03(o)?),
    );
    let mut caps = match o.get("capabilities") {
        Some(Value::Object(c)) => c.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(_) => return Err(member("capabilities", "must be an object")),
    };
    caps.remove("stateTransitionHistory");
    if let (false, Some(flag)) = (
        caps.contains_key("extendedAgentCard"),
        o.get("supportsAuthenticatedExtendedCard"),
    ) {
        caps.insert("extendedAgentCard".into(), flag.clone());
    }
    card.insert("capabilities".into(), Value::Object(caps));
    if let Some(schemes) = o.get("securitySchemes") {
        let mut schemes = schemes.clone();
        normalize_schemes(&mut schemes)?;
        card.insert("securitySchemes".into(), schemes);
    }
    if let Some(reqs) = o.get("securityRequirements") {
        card.insert("securityRequirements".into(), reqs.clone());
    } else if let Some(sec) = o.get("security") {
        card.insert(
            "securityRequirements".into(),
            security_from_v03(sec, "security")?,
        );
    }
    if let Some(skills) = o.get("skills") {
        card.insert("skills".into(), skills_from_v03(skills)?);
    }
    parse(card, "0.3")
}

fn skills_from_v03(skills: &Value) -> Result<Value, CardReadError> {
    let Value::Array(skills) = skills else {
        return Ok(skills.clone());
    };
    let mut out = Vec::with_capacity(skills.len());
    for (i, skill) in skills.iter().enumerate() {
        let mut skill = skill.clone();
        if let Value::Object(s) = &mut skill {
            if let Some(sec) = s.remove("security") {
                if !s.contains_key("securityRequirements") {
                    let reqs = security_from_v03(&sec, &format!("skills[{i}].security"))?;
                    s.insert("securityRequirements".into(), reqs);
                }
            }
        }
        out.push(skill);
    }
    Ok(Value::Array(out))
}

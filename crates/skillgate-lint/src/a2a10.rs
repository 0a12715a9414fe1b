//! The A2A 1.0 profile. Required-ness comes from the 1.0.1 proto's `REQUIRED` annotations (the
//! generated JSON Schema has no `required` lists), JSON names from ProtoJSON (camelCase, with
//! the snake_case proto names accepted and warned about).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use skillgate_core::Version;

use crate::common::{
    check_endpoint_url, check_link_url, check_modes, check_skill_ids, check_type, idx,
    is_absolute_uri, is_empty, member, ptr, redact, snake, type_name, Ctx, Member, Ty,
};
use crate::rules;

/// Core protocol bindings (A2A 1.0 section 5).
pub(crate) const CORE_BINDINGS: [&str; 3] = ["JSONRPC", "GRPC", "HTTP+JSON"];

const CARD_REQUIRED: [(&str, Ty); 8] = [
    ("name", Ty::Str),
    ("description", Ty::Str),
    ("supportedInterfaces", Ty::Arr),
    ("version", Ty::Str),
    ("capabilities", Ty::Obj),
    ("defaultInputModes", Ty::Arr),
    ("defaultOutputModes", Ty::Arr),
    ("skills", Ty::Arr),
];

const CARD_OPTIONAL: [(&str, Ty); 6] = [
    ("provider", Ty::Obj),
    ("documentationUrl", Ty::Str),
    ("iconUrl", Ty::Str),
    ("securitySchemes", Ty::Obj),
    ("securityRequirements", Ty::Arr),
    ("signatures", Ty::Arr),
];

const SCHEME_KINDS: [&str; 5] = [
    "apiKeySecurityScheme",
    "httpAuthSecurityScheme",
    "oauth2SecurityScheme",
    "openIdConnectSecurityScheme",
    "mtlsSecurityScheme",
];

/// Checks required members (presence, type, non-empty) of one object; returns the present ones.
fn required<'v>(
    ctx: &mut Ctx,
    obj: &'v Map<String, Value>,
    base: &str,
    list: &[(&'static str, Ty)],
    what: &str,
) -> HashMap<&'static str, &'v Value> {
    let mut out = HashMap::new();
    for &(name, ty) in list {
        let sn = snake(name);
        match member(ctx, obj, base, name, &sn) {
            None => ctx.report(
                &rules::A2A_REQ_001,
                ptr(base, name),
                format!("{what} has no {name:?} (REQUIRED in A2A 1.0)"),
            ),
            Some(m) => {
                if check_type(ctx, &rules::A2A_REQ_003, &m.path, m.value, ty) {
                    if is_empty(m.value) {
                        ctx.report(
                            &rules::A2A_REQ_002,
                            m.path.clone(),
                            format!("{what} member {name:?} is empty"),
                        );
                    }
                    out.insert(name, m.value);
                }
            }
        }
    }
    out
}

fn optional<'v>(
    ctx: &mut Ctx,
    obj: &'v Map<String, Value>,
    base: &str,
    list: &[(&'static str, Ty)],
) -> HashMap<&'static str, &'v Value> {
    let mut out = HashMap::new();
    for &(name, ty) in list {
        if let Some(m) = member(ctx, obj, base, name, &snake(name)) {
            // ProtoJSON reads null as "not set".
            if m.value.is_null() {
                continue;
            }
            if check_type(ctx, &rules::A2A_REQ_003, &m.path, m.value, ty) {
                out.insert(name, m.value);
            }
        }
    }
    out
}

/// Reports members not in `known` (nor their snake_case names, nor `legacy`).
fn unknown(
    ctx: &mut Ctx,
    obj: &Map<String, Value>,
    base: &str,
    known: &[&str],
    legacy: &[&str],
    what: &str,
) {
    let allowed: HashSet<String> = known
        .iter()
        .flat_map(|k| [k.to_string(), snake(k)])
        .chain(legacy.iter().map(|s| s.to_string()))
        .collect();
    for k in obj.keys() {
        if !allowed.contains(k) {
            ctx.report(
                &rules::A2A_UNK_001,
                ptr(base, k),
                format!("{what} member {k:?} is not defined by A2A 1.0"),
            );
        }
    }
}

pub(crate) fn lint(ctx: &mut Ctx, obj: &Map<String, Value>) {
    let req = required(ctx, obj, "", &CARD_REQUIRED, "the card");
    let opt = optional(ctx, obj, "", &CARD_OPTIONAL);
    legacy_top_level(ctx, obj, req.get("supportedInterfaces").copied());

    let known: Vec<&str> = CARD_REQUIRED
        .iter()
        .chain(CARD_OPTIONAL.iter())
        .map(|(n, _)| *n)
        .collect();
    unknown(
        ctx,
        obj,
        "",
        &known,
        &[
            "url",
            "protocolVersion",
            "preferredTransport",
            "additionalInterfaces",
            "supportsAuthenticatedExtendedCard",
            "security",
        ],
        "card",
    );

    if let Some(Value::Array(ifaces)) = req.get("supportedInterfaces") {
        interfaces(ctx, ifaces);
    }
    if let Some(Value::Object(caps)) = req.get("capabilities") {
        capabilities(ctx, caps);
    }
    for name in ["defaultInputModes", "defaultOutputModes"] {
        if let Some(Value::Array(modes)) = req.get(name) {
            let path = if obj.contains_key(name) {
                ptr("", name)
            } else {
                ptr("", &snake(name))
            };
            check_modes(ctx, Some(&rules::A2A_REQ_003), &path, modes);
        }
    }
    let scheme_names = match opt.get("securitySchemes") {
        Some(Value::Object(schemes)) => security_schemes(ctx, schemes),
        _ => HashSet::new(),
    };
    if let Some(Value::Array(reqs)) = opt.get("securityRequirements") {
        security_requirements(ctx, "/securityRequirements", reqs, &scheme_names);
    }
    if let Some(Value::Array(skills)) = req.get("skills") {
        for (i, s) in skills.iter().enumerate() {
            skill(ctx, &idx("/skills", i), s, &scheme_names);
        }
        check_skill_ids(
            ctx,
            skills,
            Some(&rules::A2A_SKILL_001),
            &rules::A2A_SKILL_002,
        );
    }
    if let Some(Value::Object(p)) = opt.get("provider") {
        provider(ctx, p);
    }
    for name in ["documentationUrl", "iconUrl"] {
        if let Some(Value::String(s)) = opt.get(name) {
            check_link_url(ctx, &ptr("", name), s);
        }
    }
    if let Some(Value::Array(sigs)) = opt.get("signatures") {
        signatures(ctx, sigs);
    }
}

fn legacy_top_level(ctx: &mut Ctx, obj: &Map<String, Value>, ifaces: Option<&Value>) {
    let listed = |u: &str| {
        ifaces.and_then(Value::as_array).is_some_and(|a| {
            a.iter()
                .any(|i| i.get("url").and_then(Value::as_str) == Some(u))
        })
    };
    if let Some(v) = obj.get("url") {
        let hint = match v.as_str().map(|u| (u, redact(u))) {
            Some((u, shown)) if listed(u) => format!(
                "{shown:?} is already in supportedInterfaces: delete the top-level url."
            ),
            Some((_, shown)) => format!(
                "Move it into supportedInterfaces: {{\"url\": {shown:?}, \"protocolBinding\": \"JSONRPC\", \"protocolVersion\": \"1.0\"}}, then delete the top-level url."
            ),
            None => rules::A2A_LEGACY_001.fix.to_string(),
        };
        ctx.report_hint(
            &rules::A2A_LEGACY_001,
            "/url",
            "top-level \"url\" is the A2A 0.3 endpoint; 1.0 clients read supportedInterfaces"
                .into(),
            hint,
        );
    }
    if obj.contains_key("protocolVersion") {
        ctx.report(
            &rules::A2A_LEGACY_002,
            "/protocolVersion",
            "top-level \"protocolVersion\" is A2A 0.3; in 1.0 it is per interface".into(),
        );
    }
    if let Some(v) = obj.get("preferredTransport") {
        let hint = match v.as_str() {
            Some(t) => format!(
                "Put the {t} interface first in supportedInterfaces (protocolBinding {t:?}) and delete preferredTransport."
            ),
            None => rules::A2A_LEGACY_003.fix.to_string(),
        };
        ctx.report_hint(
            &rules::A2A_LEGACY_003,
            "/preferredTransport",
            "\"preferredTransport\" is A2A 0.3; 1.0 prefers the first supportedInterfaces entry"
                .into(),
            hint,
        );
    }
    if obj.contains_key("additionalInterfaces") {
        ctx.report(
            &rules::A2A_LEGACY_004,
            "/additionalInterfaces",
            "\"additionalInterfaces\" is A2A 0.3; 1.0 lists every interface in supportedInterfaces"
                .into(),
        );
    }
    if let Some(v) = obj.get("supportsAuthenticatedExtendedCard") {
        let hint = match v {
            Value::Bool(b) => format!(
                "Set \"capabilities\": {{\"extendedAgentCard\": {b}}} and delete supportsAuthenticatedExtendedCard."
            ),
            _ => rules::A2A_LEGACY_005.fix.to_string(),
        };
        ctx.report_hint(
            &rules::A2A_LEGACY_005,
            "/supportsAuthenticatedExtendedCard",
            "\"supportsAuthenticatedExtendedCard\" is A2A 0.3".into(),
            hint,
        );
    }
    if let Some(v) = obj.get("security") {
        ctx.report_hint(
            &rules::A2A_LEGACY_007,
            "/security",
            "\"security\" is the A2A 0.3 requirement list; 1.0 parsers ignore it".into(),
            security_hint(v),
        );
    }
}

/// A 1.0 securityRequirements value equivalent to a 0.3 `security` value, as a hint.
fn security_hint(v: &Value) -> String {
    let Some(list) = v.as_array() else {
        return rules::A2A_LEGACY_007.fix.to_string();
    };
    let converted: Vec<Value> = list
        .iter()
        .filter_map(Value::as_object)
        .map(|req| {
            let schemes: Map<String, Value> = req
                .iter()
                .map(|(name, scopes)| {
                    (
                        name.clone(),
                        serde_json::json!({ "list": scopes.as_array().cloned().unwrap_or_default() }),
                    )
                })
                .collect();
            serde_json::json!({ "schemes": schemes })
        })
        .collect();
    format!(
        "Write \"securityRequirements\": {} and delete \"security\".",
        Value::Array(converted)
    )
}

fn interfaces(ctx: &mut Ctx, ifaces: &[Value]) {
    const REQ: [(&str, Ty); 3] = [
        ("url", Ty::Str),
        ("protocolBinding", Ty::Str),
        ("protocolVersion", Ty::Str),
    ];
    let mut seen: HashMap<(String, String, String), usize> = HashMap::new();
    let mut urls: Vec<String> = Vec::new();
    let mut bindings: HashSet<String> = HashSet::new();
    for (i, iface) in ifaces.iter().enumerate() {
        let base = idx("/supportedInterfaces", i);
        let Some(o) = iface.as_object() else {
            ctx.report(
                &rules::A2A_REQ_003,
                base,
                format!("an interface must be an object, found {}", type_name(iface)),
            );
            continue;
        };
        if let Some(t) = o.get("transport") {
            let hint = match (t.as_str(), o.contains_key("protocolVersion")) {
                (Some(t), true) => format!("Rename it: \"protocolBinding\": {t:?}."),
                (Some(t), false) => format!(
                    "Rename it and add the version: \"protocolBinding\": {t:?}, \"protocolVersion\": \"1.0\"."
                ),
                (None, _) => rules::A2A_LEGACY_010.fix.to_string(),
            };
            ctx.report_hint(
                &rules::A2A_LEGACY_010,
                ptr(&base, "transport"),
                "\"transport\" is the A2A 0.3 name of protocolBinding".into(),
                hint,
            );
        }
        let got = required(ctx, o, &base, &REQ, "the interface");
        let tenant = optional(ctx, o, &base, &[("tenant", Ty::Str)]);
        unknown(
            ctx,
            o,
            &base,
            &["url", "protocolBinding", "protocolVersion", "tenant"],
            &["transport"],
            "interface",
        );
        if let Some(Value::String(u)) = got.get("url") {
            if !u.trim().is_empty() {
                check_endpoint_url(ctx, &ptr(&base, "url"), u);
            }
            urls.push(u.clone());
        }
        if let Some(Value::String(b)) = got.get("protocolBinding") {
            check_binding(ctx, &ptr(&base, "protocolBinding"), b);
            bindings.insert(b.clone());
        }
        if let Some(Value::String(v)) = got.get("protocolVersion") {
            if !v.trim().is_empty() && !Version::is_valid(v) {
                let hint = match v.split('.').collect::<Vec<_>>().as_slice() {
                    [maj, min, _] if Version::is_valid(&format!("{maj}.{min}")) => {
                        format!("Write \"{maj}.{min}\": protocol versions have no patch part.")
                    }
                    _ => rules::A2A_IF_001.fix.to_string(),
                };
                ctx.report_hint(
                    &rules::A2A_IF_001,
                    ptr(&base, "protocolVersion"),
                    format!("protocolVersion {v:?} is not Major.Minor"),
                    hint,
                );
            }
        }
        let key = (
            got.get("url")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string(),
            got.get("protocolBinding")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string(),
            tenant
                .get("tenant")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string(),
        );
        if let Some(first) = seen.get(&key) {
            ctx.report(
                &rules::A2A_IF_004,
                base,
                format!("same url, binding and tenant as /supportedInterfaces/{first}"),
            );
        } else {
            seen.insert(key, i);
        }
    }
    if urls.len() >= 2 && bindings.len() >= 2 && urls.iter().all(|u| *u == urls[0]) {
        ctx.report(
            &rules::A2A_IF_003,
            "/supportedInterfaces",
            format!(
                "all {} interfaces ({} bindings) use the same URL {:?}",
                urls.len(),
                bindings.len(),
                urls[0]
            ),
        );
    }
}

/// A2A-IF-002: a core binding or a URI.
pub(crate) fn check_binding(ctx: &mut Ctx, path: &str, b: &str) {
    if CORE_BINDINGS.contains(&b) || is_absolute_uri(b) {
        return;
    }
    let hint = match CORE_BINDINGS.iter().find(|c| {
        c.eq_ignore_ascii_case(b)
            || c.replace('+', "")
                .eq_ignore_ascii_case(&b.replace(['+', '-', '_', ' '], ""))
            || (b.eq_ignore_ascii_case("rest") && **c == "HTTP+JSON")
    }) {
        Some(c) => format!("Did you mean {c:?}? Core binding names are case-sensitive."),
        None => rules::A2A_IF_002.fix.to_string(),
    };
    ctx.report_hint(
        &rules::A2A_IF_002,
        path,
        format!("binding {b:?} is neither a core binding (JSONRPC, GRPC, HTTP+JSON) nor a URI"),
        hint,
    );
}

fn capabilities(ctx: &mut Ctx, caps: &Map<String, Value>) {
    let base = "/capabilities";
    let got = optional(
        ctx,
        caps,
        base,
        &[
            ("streaming", Ty::Bool),
            ("pushNotifications", Ty::Bool),
            ("extendedAgentCard", Ty::Bool),
        ],
    );
    let _ = got;
    if caps.contains_key("stateTransitionHistory") {
        ctx.report(
            &rules::A2A_LEGACY_006,
            "/capabilities/stateTransitionHistory",
            "\"stateTransitionHistory\" was removed in A2A 1.0".into(),
        );
    }
    unknown(
        ctx,
        caps,
        base,
        &[
            "streaming",
            "pushNotifications",
            "extendedAgentCard",
            "extensions",
        ],
        &["stateTransitionHistory"],
        "capabilities",
    );
    let Some(exts) = caps.get("extensions") else {
        return;
    };
    let path = ptr(base, "extensions");
    if !check_type(ctx, &rules::A2A_REQ_003, &path, exts, Ty::Arr) {
        return;
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, e) in exts.as_array().into_iter().flatten().enumerate() {
        let ep = idx(&path, i);
        let Some(o) = e.as_object() else {
            ctx.report(
                &rules::A2A_REQ_003,
                ep,
                format!("an extension must be an object, found {}", type_name(e)),
            );
            continue;
        };
        let got = optional(
            ctx,
            o,
            &ep,
            &[
                ("description", Ty::Str),
                ("required", Ty::Bool),
                ("params", Ty::Obj),
            ],
        );
        let _ = got;
        unknown(
            ctx,
            o,
            &ep,
            &["uri", "description", "required", "params"],
            &[],
            "extension",
        );
        match o.get("uri") {
            None => ctx.report(
                &rules::A2A_EXT_001,
                ptr(&ep, "uri"),
                "the extension has no uri".into(),
            ),
            Some(Value::String(u)) => {
                if !is_absolute_uri(u) {
                    ctx.report(
                        &rules::A2A_EXT_002,
                        ptr(&ep, "uri"),
                        format!("{u:?} is not an absolute URI"),
                    );
                }
                if let Some(first) = seen.get(u.as_str()) {
                    ctx.report(
                        &rules::A2A_EXT_003,
                        ptr(&ep, "uri"),
                        format!("{u:?} is also declared at {path}/{first}"),
                    );
                } else {
                    seen.insert(u, i);
                }
            }
            Some(other) => ctx.report(
                &rules::A2A_REQ_003,
                ptr(&ep, "uri"),
                format!("must be a string, found {}", type_name(other)),
            ),
        }
    }
}

fn skill(ctx: &mut Ctx, base: &str, s: &Value, scheme_names: &HashSet<String>) {
    const REQ: [(&str, Ty); 4] = [
        ("id", Ty::Str),
        ("name", Ty::Str),
        ("description", Ty::Str),
        ("tags", Ty::Arr),
    ];
    const OPT: [(&str, Ty); 4] = [
        ("examples", Ty::Arr),
        ("inputModes", Ty::Arr),
        ("outputModes", Ty::Arr),
        ("securityRequirements", Ty::Arr),
    ];
    let Some(o) = s.as_object() else {
        ctx.report(
            &rules::A2A_REQ_003,
            base,
            format!("a skill must be an object, found {}", type_name(s)),
        );
        return;
    };
    let got = required(ctx, o, base, &REQ, "the skill");
    let opt = optional(ctx, o, base, &OPT);
    for legacy in [
        "inputSchema",
        "input_schema",
        "outputSchema",
        "output_schema",
    ] {
        if o.contains_key(legacy) {
            ctx.report(
                &rules::A2A_LEGACY_008,
                ptr(base, legacy),
                format!("{legacy:?} is not an A2A 1.0 skill member and is not a contract"),
            );
        }
    }
    if let Some(v) = o.get("security") {
        ctx.report_hint(
            &rules::A2A_LEGACY_007,
            ptr(base, "security"),
            "\"security\" is the A2A 0.3 requirement list; 1.0 parsers ignore it".into(),
            security_hint(v),
        );
    }
    let known: Vec<&str> = REQ.iter().chain(OPT.iter()).map(|(n, _)| *n).collect();
    unknown(
        ctx,
        o,
        base,
        &known,
        &[
            "inputSchema",
            "input_schema",
            "outputSchema",
            "output_schema",
            "security",
        ],
        "skill",
    );
    if let Some(Value::Array(tags)) = got.get("tags") {
        for (i, t) in tags.iter().enumerate() {
            let p = idx(&ptr(base, "tags"), i);
            match t {
                Value::String(s) if s.trim().is_empty() => {
                    ctx.report(&rules::A2A_SKILL_003, p, "empty tag".into())
                }
                Value::String(_) => {}
                other => ctx.report(
                    &rules::A2A_REQ_003,
                    p,
                    format!("a tag must be a string, found {}", type_name(other)),
                ),
            }
        }
    }
    if let Some(Value::Array(ex)) = opt.get("examples") {
        for (i, e) in ex.iter().enumerate() {
            if !e.is_string() {
                ctx.report(
                    &rules::A2A_REQ_003,
                    idx(&ptr(base, "examples"), i),
                    format!("an example must be a string, found {}", type_name(e)),
                );
            }
        }
    }
    for name in ["inputModes", "outputModes"] {
        if let Some(Value::Array(m)) = opt.get(name) {
            let p = if o.contains_key(name) {
                ptr(base, name)
            } else {
                ptr(base, &snake(name))
            };
            check_modes(ctx, Some(&rules::A2A_REQ_003), &p, m);
        }
    }
    if let Some(Value::Array(r)) = opt.get("securityRequirements") {
        security_requirements(ctx, &ptr(base, "securityRequirements"), r, scheme_names);
    }
}

fn provider(ctx: &mut Ctx, p: &Map<String, Value>) {
    for name in ["organization", "url"] {
        match p.get(name) {
            None => ctx.report(
                &rules::A2A_PROVIDER_001,
                ptr("/provider", name),
                format!("provider has no {name:?}; organization and url go together"),
            ),
            Some(Value::String(s)) if s.trim().is_empty() => ctx.report(
                &rules::A2A_PROVIDER_001,
                ptr("/provider", name),
                format!("provider {name:?} is empty"),
            ),
            Some(Value::String(s)) if name == "url" => check_link_url(ctx, "/provider/url", s),
            Some(Value::String(_)) => {}
            Some(other) => ctx.report(
                &rules::A2A_REQ_003,
                ptr("/provider", name),
                format!("must be a string, found {}", type_name(other)),
            ),
        }
    }
    unknown(
        ctx,
        p,
        "/provider",
        &["organization", "url"],
        &[],
        "provider",
    );
}

fn security_schemes(ctx: &mut Ctx, schemes: &Map<String, Value>) -> HashSet<String> {
    for (name, s) in schemes {
        let p = ptr("/securitySchemes", name);
        let Some(o) = s.as_object() else {
            ctx.report(
                &rules::A2A_REQ_003,
                p,
                format!(
                    "a security scheme must be an object, found {}",
                    type_name(s)
                ),
            );
            continue;
        };
        if o.contains_key("type") {
            ctx.report_hint(
                &rules::A2A_LEGACY_009,
                p,
                format!("scheme {name:?} uses the 0.3 shape {{\"type\": ...}}"),
                legacy_scheme_hint(o),
            );
            continue;
        }
        let kinds: Vec<(&str, Member)> = SCHEME_KINDS
            .iter()
            .filter_map(|k| member(ctx, o, &p, k, &snake(k)).map(|m| (*k, m)))
            .collect();
        if kinds.len() != 1 || o.len() != 1 {
            ctx.report(
                &rules::A2A_SEC_001,
                p,
                format!(
                    "scheme {name:?} has members {:?}; exactly one scheme kind is allowed",
                    o.keys().collect::<Vec<_>>()
                ),
            );
            continue;
        }
        if let Some((kind, m)) = kinds.first() {
            scheme_body(ctx, kind, &m.path, m.value);
        }
    }
    schemes.keys().cloned().collect()
}

/// The REQUIRED members of one scheme kind (A2A-SEC-004) and its URLs.
fn scheme_body(ctx: &mut Ctx, kind: &str, base: &str, body: &Value) {
    let Some(o) = body.as_object() else {
        ctx.report(
            &rules::A2A_REQ_003,
            base,
            format!("{kind} must be an object, found {}", type_name(body)),
        );
        return;
    };
    let need: &[&str] = match kind {
        "apiKeySecurityScheme" => &["location", "name"],
        "httpAuthSecurityScheme" => &["scheme"],
        "oauth2SecurityScheme" => &["flows"],
        "openIdConnectSecurityScheme" => &["openIdConnectUrl"],
        _ => &[],
    };
    let mut got: HashMap<&str, &Value> = HashMap::new();
    for n in need {
        match member(ctx, o, base, n, &snake(n)) {
            Some(m) if !is_empty(m.value) => {
                got.insert(n, m.value);
            }
            _ => ctx.report(
                &rules::A2A_SEC_004,
                ptr(base, n),
                format!("{kind} has no {n:?} (REQUIRED)"),
            ),
        }
    }
    if let Some(Value::String(loc)) = got.get("location") {
        if !["header", "query", "cookie"].contains(&loc.as_str()) {
            ctx.report_hint(
                &rules::A2A_SEC_005,
                ptr(base, "location"),
                format!("API key location {loc:?} is not header, query or cookie"),
                "Use \"header\", \"query\" or \"cookie\".".into(),
            );
        }
    }
    if let Some(Value::String(u)) = got.get("openIdConnectUrl") {
        check_endpoint_url(ctx, &ptr(base, "openIdConnectUrl"), u);
    }
    if let Some(Value::String(u)) = o.get("oauth2MetadataUrl") {
        check_endpoint_url(ctx, &ptr(base, "oauth2MetadataUrl"), u);
    }
    let Some(flows) = got.get("flows").and_then(|f| f.as_object()) else {
        return;
    };
    let fp = ptr(base, "flows");
    const FLOWS: [(&str, &[&str]); 5] = [
        (
            "authorizationCode",
            &["authorizationUrl", "tokenUrl", "scopes"],
        ),
        ("clientCredentials", &["tokenUrl", "scopes"]),
        (
            "deviceCode",
            &["deviceAuthorizationUrl", "tokenUrl", "scopes"],
        ),
        ("implicit", &["authorizationUrl", "scopes"]),
        ("password", &["tokenUrl", "scopes"]),
    ];
    let present: Vec<_> = FLOWS
        .iter()
        .filter_map(|(f, req)| member(ctx, flows, &fp, f, &snake(f)).map(|m| (*f, *req, m)))
        .collect();
    if present.len() != 1 {
        ctx.report(
            &rules::A2A_SEC_004,
            fp.clone(),
            format!(
                "flows must hold exactly one flow (OAuthFlows is a oneof), found {}",
                present.len()
            ),
        );
    }
    for (flow, req, m) in present {
        if matches!(flow, "implicit" | "password") {
            ctx.report(
                &rules::A2A_SEC_005,
                m.path.clone(),
                format!("the {flow} flow is deprecated in A2A 1.0"),
            );
        }
        let Some(fo) = m.value.as_object() else {
            ctx.report(
                &rules::A2A_REQ_003,
                m.path.clone(),
                format!("a flow must be an object, found {}", type_name(m.value)),
            );
            continue;
        };
        for n in req {
            match member(ctx, fo, &m.path, n, &snake(n)) {
                None => ctx.report(
                    &rules::A2A_SEC_004,
                    ptr(&m.path, n),
                    format!("the {flow} flow has no {n:?} (REQUIRED)"),
                ),
                Some(v) if n.ends_with("Url") => match v.value.as_str() {
                    Some(u) => check_endpoint_url(ctx, &v.path, u),
                    None => ctx.report(
                        &rules::A2A_REQ_003,
                        v.path.clone(),
                        format!("must be a string, found {}", type_name(v.value)),
                    ),
                },
                Some(v) => {
                    if !v
                        .value
                        .as_object()
                        .is_some_and(|sc| sc.values().all(Value::is_string))
                    {
                        ctx.report(
                            &rules::A2A_REQ_003,
                            v.path.clone(),
                            "scopes must be an object of scope name to description".into(),
                        );
                    }
                }
            }
        }
    }
}

/// The 1.0 form of a 0.3 security scheme, as a hint.
pub(crate) fn legacy_scheme_hint(o: &Map<String, Value>) -> String {
    let mut body = o.clone();
    body.remove("type");
    let kind = match o.get("type").and_then(Value::as_str) {
        Some("apiKey") => {
            if let Some(v) = body.remove("in") {
                body.insert("location".into(), v);
            }
            "apiKeySecurityScheme"
        }
        Some("http") => "httpAuthSecurityScheme",
        Some("oauth2") => "oauth2SecurityScheme",
        Some("openIdConnect") => "openIdConnectSecurityScheme",
        Some("mutualTLS") => "mtlsSecurityScheme",
        _ => return rules::A2A_LEGACY_009.fix.to_string(),
    };
    let mut wrapped = Map::new();
    wrapped.insert(kind.into(), Value::Object(body));
    format!("Write {} instead.", Value::Object(wrapped))
}

fn security_requirements(ctx: &mut Ctx, base: &str, reqs: &[Value], names: &HashSet<String>) {
    for (i, r) in reqs.iter().enumerate() {
        let p = idx(base, i);
        let schemes = r.as_object().and_then(|o| {
            if o.len() == 1 {
                o.get("schemes").and_then(Value::as_object)
            } else {
                None
            }
        });
        let Some(schemes) = schemes else {
            ctx.report(
                &rules::A2A_SEC_003,
                p,
                "expected {\"schemes\": {NAME: {\"list\": [SCOPES]}}}".into(),
            );
            continue;
        };
        for (name, scopes) in schemes {
            let sp = ptr(&ptr(&p, "schemes"), name);
            let list_ok = scopes.as_object().is_some_and(|o| {
                o.keys().all(|k| k == "list")
                    && o.get("list").is_none_or(|l| {
                        l.as_array().is_some_and(|a| a.iter().all(Value::is_string))
                    })
            });
            if !list_ok {
                ctx.report(
                    &rules::A2A_SEC_003,
                    sp.clone(),
                    format!("scopes of {name:?} must be {{\"list\": [strings]}}"),
                );
            }
            if !names.contains(name) {
                ctx.report(
                    &rules::A2A_SEC_002,
                    sp,
                    format!("scheme {name:?} is not declared in securitySchemes"),
                );
            }
        }
    }
}

fn signatures(ctx: &mut Ctx, sigs: &[Value]) {
    for (i, s) in sigs.iter().enumerate() {
        let p = idx("/signatures", i);
        for m in ["protected", "signature"] {
            let ok = s
                .get(m)
                .and_then(Value::as_str)
                .is_some_and(|v| !v.is_empty());
            if !ok {
                ctx.report(
                    &rules::A2A_SIG_001,
                    ptr(&p, m),
                    format!("signature member {m:?} is missing or not a non-empty string"),
                );
            }
        }
    }
}

//! `securitySchemes` and `securityRequirements` (A2A-SEC-*): 1.0 scheme kinds, OAuth flows,
//! URLs, and requirements naming declared schemes.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::common::{
    check_endpoint_url, idx, is_empty, member, ptr, snake, type_name, Ctx, Member,
};
use crate::rules;

const SCHEME_KINDS: [&str; 5] = [
    "apiKeySecurityScheme",
    "httpAuthSecurityScheme",
    "oauth2SecurityScheme",
    "openIdConnectSecurityScheme",
    "mtlsSecurityScheme",
];

/// `securitySchemes`: each a 1.0 oneof of exactly one kind; returns the declared names.
pub(super) fn security_schemes(ctx: &mut Ctx, schemes: &Map<String, Value>) -> HashSet<String> {
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
    if let Some(flows) = got.get("flows").and_then(|f| f.as_object()) {
        oauth_flows(ctx, &ptr(base, "flows"), flows);
    }
}

/// An oauth2 scheme's `flows`: exactly one flow (a oneof), not a deprecated one, with its
/// REQUIRED URLs and scopes.
fn oauth_flows(ctx: &mut Ctx, fp: &str, flows: &Map<String, Value>) {
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
        .filter_map(|(f, req)| member(ctx, flows, fp, f, &snake(f)).map(|m| (*f, *req, m)))
        .collect();
    if present.len() != 1 {
        ctx.report(
            &rules::A2A_SEC_004,
            fp,
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

/// `securityRequirements` (card or skill): the 1.0 shape, and every name declared.
pub(super) fn security_requirements(
    ctx: &mut Ctx,
    base: &str,
    reqs: &[Value],
    names: &HashSet<String>,
) {
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

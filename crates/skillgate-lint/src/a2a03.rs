//! The legacy A2A 0.3 profile: the 0.3.0 JSON Schema (embedded, never fetched), the checks that
//! mean the same in both versions, and a migration report to 1.0.

use std::sync::OnceLock;

use serde_json::{json, Map, Value};

use crate::a2a10::{check_binding, legacy_scheme_hint};
use crate::common::{
    check_endpoint_url, check_link_url, check_modes, check_skill_ids, idx, ptr, redact, Ctx,
};
use crate::rules;

/// The A2A 0.3.0 JSON Schema bundle (draft-07), copied unchanged from the A2A repository.
const SCHEMA_TEXT: &str = include_str!("../schemas/a2a-v0.3.0.json");
/// At most this many schema findings, so that a hostile card cannot blow up the report.
const MAX_SCHEMA_FINDINGS: usize = 200;

fn validator() -> Result<&'static jsonschema::Validator, &'static str> {
    static V: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    V.get_or_init(|| {
        let bundle: Value = serde_json::from_str(SCHEMA_TEXT).map_err(|e| e.to_string())?;
        let defs = bundle.get("definitions").cloned().unwrap_or(Value::Null);
        let root = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": defs,
            "$ref": "#/definitions/AgentCard",
        });
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft7)
            .build(&root)
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(String::as_str)
}

pub(crate) fn lint(ctx: &mut Ctx, card: &Value, obj: &Map<String, Value>) {
    match validator() {
        Ok(v) => {
            for e in v.iter_errors(card).take(MAX_SCHEMA_FINDINGS) {
                let mut path = e.instance_path().as_str().to_string();
                // A missing member is reported where it belongs, like the 1.0 rules do.
                if let jsonschema::error::ValidationErrorKind::Required {
                    property: Value::String(p),
                } = e.kind()
                {
                    path = ptr(&path, p);
                }
                ctx.report(
                    &rules::A2A03_SCHEMA_001,
                    path,
                    format!("0.3 schema: {}", e.masked()),
                );
            }
        }
        Err(why) => ctx.report(
            &rules::A2A03_SCHEMA_001,
            "",
            format!("the embedded 0.3 schema did not compile: {why}"),
        ),
    }

    if let Some(Value::String(u)) = obj.get("url") {
        check_endpoint_url(ctx, "/url", u);
    }
    if let Some(Value::String(t)) = obj.get("preferredTransport") {
        check_binding(ctx, "/preferredTransport", t);
    }
    if let Some(Value::Array(extra)) = obj.get("additionalInterfaces") {
        for (i, a) in extra.iter().enumerate() {
            let base = idx("/additionalInterfaces", i);
            if let Some(Value::String(u)) = a.get("url") {
                check_endpoint_url(ctx, &ptr(&base, "url"), u);
            }
            if let Some(Value::String(t)) = a.get("transport") {
                check_binding(ctx, &ptr(&base, "transport"), t);
            }
        }
    }
    if let Some(Value::String(v)) = obj.get("protocolVersion") {
        if !(v == "0.3" || v.starts_with("0.3.")) {
            ctx.report(
                &rules::A2A03_VER_001,
                "/protocolVersion",
                format!("protocolVersion {v:?} is not a 0.3 version"),
            );
        }
    }
    for name in ["defaultInputModes", "defaultOutputModes"] {
        if let Some(Value::Array(m)) = obj.get(name) {
            check_modes(ctx, None, &ptr("", name), m);
        }
    }
    if let Some(Value::Array(skills)) = obj.get("skills") {
        for (i, s) in skills.iter().enumerate() {
            for name in ["inputModes", "outputModes"] {
                if let Some(Value::Array(m)) = s.get(name) {
                    check_modes(ctx, None, &ptr(&idx("/skills", i), name), m);
                }
            }
        }
        check_skill_ids(
            ctx,
            skills,
            Some(&rules::A2A_SKILL_001),
            &rules::A2A_SKILL_002,
        );
    }
    if let Some(Value::String(u)) = obj.get("provider").and_then(|p| p.get("url")) {
        check_link_url(ctx, "/provider/url", u);
    }
    for name in ["documentationUrl", "iconUrl"] {
        if let Some(Value::String(u)) = obj.get(name) {
            check_link_url(ctx, &ptr("", name), u);
        }
    }
    migration_report(ctx, obj);
}

/// The mechanical 1.0 form of a 0.3 card (what the migration notes describe).
pub(crate) fn migrate(obj: &Map<String, Value>) -> Map<String, Value> {
    let mut out: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| !skillgate_a2a::V03_ONLY_CARD_MEMBERS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    out.insert("supportedInterfaces".into(), Value::Array(interfaces(obj)));
    let mut caps = obj
        .get("capabilities")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    caps.remove("stateTransitionHistory");
    if let Some(Value::Bool(b)) = obj.get("supportsAuthenticatedExtendedCard") {
        caps.insert("extendedAgentCard".into(), Value::Bool(*b));
    }
    out.insert("capabilities".into(), Value::Object(caps));
    if let Some(sec) = obj.get("security") {
        out.insert("securityRequirements".into(), requirements(sec));
    }
    if let Some(Value::Object(schemes)) = obj.get("securitySchemes") {
        let converted: Map<String, Value> = schemes
            .iter()
            .map(|(k, v)| (k.clone(), scheme(v)))
            .collect();
        out.insert("securitySchemes".into(), Value::Object(converted));
    }
    if let Some(Value::Array(skills)) = obj.get("skills") {
        let converted = skills
            .iter()
            .map(|s| match s.as_object() {
                Some(o) => {
                    let mut o = o.clone();
                    if let Some(sec) = o.remove("security") {
                        o.insert("securityRequirements".into(), requirements(&sec));
                    }
                    Value::Object(o)
                }
                None => s.clone(),
            })
            .collect();
        out.insert("skills".into(), Value::Array(converted));
    }
    out
}

/// The A2A 1.0 `protocolBinding` for a 0.3 transport name: 0.3 cards wrote `rest`, `http`
/// or `json-rpc` in any case, 1.0 knows only `JSONRPC`, `GRPC` and `HTTP+JSON`.
fn binding_1_0(transport: &Value) -> Value {
    let Some(t) = transport.as_str() else {
        return transport.clone();
    };
    let name = match t.to_ascii_lowercase().as_str() {
        "rest" | "http" | "http+json" | "http_json" | "httpjson" => "HTTP+JSON",
        "jsonrpc" | "json-rpc" | "json_rpc" => "JSONRPC",
        "grpc" => "GRPC",
        _ => return transport.clone(),
    };
    Value::String(name.to_owned())
}

fn interfaces(obj: &Map<String, Value>) -> Vec<Value> {
    let mut list: Vec<Value> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut push = |url: &Value, binding: &Value| {
        let binding = binding_1_0(binding);
        if seen.insert(format!("{url}\u{0}{binding}")) {
            list.push(json!({"url": url, "protocolBinding": binding, "protocolVersion": "1.0"}));
        }
    };
    if let Some(url) = obj.get("url") {
        let binding = obj
            .get("preferredTransport")
            .cloned()
            .unwrap_or_else(|| Value::String("JSONRPC".into()));
        push(url, &binding);
    }
    if let Some(Value::Array(extra)) = obj.get("additionalInterfaces") {
        for a in extra {
            if let (Some(u), Some(t)) = (a.get("url"), a.get("transport")) {
                push(u, t);
            }
        }
    }
    list
}

fn requirements(sec: &Value) -> Value {
    let Some(list) = sec.as_array() else {
        return sec.clone();
    };
    Value::Array(
        list.iter()
            .map(|req| {
                let schemes: Map<String, Value> = req
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(n, scopes)| (n.clone(), json!({"list": scopes})))
                    .collect();
                json!({"schemes": schemes})
            })
            .collect(),
    )
}

fn scheme(v: &Value) -> Value {
    let Some(o) = v.as_object() else {
        return v.clone();
    };
    let mut body = o.clone();
    let kind = match o.get("type").and_then(Value::as_str) {
        Some("apiKey") => {
            if let Some(loc) = body.remove("in") {
                body.insert("location".into(), loc);
            }
            "apiKeySecurityScheme"
        }
        Some("http") => "httpAuthSecurityScheme",
        Some("oauth2") => "oauth2SecurityScheme",
        Some("openIdConnect") => "openIdConnectSecurityScheme",
        Some("mutualTLS") => "mtlsSecurityScheme",
        _ => return v.clone(),
    };
    body.remove("type");
    json!({ kind: body })
}

fn migration_report(ctx: &mut Ctx, obj: &Map<String, Value>) {
    let migrated = migrate(obj);
    let mut ifaces = migrated
        .get("supportedInterfaces")
        .cloned()
        .unwrap_or(Value::Null);
    // The hint shows the URLs, but never a password in them.
    for i in ifaces.as_array_mut().into_iter().flatten() {
        if let Some(Value::String(u)) = i.get_mut("url") {
            *u = redact(u);
        }
    }
    if obj.contains_key("url") {
        ctx.report_hint(
            &rules::A2A03_MIG_001,
            "/url",
            "1.0 has no top-level url, preferredTransport or protocolVersion".into(),
            format!("Write \"supportedInterfaces\": {ifaces} and delete url, preferredTransport and protocolVersion."),
        );
    }
    if let Some(Value::Array(extra)) = obj.get("additionalInterfaces") {
        ctx.report_hint(
            &rules::A2A03_MIG_002,
            "/additionalInterfaces",
            format!(
                "{} additional interface(s) move into supportedInterfaces",
                extra.len()
            ),
            format!("The full 1.0 list is {ifaces}; delete additionalInterfaces."),
        );
    }
    if obj.contains_key("supportsAuthenticatedExtendedCard") {
        ctx.report(
            &rules::A2A03_MIG_003,
            "/supportsAuthenticatedExtendedCard",
            "the flag becomes capabilities.extendedAgentCard".into(),
        );
    }
    if obj
        .get("capabilities")
        .is_some_and(|c| c.get("stateTransitionHistory").is_some())
    {
        ctx.report(
            &rules::A2A03_MIG_004,
            "/capabilities/stateTransitionHistory",
            "stateTransitionHistory does not exist in 1.0".into(),
        );
    }
    if let Some(sec) = obj.get("security") {
        ctx.report_hint(
            &rules::A2A03_MIG_005,
            "/security",
            "security becomes securityRequirements".into(),
            format!("Write \"securityRequirements\": {}.", requirements(sec)),
        );
    }
    if let Some(Value::Array(skills)) = obj.get("skills") {
        for (i, s) in skills.iter().enumerate() {
            if let Some(sec) = s.get("security") {
                ctx.report_hint(
                    &rules::A2A03_MIG_005,
                    ptr(&idx("/skills", i), "security"),
                    "skill security becomes securityRequirements".into(),
                    format!("Write \"securityRequirements\": {}.", requirements(sec)),
                );
            }
        }
    }
    if let Some(Value::Object(schemes)) = obj.get("securitySchemes") {
        for (name, s) in schemes {
            if let Some(o) = s.as_object().filter(|o| o.contains_key("type")) {
                ctx.report_hint(
                    &rules::A2A03_MIG_006,
                    ptr("/securitySchemes", name),
                    format!("scheme {name:?} changes shape in 1.0"),
                    legacy_scheme_hint(o),
                );
            }
        }
    }
    // What the mechanical migration cannot fix: lint the migrated card as 1.0.
    let mut sub = Ctx::new(None);
    crate::a2a10::lint(&mut sub, &migrated);
    let report = sub.finish(crate::Profile::A2a10, false);
    let already = ctx.error_paths();
    for f in report
        .findings
        .into_iter()
        .filter(|f| f.severity == rules::Severity::Error)
    {
        // Already reported by the 0.3 checks themselves (same place).
        if already.contains(&f.path) {
            continue;
        }
        ctx.report_hint(
            &rules::A2A03_MIG_007,
            f.path.clone(),
            format!("after migration, {} would fail: {}", f.rule, f.message),
            f.hint,
        );
    }
}

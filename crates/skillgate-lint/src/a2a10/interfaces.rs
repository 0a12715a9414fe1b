//! `supportedInterfaces` (A2A-IF-*): bindings, URLs and protocol versions.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use skillgate_core::Version;

use super::{optional, required, unknown, CORE_BINDINGS};
use crate::common::{check_endpoint_url, idx, is_absolute_uri, ptr, type_name, Ctx, Ty};
use crate::rules;

/// `supportedInterfaces`: each entry's REQUIRED members, binding, URL and protocol version.
pub(super) fn interfaces(ctx: &mut Ctx, ifaces: &[Value]) {
    const REQ: [(&str, Ty); 3] = [
        ("url", Ty::Str),
        ("protocolBinding", Ty::Str),
        ("protocolVersion", Ty::Str),
    ];
    let mut seen: HashMap<(String, String, String, String), usize> = HashMap::new();
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
            // One URL may serve a binding at two versions (JSON-RPC 1.0 and 0.3 methods on
            // the same endpoint, as `skillgate serve` does): two interfaces, not a duplicate.
            got.get("protocolVersion")
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
                format!(
                    "same url, binding, protocolVersion and tenant as /supportedInterfaces/{first}"
                ),
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

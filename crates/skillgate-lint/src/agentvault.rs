//! The AgentVault Agent Card v1.0 profile: the written specification (seed 002), with URLs parsed
//! properly where AgentVault's own model checks string prefixes. Optional members may be `null`
//! (the Pydantic model accepts that), required ones may not.

use std::collections::HashMap;

use serde_json::{Map, Value};
use url::Url;

use crate::common::{
    check_credentials, check_skill_ids, idx, is_empty, parse_absolute_url, ptr, redact,
    transport_of, type_name, Ctx, Transport, Ty,
};
use crate::rules;

const REQUIRED: [(&str, Ty); 9] = [
    ("schemaVersion", Ty::Str),
    ("humanReadableId", Ty::Str),
    ("agentVersion", Ty::Str),
    ("name", Ty::Str),
    ("description", Ty::Str),
    ("url", Ty::Str),
    ("provider", Ty::Obj),
    ("capabilities", Ty::Obj),
    ("authSchemes", Ty::Arr),
];

const OPTIONAL: [(&str, Ty); 6] = [
    ("skills", Ty::Arr),
    ("tags", Ty::Arr),
    ("privacyPolicyUrl", Ty::Str),
    ("termsOfServiceUrl", Ty::Str),
    ("iconUrl", Ty::Str),
    ("lastUpdated", Ty::Str),
];

fn type_error(ctx: &mut Ctx, path: &str, ty: Ty, v: &Value) {
    let mut msg = format!("must be {}, found {}", ty.name(), type_name(v));
    if ty == Ty::Bool && v.is_string() {
        msg.push_str(
            " (AgentVault's model coerces strings like \"yes\" to true; other consumers do not)",
        );
    }
    ctx.report(&rules::AV_REQ_003, path, msg);
}

/// Checks required and optional members of one object; returns the well-typed ones.
fn members<'v>(
    ctx: &mut Ctx,
    obj: &'v Map<String, Value>,
    base: &str,
    required: &[(&'static str, Ty)],
    optional: &[(&'static str, Ty)],
    what: &str,
) -> HashMap<&'static str, &'v Value> {
    let mut out = HashMap::new();
    for &(name, ty) in required {
        let p = ptr(base, name);
        match obj.get(name) {
            None => ctx.report(&rules::AV_REQ_001, p, format!("{what} has no {name:?}")),
            Some(v) if !ty.matches(v) => type_error(ctx, &p, ty, v),
            Some(v) => {
                if ty == Ty::Str && is_empty(v) {
                    ctx.report(
                        &rules::AV_REQ_002,
                        p,
                        format!("{what} member {name:?} is empty"),
                    );
                }
                out.insert(name, v);
            }
        }
    }
    for &(name, ty) in optional {
        match obj.get(name) {
            None | Some(Value::Null) => {}
            Some(v) if !ty.matches(v) => type_error(ctx, &ptr(base, name), ty, v),
            Some(v) => {
                out.insert(name, v);
            }
        }
    }
    for k in obj.keys() {
        if !required.iter().chain(optional.iter()).any(|(n, _)| n == k) {
            ctx.report(
                &rules::AV_UNK_001,
                ptr(base, k),
                format!("{what} member {k:?} is not in the AgentVault model and is dropped on registration"),
            );
        }
    }
    out
}

/// What AgentVault's own validator accepts for `url`: a prefix check on the normalized string.
fn model_accepts(u: &Url) -> bool {
    let s = u.as_str();
    s.starts_with("https://") || s.starts_with("http://localhost")
}

fn check_url_member(ctx: &mut Ctx, path: &str, raw: &str) -> Option<Url> {
    let s = &redact(raw);
    match parse_absolute_url(raw) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => {
            check_credentials(ctx, &rules::AV_URL_003, path, &u);
            Some(u)
        }
        Ok(u) => {
            ctx.report(
                &rules::AV_URL_002,
                path,
                format!(
                    "{s:?} has scheme {:?}; AgentVault URLs are http(s)",
                    u.scheme()
                ),
            );
            None
        }
        Err(_) => {
            let why = parse_absolute_url(s).err().unwrap_or_default();
            ctx.report(&rules::AV_URL_002, path, format!("URL {why}"));
            None
        }
    }
}

pub(crate) fn lint(ctx: &mut Ctx, obj: &Map<String, Value>) {
    let got = members(ctx, obj, "", &REQUIRED, &OPTIONAL, "the card");

    if let Some(Value::String(v)) = got.get("schemaVersion") {
        if v != "1.0" {
            ctx.report(
                &rules::AV_VER_001,
                "/schemaVersion",
                format!("schemaVersion is {v:?}; the specification defines \"1.0\""),
            );
        }
    }
    if let Some(Value::String(id)) = got.get("humanReadableId") {
        if !id.trim().is_empty() && !is_namespaced(id) {
            ctx.report(
                &rules::AV_BP_001,
                "/humanReadableId",
                format!("{id:?} is not of the form organization/agent-name"),
            );
        }
    }
    if let Some(Value::String(v)) = got.get("agentVersion") {
        if !v.trim().is_empty() && !is_semver(v) {
            ctx.report(
                &rules::AV_BP_002,
                "/agentVersion",
                format!("{v:?} is not MAJOR.MINOR.PATCH"),
            );
        }
    }
    if let Some(Value::String(raw)) = got.get("url") {
        let s = &redact(raw);
        if let Some(u) = check_url_member(ctx, "/url", raw) {
            match transport_of(&u) {
                Transport::Secure => {
                    if !model_accepts(&u) {
                        ctx.report(
                            &rules::AV_COMPAT_001,
                            "/url",
                            format!("{s:?} is loopback, but AgentVault's model only accepts http with the prefix http://localhost"),
                        );
                    }
                }
                _ => {
                    let mut msg = format!(
                        "{s:?} is plain http and host {:?} is not loopback",
                        u.host_str().unwrap_or("")
                    );
                    if model_accepts(&u) {
                        msg.push_str(
                            " (AgentVault's prefix check accepts it; the host is not localhost)",
                        );
                    }
                    ctx.report(&rules::AV_URL_001, "/url", msg);
                }
            }
        }
    }
    for name in ["privacyPolicyUrl", "termsOfServiceUrl", "iconUrl"] {
        if let Some(Value::String(s)) = got.get(name) {
            check_url_member(ctx, &ptr("", name), s);
        }
    }
    if let Some(Value::String(s)) = got.get("lastUpdated") {
        if !is_iso8601(s) {
            ctx.report(
                &rules::AV_DATE_001,
                "/lastUpdated",
                format!("{s:?} is not an ISO 8601 date or date-time"),
            );
        }
    }
    if let Some(Value::Array(tags)) = got.get("tags") {
        for (i, t) in tags.iter().enumerate() {
            if !t.is_string() {
                type_error(ctx, &idx("/tags", i), Ty::Str, t);
            }
        }
    }
    if let Some(Value::Object(p)) = got.get("provider") {
        let pg = members(
            ctx,
            p,
            "/provider",
            &[("name", Ty::Str)],
            &[("url", Ty::Str), ("support_contact", Ty::Str)],
            "provider",
        );
        if let Some(Value::String(s)) = pg.get("url") {
            check_url_member(ctx, "/provider/url", s);
        }
    }
    if let Some(Value::Object(c)) = got.get("capabilities") {
        capabilities(ctx, c);
    }
    if let Some(Value::Array(schemes)) = got.get("authSchemes") {
        auth_schemes(ctx, schemes);
    }
    if let Some(Value::Array(skills)) = got.get("skills") {
        for (i, s) in skills.iter().enumerate() {
            skill(ctx, &idx("/skills", i), s);
        }
        check_skill_ids(ctx, skills, None, &rules::AV_SKILL_001);
    }
}

fn capabilities(ctx: &mut Ctx, c: &Map<String, Value>) {
    let got = members(
        ctx,
        c,
        "/capabilities",
        &[("a2aVersion", Ty::Str)],
        &[
            ("mcpVersion", Ty::Str),
            ("supportedMessageParts", Ty::Arr),
            ("supportsPushNotifications", Ty::Bool),
            ("teeDetails", Ty::Obj),
            // Not in AgentVault's model, but the schema-interface extension lives here.
            ("extensions", Ty::Arr),
        ],
        "capabilities",
    );
    if let Some(Value::Array(parts)) = got.get("supportedMessageParts") {
        for (i, p) in parts.iter().enumerate() {
            if !p.is_string() {
                type_error(
                    ctx,
                    &idx("/capabilities/supportedMessageParts", i),
                    Ty::Str,
                    p,
                );
            }
        }
    }
    if let Some(Value::Object(t)) = got.get("teeDetails") {
        let base = "/capabilities/teeDetails";
        match t.get("type") {
            None | Some(Value::Null) => ctx.report(
                &rules::AV_TEE_001,
                ptr(base, "type"),
                "teeDetails is present but has no type".into(),
            ),
            // A wrongly typed value is reported by `members` below.
            Some(_) => {}
        }
        let tg = members(
            ctx,
            t,
            base,
            &[],
            &[
                ("type", Ty::Str),
                ("attestationEndpoint", Ty::Str),
                ("publicKey", Ty::Str),
                ("description", Ty::Str),
            ],
            "teeDetails",
        );
        if let Some(Value::String(s)) = tg.get("attestationEndpoint") {
            check_url_member(ctx, &ptr(base, "attestationEndpoint"), s);
        }
    }
}

fn auth_schemes(ctx: &mut Ctx, schemes: &[Value]) {
    if schemes.is_empty() {
        ctx.report(
            &rules::AV_AUTH_001,
            "/authSchemes",
            "authSchemes is empty".into(),
        );
    }
    for (i, s) in schemes.iter().enumerate() {
        let base = idx("/authSchemes", i);
        let Some(o) = s.as_object() else {
            type_error(ctx, &base, Ty::Obj, s);
            continue;
        };
        let got = members(
            ctx,
            o,
            &base,
            &[("scheme", Ty::Str)],
            &[
                ("description", Ty::Str),
                ("tokenUrl", Ty::Str),
                ("scopes", Ty::Arr),
                ("service_identifier", Ty::Str),
            ],
            "the auth scheme",
        );
        let scheme = got.get("scheme").and_then(|v| v.as_str());
        if let Some(sc) = scheme {
            if !["apiKey", "oauth2", "bearer", "none"].contains(&sc) {
                ctx.report(
                    &rules::AV_AUTH_002,
                    ptr(&base, "scheme"),
                    format!("scheme {sc:?} is not one of apiKey, oauth2, bearer, none"),
                );
            }
        }
        if let Some(Value::String(t)) = got.get("tokenUrl") {
            if let Some(u) = check_url_member(ctx, &ptr(&base, "tokenUrl"), t) {
                if scheme == Some("oauth2") && !matches!(transport_of(&u), Transport::Secure) {
                    ctx.report(
                        &rules::AV_AUTH_004,
                        ptr(&base, "tokenUrl"),
                        format!(
                            "token endpoint {:?} is plain http on a non-loopback host",
                            redact(t)
                        ),
                    );
                }
            }
        }
        if scheme == Some("oauth2") && !got.contains_key("tokenUrl") {
            ctx.report(
                &rules::AV_AUTH_003,
                ptr(&base, "tokenUrl"),
                "the oauth2 scheme has no tokenUrl".into(),
            );
        }
        if let Some(Value::Array(scopes)) = got.get("scopes") {
            for (j, sc) in scopes.iter().enumerate() {
                if !sc.is_string() {
                    type_error(ctx, &idx(&ptr(&base, "scopes"), j), Ty::Str, sc);
                }
            }
        }
    }
}

fn skill(ctx: &mut Ctx, base: &str, s: &Value) {
    let Some(o) = s.as_object() else {
        type_error(ctx, base, Ty::Obj, s);
        return;
    };
    let got = members(
        ctx,
        o,
        base,
        &[("id", Ty::Str), ("name", Ty::Str), ("description", Ty::Str)],
        &[("input_schema", Ty::Obj), ("output_schema", Ty::Obj)],
        "the skill",
    );
    for name in ["input_schema", "output_schema"] {
        if let Some(schema) = got.get(name) {
            // The schema is attacker-controlled input to a third-party compiler: a panic there
            // must not take the linter down.
            let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                jsonschema::validator_for(schema).map(|_| ()).map_err(|e| {
                    format!(
                        "{} (at {}{})",
                        e.masked(),
                        ptr(base, name),
                        e.instance_path().as_str()
                    )
                })
            }))
            .unwrap_or_else(|_| Err("the schema compiler failed on it".to_string()));
            if let Err(e) = compiled {
                ctx.report(
                    &rules::AV_SCHEMA_001,
                    ptr(base, name),
                    format!("{name} is not a valid JSON Schema: {e}"),
                );
            }
        }
    }
}

fn is_namespaced(id: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    match id.split_once('/') {
        Some((org, name)) => part(org) && part(name),
        None => false,
    }
}

/// Semantic Versioning 2.0.0 (MAJOR.MINOR.PATCH with optional pre-release and build).
pub(crate) fn is_semver(v: &str) -> bool {
    let (core, build) = match v.split_once('+') {
        Some((c, b)) => (c, Some(b)),
        None => (v, None),
    };
    let (core, pre) = match core.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (core, None),
    };
    let num = |x: &str| {
        !x.is_empty() && x.chars().all(|c| c.is_ascii_digit()) && (x == "0" || !x.starts_with('0'))
    };
    let ident = |x: &str| !x.is_empty() && x.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| num(p))
        && pre.is_none_or(|p| {
            p.split('.')
                .all(|i| ident(i) && (!i.chars().all(|c| c.is_ascii_digit()) || num(i)))
        })
        && build.is_none_or(|b| b.split('.').all(ident))
}

/// ISO 8601 calendar date, or date and time with optional seconds, fraction and offset, in
/// extended or basic format (`2025-01-15`, `2025-01-15T10:30:00Z`, `20250115T103000+0100`).
pub(crate) fn is_iso8601(s: &str) -> bool {
    // Every valid form is ASCII; checking first keeps the byte slicing below on char boundaries.
    if !s.is_ascii() {
        return false;
    }
    let (date, time) = match s.split_once(['T', 't', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let Some(extended) = parse_date(date) else {
        return false;
    };
    match time {
        None => true,
        Some(t) => parse_time(t, extended),
    }
}

fn digits(s: &str, n: usize) -> Option<u32> {
    if s.len() == n && s.chars().all(|c| c.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

/// Returns whether the date used the extended (dashed) format.
fn parse_date(d: &str) -> Option<bool> {
    let (y, m, day, extended) = if d.len() == 10
        && d.as_bytes().get(4) == Some(&b'-')
        && d.as_bytes().get(7) == Some(&b'-')
    {
        (
            digits(&d[0..4], 4)?,
            digits(&d[5..7], 2)?,
            digits(&d[8..10], 2)?,
            true,
        )
    } else if d.len() == 8 {
        (
            digits(&d[0..4], 4)?,
            digits(&d[4..6], 2)?,
            digits(&d[6..8], 2)?,
            false,
        )
    } else {
        return None;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let max = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=max).contains(&day).then_some(extended)
}

fn parse_time(t: &str, extended: bool) -> bool {
    let (clock, offset) = if let Some(c) = t.strip_suffix(['Z', 'z']) {
        (c, None)
    } else if let Some(i) = t.rfind(['+', '-']) {
        (&t[..i], Some(&t[i + 1..]))
    } else {
        (t, None)
    };
    let (clock, frac) = match clock.split_once(['.', ',']) {
        Some((c, f)) => (c, Some(f)),
        None => (clock, None),
    };
    if frac.is_some_and(|f| f.is_empty() || !f.chars().all(|c| c.is_ascii_digit())) {
        return false;
    }
    let fields: Option<Vec<u32>> = if extended {
        clock.split(':').map(|p| digits(p, 2)).collect()
    } else {
        (0..clock.len() / 2)
            .map(|i| clock.get(2 * i..2 * i + 2).and_then(|p| digits(p, 2)))
            .collect::<Option<Vec<_>>>()
            .filter(|_| clock.len() % 2 == 0)
    };
    let Some(f) = fields else {
        return false;
    };
    let ok_clock = match f.as_slice() {
        [h, m] => *h <= 23 && *m <= 59 && frac.is_none(),
        [h, m, s] => *h <= 23 && *m <= 59 && *s <= 60,
        _ => false,
    };
    let ok_offset = match offset {
        None => true,
        Some(o) => {
            let (h, m) = if let Some((h, m)) = o.split_once(':') {
                (digits(h, 2), digits(m, 2))
            } else if o.len() == 4 {
                (digits(&o[..2], 2), digits(&o[2..], 2))
            } else {
                (digits(o, 2), Some(0))
            };
            matches!((h, m), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
    };
    ok_clock && ok_offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso8601() {
        for ok in [
            "2025-01-15T10:30:00Z",
            "2025-01-15",
            "2024-02-29T00:00:00.123+01:00",
            "20250115T103000Z",
            "2025-01-15T10:30",
            "2025-01-15T10:30:00-0500",
        ] {
            assert!(is_iso8601(ok), "{ok}");
        }
        for bad in [
            "yesterday",
            "2025-13-01",
            "2025-02-30",
            "2023-02-29",
            "2025-01-15T25:00:00Z",
            "2025-01-15T10:30:00.Z",
            "2025/01/15",
            "",
            "2025-01-15T10:30:00+25:00",
            "2025-1-15",
        ] {
            assert!(!is_iso8601(bad), "{bad}");
        }
    }

    #[test]
    fn semver() {
        for ok in [
            "2.1.0",
            "0.1.0",
            "1.0.0-alpha.1",
            "1.0.0+build.5",
            "10.20.30",
        ] {
            assert!(is_semver(ok), "{ok}");
        }
        for bad in ["1.0", "1", "01.0.0", "1.0.0-", "1.0.0-01", "v1.0.0", ""] {
            assert!(!is_semver(bad), "{bad}");
        }
    }
}

//! The A2A 1.0 profile. Required-ness comes from the 1.0.1 proto's `REQUIRED` annotations (the
//! generated JSON Schema has no `required` lists), JSON names from ProtoJSON (camelCase, with
//! the snake_case proto names accepted and warned about).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::common::{
    check_link_url, check_modes, check_skill_ids, check_type, idx, is_empty, member, ptr, snake,
    type_name, Ctx, Ty,
};
use crate::rules;

mod capabilities;
mod interfaces;
mod legacy;
mod security;
mod skills;

pub(crate) use interfaces::check_binding;
pub(crate) use security::legacy_scheme_hint;

use capabilities::capabilities;
use interfaces::interfaces;
use legacy::legacy_top_level;
use security::{security_requirements, security_schemes};
use skills::skill;

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

/// Checks required members (presence, type, non-empty) of one object; returns the present ones.
pub(super) fn required<'v>(
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

pub(super) fn optional<'v>(
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
pub(super) fn unknown(
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

/// Lints a card object against the A2A 1.0 profile, section by section.
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
        // Reported by `legacy_top_level` instead, each with its 1.0 form.
        &skillgate_a2a::V03_ONLY_CARD_MEMBERS,
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

/// `provider`: organization and url go together.
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

/// `signatures`: each a JWS with non-empty `protected` and `signature`.
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
        if s.get("protected")
            .and_then(Value::as_str)
            .is_some_and(|v| !v.is_empty())
        {
            protected(ctx, s, &p);
        }
    }
}

/// The protected header of one signature: decodable, naming a usable algorithm and a key.
fn protected(ctx: &mut Ctx, sig: &Value, p: &str) {
    let at = ptr(p, "protected");
    let header = match skillgate_sign::protected_header(sig) {
        Ok(h) => h,
        Err(why) => return ctx.report(&rules::CARD_SIGN_001, at, why.to_string()),
    };
    let Some(alg) = header.get("alg").and_then(Value::as_str) else {
        return ctx.report(
            &rules::CARD_SIGN_001,
            at,
            "the protected header has no string `alg`".into(),
        );
    };
    if header.get("kid").and_then(Value::as_str).is_none() {
        ctx.report(
            &rules::CARD_SIGN_001,
            at.clone(),
            "the protected header has no string `kid`".into(),
        );
    }
    if alg == "none" {
        ctx.report(&rules::CARD_SIGN_002, at, "`alg` is \"none\"".into());
    } else if let Err(why) = skillgate_sign::algorithm(alg) {
        ctx.report(&rules::CARD_SIGN_003, at, format!("`alg` {alg:?}: {why}"));
    }
}

//! `skills` entries (A2A-SKILL-*): REQUIRED members, modes and per-skill security.

use std::collections::HashSet;

use serde_json::Value;

use super::legacy::security_hint;
use super::{optional, required, security_requirements, unknown};
use crate::common::{check_modes, idx, ptr, snake, type_name, Ctx, Ty};
use crate::rules;

/// One `skills` entry: REQUIRED members, modes and its own security requirements.
pub(super) fn skill(ctx: &mut Ctx, base: &str, s: &Value, scheme_names: &HashSet<String>) {
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

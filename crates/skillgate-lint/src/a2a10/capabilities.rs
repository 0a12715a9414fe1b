//! `capabilities` (A2A-CAP-*): member types and declared extensions.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{optional, unknown};
use crate::common::{check_type, idx, is_absolute_uri, ptr, type_name, Ctx, Ty};
use crate::rules;

/// `capabilities`: member types and the declared extensions.
pub(super) fn capabilities(ctx: &mut Ctx, caps: &Map<String, Value>) {
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

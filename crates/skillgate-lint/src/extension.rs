//! Schema-interface extension checks (every profile whose card has `capabilities.extensions`).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use skillgate_core::advertisement::{EntryFinding, ParamsFinding};
use skillgate_core::wire::{names, ExtensionParams, DESCRIBE_SKILL, EXTENSION_URI};

use crate::common::{idx, ptr, type_name, Ctx};
use crate::rules;
use crate::AdvertisedSkill;

/// Whether `uri` is a near-miss of the extension URI (so almost certainly meant to be it):
/// equal up to case, surrounding whitespace, a trailing slash or http-for-https, or on the
/// draft's site with the extension's path name.
fn near_miss(uri: &str) -> bool {
    if uri == EXTENSION_URI {
        return false;
    }
    let norm = |s: &str| {
        s.trim()
            .trim_end_matches('/')
            .to_ascii_lowercase()
            .replacen("http://", "https://", 1)
    };
    let lower = uri.to_ascii_lowercase();
    norm(uri) == norm(EXTENSION_URI)
        || (lower.contains("agentic-network-management") && lower.contains("schema-interface"))
        || lower
            .trim_end_matches('/')
            .ends_with("/schema-interface/v1")
}

pub(crate) fn lint(ctx: &mut Ctx, card: &Map<String, Value>) {
    let Some(exts) = card
        .get("capabilities")
        .and_then(|c| c.get("extensions"))
        .and_then(Value::as_array)
    else {
        return;
    };
    let mut exact = Vec::new();
    for (i, e) in exts.iter().enumerate() {
        let Some(uri) = e.get("uri").and_then(Value::as_str) else {
            continue;
        };
        let base = idx("/capabilities/extensions", i);
        if uri == EXTENSION_URI {
            exact.push(i);
            advertisement(ctx, &base, e, card);
        } else if near_miss(uri) {
            ctx.report(
                &rules::SI_001,
                ptr(&base, "uri"),
                format!(
                    "{uri:?} is not the schema-interface extension URI; clients match it exactly"
                ),
            );
            advertisement(ctx, &base, e, card);
        }
    }
    if exact.len() > 1 {
        for i in &exact[1..] {
            ctx.report(
                &rules::SI_002,
                idx("/capabilities/extensions", *i),
                format!(
                    "the schema-interface extension is already declared at /capabilities/extensions/{}",
                    exact[0]
                ),
            );
        }
    }
}

fn advertisement(ctx: &mut Ctx, base: &str, ext: &Value, card: &Map<String, Value>) {
    if ext.get("required") == Some(&Value::Bool(true)) {
        ctx.report(
            &rules::SI_014,
            ptr(base, "required"),
            "the schema-interface extension is declared required".into(),
        );
    }
    let pp = ptr(base, "params");
    let Some(params) = ext.get("params").and_then(Value::as_object) else {
        let found = ext.get("params").map_or("nothing", type_name);
        ctx.report(
            &rules::SI_003,
            pp,
            format!("params must be an object, found {found}"),
        );
        return;
    };
    let checked = ExtensionParams::check(params);
    let sp = ptr(&pp, names::SKILLS);
    for f in &checked.findings {
        let (rule, at) = match f {
            ParamsFinding::NoInterfaceVersion | ParamsFinding::WrongInterfaceVersion { .. } => {
                (&rules::SI_004, ptr(&pp, names::INTERFACE_VERSION))
            }
            ParamsFinding::UndefinedMember { member } => (&rules::SI_015, ptr(&pp, member)),
            ParamsFinding::NoSkills | ParamsFinding::SkillsNotAnArray { .. } => {
                (&rules::SI_005, sp.clone())
            }
        };
        ctx.report(rule, at, f.to_string());
    }
    if !matches!(params.get(names::SKILLS), Some(Value::Array(_))) {
        return;
    }
    if checked.entries.is_empty() {
        ctx.report(&rules::SI_006, sp.clone(), "no skill is advertised".into());
    }
    let card_skills: HashSet<&str> = card
        .get("skills")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("id").and_then(Value::as_str))
        .collect();
    if !card_skills.contains(DESCRIBE_SKILL) {
        ctx.report(
            &rules::SI_012,
            "/skills",
            format!("no skill with id {DESCRIBE_SKILL:?} although the schema-interface extension is declared"),
        );
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for entry in &checked.entries {
        let ep = idx(&sp, entry.index);
        for f in &entry.findings {
            let rule = match f {
                EntryFinding::NotAnObject { .. }
                | EntryFinding::MissingMember { .. }
                | EntryFinding::NotAString { .. } => &rules::SI_007,
                EntryFinding::UndefinedMember { .. } => &rules::SI_015,
                EntryFinding::BadVersion { .. } => &rules::SI_008,
                EntryFinding::BadDigest { .. } => &rules::SI_009,
            };
            let at = f.member().map_or_else(|| ep.clone(), |m| ptr(&ep, m));
            ctx.report(rule, at, f.to_string());
        }
        if let Some(id) = entry.skill_id {
            if id == DESCRIBE_SKILL {
                ctx.report(
                    &rules::SI_013,
                    ptr(&ep, names::SKILL_ID),
                    "describe_skill is the retrieval skill, not an advertised interface".into(),
                );
            } else if !card_skills.contains(id) {
                ctx.report(
                    &rules::SI_011,
                    ptr(&ep, names::SKILL_ID),
                    format!("skill {id:?} is advertised but not in skills[]"),
                );
            }
            if let Some(first) = seen.get(id) {
                ctx.report(
                    &rules::SI_010,
                    ptr(&ep, names::SKILL_ID),
                    format!("skill {id:?} is already advertised at {sp}/{first}"),
                );
            } else {
                seen.insert(id, entry.index);
            }
        }
    }
}

/// Well-formed entries of the exact extension (for `--deep`).
pub(crate) fn advertised(card: &Value) -> Vec<AdvertisedSkill> {
    let mut out = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let exts = card
        .pointer("/capabilities/extensions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    for (i, e) in exts.enumerate() {
        if e.get("uri").and_then(Value::as_str) != Some(EXTENSION_URI) {
            continue;
        }
        let entries = e
            .pointer("/params/skills")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for (j, s) in entries.enumerate() {
            let get = |m: &str| s.get(m).and_then(Value::as_str).map(str::to_string);
            if let (Some(skill_id), Some(skill_version), Some(interface_digest)) = (
                get(names::SKILL_ID),
                get(names::SKILL_VERSION),
                get(names::INTERFACE_DIGEST),
            ) {
                if skill_id != DESCRIBE_SKILL && seen.insert(skill_id.clone()) {
                    out.push(AdvertisedSkill {
                        skill_id,
                        skill_version,
                        interface_digest,
                        pointer: format!("/capabilities/extensions/{i}/params/skills/{j}"),
                    });
                }
            }
        }
    }
    out
}

//! The extension family: the card's schema-interface advertisement (SI-EXT-*), judged with
//! core's per-entry rules.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use skillgate_a2a as a2a;
use skillgate_core::advertisement::ParamsFinding;
use skillgate_core::wire::{self, names, AdvertisedSkill, ExtensionParams};

use super::Run;
use crate::catalogue as cat;
use crate::probe::show;
use crate::report::Verdict;

/// The extension checks; returns the well-formed, deduplicated advertised skills, or `None`
/// when the card has no advertisement (the remaining checks cannot run).
pub(crate) fn extension_checks(
    run: &mut Run,
    card: &a2a::AgentCard,
) -> Option<Vec<AdvertisedSkill>> {
    let Some(ext) = card.extension(wire::EXTENSION_URI) else {
        let mut ev = vec![format!(
            "no capabilities.extensions[] entry with uri {}",
            wire::EXTENSION_URI
        )];
        for e in &card.capabilities.extensions {
            ev.push(format!("extension present: {:?}", e.uri));
        }
        ev.push("the remaining schema-interface checks were not run".into());
        run.push(cat::EXT_ADVERTISED, None, Verdict::Fail, ev);
        return None;
    };
    run.push(
        cat::EXT_ADVERTISED,
        None,
        Verdict::Pass,
        vec![format!("uri {} required={}", ext.uri, ext.required)],
    );
    let params = ext.params.clone().unwrap_or_default();
    interface_version_check(run, &params);
    let good = well_formed_entries(run, &params);
    let unique = one_binding_check(run, good);
    in_card_checks(run, card, &unique);
    Some(unique)
}

/// SI-EXT-002.
fn interface_version_check(run: &mut Run, params: &Map<String, Value>) {
    let checked = ExtensionParams::check(params);
    let wrong = checked.findings.iter().any(|f| {
        matches!(
            f,
            ParamsFinding::NoInterfaceVersion | ParamsFinding::WrongInterfaceVersion { .. }
        )
    });
    let v = params.get(names::INTERFACE_VERSION);
    let ev = if wrong {
        format!(
            "params.interface_version is {}, expected \"1.0\"",
            v.map(|v| show(v, 80)).unwrap_or_else(|| "absent".into())
        )
    } else {
        format!(
            "interface_version {:?}",
            v.and_then(Value::as_str).unwrap_or_default()
        )
    };
    run.judge(cat::EXT_INTERFACE_VERSION, None, !wrong, vec![ev]);
}

/// SI-EXT-003: every entry well formed; returns the well-formed ones in order.
fn well_formed_entries(run: &mut Run, params: &Map<String, Value>) -> Vec<AdvertisedSkill> {
    let mut ev = Vec::new();
    let mut good = Vec::new();
    let mut all_ok = true;
    let checked = ExtensionParams::check(params);
    match params.get(names::SKILLS) {
        Some(Value::Array(items)) => {
            for (entry, item) in checked.entries.iter().zip(items) {
                let i = entry.index;
                match &entry.advertised {
                    // An empty skill_id is a string, so core accepts the entry, but it names no skill.
                    Some(a) if !a.skill_id.is_empty() => {
                        ev.push(format!(
                            "skills[{i}]: {} {} {}",
                            a.skill_id, a.skill_version, a.interface_digest
                        ));
                        good.push(a.clone());
                    }
                    _ => {
                        all_ok = false;
                        ev.push(format!("skills[{i}] is malformed: {}", show(item, 200)));
                    }
                }
            }
            if items.is_empty() {
                ev.push("params.skills is empty: no schema-governed skill is advertised".into());
            }
        }
        other => {
            all_ok = false;
            ev.push(format!(
                "params.skills is {}, expected an array",
                other
                    .map(|v| show(v, 80))
                    .unwrap_or_else(|| "absent".into())
            ));
        }
    }
    run.judge(cat::EXT_SKILLS_WELL_FORMED, None, all_ok, ev);
    good
}

/// SI-EXT-004: one binding per skill, and describe_skill is not one of them.
fn one_binding_check(run: &mut Run, good: Vec<AdvertisedSkill>) -> Vec<AdvertisedSkill> {
    let mut ev = Vec::new();
    let mut seen = BTreeSet::new();
    let mut unique = Vec::new();
    let mut ok = true;
    for a in good {
        if a.skill_id == wire::DESCRIBE_SKILL {
            ok = false;
            ev.push("describe_skill is listed in params.skills".into());
            continue;
        }
        if !seen.insert(a.skill_id.clone()) {
            ok = false;
            ev.push(format!("{} has more than one binding", a.skill_id));
            continue;
        }
        unique.push(a);
    }
    if ok {
        ev.push(format!("{} distinct skill binding(s)", unique.len()));
    }
    run.judge(cat::EXT_ONE_BINDING, None, ok, ev);
    unique
}

/// SI-EXT-005 and SI-EXT-006: advertised skills and describe_skill are in `skills[]`.
fn in_card_checks(run: &mut Run, card: &a2a::AgentCard, unique: &[AdvertisedSkill]) {
    let card_ids: BTreeSet<&str> = card.skills.iter().map(|s| s.id.as_str()).collect();
    let missing: Vec<&str> = unique
        .iter()
        .map(|a| a.skill_id.as_str())
        .filter(|id| !card_ids.contains(id))
        .collect();
    let ev = if missing.is_empty() {
        format!(
            "card skills[]: {}",
            card_ids.iter().copied().collect::<Vec<_>>().join(", ")
        )
    } else {
        format!("advertised but not in skills[]: {}", missing.join(", "))
    };
    run.judge(cat::EXT_SKILLS_IN_CARD, None, missing.is_empty(), vec![ev]);
    let has_describe = card_ids.contains(wire::DESCRIBE_SKILL);
    let ev = if has_describe {
        "describe_skill is in skills[]"
    } else {
        "describe_skill is not in skills[]"
    };
    run.judge(
        cat::EXT_DESCRIBE_IN_CARD,
        None,
        has_describe,
        vec![ev.into()],
    );
}

//! The artifacts family: naming and validity of a completed call's primary Artifact
//! (SI-CALL-002) and supporting records (SI-CALL-003).

use std::collections::BTreeSet;

use skillgate_a2a::{Artifact, Task};
use skillgate_core::document::ValidatedDocument;

use super::{single_data, Run};
use crate::catalogue as cat;

/// The Artifacts named the skill id (exactly one is the primary result).
fn named_skill<'t>(task: &'t Task, skill_id: &str) -> Vec<&'t Artifact> {
    task.artifacts
        .iter()
        .filter(|a| a.name == skill_id)
        .collect()
}

/// SI-CALL-002: exactly one Artifact named the skill id, valid against output_schema.
pub(crate) fn primary_check(run: &mut Run, doc: &ValidatedDocument, task: &Task) {
    let skill_id = doc.skill_id();
    let named = named_skill(task, skill_id);
    let mut ev = Vec::new();
    let mut ok = true;
    if named.len() != 1 {
        ok = false;
        ev.push(format!(
            "{} Artifact(s) named {skill_id:?}, expected exactly one",
            named.len()
        ));
    }
    if let Some(primary) = named.first() {
        match single_data(primary) {
            Ok(data) => match doc.output_validator().validate(data) {
                Ok(()) => ev.push(format!(
                    "primary Artifact {} validates against output_schema",
                    primary.artifact_id
                )),
                Err(details) => {
                    ok = false;
                    for d in details.iter().take(5) {
                        ev.push(format!(
                            "output_invalid at {:?}: {}",
                            d.instance_path,
                            d.keyword.as_deref().unwrap_or("-")
                        ));
                    }
                }
            },
            Err(e) => {
                ok = false;
                ev.push(format!("primary Artifact: {e}"));
            }
        }
    }
    run.judge(cat::CALL_PRIMARY, Some(skill_id), ok, ev);
}

/// SI-CALL-003: every other Artifact is named a declared record kind and validates against
/// that kind's schema.
pub(crate) fn records_check(run: &mut Run, doc: &ValidatedDocument, task: &Task) {
    let skill_id = doc.skill_id();
    let declared: BTreeSet<&str> = doc
        .document()
        .supporting_record_schemas
        .keys()
        .map(String::as_str)
        .collect();
    let mut ev = Vec::new();
    let mut ok = true;
    let named = named_skill(task, skill_id).len();
    if named > 1 {
        ok = false;
        ev.push(format!(
            "{named} Artifacts are named the skill id: a supporting record must be named its record kind, never the skill id"
        ));
    }
    let mut records = 0;
    for art in task.artifacts.iter().filter(|a| a.name != skill_id) {
        records += 1;
        if !declared.contains(art.name.as_str()) {
            ok = false;
            ev.push(format!(
                "Artifact {} is named {:?}, which is not a declared record kind ({})",
                art.artifact_id,
                art.name,
                declared.iter().copied().collect::<Vec<_>>().join(", ")
            ));
            continue;
        }
        ok &= record_valid(doc, art, &mut ev);
    }
    if records == 0 && ok {
        ev.push("no supporting-record Artifacts were returned".into());
    }
    run.judge(cat::CALL_RECORDS, Some(skill_id), ok, ev);
}

/// Whether one record of a declared kind validates; evidence either way.
fn record_valid(doc: &ValidatedDocument, art: &Artifact, ev: &mut Vec<String>) -> bool {
    let Some(validator) = doc.record_validator(&art.name) else {
        return true;
    };
    match single_data(art) {
        Ok(data) => match validator.validate(data) {
            Ok(()) => {
                ev.push(format!(
                    "record {} ({}) validates",
                    art.artifact_id, art.name
                ));
                true
            }
            Err(details) => {
                for d in details.iter().take(5) {
                    ev.push(format!(
                        "record {} ({}) invalid at {:?}: {}",
                        art.artifact_id,
                        art.name,
                        d.instance_path,
                        d.keyword.as_deref().unwrap_or("-")
                    ));
                }
                false
            }
        },
        Err(e) => {
            ev.push(format!("record {} ({}): {e}", art.artifact_id, art.name));
            false
        }
    }
}

//! Two Agent Cards of one agent: which skills were added, removed or re-versioned, each with
//! the interface verdict when both Skill Interface Documents are at hand.
//!
//! A card advertises `(skill_id, skill_version, interface_digest)` per skill in the
//! schema-interface extension; the documents themselves come from the caller (files, or
//! describe_skill answers it fetched). A document is matched to a card entry by skill id and
//! digest, so a stale file is never compared in place of the advertised one.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;
use skillgate_core::document::ValidatedDocument;
use skillgate_core::wire::{ExtensionParams, DESCRIBE_SKILL, EXTENSION_URI};
use skillgate_core::Digest;

use crate::document::{diff, Report};

/// What happened to one skill between the two cards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkillChange {
    /// Only NEW has it.
    Added,
    /// Only OLD has it: its callers fail.
    Removed,
    /// Advertised in both with another version or digest.
    Reversioned,
    /// The same version and digest in both (or, without the extension, listed in both).
    Unchanged,
}

/// One skill of the card diff.
#[derive(Debug, Clone, Serialize)]
pub struct SkillEntry {
    /// The skill id.
    pub skill_id: String,
    /// What happened to it.
    pub change: SkillChange,
    /// OLD's advertised version and digest, if OLD advertises it.
    pub old: Option<(String, Digest)>,
    /// NEW's advertised version and digest, if NEW advertises it.
    pub new: Option<(String, Digest)>,
    /// The interface diff when both advertised documents were given.
    pub interface: Option<Report>,
    /// Why this entry fails the diff (exit 1), if it does.
    pub problem: Option<String>,
}

/// The card diff.
#[derive(Debug, Clone, Serialize)]
pub struct CardReport {
    /// Every skill of either card, by id.
    pub skills: Vec<SkillEntry>,
}

impl CardReport {
    /// Whether any skill fails: removed, re-published under the same version, or re-versioned
    /// without the bump its interface diff needs.
    pub fn has_problems(&self) -> bool {
        self.skills.iter().any(|s| s.problem.is_some())
    }
}

/// The advertised skills of a card (`capabilities.extensions[]` with the profile's URI);
/// malformed entries are skipped (`card lint` reports them).
fn advertised(card: &Value) -> BTreeMap<String, (String, Digest)> {
    let mut out = BTreeMap::new();
    let extensions = card
        .pointer("/capabilities/extensions")
        .and_then(Value::as_array);
    for ext in extensions.into_iter().flatten() {
        if ext.get("uri").and_then(Value::as_str) != Some(EXTENSION_URI) {
            continue;
        }
        let Some(params) = ext.get("params").and_then(Value::as_object) else {
            continue;
        };
        for entry in ExtensionParams::check(params).entries {
            if let Some(a) = entry.advertised {
                out.insert(a.skill_id, (a.skill_version, a.interface_digest));
            }
        }
    }
    out
}

/// The ids of the card's `skills[]`.
fn listed(card: &Value) -> BTreeSet<String> {
    card.get("skills")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// Compares two cards; `documents` are the Skill Interface Documents at hand (any order, any
/// skills; the ones a card does not advertise are ignored).
pub fn diff_cards(old: &Value, new: &Value, documents: &[ValidatedDocument]) -> CardReport {
    let (ao, an) = (advertised(old), advertised(new));
    let ids: BTreeSet<String> = ao
        .keys()
        .chain(an.keys())
        .cloned()
        .chain(listed(old))
        .chain(listed(new))
        .collect();
    let (lo, ln) = (listed(old), listed(new));
    let find = |id: &str, d: &Digest| {
        documents
            .iter()
            .find(|doc| doc.skill_id() == id && doc.interface_digest() == *d)
    };
    let skills = ids
        .into_iter()
        .filter(|id| id != DESCRIBE_SKILL)
        .map(|id| {
            let (o, n) = (ao.get(&id).cloned(), an.get(&id).cloned());
            let in_old = o.is_some() || lo.contains(&id);
            let in_new = n.is_some() || ln.contains(&id);
            let change = match (in_old, in_new) {
                (true, false) => SkillChange::Removed,
                (false, _) => SkillChange::Added,
                _ if o != n => SkillChange::Reversioned,
                _ => SkillChange::Unchanged,
            };
            let interface = match (&o, &n) {
                (Some((_, a)), Some((_, b))) if a != b => {
                    find(&id, a).zip(find(&id, b)).map(|(x, y)| diff(x, y))
                }
                _ => None,
            };
            let problem = problem(&change, &o, &n, interface.as_ref());
            SkillEntry {
                skill_id: id,
                change,
                old: o,
                new: n,
                interface,
                problem,
            }
        })
        .collect();
    CardReport { skills }
}

fn problem(
    change: &SkillChange,
    o: &Option<(String, Digest)>,
    n: &Option<(String, Digest)>,
    interface: Option<&Report>,
) -> Option<String> {
    if *change == SkillChange::Removed {
        return Some("removed: its callers fail".to_owned());
    }
    if let (Some((vo, d_o)), Some((vn, d_n))) = (o, n) {
        if vo == vn && d_o != d_n {
            return Some(format!(
                "re-published as {vn} with another digest: a new document needs a new version"
            ));
        }
    }
    match interface {
        Some(r) if !r.carried => Some(format!(
            "{} -> {} does not carry the {} bump its interface changes need",
            r.old_version, r.new_version, r.required
        )),
        _ => None,
    }
}

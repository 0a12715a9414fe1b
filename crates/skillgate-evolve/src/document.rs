//! Two Skill Interface Documents of one skill: every side compared, the bump the changes need
//! and whether NEW's version carries it.

use std::cmp::Ordering;

use serde::Serialize;
use serde_json::Value;
use skillgate_core::document::{Expectations, InterfaceError, ValidatedDocument};
use skillgate_core::wire::{AuthorityMode, SchemaReference, SkillInterfaceDocument};
use skillgate_core::{Digest, Version};

use crate::algebra::Decision;
use crate::finding::{Bump, Class, Finding, Side};
use crate::schema::compare_schema;

/// Why two documents could not be compared.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DiffError {
    /// OLD is not a valid Skill Interface Document.
    #[error("OLD is not a valid Skill Interface Document: {0}")]
    InvalidOld(InterfaceError),
    /// NEW is not a valid Skill Interface Document.
    #[error("NEW is not a valid Skill Interface Document: {0}")]
    InvalidNew(InterfaceError),
}

/// The result of comparing OLD with NEW.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// OLD's skill id (NEW's differs only with an `EVO-ID-001` finding).
    pub skill_id: String,
    /// OLD's `skill_version`.
    pub old_version: String,
    /// NEW's `skill_version`.
    pub new_version: String,
    /// `digest(OLD)`.
    pub old_digest: Digest,
    /// `digest(NEW)`.
    pub new_digest: Digest,
    /// What the schema algebra decided per schema side, in side order.
    pub algebra: Vec<(Side, Decision)>,
    /// Every change, ordered by side; `EVO-VER-001` last when present.
    pub findings: Vec<Finding>,
    /// The bump the changes need.
    pub required: Bump,
    /// Whether NEW's `skill_version` carries `required` relative to OLD's.
    pub carried: bool,
}

impl Report {
    /// The worst class of any change (the version finding aside), `None` without changes.
    pub fn worst(&self) -> Option<Class> {
        self.findings
            .iter()
            .filter(|f| f.rule != "EVO-VER-001")
            .map(|f| f.class)
            .max()
    }

    /// Number of findings of one class.
    pub fn count(&self, class: Class) -> usize {
        self.findings.iter().filter(|f| f.class == class).count()
    }

    /// The verdict in one line, for the places a user meets a change without asking for a
    /// diff (the gateway's drift report, the client's cache): whether the change breaks
    /// anyone, the worst finding's rule and pointer, the bump and whether NEW carries it.
    /// Kept here so every caller words the same report the same way (docs/design.md, D236).
    pub fn verdict(&self) -> String {
        let (old, new) = (&self.old_version, &self.new_version);
        let carry = if self.carried {
            format!("{new} carries it")
        } else {
            format!("{new} does not carry it")
        };
        if self.required == Bump::None {
            return format!("unchanged: same digest ({old} -> {new})");
        }
        let worst = self.worst();
        if worst < Some(Class::PossiblyBreaking) {
            return format!("compatible: minor update {old} -> {new}, minor bump needed, {carry}");
        }
        let changes: Vec<&Finding> = self
            .findings
            .iter()
            .filter(|f| f.rule != "EVO-VER-001" && Some(f.class) == worst)
            .collect();
        let Some(first) = changes.first() else {
            return format!("{} bump needed, {carry}", self.required);
        };
        // Who is hurt follows the side's direction of compatibility (Side::callers_send).
        let who = match first.side {
            Side::Output | Side::Record(_) => "consumers",
            Side::Document => "callers and consumers",
            _ => "callers",
        };
        let class = match first.class {
            Class::PossiblyBreaking => "possibly breaking",
            _ => "breaking",
        };
        let at = first
            .new_pointer
            .as_deref()
            .or(first.old_pointer.as_deref())
            .unwrap_or("");
        let more = match changes.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        format!(
            "{class} for {who} ({} at {at}{more}: {}), {} bump needed, {carry}",
            first.rule, first.reason, self.required
        )
    }
}

/// Validates both documents, then compares them.
pub fn diff_values(old: &Value, new: &Value) -> Result<Report, DiffError> {
    let o = ValidatedDocument::from_value(old, &Expectations::default())
        .map_err(DiffError::InvalidOld)?;
    let n = ValidatedDocument::from_value(new, &Expectations::default())
        .map_err(DiffError::InvalidNew)?;
    Ok(diff(&o, &n))
}

fn finding(
    rule: &'static str,
    side: Side,
    class: Class,
    old_pointer: Option<&str>,
    new_pointer: Option<&str>,
    reason: String,
) -> Finding {
    Finding {
        rule,
        side,
        class,
        old_pointer: old_pointer.map(str::to_owned),
        new_pointer: new_pointer.map(str::to_owned),
        reason,
    }
}

/// Compares two validated documents of one skill.
pub fn diff(old: &ValidatedDocument, new: &ValidatedDocument) -> Report {
    let (o, n) = (old.document(), new.document());
    let mut findings = Vec::new();
    let mut algebra = Vec::new();
    if o.skill_id != n.skill_id {
        findings.push(finding(
            "EVO-ID-001",
            Side::Document,
            Class::Breaking,
            Some("/skill_id"),
            Some("/skill_id"),
            format!(
                "skill id {:?} became {:?}: these are two skills, not two versions",
                o.skill_id, n.skill_id
            ),
        ));
    }
    let mut schema = |side: Side,
                      a: &SchemaReference,
                      b: &SchemaReference,
                      p: &str,
                      findings: &mut Vec<Finding>| {
        reference_identity(&side, a, b, p, findings);
        let at = format!("{p}/resolution/schema");
        let d = compare_schema(side, &a.resolution.schema, &b.resolution.schema, &at, &at);
        algebra.push((d.side.clone(), d.algebra));
        findings.extend(d.findings);
    };
    schema(
        Side::Input,
        &o.input_schema,
        &n.input_schema,
        "/input_schema",
        &mut findings,
    );
    schema(
        Side::Output,
        &o.output_schema,
        &n.output_schema,
        "/output_schema",
        &mut findings,
    );
    for (kind, a) in &o.supporting_record_schemas {
        let p = crate::pointer::child("/supporting_record_schemas", kind);
        match n.supporting_record_schemas.get(kind) {
            Some(b) => schema(Side::Record(kind.clone()), a, b, &p, &mut findings),
            None => findings.push(finding(
                "EVO-SET-001",
                Side::Record(kind.clone()),
                Class::Breaking,
                Some(&p),
                None,
                format!("record kind {kind:?} removed; consumers that expect it no longer get it"),
            )),
        }
    }
    for kind in n
        .supporting_record_schemas
        .keys()
        .filter(|k| !o.supporting_record_schemas.contains_key(*k))
    {
        let p = crate::pointer::child("/supporting_record_schemas", kind);
        findings.push(finding(
            "EVO-SET-002",
            Side::Record(kind.clone()),
            Class::PossiblyBreaking,
            None,
            Some(&p),
            format!("record kind {kind:?} added; a consumer that refuses unknown kinds fails"),
        ));
    }
    behaviour(o, n, &mut findings);
    let required = if old.interface_digest() == new.interface_digest() {
        Bump::None
    } else if findings.iter().any(|f| f.class >= Class::PossiblyBreaking) {
        Bump::Major
    } else {
        Bump::Minor
    };
    let carried = carries(&o.skill_version, &n.skill_version, required);
    if !carried {
        findings.push(finding(
            "EVO-VER-001",
            Side::Document,
            Class::Breaking,
            Some("/skill_version"),
            Some("/skill_version"),
            format!(
                "skill_version {} -> {} does not carry the {required} bump the changes need",
                o.skill_version, n.skill_version
            ),
        ));
    }
    Report {
        skill_id: o.skill_id.clone(),
        old_version: o.skill_version.clone(),
        new_version: n.skill_version.clone(),
        old_digest: old.interface_digest(),
        new_digest: new.interface_digest(),
        algebra,
        findings,
        required,
        carried,
    }
}

/// `schema_uri` and `version` of a Schema Reference: they are the identity direct
/// composition matches on, so a changed URI can break a chain even when the schema did not.
fn reference_identity(
    side: &Side,
    a: &SchemaReference,
    b: &SchemaReference,
    p: &str,
    out: &mut Vec<Finding>,
) {
    if a.schema_uri != b.schema_uri {
        let (x, y) = (format!("{p}/schema_uri"), format!("{p}/schema_uri"));
        out.push(finding(
            "EVO-REF-001",
            side.clone(),
            Class::PossiblyBreaking,
            Some(&x),
            Some(&y),
            format!(
                "schema_uri {:?} became {:?}; chains composed on the old identity stop composing",
                a.schema_uri, b.schema_uri
            ),
        ));
    }
    if a.version != b.version {
        let (x, y) = (format!("{p}/version"), format!("{p}/version"));
        out.push(finding(
            "EVO-REF-002",
            side.clone(),
            Class::Cosmetic,
            Some(&x),
            Some(&y),
            format!("schema version {} became {}", a.version, b.version),
        ));
    }
}

fn authority_rank(m: AuthorityMode) -> u8 {
    match m {
        AuthorityMode::ObserveOnly => 0,
        AuthorityMode::RecommendOnly => 1,
        AuthorityMode::Execute => 2,
    }
}

/// Interaction, authority and constraints.
fn behaviour(o: &SkillInterfaceDocument, n: &SkillInterfaceDocument, out: &mut Vec<Finding>) {
    let modes = "/interaction/response_modes";
    for m in o
        .interaction
        .response_modes
        .iter()
        .filter(|m| !n.interaction.response_modes.contains(m))
    {
        out.push(finding(
            "EVO-MODE-001",
            Side::Interaction,
            Class::Breaking,
            Some(modes),
            Some(modes),
            format!("response mode {m:?} removed; callers that use it fail"),
        ));
    }
    for m in n
        .interaction
        .response_modes
        .iter()
        .filter(|m| !o.interaction.response_modes.contains(m))
    {
        out.push(finding(
            "EVO-MODE-002",
            Side::Interaction,
            Class::Compatible,
            Some(modes),
            Some(modes),
            format!("response mode {m:?} added"),
        ));
    }
    let cancel = Some("/interaction/cancelable");
    match (o.interaction.cancelable, n.interaction.cancelable) {
        (true, false) => out.push(finding(
            "EVO-MODE-003",
            Side::Interaction,
            Class::Breaking,
            cancel,
            cancel,
            "cancelable withdrawn; callers that cancel fail".to_owned(),
        )),
        (false, true) => out.push(finding(
            "EVO-MODE-004",
            Side::Interaction,
            Class::Compatible,
            cancel,
            cancel,
            "cancelable granted".to_owned(),
        )),
        _ => {}
    }
    let mode = Some("/authority/default_mode");
    let (ra, rb) = (
        authority_rank(o.authority.default_mode),
        authority_rank(n.authority.default_mode),
    );
    let show = |m: AuthorityMode| {
        serde_json::to_value(m)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    };
    let what = format!(
        "default_mode {} became {}",
        show(o.authority.default_mode),
        show(n.authority.default_mode)
    );
    match ra.cmp(&rb) {
        Ordering::Less => out.push(finding(
            "EVO-AUTH-001",
            Side::Authority,
            Class::Breaking,
            mode,
            mode,
            format!("{what}: authority widened"),
        )),
        Ordering::Greater => out.push(finding(
            "EVO-AUTH-002",
            Side::Authority,
            Class::Compatible,
            mode,
            mode,
            format!("{what}: authority narrowed"),
        )),
        Ordering::Equal => {}
    }
    let approval = Some("/authority/approval_may_be_required");
    match (o.authority.approval_may_be_required, n.authority.approval_may_be_required) {
        (true, false) => out.push(finding("EVO-AUTH-003", Side::Authority, Class::Breaking, approval, approval, "approval_may_be_required withdrawn: the skill may act without the approval step operators relied on".to_owned())),
        (false, true) => out.push(finding("EVO-AUTH-004", Side::Authority, Class::PossiblyBreaking, approval, approval, "approval_may_be_required introduced: invocations may now wait for approval".to_owned())),
        _ => {}
    }
    limits(o, n, out);
}

fn limits(o: &SkillInterfaceDocument, n: &SkillInterfaceDocument, out: &mut Vec<Finding>) {
    let (a, b) = (&o.constraints, &n.constraints);
    let show = |v: Option<u64>| v.map_or("none".to_owned(), |x| x.to_string());
    let bytes = "/constraints/max_input_bytes";
    let (pa, pb) = (
        a.max_input_bytes.map(|_| bytes),
        b.max_input_bytes.map(|_| bytes),
    );
    // A missing limit is no limit: the loosest.
    let lower =
        |x: Option<u64>, y: Option<u64>| y.is_some() && x.is_none_or(|x| y.is_some_and(|y| y < x));
    if a.max_input_bytes != b.max_input_bytes {
        let what = format!(
            "max_input_bytes {} -> {}",
            show(a.max_input_bytes),
            show(b.max_input_bytes)
        );
        if lower(a.max_input_bytes, b.max_input_bytes) {
            out.push(finding(
                "EVO-LIMIT-001",
                Side::Constraints,
                Class::Breaking,
                pa,
                pb,
                format!("{what}: arguments that fit before are refused"),
            ));
        } else {
            out.push(finding(
                "EVO-LIMIT-002",
                Side::Constraints,
                Class::Compatible,
                pa,
                pb,
                what,
            ));
        }
    }
    let ms = "/constraints/max_duration_ms";
    let (pa, pb) = (a.max_duration_ms.map(|_| ms), b.max_duration_ms.map(|_| ms));
    if a.max_duration_ms != b.max_duration_ms {
        let what = format!(
            "max_duration_ms {} -> {}",
            show(a.max_duration_ms),
            show(b.max_duration_ms)
        );
        if lower(a.max_duration_ms, b.max_duration_ms) {
            out.push(finding(
                "EVO-LIMIT-004",
                Side::Constraints,
                Class::Compatible,
                pa,
                pb,
                what,
            ));
        } else {
            out.push(finding(
                "EVO-LIMIT-003",
                Side::Constraints,
                Class::Breaking,
                pa,
                pb,
                format!("{what}: callers that wait for the old bound give up early"),
            ));
        }
    }
    let keys: std::collections::BTreeSet<&String> = a.other.keys().chain(b.other.keys()).collect();
    for k in keys
        .into_iter()
        .filter(|k| a.other.get(*k) != b.other.get(*k))
    {
        let p = crate::pointer::child("/constraints", k);
        let (x, y) = (
            a.other.get(k).map(|_| p.as_str()),
            b.other.get(k).map(|_| p.as_str()),
        );
        out.push(finding(
            "EVO-LIMIT-005",
            Side::Constraints,
            Class::PossiblyBreaking,
            x,
            y,
            format!("constraint {k:?} changed; its meaning is not defined by the profile"),
        ));
    }
}

/// Compares two `Major.Minor` strings as numbers of any length (no leading zeros, so the
/// longer digit string is the larger number).
fn cmp_part(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Whether going from `old` to `new` carries `bump`: a major bump raises the major part, a
/// minor bump raises the version, no bump keeps it. A version that does not parse carries
/// nothing.
pub fn carries(old: &str, new: &str, bump: Bump) -> bool {
    let (Ok(a), Ok(b)) = (Version::parse(old), Version::parse(new)) else {
        return false;
    };
    let major = cmp_part(a.major, b.major);
    let whole = major.then_with(|| cmp_part(a.minor, b.minor));
    match bump {
        Bump::None => whole == Ordering::Equal,
        Bump::Minor => whole == Ordering::Less,
        Bump::Major => major == Ordering::Less,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_bumps() {
        assert!(carries("1.2", "1.3", Bump::Minor));
        assert!(carries("1.2", "2.0", Bump::Minor));
        assert!(!carries("1.2", "1.2", Bump::Minor));
        assert!(!carries("1.9", "1.10", Bump::Major));
        assert!(carries("9.9", "10.0", Bump::Major));
        assert!(!carries("2.0", "1.9", Bump::Minor));
        assert!(carries("1.0", "1.0", Bump::None));
        assert!(!carries("1.0", "x", Bump::None));
    }
}

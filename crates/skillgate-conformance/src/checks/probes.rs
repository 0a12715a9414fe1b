//! The probe family: generating arguments from the input schema (SI-GEN-001), wrong interface
//! selections (SI-MISMATCH-*) and invalid arguments (SI-INPUT-*).

use serde_json::{json, Value};
use skillgate_a2a::TaskState;
use skillgate_core::document::ValidatedDocument;
use skillgate_core::{Digest, ErrorCode, Version};

use super::{domain_request, Run, Target};
use crate::catalogue::{self as cat, CheckDef};
use crate::generate::{self, InvalidProbe, ECHO_MARKER};
use crate::probe::{show, Exchange};
use crate::report::Verdict;

/// The arguments generated for one skill.
pub(crate) struct Probes {
    /// Valid instances, best first.
    pub(crate) valid: Vec<Value>,
    /// The first valid instance without one required member.
    pub(crate) missing: Option<InvalidProbe>,
    /// The first valid instance with one member of the wrong type.
    pub(crate) wrong: Option<InvalidProbe>,
}

/// A version that is well formed and differs from `v` (a validated skill version; anything
/// else counts as major 0).
fn other_version(v: &str) -> String {
    let major = Version::parse(v)
        .ok()
        .and_then(|v| v.major_number())
        .unwrap_or(0);
    format!("{}.0", major.saturating_add(1000))
}

/// A well-formed digest that differs from `d`.
fn other_digest(d: &Digest) -> Digest {
    let mut bytes = *d.as_bytes();
    bytes[31] ^= 0x01;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Digest::parse(&format!("sha256:{hex}")).unwrap_or(*d)
}

/// SI-GEN-001: generates valid, missing-required and wrong-type arguments.
pub(crate) fn generation_check(run: &mut Run, doc: &ValidatedDocument) -> Probes {
    let skill = Some(doc.skill_id());
    let input_schema = &doc.document().input_schema.resolution.schema;
    let validator = doc.input_validator();
    let valid = generate::valid_candidates(input_schema, validator);
    let missing = valid
        .first()
        .and_then(|v| generate::missing_required(input_schema, v, validator));
    let wrong = valid
        .first()
        .and_then(|v| generate::wrong_type(input_schema, v, validator))
        .or_else(|| generate::wrong_type(input_schema, &json!({}), validator));
    let mut ev = Vec::new();
    match valid.first() {
        Some(v) => ev.push(format!("{} valid candidate(s), first {}", valid.len(), show(v, 200))),
        None => ev.push("no valid instance could be generated (the schema needs a pattern, or is unsatisfiable)".into()),
    }
    match &missing {
        Some(p) => ev.push(format!("missing-required probe: {}", p.change)),
        None => ev.push("no missing-required probe (no required members)".into()),
    }
    match &wrong {
        Some(p) => ev.push(format!("wrong-type probe: {}", p.change)),
        None => ev.push("no wrong-type probe (the schema accepts every type)".into()),
    }
    let verdict = if !valid.is_empty() && (missing.is_some() || wrong.is_some()) {
        Verdict::Pass
    } else {
        Verdict::Skip
    };
    run.push(cat::PROBE_GENERATION, skill, verdict, ev);
    Probes {
        valid,
        missing,
        wrong,
    }
}

/// SI-MISMATCH-001 / -002: a wrong skill_version, then a wrong interface_digest, each with
/// invalid arguments so that an agent checking the input first is caught.
pub(crate) async fn mismatch_checks(
    run: &mut Run,
    to: Target<'_>,
    doc: &ValidatedDocument,
    probes: &Probes,
) {
    let (skill_id, version) = (doc.skill_id(), doc.skill_version());
    let served = doc.interface_digest();
    let invalid: Option<&InvalidProbe> = probes.wrong.as_ref().or(probes.missing.as_ref());
    let bad_args = invalid
        .map(|p| p.instance.clone())
        .or_else(|| probes.valid.first().cloned());
    let cases = [
        (
            cat::MISMATCH_VERSION,
            other_version(version),
            served.to_string(),
            "skill_version",
        ),
        (
            cat::MISMATCH_DIGEST,
            version.to_owned(),
            other_digest(&served).to_string(),
            "interface_digest",
        ),
    ];
    for (def, ver, dig, what) in cases {
        let Some(args) = bad_args.clone() else {
            let why = "no arguments could be generated";
            run.skip_all(&[def], Some(skill_id), why);
            continue;
        };
        let request = domain_request(skill_id, &ver, dig, args);
        let mut ev = vec![format!("sent wrong {what}: {}", show(&request, 300))];
        match invalid {
            Some(p) => ev.push(format!("arguments are deliberately invalid ({})", p.change)),
            None => ev.push(
                "note: no invalid arguments could be generated; the order of checks is not proven"
                    .into(),
            ),
        }
        let label = format!("{skill_id} wrong {what}");
        match run.send(to, label.clone(), request).await {
            Ok(ex) => mismatch_verdict(run, def, skill_id, &label, &ex, ev),
            Err(e) => {
                ev.push(e);
                run.push(def, Some(skill_id), Verdict::Fail, ev);
            }
        }
    }
}

fn mismatch_verdict(
    run: &mut Run,
    def: CheckDef,
    skill_id: &str,
    label: &str,
    ex: &Exchange,
    mut ev: Vec<String>,
) {
    let (ok, seen) = run.expect_error(
        label,
        ex,
        ErrorCode::InterfaceMismatch,
        TaskState::Rejected,
        &mut ev,
    );
    if seen
        .as_ref()
        .is_some_and(|s| s.code == ErrorCode::InputInvalid.as_str())
    {
        ev.push("the agent validated arguments before checking the interface selection".into());
    }
    if ex
        .task()
        .is_some_and(|t| t.status.state == TaskState::Completed)
    {
        ev.push("the agent ran the skill under an interface it does not serve".into());
    }
    run.judge(def, Some(skill_id), ok, ev);
}

fn is_pointer(s: &str) -> bool {
    s.is_empty() || s.starts_with('/')
}

/// Evidence on the details of an input_invalid error; false when they do not say where.
fn details_ok(details: &[Value], ev: &mut Vec<String>) -> bool {
    if details.is_empty() {
        ev.push("details[] is empty: input_invalid must say where".into());
        return false;
    }
    let mut ok = true;
    for d in details {
        match d.get("instance_path").and_then(Value::as_str) {
            Some(ip) if is_pointer(ip) => ev.push(format!(
                "detail instance_path {ip:?} keyword {}",
                d.get("keyword")
                    .map(|k| show(k, 40))
                    .unwrap_or_else(|| "-".into())
            )),
            _ => {
                ok = false;
                ev.push(format!(
                    "detail without a JSON Pointer instance_path: {}",
                    show(d, 160)
                ));
            }
        }
    }
    ok
}

/// Whether the final status of the exchange's task repeats the probe marker.
fn echoes_marker(ex: &Exchange) -> Option<bool> {
    ex.task().map(|t| {
        serde_json::to_string(&t.status)
            .unwrap_or_default()
            .contains(ECHO_MARKER)
    })
}

/// SI-INPUT-001 / -002: invalid arguments are rejected with input_invalid and details.
/// Returns the echo observation of a probe that carried the marker, for SI-INPUT-003.
async fn input_checks(
    run: &mut Run,
    to: Target<'_>,
    doc: &ValidatedDocument,
    probes: &Probes,
) -> Option<(String, bool)> {
    let (skill_id, skill) = (doc.skill_id(), Some(doc.skill_id()));
    let mut echo_probe = None;
    for (def, probe) in [
        (cat::INPUT_MISSING_REQUIRED, &probes.missing),
        (cat::INPUT_WRONG_TYPE, &probes.wrong),
    ] {
        let Some(p) = probe else {
            let why = "no such invalid instance can be generated from input_schema";
            run.skip_all(&[def], skill, why);
            continue;
        };
        let request = domain_request(
            skill_id,
            doc.skill_version(),
            doc.interface_digest().to_string(),
            p.instance.clone(),
        );
        let mut ev = vec![format!("sent {} ({})", show(&request, 300), p.change)];
        let label = format!("{skill_id} {}", def.id);
        match run.send(to, label.clone(), request).await {
            Ok(ex) => {
                let (mut ok, seen) = run.expect_error(
                    &label,
                    &ex,
                    ErrorCode::InputInvalid,
                    TaskState::Rejected,
                    &mut ev,
                );
                if let Some(s) = seen.filter(|s| s.code == ErrorCode::InputInvalid.as_str()) {
                    ok &= details_ok(&s.details, &mut ev);
                }
                if p.carries_marker {
                    if let Some(seen) = echoes_marker(&ex) {
                        echo_probe = Some((label.clone(), seen));
                    }
                }
                run.judge(def, skill, ok, ev);
            }
            Err(e) => {
                ev.push(e);
                run.push(def, skill, Verdict::Fail, ev);
            }
        }
    }
    echo_probe
}

/// SI-INPUT-001..003: the input checks, then (if no probe carried the marker) a dedicated
/// echo probe, then the verdict on whether an error repeated the probe value.
pub(crate) async fn input_and_echo_checks(
    run: &mut Run,
    to: Target<'_>,
    doc: &ValidatedDocument,
    probes: &Probes,
) {
    let skill_id = doc.skill_id();
    let mut echo_probe = input_checks(run, to, doc, probes).await;
    if echo_probe.is_none() {
        if let Some(p) = probes
            .valid
            .first()
            .and_then(|v| generate::echo_probe(v, doc.input_validator()))
        {
            let request = domain_request(
                skill_id,
                doc.skill_version(),
                doc.interface_digest().to_string(),
                p.instance,
            );
            let label = format!("{skill_id} echo probe ({})", p.change);
            if let Ok(ex) = run.send(to, label.clone(), request).await {
                if let Some(t) = ex.task() {
                    run.note_error(&label, t);
                }
                echo_probe = echoes_marker(&ex).map(|seen| (label, seen));
            }
        }
    }
    let skill = Some(skill_id);
    match echo_probe {
        Some((label, true)) => run.push(
            cat::INPUT_NO_ECHO,
            skill,
            Verdict::Fail,
            vec![format!(
                "the error for {label} repeats the probe value {ECHO_MARKER:?}"
            )],
        ),
        Some((label, false)) => run.push(
            cat::INPUT_NO_ECHO,
            skill,
            Verdict::Pass,
            vec![format!(
                "the error for {label} does not repeat the probe value"
            )],
        ),
        None => run.skip_all(
            &[cat::INPUT_NO_ECHO],
            skill,
            "no probe could carry a recognisable string value",
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use skillgate_core::digest;

    use super::*;

    #[test]
    fn wrong_values_are_well_formed_and_differ() {
        assert!(Version::is_valid(&other_version("1.0")));
        assert_ne!(other_version("1.0"), "1.0");
        let d = digest(&json!({}));
        assert_ne!(other_digest(&d), d);
    }

    #[test]
    fn details_must_say_where() {
        let mut ev = Vec::new();
        assert!(!details_ok(&[], &mut ev));
        assert!(details_ok(&[json!({"instance_path": "/a"})], &mut ev));
        assert!(!details_ok(&[json!({"instance_path": "a"})], &mut ev));
    }
}

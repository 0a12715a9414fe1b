//! Report formats: text for people, JSON for scripts, SARIF 2.1.0 for code-scanning UIs.
//! The CLI prints these; it builds none of them itself.

use std::fmt::Write as _;

use serde::Serialize;

use crate::algebra::Decision;
use crate::finding::{Class, Finding, Side};
use crate::rules::RULES;
use crate::Report;

/// One finding as JSON: the side is a name, the record kind (when the side is a record) a
/// member of its own, so scripts can switch on `side` without parsing it.
#[derive(Debug, Clone, Serialize)]
pub struct JsonFinding<'a> {
    /// The rule id.
    pub rule: &'a str,
    /// `input`, `output`, `record`, `interaction`, `authority`, `constraints` or `document`.
    pub side: &'static str,
    /// The record kind when `side` is `record`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_kind: Option<&'a str>,
    /// `breaking`, `possibly_breaking`, `compatible` or `cosmetic`.
    pub class: &'static str,
    /// JSON Pointer into OLD (null when only NEW has the member).
    pub old_pointer: Option<&'a str>,
    /// JSON Pointer into NEW (null when only OLD has the member).
    pub new_pointer: Option<&'a str>,
    /// One line saying what changed.
    pub reason: &'a str,
}

/// The algebra's decision for one schema side, as JSON.
#[derive(Debug, Clone, Serialize)]
pub struct JsonAlgebra<'a> {
    /// `input`, `output` or `record`.
    pub side: &'static str,
    /// The record kind when `side` is `record`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_kind: Option<&'a str>,
    /// `included` (proven compatible), `not_included` (proven breaking) or `undecided`.
    pub decision: &'static str,
    /// Why it is undecided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
}

/// The JSON report of `interface diff --format json`.
#[derive(Debug, Clone, Serialize)]
pub struct JsonReport<'a> {
    /// The skill (OLD's id).
    pub skill_id: &'a str,
    /// OLD's `skill_version`.
    pub old_version: &'a str,
    /// NEW's `skill_version`.
    pub new_version: &'a str,
    /// `digest(OLD)`.
    pub old_digest: String,
    /// `digest(NEW)`.
    pub new_digest: String,
    /// `major`, `minor` or `none`.
    pub required_bump: &'static str,
    /// Whether NEW's version carries the required bump (false: exit 1).
    pub version_carries_bump: bool,
    /// The worst class of any change, null when the documents are equal.
    pub worst: Option<&'static str>,
    /// Per schema side, what the schema algebra decided.
    pub algebra: Vec<JsonAlgebra<'a>>,
    /// Every finding.
    pub findings: Vec<JsonFinding<'a>>,
}

fn side_name(s: &Side) -> (&'static str, Option<&str>) {
    match s {
        Side::Input => ("input", None),
        Side::Output => ("output", None),
        Side::Record(k) => ("record", Some(k.as_str())),
        Side::Interaction => ("interaction", None),
        Side::Authority => ("authority", None),
        Side::Constraints => ("constraints", None),
        Side::Document => ("document", None),
    }
}

/// A finding as JSON.
pub fn json_finding(f: &Finding) -> JsonFinding<'_> {
    let (side, record_kind) = side_name(&f.side);
    JsonFinding {
        rule: f.rule,
        side,
        record_kind,
        class: f.class.as_str(),
        old_pointer: f.old_pointer.as_deref(),
        new_pointer: f.new_pointer.as_deref(),
        reason: &f.reason,
    }
}

fn decision_parts(d: &Decision) -> (&'static str, Option<&str>) {
    match d {
        Decision::Included => ("included", None),
        Decision::NotIncluded => ("not_included", None),
        Decision::Undecided(r) => ("undecided", Some(r.as_str())),
    }
}

/// The JSON report, borrowing from `r`.
pub fn to_json(r: &Report) -> JsonReport<'_> {
    JsonReport {
        skill_id: &r.skill_id,
        old_version: &r.old_version,
        new_version: &r.new_version,
        old_digest: r.old_digest.to_string(),
        new_digest: r.new_digest.to_string(),
        required_bump: r.required.as_str(),
        version_carries_bump: r.carried,
        worst: r.worst().map(Class::as_str),
        algebra: r
            .algebra
            .iter()
            .map(|(s, d)| {
                let (side, record_kind) = side_name(s);
                let (decision, reason) = decision_parts(d);
                JsonAlgebra {
                    side,
                    record_kind,
                    decision,
                    reason,
                }
            })
            .collect(),
        findings: r.findings.iter().map(json_finding).collect(),
    }
}

/// The text report: a verdict line, then one line per finding, worst first.
pub fn to_text(r: &Report) -> String {
    let mut out = String::new();
    let verdict = if r.carried {
        "carries it"
    } else {
        "does NOT carry it"
    };
    let _ = if r.required == crate::Bump::None {
        writeln!(
            out,
            "{} {}: identical documents (same digest), no bump needed",
            r.skill_id, r.old_version
        )
    } else {
        writeln!(
            out,
            "{} {} -> {}: {} bump required; {} {verdict}",
            r.skill_id, r.old_version, r.new_version, r.required, r.new_version
        )
    };
    let mut sorted: Vec<&Finding> = r.findings.iter().collect();
    sorted.sort_by_key(|f| std::cmp::Reverse(f.class));
    for f in sorted {
        let _ = writeln!(out, "  {f}");
        if let (Some(o), Some(n)) = (&f.old_pointer, &f.new_pointer) {
            if o != n {
                let _ = writeln!(out, "      old {o}");
            }
        }
    }
    for (side, d) in &r.algebra {
        let (decision, reason) = decision_parts(d);
        let _ = match reason {
            Some(why) => writeln!(out, "  algebra [{side}]: {decision} ({why})"),
            None => writeln!(out, "  algebra [{side}]: {decision}"),
        };
    }
    out
}

/// The SARIF 2.1.0 log (`$schema`, `version`, one run).
#[derive(Debug, Clone, Serialize)]
pub struct SarifLog<'a> {
    /// The SARIF 2.1.0 schema URI.
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    /// Always `2.1.0`.
    pub version: &'static str,
    /// One run.
    pub runs: Vec<SarifRun<'a>>,
}

/// A SARIF run: the tool with its rules, the results.
#[derive(Debug, Clone, Serialize)]
pub struct SarifRun<'a> {
    /// The tool.
    pub tool: SarifTool,
    /// One result per finding.
    pub results: Vec<SarifResult<'a>>,
}

/// The run's `tool`: SARIF puts the producer's identity and rules under its `driver`.
#[derive(Debug, Clone, Serialize)]
pub struct SarifTool {
    /// The component that produced the results (there are no extensions).
    pub driver: SarifDriver,
}

/// `tool.driver`: name and the rule catalogue.
#[derive(Debug, Clone, Serialize)]
pub struct SarifDriver {
    /// `skillgate interface diff`.
    pub name: &'static str,
    /// The crate version.
    pub version: &'static str,
    /// Every rule of the catalogue, in catalogue order (results index into it).
    pub rules: Vec<SarifRule>,
}

/// A `reportingDescriptor`.
#[derive(Debug, Clone, Serialize)]
pub struct SarifRule {
    /// The rule id.
    pub id: &'static str,
    /// What the rule names.
    #[serde(rename = "shortDescription")]
    pub short_description: SarifText<'static>,
}

/// A SARIF `message` or description.
#[derive(Debug, Clone, Serialize)]
pub struct SarifText<'a> {
    /// The text.
    pub text: std::borrow::Cow<'a, str>,
}

/// A SARIF `result`.
#[derive(Debug, Clone, Serialize)]
pub struct SarifResult<'a> {
    /// The rule id.
    #[serde(rename = "ruleId")]
    pub rule_id: &'a str,
    /// Index of the rule in `tool.driver.rules`.
    #[serde(rename = "ruleIndex")]
    pub rule_index: usize,
    /// `error` (breaking), `warning` (possibly breaking), `note` (the rest).
    pub level: &'static str,
    /// The reason, prefixed with the side.
    pub message: SarifText<'a>,
    /// Where: the document that has the member (NEW when both have it).
    pub locations: Vec<SarifLocation<'a>>,
    /// `class`, `side`, `oldPointer`, `newPointer`.
    pub properties: serde_json::Value,
}

/// A SARIF `location`: the file and, as a logical location, the JSON Pointer.
#[derive(Debug, Clone, Serialize)]
pub struct SarifLocation<'a> {
    /// The file.
    #[serde(rename = "physicalLocation")]
    pub physical_location: SarifPhysical<'a>,
    /// The JSON Pointer inside it.
    #[serde(rename = "logicalLocations")]
    pub logical_locations: Vec<SarifLogical<'a>>,
}

/// A SARIF `physicalLocation`: the file only, no region (a finding is located by its JSON
/// Pointer, which has no line in a reformatted document).
#[derive(Debug, Clone, Serialize)]
pub struct SarifPhysical<'a> {
    /// Which file.
    #[serde(rename = "artifactLocation")]
    pub artifact_location: SarifArtifact<'a>,
}

/// A SARIF `artifactLocation`: the file as a URI reference (relative paths stay relative).
#[derive(Debug, Clone, Serialize)]
pub struct SarifArtifact<'a> {
    /// The file's URI reference, as the caller gave it.
    pub uri: &'a str,
}

/// A SARIF `logicalLocation` carrying the finding's JSON Pointer as its fully qualified name.
#[derive(Debug, Clone, Serialize)]
pub struct SarifLogical<'a> {
    /// The JSON Pointer.
    #[serde(rename = "fullyQualifiedName")]
    pub fully_qualified_name: &'a str,
}

/// The SARIF schema URI the log names.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

fn level(c: Class) -> &'static str {
    match c {
        Class::Breaking => "error",
        Class::PossiblyBreaking => "warning",
        Class::Compatible | Class::Cosmetic => "note",
    }
}

/// The SARIF log of `r`; `old_uri` and `new_uri` name the two files.
pub fn to_sarif<'a>(r: &'a Report, old_uri: &'a str, new_uri: &'a str) -> SarifLog<'a> {
    let rules = RULES
        .iter()
        .map(|rule| SarifRule {
            id: rule.id,
            short_description: SarifText {
                text: rule.what.into(),
            },
        })
        .collect();
    let results = r
        .findings
        .iter()
        .map(|f| {
            let (uri, pointer) = match (&f.new_pointer, &f.old_pointer) {
                (Some(p), _) => (new_uri, p.as_str()),
                (None, Some(p)) => (old_uri, p.as_str()),
                (None, None) => (new_uri, ""),
            };
            SarifResult {
                rule_id: f.rule,
                rule_index: RULES.iter().position(|x| x.id == f.rule).unwrap_or(0),
                level: level(f.class),
                message: SarifText {
                    text: format!("[{}] {}", f.side, f.reason).into(),
                },
                locations: vec![SarifLocation {
                    physical_location: SarifPhysical {
                        artifact_location: SarifArtifact { uri },
                    },
                    logical_locations: vec![SarifLogical {
                        fully_qualified_name: pointer,
                    }],
                }],
                properties: serde_json::json!({
                    "class": f.class.as_str(),
                    "side": f.side.to_string(),
                    "oldPointer": f.old_pointer,
                    "newPointer": f.new_pointer,
                }),
            }
        })
        .collect();
    SarifLog {
        schema: SARIF_SCHEMA,
        version: "2.1.0",
        runs: vec![SarifRun {
            tool: SarifTool {
                driver: SarifDriver {
                    name: "skillgate interface diff",
                    version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            results,
        }],
    }
}

/// One skill of the card diff as JSON.
#[derive(Debug, Clone, Serialize)]
pub struct JsonCardSkill<'a> {
    /// The skill id.
    pub skill_id: &'a str,
    /// `added`, `removed`, `reversioned` or `unchanged`.
    pub change: &'static str,
    /// OLD's advertised version.
    pub old_version: Option<&'a str>,
    /// NEW's advertised version.
    pub new_version: Option<&'a str>,
    /// OLD's advertised digest.
    pub old_digest: Option<String>,
    /// NEW's advertised digest.
    pub new_digest: Option<String>,
    /// The interface diff (as `interface diff --format json` prints it) when both documents
    /// were given.
    pub interface: Option<JsonReport<'a>>,
    /// Why this skill fails the diff.
    pub problem: Option<&'a str>,
}

/// The card diff as JSON: `{"ok", "skills": [...]}`.
#[derive(Debug, Clone, Serialize)]
pub struct JsonCardReport<'a> {
    /// False when any skill has a problem (exit 1).
    pub ok: bool,
    /// Every skill of either card.
    pub skills: Vec<JsonCardSkill<'a>>,
}

fn change_name(c: &crate::SkillChange) -> &'static str {
    match c {
        crate::SkillChange::Added => "added",
        crate::SkillChange::Removed => "removed",
        crate::SkillChange::Reversioned => "reversioned",
        crate::SkillChange::Unchanged => "unchanged",
    }
}

/// The card diff as JSON, borrowing from `r`.
pub fn card_to_json(r: &crate::CardReport) -> JsonCardReport<'_> {
    JsonCardReport {
        ok: !r.has_problems(),
        skills: r
            .skills
            .iter()
            .map(|s| JsonCardSkill {
                skill_id: &s.skill_id,
                change: change_name(&s.change),
                old_version: s.old.as_ref().map(|(v, _)| v.as_str()),
                new_version: s.new.as_ref().map(|(v, _)| v.as_str()),
                old_digest: s.old.as_ref().map(|(_, d)| d.to_string()),
                new_digest: s.new.as_ref().map(|(_, d)| d.to_string()),
                interface: s.interface.as_ref().map(to_json),
                problem: s.problem.as_deref(),
            })
            .collect(),
    }
}

/// The card diff as text: one line per skill, the interface verdict indented below it.
pub fn card_to_text(r: &crate::CardReport) -> String {
    let mut out = String::new();
    for s in &r.skills {
        let v = |x: &Option<(String, skillgate_core::Digest)>| {
            x.as_ref().map_or("-".to_owned(), |(v, _)| v.clone())
        };
        let _ = writeln!(
            out,
            "{:<11} {} ({} -> {})",
            change_name(&s.change),
            s.skill_id,
            v(&s.old),
            v(&s.new)
        );
        if let Some(p) = &s.problem {
            let _ = writeln!(out, "  problem: {p}");
        }
        match &s.interface {
            Some(i) => {
                for line in to_text(i).lines() {
                    let _ = writeln!(out, "  {line}");
                }
            }
            None if s.change == crate::SkillChange::Reversioned => {
                let _ = writeln!(
                    out,
                    "  interface verdict: not at hand (give both documents with --interface)"
                );
            }
            None => {}
        }
    }
    out
}

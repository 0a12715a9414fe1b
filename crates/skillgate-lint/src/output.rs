//! Report formats: text for people, JSON for scripts, SARIF 2.1.0 for code-scanning UIs.

use std::fmt;

use serde::Serialize;
use serde_json::{json, Value};

use crate::rules::{self, Severity};
use crate::Report;

/// One finding of the JSON report. Members are declared in alphabetical order so the bytes
/// match what the report has always printed (serde_json sorts object members).
#[derive(Debug, Clone, Serialize)]
pub struct JsonFinding<'a> {
    /// How to fix it.
    pub hint: &'a str,
    /// What is wrong.
    pub message: &'a str,
    /// JSON Pointer into the card.
    pub path: &'a str,
    /// The rule ID (`A2A-…`, `SI-…`).
    pub rule: &'a str,
    /// `error`, `warning` or `info`.
    pub severity: &'static str,
}

/// The JSON report: `{"errors", "findings": [{"hint", "message", "path", "rule", "severity"}],
/// "profile", "warnings"}`; its `Display` is the compact JSON text.
#[derive(Debug, Clone, Serialize)]
pub struct JsonReport<'a> {
    /// Number of error findings (any makes the card invalid).
    pub errors: usize,
    /// Every finding, in report order.
    pub findings: Vec<JsonFinding<'a>>,
    /// The profile the card was linted against.
    pub profile: &'static str,
    /// Number of warning findings.
    pub warnings: usize,
}

impl fmt::Display for JsonReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

/// The JSON report of `report`, borrowing its findings.
pub fn to_json(report: &Report) -> JsonReport<'_> {
    JsonReport {
        errors: report.errors(),
        findings: report
            .findings
            .iter()
            .map(|f| JsonFinding {
                hint: &f.hint,
                message: &f.message,
                path: &f.path,
                rule: f.rule,
                severity: f.severity.as_str(),
            })
            .collect(),
        profile: report.profile.as_str(),
        warnings: report.warnings(),
    }
}

/// The text report; `source` names the input in the header.
pub fn to_text(report: &Report, source: &str) -> String {
    let mut out = format!(
        "{source}: profile {}{}\n",
        report.profile.as_str(),
        if report.detected { " (detected)" } else { "" }
    );
    for f in &report.findings {
        let at = match f.position {
            Some(p) => format!(" (line {}, column {})", p.line, p.column),
            None => String::new(),
        };
        let path = if f.path.is_empty() {
            "/"
        } else {
            f.path.as_str()
        };
        out.push_str(&format!(
            "{:<7} {} {}{}: {}\n        hint: {}\n",
            f.severity.as_str(),
            f.rule,
            path,
            at,
            f.message,
            f.hint
        ));
    }
    out.push_str(&format!(
        "{} error(s), {} warning(s), {} info(s)\n",
        report.errors(),
        report.warnings(),
        report.infos()
    ));
    out
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A SARIF 2.1.0 log for input that could not be linted: no results, an unsuccessful
/// invocation with one error notification (located at the parse position when known).
/// `exit_code` is the process exit code the caller will return (SARIF records it; the
/// library does not choose it).
pub fn input_error_sarif(
    code: &str,
    message: &str,
    position: Option<(usize, usize)>,
    artifact_uri: &str,
    exit_code: u8,
) -> Value {
    let mut physical = json!({"artifactLocation": {"uri": artifact_uri}});
    if let Some((line, column)) = position {
        physical["region"] = json!({"startLine": line, "startColumn": column});
    }
    let mut log = to_sarif(
        &Report {
            profile: crate::Profile::A2a10,
            detected: false,
            findings: Vec::new(),
            positions: Default::default(),
        },
        artifact_uri,
    );
    if let Some(run) = log["runs"].get_mut(0) {
        if let Some(props) = run.as_object_mut() {
            props.remove("properties");
        }
        run["invocations"] = json!([{
            "executionSuccessful": false,
            "exitCode": exit_code,
            "toolExecutionNotifications": [{
                "level": "error",
                "descriptor": {"id": code},
                "message": {"text": message},
                "locations": [{"physicalLocation": physical}],
            }],
        }]);
    }
    log
}

/// A SARIF 2.1.0 log with one run. Every catalogue rule is listed in `tool.driver.rules` (so
/// that `ruleIndex` is stable across runs); each result has a physical location in `artifact_uri`
/// (with a region when the position is known) and the JSON Pointer as a logical location.
pub fn to_sarif(report: &Report, artifact_uri: &str) -> Value {
    let rules_json: Vec<Value> = rules::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id.replace('-', ""),
                "shortDescription": {"text": r.what},
                "fullDescription": {"text": format!("{} {}", r.what, r.why)},
                "help": {"text": r.fix},
                "defaultConfiguration": {"level": sarif_level(r.severity)},
                "properties": {"profiles": r.profiles},
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let index = rules::ALL.iter().position(|r| r.id == f.rule);
            let mut physical = json!({"artifactLocation": {"uri": artifact_uri}});
            if let Some(p) = f.position {
                physical["region"] = json!({"startLine": p.line, "startColumn": p.column});
            }
            let pointer = if f.path.is_empty() {
                "/"
            } else {
                f.path.as_str()
            };
            let mut r = json!({
                "ruleId": f.rule,
                "level": sarif_level(f.severity),
                "message": {"text": format!("{} (fix: {})", f.message, f.hint)},
                "locations": [{
                    "physicalLocation": physical,
                    "logicalLocations": [{"fullyQualifiedName": pointer, "kind": "member"}],
                }],
            });
            if let Some(i) = index {
                r["ruleIndex"] = json!(i);
            }
            r
        })
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {"driver": {
                "name": "skillgate",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules_json,
            }},
            "artifacts": [{"location": {"uri": artifact_uri}}],
            "invocations": [{"executionSuccessful": true}],
            "properties": {"profile": report.profile.as_str()},
            "results": results,
        }],
    })
}

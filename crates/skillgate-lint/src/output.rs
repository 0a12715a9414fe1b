//! Report formats: text for people, JSON for scripts, SARIF 2.1.0 for code-scanning UIs.

use serde_json::{json, Value};

use crate::rules::{self, Severity};
use crate::Report;

/// The JSON report: `{"profile", "errors", "warnings", "findings": [{"rule", "severity",
/// "path", "message", "hint"}]}`.
pub fn to_json(report: &Report) -> Value {
    json!({
        "profile": report.profile.as_str(),
        "errors": report.errors(),
        "warnings": report.warnings(),
        "findings": report.findings.iter().map(|f| json!({
            "rule": f.rule,
            "severity": f.severity.as_str(),
            "path": f.path,
            "message": f.message,
            "hint": f.hint,
        })).collect::<Vec<_>>(),
    })
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

/// The JSON document for input that could not be linted (exit 2):
/// `{"error": {"code", "message", "line"?, "column"?}}`. Codes: `unreadable`, `fetch_failed`,
/// `too_large`, `not_json`.
pub fn input_error_json(code: &str, message: &str, position: Option<(usize, usize)>) -> Value {
    let mut e = json!({"code": code, "message": message});
    if let Some((line, column)) = position {
        e["line"] = json!(line);
        e["column"] = json!(column);
    }
    json!({ "error": e })
}

/// A SARIF 2.1.0 log for input that could not be linted: no results, an unsuccessful
/// invocation with one error notification (located at the parse position when known).
pub fn input_error_sarif(
    code: &str,
    message: &str,
    position: Option<(usize, usize)>,
    artifact_uri: &str,
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
            "exitCode": 2,
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
                "informationUri": "https://example.invalid/skillgate/docs/lint-rules.md",
                "rules": rules_json,
            }},
            "artifacts": [{"location": {"uri": artifact_uri}}],
            "invocations": [{"executionSuccessful": true}],
            "properties": {"profile": report.profile.as_str()},
            "results": results,
        }],
    })
}

//! The corpus: pairs of documents under `tests/fixtures/evolution/`, each with the findings it must give
//! (rule, side, class), the required bump and whether NEW's version carries it.
//!
//! A case is either shorthand (`old`/`new` hold the skill version, the schemas and whatever
//! else differs; the test assembles each document with its digests) or two whole documents
//! (`old_file`/`new_file`, paths relative to `tests/fixtures/evolution/`). Regenerate the expectations
//! with `SKILLGATE_BLESS=1 cargo test -p skillgate-evolve --test corpus`, then read the diff:
//! blessing writes what the code says, not what is right.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use skillgate_core::document::{Expectations, InterfaceBuilder, ValidatedDocument};
use skillgate_core::wire::{Authority, Constraints, Interaction};
use skillgate_evolve::output::json_finding;
use skillgate_evolve::rules::RULES;
use skillgate_evolve::{diff, Report};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/evolution")
}

/// Assembles a document from the shorthand of a case.
fn build(s: &Value) -> ValidatedDocument {
    let str_of = |k: &str, d: &str| s.get(k).and_then(Value::as_str).unwrap_or(d).to_owned();
    let object = json!({"type": "object"});
    let mut b = InterfaceBuilder::new(str_of("skill_id", "probe"), str_of("skill_version", "1.0"))
        .input(
            str_of("input_uri", "urn:example:probe:input"),
            "1.0",
            s.get("input").cloned().unwrap_or(object.clone()),
        )
        .output(
            "urn:example:probe:output",
            str_of("output_schema_version", "1.0"),
            s.get("output").cloned().unwrap_or(object),
        );
    if let Some(records) = s.get("records").and_then(Value::as_object) {
        for (kind, schema) in records {
            b = b.record(
                kind,
                format!("urn:example:probe:{kind}"),
                "1.0",
                schema.clone(),
            );
        }
    }
    if let Some(v) = s.get("interaction") {
        b = b.interaction(serde_json::from_value::<Interaction>(v.clone()).unwrap());
    }
    if let Some(v) = s.get("authority") {
        b = b.authority(serde_json::from_value::<Authority>(v.clone()).unwrap());
    }
    if let Some(v) = s.get("constraints") {
        b = b.constraints(serde_json::from_value::<Constraints>(v.clone()).unwrap());
    }
    b.build()
        .unwrap_or_else(|e| panic!("shorthand does not build: {e}\n{s}"))
}

fn load(case: &Value, side: &str) -> ValidatedDocument {
    match case.get(format!("{side}_file")).and_then(Value::as_str) {
        Some(file) => {
            let text = std::fs::read_to_string(dir().join(file)).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            ValidatedDocument::from_value(&value, &Expectations::default()).unwrap()
        }
        None => build(&case[side]),
    }
}

/// What a case records: the set of (rule, side, class) and the verdict.
fn expectation(r: &Report) -> Value {
    let findings: BTreeSet<(String, String, String)> = r
        .findings
        .iter()
        .map(|f| {
            let j = json_finding(f);
            let side = match j.record_kind {
                Some(k) => format!("record {k}"),
                None => j.side.to_owned(),
            };
            (f.rule.to_owned(), side, j.class.to_owned())
        })
        .collect();
    json!({
        "findings": findings.into_iter().map(|(a, b, c)| json!([a, b, c])).collect::<Vec<_>>(),
        "required": r.required.as_str(),
        "carried": r.carried,
    })
}

fn cases() -> BTreeMap<String, (PathBuf, Value)> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) == Some("json") {
            let case: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            out.insert(name, (path, case));
        }
    }
    out
}

#[test]
fn every_case_gives_its_expected_findings() {
    let bless = std::env::var_os("SKILLGATE_BLESS").is_some();
    let mut failures = Vec::new();
    for (name, (path, mut case)) in cases() {
        let report = diff(&load(&case, "old"), &load(&case, "new"));
        let got = expectation(&report);
        if bless {
            case["expect"] = got;
            let text = serde_json::to_string_pretty(&case).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
        } else if case["expect"] != got {
            failures.push(format!(
                "{name}: expected {}\n   got {}",
                case["expect"], got
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every rule is exercised, and every schema rule on the input side and on the output side
/// (one change, both directions), except the two that only one direction can produce.
#[test]
fn the_corpus_covers_every_rule_in_both_directions() {
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (_, (_, case)) in cases() {
        for f in case["expect"]["findings"].as_array().into_iter().flatten() {
            let rule = f[0].as_str().unwrap().to_owned();
            seen.entry(rule)
                .or_default()
                .insert(f[1].as_str().unwrap().to_owned());
        }
    }
    let mut missing = Vec::new();
    for rule in RULES {
        match seen.get(rule.id) {
            None => missing.push(format!("{} never fires", rule.id)),
            Some(sides) if rule.id.starts_with("EVO-SCHEMA-") && rule.id != "EVO-SCHEMA-028" => {
                for side in ["input", "output"] {
                    if !sides.contains(side) {
                        missing.push(format!("{} never fires on the {side} side", rule.id));
                    }
                }
            }
            Some(_) => {}
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

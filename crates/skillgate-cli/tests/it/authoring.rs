//! `skillgate interface new | validate | fix`: documents assembled from schema files, offline
//! instance validation on the shipped Appendix B examples, digests repaired after an edit.

use skillgate_testkit::cli::{code, stderr, stdout, stdout_json};

use super::skillgate;

const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/interfaces");

fn example(name: &str) -> String {
    format!("{EXAMPLES}/{name}")
}

#[test]
fn new_prints_a_valid_document_that_check_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_owned();
    std::fs::write(
        p("in.json"),
        r#"{"type":"object","required":["a"],"properties":{"a":{"type":"integer"}}}"#,
    )
    .unwrap();
    std::fs::write(p("out.json"), r#"{"type":"object"}"#).unwrap();
    let out = skillgate().run(&[
        "interface",
        "new",
        "--skill-id",
        "probe",
        "--skill-version",
        "2.1",
        "--input",
        &p("in.json"),
        "--output",
        &p("out.json"),
        "--record",
        &format!("note={}", p("out.json")),
        "--schema-uri",
        "input=urn:example:probe:in",
        "--cancelable",
        "--max-duration-ms",
        "500",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc = stdout_json(&out);
    assert_eq!(doc["input_schema"]["schema_uri"], "urn:example:probe:in");
    assert_eq!(
        doc["output_schema"]["schema_uri"],
        "urn:skillgate:probe:output"
    );
    assert_eq!(doc["interaction"]["cancelable"], true);
    assert_eq!(doc["constraints"]["max_duration_ms"], 500);
    assert!(doc["supporting_record_schemas"]["note"].is_object());
    let digest = skillgate_core::digest(&doc).to_string();
    assert!(stderr(&out).contains(&digest), "{}", stderr(&out));
    std::fs::write(p("doc.json"), stdout(&out)).unwrap();
    let check = skillgate().run(&["interface", "check", &p("doc.json"), "--digest", &digest]);
    assert_eq!(code(&check), 0, "{}", stdout(&check));

    let bad = skillgate().run(&[
        "interface",
        "new",
        "--skill-id",
        "probe",
        "--skill-version",
        "01.0",
        "--input",
        &p("in.json"),
        "--output",
        &p("out.json"),
    ]);
    assert_eq!(code(&bad), 1);
    assert!(stderr(&bad).contains("/skill_version"), "{}", stderr(&bad));
}

#[test]
fn validate_checks_the_shipped_examples_with_the_gates_details() {
    let doc = example("evaluate_resource_condition.json");
    for (flag, file) in [
        ("--input", example("evaluate_resource_condition.input.json")),
        (
            "--output",
            example("evaluate_resource_condition.output.json"),
        ),
        (
            "--record",
            format!(
                "resource-observation={}",
                example("evaluate_resource_condition.record.json")
            ),
        ),
    ] {
        let out = skillgate().run(&["interface", "validate", &doc, flag, &file]);
        assert_eq!(code(&out), 0, "{flag}: {}{}", stdout(&out), stderr(&out));
    }
    // The output example is not valid input: the gate's details, by JSON Pointer.
    let out = skillgate().run(&[
        "interface",
        "validate",
        &doc,
        "--input",
        &example("evaluate_resource_condition.output.json"),
        "--format",
        "json",
    ]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let v = stdout_json(&out);
    assert_eq!(v["code"], "input_invalid");
    assert!(!v["details"].as_array().unwrap().is_empty(), "{v}");
    let out = skillgate().run(&[
        "interface",
        "validate",
        &doc,
        "--record",
        &format!(
            "nope={}",
            example("evaluate_resource_condition.record.json")
        ),
    ]);
    assert_eq!(code(&out), 2, "an undeclared kind is a usage error");
    let out = skillgate().run(&["interface", "validate", &doc]);
    assert_eq!(code(&out), 2, "one instance is required");
}

#[test]
fn fix_repairs_a_stale_digest_only_with_write() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("doc.json");
    let text = std::fs::read_to_string(example("evaluate_resource_condition.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["output_schema"]["resolution"]["schema"]["description"] = "edited by hand".into();
    std::fs::write(&file, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let f = file.to_str().unwrap();
    assert_eq!(code(&skillgate().run(&["interface", "check", f])), 1);
    let dry = skillgate().run(&["interface", "fix", f]);
    assert_eq!(
        code(&dry),
        1,
        "a stale file left unwritten: {}",
        stdout(&dry)
    );
    assert!(
        stdout(&dry).contains("/output_schema/digest: sha256:"),
        "{}",
        stdout(&dry)
    );
    assert_eq!(
        code(&skillgate().run(&["interface", "check", f])),
        1,
        "dry run wrote nothing"
    );
    let fixed = skillgate().run(&["interface", "fix", f, "--write"]);
    assert_eq!(code(&fixed), 0, "{}", stdout(&fixed));
    assert_eq!(code(&skillgate().run(&["interface", "check", f])), 0);
    let again = skillgate().run(&["interface", "fix", f]);
    assert_eq!(code(&again), 0);
    assert!(stdout(&again).contains("every embedded digest is current"));
}

//! The core subcommands, run as the built binary against real files.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use super::skillgate;

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/interfaces/evaluate_resource_condition.json")
}

fn run(args: &[&str]) -> Output {
    skillgate().run(args)
}

fn run_stdin(args: &[&str], stdin: &[u8]) -> Output {
    skillgate().run_stdin(args, stdin)
}

/// Writes `contents` to `name` in the scratch directory `dir`; returns the path.
fn tmp(dir: &tempfile::TempDir, name: &str, contents: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

fn example_value() -> Value {
    serde_json::from_slice(&std::fs::read(example()).unwrap()).unwrap()
}

#[test]
fn canonicalize_writes_exact_bytes_without_newline() {
    let out = run_stdin(
        &["canonicalize", "-"],
        b"{ \"b\" : 1e21, \"a\": [-0, 4.50] }\n",
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"{\"a\":[0,4.5],\"b\":1e+21}");
}

#[test]
fn digest_prints_digest_and_newline() {
    let out = run_stdin(&["digest"], b"{}");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\n"
    );
}

#[test]
fn a_large_file_digests_and_canonicalizes_like_its_parsed_value() {
    // ~3 MB under an unsorted top-level object: large enough to be streamed in chunks.
    let records: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"seq": {i}, "id": "r{i}/\u00e9th0", "v": {i}.25, "ok": true}}"#))
        .collect();
    let text = format!(
        r#"{{"source": "test", "records": [{}], "count": 20000}}"#,
        records.join(", ")
    );
    let dir = tempfile::tempdir().unwrap();
    let path = tmp(&dir, "big.json", &text);
    let path = path.to_str().unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();

    let out = run(&["digest", path]);
    assert_eq!(out.status.code(), Some(0));
    let want = skillgate_core::digest(&value).to_string();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{want}\n"));

    let out = run(&["canonicalize", path]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, skillgate_core::jcs::to_canonical_vec(&value));

    // A defect late in the file: exit 2, nothing on stdout.
    let bad = tmp(
        &dir,
        "bad.json",
        &text.replace(r#""seq": 19999"#, r#""seq": 019999"#),
    );
    for cmd in ["digest", "canonicalize"] {
        let out = run(&[cmd, bad.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(out.stdout.is_empty(), "{cmd}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("leading zero"), "{err}");
    }
}

#[test]
fn bad_json_exits_2_with_a_positioned_reason() {
    for (input, needle) in [
        (&b"{\"a\":1,\"a\":2}"[..], "duplicate member name"),
        (b"\"\\ud800\"", "surrogate"),
        (b"1e400", "number out of range"),
        (b"{} x", "trailing characters"),
    ] {
        let out = run_stdin(&["digest", "-"], input);
        assert_eq!(out.status.code(), Some(2), "{needle}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(needle) && err.contains("line 1"), "{err}");
        assert_eq!(err.lines().count(), 1, "one-line reason: {err}");
    }
    let out = run(&["digest", "/definitely/not/here.json"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_shipped_example_is_valid_and_its_digest_matches() {
    let path = example();
    let path = path.to_str().unwrap();
    let digest = String::from_utf8(run(&["digest", path]).stdout).unwrap();
    let out = run(&["interface", "check", path, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!(v["interface_digest"], digest.trim());
    assert_eq!(v["findings"], serde_json::json!([]));
    let out = run(&[
        "interface",
        "check",
        path,
        "--skill-id",
        "evaluate_resource_condition",
        "--skill-version",
        "1.0",
        "--digest",
        digest.trim(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn check_reports_findings_as_json_and_exits_1() {
    let scratch = tempfile::tempdir().unwrap();
    let mut doc = example_value();
    doc["input_schema"]["resolution"]["schema"]["properties"]["resource_id"]["maxLength"] =
        serde_json::json!(10);
    doc["interface_version"] = serde_json::json!("1.1");
    let p = tmp(&scratch, "tampered.json", &doc.to_string());
    let out = run(&[
        "interface",
        "check",
        p.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], false);
    assert_eq!(v["interface_digest"], Value::Null);
    let paths: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"/input_schema/digest"), "{paths:?}");
    assert!(paths.contains(&"/interface_version"), "{paths:?}");
    assert!(v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["code"] == "interface_invalid"));
}

#[test]
fn check_with_wrong_expectations_or_bad_digest_flag() {
    let path = example();
    let path = path.to_str().unwrap();
    let out = run(&["interface", "check", path, "--skill-version", "2.0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("/skill_version"));
    let out = run(&["interface", "check", path, "--digest", "sha256:ABC"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn compose_names_the_differing_field() {
    let scratch = tempfile::tempdir().unwrap();
    let up = example_value();
    // A downstream skill whose input reference is exactly the upstream output reference.
    let mut down = example_value();
    down["skill_id"] = serde_json::json!("archive_condition");
    down["input_schema"] = up["output_schema"].clone();
    let up_p = tmp(&scratch, "up.json", &up.to_string());
    let down_p = tmp(&scratch, "down.json", &down.to_string());
    let out = run(&[
        "interface",
        "compose",
        up_p.to_str().unwrap(),
        down_p.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["composable"], true);
    assert_eq!(v["inclusion"]["result"], "included");

    down["input_schema"]["version"] = serde_json::json!("1.1");
    let down_p = tmp(&scratch, "down2.json", &down.to_string());
    let out = run(&[
        "interface",
        "compose",
        up_p.to_str().unwrap(),
        down_p.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["composable"], false);
    assert_eq!(v["field"], "version");
    // The draft says no (the version differs); the profile extension says how far apart the
    // two schemas are: not at all.
    assert_eq!(v["inclusion"]["extension"], "skillgate-inclusion");
    assert_eq!(v["inclusion"]["result"], "included");

    // A downstream input that refuses part of the upstream output: not included, and why.
    down["input_schema"] = up["input_schema"].clone();
    let down_p = tmp(&scratch, "down3.json", &down.to_string());
    let out = run(&[
        "interface",
        "compose",
        up_p.to_str().unwrap(),
        down_p.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("profile extension, not the draft's rule"),
        "{text}"
    );
    assert!(text.contains("NOT included"), "{text}");
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    assert_eq!(run(&["interface", "check"]).status.code(), Some(2));
    assert_eq!(run(&["no-such-command"]).status.code(), Some(2));
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8(help.stdout)
        .unwrap()
        .contains("Exit codes"));
}

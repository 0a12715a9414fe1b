//! Local mistakes in plain words, run as the built binary: a misspelled skill id or enum
//! value gets "did you mean" and what exists, an unknown member names the allowed ones, and
//! an empty input gets one wording whichever command read it.

use std::process::Output;

use skillgate_testkit::cli::{code, stderr, stdout, stdout_json};
use skillgate_testkit::server::TestServer;

use super::skillgate;

fn run(args: &[&str]) -> Output {
    let cache = tempfile::tempdir().unwrap();
    skillgate()
        .env_remove("SKILLGATE_TOKEN")
        .env("XDG_CACHE_HOME", cache.path())
        .run(args)
}

fn netops() -> TestServer {
    TestServer::on_thread(
        || skillgate_netops::agent().build().unwrap(),
        skillgate_runtime::ServerConfig::default(),
    )
}

#[test]
fn misspelled_skill_enum_and_member_get_suggestions() {
    let agent = netops();
    for cmd in ["describe", "call"] {
        let mut args = vec![cmd, &agent.base, "collect_interface_counter"];
        if cmd == "call" {
            args.extend(["--args", "{}"]);
        }
        args.extend(["--format", "json"]);
        let o = run(&args);
        assert_eq!(code(&o), 1);
        let m = stdout_json(&o)["message"].as_str().unwrap().to_owned();
        assert!(
            m.contains(r#"did you mean "collect_interface_counters"?"#),
            "{m}"
        );
        assert!(
            m.contains("advertised: evaluate_resource_condition, collect_interface_counters, assess_interface_health"),
            "{m}"
        );
    }
    let o = run(&["describe", &agent.base, "reboot_router"]);
    assert_eq!(code(&o), 1);
    assert!(!stdout(&o).contains("did you mean"), "{}", stdout(&o));

    let o = run(&[
        "call",
        &agent.base,
        "collect_interface_counters",
        "--args",
        r#"{"interface":"lo","windows_ms":100}"#,
    ]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    assert!(
        out.contains(r#"unknown member `windows_ms` (allowed: interface, window_ms) did you mean "window_ms"?"#),
        "{out}"
    );

    let o = run(&[
        "call",
        &agent.base,
        "evaluate_resource_condition",
        "--args",
        r#"{"resource_id":"lo","condition":{"metric":"rx_bytes_per_secnd","operator":"gte","threshold":0,"unit":"count"}}"#,
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1);
    let v = stdout_json(&o);
    let m = v["message"].as_str().unwrap();
    assert!(
        m.contains(r#"/condition/metric: "rx_bytes_per_secnd" is not allowed"#)
            && m.contains(r#"did you mean "rx_bytes_per_second"?"#),
        "{m}"
    );
    // The draft's details keep their shape.
    assert_eq!(v["details"][0]["keyword"], "enum");
}

#[test]
fn empty_input_has_one_wording_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "  \n").unwrap();
    let e = empty.to_str().unwrap();
    let at = format!("@{e}");
    const WORDING: &str = "empty input: expected a JSON value";
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["call", "http://127.0.0.1:1", "s", "--args", ""],
            "--args".into(),
        ),
        (
            vec!["call", "http://127.0.0.1:1", "s", "--args", &at],
            format!("--args: {e}"),
        ),
        (
            vec!["send", "http://127.0.0.1:1", "--data", " "],
            "--data".into(),
        ),
        (vec!["chain", e], e.into()),
        (vec!["interface", "check", e], e.into()),
        (vec!["digest", e], e.into()),
        (vec!["canonicalize", e], e.into()),
        (vec!["card", "lint", e], e.into()),
    ];
    for (args, what) in cases {
        let o = run(&args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert_eq!(
            err.trim_end(),
            format!("skillgate: {what}: {WORDING}"),
            "{args:?}"
        );
    }
}

#[test]
fn demo_shows_the_correlation_once_in_lines_of_at_most_100_characters() {
    let o = run(&["demo"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    for line in out.lines() {
        assert!(
            line.chars().count() <= 100,
            "{} chars: {line}",
            line.chars().count()
        );
    }
    assert_eq!(out.matches("correlation").count(), 1, "{out}");
}

#[test]
fn card_lint_small_items() {
    let fixtures = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../skillgate-lint/tests/fixtures"
    );
    // SARIF points at no placeholder host.
    let o = run(&[
        "card",
        "lint",
        &format!("{fixtures}/a2a-0.3/insecure-and-old.json"),
        "--format",
        "sarif",
    ]);
    assert!(!stdout(&o).contains("example.invalid"), "{}", stdout(&o));
    // The 0.3 -> 1.0 migration hint proposes 1.0 binding names only.
    let o = run(&[
        "card",
        "lint",
        &format!("{fixtures}/a2a-0.3/insecure-and-old.json"),
        "--format",
        "json",
    ]);
    let v = stdout_json(&o);
    let hints: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["hint"].as_str())
        .filter(|h| h.contains("supportedInterfaces") || h.contains("1.0 list"))
        .collect();
    assert!(!hints.is_empty(), "{v}");
    for h in hints {
        assert!(!h.contains(r#""protocolBinding":"rest""#), "{h}");
        assert!(h.contains(r#""protocolBinding":"HTTP+JSON""#), "{h}");
    }
    // A card of no recognisable profile is linted as A2A 1.0, not "detected" as it.
    let o = run(&[
        "card",
        "lint",
        &format!("{fixtures}/mixed/undetectable.json"),
    ]);
    let text = stdout(&o);
    assert!(text.contains("CARD-006"), "{text}");
    assert!(!text.contains("(detected)"), "{text}");
}

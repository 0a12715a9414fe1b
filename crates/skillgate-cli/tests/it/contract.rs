//! Issue 14, defects 2-5: `--format json` is one contract (one failure shape on stdout and a
//! one-line reason on stderr for every exit 2; no error printed twice in text mode), the same
//! network flags on every command that talks to an agent, and messages in plain words.

use std::process::Output;

use serde_json::Value;
use skillgate_testkit::cli::{code, stderr, stdout, stdout_json};

use super::skillgate;

fn run(args: &[&str]) -> Output {
    let cache = tempfile::tempdir().unwrap();
    skillgate()
        .env_remove("SKILLGATE_TOKEN")
        .env("XDG_CACHE_HOME", cache.path())
        .run(args)
}

/// A loopback address nothing listens on.
fn closed_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    format!("http://{addr}")
}

/// Exit 2, `{"ok": false, "code", "message", ...}` on stdout, one line on stderr.
#[track_caller]
fn assert_json_failure(args: &[&str]) -> Value {
    let o = run(args);
    assert_eq!(code(&o), 2, "{args:?}: {}{}", stdout(&o), stderr(&o));
    let v = stdout_json(&o);
    assert_eq!(v["ok"], false, "{args:?}: {v}");
    assert!(
        v["code"].as_str().is_some_and(|c| !c.is_empty()),
        "{args:?}: {v}"
    );
    assert!(
        v["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{args:?}: {v}"
    );
    let err = stderr(&o);
    assert_eq!(
        err.lines().count(),
        1,
        "{args:?}: one line on stderr: {err:?}"
    );
    assert!(err.starts_with("skillgate"), "{args:?}: {err}");
    v
}

fn with<'a>(a: &[&'a str]) -> Vec<&'a str> {
    [a, &["--format", "json"][..]].concat()
}

#[test]
fn every_exit_2_has_the_same_json_failure_shape_and_one_stderr_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let missing = missing.to_str().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"name\": \"x\",\n}\n").unwrap();
    let bad = bad.to_str().unwrap();
    let nobody = closed_port();

    let v = assert_json_failure(&with(&["card", "lint", bad]));
    assert_eq!(v["code"], "not_json");
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(
        assert_json_failure(&with(&["card", "lint", missing]))["code"],
        "unreadable"
    );
    assert_json_failure(&with(&["conformance", &nobody]));
    assert_json_failure(&with(&["conformance", "not a url"]));
    assert_json_failure(&with(&["interface", "check", missing]));
    assert_json_failure(&with(&["interface", "compose", missing, missing]));
    assert_json_failure(&with(&[
        "interface",
        "validate",
        missing,
        "--input",
        missing,
    ]));
    assert_json_failure(&with(&["describe", &nobody, "skill"]));
    assert_json_failure(&with(&["call", &nobody, "skill", "--args", "{}"]));
    assert_json_failure(&with(&["chain", missing]));
    // A usage error clap reports (a missing --args) follows the contract too.
    assert_json_failure(&with(&["call", &nobody, "skill"]));
}

#[test]
fn conformance_says_why_on_stderr_when_there_is_no_agent() {
    let o = run(&["conformance", &closed_port()]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("not reachable"), "{err}");
}

#[test]
fn text_mode_never_prints_the_same_error_twice() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.json");
    std::fs::write(&plan, r#"{"steps": []}"#).unwrap();
    let nobody = closed_port();
    for args in [
        vec!["describe", nobody.as_str(), "skill"],
        vec!["call", nobody.as_str(), "skill", "--args", "{}"],
        vec!["chain", plan.to_str().unwrap()],
    ] {
        let o = run(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        let err = stderr(&o);
        let reason = err.trim().trim_start_matches("skillgate: ");
        assert!(!reason.is_empty(), "{args:?}");
        let all = format!("{}{err}", stdout(&o));
        assert_eq!(
            all.matches(reason).count(),
            1,
            "{args:?} printed twice:\n{all}"
        );
    }
}

#[test]
fn card_lint_json_findings_carry_the_text_line_and_column() {
    let card = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../skillgate-lint/tests/fixtures/a2a-1.0/wrong-types.json");
    let card = card.to_str().unwrap();
    let text = stdout(&run(&["card", "lint", card]));
    let v = stdout_json(&run(&["card", "lint", card, "--format", "json"]));
    let findings = v["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    let mut positioned = 0;
    for f in findings {
        if let (Some(l), Some(c)) = (f["line"].as_u64(), f["column"].as_u64()) {
            positioned += 1;
            let at = format!("{} (line {l}, column {c})", f["path"].as_str().unwrap());
            assert!(text.contains(&at), "{at} not in\n{text}");
        }
    }
    assert_eq!(positioned, text.matches("(line ").count(), "{v}\n{text}");
}

const TOKEN: &str = "netops-token-0123456789";

fn agent_with_token() -> skillgate_testkit::server::TestServer {
    skillgate_testkit::server::TestServer::on_thread(
        || skillgate_netops::agent().build().unwrap(),
        skillgate_runtime::ServerConfig {
            tokens: Some(skillgate_runtime::TokenTable::parse(TOKEN).unwrap()),
            ..Default::default()
        },
    )
}

#[test]
fn conformance_takes_the_token_from_the_environment_and_names_a_401() {
    let agent = agent_with_token();
    let with_env = skillgate().env("SKILLGATE_TOKEN", TOKEN).run(&[
        "conformance",
        &agent.base,
        "--format",
        "json",
    ]);
    assert_eq!(
        code(&with_env),
        0,
        "{}{}",
        stdout(&with_env),
        stderr(&with_env)
    );

    // No token: an authentication failure (exit 2), not "NOT conformant" (exit 1).
    let o = run(&["conformance", &agent.base, "--format", "json"]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    let v = stdout_json(&o);
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["code"], "unauthorized", "{v}");
    assert!(stderr(&o).contains("--token"), "{}", stderr(&o));
    assert!(!stdout(&o).contains("malformed"), "{}", stdout(&o));
}

#[test]
fn every_network_command_takes_the_same_flags() {
    let nobody = closed_port();
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.json");
    std::fs::write(&plan, r#"{"steps": []}"#).unwrap();
    let pem = dir.path().join("ca.pem");
    std::fs::write(&pem, "").unwrap();
    let common = [
        "--token",
        "t",
        "--timeout",
        "2.5",
        "--allow-http",
        "--cacert",
        pem.to_str().unwrap(),
    ];
    for cmd in [
        vec!["describe", nobody.as_str(), "skill"],
        vec!["call", nobody.as_str(), "skill", "--args", "{}"],
        vec!["chain", plan.to_str().unwrap()],
        vec!["conformance", nobody.as_str()],
        vec!["card", "lint", nobody.as_str(), "--deep"],
    ] {
        let o = run(&[&cmd[..], &common[..]].concat());
        let err = stderr(&o);
        assert!(
            !err.contains("unexpected argument") && !err.contains("invalid value"),
            "{cmd:?}: {err}"
        );
    }
    // The old spelling still works, hidden.
    let o = run(&["conformance", &nobody, "--timeout-ms", "2000"]);
    assert!(
        !stderr(&o).contains("unexpected argument"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn cache_dir_never_eats_the_url() {
    let fake = skillgate_testkit::fake::FakeAgent::start();
    let skill = skillgate_testkit::fake::SKILL;
    let cache = tempfile::tempdir().unwrap();
    // `--cache` is the user's cache directory; it takes no value.
    let o = skillgate()
        .env_remove("SKILLGATE_TOKEN")
        .env("XDG_CACHE_HOME", cache.path())
        .run(&["describe", "--cache", &fake.base, skill]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(cache.path().join("skillgate/interfaces").is_dir());
    // `--cache-dir` needs a directory; given the URL it says what to use instead.
    let o = run(&["describe", "--cache-dir", &fake.base, skill]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--cache"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("SKILL_ID"), "{}", stderr(&o));
}

/// Exit 2 and stderr containing every one of `want`.
#[track_caller]
fn says(args: &[&str], want: &[&str]) {
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(code(&o), 2, "{args:?}: {err}");
    for w in want {
        assert!(err.contains(w), "{args:?}: {w:?} not in {err}");
    }
}

#[test]
fn messages_are_in_plain_words() {
    let nobody = closed_port();
    says(
        &["describe", &nobody, "skill"],
        &[
            &format!("the agent at {nobody}"),
            "is not reachable (connection refused): is it running?",
        ],
    );
    says(
        &["describe", "127.0.0.1:7420", "skill"],
        &["http://127.0.0.1:7420"],
    );
    says(
        &["call", "localhost:7420", "s", "--args", "{}"],
        &["http://localhost:7420"],
    );
    says(
        &["conformance", "localhost:7420"],
        &["http://localhost:7420"],
    );

    let dir = tempfile::tempdir().unwrap();
    let args = dir.path().join("args.json");
    std::fs::write(&args, "{}").unwrap();
    let args = args.to_str().unwrap();
    says(
        &["call", &nobody, "s", "--args", args],
        &[&format!("@{args}")],
    );

    let plan = dir.path().join("plan.json");
    std::fs::write(&plan, r#"[{"name": "a"}]"#).unwrap();
    says(&["chain", plan.to_str().unwrap()], &["object", "\"steps\""]);
    std::fs::write(&plan, "{\n  \"steps\": [\n    {\"name\": \"a\",}\n  ]\n}\n").unwrap();
    says(&["chain", plan.to_str().unwrap()], &["line 3", "column"]);

    says(
        &["describe", &nobody, "skill", "--timeout", "0"],
        &["0.001", "3600"],
    );
}

#[test]
fn the_cli_names_its_own_flags_in_the_library_errors_it_prints() {
    // A 401 from the agent: the client library says a token is wanted; the CLI says how to
    // pass one, once.
    let agent = agent_with_token();
    let o = run(&[
        "call",
        &agent.base,
        "collect_interface_counters",
        "--args",
        r#"{"interface": "lo", "window_ms": 200}"#,
    ]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert_eq!(
        err.matches("(send a bearer token with --token or SKILLGATE_TOKEN)")
            .count(),
        1,
        "{err}"
    );
    assert!(!err.contains("(send a bearer token)"), "{err}");
    // Plain HTTP to another host: the library's words become the CLI's flag.
    let o = run(&["skills", "http://example.com/", "--format", "json"]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    for m in [
        stderr(&o),
        stdout_json(&o)["message"].as_str().unwrap().to_owned(),
    ] {
        assert!(
            m.contains("refusing plain HTTP to non-loopback host example.com (HTTPS is required; --allow-http overrides)"),
            "{m}"
        );
    }
}

//! The flags every command that talks to an agent shares (`--header`, `--binding`,
//! `--verbose`, `--quiet`), and what `describe` and `call --stream` print, run as the built
//! binary against the fake agent (which logs every request it receives) and the real netops
//! runtime.

use std::process::Output;

use serde_json::{json, Value};
use skillgate_testkit::cli::{code, stderr, stdout, stdout_json};
use skillgate_testkit::fake::{FakeAgent, SKILL};
use skillgate_testkit::server::TestServer;

use super::skillgate;

const ARGS: &str = r#"{"metric":"rx","threshold":10}"#;
const SECRET: &str = "zzHeaderSecret42";

fn run(args: &[&str]) -> Output {
    let cache = tempfile::tempdir().unwrap();
    skillgate()
        .env_remove("SKILLGATE_TOKEN")
        .env("XDG_CACHE_HOME", cache.path())
        .run(args)
}

/// A fake whose card offers JSON-RPC first, then HTTP+JSON.
fn two_binding_fake() -> FakeAgent {
    let fake = FakeAgent::start();
    {
        let mut s = fake.state.lock().unwrap();
        let base = s.base.clone();
        s.interfaces = Some(json!([
            {"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": format!("{base}/rest"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
        ]));
    }
    fake
}

fn netops() -> TestServer {
    TestServer::on_thread(
        || skillgate_netops::agent().build().unwrap(),
        skillgate_runtime::ServerConfig::default(),
    )
}

#[test]
fn header_reaches_the_agent_from_every_command_and_is_never_printed() {
    let fake = two_binding_fake();
    let base = fake.base.clone();
    let plan = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        plan.path(),
        json!({"steps": [{"name": "a", "agent": base, "skill": SKILL, "arguments": {"metric": "rx", "threshold": 1}}]})
            .to_string(),
    )
    .unwrap();
    let plan_path = plan.path().to_str().unwrap();
    let header = format!("X-Api-Key: {SECRET}");
    let commands: Vec<Vec<&str>> = vec![
        vec!["describe", &base, SKILL],
        vec!["call", &base, SKILL, "--args", ARGS],
        vec!["chain", plan_path],
        vec!["conformance", &base],
        vec!["card", "lint", &base],
        vec!["skills", &base],
        vec!["task", "get", &base, "t-1"],
        vec!["send", &base, "--text", "hi"],
    ];
    for mut args in commands {
        let name = args[0];
        let before = fake.log().len();
        args.extend(["--header", &header, "--verbose"]);
        let o = run(&args);
        assert!(
            !stdout(&o).contains(SECRET) && !stderr(&o).contains(SECRET),
            "{name} printed the header value"
        );
        let log = fake.log();
        assert!(log.len() > before, "{name}: nothing sent ({})", stderr(&o));
        for r in &log[before..] {
            assert_eq!(
                r.headers.get("x-api-key").map(|v| v.to_str().unwrap()),
                Some(SECRET),
                "{name}: {} {} without the header",
                r.method,
                r.path
            );
        }
    }
}

#[test]
fn a_malformed_header_is_refused_before_anything_is_sent() {
    let fake = two_binding_fake();
    for (spec, why) in [
        ("X-Api-Key", "NAME:VALUE"),
        ("Bad Name: zzValue", "not a valid HTTP header name"),
        ("Host: zzValue", "set by the transport"),
        ("X-A: zz\nValue", "not a valid HTTP header value"),
    ] {
        for cmd in [
            &["skills", &fake.base][..],
            &["call", &fake.base, SKILL, "--args", ARGS],
        ] {
            let mut args = cmd.to_vec();
            args.extend(["--header", spec, "--format", "json"]);
            let o = run(&args);
            assert_eq!(code(&o), 2, "{spec}");
            let v = stdout_json(&o);
            assert_eq!(v["code"], "usage_error", "{v}");
            let m = v["message"].as_str().unwrap();
            assert!(m.starts_with("--header: ") && m.contains(why), "{m}");
            assert!(!m.contains("zz") && !stderr(&o).contains("zz"), "{m}");
        }
    }
    assert!(fake.log().is_empty(), "{:?}", fake.log());
}

#[test]
fn binding_chooses_the_interface_of_describe_call_and_skills() {
    let fake = two_binding_fake();
    let o = run(&["call", &fake.base, SKILL, "--args", ARGS]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        fake.posts().iter().all(|p| p.path == "/rpc"),
        "{:?}",
        fake.posts()
    );
    let before = fake.posts().len();
    for cmd in [
        &["describe", &fake.base, SKILL][..],
        &["call", &fake.base, SKILL, "--args", ARGS],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--binding", "http-json"]);
        let o = run(&args);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let posts = fake.posts();
    assert!(posts.len() > before);
    assert!(
        posts[before..]
            .iter()
            .all(|p| p.path == "/rest/message:send"),
        "{:?}",
        posts[before..].iter().map(|p| &p.path).collect::<Vec<_>>()
    );
    // A binding the card does not offer is the card's failure, not a silent fall-back.
    fake.state.lock().unwrap().interfaces = Some(json!([
        {"url": format!("{}/rpc", fake.base), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]));
    let o = run(&["describe", &fake.base, SKILL, "--binding", "http-json"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o)
            .contains("no A2A 1.x HTTP+JSON, or A2A 0.3 HTTP+JSON interface (found: JSONRPC)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn verbose_traces_each_request_without_credentials_and_quiet_prints_the_summary() {
    let agent = netops();
    let port = agent.base.trim_start_matches("http://127.0.0.1:");
    let with_password = format!("http://user:zzPassword@127.0.0.1:{port}");
    let o = skillgate().env("SKILLGATE_TOKEN", "zzToken").run(&[
        "call",
        &with_password,
        "collect_interface_counters",
        "--args",
        r#"{"interface":"lo","window_ms":100}"#,
        "--verbose",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let err = stderr(&o);
    let trace: Vec<&str> = err.lines().collect();
    assert!(
        trace[0].starts_with(&format!(
            "skillgate: GET http://user:***@127.0.0.1:{port}/.well-known/agent-card.json -> 200 ("
        )),
        "{err}"
    );
    assert!(
        trace
            .iter()
            .any(|l| l.contains("POST http://127.0.0.1:") && l.contains("-> 200 (")),
        "{err}"
    );
    assert!(trace.iter().all(|l| l.ends_with(" ms)")), "{err}");
    assert!(
        !err.contains("zzPassword") && !err.contains("zzToken"),
        "{err}"
    );
    assert!(stdout(&o).contains("✓  8"), "steps stay on stdout");

    // --quiet: the result only, no step lines.
    let o = run(&[
        "call",
        &agent.base,
        "collect_interface_counters",
        "--args",
        r#"{"interface":"lo","window_ms":100}"#,
        "--quiet",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.contains('✓'), "{out}");
    assert!(
        out.starts_with("collect_interface_counters 1.0 completed"),
        "{out}"
    );
    assert!(stderr(&o).is_empty());

    // conformance --quiet: the counts and the result; without a terminal, no progress on
    // stderr either way.
    let o = run(&["conformance", &agent.base, "--quiet"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].starts_with("result: conformant"), "{lines:?}");
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let o = run(&["conformance", &agent.base]);
    assert_eq!(code(&o), 0);
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    assert!(run(&["skills", &agent.base, "-q", "-v"]).status.code() == Some(2));
}

#[test]
fn describe_text_is_a_field_table_and_the_document_only_on_request() {
    let agent = netops();
    let o = run(&["describe", &agent.base, "evaluate_resource_condition"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("✓  6"), "{out}");
    assert!(
        !out.contains("\"input_schema\""),
        "the document leaked into text mode: {out}"
    );
    let header = out.lines().find(|l| l.contains("NAME")).unwrap();
    for col in ["TYPE", "REQUIRED", "ENUM", "BOUNDS", "DESCRIPTION"] {
        assert!(header.contains(col), "{header}");
    }
    let row = |name: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row {name}: {out}"))
            .to_owned()
    };
    assert!(row("resource_id").contains("string") && row("resource_id").contains("yes"));
    assert!(row("resource_id").contains("length 1..256"));
    assert!(row("window_ms").contains("100..5000") && row("window_ms").contains(" no "));
    assert!(row("condition.operator").contains(r#""gte""#));
    assert!(out.contains("examples (from the card):"), "{out}");
    assert!(out.contains(r#"{"resource_id":"eth0""#), "{out}");

    let o = run(&[
        "describe",
        &agent.base,
        "evaluate_resource_condition",
        "--document",
    ]);
    assert_eq!(code(&o), 0);
    let doc: Value = serde_json::from_slice(&o.stdout).expect("--document prints JSON only");
    assert_eq!(doc["skill_id"], "evaluate_resource_condition");
    let o = run(&[
        "describe",
        &agent.base,
        "evaluate_resource_condition",
        "--format",
        "json",
    ]);
    assert_eq!(stdout_json(&o)["document"], doc);
}

#[test]
fn call_stream_prints_every_event_in_order_then_the_result() {
    let agent = netops();
    let args = [
        "call",
        &agent.base,
        "collect_interface_counters",
        "--args",
        r#"{"interface":"lo","window_ms":100}"#,
        "--stream",
    ];
    let o = run(&args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let events: Vec<&str> = out.lines().filter(|l| l.starts_with("event ")).collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"task"), "{out}");
    assert!(kinds.contains(&"artifact"), "{out}");
    assert!(
        events.last().unwrap().contains("status") && events.last().unwrap().contains("COMPLETED"),
        "{out}"
    );
    let first_event = out.find("event ").unwrap();
    let step8 = out.find("✓  8").unwrap();
    let result = out.find("completed: task").unwrap();
    assert!(first_event < step8 && step8 < result, "{out}");

    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let o = run(&json_args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() >= 4, "{lines:?}");
    assert!(lines[0].get("task").is_some(), "{:?}", lines[0]);
    assert!(lines.iter().any(|l| l.get("artifactUpdate").is_some()));
    let last = lines.last().unwrap();
    assert_eq!(last["ok"], true);
    assert_eq!(last["state"], "TASK_STATE_COMPLETED");
}

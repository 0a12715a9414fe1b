//! The client commands against an A2A 0.3 agent: `skillgate serve` itself,
//! narrowed with `--a2a-versions 0.3` (a real server on an ephemeral loopback port whose card
//! lists 0.3 interfaces only), so every exchange below goes over 0.3 JSON-RPC.

use std::process::{Child, Stdio};

use serde_json::Value;
use skillgate_testkit::cli::{code, stderr, stdout, stdout_json};

use super::skillgate;

const SKILL: &str = "evaluate_resource_condition";
const ARGS: &str = r#"{"resource_id":"lo","condition":{"metric":"rx_bytes_per_second","operator":"gte","threshold":0,"unit":"bytes_per_second"},"window_ms":200}"#;

fn serve_v03() -> (Child, String) {
    skillgate().spawn_server(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--a2a-versions",
            "0.3",
        ],
        Stdio::null(),
    )
}

fn last_json(out: &std::process::Output) -> Value {
    let text = stdout(out);
    serde_json::from_str(text.trim().lines().last().unwrap_or("null")).unwrap_or(Value::Null)
}

#[test]
fn describe_call_stream_and_skills_work_over_a2a_0_3() {
    let (child, url) = serve_v03();

    let describe = skillgate().run(&["describe", &url, SKILL, "-v"]);
    assert_eq!(
        code(&describe),
        0,
        "{}{}",
        stdout(&describe),
        stderr(&describe)
    );
    assert!(
        stdout(&describe).contains("interface JSONRPC http://127.0.0.1:")
            && stdout(&describe).contains("(A2A 0.3)"),
        "{}",
        stdout(&describe)
    );

    for stream in [false, true] {
        let mut a = vec!["call", &url, SKILL, "--args", ARGS, "--format", "json"];
        if stream {
            a.push("--stream");
        }
        let call = skillgate().run(&a);
        let v = last_json(&call);
        assert_eq!(code(&call), 0, "stream {stream}: {v} {}", stderr(&call));
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["state"], "TASK_STATE_COMPLETED", "{v}");
    }

    // Refused before anything is delegated: the client's own input check, unchanged over 0.3.
    let bad = skillgate().run(&[
        "call",
        &url,
        SKILL,
        "--args",
        r#"{"resource_id":"lo"}"#,
        "--format",
        "json",
    ]);
    let v = stdout_json(&bad);
    assert_eq!(code(&bad), 1, "{v}");
    assert_eq!(v["code"], "input_invalid", "{v}");

    let skills = skillgate().run(&["skills", &url, "--format", "json"]);
    assert_eq!(code(&skills), 0, "{}", stderr(&skills));
    assert!(stdout(&skills).contains(SKILL), "{}", stdout(&skills));

    // Only 1.0 is asked for: the card offers none, and the error names what it offers.
    let only10 = skillgate().run(&["describe", &url, SKILL, "--a2a-version", "1.0"]);
    assert_eq!(code(&only10), 2);
    assert!(
        stderr(&only10).contains("no A2A 1.x JSONRPC or HTTP+JSON interface (found: JSONRPC 0.3"),
        "{}",
        stderr(&only10)
    );
    skillgate_testkit::cli::stop(child);
}

#[test]
fn the_gate_refuses_bad_input_sent_over_a2a_0_3() {
    let (child, url) = serve_v03();
    let described = skillgate().run(&["describe", &url, SKILL, "--format", "json"]);
    let d = stdout_json(&described);
    let digest = d["interface_digest"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let version = d["skill_version"].as_str().unwrap_or_default().to_owned();
    assert!(digest.starts_with("sha256:"), "{d}");
    // A plain send carries whatever it is given: the agent's gate, not the client, refuses it.
    let request = serde_json::json!({
        "skill": SKILL, "skill_version": version, "interface_digest": digest,
        "arguments": {"resource_id": "lo"}
    });
    let sent = skillgate().run(&[
        "send",
        &url,
        "--data",
        &request.to_string(),
        "--format",
        "json",
    ]);
    let text = stdout(&sent);
    assert!(
        text.contains("input_invalid") && text.contains("TASK_STATE_REJECTED"),
        "exit {:?}: {text} {}",
        sent.status.code(),
        stderr(&sent)
    );
    skillgate_testkit::cli::stop(child);
}

/// The ids of the checks a JSON report failed.
fn failed_checks(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter(|c| c["verdict"] == "fail")
                .map(|c| c["id"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn conformance_probes_the_0_3_side_of_a_two_version_agent_when_narrowed() {
    let (child, url) = skillgate().spawn_server(
        &["serve", "--listen", "127.0.0.1:0", "--store", "memory"],
        Stdio::null(),
    );
    for (version, expected) in [(None, "1.0"), (Some("0.3"), "0.3")] {
        let mut args = vec!["conformance", url.as_str(), "--format", "json"];
        if let Some(v) = version {
            args.extend(["--a2a-version", v]);
        }
        let conf = skillgate().run(&args);
        let v = stdout_json(&conf);
        assert_eq!(
            code(&conf),
            0,
            "{expected}: failed {:?}: {v}",
            failed_checks(&v)
        );
        assert_eq!(v["a2a_version"], expected, "{v}");
        // The card fetched is the one readers of that version get.
        let fetch = &v["checks"][0]["evidence"][0];
        assert!(
            fetch
                .to_string()
                .contains(&format!("A2A-Version: {expected}")),
            "{fetch}"
        );
    }
    skillgate_testkit::cli::stop(child);
}

#[test]
fn conformance_and_card_lint_on_an_a2a_0_3_agent() {
    let (child, url) = serve_v03();
    // A 0.3-only agent is probed over 0.3, on each 0.3 binding the client speaks over HTTP.
    for (flags, binding) in [
        (&[][..], "JSONRPC"),
        (&["--binding", "http-json"][..], "HTTP+JSON"),
    ] {
        let mut args = vec!["conformance", url.as_str(), "--format", "json"];
        args.extend_from_slice(flags);
        let conf = skillgate().run(&args);
        let v = stdout_json(&conf);
        assert_eq!(
            code(&conf),
            0,
            "{binding}: failed {:?}: {v}",
            failed_checks(&v)
        );
        assert_eq!(v["a2a_version"], "0.3", "{v}");
        assert_eq!(v["binding"], binding, "{v}");
        assert!(v["summary"]["pass"].as_u64().unwrap_or(0) >= 15, "{v}");
        assert!(
            v["notes"].to_string().contains("probed over A2A 0.3"),
            "{v}"
        );
    }
    let text = skillgate().run(&["conformance", &url]);
    assert!(stdout(&text).contains("(A2A 0.3)"), "{}", stdout(&text));
    // Narrowed to 1.x, nothing can be probed: exit 2 with its own code.
    let narrowed = skillgate().run(&[
        "conformance",
        &url,
        "--a2a-version",
        "1.0",
        "--format",
        "json",
    ]);
    assert_eq!(code(&narrowed), 2, "{}", stdout(&narrowed));
    let v = stdout_json(&narrowed);
    assert_eq!(v["fatal"], "needs_a2a_1x", "{v}");

    let lint = skillgate().run(&["card", "lint", &url, "--deep"]);
    assert!(
        matches!(code(&lint), 0 | 1),
        "{}{}",
        stdout(&lint),
        stderr(&lint)
    );
    assert!(
        !stdout(&lint).contains("SI-DEEP-001"),
        "the deep lint reached describe_skill over 0.3: {}",
        stdout(&lint)
    );
    skillgate_testkit::cli::stop(child);
}

#[test]
fn a_chain_mixes_an_a2a_0_3_and_an_a2a_1_0_agent() {
    let (v03, v03_url) = serve_v03();
    let (v10, v10_url) = skillgate().spawn_server(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--a2a-versions",
            "1.0",
        ],
        Stdio::null(),
    );
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.json");
    let steps = serde_json::json!({"steps": [
        {"name": "collect", "agent": v03_url, "skill": "collect_interface_counters",
         "arguments": {"interface": "lo", "window_ms": 200}},
        {"name": "assess", "agent": v10_url, "skill": "assess_interface_health", "from": "collect"}
    ]});
    std::fs::write(&plan, steps.to_string()).unwrap();
    // Over JSON-RPC (0.3 and 1.0), then over HTTP+JSON (0.3 under /v1, and 1.0).
    for binding in [&[][..], &["--binding", "http-json"][..]] {
        let mut a = vec!["chain", plan.to_str().unwrap(), "--format", "json"];
        a.extend(binding);
        let out = skillgate().run(&a);
        let v = last_json(&out);
        assert_eq!(code(&out), 0, "{binding:?}: {v} {}", stderr(&out));
        assert_eq!(v["steps"].as_array().map(Vec::len), Some(2), "{v}");
    }
    skillgate_testkit::cli::stop(v03);
    skillgate_testkit::cli::stop(v10);
}

#[test]
fn describe_call_stream_and_the_gate_over_a2a_0_3_http_json() {
    let (child, url) = serve_v03();
    let rest = ["--binding", "http-json"];
    let describe = skillgate().run(&["describe", &url, SKILL, "-v", rest[0], rest[1]]);
    let text = stdout(&describe);
    assert_eq!(code(&describe), 0, "{text}{}", stderr(&describe));
    assert!(
        text.contains("interface HTTP+JSON http://127.0.0.1:") && text.contains("(A2A 0.3)"),
        "{text}"
    );
    for stream in [false, true] {
        let mut a = vec!["call", &url, SKILL, "--args", ARGS, "--format", "json"];
        a.extend(rest);
        if stream {
            a.push("--stream");
        }
        let call = skillgate().run(&a);
        let v = last_json(&call);
        assert_eq!(code(&call), 0, "stream {stream}: {v} {}", stderr(&call));
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["state"], "TASK_STATE_COMPLETED", "{v}");
    }
    // The agent's gate refuses what a plain send carries, and its code reaches the client.
    let d = stdout_json(&skillgate().run(&["describe", &url, SKILL, "--format", "json"]));
    let request = serde_json::json!({
        "skill": SKILL, "skill_version": d["skill_version"], "interface_digest": d["interface_digest"],
        "arguments": {"resource_id": "lo"}
    });
    let sent = skillgate().run(&[
        "send",
        &url,
        "--data",
        &request.to_string(),
        "--format",
        "json",
        rest[0],
        rest[1],
    ]);
    let text = stdout(&sent);
    assert!(
        text.contains("input_invalid") && text.contains("TASK_STATE_REJECTED"),
        "exit {:?}: {text} {}",
        sent.status.code(),
        stderr(&sent)
    );
    skillgate_testkit::cli::stop(child);
}

#[test]
fn describe_call_stream_and_the_gate_over_a2a_0_3_grpc() {
    // A 0.3-only agent with gRPC: its card lists JSON-RPC, HTTP+JSON and gRPC 0.3, and
    // `--binding grpc` takes the last, the `a2a.v1` service on the gRPC port.
    let (child, url) = skillgate().spawn_server(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--grpc-listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--a2a-versions",
            "0.3",
        ],
        Stdio::null(),
    );
    let grpc = ["--binding", "grpc"];
    let describe = skillgate().run(&["describe", &url, SKILL, "-v", grpc[0], grpc[1]]);
    let conf = skillgate().run(&["conformance", &url, "--format", "json", grpc[0], grpc[1]]);
    let v = stdout_json(&conf);
    assert_eq!(
        code(&conf),
        0,
        "gRPC 0.3: failed {:?}: {v}",
        failed_checks(&v)
    );
    assert_eq!(
        (&v["binding"], &v["a2a_version"]),
        (&"GRPC".into(), &"0.3".into()),
        "{v}"
    );
    let text = stdout(&describe);
    assert_eq!(code(&describe), 0, "{text}{}", stderr(&describe));
    assert!(
        text.contains("interface GRPC http://127.0.0.1:") && text.contains("(A2A 0.3)"),
        "{text}"
    );
    for stream in [false, true] {
        let mut a = vec!["call", &url, SKILL, "--args", ARGS, "--format", "json"];
        a.extend(grpc);
        if stream {
            a.push("--stream");
        }
        let call = skillgate().run(&a);
        let v = last_json(&call);
        assert_eq!(code(&call), 0, "stream {stream}: {v} {}", stderr(&call));
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["state"], "TASK_STATE_COMPLETED", "{v}");
    }
    // The agent's gate refuses what a plain send carries; its code reaches the client in the
    // status Data Part, translated from 0.3 protobuf.
    let d = stdout_json(&skillgate().run(&["describe", &url, SKILL, "--format", "json"]));
    let request = serde_json::json!({
        "skill": SKILL, "skill_version": d["skill_version"], "interface_digest": d["interface_digest"],
        "arguments": {"resource_id": "lo"}
    });
    let sent = skillgate().run(&[
        "send",
        &url,
        "--data",
        &request.to_string(),
        "--format",
        "json",
        grpc[0],
        grpc[1],
    ]);
    let text = stdout(&sent);
    assert!(
        text.contains("input_invalid") && text.contains("TASK_STATE_REJECTED"),
        "exit {:?}: {text} {}",
        sent.status.code(),
        stderr(&sent)
    );
    // The task is read back by resource name; a 0.3 error status ("TaskNotFoundError: ...")
    // reaches the client as the 1.0 error; ListTasks has no 0.3 RPC and is never sent.
    let sent = stdout_json(&skillgate().run(&[
        "send",
        &url,
        "--data",
        &request.to_string(),
        "--format",
        "json",
        grpc[0],
        grpc[1],
    ]));
    let id = sent["task"]["id"].as_str().unwrap_or_default().to_owned();
    let got = skillgate().run(&["task", "get", &url, &id, grpc[0], grpc[1]]);
    assert_eq!(code(&got), 0, "{sent} {}", stderr(&got));
    assert!(
        stdout(&got).starts_with(&format!("task {id} TASK_STATE_REJECTED")),
        "{}",
        stdout(&got)
    );
    let missing = skillgate().run(&["task", "get", &url, "no-such-task", grpc[0], grpc[1]]);
    assert_eq!(code(&missing), 2);
    assert!(
        stderr(&missing).contains("NOT_FOUND") && stderr(&missing).contains("no-such-task"),
        "{}",
        stderr(&missing)
    );
    let list = skillgate().run(&["task", "list", &url, grpc[0], grpc[1]]);
    assert_eq!(code(&list), 2);
    assert!(
        stderr(&list).contains("nothing was sent"),
        "{}",
        stderr(&list)
    );
    skillgate_testkit::cli::stop(child);
}

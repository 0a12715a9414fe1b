//! `skillgate describe|call|chain|demo` run as the built binary against real agents on
//! 127.0.0.1: the misbehaving fakes of the client's tests and the real netops runtime. Every
//! case checks the exit status and the JSON `code` / `where`.

use std::process::Output;
use std::time::Duration;

use serde_json::{json, Value};
use skillgate_core::digest;
use skillgate_testkit::cli::{code, stdout, stdout_json};
use skillgate_testkit::fake::{
    self, CardMode, Domain, FakeAgent, LOOKALIKE_SKILL, NEXT_SKILL, SKILL,
};

use super::skillgate;

const ARGS: &str = r#"{"metric":"rx","threshold":10}"#;

/// Runs `skillgate` with no token from the environment and a scratch user cache directory.
fn run(args: &[&str]) -> Output {
    let cache = tempfile::tempdir().unwrap();
    skillgate()
        .env_remove("SKILLGATE_TOKEN")
        .env("XDG_CACHE_HOME", cache.path())
        .run(args)
}

fn json_of(out: &Output) -> Value {
    stdout_json(out)
}

fn call_json(fake: &FakeAgent, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec![
        "call", &fake.base, SKILL, "--args", ARGS, "--format", "json",
    ];
    args.extend_from_slice(extra);
    let out = run(&args);
    (
        code(&out),
        json_of(&out),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[track_caller]
fn assert_failure(code: i32, v: &Value, exit: i32, want_code: &str, want_where: &str) {
    assert_eq!(code, exit, "{v}");
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["code"], want_code, "{v}");
    assert_eq!(v["where"], want_where, "{v}");
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    assert!(v["details"].is_array(), "{v}");
}

#[test]
fn call_success_has_the_documented_json_shape() {
    let fake = FakeAgent::start();
    let (code, v, _) = call_json(&fake, &[]);
    assert_eq!(code, 0, "{v}");
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "interface_digest",
            "ok",
            "output",
            "records",
            "state",
            "task_id"
        ]
    );
    assert_eq!(v["ok"], true);
    assert_eq!(v["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        v["interface_digest"],
        fake::document(SKILL, "1.0").interface_digest().to_string()
    );
    assert_eq!(v["output"]["verdict"], "ok");
    assert_eq!(
        v["records"],
        json!([{"artifact_id": "rec-1", "kind": "observation", "data": {"value": 1.5}}])
    );
}

#[test]
fn call_text_shows_every_step_as_it_passes() {
    let fake = FakeAgent::start();
    let out = run(&["call", &fake.base, SKILL, "--args", ARGS]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for n in 1..=11 {
        assert!(
            text.contains(&format!("✓ {n:>2} ")),
            "step {n} missing:\n{text}"
        );
    }
    assert!(text.contains("card fetched"), "{text}");
}

#[test]
fn call_stream_succeeds() {
    let fake = FakeAgent::start();
    let out = run(&[
        "call", &fake.base, SKILL, "--args", ARGS, "--format", "json", "--stream",
    ]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    // One JSON object per event as it arrived, then the result.
    let text = stdout(&out);
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["ok"], true, "{text}");
    assert!(text.lines().count() > 1, "{text}");
    assert_eq!(fake.posts().last().unwrap().method, "SendStreamingMessage");
}

#[test]
fn args_from_a_file_and_token_from_the_environment() {
    let fake = FakeAgent::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("args.json");
    std::fs::write(&file, ARGS).unwrap();
    let out = skillgate()
        .command()
        .args([
            "call",
            &fake.base,
            SKILL,
            "--args",
            &format!("@{}", file.display()),
            "--format",
            "json",
        ])
        .env("SKILLGATE_TOKEN", "tok-123")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(fake
        .posts()
        .iter()
        .all(|p| p.headers["authorization"] == "Bearer tok-123"));
}

#[test]
fn wrong_advertised_digest_exits_1_local_interface_invalid() {
    let fake = FakeAgent::start_with(|s| s.advertised[0].2 = digest(&json!("x")).to_string());
    let (code, v, _) = call_json(&fake, &[]);
    assert_failure(code, &v, 1, "interface_invalid", "local");
    assert_eq!(v["step"]["number"], 4);
    assert!(v.get("state").is_none());
    assert_eq!(fake.domain_calls(), 0);
}

#[test]
fn tampered_document_exits_1_at_step_4() {
    let fake = FakeAgent::start();
    let mut doc = fake::document(SKILL, "1.0").value().clone();
    doc["constraints"] = json!({"max_input_bytes": 1});
    fake.set_document(SKILL, doc, false);
    fake.state.lock().unwrap().returned_digest =
        Some(fake::document(SKILL, "1.0").interface_digest().to_string());
    let (code, v, _) = call_json(&fake, &[]);
    assert_failure(code, &v, 1, "interface_invalid", "local");
    assert_eq!(v["step"]["number"], 4);
}

#[test]
fn tampered_embedded_schema_exits_1_at_step_6() {
    let fake = FakeAgent::start();
    let mut doc = fake::document(SKILL, "1.0").value().clone();
    doc["output_schema"]["resolution"]["schema"]["additionalProperties"] = json!(true);
    fake.set_document(SKILL, doc, true);
    let (code, v, _) = call_json(&fake, &[]);
    assert_failure(code, &v, 1, "interface_invalid", "local");
    assert_eq!(v["step"]["number"], 6);
}

#[test]
fn document_for_another_skill_or_version_exits_1_at_step_5() {
    for (skill, version) in [("another_skill", "1.0"), (SKILL, "2.0")] {
        let fake = FakeAgent::start();
        let doc = fake::document(skill, version).value().clone();
        {
            let mut s = fake.state.lock().unwrap();
            s.documents = vec![(SKILL.into(), doc.clone())];
            s.advertised[0].2 = digest(&doc).to_string();
        }
        let (code, v, _) = call_json(&fake, &[]);
        assert_failure(code, &v, 1, "interface_invalid", "local");
        assert_eq!(v["step"]["number"], 5);
    }
}

#[test]
fn remote_ref_exits_1_interface_invalid() {
    let fake = FakeAgent::start();
    let mut doc = fake::document(SKILL, "1.0").value().clone();
    let schema = json!({"$ref": "https://schemas.example/evil.json"});
    doc["input_schema"]["resolution"]["schema"] = schema.clone();
    doc["input_schema"]["digest"] = json!(digest(&schema).to_string());
    fake.set_document(SKILL, doc, true);
    let (code, v, _) = call_json(&fake, &[]);
    assert_failure(code, &v, 1, "interface_invalid", "local");
    assert!(v["message"].as_str().unwrap().contains("evil.json"), "{v}");
}

#[test]
fn bad_output_after_completed_exits_1_local_output_invalid() {
    let fake = FakeAgent::start_with(|s| s.domain = Domain::BadOutput);
    let (code, v, _) = call_json(&fake, &[]);
    assert_failure(code, &v, 1, "output_invalid", "local");
    assert_eq!(v["task_id"], "task-2");
    assert!(v.get("state").is_none(), "{v}");
    assert_eq!(v["details"][0]["instance_path"], "/verdict");
}

#[test]
fn missing_extension_exits_1_skill_not_advertised_and_sends_nothing() {
    let fake = FakeAgent::start_with(|s| s.extension = false);
    let (code, v, _) = call_json(&fake, &[]);
    assert_failure(code, &v, 1, "skill_not_advertised", "local");
    assert!(v["message"]
        .as_str()
        .unwrap()
        .contains("does not provide schema interfaces"));
    assert!(fake.posts().is_empty());
}

#[test]
fn input_invalid_exits_1_with_details_and_delegates_nothing() {
    let fake = FakeAgent::start();
    let out = run(&[
        "call",
        &fake.base,
        SKILL,
        "--args",
        r#"{"metric":"rx","threshold":"high"}"#,
        "--format",
        "json",
    ]);
    let v = json_of(&out);
    assert_failure(out.status.code().unwrap(), &v, 1, "input_invalid", "local");
    assert_eq!(
        v["details"],
        json!([{"instance_path": "/threshold", "schema_path": "/properties/threshold/type",
                "keyword": "type", "expected": "number", "actual": "string"}])
    );
    assert_eq!(fake.domain_calls(), 0);
}

#[test]
fn remote_error_exits_1_and_keeps_task_state_and_id() {
    let fake = FakeAgent::start_with(|s| {
        s.domain = Domain::Fail(
            "TASK_STATE_FAILED",
            json!({"code": "execution_failed", "message": "device gone"}),
        )
    });
    let (code, v, _) = call_json(&fake, &[]);
    assert_failure(code, &v, 1, "execution_failed", "remote");
    assert_eq!(v["state"], "TASK_STATE_FAILED");
    assert_eq!(v["task_id"], "task-2");
    assert_eq!(v["message"], "device gone");
}

#[test]
fn oversized_card_exits_2_with_a_one_line_reason() {
    let fake = FakeAgent::start_with(|s| s.card = CardMode::OversizedChunked(2 * 1024 * 1024));
    let (code, v, stderr) = call_json(&fake, &[]);
    assert_failure(code, &v, 2, "transport_error", "local");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("limit"), "{stderr}");
}

#[test]
fn slow_server_exits_2_on_timeout() {
    let fake = FakeAgent::start_with(|s| s.rpc_delay = Duration::from_secs(10));
    let t = std::time::Instant::now();
    let (code, v, stderr) = call_json(&fake, &["--timeout", "0.5"]);
    assert!(t.elapsed() < Duration::from_secs(5));
    assert_failure(code, &v, 2, "transport_error", "local");
    assert!(stderr.contains("timed out"), "{stderr}");
}

#[test]
fn redirect_loop_exits_2() {
    let fake = FakeAgent::start_with(|s| s.card = CardMode::RedirectLoop);
    let (code, v, _) = call_json(&fake, &[]);
    assert_failure(code, &v, 2, "transport_error", "local");
}

#[test]
fn html_server_exits_2_protocol_error() {
    let fake =
        FakeAgent::start_with(|s| s.card = CardMode::Raw("text/html", b"<html>hi</html>".to_vec()));
    let out = run(&["call", &fake.base, SKILL, "--args", ARGS]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not an A2A agent"), "{stderr}");
    let (code, v, _) = call_json(&fake, &[]);
    assert_failure(code, &v, 2, "protocol_error", "local");
}

#[test]
fn usage_errors_exit_2() {
    let fake = FakeAgent::start();
    let out = run(&[
        "call", &fake.base, SKILL, "--args", "{bad", "--format", "json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json_of(&out)["code"], "usage_error");
    let out = run(&["call", "http://example.com", SKILL, "--args", ARGS]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("HTTPS"));
    let out = run(&["call", &fake.base, SKILL]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "missing --args is a usage error"
    );
}

#[test]
fn describe_prints_the_validated_document_and_digest() {
    let fake = FakeAgent::start();
    let out = run(&["describe", &fake.base, SKILL, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    let doc = fake::document(SKILL, "1.0");
    assert_eq!(v["interface_digest"], doc.interface_digest().to_string());
    assert_eq!(&v["document"], doc.value());
    assert_eq!(v["source"], "describe_skill");
    let out = run(&[
        "describe",
        &format!("{}/.well-known/agent-card.json", fake.base),
        SKILL,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "{SKILL} 1.0 (interface {})",
            doc.interface_digest()
        )),
        "{text}"
    );
    assert_eq!(fake.domain_calls(), 0);
}

#[test]
fn disk_cache_spares_describe_skill_across_processes() {
    let fake = FakeAgent::start();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for _ in 0..2 {
        let (code, v, _) = call_json(&fake, &["--cache-dir", d]);
        assert_eq!(code, 0, "{v}");
    }
    assert_eq!(fake.describe_calls(), 1);
    let out = run(&[
        "describe",
        &fake.base,
        SKILL,
        "--format",
        "json",
        "--cache-dir",
        d,
    ]);
    assert_eq!(json_of(&out)["source"], "cache");
}

/// Writes `plan` to `name` in `dir`; returns the path.
fn plan_file(dir: &tempfile::TempDir, name: &str, plan: &Value) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, serde_json::to_vec(plan).unwrap()).unwrap();
    p.to_str().unwrap().to_owned()
}

#[test]
fn chain_prints_correlation_and_every_result() {
    let plans = tempfile::tempdir().unwrap();
    let fake = FakeAgent::start();
    fake.add_skill(NEXT_SKILL);
    let plan = plan_file(
        &plans,
        "ok.json",
        &json!({"steps": [
            {"name": "check", "agent": fake.base, "skill": SKILL, "arguments": {"metric": "tx", "threshold": 1}},
            {"name": "judge", "agent": fake.base, "skill": NEXT_SKILL, "from": "check"}
        ]}),
    );
    let out = run(&["chain", &plan, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["steps"].as_array().unwrap().len(), 2);
    let c = &v["correlations"][0];
    assert_eq!(c["upstream"]["task_id"], v["steps"][0]["task_id"]);
    assert_eq!(c["downstream"]["task_id"], v["steps"][1]["task_id"]);
    assert_ne!(c["upstream"]["task_id"], c["downstream"]["task_id"]);
    let out = run(&["chain", &plan]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("composes directly"), "{text}");
    assert!(text.contains(&format!("{}/rpc) -> ", fake.base)), "{text}");
}

#[test]
fn chain_that_does_not_compose_exits_1_naming_the_field_and_delegates_nothing() {
    let plans = tempfile::tempdir().unwrap();
    let fake = FakeAgent::start();
    fake.add_skill(LOOKALIKE_SKILL);
    let plan = plan_file(
        &plans,
        "bad.json",
        &json!({"steps": [
            {"name": "check", "agent": fake.base, "skill": SKILL, "arguments": {"metric": "tx", "threshold": 1}},
            {"name": "judge", "agent": fake.base, "skill": LOOKALIKE_SKILL, "from": "check"}
        ]}),
    );
    let out = run(&["chain", &plan, "--format", "json"]);
    let v = json_of(&out);
    assert_failure(out.status.code().unwrap(), &v, 1, "not_composable", "local");
    assert_eq!(v["field"], "version");
    assert_eq!(fake.domain_calls(), 0);
    let bad_plan = plan_file(
        &plans,
        "broken.json",
        &json!({"steps": [{"name": "a", "agent": fake.base, "skill": SKILL}]}),
    );
    assert_eq!(run(&["chain", &bad_plan]).status.code(), Some(2));
}

#[test]
fn demo_runs_against_the_real_netops_runtime() {
    let out = run(&["demo"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("✓ 11 typed result ready"), "{text}");
    assert!(text.contains("input_invalid (local)"), "{text}");
    assert!(text.contains("/condition/threshold"), "{text}");
    assert!(
        text.contains("collect -> assess composes directly"),
        "{text}"
    );
    assert!(text.contains("correlation collect -> assess"), "{text}");
}

#[test]
fn cache_flag_uses_the_user_cache_directory() {
    let fake = FakeAgent::start();
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("xdg");
    let run_cached = || {
        skillgate()
            .command()
            .args([
                "call", &fake.base, SKILL, "--args", ARGS, "--format", "json", "--cache",
            ])
            .env("XDG_CACHE_HOME", &home)
            .output()
            .unwrap()
    };
    assert_eq!(run_cached().status.code(), Some(0));
    assert_eq!(run_cached().status.code(), Some(0));
    assert_eq!(fake.describe_calls(), 1);
    let dir = home.join("skillgate").join("interfaces");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

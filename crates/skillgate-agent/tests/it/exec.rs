//! Exec skills in Python and shell, as real child processes: success with records, refusal,
//! crash, garbage, oversize output, timeout and cancel (the whole process group dies),
//! concurrency limit, cleared environment, and input that never starts a process.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_testkit::poll::eventually;
use skillgate_testkit::server::TestServer;
use std::path::Path;
use std::time::{Duration, Instant};

const SKILL_PY: &str = include_str!("skill.py");
const SKILL_SH: &str = include_str!("skill.sh");

/// A scratch agent directory with the test scripts and four skills, served.
async fn agent() -> (tempfile::TempDir, TestServer) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("skills")).unwrap();
    std::fs::write(d.join("skills/skill.py"), SKILL_PY).unwrap();
    std::fs::write(d.join("skills/skill.sh"), SKILL_SH).unwrap();
    let py = write_document(d, "py", false, None);
    let py_cancel = write_document(d, "py_cancel", true, None);
    let py_one = write_document(d, "py_one", false, None);
    let sh = write_document(d, "sh", false, Some(10_000));
    let config = write_config(
        d,
        &format!(
            r#"
[[skills]]
interface = "{py}"
exec = ["python3", "skills/skill.py"]
timeout_ms = 1500

[[skills]]
interface = "{py_cancel}"
exec = ["python3", "skills/skill.py"]
timeout_ms = 20000
env = ["PATH", "CARGO_MANIFEST_DIR"]

[[skills]]
interface = "{py_one}"
exec = ["python3", "skills/skill.py"]
max_concurrency = 1

[[skills]]
interface = "{sh}"
exec = ["sh", "skills/skill.sh"]
"#
        ),
    );
    let s = serve(&config).await;
    (dir, s)
}

/// How many processes the scripts started (lines in runs.log).
fn runs(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("runs.log"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

/// The variable names the script saw.
async fn env_of(s: &TestServer, skill: &str) -> Vec<String> {
    let task = call(s, skill, json!({"mode": "env"})).await;
    let keys = artifact(&task, "note").unwrap()["text"].as_str().unwrap();
    keys.split(',').map(str::to_owned).collect()
}

fn code(task: &Value) -> &str {
    error(task)["code"].as_str().unwrap_or("?")
}

/// The pids a sleeping script wrote: itself and its grandchild `sleep`.
async fn pids(dir: &Path, n: u32) -> (u32, u32) {
    let file = dir.join(format!("pids-{n}"));
    eventually(Duration::from_secs(10), || {
        let text = std::fs::read_to_string(&file).ok();
        async move {
            let text = text?;
            let mut it = text.split_whitespace().map(|p| p.parse::<u32>().ok());
            Some((it.next()??, it.next()??))
        }
    })
    .await
}

async fn gone(pid: u32, within: Duration) {
    eventually(within, || async move { (!alive(pid)).then_some(()) }).await;
}

#[tokio::test]
async fn python_success_publishes_output_and_record_in_a_cleared_environment() {
    let (dir, s) = agent().await;
    let task = call(&s, "py", json!({"mode": "ok", "n": 5})).await;
    assert_eq!(state(&task), "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(artifact(&task, "py"), Some(&json!({"n": 5})));
    assert_eq!(artifact(&task, "note"), Some(&json!({"text": "noted"})));
    // runs.log is in the config's directory: the working directory is the config's.
    assert_eq!(runs(dir.path()), 1);
    // Launchers (a pyenv shim, the shell) add variables of their own, so the check is on
    // variables this test process has: only allow-listed ones may reach the skill.
    let keys = env_of(&s, "py").await;
    assert!(keys.iter().any(|k| k == "PATH"), "{keys:?}");
    assert!(
        !keys.iter().any(|k| k.starts_with("CARGO")),
        "leaked: {keys:?}"
    );
    let keys = env_of(&s, "py_cancel").await;
    assert!(
        keys.iter().any(|k| k == "CARGO_MANIFEST_DIR"),
        "allow-listed: {keys:?}"
    );
    assert!(
        !keys.iter().any(|k| k == "CARGO_PKG_NAME"),
        "leaked: {keys:?}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn input_that_fails_the_schema_never_starts_a_process() {
    let (dir, s) = agent().await;
    let task = call(&s, "py", json!({"mode": 3})).await;
    assert_eq!(state(&task), "TASK_STATE_REJECTED", "{task}");
    assert_eq!(code(&task), "input_invalid");
    let task = call(&s, "py", json!({"mode": "ok", "extra": true})).await;
    assert_eq!(code(&task), "input_invalid");
    assert_eq!(
        runs(dir.path()),
        0,
        "a process was started for invalid input"
    );
    let task = call(&s, "py", json!({"mode": "ok"})).await;
    assert_eq!(state(&task), "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(runs(dir.path()), 1);
    s.shutdown().await;
}

#[tokio::test]
async fn a_domain_refusal_is_constraint_rejected_with_its_message() {
    let (_dir, s) = agent().await;
    let task = call(&s, "py", json!({"mode": "refuse"})).await;
    assert_eq!(state(&task), "TASK_STATE_REJECTED", "{task}");
    assert_eq!(code(&task), "constraint_rejected");
    assert_eq!(error(&task)["message"], "n is too large for this skill");
    s.shutdown().await;
}

#[tokio::test]
async fn crash_garbage_oversize_and_forbidden_codes_are_execution_failed() {
    let (_dir, s) = agent().await;
    for mode in ["crash", "garbage", "big", "badcode"] {
        let task = call(&s, "py", json!({"mode": mode})).await;
        assert_eq!(state(&task), "TASK_STATE_FAILED", "{mode}: {task}");
        assert_eq!(code(&task), "execution_failed", "{mode}: {task}");
        let text = task.to_string();
        for leak in [
            "SECRET-STDERR-MARKER",
            "boom",
            "Traceback",
            "not json",
            "not mine",
        ] {
            assert!(
                !text.contains(leak),
                "{mode}: {leak} reached the task: {text}"
            );
        }
    }
    s.shutdown().await;
}

#[tokio::test]
async fn output_and_records_are_validated_by_the_runtime() {
    let (_dir, s) = agent().await;
    for mode in ["badoutput", "badrecord"] {
        let task = call(&s, "py", json!({"mode": mode})).await;
        assert_eq!(state(&task), "TASK_STATE_FAILED", "{mode}: {task}");
        assert_eq!(code(&task), "output_invalid", "{mode}: {task}");
        assert!(artifact(&task, "py").is_none(), "{mode}: published: {task}");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn a_chatty_stderr_neither_deadlocks_nor_fails() {
    let (_dir, s) = agent().await;
    let task = call(&s, "py", json!({"mode": "chatty", "n": 2})).await;
    assert_eq!(state(&task), "TASK_STATE_COMPLETED", "{task}");
    s.shutdown().await;
}

#[tokio::test]
async fn the_time_limit_kills_the_whole_process_group() {
    let (dir, s) = agent().await;
    let started = Instant::now();
    let task = call(&s, "py", json!({"mode": "sleep", "n": 1})).await;
    assert_eq!(state(&task), "TASK_STATE_FAILED", "{task}");
    assert_eq!(code(&task), "resource_limit_exceeded", "{task}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let (script, sleeper) = pids(dir.path(), 1).await;
    gone(sleeper, Duration::from_secs(5)).await;
    gone(script, Duration::from_secs(5)).await;
    s.shutdown().await;
}

#[tokio::test]
async fn cancel_sends_sigterm_to_the_group_then_sigkill_after_the_grace() {
    let (dir, s) = agent().await;
    let card = s.card().await;
    let req = request(&card, "py_cancel", json!({"mode": "stubborn", "n": 2}));
    let r = s.rpc("SendMessage", message(req, true)).await;
    let id = r["result"]["task"]["id"].as_str().unwrap().to_owned();
    let (script, sleeper) = pids(dir.path(), 2).await;
    let c = s.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(c["result"]["status"]["state"], "TASK_STATE_CANCELED", "{c}");
    // `sleep` dies of the SIGTERM; the script ignores it and lives until the SIGKILL.
    gone(sleeper, Duration::from_secs(2)).await;
    // Not synchronisation: a bounded wait inside the grace, proving the SIGKILL does not come
    // early (the script must still be alive after it).
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(alive(script), "the script got no grace after SIGTERM");
    gone(script, Duration::from_secs(6)).await;
    s.shutdown().await;
}

#[tokio::test]
async fn one_invocation_over_max_concurrency_is_refused_without_a_process() {
    let (dir, s) = agent().await;
    let card = s.card().await;
    let req = request(&card, "py_one", json!({"mode": "wait", "n": 3}));
    let r = s.rpc("SendMessage", message(req, true)).await;
    let id = r["result"]["task"]["id"].as_str().unwrap().to_owned();
    let started = dir.path().join("started-3");
    eventually(Duration::from_secs(10), || {
        let f = started.clone();
        async move { f.exists().then_some(()) }
    })
    .await;
    let task = call(&s, "py_one", json!({"mode": "ok"})).await;
    assert_eq!(state(&task), "TASK_STATE_FAILED", "{task}");
    assert_eq!(code(&task), "resource_limit_exceeded", "{task}");
    assert_eq!(runs(dir.path()), 1, "the refused call started a process");
    std::fs::write(dir.path().join("release-3"), "go").unwrap();
    eventually(Duration::from_secs(10), || {
        let s = &s;
        let id = id.clone();
        async move {
            let g = s.rpc("GetTask", json!({"id": id})).await;
            (g["result"]["status"]["state"] == "TASK_STATE_COMPLETED").then_some(())
        }
    })
    .await;
    let task = call(&s, "py_one", json!({"mode": "ok"})).await;
    assert_eq!(
        state(&task),
        "TASK_STATE_COMPLETED",
        "the slot came back: {task}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_shell_skill_answers_and_refuses() {
    let (dir, s) = agent().await;
    let task = call(&s, "sh", json!({"mode": "ok"})).await;
    assert_eq!(state(&task), "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(artifact(&task, "sh"), Some(&json!({"n": 7})));
    assert_eq!(artifact(&task, "note"), Some(&json!({"text": "from sh"})));
    let task = call(&s, "sh", json!({"mode": "refuse"})).await;
    assert_eq!(code(&task), "constraint_rejected", "{task}");
    assert_eq!(runs(dir.path()), 2);
    s.shutdown().await;
}

#[tokio::test]
async fn card_and_describe_skill_serve_the_document_as_written() {
    let (dir, s) = agent().await;
    let written: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("interfaces/py.json")).unwrap())
            .unwrap();
    let card = s.card().await;
    let req = request(&card, "py", json!({}));
    assert_eq!(
        req["interface_digest"],
        skillgate_core::digest(&written).to_string()
    );
    let d = s
        .rpc(
            "SendMessage",
            message(
                json!({"skill": "describe_skill", "arguments": {"skill_id": "py"}}),
                false,
            ),
        )
        .await;
    let art = &d["result"]["task"]["artifacts"][0]["parts"][0]["data"];
    assert_eq!(art["skill_interface"], written, "{d}");
    s.shutdown().await;
}

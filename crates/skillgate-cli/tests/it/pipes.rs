//! Issue 14, defect 1: a reader that goes away (`skillgate ... | head -1`) must not make the
//! binary panic (exit 101). Every command runs with its stdout piped and the read end closed
//! early; it must exit within the 0/1/2 contract, with its usual code, and print no panic.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Stdio};

use serde_json::json;
use skillgate_testkit::fake::{FakeAgent, NEXT_SKILL, SKILL};
use skillgate_testkit::server::TestServer;

use super::skillgate;

/// Spawns `skillgate args` with stdout piped, reads `lines` lines (0: none) and closes the
/// read end, then waits: (exit code, stderr).
fn closed_early(args: &[&str], lines: usize) -> (i32, String) {
    let cache = tempfile::tempdir().unwrap();
    let mut child: Child = skillgate()
        .env_remove("SKILLGATE_TOKEN")
        .env("XDG_CACHE_HOME", cache.path())
        .command()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    if lines > 0 {
        let mut r = BufReader::new(out);
        for _ in 0..lines {
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
        }
        drop(r);
    } else {
        drop(out);
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    let code = status
        .code()
        .unwrap_or_else(|| panic!("killed by a signal: {err}"));
    (code, err)
}

#[track_caller]
fn quiet(args: &[&str], lines: usize, want: i32) {
    let (code, err) = closed_early(args, lines);
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(code, want, "{args:?}: {err}");
}

#[test]
fn a_closed_stdout_never_panics_and_keeps_the_exit_code() {
    let fake = FakeAgent::start();
    fake.add_skill(NEXT_SKILL);
    let args = r#"{"metric":"rx","threshold":10}"#;
    quiet(&["call", &fake.base, SKILL, "--args", args], 0, 0);
    quiet(
        &[
            "call", &fake.base, SKILL, "--args", args, "--format", "json",
        ],
        0,
        0,
    );
    quiet(&["describe", &fake.base, SKILL], 0, 0);
    // A draft error code keeps its exit 1 when nobody reads the output.
    quiet(&["call", &fake.base, SKILL, "--args", "{}"], 0, 1);

    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.json");
    std::fs::write(
        &plan,
        serde_json::to_vec(&json!({"steps": [
            {"name": "check", "agent": fake.base, "skill": SKILL, "arguments": {"metric": "tx", "threshold": 1}},
            {"name": "judge", "agent": fake.base, "skill": NEXT_SKILL, "from": "check"}
        ]}))
        .unwrap(),
    )
    .unwrap();
    quiet(&["chain", plan.to_str().unwrap()], 0, 0);

    let card = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../skillgate-lint/tests/fixtures/a2a-1.0/bindings.json");
    quiet(&["card", "lint", card.to_str().unwrap()], 0, 0);
    quiet(&["digest", card.to_str().unwrap()], 0, 0);
}

#[test]
fn demo_and_conformance_survive_head_1() {
    quiet(&["demo"], 1, 0);
    let agent = TestServer::on_thread(
        || skillgate_netops::agent().build().unwrap(),
        Default::default(),
    );
    quiet(&["conformance", &agent.base], 0, 0);
    quiet(&["conformance", &agent.base, "--format", "json"], 0, 0);
}

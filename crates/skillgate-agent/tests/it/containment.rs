//! Containment of exec skills: nothing a program starts outlives its call, even a grandchild
//! that left the process group and session (setsid and a double fork); a daemon that keeps
//! stdout open does not hold the call; the program inherits no descriptor but its pipes.

use crate::common::*;
use serde_json::json;
use skillgate_testkit::poll::{eventually, until};
use skillgate_testkit::server::TestServer;
use std::path::Path;
use std::time::{Duration, Instant};

/// A scratch agent with one Python skill (`py`, time limit 20 s), served.
async fn agent() -> (tempfile::TempDir, TestServer) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("skills")).unwrap();
    std::fs::write(d.join("skills/skill.py"), include_str!("skill.py")).unwrap();
    let py = write_document(d, "py", false, None);
    let config = write_config(
        d,
        &format!(
            "[[skills]]\ninterface = \"{py}\"\nexec = [\"python3\", \"skills/skill.py\"]\ntimeout_ms = 20000\n"
        ),
    );
    (dir, serve(&config).await)
}

/// Kills `pid` when dropped, so a failing test leaves no 300 s sleeper behind.
struct Reaped(u32);

impl Drop for Reaped {
    fn drop(&mut self) {
        if alive(self.0) {
            let _ = std::process::Command::new("kill")
                .args(["-9", &self.0.to_string()])
                .status();
        }
    }
}

/// The pid the escaped grandchild wrote.
async fn escaped(dir: &Path, n: u32) -> Reaped {
    let file = dir.join(format!("escaped-{n}"));
    let pid = eventually(Duration::from_secs(10), || {
        let text = std::fs::read_to_string(&file).ok();
        async move { text?.trim().parse::<u32>().ok() }
    })
    .await;
    Reaped(pid)
}

#[tokio::test]
async fn a_grandchild_that_left_the_session_does_not_outlive_the_call() {
    let (dir, s) = agent().await;
    let task = call(&s, "py", json!({"mode": "escape", "n": 1})).await;
    assert_eq!(state(&task), "TASK_STATE_COMPLETED", "{task}");
    let pid = escaped(dir.path(), 1).await;
    until(
        Duration::from_secs(5),
        format!("the escaped grandchild {} exits", pid.0),
        || !alive(pid.0),
    )
    .await;
    s.shutdown().await;
}

#[tokio::test]
async fn a_daemon_holding_stdout_does_not_hold_the_call() {
    let (dir, s) = agent().await;
    let started = Instant::now();
    let task = call(&s, "py", json!({"mode": "daemon", "n": 2})).await;
    let took = started.elapsed();
    let pid = escaped(dir.path(), 2).await;
    assert_eq!(state(&task), "TASK_STATE_COMPLETED", "{task}");
    assert!(took < Duration::from_secs(5), "the call took {took:?}");
    until(
        Duration::from_secs(5),
        format!("the daemon {} exits", pid.0),
        || !alive(pid.0),
    )
    .await;
    s.shutdown().await;
}

#[tokio::test]
async fn the_program_inherits_only_its_three_pipes() {
    let (_dir, s) = agent().await;
    let task = call(&s, "py", json!({"mode": "fds"})).await;
    assert_eq!(state(&task), "TASK_STATE_COMPLETED", "{task}");
    // 0, 1 and 2, and the descriptor listdir itself opened on /proc/self/fd.
    let fds = artifact(&task, "note").unwrap()["text"].as_str().unwrap();
    assert_eq!(artifact(&task, "py"), Some(&json!({"n": 4})), "fds: {fds}");
    s.shutdown().await;
}

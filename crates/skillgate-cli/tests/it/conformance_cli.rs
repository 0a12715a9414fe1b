//! `skillgate conformance` as a process: against the netops agent on the real runtime
//! (127.0.0.1:0), against nothing, and with an unusable URL.

use std::process::Command;

use skillgate_testkit::server::TestServer;

fn skillgate() -> Command {
    super::skillgate().command()
}

#[test]
fn netops_agent_passes_with_a_json_report() {
    let agent = TestServer::on_thread(
        || skillgate_netops::agent().build().unwrap(),
        Default::default(),
    );
    let base = agent.base.clone();
    let out = skillgate()
        .args(["conformance", &base, "--format", "json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["exit_code"], 0);
    assert_eq!(report["summary"]["required_failed"], 0);
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for id in [
        "SI-EXT-001",
        "SI-DESC-002",
        "SI-MISMATCH-001",
        "SI-CALL-003",
        "SI-ECHO-001",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }

    let out = skillgate()
        .args(["conformance", &base, "--binding", "http-json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("interface: HTTP+JSON"), "{text}");
    assert!(text.contains("result: conformant (exit 0)"), "{text}");
}

#[test]
fn unreachable_agents_and_bad_urls_exit_2() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    let out = skillgate()
        .args(["conformance", &format!("http://{addr}")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAIL SI-CARD-001"));

    let out = skillgate()
        .args(["conformance", "not a url"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad target URL"));
}

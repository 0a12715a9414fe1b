//! `skillgate mcp` as a real child process, driven over stdio by the MCP SDK's own client
//! (`rmcp`), in front of a real `skillgate serve` on an ephemeral loopback port.

use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use skillgate_testkit::cli::{code, stderr, stdout, stop};

use super::skillgate;

fn arguments(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => panic!("arguments are an object"),
    }
}

async fn call(c: &RunningService<RoleClient, ()>, name: &str, a: Value) -> CallToolResult {
    c.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments(a)))
        .await
        .unwrap()
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn mcp_over_stdio_lists_calls_and_refuses_in_front_of_serve() {
    let (server, url) = skillgate().spawn_server(
        &["serve", "--listen", "127.0.0.1:0", "--store", "memory"],
        Stdio::null(),
    );
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("mcp.stderr");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut cmd = tokio::process::Command::from(skillgate().command());
        cmd.args(["mcp", &url]);
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let c = ().serve(transport).await.unwrap();
        // rmcp's own client starts with the initialize handshake: its newest revision.
        let version = c.peer_info().unwrap().protocol_version.to_string();
        assert_eq!(version, "2025-11-25");
        assert_eq!(
            c.peer_info().unwrap().server_info.as_ref().unwrap().name,
            "skillgate"
        );

        let tools = c.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert!(names.contains(&"collect_interface_counters"), "{names:?}");
        assert!(!names.contains(&"describe_skill"), "{names:?}");
        let tool = tools
            .iter()
            .find(|t| t.name == "collect_interface_counters")
            .unwrap();
        let meta = &tool.meta.as_ref().unwrap().0;
        assert!(meta["skillgate/interface_digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:"));
        assert!(tool.output_schema.is_some());

        let ok = call(&c, "collect_interface_counters", json!({"interface": "lo"})).await;
        assert_ne!(ok.is_error, Some(true), "{}", text(&ok));
        assert_eq!(ok.structured_content.as_ref().unwrap()["interface"], "lo");

        let refused = call(&c, "collect_interface_counters", json!({"interface": 7})).await;
        assert_eq!(refused.is_error, Some(true));
        let failure = &refused.meta.as_ref().unwrap().0["skillgate/failure"];
        assert_eq!(failure["code"], "input_invalid", "{failure}");
        assert_eq!(failure["where"], "local");
        assert!(text(&refused).contains("/interface"), "{}", text(&refused));
        c.cancel().await.unwrap();
    });
    stop(server);
    // Nothing but the protocol went to stdout (the client parsed every line); the logs went
    // to stderr and hold no protocol message.
    let logs = std::fs::read_to_string(&log).unwrap();
    assert!(!logs.contains("\"jsonrpc\""), "{logs}");
}

#[test]
fn mcp_listens_on_loopback_only() {
    let out = skillgate().run(&["mcp", "http://127.0.0.1:9", "--listen", "0.0.0.0:0"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a loopback address"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
}

#[test]
fn mcp_refuses_a_refresh_under_a_second() {
    let out = skillgate().run(&["mcp", "http://127.0.0.1:9", "--refresh", "10ms"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("under one second"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn mcp_help_shows_a_desktop_host_config() {
    let out = skillgate().run(&["mcp", "--help"]);
    assert_eq!(code(&out), 0);
    let help = stdout(&out);
    for flag in [
        "--listen",
        "--token",
        "--trust-jwks",
        "--binding",
        "--timeout",
        "--header",
    ] {
        assert!(help.contains(flag), "{flag}: {help}");
    }
    assert!(help.contains("mcpServers"), "{help}");
}

/// A client that is told of `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct ListChanged(std::sync::Arc<tokio::sync::Notify>);

impl rmcp::ClientHandler for ListChanged {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.0.notify_one();
    }
}

#[test]
fn mcp_tells_the_host_when_a_reloaded_agent_changes_its_tools() {
    let dir = tempfile::tempdir().unwrap();
    let agent_dir = dir.path().join("agent");
    let out = skillgate().run(&["init", agent_dir.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (agent, base) = skillgate().spawn_server(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--config",
            agent_dir.join("agent.toml").to_str().unwrap(),
        ],
        Stdio::null(),
    );
    let (mcp, url) = skillgate().spawn_server(
        &["mcp", &base, "--listen", "127.0.0.1:0", "--refresh", "1s"],
        Stdio::null(),
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let watcher = ListChanged::default();
        let c = watcher
            .clone()
            .serve(super::mcp_listen::http_transport(&url, None))
            .await
            .unwrap();
        let caps = c.peer_info().unwrap().capabilities.tools.clone();
        assert_eq!(caps.and_then(|t| t.list_changed), Some(true));
        let before = c.list_all_tools().await.unwrap();
        let meta = |t: &rmcp::model::Tool, k: &str| t.meta.as_ref().unwrap().0[k].clone();
        assert_eq!(meta(&before[0], "skillgate/skill_version"), "1.0");

        // The agent's document moves to 1.1 and the agent reloads it (SIGHUP): a new
        // version and interface digest on its card.
        let doc_path = agent_dir.join("interfaces/echo_latency.json");
        let mut doc: Value =
            serde_json::from_str(&std::fs::read_to_string(&doc_path).unwrap()).unwrap();
        doc["skill_version"] = json!("1.1");
        std::fs::write(&doc_path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
        let hup = std::process::Command::new("kill")
            .args(["-HUP", &agent.id().to_string()])
            .status()
            .unwrap();
        assert!(hup.success());

        tokio::time::timeout(std::time::Duration::from_secs(15), watcher.0.notified())
            .await
            .expect("notifications/tools/list_changed within 15 s");
        let after = c.list_all_tools().await.unwrap();
        assert_eq!(meta(&after[0], "skillgate/skill_version"), "1.1");
        assert_ne!(
            meta(&after[0], "skillgate/interface_digest"),
            meta(&before[0], "skillgate/interface_digest")
        );
        let ok = call_h(
            &c,
            "echo_latency",
            json!({"host": "localhost", "samples": 1}),
        )
        .await;
        assert_ne!(ok.is_error, Some(true), "{}", text(&ok));
        c.cancel().await.unwrap();
    });
    stop(mcp);
    stop(agent);
}

#[test]
fn mcp_refresh_zero_turns_list_changed_off() {
    let (agent, base) = skillgate().spawn_server(
        &["serve", "--listen", "127.0.0.1:0", "--store", "memory"],
        Stdio::null(),
    );
    let (mcp, url) = skillgate().spawn_server(
        &["mcp", &base, "--listen", "127.0.0.1:0", "--refresh", "0"],
        Stdio::null(),
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let c = ().serve(super::mcp_listen::http_transport(&url, None)).await.unwrap();
        let caps = c.peer_info().unwrap().capabilities.tools.clone();
        assert_ne!(caps.and_then(|t| t.list_changed), Some(true));
        c.cancel().await.unwrap();
    });
    stop(mcp);
    stop(agent);
}

async fn call_h<H: rmcp::ClientHandler>(
    c: &RunningService<RoleClient, H>,
    name: &str,
    a: Value,
) -> CallToolResult {
    c.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments(a)))
        .await
        .unwrap()
}

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

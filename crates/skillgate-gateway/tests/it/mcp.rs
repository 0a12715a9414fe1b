//! The gateway in front of a real MCP server (testkit's rmcp server over Streamable HTTP on
//! loopback), served by the real runtime and called by the real validated client; the tools
//! count their calls, so a refused call is seen not to reach them.

use serde_json::{json, Value};
use skillgate_client::{Client, ClientConfig, ClientError, Mode};
use skillgate_core::wire::AuthorityMode;
use skillgate_gateway::{build_any, config, GatewayError};
use skillgate_mcp::{document_for, Bounds, ImportOptions, McpEndpoint, McpUpstream, SkillServer};
use skillgate_runtime::ServerConfig;
use skillgate_testkit::mcp_tools::McpToolServer;
use skillgate_testkit::poll::until;
use skillgate_testkit::server::TestServer;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Writes `interfaces/<tool>.json` for each tool as `from-mcp` would (`echo`, which has no
/// read-only hint, declared `observe_only` as `--authority echo=observe_only` would, unless
/// `execute`), and a gateway.toml with an `[mcp]` url and one skill table per tool (`extra`
/// appended to each).
fn write_config(dir: &Path, server: &McpToolServer, tools: &[&str], extra: &str) -> PathBuf {
    write_config_with(dir, server, tools, extra, false)
}

/// The import options of `tool` in these tests.
fn options(tool: &str, execute: bool) -> ImportOptions {
    ImportOptions {
        authority: (tool == "echo" && !execute).then_some(AuthorityMode::ObserveOnly),
        ..ImportOptions::default()
    }
}

fn write_config_with(
    dir: &Path,
    server: &McpToolServer,
    tools: &[&str],
    extra: &str,
    execute: bool,
) -> PathBuf {
    std::fs::create_dir_all(dir.join("interfaces")).unwrap();
    let mut toml = format!(
        "[gateway]\nrefresh = \"1s\"\n\n[mcp]\nurl = \"{}\"\n",
        server.url()
    );
    for name in tools {
        let tool = server
            .tools()
            .into_iter()
            .find(|t| t.name.as_ref() == *name)
            .unwrap();
        let doc = document_for(&tool, &options(name, execute)).unwrap();
        std::fs::write(
            dir.join(format!("interfaces/{name}.json")),
            serde_json::to_vec_pretty(doc.value()).unwrap(),
        )
        .unwrap();
        toml.push_str(&format!(
            "\n[[skills]]\ninterface = \"interfaces/{name}.json\"\ntool = \"{name}\"\n{extra}\n"
        ));
    }
    let path = dir.join("gateway.toml");
    std::fs::write(&path, toml).unwrap();
    path
}

struct Setup {
    tools: McpToolServer,
    server: TestServer,
    watch: skillgate_gateway::Watch,
    _dir: tempfile::TempDir,
}

async fn setup(extra: &str) -> Setup {
    let tools = McpToolServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(
        dir.path(),
        &tools,
        &["lookup", "echo", "fails", "slow"],
        extra,
    );
    let g = build_any(config::load(&path).unwrap(), None).await.unwrap();
    let server = TestServer::start(g.agent, ServerConfig::default()).await;
    Setup {
        tools,
        server,
        watch: g.watch,
        _dir: dir,
    }
}

async fn call(
    base: &str,
    skill: &str,
    args: Value,
) -> Result<skillgate_client::SkillResult, ClientError> {
    let client = Client::new(ClientConfig::default()).unwrap();
    client
        .call(base, skill, &args, Mode::Sync, &mut |_, _| {})
        .await
}

fn remote_code(e: &ClientError) -> &'static str {
    e.code_str()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gate_stands_before_the_tool_and_after_it() {
    let s = setup("").await;
    let r = call(&s.server.base, "lookup", json!({"host": "abc"}))
        .await
        .unwrap();
    assert_eq!(r.output, json!({"rtt_ms": 4.5}));
    assert_eq!(s.tools.calls("lookup"), 1);

    // Refused by the gateway's gate, past the client's own check (a raw request).
    let card = s.server.card().await;
    let v =
        s.server
            .rpc(
                "SendMessage",
                skillgate_testkit::requests::send_params(
                    skillgate_testkit::requests::skill_request(&card, "lookup", json!({"host": 5})),
                ),
            )
            .await;
    assert!(v.to_string().contains("input_invalid"), "{v}");
    assert_eq!(s.tools.calls("lookup"), 1, "bad input reached the tool");

    // The tool's structuredContent breaks its own outputSchema: output_invalid.
    let e = call(&s.server.base, "lookup", json!({"host": "bad-output"}))
        .await
        .unwrap_err();
    assert_eq!(remote_code(&e), "output_invalid", "{e}");
    assert_eq!(s.tools.calls("lookup"), 2);

    // No outputSchema: the content blocks, as the fallback schema says.
    let r = call(&s.server.base, "echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(
        r.output,
        json!({"content": [{"type": "text", "text": "hi"}]})
    );

    // isError: a failed task with the tool's reason.
    let e = call(&s.server.base, "fails", json!({})).await.unwrap_err();
    assert_eq!(remote_code(&e), "execution_failed", "{e}");
    assert!(e.to_string().contains("the backend is down"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_without_a_read_only_hint_is_execute_and_needs_approval() {
    let tools = McpToolServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = write_config_with(dir.path(), &tools, &["echo"], "", true);
    let g = build_any(config::load(&path).unwrap(), None).await.unwrap();
    let server = TestServer::start(g.agent, ServerConfig::default()).await;
    let e = call(&server.base, "echo", json!({"text": "hi"}))
        .await
        .unwrap_err();
    assert_eq!(remote_code(&e), "authorization_failed", "{e}");
    assert_eq!(tools.calls("echo"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tools_progress_is_a_working_update_of_the_gateway_task() {
    let s = setup("").await;
    let id = s.server.start_task("slow", json!({})).await;
    let status = skillgate_testkit::poll::eventually(Duration::from_secs(10), || async {
        let v = s.server.rpc("GetTask", json!({"id": id})).await;
        let status = v["result"]["status"].clone();
        let text = status["message"]["parts"][0]["text"].as_str().unwrap_or("");
        text.contains("slow: started").then_some(status)
    })
    .await;
    assert_eq!(status["state"], "TASK_STATE_WORKING", "{status}");
    let v = s.server.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(v["result"]["status"]["state"], "TASK_STATE_CANCELED", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_reaches_the_tool_as_notifications_cancelled() {
    let s = setup("").await;
    let id = s.server.start_task("slow", json!({})).await;
    until(Duration::from_secs(5), "the slow tool runs", || {
        s.tools.calls("slow") == 1
    })
    .await;
    let v = s.server.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(v["result"]["status"]["state"], "TASK_STATE_CANCELED", "{v}");
    until(
        Duration::from_secs(5),
        "notifications/cancelled at the tool",
        || s.tools.cancel_arrived(),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drifted_tool_is_refused_until_reload_and_start_up_refuses_a_mismatch() {
    let s = setup("").await;
    assert!(s.watch.check().await.is_empty(), "nothing changed yet");
    s.tools.drift();
    let found = s.watch.check().await;
    assert_eq!(found.len(), 1, "{found:?}");
    let line = &found[0];
    assert!(
        line.contains("MCP tool `lookup` changed (its input schema has digest")
            && line.contains("interface 1.0")
            && line.contains("refused until the gateway is reloaded"),
        "{line}"
    );
    assert!(s.watch.check().await.is_empty(), "reported once");
    let e = call(&s.server.base, "lookup", json!({"host": "abc"}))
        .await
        .unwrap_err();
    assert_eq!(remote_code(&e), "execution_failed", "{e}");
    assert_eq!(s.tools.calls("lookup"), 0, "a drifted tool was called");
    // The other tools are unaffected.
    call(&s.server.base, "echo", json!({"text": "x"}))
        .await
        .unwrap();

    // Built again (a reload) against the drifted server with the old documents: refused.
    let dir = tempfile::tempdir().unwrap();
    let fresh = McpToolServer::start().await;
    let path = write_config(dir.path(), &fresh, &["lookup"], "");
    fresh.drift();
    let e = build_any(config::load(&path).unwrap(), None)
        .await
        .err()
        .unwrap();
    assert!(
        matches!(&e, GatewayError::ToolMismatch { tool, drift, .. } if tool == "lookup" && drift.role == "input"),
        "{e}"
    );
    assert!(
        e.to_string().contains("skillgate interface from-mcp"),
        "{e}"
    );
    // A table naming a tool the server does not list: the line and what it lists.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("tool = \"lookup\"", "tool = \"nope\"");
    std::fs::write(&path, text).unwrap();
    let e = build_any(config::load(&path).unwrap(), None)
        .await
        .err()
        .unwrap();
    assert!(
        matches!(&e, GatewayError::MissingTool { tool, line: 7, .. } if tool == "nope"),
        "{e}"
    );
    assert!(e.to_string().contains("lookup, echo, fails, slow"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_no_longer_listed_is_refused_until_reload() {
    let s = setup("").await;
    s.tools.hide_lookup();
    let found = s.watch.check().await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("MCP tool `lookup` is no longer listed by the MCP server"),
        "{found:?}"
    );
    let e = call(&s.server.base, "lookup", json!({"host": "abc"}))
        .await
        .unwrap_err();
    assert_eq!(remote_code(&e), "execution_failed", "{e}");
    assert_eq!(s.tools.calls("lookup"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_goes_round_trip_through_the_gateway_and_skillgate_mcp() {
    let s = setup("").await;
    let client = Client::new(ClientConfig::default()).unwrap();
    let mcp = skillgate_mcp::serve_http(
        SkillServer::new(client, s.server.base.clone()),
        "127.0.0.1:0".parse().unwrap(),
    )
    .await
    .unwrap();
    let back = McpUpstream::connect(&McpEndpoint::Url(mcp.url()), Bounds::default())
        .await
        .unwrap();
    let listed = back.tools().await.unwrap();
    for original in s.tools.tools() {
        let again = listed
            .iter()
            .find(|t| t.name == original.name)
            .unwrap_or_else(|| panic!("{} not served back", original.name));
        assert_eq!(
            again.input_schema, original.input_schema,
            "{}",
            original.name
        );
        let opts = options(&original.name, false);
        let doc = document_for(&original, &opts).unwrap();
        assert_eq!(
            again
                .output_schema
                .as_deref()
                .map(|o| Value::Object(o.clone())),
            Some(doc.document().output_schema.resolution.schema.clone()),
            "{}",
            original.name
        );
        if original.output_schema.is_some() {
            assert_eq!(again.output_schema, original.output_schema);
        }
        let meta = &again.meta.as_ref().unwrap().0;
        assert_eq!(
            meta["skillgate/interface_digest"],
            doc.interface_digest().to_string()
        );
        assert_eq!(
            meta["skillgate/input_schema"]["digest"],
            doc.document().input_schema.digest.to_string()
        );
        // Imported again from the tool served back, it is the same document, digest for
        // digest (the fallback output schema included).
        assert_eq!(
            document_for(again, &opts).unwrap().interface_digest(),
            doc.interface_digest(),
            "{}",
            original.name
        );
    }
    let r = back
        .call(
            "lookup",
            json!({"host": "abcd"}).as_object().unwrap().clone(),
        )
        .await
        .unwrap();
    assert_eq!(r.structured_content, Some(json!({"rtt_ms": 6.0})));
    assert_eq!(s.tools.calls("lookup"), 1);
    drop(back);
    mcp.shutdown().await.unwrap();
}

#[test]
fn the_config_keeps_mcp_and_a2a_keys_apart() {
    let dir = tempfile::tempdir().unwrap();
    let write = |text: &str| {
        let p = dir.path().join("gateway.toml");
        std::fs::write(&p, text).unwrap();
        p
    };
    std::fs::write(
        dir.path().join("sum.json"),
        serde_json::to_vec(skillgate_testkit::plain::sum_document().value()).unwrap(),
    )
    .unwrap();
    let e = config::load(&write(
        "[[skills]]\ninterface = \"sum.json\"\ntool = \"sum\"\n",
    ))
    .unwrap_err();
    assert!(e.to_string().contains("needs an [mcp] table"), "{e}");
    let e = config::load(&write(
        "[mcp]\nurl = \"http://127.0.0.1:1/mcp\"\n[[skills]]\ninterface = \"sum.json\"\narguments = \"text\"\n",
    ))
    .unwrap_err();
    assert!(
        e.to_string().contains("`arguments` is for an A2A upstream"),
        "{e}"
    );
    let e = config::load(&write(
        "[mcp]\nurl = \"http://x/mcp\"\ncommand = [\"x\"]\n[[skills]]\ninterface = \"sum.json\"\n",
    ))
    .unwrap_err();
    assert!(e.to_string().contains("exactly one of command"), "{e}");
    let c = config::load(&write(
        "[mcp]\ncommand = [\"python3\", \"tools.py\"]\nstart_timeout_ms = 500\n[[skills]]\ninterface = \"sum.json\"\n",
    ))
    .unwrap();
    let m = c.mcp.unwrap();
    assert_eq!(m.start_timeout, Duration::from_millis(500));
    assert_eq!(
        m.endpoint,
        McpEndpoint::Command {
            program: "python3".into(),
            args: vec!["tools.py".into()],
            dir: Some(dir.path().to_owned()),
        }
    );
}

//! `skillgate serve --mcp-listen`: the agent's own skills as MCP tools, with no A2A hop,
//! driven by the MCP SDK's own client (`rmcp`) over Streamable HTTP against the real binary:
//! list, a call, a refused call, a cancelled call, and the bearer check with `--token-file`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, JsonObject,
    ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};
use skillgate_testkit::cli::{code, stderr, stdout, stop};

use super::skillgate;

/// Starts `skillgate ARGS` and reads its two address lines: the A2A base URL and the MCP URL.
fn spawn_with_mcp(args: &[&str]) -> (Child, String, String) {
    let mut child = skillgate()
        .command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = |prefix: &str| {
        let line = lines.next().unwrap().unwrap();
        line.strip_prefix(prefix)
            .unwrap_or_else(|| panic!("expected {prefix:?}: {line:?}"))
            .to_owned()
    };
    let base = next("listening on ");
    let mcp = next("mcp listening on ");
    (child, base, mcp)
}

/// rmcp's HTTP client transport over `url` (the rustls provider installed first: the
/// workspace builds reqwest without one), with `token` as its bearer token.
pub(crate) fn http_transport(
    url: &str,
    token: Option<&str>,
) -> StreamableHttpClientTransport<reqwest::Client> {
    skillgate_platform::http::install_crypto_provider();
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(t) = token {
        config = config.auth_header(t);
    }
    StreamableHttpClientTransport::from_config(config)
}

fn arguments(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => panic!("arguments are an object"),
    }
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn call<H: ClientHandler>(
    c: &RunningService<RoleClient, H>,
    name: &str,
    a: Value,
) -> Result<CallToolResult, rmcp::ServiceError> {
    c.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments(a)))
        .await
}

/// The card's advertised digest of `skill`, read over plain HTTP from the A2A side.
fn advertised_digest(base: &str, skill: &str) -> String {
    let host = base.trim_start_matches("http://");
    let mut conn = std::net::TcpStream::connect(host).unwrap();
    let (_, body) =
        skillgate_testkit::rawhttp::get(&mut conn, host, "/.well-known/agent-card.json");
    let card: Value = serde_json::from_str(&body).unwrap();
    let skills = card["capabilities"]["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|e| e["params"]["skills"].as_array())
        .unwrap();
    skills
        .iter()
        .find(|s| s["skill_id"] == skill)
        .map(|s| s["interface_digest"].as_str().unwrap().to_owned())
        .unwrap()
}

#[test]
fn serve_mcp_listen_lists_calls_and_refuses_with_no_a2a_hop() {
    let (server, base, mcp) = spawn_with_mcp(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--store",
        "memory",
        "--mcp-listen",
        "127.0.0.1:0",
    ]);
    assert!(mcp.ends_with("/mcp"), "{mcp}");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let c = ().serve(http_transport(&mcp, None)).await.unwrap();
        let tools = c.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert!(names.contains(&"collect_interface_counters"), "{names:?}");
        assert!(!names.contains(&"describe_skill"), "{names:?}");
        let tool = tools
            .iter()
            .find(|t| t.name == "collect_interface_counters")
            .unwrap();
        // The tool is pinned to the digest the agent's card advertises on its A2A side.
        let meta = &tool.meta.as_ref().unwrap().0;
        assert_eq!(
            meta["skillgate/interface_digest"],
            advertised_digest(&base, "collect_interface_counters")
        );
        assert_eq!(
            meta["skillgate/card_url"],
            format!("{base}/.well-known/agent-card.json")
        );
        assert!(tool.output_schema.is_some());

        let ok = call(&c, "collect_interface_counters", json!({"interface": "lo"}))
            .await
            .unwrap();
        assert_ne!(ok.is_error, Some(true), "{}", text(&ok));
        assert_eq!(ok.structured_content.as_ref().unwrap()["interface"], "lo");
        let m = &ok.meta.as_ref().unwrap().0;
        assert_eq!(m["skillgate/state"], "TASK_STATE_COMPLETED");
        assert!(m["skillgate/task_id"]
            .as_str()
            .is_some_and(|t| !t.is_empty()));

        // Refused by the agent's gate before the skill runs: the draft code and every detail.
        let refused = call(&c, "collect_interface_counters", json!({"interface": 7}))
            .await
            .unwrap();
        assert_eq!(refused.is_error, Some(true));
        let failure = &refused.meta.as_ref().unwrap().0["skillgate/failure"];
        assert_eq!(failure["code"], "input_invalid", "{failure}");
        assert_eq!(
            failure["details"][0]["instance_path"], "/interface",
            "{failure}"
        );
        assert!(text(&refused).contains("/interface"), "{}", text(&refused));

        let unknown = call(&c, "describe_skill", json!({"skill_id": "x"})).await;
        assert!(unknown.is_err(), "{unknown:?}");
        c.cancel().await.unwrap();
    });
    stop(server);
}

/// An MCP client that keeps every progress message.
#[derive(Clone, Default)]
struct Progress(Arc<Mutex<Vec<String>>>);

impl ClientHandler for Progress {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0
            .lock()
            .unwrap()
            .push(params.message.unwrap_or_default());
    }
}

/// `skillgate init`'s agent whose echo_latency (cancelable) waits 30 s for host "slow".
fn slow_agent(dir: &std::path::Path) -> std::path::PathBuf {
    let agent = dir.join("agent");
    let out = skillgate().run(&["init", agent.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    std::fs::write(
        agent.join("skills/echo_latency.py"),
        "import json, sys, time\nargs = json.load(sys.stdin)\nif args['host'] == 'slow':\n    \
         time.sleep(30)\nprint(json.dumps({'output': {'host': args['host'], 'samples': \
         args['samples'], 'latency_ms': 0.5}, 'records': [{'kind': 'latency-samples', 'data': \
         {'samples_ms': [0.5]}}]}))\n",
    )
    .unwrap();
    agent.join("agent.toml")
}

fn task_state(base: &str, id: &str) -> String {
    let out = skillgate().run(&["task", "get", base, id, "--format", "json"]);
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap_or(Value::Null);
    v["task"]["status"]["state"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

#[test]
fn serve_mcp_listen_cancels_the_task_of_a_cancelled_call() {
    let dir = tempfile::tempdir().unwrap();
    let config = slow_agent(dir.path());
    let (server, base, mcp) = spawn_with_mcp(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--store",
        "memory",
        "--config",
        config.to_str().unwrap(),
        "--mcp-listen",
        "127.0.0.1:0",
    ]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let progress = Progress::default();
        let c = progress
            .clone()
            .serve(http_transport(&mcp, None))
            .await
            .unwrap();
        assert_eq!(c.list_all_tools().await.unwrap().len(), 1);
        let args = arguments(json!({"host": "slow", "samples": 1}));
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new("echo_latency").with_arguments(args),
        ));
        let handle = c
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .unwrap();
        let task_id = skillgate_testkit::poll::eventually(Duration::from_secs(10), || async {
            progress.0.lock().unwrap().iter().find_map(|m| {
                m.strip_prefix("task ")
                    .map(|r| r.split(' ').next().unwrap_or_default().to_owned())
            })
        })
        .await;
        handle.cancel(Some("test".into())).await.unwrap();
        let state = skillgate_testkit::poll::eventually(Duration::from_secs(10), || {
            let s = task_state(&base, &task_id);
            async move { (s == "TASK_STATE_CANCELED").then_some(s) }
        })
        .await;
        assert_eq!(state, "TASK_STATE_CANCELED");
        // A short call on the same session still completes with its validated output.
        let ok = call(
            &c,
            "echo_latency",
            json!({"host": "localhost", "samples": 1}),
        )
        .await
        .unwrap();
        assert_ne!(ok.is_error, Some(true), "{}", text(&ok));
        assert_eq!(ok.structured_content.unwrap()["host"], "localhost");
        c.cancel().await.unwrap();
    });
    stop(server);
}

#[test]
fn serve_mcp_listen_takes_the_agents_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    std::fs::write(
        &tokens,
        "all-skills-token-0123456789\ncounters-only-0123456789 collect_interface_counters\n",
    )
    .unwrap();
    let (server, _base, mcp) = spawn_with_mcp(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--store",
        "memory",
        "--token-file",
        tokens.to_str().unwrap(),
        "--mcp-listen",
        "127.0.0.1:0",
    ]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        // No token: refused at the HTTP layer, nothing listed.
        let anonymous = ().serve(http_transport(&mcp, None)).await;
        assert!(anonymous.is_err(), "no token must not start a session");
        let wrong = http_transport(&mcp, Some("not-a-token-0123456789"));
        assert!(().serve(wrong).await.is_err());
        // A token limited to one skill sees and calls that one only.
        let limited = http_transport(&mcp, Some("counters-only-0123456789"));
        let c = ().serve(limited).await.unwrap();
        let names: Vec<String> = c
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(names, ["collect_interface_counters"]);
        let ok = call(&c, "collect_interface_counters", json!({"interface": "lo"}))
            .await
            .unwrap();
        assert_ne!(ok.is_error, Some(true), "{}", text(&ok));
        let other = call(&c, "assess_interface_health", json!({})).await;
        assert!(other.is_err(), "{other:?}");
        c.cancel().await.unwrap();
        // The unlimited token sees more.
        let all = http_transport(&mcp, Some("all-skills-token-0123456789"));
        let c = ().serve(all).await.unwrap();
        assert!(c.list_all_tools().await.unwrap().len() > 1);
        c.cancel().await.unwrap();
    });
    stop(server);
}

#[test]
fn serve_mcp_listen_is_loopback_only() {
    let out = skillgate().run(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--store",
        "memory",
        "--mcp-listen",
        "0.0.0.0:0",
    ]);
    assert_ne!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a loopback address"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn gateway_mcp_listen_serves_an_mcp_servers_tools_back_governed() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let tools = rt.block_on(skillgate_testkit::mcp_tools::McpToolServer::start());
    let dir = tempfile::tempdir().unwrap();
    let o = skillgate().run(&[
        "interface",
        "from-mcp",
        &tools.url(),
        "--out",
        dir.path().to_str().unwrap(),
        "--tool",
        "lookup",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let config = dir.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[mcp]\nurl = \"{}\"\n\n[[skills]]\ninterface = \"lookup.json\"\ntool = \"lookup\"\n",
            tools.url()
        ),
    )
    .unwrap();
    let (gw, _base, mcp) = spawn_with_mcp(&[
        "gateway",
        "--config",
        config.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
        "--store",
        "memory",
        "--mcp-listen",
        "127.0.0.1:0",
    ]);
    rt.block_on(async {
        let c = ().serve(http_transport(&mcp, None)).await.unwrap();
        let listed = c.list_all_tools().await.unwrap();
        let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["lookup"]);
        let ok = call(&c, "lookup", json!({"host": "ab"})).await.unwrap();
        assert_ne!(ok.is_error, Some(true), "{}", text(&ok));
        assert_eq!(ok.structured_content.unwrap()["rtt_ms"], 3.0);
        // The gateway's gate refuses bad input: it never reaches the tool.
        let refused = call(&c, "lookup", json!({"host": 5})).await.unwrap();
        assert_eq!(refused.is_error, Some(true));
        let failure = &refused.meta.as_ref().unwrap().0["skillgate/failure"];
        assert_eq!(failure["code"], "input_invalid", "{failure}");
        c.cancel().await.unwrap();
    });
    assert_eq!(tools.calls("lookup"), 1);
    stop(gw);
}

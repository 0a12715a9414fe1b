//! The MCP server against real agents on 127.0.0.1 (the misbehaving fake; the netops agent),
//! driven by the SDK's own client (`rmcp`, client side) over an in-memory stdio-like pipe and
//! over Streamable HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use skillgate_client::{Client, ClientConfig};
use skillgate_mcp::SkillServer;
use skillgate_testkit::fake::{self, FakeAgent};

/// A connected rmcp client talking to a [`SkillServer`] for `url` over a duplex pipe.
async fn connect(url: &str) -> RunningService<RoleClient, ()> {
    let client = Client::new(ClientConfig::default()).unwrap();
    let server = SkillServer::new(client, url);
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.unwrap()
}

fn args(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => panic!("arguments are an object"),
    }
}

async fn call(c: &rmcp::Peer<RoleClient>, name: &str, a: Value) -> CallToolResult {
    c.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args(a)))
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

/// A second skill whose describe_skill answer no longer matches the card's digest.
fn with_broken_skill(agent: &FakeAgent) {
    agent.add_skill("broken_skill");
    let mut doc = fake::document("broken_skill", "1.0").value().clone();
    doc["authority"]["approval_may_be_required"] = json!(true);
    // Served, not advertised: the card keeps the old digest, describe_skill returns another.
    agent.set_document("broken_skill", doc, false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn governed_skills_are_tools_and_a_broken_one_is_not() {
    let agent = FakeAgent::start();
    with_broken_skill(&agent);
    let c = connect(&agent.base).await;
    let tools = c.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, [fake::SKILL], "broken_skill must not be listed");
    let tool = &tools[0];
    let doc = fake::document(fake::SKILL, "1.0");
    assert_eq!(
        Value::Object((*tool.input_schema).clone()),
        doc.document().input_schema.resolution.schema
    );
    assert_eq!(
        tool.output_schema
            .as_ref()
            .map(|s| Value::Object((**s).clone())),
        Some(doc.document().output_schema.resolution.schema.clone())
    );
    let meta = &tool.meta.as_ref().unwrap().0;
    assert_eq!(meta["skillgate/skill_version"], "1.0");
    assert_eq!(
        meta["skillgate/interface_digest"],
        doc.interface_digest().to_string()
    );
    // The fake's document says observe_only: a read-only hint.
    assert_eq!(
        tool.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );
    c.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_returns_the_validated_output_and_a_bad_one_sends_nothing() {
    let agent = FakeAgent::start();
    let c = connect(&agent.base).await;
    c.list_all_tools().await.unwrap();

    let ok = call(&c, fake::SKILL, json!({"metric": "rx", "threshold": 1.0})).await;
    assert_ne!(ok.is_error, Some(true), "{}", text(&ok));
    let out = ok.structured_content.clone().unwrap();
    assert!(out["verdict"].is_string(), "{out}");
    assert_eq!(serde_json::from_str::<Value>(&text(&ok)).unwrap(), out);
    let meta = &ok.meta.as_ref().unwrap().0;
    assert_eq!(meta["skillgate/state"], "TASK_STATE_COMPLETED");
    assert_eq!(meta["skillgate/records"][0]["kind"], "observation");
    assert_eq!(agent.domain_calls(), 1);

    let bad = call(
        &c,
        fake::SKILL,
        json!({"metric": "rx", "threshold": "high"}),
    )
    .await;
    assert_eq!(bad.is_error, Some(true));
    let failure = &bad.meta.as_ref().unwrap().0["skillgate/failure"];
    assert_eq!(failure["code"], "input_invalid", "{failure}");
    assert_eq!(failure["where"], "local");
    assert_eq!(failure["step"]["number"], 7);
    assert_eq!(failure["details"][0]["instance_path"], "/threshold");
    assert!(text(&bad).contains("input_invalid"), "{}", text(&bad));
    assert_eq!(
        agent.domain_calls(),
        1,
        "refused input never reaches the agent"
    );

    // An unknown tool (or one left out of the list) is a protocol error, as MCP says.
    let unknown = c
        .call_tool(CallToolRequestParams::new("no_such_skill"))
        .await;
    assert!(unknown.is_err(), "{unknown:?}");
    c.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_after_the_interface_changed_is_refused_until_listed_again() {
    let agent = FakeAgent::start();
    let c = connect(&agent.base).await;
    c.list_all_tools().await.unwrap();
    // The agent now advertises (and serves) another valid interface for the same skill.
    let newer = fake::document(fake::SKILL, "1.1").value().clone();
    agent.set_document(fake::SKILL, newer, true);
    let r = call(&c, fake::SKILL, json!({"metric": "rx", "threshold": 1.0})).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        r.meta.as_ref().unwrap().0["skillgate/failure"]["code"],
        "interface_mismatch"
    );
    assert_eq!(
        agent.domain_calls(),
        0,
        "nothing sent against an unlisted interface"
    );
    c.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_netops_agent_over_streamable_http() {
    let agent = skillgate_netops::agent().build().unwrap();
    let agent = skillgate_testkit::server::TestServer::start(agent, Default::default()).await;
    let client = Client::new(ClientConfig::default()).unwrap();
    let server = SkillServer::new(client, agent.base.as_str());
    let http = skillgate_mcp::serve_http(server, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(http.url());
    let c = ().serve(transport).await.unwrap();
    let tools = c.list_all_tools().await.unwrap();
    assert!(
        tools.iter().any(|t| t.name == "collect_interface_counters"),
        "{tools:?}"
    );
    let r = call(&c, "collect_interface_counters", json!({"interface": "lo"})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    assert_eq!(r.structured_content.unwrap()["interface"], "lo");
    c.cancel().await.unwrap();
    http.shutdown().await.unwrap();
}

#[test]
fn a_listener_off_loopback_is_refused() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let client = Client::new(ClientConfig::default()).unwrap();
    let server = SkillServer::new(client, "http://127.0.0.1:9");
    let e = rt
        .block_on(skillgate_mcp::serve_http(
            server,
            "0.0.0.0:0".parse().unwrap(),
        ))
        .unwrap_err();
    assert!(e.to_string().contains("not a loopback"), "{e}");
}

/// A client that counts `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct Watcher(std::sync::Arc<tokio::sync::Notify>);

impl rmcp::ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.0.notify_one();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_card_sends_tools_list_changed() {
    let agent = FakeAgent::start();
    let client = Client::new(ClientConfig::default()).unwrap();
    let server = SkillServer::new(client, agent.base.as_str())
        .with_refresh(std::time::Duration::from_millis(100));
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let watcher = Watcher::default();
    let c = watcher.clone().serve(client_io).await.unwrap();
    assert!(c
        .peer_info()
        .unwrap()
        .capabilities
        .tools
        .as_ref()
        .and_then(|t| t.list_changed)
        .unwrap_or(false));
    c.list_all_tools().await.unwrap();
    let newer = fake::document(fake::SKILL, "1.1").value().clone();
    agent.set_document(fake::SKILL, newer, true);
    tokio::time::timeout(std::time::Duration::from_secs(10), watcher.0.notified())
        .await
        .expect("tools/list_changed within 10 s");
    // Listed again, the new interface is callable.
    let tools = c.list_all_tools().await.unwrap();
    assert_eq!(
        tools[0].meta.as_ref().unwrap().0["skillgate/skill_version"],
        "1.1"
    );
    let r = call(&c, fake::SKILL, json!({"metric": "rx", "threshold": 1.0})).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    c.cancel().await.unwrap();
}

//! The gateway in front of a real plain A2A agent (testkit's `PlainAgent`, on loopback),
//! served by the real runtime and called by the real validated client.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod hostile;
mod mcp;

use serde_json::{json, Value};
use skillgate_client::{Client, ClientConfig, ClientError, Mode};
use skillgate_gateway::{build, config, GatewayError, Upstream};
use skillgate_runtime::ServerConfig;
use skillgate_testkit::plain::{sum_document, Behaviour, PlainAgent, SUM_SKILL};
use skillgate_testkit::requests::message_id as uuid;
use skillgate_testkit::server::TestServer;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A directory with `interfaces/sum.json` and a gateway.toml whose skill table has `extra`.
fn write_config(dir: &Path, extra: &str) -> PathBuf {
    std::fs::create_dir_all(dir.join("interfaces")).unwrap();
    std::fs::write(
        dir.join("interfaces/sum.json"),
        serde_json::to_vec_pretty(sum_document().value()).unwrap(),
    )
    .unwrap();
    let path = dir.join("gateway.toml");
    std::fs::write(
        &path,
        format!("[gateway]\nrefresh = \"1s\"\n\n[[skills]]\ninterface = \"interfaces/sum.json\"\n{extra}\n"),
    )
    .unwrap();
    path
}

fn upstream(agent: &PlainAgent) -> Upstream {
    upstream_at(&agent.base)
}

fn upstream_at(base: &str) -> Upstream {
    Upstream {
        url: base.to_owned(),
        client: ClientConfig::default(),
    }
}

struct Setup {
    upstream: PlainAgent,
    server: TestServer,
    watch: skillgate_gateway::Watch,
    _dir: tempfile::TempDir,
}

async fn setup(extra: &str) -> Setup {
    let up = PlainAgent::start();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config::load(&write_config(dir.path(), extra)).unwrap();
    let g = build(cfg, upstream(&up)).await.unwrap();
    let server = TestServer::start(g.agent, ServerConfig::default()).await;
    Setup {
        upstream: up,
        server,
        watch: g.watch,
        _dir: dir,
    }
}

async fn call(base: &str, args: Value) -> Result<skillgate_client::SkillResult, ClientError> {
    let client = Client::new(ClientConfig::default()).unwrap();
    client
        .call(base, SUM_SKILL, &args, Mode::Sync, &mut |_, _| {})
        .await
}

#[tokio::test]
async fn the_card_has_the_upstream_identity_and_only_the_governed_skills() {
    let s = setup("").await;
    let card = s.server.card().await;
    assert_eq!(card["name"], "plain upstream");
    assert_eq!(card["version"], "2.1.0");
    assert_eq!(card["provider"]["organization"], "Upstream Inc");
    let ids: Vec<&str> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&SUM_SKILL) && ids.contains(&"describe_skill"),
        "{ids:?}"
    );
    assert!(
        !ids.contains(&"hidden"),
        "an upstream skill not in the config is exposed"
    );
    let sum = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == SUM_SKILL)
        .unwrap();
    assert_eq!(sum["description"], "Adds two numbers");
    assert!(card.to_string().contains("schema-interface"));
}

#[tokio::test]
async fn a_valid_call_reaches_upstream_once_and_its_output_and_records_are_validated() {
    let s = setup("").await;
    let r = call(&s.server.base, json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(r.output, json!({"sum": 5.0}));
    assert_eq!(r.records.len(), 1);
    assert_eq!(r.records[0].kind, "trace");
    let seen = s.upstream.state.lock().unwrap().messages.clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["parts"][0]["data"], json!({"a": 2, "b": 3}));
    assert_eq!(seen[0]["metadata"]["skillId"], SUM_SKILL);
}

#[tokio::test]
async fn invalid_input_and_a_mismatch_never_reach_upstream() {
    let s = setup("").await;
    // Past the client's own check: the raw request, as any client could send it.
    let card = s.server.card().await;
    let params = &card["capabilities"]["extensions"][0]["params"]["skills"];
    let digest = params
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["skill_id"] == SUM_SKILL)
        .unwrap()["interface_digest"]
        .clone();
    for (args, d, code) in [
        (json!({"a": "two", "b": 3}), digest.clone(), "input_invalid"),
        (
            json!({"a": 2, "b": 3}),
            json!(format!("sha256:{}", "0".repeat(64))),
            "interface_mismatch",
        ),
    ] {
        let req = json!({"skill": SUM_SKILL, "skill_version": "1.0", "interface_digest": d, "arguments": args});
        let r = s
            .server
            .rpc(
                "SendMessage",
                json!({"message": {"messageId": uuid(), "role": "ROLE_USER", "parts": [{"data": req}],
                    "extensions": [skillgate_core::wire::EXTENSION_URI]}}),
            )
            .await;
        assert!(r.to_string().contains(code), "{code}: {r}");
    }
    assert_eq!(s.upstream.calls(), 0, "a refused request reached upstream");
}

fn remote_code(e: &ClientError) -> &'static str {
    e.code_str()
}

#[tokio::test]
async fn tampered_upstream_output_is_output_invalid() {
    let s = setup("").await;
    s.upstream.behave(Behaviour::Tampered);
    let e = call(&s.server.base, json!({"a": 2, "b": 3}))
        .await
        .unwrap_err();
    assert_eq!(remote_code(&e), "output_invalid", "{e}");
    assert_eq!(s.upstream.calls(), 1);
}

#[tokio::test]
async fn a_failed_upstream_task_is_execution_failed_naming_it() {
    let s = setup("").await;
    s.upstream.behave(Behaviour::Fails);
    let e = call(&s.server.base, json!({"a": 2, "b": 3}))
        .await
        .unwrap_err();
    assert_eq!(remote_code(&e), "execution_failed", "{e}");
    let text = e.to_string();
    assert!(
        text.contains("upstream task up-1") && text.contains("upstream broke"),
        "{text}"
    );
}

#[tokio::test]
async fn an_upstream_that_is_down_is_execution_failed() {
    let s = setup("").await;
    s.upstream.stop_and_wait().await;
    let e = call(&s.server.base, json!({"a": 2, "b": 3}))
        .await
        .unwrap_err();
    assert_eq!(remote_code(&e), "execution_failed", "{e}");
    assert!(e.to_string().contains("upstream agent at"), "{e}");
}

#[tokio::test]
async fn a_message_reply_and_text_arguments_work() {
    let s = setup("arguments = \"text\"\noutput = { part = 0 }").await;
    s.upstream.behave(Behaviour::MessageReply);
    let r = call(&s.server.base, json!({"a": 1.5, "b": 1}))
        .await
        .unwrap();
    assert_eq!(r.output, json!({"sum": 2.5}));
    let seen = s.upstream.state.lock().unwrap().messages.clone();
    assert_eq!(seen[0]["parts"][0]["text"], r#"{"a":1.5,"b":1}"#);
}

#[tokio::test]
async fn a_slow_upstream_hits_the_time_limit() {
    let s = setup("timeout_ms = 200").await;
    s.upstream.behave(Behaviour::Slow(Duration::from_secs(2)));
    let e = call(&s.server.base, json!({"a": 2, "b": 3}))
        .await
        .unwrap_err();
    assert_eq!(remote_code(&e), "resource_limit_exceeded", "{e}");
}

#[tokio::test]
async fn a_changed_upstream_skill_is_reported_and_refused_until_reload() {
    let s = setup("").await;
    assert!(s.watch.check().await.is_empty(), "nothing changed yet");
    s.upstream.state.lock().unwrap().description = "Now multiplies".into();
    let found = s.watch.check().await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`sum` changed"), "{found:?}");
    // A plain upstream publishes no document: the report says so rather than guessing.
    assert!(found[0].contains("no interface verdict"), "{found:?}");
    assert!(s.watch.check().await.is_empty(), "reported once");
    let e = call(&s.server.base, json!({"a": 2, "b": 3}))
        .await
        .unwrap_err();
    assert_eq!(remote_code(&e), "execution_failed");
    assert!(
        e.to_string()
            .contains("changed since the gateway read its card"),
        "{e}"
    );
    assert_eq!(s.upstream.calls(), 0);
}

#[tokio::test]
async fn start_up_refuses_an_unknown_upstream_skill_and_an_undeclared_record_kind_with_the_line() {
    let up = PlainAgent::start();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config::load(&write_config(dir.path(), "upstream_skill = \"nope\"")).unwrap();
    let e = build(cfg, upstream(&up)).await.err().unwrap();
    assert!(
        matches!(e, GatewayError::MissingSkill { line: 4, .. }),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.contains("gateway.toml:4") && text.contains("`nope`") && text.contains("sum, hidden"),
        "{text}"
    );

    let e = config::load(&write_config(
        dir.path(),
        "records = { sample = { artifact = \"x\" } }",
    ))
    .unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("gateway.toml:6")
            && text.contains("no record kind `sample`")
            && text.contains("trace"),
        "{text}"
    );
    let e = config::load(&write_config(dir.path(), "arguments = \"xml\"")).unwrap_err();
    assert!(e.to_string().contains("gateway.toml:6"), "{e}");
}

/// An upstream that implements the draft (testkit's `FakeAgent`) is redeployed with a new
/// required input member under a minor version: the drift report carries the verdict of
/// skillgate-evolve (breaking for callers, the rule, the bump), and calls are still refused.
#[tokio::test]
async fn a_drift_report_says_whether_the_upstream_change_is_breaking() {
    use skillgate_testkit::fake::{self, FakeAgent, SKILL};
    let up = FakeAgent::start();
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), &format!("upstream_skill = \"{SKILL}\""));
    let g = build(config::load(&path).unwrap(), upstream_at(&up.base))
        .await
        .unwrap();
    let server = TestServer::start(g.agent, ServerConfig::default()).await;
    assert!(g.watch.check().await.is_empty(), "nothing changed yet");
    let mut input = fake::threshold_input();
    input["properties"]["window"] = json!({"type": "integer"});
    input["required"] = json!(["metric", "threshold", "window"]);
    up.set_document(
        SKILL,
        fake::document_with_input("1.1", input).value().clone(),
        true,
    );
    let found = g.watch.check().await;
    assert_eq!(found.len(), 1, "{found:?}");
    let line = &found[0];
    assert!(
        line.contains(&format!("`{SKILL}` changed"))
            && line.contains("interface 1.0 -> 1.1")
            && line.contains("breaking for callers (EVO-SCHEMA-011 at /input_schema/")
            && line.contains("major bump needed, 1.1 does not carry it")
            && line.contains("refused until the gateway is reloaded"),
        "{line}"
    );
    assert!(g.watch.check().await.is_empty(), "reported once");
    let e = call(&server.base, json!({"a": 2, "b": 3}))
        .await
        .unwrap_err();
    assert_eq!(remote_code(&e), "execution_failed", "{e}");
    assert_eq!(up.domain_calls(), 0, "a drifted skill reached upstream");
}

/// The runtime's reloader rebuilds the gateway from its source: a drifted skill is served
/// again, and the refresh then watches the rebuilt gateway (a later change is reported anew,
/// which the running gateway's watch, having reported it once, would not).
#[tokio::test]
async fn a_reload_rebuilds_the_gateway_and_the_refresh_follows_it() {
    use skillgate_gateway::GatewaySource;
    use skillgate_runtime::{metrics::Metrics, AgentSwap, Reloader};
    use skillgate_testkit::poll::eventually;
    let up = PlainAgent::start();
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), "");
    let g = build(config::load(&path).unwrap(), upstream(&up))
        .await
        .unwrap();
    let swap = AgentSwap::new(
        g.agent,
        &ServerConfig::default(),
        "http://127.0.0.1:1",
        Metrics::disabled(),
    );
    let (source, refresh) = GatewaySource::new(path, Some(upstream(&up)), g.watch);
    let (lines_tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
    tokio::spawn(refresh.run(move |l| {
        let _ = lines_tx.send(l.to_owned());
    }));
    let description = |swap: &AgentSwap| -> String {
        let card: Value = serde_json::from_slice(&swap.card().bytes).unwrap();
        card["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == SUM_SKILL)
            .unwrap()["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };

    up.state.lock().unwrap().description = "Now multiplies".into();
    assert!(next_line(&mut lines).await.contains("`sum` changed"));

    let (reload, triggers) = tokio::sync::mpsc::channel(1);
    let reloader = Reloader::on(
        source,
        tokio_stream::wrappers::ReceiverStream::new(triggers),
    )
    .spawn(swap.clone());
    reload.send(()).await.unwrap();
    eventually(Duration::from_secs(10), || {
        let now = description(&swap);
        async move { (now == "Now multiplies").then_some(()) }
    })
    .await;

    up.state.lock().unwrap().description = "Now divides".into();
    assert!(next_line(&mut lines).await.contains("`sum` changed"));
    drop(reload);
    reloader.await.unwrap();
}

/// The next line the refresh reported, within 10 s.
async fn next_line(lines: &mut tokio::sync::mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(Duration::from_secs(10), lines.recv())
        .await
        .expect("no report within 10 s")
        .unwrap()
}

//! The inspector against a real `skillgate-server` netops agent, both on ephemeral loopback
//! ports, read with a real HTTP client: pages, the validated call, tasks, conformance, the
//! Host/Origin guard, an agent that is down, and a token entered in the browser session.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use serde_json::{json, Value};
use skillgate_inspect::{serve, InspectConfig};
use skillgate_runtime::{ServerConfig, TokenTable};
use skillgate_testkit::poll::eventually;
use skillgate_testkit::requests::advertisements_mut;
use skillgate_testkit::server::{hold_skill, http_client, TestServer};
use skillgate_transport::TransportConfig;
use std::time::Duration;

const HTML: &str = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8";

struct Inspector {
    base: String,
    client: reqwest::Client,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    handle: tokio::task::JoinHandle<Result<(), skillgate_inspect::InspectError>>,
}

impl Inspector {
    async fn start(config: InspectConfig) -> Inspector {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let handle = tokio::spawn(serve(listener, config, async move {
            let _ = rx.await;
        }));
        Inspector {
            base,
            client: http_client(),
            stop: Some(tx),
            handle,
        }
    }

    async fn get(&self, path_and_query: &str) -> (u16, String) {
        let r = self
            .client
            .get(format!("{}{path_and_query}", self.base))
            .header("Accept", HTML)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    }

    async fn post_json(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self
            .client
            .post(format!("{}{path}", self.base))
            .header("Origin", &self.base)
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (
            status,
            serde_json::from_str(&r.text().await.unwrap()).unwrap(),
        )
    }

    async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.handle.await.unwrap().unwrap();
    }
}

fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The netops agent, served as `skillgate serve` serves it by default.
async fn netops(config: ServerConfig) -> TestServer {
    TestServer::start(skillgate_netops::agent().build().unwrap(), config).await
}

/// The netops agent plus `hold`, whose tasks stay open until canceled (not for conformance
/// runs: its probe call would wait for it).
async fn netops_with_hold() -> TestServer {
    let agent = skillgate_netops::agent()
        .skill(hold_skill())
        .build()
        .unwrap();
    TestServer::start(agent, ServerConfig::default()).await
}

/// The index runs the whole card lint, `--deep` included: a card that advertises a digest its
/// agent's describe_skill does not return shows SI-DEEP-002, which the card's bytes alone
/// cannot reveal.
#[tokio::test]
async fn index_shows_the_deep_findings_of_the_card() {
    let agent = netops(ServerConfig::default()).await;
    let mut card = agent.card().await;
    advertisements_mut(&mut card)[0]["interface_digest"] =
        Value::String(format!("sha256:{}", "0".repeat(64)));
    let body = card.to_string();
    let app = axum::Router::new().route(
        "/card.json",
        axum::routing::get(move || {
            let body = body.clone();
            async move { ([("content-type", "application/json")], body) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let card_url = format!("http://{}/card.json", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let inspector = Inspector::start(InspectConfig::default()).await;
    let (status, page) = inspector.get(&format!("/?agent={}", enc(&card_url))).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("SI-DEEP-002"), "{page}");
    assert!(page.contains(&"0".repeat(64)), "{page}");
}

#[tokio::test]
async fn index_with_a_url_shows_the_card_and_its_lint_findings() {
    let agent = netops(ServerConfig::default()).await;
    let inspector = Inspector::start(InspectConfig::default()).await;
    let (status, body) = inspector
        .get(&format!("/?agent={}", enc(&agent.base)))
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("skillgate-netops") || body.contains("netops"),
        "{body}"
    );
    // The linter ran on the card's bytes: its section and its counts are on the page.
    assert!(body.contains("id=\"findings\""), "{body}");
    assert!(body.contains("Card lint"), "{body}");
    assert!(body.contains("a2a-1.0"), "{body}");
    // Each skill links its page on the inspector, with its advertised digest.
    assert!(
        body.contains(&format!(
            "href=\"/skill?agent={}&amp;id=collect_interface_counters\"",
            enc(&agent.base).replace('+', "%20")
        )),
        "{body}"
    );
    assert!(body.contains("sha256:"), "{body}");
    assert!(body.contains("id=\"conformance\""));
    // The page is the console's: same CSP and assets.
    let r = inspector
        .client
        .get(format!("{}/console/assets/console.js", inspector.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // The default agent is shown without a query.
    let with_default = Inspector::start(InspectConfig {
        agent: Some(agent.base.clone()),
        ..Default::default()
    })
    .await;
    let (status, body) = with_default.get("/").await;
    assert_eq!(status, 200);
    assert!(body.contains("collect_interface_counters"), "{body}");
    with_default.stop().await;
    inspector.stop().await;
    agent.shutdown().await;
}

#[tokio::test]
async fn skill_page_shows_the_document_and_the_digest_verdict() {
    let agent = netops(ServerConfig::default()).await;
    let card = agent.card().await;
    let inspector = Inspector::start(InspectConfig::default()).await;
    let (status, body) = inspector
        .get(&format!(
            "/skill?agent={}&id=collect_interface_counters",
            enc(&agent.base)
        ))
        .await;
    assert_eq!(status, 200, "{body}");
    let digest = card["capabilities"]["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| {
            e["params"]["skills"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|s| s["skill_id"] == "collect_interface_counters")
        .unwrap()["interface_digest"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(body.contains("Three-way digest check passed"), "{body}");
    assert!(body.contains(&digest), "{body}");
    assert!(body.contains("describe_skill completed"), "{body}");
    // The document as field tables, from the shared renderer.
    assert!(body.contains("<code>window_ms</code>"), "{body}");
    assert!(
        body.contains("100..") || body.contains("&gt;= 100"),
        "{body}"
    );
    // Its output feeds assess_interface_health directly.
    let feeds = &body[body.find("id=\"feeds\"").unwrap()..];
    assert!(
        feeds[..feeds.find("</dd>").unwrap()].contains("assess_interface_health"),
        "{body}"
    );
    // The call form goes to the inspector.
    assert!(body.contains("data-action=\"/api/call\""), "{body}");
    // An unknown skill: the client's refusal, with its code and step.
    let (status, body) = inspector
        .get(&format!("/skill?agent={}&id=nope", enc(&agent.base)))
        .await;
    assert_eq!(status, 502, "{body}");
    assert!(body.contains("skill_not_advertised"), "{body}");
    inspector.stop().await;
    agent.shutdown().await;
}

#[tokio::test]
async fn a_call_through_the_inspector_is_validated_both_ways() {
    let agent = netops(ServerConfig::default()).await;
    let inspector = Inspector::start(InspectConfig::default()).await;
    let (status, v) = inspector
        .post_json(
            "/api/call",
            json!({"agent": agent.base, "skill": "collect_interface_counters",
                "arguments": {"interface": "lo", "window_ms": 100}}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["state"], "TASK_STATE_COMPLETED");
    assert_eq!(v["output"]["interface"], "lo", "{v}");
    let steps = v["steps"].as_array().unwrap();
    assert!(
        steps.iter().any(|s| s.as_str().unwrap().starts_with("7 ")),
        "{v}"
    );
    assert!(
        steps.iter().any(|s| s.as_str().unwrap().starts_with("10 ")),
        "{v}"
    );
    let task = v["task_id"].as_str().unwrap();
    // The task it made is readable through the inspector's task view.
    let (status, body) = inspector
        .get(&format!(
            "/task?agent={}&id={}",
            enc(&agent.base),
            enc(task)
        ))
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("TASK_STATE_COMPLETED"), "{body}");
    assert!(!body.contains("id=\"cancel-form\""), "terminal: no cancel");
    inspector.stop().await;
    agent.shutdown().await;
}

#[tokio::test]
async fn invalid_input_is_refused_before_sending_with_code_and_paths() {
    let agent = netops(ServerConfig::default()).await;
    let inspector = Inspector::start(InspectConfig::default()).await;
    let (_, v) = inspector
        .post_json(
            "/api/call",
            json!({"agent": agent.base, "skill": "collect_interface_counters",
                "arguments": {"interface": "", "window_ms": 5}}),
        )
        .await;
    assert_eq!(v["ok"], false, "{v}");
    let e = &v["error"];
    assert_eq!(e["code"], "input_invalid", "{v}");
    assert_eq!(e["where"], "local", "{v}");
    assert_eq!(e["step"], 7, "{v}");
    let paths: Vec<&str> = e["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["instance_path"].as_str().unwrap())
        .collect();
    assert!(
        paths.contains(&"/interface") && paths.contains(&"/window_ms"),
        "{v}"
    );
    // Nothing was delegated: no step past 7 passed.
    assert!(v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| !s.as_str().unwrap().starts_with("8 ")));
    inspector.stop().await;
    agent.shutdown().await;
}

#[tokio::test]
async fn task_view_gets_follows_and_cancels_a_remote_task() {
    let agent = netops_with_hold().await;
    let inspector = Inspector::start(InspectConfig::default()).await;
    let id = agent.start_task("hold", json!({})).await;
    let (status, body) = inspector
        .get(&format!("/task?agent={}&id={}", enc(&agent.base), enc(&id)))
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(&format!("data-task-id=\"{id}\"")), "{body}");
    assert!(body.contains("id=\"cancel-form\""), "{body}");
    assert!(
        body.contains("data-events=\"/api/task/events?agent="),
        "{body}"
    );
    // The live events relay: the remote SubscribeToTask as server-sent events.
    let mut events = inspector
        .client
        .get(format!(
            "{}/api/task/events?agent={}&id={}",
            inspector.base,
            enc(&agent.base),
            enc(&id)
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), 200);
    let first = events.chunk().await.unwrap().unwrap();
    let text = String::from_utf8_lossy(&first);
    assert!(text.contains("data:") && text.contains(&id), "{text}");
    // Cancel: a plain form post, then back to the task view showing the canceled task.
    let r = inspector
        .client
        .post(format!("{}/task/cancel", inspector.base))
        .header("Origin", &inspector.base)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(form(&[("agent", agent.base.as_str()), ("id", id.as_str())]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "followed the 303 to the task view");
    let body = r.text().await.unwrap();
    assert!(body.contains("TASK_STATE_CANCELED"), "{body}");
    // The relay reports the end of the stream.
    let mut rest = String::new();
    while let Some(c) = tokio::time::timeout(Duration::from_secs(10), events.chunk())
        .await
        .unwrap()
        .unwrap()
    {
        rest.push_str(&String::from_utf8_lossy(&c));
        if rest.contains("event: end") {
            break;
        }
    }
    assert!(
        rest.contains("TASK_STATE_CANCELED") && rest.contains("event: end"),
        "{rest}"
    );
    // A task the agent does not have.
    let (status, body) = inspector
        .get(&format!("/task?agent={}&id=no-such-task", enc(&agent.base)))
        .await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("Cannot read the task"), "{body}");
    inspector.stop().await;
    agent.shutdown().await;
}

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused() {
    let agent = netops(ServerConfig::default()).await;
    let inspector = Inspector::start(InspectConfig::default()).await;
    let url = format!("{}/?agent={}", inspector.base, enc(&agent.base));
    // A DNS-rebinding page reaches the inspector under its own host name.
    let r = inspector
        .client
        .get(&url)
        .header("Host", "rebind.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // A page on another origin posts to the inspector.
    for path in [
        "/api/call",
        "/api/conformance",
        "/task/cancel",
        "/session/token",
    ] {
        let r = inspector
            .client
            .post(format!("{}{path}", inspector.base))
            .header("Origin", "https://evil.example")
            .header("Content-Type", "application/json")
            .body(json!({"agent": agent.base, "skill": "collect_interface_counters", "arguments": {}}).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{path}");
        assert!(r.text().await.unwrap().contains("evil.example"), "{path}");
    }
    // A link or image on another site: no Origin on a GET, but the browser says who started it.
    for site in ["cross-site", "same-site"] {
        let r = inspector
            .client
            .get(&url)
            .header("Sec-Fetch-Site", site)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{site}");
    }
    let r = inspector
        .client
        .get(&url)
        .header("Sec-Fetch-Site", "none")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "a URL the user opened");
    // Its own origin (and localhost naming it) are fine.
    let port = inspector.base.rsplit(':').next().unwrap().to_owned();
    let r = inspector
        .client
        .get(&url)
        .header("Host", format!("localhost:{port}"))
        .header("Origin", format!("http://localhost:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    inspector.stop().await;
    agent.shutdown().await;
}

#[tokio::test]
async fn an_agent_that_is_down_gives_a_clear_error_page() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let inspector = Inspector::start(InspectConfig::default()).await;
    let down = format!("http://127.0.0.1:{port}");
    let (status, body) = inspector.get(&format!("/?agent={}", enc(&down))).await;
    assert_eq!(status, 502, "{body}");
    assert!(body.contains("Agent unreachable"), "{body}");
    assert!(
        body.contains(&format!("127.0.0.1:{port}/.well-known/agent-card.json")),
        "{body}"
    );
    // Plain http to a host that is not loopback is refused by the transport policy.
    let (status, body) = inspector
        .get(&format!("/?agent={}", enc("http://agent.example")))
        .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("http"), "{body}");
    inspector.stop().await;
}

#[tokio::test]
async fn conformance_runs_with_progress_to_a_verdict() {
    let agent = netops(ServerConfig::default()).await;
    let inspector = Inspector::start(InspectConfig::default()).await;
    let (status, v) = inspector
        .post_json("/api/conformance", json!({"agent": agent.base}))
        .await;
    assert_eq!(status, 200, "{v}");
    let run = v["run"].as_str().unwrap().to_owned();
    let client = inspector.client.clone();
    let url = format!("{}/api/conformance/{run}", inspector.base);
    let done: Value = eventually(Duration::from_secs(120), || {
        let client = client.clone();
        let url = url.clone();
        async move {
            let text = client.get(&url).send().await.ok()?.text().await.ok()?;
            let v: Value = serde_json::from_str(&text).ok()?;
            (v["done"] == true).then_some(v)
        }
    })
    .await;
    assert!(done["requests"].as_u64().unwrap() > 10, "{done}");
    assert!(done["last"].as_str().unwrap().contains("POST"), "{done}");
    assert_eq!(done["summary"]["required_failed"], 0, "{done}");
    assert!(done["checks"].as_array().unwrap().len() > 10, "{done}");
    assert_eq!(done["outcome"], "conformant", "{done}");
    inspector.stop().await;
    agent.shutdown().await;
}

#[tokio::test]
async fn a_token_entered_in_the_session_is_used_and_never_shown() {
    let secret = "inspect-secret-0123456789";
    let agent = netops(ServerConfig {
        tokens: Some(TokenTable::parse(&format!("{secret}\n")).unwrap()),
        ..Default::default()
    })
    .await;
    let inspector = Inspector::start(InspectConfig {
        transport: TransportConfig::default(),
        agent: Some(agent.base.clone()),
    })
    .await;
    let skill = format!(
        "/skill?agent={}&id=collect_interface_counters",
        enc(&agent.base)
    );
    let (status, body) = inspector.get(&skill).await;
    assert_eq!(
        status, 502,
        "without the token describe_skill is refused: {body}"
    );
    let r = skillgate_testkit::server::http_client_builder()
        .build()
        .unwrap()
        .post(format!("{}/session/token", inspector.base))
        .header("Origin", &inspector.base)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(form(&[("token", secret), ("agent", agent.base.as_str())]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    assert!(!cookie.contains(secret));
    let session = cookie.split(';').next().unwrap().to_owned();
    let get = |path: String| {
        inspector
            .client
            .get(format!("{}{path}", inspector.base))
            .header("Accept", HTML)
            .header("Cookie", session.clone())
            .send()
    };
    let r = get(skill.clone()).await.unwrap();
    assert_eq!(r.status(), 200);
    let body = r.text().await.unwrap();
    assert!(body.contains("Three-way digest check passed"), "{body}");
    assert!(!body.contains(secret), "the token is never echoed");
    let body = get("/".into()).await.unwrap().text().await.unwrap();
    assert!(body.contains("entered for this browser session") && !body.contains(secret));
    // Another browser (no cookie) does not get the token.
    assert_eq!(inspector.get(&skill).await.0, 502);
    inspector.stop().await;
    agent.shutdown().await;
}

#[tokio::test]
async fn command_line_credentials_go_to_the_command_line_agent_only() {
    let secret = "inspect-cli-secret-0123456789";
    let auth = || ServerConfig {
        tokens: Some(TokenTable::parse(&format!("{secret}\n")).unwrap()),
        ..Default::default()
    };
    let mine = netops(auth()).await;
    let other = netops(auth()).await;
    let inspector = Inspector::start(InspectConfig {
        transport: TransportConfig {
            token: Some(secret.into()),
            ..Default::default()
        },
        agent: Some(mine.base.clone()),
    })
    .await;
    let skill = |base: &str| format!("/skill?agent={}&id=collect_interface_counters", enc(base));
    let (status, body) = inspector.get(&skill(&mine.base)).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("from the command line") && !body.contains(secret),
        "{body}"
    );
    // Another agent named by a page does not get the token (it answers 401 without it).
    let (status, body) = inspector.get(&skill(&other.base)).await;
    assert_eq!(status, 502, "{body}");
    assert!(body.contains("401"), "{body}");
    // Credentials without the agent they are for: refused at start.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let refused = serve(
        listener,
        InspectConfig {
            transport: TransportConfig {
                token: Some(secret.into()),
                ..Default::default()
            },
            agent: None,
        },
        async {},
    )
    .await;
    assert!(matches!(
        refused,
        Err(skillgate_inspect::InspectError::Config(_))
    ));
    inspector.stop().await;
    mine.shutdown().await;
    other.shutdown().await;
}

#[tokio::test]
async fn hostile_remote_text_is_escaped() {
    use skillgate_runtime::{Agent, Skill, SkillContext, SkillOutput};
    let evil = "<script>alert('x')</script><img src=x onerror=alert(1)>";
    let schema = |extra: Value| {
        let mut s =
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"});
        s.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        s
    };
    let skill = Skill::builder("evil", "1.0")
        .name(format!("Name {evil}"))
        .description(format!("Desc {evil}"))
        .tags([format!("tag{evil}")])
        .input_schema(
            "urn:test:inspect:evil:input",
            "1.0",
            schema(json!({"properties": {format!("p{evil}"): {"type": "string",
                "description": format!("field {evil}")}}})),
        )
        .output_schema("urn:test:inspect:evil:output", "1.0", schema(json!({})))
        .handler(|_a: Value, _c: SkillContext| async move { Ok(SkillOutput::new(json!({}))) })
        .build();
    let agent = Agent::builder(format!("agent {evil}"), format!("about {evil}"), "1.0")
        .provider(format!("org {evil}"), "https://example.invalid/\"><script>")
        .skill(skill)
        .build()
        .unwrap();
    let agent = TestServer::start(agent, ServerConfig::default()).await;
    let inspector = Inspector::start(InspectConfig::default()).await;
    let (status, index) = inspector
        .get(&format!("/?agent={}", enc(&agent.base)))
        .await;
    assert_eq!(status, 200, "{index}");
    let (status, skill) = inspector
        .get(&format!("/skill?agent={}&id=evil", enc(&agent.base)))
        .await;
    assert_eq!(status, 200, "{skill}");
    for body in [&index, &skill] {
        assert!(!body.contains("<script>alert"), "{body}");
        assert!(!body.contains("<img"), "{body}");
        assert!(body.contains("&lt;script&gt;alert("), "{body}");
    }
    assert!(skill.contains("field &lt;script&gt;"), "{skill}");
    inspector.stop().await;
    agent.shutdown().await;
}

/// Waits for the conformance run `run` to finish and returns its last progress answer.
async fn finished_run(inspector: &Inspector, run: &str) -> Value {
    let client = inspector.client.clone();
    let url = format!("{}/api/conformance/{run}", inspector.base);
    eventually(Duration::from_secs(120), || {
        let client = client.clone();
        let url = url.clone();
        async move {
            let text = client.get(&url).send().await.ok()?.text().await.ok()?;
            let v: Value = serde_json::from_str(&text).ok()?;
            (v["done"] == true).then_some(v)
        }
    })
    .await
}

#[tokio::test]
async fn the_inspector_reads_calls_and_checks_an_a2a_0_3_agent() {
    let config = ServerConfig {
        a2a_versions: skillgate_runtime::checks::VersionSet::parse_list("0.3").unwrap(),
        ..ServerConfig::default()
    };
    let agent = netops(config).await;
    let inspector = Inspector::start(InspectConfig::default()).await;
    // The card page reads the 0.3 card: its skills and digests are there.
    let (status, body) = inspector
        .get(&format!("/?agent={}", enc(&agent.base)))
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("collect_interface_counters"), "{body}");
    assert!(body.contains("sha256:"), "{body}");
    // A call runs the client's steps over 0.3 and validates both ways.
    let (status, v) = inspector
        .post_json(
            "/api/call",
            json!({"agent": agent.base, "skill": "collect_interface_counters",
                "arguments": {"interface": "lo", "window_ms": 100}}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["output"]["interface"], "lo", "{v}");
    // Bad input is refused locally, with its code.
    let (_, refused) = inspector
        .post_json(
            "/api/call",
            json!({"agent": agent.base, "skill": "collect_interface_counters",
                "arguments": {"window_ms": 100}}),
        )
        .await;
    assert_eq!(refused["error"]["code"], "input_invalid", "{refused}");
    assert_eq!(refused["error"]["where"], "local", "{refused}");
    // Conformance probes it over 0.3 and finds it conformant.
    let (status, v) = inspector
        .post_json("/api/conformance", json!({"agent": agent.base}))
        .await;
    assert_eq!(status, 200, "{v}");
    let done = finished_run(&inspector, v["run"].as_str().unwrap()).await;
    assert_eq!(done["outcome"], "conformant", "{done}");
    assert_eq!(done["summary"]["required_failed"], 0, "{done}");
    inspector.stop().await;
    agent.shutdown().await;
}

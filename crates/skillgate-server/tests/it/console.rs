//! The web console against a real server on an ephemeral port, read with a real HTTP client:
//! pages for browsers, today's answers for everyone else, escaping of untrusted card and
//! document text, and the same-origin call the console's form makes.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_runtime::*;

const HTML: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

async fn page(s: &Server, path: &str) -> (u16, reqwest::header::HeaderMap, String) {
    s.get_raw(path, &[("Accept", HTML)]).await
}

fn digest_of(card: &Value, skill: &str) -> String {
    request(card, skill, json!({}))["interface_digest"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn index_lists_every_skill_with_its_digest() {
    let s = start_server().await;
    let card = s.card().await;
    let (status, headers, body) = page(&s, "/").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(body.starts_with("<!DOCTYPE html>"));
    assert!(body.contains("test-agent") && body.contains("skillgate tests"));
    for skill in [
        "evaluate_resource_condition",
        "misbehave",
        "slow",
        "wait",
        "restart_interface",
    ] {
        assert!(
            body.contains(&format!("href=\"/console/skills/{skill}\"")),
            "{skill}: {body}"
        );
        assert!(body.contains(&digest_of(&card, skill)), "{skill}");
    }
    assert!(body.contains("sync, stream, poll"), "{body}");
    // The assets the page names are served, embedded.
    for (path, ty) in [
        ("/console/assets/console.css", "text/css"),
        ("/console/assets/console.js", "text/javascript"),
    ] {
        let (status, headers, body) = s.get_raw(path, &[]).await;
        assert_eq!(status, 200, "{path}");
        assert!(headers["content-type"].to_str().unwrap().starts_with(ty));
        assert!(!body.is_empty());
    }
    s.shutdown().await;
}

#[tokio::test]
async fn skill_page_shows_the_field_table_and_the_document() {
    let s = start_server().await;
    let card = s.card().await;
    let (status, _, body) = page(&s, "/console/skills/evaluate_resource_condition").await;
    assert_eq!(status, 200, "{body}");
    // Rows of the input schema: nested names, type, required, enum and bounds.
    assert!(body.contains("<code>resource_id</code>"), "{body}");
    assert!(body.contains("<code>condition.metric</code>"));
    assert!(body.contains("<code>condition.threshold</code></td><td>integer</td><td>yes</td>"));
    assert!(body.contains(
        "<code>condition.unit</code></td><td>string</td><td><span class=\"muted\">no</span>"
    ));
    assert!(body.contains("<code>&quot;utilization&quot;</code>"));
    assert!(
        body.contains("length &gt;= 1") || body.contains("length 1.."),
        "{body}"
    );
    // Output and record schemas, the digests and the raw document.
    assert!(body.contains("Supporting record: resource-observation"));
    assert!(body.contains(&digest_of(&card, "evaluate_resource_condition")));
    assert!(body.contains("urn:test:observe:record"));
    assert!(body.contains("&quot;interface_version&quot;: &quot;1.0&quot;"));
    // The form: one input per top-level property, the JSON fallback, the call's identity.
    assert!(body.contains("name=\"resource_id\" data-kind=\"string\""));
    assert!(body.contains("name=\"condition\" data-kind=\"json\""));
    assert!(body.contains("name=\"__arguments\""));
    assert!(body.contains("data-skill=\"evaluate_resource_condition\""));
    // An unknown skill is a page too, with 404.
    let (status, _, body) = page(&s, "/console/skills/nope").await;
    assert_eq!(status, 404);
    assert!(body.contains("No such skill"));
    s.shutdown().await;
}

#[tokio::test]
async fn hostile_card_and_schema_text_is_escaped() {
    let evil = "<script>alert('x')</script><img src=x onerror=alert(1)>";
    let skill = Skill::builder("evil\"><b>", "1.0")
        .name(format!("Name {evil}"))
        .description(format!("Desc {evil}"))
        .tags([format!("tag{evil}")])
        .input_schema(
            "urn:test:evil:input",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "properties": {format!("p{evil}"): {"type": "string", "description": format!("field {evil}"),
                    "pattern": evil, "enum": [evil]}}}),
        )
        .output_schema(
            "urn:test:evil:output",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}),
        )
        .handler(|_a: Value, _c: SkillContext| async move { Ok(SkillOutput::new(json!({}))) })
        .build();
    let agent = Agent::builder(format!("agent {evil}"), format!("about {evil}"), "1.0")
        .provider(format!("org {evil}"), "https://example.invalid/\"><script>")
        .skill(skill)
        .build()
        .unwrap();
    let s = Server::start(agent, ServerConfig::default()).await;
    let (status, _, index) = page(&s, "/").await;
    assert_eq!(status, 200);
    let (status, _, skill) = page(&s, "/console/skills/evil%22%3E%3Cb%3E").await;
    assert_eq!(status, 200, "{skill}");
    for body in [&index, &skill] {
        assert!(!body.contains("<script>alert"), "{body}");
        assert!(!body.contains("<img"), "{body}");
        assert!(!body.contains("\"><b>"), "{body}");
        assert!(body.contains("&lt;script&gt;alert("), "{body}");
    }
    assert!(index.contains("org &lt;script&gt;"));
    assert!(
        index.contains("href=\"/console/skills/evil%22%3E%3Cb%3E\""),
        "{index}"
    );
    assert!(skill.contains("field &lt;script&gt;"));
    s.shutdown().await;
}

#[tokio::test]
async fn json_clients_get_what_they_got_before() {
    let s = start_server().await;
    for accept in [
        None,
        Some("application/json"),
        Some("*/*"),
        Some("text/html;q=0"),
    ] {
        let headers: Vec<(&str, &str)> = accept.map(|a| ("Accept", a)).into_iter().collect();
        let (status, h, body) = s.get_raw("/", &headers).await;
        assert_eq!(status, 405, "{accept:?}: {body}");
        assert_eq!(h["content-type"], "application/json", "{accept:?}");
        assert_eq!(h["allow"], "POST", "{accept:?}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert!(v["error"]["message"].as_str().unwrap().contains("GET"));
    }
    // The card and the JSON-RPC binding are untouched.
    let card = s.card().await;
    assert_eq!(card["name"], "test-agent");
    let resp = s
        .rpc(
            "SendMessage",
            msg(request(&card, "misbehave", json!({"mode": "fine"}))),
        )
        .await;
    assert_eq!(
        task_of(&resp)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{resp}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn with_auth_the_index_is_public_and_skill_pages_are_not() {
    let config = ServerConfig {
        tokens: Some(TokenTable::parse("console-secret-0123456789\n").unwrap()),
        ..Default::default()
    };
    let s = Server::start(agent(), config).await;
    let (status, _, body) = page(&s, "/").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("bearer token"));
    assert!(!body.contains("console-secret"));
    let (status, _, _) = page(&s, "/console/skills/slow").await;
    assert_eq!(status, 401);
    let (status, _, body) = s
        .get_raw(
            "/console/skills/slow",
            &[
                ("Accept", HTML),
                ("Authorization", "Bearer console-secret-0123456789"),
            ],
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("name=\"__token\""));
    // A JSON GET / still needs the token, as before.
    let (status, _, _) = s.get_raw("/", &[]).await;
    assert_eq!(status, 401);
    s.shutdown().await;
}

#[tokio::test]
async fn the_console_call_from_the_agents_own_origin_is_allowed() {
    let s = start_server().await;
    let card = s.card().await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": msg(request(&card, "evaluate_resource_condition",
            json!({"resource_id": "eth0", "condition": {"metric": "utilization", "operator": ">", "threshold": "high"}})))});
    let send = |origin: String| {
        s.client
            .post(format!("{}/", s.base))
            .header("Content-Type", "application/json")
            .header("A2A-Version", "1.0")
            .header("Origin", origin)
            .body(body.to_string())
            .send()
    };
    // Same origin as the page the console served: the call reaches the gate.
    let r = send(s.base.clone()).await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    let e = error_object(task_of(&v));
    assert_eq!(e["code"], "input_invalid", "{v}");
    assert_eq!(e["details"][0]["instance_path"], "/condition/threshold");
    // A page on another port of the same host is another origin: still refused.
    let port: u16 = s.base.rsplit(':').next().unwrap().parse().unwrap();
    let other = format!("http://127.0.0.1:{}", port.wrapping_add(1));
    assert_eq!(send(other).await.unwrap().status(), 403);
    assert_eq!(
        send("https://evil.example".into()).await.unwrap().status(),
        403
    );
    s.shutdown().await;
}

#[tokio::test]
async fn console_requests_count_under_their_own_binding() {
    let config = ServerConfig {
        metrics: true,
        ..Default::default()
    };
    let s = Server::start(agent(), config).await;
    assert_eq!(page(&s, "/").await.0, 200);
    assert_eq!(page(&s, "/console/skills/slow").await.0, 200);
    let (_, _, scrape) = s.get_raw("/metrics", &[]).await;
    assert!(
        scrape.contains(
            r#"skillgate_requests_total{binding="console",method="none",status="200"} 2"#
        ),
        "{scrape}"
    );
    s.shutdown().await;
}

fn schema_of(uri: &str) -> Value {
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "description": uri})
}

fn pipe_skill(id: &str, input: &str, output: &str) -> Skill {
    Skill::builder(id, "1.0")
        .input_schema(input, "1.0", schema_of(input))
        .output_schema(output, "1.0", schema_of(output))
        .handler(|_a: Value, _c: SkillContext| async move { Ok(SkillOutput::new(json!({}))) })
        .build()
}

fn section<'a>(body: &'a str, id: &str) -> &'a str {
    let start = body.find(&format!("id=\"{id}\"")).unwrap();
    let rest = &body[start..];
    &rest[..rest.find("</dd>").unwrap()]
}

#[tokio::test]
async fn skill_page_lists_what_the_skill_composes_with() {
    let agent = Agent::builder("pipes", "composition", "1.0")
        .skill(pipe_skill("collect", "urn:t:query", "urn:t:measurement"))
        .skill(pipe_skill("assess", "urn:t:measurement", "urn:t:verdict"))
        .skill(pipe_skill(
            "lookalike",
            "urn:t:measurement2",
            "urn:t:verdict",
        ))
        .skill(pipe_skill("plan", "urn:t:verdict", "urn:t:query"))
        .build()
        .unwrap();
    let s = Server::start(agent, ServerConfig::default()).await;
    let (status, _, body) = page(&s, "/console/skills/collect").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Composes with"), "{body}");
    let feeds = section(&body, "feeds");
    assert!(feeds.contains("href=\"/console/skills/assess\""), "{feeds}");
    assert!(
        !feeds.contains("lookalike") && !feeds.contains("plan"),
        "{feeds}"
    );
    let fed_by = section(&body, "fed-by");
    assert!(fed_by.contains("href=\"/console/skills/plan\""), "{fed_by}");
    assert!(!fed_by.contains("assess"), "{fed_by}");
    // The other direction, and a skill nothing feeds into.
    let (_, _, body) = page(&s, "/console/skills/assess").await;
    assert!(section(&body, "fed-by").contains("/console/skills/collect"));
    assert!(section(&body, "feeds").contains("/console/skills/plan"));
    let (_, _, body) = page(&s, "/console/skills/lookalike").await;
    assert!(section(&body, "fed-by").contains("none"), "{body}");
    s.shutdown().await;
}

/// Starts a `wait` task without waiting for it; returns its id.
async fn start_wait(s: &Server, auth: Option<&str>) -> String {
    let card = s.card().await;
    let mut p = msg(request(&card, "wait", json!({"ms": 10000})));
    p["configuration"] = json!({"returnImmediately": true});
    let headers: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
    let (status, _, v) = s.rpc_with("SendMessage", p, &headers).await;
    assert_eq!(status, 200, "{v}");
    task_of(&v)["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn task_page_shows_the_task_as_get_task_reads_it() {
    let s = start_server().await;
    let id = start_wait(&s, None).await;
    let (status, headers, body) = page(&s, &format!("/console/tasks/{id}")).await;
    assert_eq!(status, 200, "{body}");
    assert!(headers["content-security-policy"]
        .to_str()
        .unwrap()
        .contains("script-src 'self'"));
    assert!(body.contains(&format!("data-task-id=\"{id}\"")), "{body}");
    assert!(body.contains("TASK_STATE_WORKING") || body.contains("TASK_STATE_SUBMITTED"));
    // Not terminal: the Cancel button (shown by the script) and the live-events log.
    assert!(
        body.contains("id=\"cancel\"") && body.contains("id=\"events\""),
        "{body}"
    );
    // Cancel the way the page's script does, then the page shows the terminal task.
    let v = s.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(v["result"]["status"]["state"], "TASK_STATE_CANCELED", "{v}");
    let (_, _, body) = page(&s, &format!("/console/tasks/{id}")).await;
    assert!(body.contains("TASK_STATE_CANCELED"), "{body}");
    assert!(!body.contains("id=\"cancel\""));
    // A completed task: its result artifact and history are on the page.
    let card = s.card().await;
    let v = s
        .rpc(
            "SendMessage",
            msg(request(
                &card,
                "evaluate_resource_condition",
                observe_args(),
            )),
        )
        .await;
    let done = task_of(&v)["id"].as_str().unwrap().to_owned();
    let (_, _, body) = page(&s, &format!("/console/tasks/{done}")).await;
    assert!(
        body.contains("TASK_STATE_COMPLETED") && body.contains("Result "),
        "{body}"
    );
    assert!(body.contains("ROLE_USER"), "{body}");
    // The try-it form links the task view.
    let (_, _, body) = page(&s, "/console/skills/wait").await;
    assert!(
        body.contains("data-task-href=\"/console/tasks/\""),
        "{body}"
    );
    let (status, _, body) = page(&s, "/console/tasks/no-such-task").await;
    assert_eq!(status, 404);
    assert!(body.contains("No such task"));
    s.shutdown().await;
}

#[tokio::test]
async fn task_page_follows_get_task_visibility() {
    let config = ServerConfig {
        tokens: Some(
            TokenTable::parse("alice-secret-0123456789\nbob-secret-0123456789\n").unwrap(),
        ),
        ..Default::default()
    };
    let s = Server::start(agent(), config).await;
    let id = start_wait(&s, Some("Bearer alice-secret-0123456789")).await;
    let path = format!("/console/tasks/{id}");
    let get = |token: Option<&'static str>| {
        let mut h = vec![("Accept", HTML)];
        if let Some(t) = token {
            h.push(("Authorization", t));
        }
        let s = &s;
        let path = path.clone();
        async move { s.get_raw(&path, &h).await }
    };
    assert_eq!(get(None).await.0, 401);
    let (status, _, body) = get(Some("Bearer alice-secret-0123456789")).await;
    assert_eq!(status, 200, "{body}");
    // Bob could not GetTask Alice's task: the console does not show it either.
    let (status, _, body) = get(Some("Bearer bob-secret-0123456789")).await;
    assert_eq!(status, 404, "{body}");
    assert!(!body.contains("TASK_STATE"), "{body}");
    let (_, _, v) = s
        .rpc_with(
            "GetTask",
            json!({"id": id}),
            &[("Authorization", "Bearer bob-secret-0123456789")],
        )
        .await;
    assert!(v["error"].is_object(), "{v}");
    s.shutdown().await;
}

/// The console's field table is the one `skillgate describe` prints (one function in core):
/// local `$ref`s are followed, and nesting is shown to the same depth.
#[tokio::test]
async fn field_table_follows_local_refs_like_describe() {
    let mut deep = json!({"type": "string"});
    for name in ["g", "f", "e", "d", "c", "b"] {
        deep = json!({"type": "object", "properties": {name: deep}});
    }
    let input = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"cond": {"type": "object", "required": ["operator"],
                           "properties": {"operator": {"enum": ["gte", "lte"]}}}},
        "properties": {"condition": {"$ref": "#/$defs/cond"}, "a": deep}
    });
    let skill = Skill::builder("refs", "1.0")
        .input_schema("urn:t:refs", "1.0", input)
        .output_schema("urn:t:out", "1.0", schema_of("urn:t:out"))
        .handler(|_a: Value, _c: SkillContext| async move { Ok(SkillOutput::new(json!({}))) })
        .build();
    let agent = Agent::builder("refs", "refs", "1.0")
        .skill(skill)
        .build()
        .unwrap();
    let s = Server::start(agent, ServerConfig::default()).await;
    let (status, _, body) = page(&s, "/console/skills/refs").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<code>condition.operator</code>"), "{body}");
    assert!(body.contains("<code>a.b.c.d.e.f.g</code>"), "{body}");
    s.shutdown().await;
}

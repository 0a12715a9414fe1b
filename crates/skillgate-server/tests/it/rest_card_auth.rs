//! The HTTP+JSON binding, the Agent Card and bearer authentication, over real HTTP.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_runtime::store_api::{MemoryStore, StoreLimits, TaskStore};
use skillgate_runtime::*;
use std::sync::Arc;

fn rest_reason(v: &Value) -> &str {
    let d = v["error"]["details"]
        .as_array()
        .unwrap_or_else(|| panic!("no details: {v}"));
    d.iter()
        .find(|d| d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo")
        .unwrap()["reason"]
        .as_str()
        .unwrap()
}

#[tokio::test]
async fn rest_send_get_list_cancel() {
    let s = start_server().await;
    let card = s.card().await;
    let (status, r) = s
        .rest(
            "POST",
            "/message:send",
            Some(msg(request(
                &card,
                "evaluate_resource_condition",
                observe_args(),
            ))),
        )
        .await;
    assert_eq!(status, 200);
    let task = &r["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{r}");
    let id = task["id"].as_str().unwrap();
    let (status, t) = s
        .rest("GET", &format!("/tasks/{id}?historyLength=0"), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(t["id"], id);
    assert!(t.get("history").is_none());
    let (status, l) = s
        .rest(
            "GET",
            "/tasks?status=TASK_STATE_COMPLETED&pageSize=10&includeArtifacts=true",
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(l["totalSize"], 1);
    assert!(l["tasks"][0].get("artifacts").is_some());
    assert_eq!(l["nextPageToken"], "");
    let (status, e) = s.rest("GET", "/tasks?pageSize=abc", None).await;
    assert_eq!((status, rest_reason(&e)), (400, "INVALID_PARAMS"));
    let (status, e) = s
        .rest("POST", &format!("/tasks/{id}:cancel"), Some(json!({})))
        .await;
    assert_eq!(status, 400);
    assert_eq!(rest_reason(&e), "TASK_NOT_CANCELABLE");
    // Cancel a cancelable running task.
    let mut p = msg(request(&card, "wait", json!({})));
    p["configuration"] = json!({"return_immediately": true});
    let (_, r) = s.rest("POST", "/message:send", Some(p)).await;
    let id = r["task"]["id"].as_str().unwrap();
    let (status, c) = s.rest("POST", &format!("/tasks/{id}:cancel"), None).await;
    assert_eq!(status, 200, "{c}");
    assert_eq!(c["status"]["state"], "TASK_STATE_CANCELED");
    s.shutdown().await;
}

#[tokio::test]
async fn rest_errors_use_google_rpc_status() {
    let s = start_server().await;
    let (status, e) = s.rest("GET", "/tasks/nope", None).await;
    assert_eq!(status, 404);
    assert_eq!(e["error"]["code"], 404);
    assert_eq!(e["error"]["status"], "NOT_FOUND");
    assert_eq!(rest_reason(&e), "TASK_NOT_FOUND");
    let (status, e) = s
        .rest(
            "POST",
            "/tasks/t1/pushNotificationConfigs",
            Some(json!({"url": "http://x"})),
        )
        .await;
    assert_eq!(
        (status, rest_reason(&e)),
        (400, "PUSH_NOTIFICATION_NOT_SUPPORTED")
    );
    let (status, e) = s
        .rest("GET", "/tasks/t1/pushNotificationConfigs/c1", None)
        .await;
    assert_eq!(
        (status, rest_reason(&e)),
        (400, "PUSH_NOTIFICATION_NOT_SUPPORTED")
    );
    let (status, e) = s.rest("GET", "/extendedAgentCard", None).await;
    assert_eq!((status, rest_reason(&e)), (400, "UNSUPPORTED_OPERATION"));
    let (status, e) = s
        .rest(
            "POST",
            "/message:send",
            Some(json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": []}})),
        )
        .await;
    assert_eq!((status, rest_reason(&e)), (400, "INVALID_PARAMS"));
    let (status, _, text) = s
        .post_raw(
            "/message:send",
            "{bad",
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert_eq!(
        (status, rest_reason(&serde_json::from_str(&text).unwrap())),
        (400, "PARSE_ERROR")
    );
    let (status, _, text) = s
        .post_raw(
            "/message:send",
            "{}",
            &[("A2A-Version", "1.0"), ("Content-Type", "text/plain")],
        )
        .await;
    assert_eq!(
        (status, rest_reason(&serde_json::from_str(&text).unwrap())),
        (400, "CONTENT_TYPE_NOT_SUPPORTED")
    );
    let (status, h, text) = s.get_raw("/tasks/nope", &[]).await;
    assert_eq!(
        (status, rest_reason(&serde_json::from_str(&text).unwrap())),
        (400, "VERSION_NOT_SUPPORTED"),
        "REST checks the version too"
    );
    assert_eq!(h["content-type"], "application/json");
    let (status, _, text) = s.get_raw("/tasks/nope", &[("A2A-Version", "99.0")]).await;
    assert_eq!(
        (status, rest_reason(&serde_json::from_str(&text).unwrap())),
        (400, "VERSION_NOT_SUPPORTED")
    );
    let (status, _, _) = s.get_raw("/tasks/nope?A2A-Version=1.0", &[]).await;
    assert_eq!(status, 404);
    let (status, e) = s.rest("GET", "/no/such/path", None).await;
    assert_eq!((status, rest_reason(&e)), (404, "METHOD_NOT_FOUND"));
    s.shutdown().await;
}

#[tokio::test]
async fn rest_streaming_and_subscribe() {
    let s = start_server().await;
    let card = s.card().await;
    let body = msg(request(
        &card,
        "evaluate_resource_condition",
        observe_args(),
    ))
    .to_string();
    let (status, h, text) = s
        .post_raw(
            "/message:stream",
            body,
            &[
                ("A2A-Version", "1.0"),
                ("Content-Type", "application/json"),
                ("A2A-Extensions", EXT),
            ],
        )
        .await;
    assert_eq!(status, 200);
    assert!(h["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    assert_eq!(h["a2a-extensions"], EXT);
    let evs = sse_events(&text);
    assert!(evs[0].get("task").is_some(), "{text}");
    assert!(evs.iter().all(|e| e.get("jsonrpc").is_none()));
    assert_eq!(
        evs.iter()
            .filter(|e| e.get("artifactUpdate").is_some())
            .count(),
        3
    );
    assert_eq!(
        evs.last().unwrap()["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    for method in ["GET", "POST"] {
        let mut p = msg(request(&card, "wait", json!({"ms": 600})));
        p["configuration"] = json!({"returnImmediately": true});
        let (_, r) = s.rest("POST", "/message:send", Some(p)).await;
        let id = r["task"]["id"].as_str().unwrap().to_string();
        let url = format!("{}/tasks/{id}:subscribe", s.base);
        let rb = if method == "GET" {
            s.client.get(url)
        } else {
            s.client.post(url)
        };
        let text = rb
            .header("A2A-Version", "1.0")
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let evs = sse_events(&text);
        assert_eq!(evs[0]["task"]["id"], id.as_str(), "{method}: {text}");
        assert_eq!(
            evs.last().unwrap()["statusUpdate"]["status"]["state"],
            "TASK_STATE_COMPLETED"
        );
        let (status, e) = s
            .rest("POST", &format!("/tasks/{id}:subscribe"), None)
            .await;
        assert_eq!((status, rest_reason(&e)), (400, "UNSUPPORTED_OPERATION"));
    }
    s.shutdown().await;
}

/// Every REQUIRED field of an A2A 1.0 Agent Card (FACTS.md, from the proto) present and non-empty.
fn assert_valid_card(card: &Value) {
    let nonempty_str = |v: &Value, what: &str| {
        assert!(
            v.as_str().is_some_and(|s| !s.is_empty()),
            "{what} must be a non-empty string: {v}"
        );
    };
    let nonempty_arr = |v: &Value, what: &str| -> Vec<Value> {
        let a = v
            .as_array()
            .unwrap_or_else(|| panic!("{what} must be an array"));
        assert!(!a.is_empty(), "{what} must have at least one element");
        a.clone()
    };
    nonempty_str(&card["name"], "name");
    nonempty_str(&card["description"], "description");
    nonempty_str(&card["version"], "version");
    assert!(card["capabilities"].is_object(), "capabilities");
    for m in nonempty_arr(&card["defaultInputModes"], "defaultInputModes") {
        nonempty_str(&m, "defaultInputModes[]");
    }
    for m in nonempty_arr(&card["defaultOutputModes"], "defaultOutputModes") {
        nonempty_str(&m, "defaultOutputModes[]");
    }
    for i in nonempty_arr(&card["supportedInterfaces"], "supportedInterfaces") {
        nonempty_str(&i["url"], "url");
        assert!(
            i["url"].as_str().unwrap().starts_with("http://"),
            "absolute URL"
        );
        nonempty_str(&i["protocolBinding"], "protocolBinding");
        // 1.0 interfaces, and JSON-RPC and HTTP+JSON served to A2A 0.3 clients too.
        let v = (&i["protocolVersion"], &i["protocolBinding"]);
        assert!(
            v.0 == "1.0" || (v.0 == "0.3" && (v.1 == "JSONRPC" || v.1 == "HTTP+JSON")),
            "{i}"
        );
    }
    for s in nonempty_arr(&card["skills"], "skills") {
        nonempty_str(&s["id"], "skill id");
        nonempty_str(&s["name"], "skill name");
        nonempty_str(&s["description"], "skill description");
        for t in nonempty_arr(&s["tags"], "skill tags") {
            nonempty_str(&t, "tag");
        }
    }
    if let Some(p) = card.get("provider") {
        nonempty_str(&p["url"], "provider.url");
        nonempty_str(&p["organization"], "provider.organization");
    }
    for (_, scheme) in card
        .get("securitySchemes")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        assert_eq!(scheme.as_object().unwrap().len(), 1, "one oneof member");
        if let Some(h) = scheme.get("httpAuthSecurityScheme") {
            nonempty_str(&h["scheme"], "httpAuthSecurityScheme.scheme");
        }
    }
    fn no_snake(v: &Value, path: &str) {
        if let Some(o) = v.as_object() {
            for (k, v) in o {
                if path.ends_with("/params") {
                    continue; // extension params are the profile's own snake_case names
                }
                assert!(!k.contains('_'), "snake_case key {k} at {path}");
                no_snake(v, &format!("{path}/{k}"));
            }
        } else if let Some(a) = v.as_array() {
            for x in a {
                no_snake(x, path);
            }
        }
    }
    no_snake(card, "");
    assert!(serde_json::from_value::<a2a::AgentCard>(card.clone()).is_ok());
}

#[tokio::test]
async fn agent_card_is_valid_and_cacheable() {
    let s = start_server().await;
    let (status, h, text) = s.get_raw("/.well-known/agent-card.json", &[]).await;
    assert_eq!(status, 200, "the card needs no A2A-Version");
    assert_eq!(h["content-type"], "application/json");
    assert!(h["cache-control"].to_str().unwrap().contains("max-age=300"));
    let etag = h["etag"].to_str().unwrap().to_string();
    assert!(h["last-modified"].to_str().unwrap().ends_with(" GMT"));
    assert!(etag.starts_with('"') && etag.len() > 10);
    let card: Value = serde_json::from_str(&text).unwrap();
    assert_valid_card(&card);
    let bindings: Vec<&str> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["protocolBinding"].as_str().unwrap())
        .collect();
    // The 1.0 interfaces, then JSON-RPC and HTTP+JSON again for A2A 0.3 (this header-less
    // answer is the 0.3 rendering, which keeps every 1.0 member).
    assert_eq!(bindings, ["JSONRPC", "HTTP+JSON", "JSONRPC", "HTTP+JSON"]);
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        format!("{}/", s.base)
    );
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["pushNotifications"], false);
    let ids: Vec<&str> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"describe_skill"));
    let ext = &card["capabilities"]["extensions"][0];
    assert_eq!(ext["uri"], EXT);
    // The header-less answer is the 0.3 rendering, which writes `required: false` (a 1.0
    // card omits the default; a2a-sdk 0.3 reads it as set, design.md D303).
    assert_eq!(ext["required"], false, "{ext}");
    assert_eq!(ext["params"]["interface_version"], "1.0");
    let adv = ext["params"]["skills"].as_array().unwrap();
    assert_eq!(
        adv.len(),
        5,
        "one entry per domain skill, describe_skill excluded"
    );
    for a in adv {
        let id = a["skill_id"].as_str().unwrap();
        assert!(ids.contains(&id));
        let r = s
            .rpc(
                "SendMessage",
                msg(json!({"skill": "describe_skill", "arguments": {"skill_id": id}})),
            )
            .await;
        assert_eq!(
            task_of(&r)["artifacts"][0]["parts"][0]["data"]["interface_digest"],
            a["interface_digest"]
        );
        assert_eq!(
            a["skill_version"].as_str().unwrap(),
            if id == "misbehave" { "2.1" } else { "1.0" }
        );
    }
    for m in ["defaultInputModes", "defaultOutputModes"] {
        assert_eq!(card[m], json!(["application/json"]));
    }
    assert!(card.get("securitySchemes").is_none());
    // Conditional GET.
    let (status, h, body) = s
        .get_raw("/.well-known/agent-card.json", &[("If-None-Match", &etag)])
        .await;
    assert_eq!(status, 304);
    assert!(body.is_empty());
    assert_eq!(h["etag"].to_str().unwrap(), etag);
    let (status, _, _) = s
        .get_raw(
            "/.well-known/agent-card.json",
            &[("If-None-Match", "\"other\"")],
        )
        .await;
    assert_eq!(status, 200);
    s.shutdown().await;
}

fn token_config(text: &str) -> ServerConfig {
    ServerConfig {
        tokens: Some(TokenTable::parse(text).unwrap()),
        ..Default::default()
    }
}

#[tokio::test]
async fn bearer_auth() {
    let s = Server::start(
        agent(),
        token_config("# operators\nall-secret-0123456789\nlimited-secret-0123456789 slow\n"),
    )
    .await;
    let card = s.card().await;
    assert_valid_card(&card);
    assert_eq!(
        card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"],
        "Bearer"
    );
    assert_eq!(
        card["securityRequirements"],
        json!([{"schemes": {"bearer": {"list": []}}}])
    );
    let describe = msg(json!({"skill": "describe_skill", "arguments": {"skill_id": "slow"}}));
    // No credentials, wrong credentials, wrong scheme: 401 with a challenge, on both bindings.
    for auth in [
        None,
        Some("Bearer wrong"),
        Some("Basic YWxsLXNlY3JldC0wMTIzNDU2Nzg5"),
    ] {
        let mut h = vec![];
        if let Some(a) = auth {
            h.push(("Authorization", a));
        }
        let (status, headers, _) = s.rpc_with("SendMessage", describe.clone(), &h).await;
        assert_eq!(status, 401, "{auth:?}");
        assert!(headers["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Bearer"));
        let mut rh = vec![("A2A-Version", "1.0")];
        rh.extend(h.iter().cloned());
        let (status, headers, _) = s.get_raw("/tasks", &rh).await;
        assert_eq!(status, 401);
        assert!(headers.contains_key("www-authenticate"));
    }
    let all = [("Authorization", "Bearer all-secret-0123456789")];
    let limited = [("Authorization", "bearer limited-secret-0123456789")];
    let (status, _, r) = s
        .rpc_with(
            "SendMessage",
            msg(request(
                &card,
                "evaluate_resource_condition",
                observe_args(),
            )),
            &all,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        task_of(&r)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{r}"
    );
    let id = task_of(&r)["id"].as_str().unwrap().to_string();
    // A valid token not allowed for the skill: authorization_failed, after input validation.
    let (_, _, r) = s
        .rpc_with(
            "SendMessage",
            msg(request(
                &card,
                "evaluate_resource_condition",
                observe_args(),
            )),
            &limited,
        )
        .await;
    let t = task_of(&r);
    assert_eq!(t["status"]["state"], "TASK_STATE_REJECTED");
    assert_eq!(error_object(t)["code"], "authorization_failed");
    let (_, _, r) = s
        .rpc_with(
            "SendMessage",
            msg(request(&card, "evaluate_resource_condition", json!({}))),
            &limited,
        )
        .await;
    assert_eq!(
        error_object(task_of(&r))["code"],
        "input_invalid",
        "input is checked before authorization"
    );
    let (_, _, r) = s
        .rpc_with(
            "SendMessage",
            msg(request(&card, "slow", json!({"ms": 1}))),
            &limited,
        )
        .await;
    assert_eq!(task_of(&r)["status"]["state"], "TASK_STATE_COMPLETED");
    // Valid input never grants execute authority.
    let (_, _, r) = s
        .rpc_with(
            "SendMessage",
            msg(request(&card, "restart_interface", json!({}))),
            &all,
        )
        .await;
    assert_eq!(error_object(task_of(&r))["code"], "authorization_failed");
    // Tasks are visible only to the caller that created them.
    let (_, _, g) = s.rpc_with("GetTask", json!({"id": id}), &limited).await;
    assert_eq!(g["error"]["code"], -32001);
    let (_, _, g) = s.rpc_with("GetTask", json!({"id": id}), &all).await;
    assert_eq!(g["result"]["id"], id.as_str());
    let (_, _, l) = s.rpc_with("ListTasks", json!({}), &limited).await;
    assert!(l["result"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["id"] != id.as_str()));
    s.shutdown().await;
}

#[tokio::test]
async fn startup_refuses_invalid_interfaces() {
    let bad = Skill::builder("broken", "1.0")
        .input_schema("not a uri", "1.0", json!({"type": "object"}))
        .output_schema(
            "urn:x:out",
            "1.0",
            json!({"type": "object", "$ref": "https://remote.example/s.json"}),
        )
        .handler(|_a: Value, _c: SkillContext| async move { Ok(SkillOutput::new(json!({}))) })
        .build();
    let err = Agent::builder("a", "d", "1.0")
        .skill(bad)
        .build()
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("broken"), "{text}");
    assert!(text.contains("interface_invalid"), "{text}");
    let bad_version = Skill::builder("v", "1.0.0")
        .input_schema("urn:x:in", "1.0", json!({"type": "object"}))
        .output_schema("urn:x:out", "1.0", json!({"type": "object"}))
        .handler(|_a: Value, _c: SkillContext| async move { Ok(SkillOutput::new(json!({}))) })
        .build();
    assert!(matches!(
        Agent::builder("a", "d", "1.0").skill(bad_version).build(),
        Err(StartupError::InvalidInterface { .. })
    ));
    let no_handler = Skill::builder("h", "1.0")
        .input_schema("urn:x:in", "1.0", json!({"type": "object"}))
        .output_schema("urn:x:out", "1.0", json!({"type": "object"}))
        .build();
    assert!(matches!(
        Agent::builder("a", "d", "1.0").skill(no_handler).build(),
        Err(StartupError::MissingHandler { .. })
    ));
    let reserved = Skill::builder("describe_skill", "1.0")
        .handler(|_a: Value, _c: SkillContext| async move { Ok(SkillOutput::new(json!({}))) })
        .build();
    assert!(matches!(
        Agent::builder("a", "d", "1.0").skill(reserved).build(),
        Err(StartupError::ReservedSkillId { .. })
    ));
    let dup = Agent::builder("a", "d", "1.0")
        .skill(slow_skill())
        .skill(slow_skill())
        .build();
    assert!(matches!(dup, Err(StartupError::DuplicateSkill { .. })));
    assert!(Agent::builder("", "d", "1.0").build().is_err());
}

#[tokio::test]
async fn task_store_is_bounded_by_bytes_and_evicts_the_oldest_finished() {
    let describe = || msg(json!({"skill": "describe_skill", "arguments": {"skill_id": "slow"}}));
    // The size of one finished describe task, measured on a store of our own.
    let probe = Arc::new(MemoryStore::new(StoreLimits::memory()));
    let p = Server::start(
        agent(),
        ServerConfig {
            store: Some(probe.clone()),
            ..Default::default()
        },
    )
    .await;
    p.rpc("SendMessage", describe()).await;
    let one = probe.used_bytes().await.unwrap();
    assert!(one > 1000, "a describe task holds its document: {one}");
    p.shutdown().await;
    let cfg = ServerConfig {
        task_store: StoreLimits {
            max_bytes: 3 * one + one / 2,
            ..StoreLimits::memory()
        },
        ..Default::default()
    };
    let s = Server::start(agent(), cfg).await;
    let mut ids = vec![];
    for _ in 0..5 {
        let r = s.rpc("SendMessage", describe()).await;
        ids.push(task_of(&r)["id"].as_str().unwrap().to_string());
    }
    let l = s.rpc("ListTasks", json!({})).await;
    assert_eq!(l["result"]["totalSize"], 3);
    assert_eq!(
        s.rpc("GetTask", json!({"id": ids[0]})).await["error"]["code"],
        -32001,
        "oldest evicted"
    );
    assert!(s
        .rpc("GetTask", json!({"id": ids[4]}))
        .await
        .get("result")
        .is_some());
    s.shutdown().await;
}

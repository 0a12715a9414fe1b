//! Every kind of response this server emits validates against the JSON Schema bundle the A2A
//! TCK generates from the v1.0.0 proto (shared/spec/a2a/v1.0.0/tck-generated/a2a.json): names,
//! types and enum values exactly as ProtoJSON, no stray members (`additionalProperties: false`).

use crate::common::*;
use serde_json::{json, Map, Value};

fn normalize(name: &str) -> String {
    name.replace(' ', "")
}

fn rewrite_refs(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref") {
                let base = r.trim_end_matches(".jsonschema.json");
                let short = base.rsplit('.').next().unwrap_or(base);
                *r = format!("#/definitions/{}", normalize(short));
            }
            for (_, x) in m.iter_mut() {
                rewrite_refs(x);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(rewrite_refs),
        _ => {}
    }
}

struct Bundle {
    defs: Map<String, Value>,
}

impl Bundle {
    fn load() -> Bundle {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/a2a-1.0.0-tck-generated.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("the TCK schema bundle is needed at {}: {e}", path.display())
        });
        let v: Value = serde_json::from_str(&text).unwrap();
        let mut defs = Map::new();
        for (k, mut d) in v["definitions"].as_object().unwrap().clone() {
            rewrite_refs(&mut d);
            if let Some(o) = d.as_object_mut() {
                o.remove("$schema");
            }
            defs.insert(normalize(&k), d);
        }
        Bundle { defs }
    }

    fn check(&self, def: &str, instance: &Value) {
        assert!(self.defs.contains_key(def), "no definition {def}");
        let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": format!("#/definitions/{def}"), "definitions": self.defs});
        let v = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = v
            .iter_errors(instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{def} does not validate: {errors:?}\n{instance}"
        );
    }
}

#[tokio::test]
async fn responses_validate_against_the_tck_schema() {
    let b = Bundle::load();
    // The bundle really constrains names: a snake_case-free but unknown member fails.
    let bad_card = json!({"name": "x", "unknownMember": 1});
    let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/definitions/AgentCard", "definitions": b.defs});
    assert!(!jsonschema::validator_for(&schema)
        .unwrap()
        .is_valid(&bad_card));

    let s = Server::start(
        agent(),
        skillgate_runtime::ServerConfig {
            tokens: Some(skillgate_runtime::TokenTable::parse("tck-token-0123456789").unwrap()),
            ..Default::default()
        },
    )
    .await;
    let auth = [("Authorization", "Bearer tck-token-0123456789")];
    let card = s.card().await;
    b.check("AgentCard", &card);

    let mut tasks = Vec::new();
    for data in [
        json!({"skill": "describe_skill", "arguments": {"skill_id": "evaluate_resource_condition"}}),
        request(&card, "evaluate_resource_condition", observe_args()),
        request(
            &card,
            "evaluate_resource_condition",
            json!({"resource_id": 5}),
        ),
        request(&card, "misbehave", json!({"mode": "output"})),
    ] {
        let (_, _, r) = s.rpc_with("SendMessage", msg(data), &auth).await;
        b.check("SendMessageResponse", &r["result"]);
        tasks.push(r["result"]["task"]["id"].as_str().unwrap().to_string());
    }
    let (_, _, g) = s.rpc_with("GetTask", json!({"id": tasks[1]}), &auth).await;
    b.check("Task", &g["result"]);
    let (_, _, l) = s
        .rpc_with("ListTasks", json!({"includeArtifacts": true}), &auth)
        .await;
    b.check("ListTasksResponse", &l["result"]);

    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
        "params": msg(request(&card, "evaluate_resource_condition", observe_args()))});
    let (_, _, text) = s
        .post_raw(
            "/",
            body.to_string(),
            &[
                ("A2A-Version", "1.0"),
                ("Content-Type", "application/json"),
                auth[0],
            ],
        )
        .await;
    let evs = sse_events(&text);
    assert!(evs.len() >= 5);
    for e in &evs {
        b.check("StreamResponse", &e["result"]);
    }
    let mut p = msg(request(&card, "wait", json!({})));
    p["configuration"] = json!({"returnImmediately": true});
    let (_, _, r) = s.rpc_with("SendMessage", p, &auth).await;
    let id = r["result"]["task"]["id"].as_str().unwrap();
    let (_, _, c) = s.rpc_with("CancelTask", json!({"id": id}), &auth).await;
    b.check("Task", &c["result"]);
    s.shutdown().await;
}

#[tokio::test]
async fn push_config_answers_validate_against_the_tck_schema() {
    let b = Bundle::load();
    let s = Server::start(
        agent(),
        skillgate_runtime::ServerConfig {
            push: Some(skillgate_runtime::PushPolicy {
                guard: skillgate_runtime::push::guard::Guard {
                    allow_http_loopback: true,
                    allow: Vec::new(),
                },
                ..Default::default()
            }),
            ..Default::default()
        },
    )
    .await;
    let card = s.card().await;
    b.check("AgentCard", &card);
    let r = s
        .rpc(
            "SendMessage",
            msg(request(
                &card,
                "evaluate_resource_condition",
                observe_args(),
            )),
        )
        .await;
    let id = r["result"]["task"]["id"].as_str().unwrap();
    let c = s
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "url": "http://127.0.0.1:9/hook", "token": "t",
                   "authentication": {"scheme": "Bearer", "credentials": "c"}}),
        )
        .await;
    b.check("TaskPushNotificationConfig", &c["result"]);
    let cid = c["result"]["id"].as_str().unwrap();
    let g = s
        .rpc(
            "GetTaskPushNotificationConfig",
            json!({"taskId": id, "id": cid}),
        )
        .await;
    b.check("TaskPushNotificationConfig", &g["result"]);
    let l = s
        .rpc(
            "ListTaskPushNotificationConfigs",
            json!({"taskId": id, "pageSize": 1}),
        )
        .await;
    b.check("ListTaskPushNotificationConfigsResponse", &l["result"]);
    s.shutdown().await;
}

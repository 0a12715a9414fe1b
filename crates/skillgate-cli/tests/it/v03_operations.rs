//! Every operation A2A 0.3 has, spoken by our client (`skillgate_transport::Endpoint`) over
//! each 0.3 binding it speaks, against our real server narrowed to 0.3 (HTTP and gRPC
//! listeners on ephemeral loopback ports, started in-process by `skillgate_server::Launch`):
//! a governed call, then push configs created, read, listed and deleted, then the extended
//! card of an authenticated caller. Answers come back in 1.0 shapes whatever the binding;
//! ListTasks (no 0.3 form) stays a typed Unsupported error.

use serde_json::{json, Value};
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{
    ListTaskPushNotificationConfigsRequest, ListTasksRequest, TaskPushNotificationConfig,
    TaskPushNotificationConfigRef,
};
use skillgate_runtime::checks::VersionSet;
use skillgate_runtime::push::guard::Guard;
use skillgate_runtime::{
    Agent, PushPolicy, ServerConfig, Skill, SkillContext, SkillOutput, TokenTable,
};
use skillgate_transport::{
    Binding, Endpoint, Interface, Secret, Sent, Transport, TransportConfig, TransportError,
};
use url::Url;

const TOKEN: &str = "operator-secret-0123456789";

fn skill(id: &str, extended: bool) -> Skill {
    let b = Skill::builder(id, "1.0")
        .input_schema("urn:test:ops:input", "1.0", json!({"type": "object"}))
        .output_schema("urn:test:ops:output", "1.0", json!({"type": "object"}));
    let b = if extended { b.extended_only() } else { b };
    b.handler(
        |_a: Value, _c: SkillContext| async move { Ok(SkillOutput::new(json!({"done": true}))) },
    )
    .build()
}

fn agent() -> Agent {
    Agent::builder("ops-agent", "Every 0.3 operation", "0.1.0")
        .skill(skill("plain_op", false))
        .skill(skill("secret_op", true))
        .build()
        .unwrap()
}

/// The server, 0.3 only, with push on (loopback webhooks) and bearer tokens; returns the
/// HTTP base URL, the gRPC address and the stop signal.
async fn start() -> (String, String, tokio::sync::watch::Sender<bool>) {
    let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let grpc = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let tokens = TokenTable::parse(&format!("{TOKEN}\n")).unwrap();
    let config = ServerConfig {
        tokens: Some(tokens.clone()),
        a2a_versions: VersionSet::only(WireVersion::V0_3),
        push: Some(PushPolicy {
            guard: Guard {
                allow_http_loopback: true,
                allow: Vec::new(),
            },
            ..Default::default()
        }),
        ..Default::default()
    };
    let grpc_config = skillgate_grpc::GrpcConfig {
        tokens: Some(tokens),
        ..Default::default()
    };
    let launch = skillgate_server::Launch::new(agent(), http, config)
        .unwrap()
        .with_grpc_config(grpc, grpc_config)
        .unwrap();
    let base = launch.base_url().to_owned();
    let grpc_addr = launch.grpc_url().unwrap().to_owned();
    let (stop, mut rx) = tokio::sync::watch::channel(false);
    tokio::spawn(launch.serve(
        async move {
            let _ = rx.wait_for(|s| *s).await;
        },
        |_| {},
    ));
    (base, grpc_addr, stop)
}

fn endpoint(url: &str, binding: Binding) -> Endpoint {
    let url = Url::parse(url).unwrap();
    let t = Transport::new(TransportConfig {
        token: Some(Secret::new(TOKEN)),
        credential_origins: vec![url.origin()],
        ..TransportConfig::default()
    })
    .unwrap();
    Endpoint::new(
        t,
        Interface {
            url,
            binding,
            tenant: String::new(),
            version: WireVersion::V0_3,
        },
    )
}

/// A reply's 1.0 answer: JSON-RPC's `result`, the body on the other bindings; anything else
/// fails the test with what came back.
fn answer(binding: Binding, sent: Result<Sent, TransportError>) -> Value {
    let sent = sent.unwrap_or_else(|e| panic!("{binding:?}: {e}"));
    let v: Value = serde_json::from_slice(&sent.reply.bytes).unwrap();
    assert!(sent.reply.status.is_success(), "{binding:?}: {v}");
    match binding {
        Binding::JsonRpc => v
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{binding:?}: {v}")),
        _ => v,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_0_3_operation_works_over_each_0_3_binding() {
    let (base, grpc_addr, stop) = start().await;
    for (url, binding) in [
        (format!("{base}/"), Binding::JsonRpc),
        (base.clone(), Binding::HttpJson),
        (format!("http://{grpc_addr}"), Binding::Grpc),
    ] {
        let e = endpoint(&url, binding);
        // The authenticated caller's extended card, read as a 1.0 card with 0.3 interfaces.
        let card = answer(binding, e.get_extended_card().await);
        let skills: Vec<&str> = card["skills"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["id"].as_str())
            .collect();
        assert!(skills.contains(&"secret_op"), "{binding:?}: {card}");
        assert!(
            card["supportedInterfaces"]
                .as_array()
                .unwrap()
                .iter()
                .all(|i| i["protocolVersion"] == "0.3"),
            "{binding:?}: {card}"
        );

        // A governed call leaves a task to hang push configs on.
        let data = skillgate_testkit::requests::skill_request(&card, "secret_op", json!({}));
        let mut request = skillgate_testkit::requests::send_params(data);
        request["configuration"] = json!({"returnImmediately": false});
        let request = serde_json::from_value(request).unwrap();
        let task = answer(binding, e.send_message(&request, true).await);
        assert_eq!(
            task["task"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{binding:?}: {task}"
        );
        let task_id = task["task"]["id"].as_str().unwrap().to_owned();

        let config = TaskPushNotificationConfig {
            task_id: task_id.clone(),
            id: "hook-1".into(),
            url: "http://127.0.0.1:9/hook".into(),
            token: "hook-token".into(),
            ..Default::default()
        };
        let created = answer(binding, e.create_push_config(&config).await);
        assert_eq!(
            created["taskId"],
            task_id.as_str(),
            "{binding:?}: {created}"
        );
        assert_eq!(created["id"], "hook-1", "{binding:?}: {created}");
        assert_eq!(
            created["url"], "http://127.0.0.1:9/hook",
            "{binding:?}: {created}"
        );
        let r = TaskPushNotificationConfigRef {
            task_id: task_id.clone(),
            id: "hook-1".into(),
            ..Default::default()
        };
        let got = answer(binding, e.get_push_config(&r).await);
        assert_eq!(got["token"], "hook-token", "{binding:?}: {got}");
        let list = ListTaskPushNotificationConfigsRequest {
            task_id: task_id.clone(),
            ..Default::default()
        };
        let listed = answer(binding, e.list_push_configs(&list).await);
        assert_eq!(
            listed["configs"].as_array().map(Vec::len),
            Some(1),
            "{binding:?}: {listed}"
        );
        let deleted = answer(binding, e.delete_push_config(&r).await);
        assert_eq!(deleted, json!({}), "{binding:?}");
        let listed = answer(binding, e.list_push_configs(&list).await);
        assert!(
            listed["configs"].as_array().is_none_or(Vec::is_empty),
            "{binding:?}: {listed}"
        );

        // The one operation 0.3 has not.
        let refused = e.list_tasks(&ListTasksRequest::default()).await;
        assert!(
            matches!(refused, Err(TransportError::Unsupported { .. })),
            "{binding:?}: {refused:?}"
        );
    }
    let _ = stop.send(true);
}

//! End to end: the netops agent on the real host, served by the real runtime on 127.0.0.1:0,
//! driven over HTTP (JSON-RPC and HTTP+JSON) by a real client.

use std::time::Duration;

use serde_json::{json, Value};
use skillgate_core::document::{Expectations, ValidatedDocument};
use skillgate_core::wire::EXTENSION_URI;
use skillgate_core::Digest;
use skillgate_runtime::ServerConfig;
use skillgate_testkit::poll::eventually;

struct Server {
    base: String,
    client: reqwest::Client,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn start() -> Server {
    start_with(skillgate_netops::agent()).await
}

async fn start_with(builder: skillgate_runtime::AgentBuilder) -> Server {
    let agent = builder.build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(skillgate_server::serve(
        agent,
        listener,
        ServerConfig::default(),
        async move {
            let _ = rx.await;
        },
    ));
    let client = skillgate_testkit::server::http_client_builder()
        .build()
        .unwrap();
    Server {
        base,
        client,
        stop: Some(tx),
        task,
    }
}

impl Server {
    async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        self.task.await.unwrap().unwrap();
    }

    async fn card(&self) -> Value {
        let r = self
            .client
            .get(format!("{}/.well-known/agent-card.json", self.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.json().await.unwrap()
    }

    /// The URL the card gives for a binding (the client must not guess paths).
    fn interface_url(card: &Value, binding: &str) -> String {
        card["supportedInterfaces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["protocolBinding"] == binding)
            .unwrap_or_else(|| panic!("no {binding} interface in {card}"))["url"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    fn message(data: Value) -> Value {
        json!({
            "messageId": format!("m-{}", uuid_like()),
            "role": "ROLE_USER",
            "parts": [{"data": data, "mediaType": "application/json"}]
        })
    }

    /// JSON-RPC SendMessage; returns the Task.
    async fn rpc_send(&self, url: &str, data: Value) -> Value {
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": Self::message(data)}
        });
        let r = self
            .client
            .post(url)
            .header("A2A-Version", "1.0")
            .header("A2A-Extensions", EXTENSION_URI)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let echoed = r
            .headers()
            .get("A2A-Extensions")
            .map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(echoed.as_deref(), Some(EXTENSION_URI));
        let v: Value = r.json().await.unwrap();
        assert!(v.get("error").is_none(), "{v}");
        v["result"]["task"].clone()
    }

    /// HTTP+JSON `POST /message:send`; returns the Task.
    async fn rest_send(&self, url: &str, data: Value) -> Value {
        let r = self
            .client
            .post(format!("{}/message:send", url.trim_end_matches('/')))
            .header("A2A-Version", "1.0")
            .header("A2A-Extensions", EXTENSION_URI)
            .json(&json!({"message": Self::message(data)}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let v: Value = r.json().await.unwrap();
        v["task"].clone()
    }
}

fn uuid_like() -> u128 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    (u128::from(std::process::id()) << 64) | u128::from(N.fetch_add(1, Ordering::Relaxed))
}

fn artifact<'a>(task: &'a Value, name: &str) -> &'a Value {
    task["artifacts"]
        .as_array()
        .unwrap_or_else(|| panic!("no artifacts in {task}"))
        .iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("no artifact {name} in {task}"))
}

fn data(artifact: &Value) -> &Value {
    let parts = artifact["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 1);
    &parts[0]["data"]
}

/// The error object of a refused or failed task.
fn error_of(task: &Value) -> &Value {
    let parts = task["status"]["message"]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 1, "{task}");
    &parts[0]["data"]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn netops_over_http_on_loopback() {
    let s = start().await;
    let card = s.card().await;
    assert_eq!(card["name"], "skillgate netops agent");
    assert_eq!(card["version"], env!("CARGO_PKG_VERSION"));
    let ext = card["capabilities"]["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["uri"] == EXTENSION_URI)
        .unwrap()
        .clone();
    let advertised = ext["params"]["skills"].as_array().unwrap().clone();
    let ids: Vec<_> = advertised
        .iter()
        .map(|a| a["skill_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "evaluate_resource_condition",
            "collect_interface_counters",
            "assess_interface_health"
        ]
    );
    let rpc = Server::interface_url(&card, "JSONRPC");
    let rest = Server::interface_url(&card, "HTTP+JSON");

    // describe_skill, then the client's three-way digest check.
    let eval_digest = advertised[0]["interface_digest"]
        .as_str()
        .unwrap()
        .to_owned();
    let task = s
        .rpc_send(
            &rpc,
            json!({"skill": "describe_skill", "arguments": {"skill_id": "evaluate_resource_condition"}}),
        )
        .await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let described = data(artifact(&task, "describe_skill"));
    assert_eq!(described["interface_digest"], eval_digest.as_str());
    let doc = ValidatedDocument::from_value(
        &described["skill_interface"],
        &Expectations {
            skill_id: Some("evaluate_resource_condition".into()),
            skill_version: Some("1.0".into()),
            interface_digest: Some(Digest::parse(&eval_digest).unwrap()),
        },
    )
    .unwrap();

    // The Appendix B skill on lo, with loopback traffic during the window.
    let request = |arguments: Value| {
        json!({"skill": "evaluate_resource_condition", "skill_version": "1.0",
               "interface_digest": eval_digest, "arguments": arguments})
    };
    let args = json!({"resource_id": "lo", "window_ms": 500,
        "condition": {"metric": "rx_bytes_per_second", "operator": "gt", "threshold": 0, "unit": "bytes_per_second"}});
    // Card fetches over lo while the skill samples, so lo's counters must move.
    let (client, card_url) = (
        s.client.clone(),
        format!("{}/.well-known/agent-card.json", s.base),
    );
    let traffic = tokio::spawn(async move {
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let r = client.get(&card_url).send().await.unwrap();
            r.bytes().await.unwrap();
        }
    });
    let task = s.rpc_send(&rpc, request(args)).await;
    traffic.await.unwrap();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let out = data(artifact(&task, "evaluate_resource_condition"));
    doc.output_validator().validate(out).unwrap();
    assert_eq!(out["result"], "condition_met", "{out}");
    assert!(out["observed_value"].as_f64().unwrap() > 0.0, "{out}");
    assert_eq!(out["unit"], "bytes_per_second");
    let record_artifact = artifact(&task, "resource-observation");
    let record = data(record_artifact);
    doc.record_validator("resource-observation")
        .unwrap()
        .validate(record)
        .unwrap();
    assert_eq!(
        out["supporting_record_refs"],
        json!([record_artifact["artifactId"]])
    );
    assert_eq!(record["record_id"], record_artifact["artifactId"]);
    assert_eq!(record["resource_id"], "lo");
    assert_eq!(record["window_ms"], 500);

    // Valid input the skill will not accept: lo has no link speed.
    let args = json!({"resource_id": "lo",
        "condition": {"metric": "utilization", "operator": "gte", "threshold": 80, "unit": "percent"}});
    let task = s.rpc_send(&rpc, request(args)).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_REJECTED", "{task}");
    let e = error_of(&task);
    assert_eq!(e["code"], "constraint_rejected");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("link speed of lo is unknown"),
        "{e}"
    );

    // Appendix B's own resource id is schema-valid but not on this host.
    let args = json!({"resource_id": "network-resource-123",
        "condition": {"metric": "utilization", "operator": "gte", "threshold": 80, "unit": "percent"}});
    let task = s.rest_send(&rest, request(args)).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_REJECTED", "{task}");
    let e = error_of(&task);
    assert_eq!(e["code"], "constraint_rejected");
    let msg = e["message"].as_str().unwrap();
    assert!(
        msg.starts_with("no interface named network-resource-123 on this host; known: "),
        "{msg}"
    );

    // A unit that does not fit the metric is caught by the schema, with a detail.
    let args = json!({"resource_id": "lo",
        "condition": {"metric": "rx_errors", "operator": "gt", "threshold": 0, "unit": "percent"}});
    let task = s.rpc_send(&rpc, request(args)).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_REJECTED", "{task}");
    let e = error_of(&task);
    assert_eq!(e["code"], "input_invalid", "{e}");
    assert_eq!(e["details"][0]["instance_path"], "/condition/unit", "{e}");

    // collect -> assess over the wire: collect's output is assess's input, unchanged.
    let collect_digest = advertised[1]["interface_digest"].as_str().unwrap();
    let assess_digest = advertised[2]["interface_digest"].as_str().unwrap();
    let task = s
        .rest_send(
            &rest,
            json!({"skill": "collect_interface_counters", "skill_version": "1.0",
                   "interface_digest": collect_digest,
                   "arguments": {"interface": "lo", "window_ms": 100}}),
        )
        .await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let measurement = data(artifact(&task, "collect_interface_counters")).clone();
    assert_eq!(measurement["interface"], "lo");
    assert_eq!(measurement["speed_mbps"], Value::Null);
    let task = s
        .rpc_send(
            &rpc,
            json!({"skill": "assess_interface_health", "skill_version": "1.0",
                   "interface_digest": assess_digest, "arguments": measurement}),
        )
        .await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let health = data(artifact(&task, "assess_interface_health"));
    assert_eq!(health["interface"], "lo");
    assert_eq!(health["health"], "healthy", "{health}");

    // Python peers (protobuf) send every integer as a double: 100.0 is still an integer.
    let task = s
        .rpc_send(
            &rpc,
            json!({"skill": "collect_interface_counters", "skill_version": "1.0",
                   "interface_digest": collect_digest,
                   "arguments": {"interface": "lo", "window_ms": 100.0}}),
        )
        .await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(
        data(artifact(&task, "collect_interface_counters"))["window_ms"],
        100
    );

    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixture_backed_agent_reports_fixture_counters() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host-a");
    let source = std::sync::Arc::new(skillgate_netops::SysfsHost::with_root(root));
    let s = start_with(skillgate_netops::agent_with(source)).await;
    let card = s.card().await;
    let rpc = Server::interface_url(&card, "JSONRPC");
    // A version the agent does not serve is refused before any domain code runs.
    let task = s
        .rpc_send(
            &rpc,
            json!({"skill": "evaluate_resource_condition", "skill_version": "9.9",
                   "arguments": {"resource_id": "eth0",
                     "condition": {"metric": "rx_errors", "operator": "gt", "threshold": 5, "unit": "count"}}}),
        )
        .await;
    assert_eq!(error_of(&task)["code"], "interface_mismatch", "{task}");
    let digest =
        card["capabilities"]["extensions"][0]["params"]["skills"][0]["interface_digest"].clone();
    let task = s
        .rpc_send(
            &rpc,
            json!({"skill": "evaluate_resource_condition", "skill_version": "1.0",
                   "interface_digest": digest,
                   "arguments": {"resource_id": "eth0",
                     "condition": {"metric": "rx_errors", "operator": "gt", "threshold": 5, "unit": "count"}}}),
        )
        .await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let out = data(artifact(&task, "evaluate_resource_condition"));
    assert_eq!(out["observed_value"], 7);
    assert_eq!(out["result"], "condition_met");
    assert_eq!(
        data(artifact(&task, "resource-observation"))["window_ms"],
        0
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_stream_and_poll_modes_work() {
    let s = start().await;
    let card = s.card().await;
    let rest = Server::interface_url(&card, "HTTP+JSON");
    let rest = rest.trim_end_matches('/');
    let digest = card["capabilities"]["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["uri"] == EXTENSION_URI)
        .unwrap()["params"]["skills"][0]["interface_digest"]
        .clone();
    let request = json!({"skill": "evaluate_resource_condition", "skill_version": "1.0",
        "interface_digest": digest,
        "arguments": {"resource_id": "lo", "window_ms": 100,
            "condition": {"metric": "tx_bytes_per_second", "operator": "lt", "threshold": 1e12, "unit": "bytes_per_second"}}});

    // stream: the record arrives as an artifact update before the primary result, then the
    // terminal status.
    let r = s
        .client
        .post(format!("{rest}/message:stream"))
        .header("A2A-Version", "1.0")
        .json(&json!({"message": Server::message(request.clone())}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    let events: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| serde_json::from_str(d.trim()).unwrap())
        .collect();
    let artifacts: Vec<&str> = events
        .iter()
        .filter_map(|e| e["artifactUpdate"]["artifact"]["name"].as_str())
        .collect();
    assert_eq!(
        artifacts,
        ["resource-observation", "evaluate_resource_condition"],
        "{text}"
    );
    let last = events.last().unwrap();
    assert_eq!(
        last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{text}"
    );

    // poll: the task comes back before the 100 ms window is over, then GetTask sees it finish.
    let r = s
        .client
        .post(format!("{rest}/message:send"))
        .header("A2A-Version", "1.0")
        .json(&json!({"message": Server::message(request), "configuration": {"returnImmediately": true}}))
        .send()
        .await
        .unwrap();
    let task: Value = r.json().await.unwrap();
    let task = &task["task"];
    assert_ne!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let id = task["id"].as_str().unwrap();
    let t = eventually(Duration::from_secs(2), || async {
        let t: Value = s
            .client
            .get(format!("{rest}/tasks/{id}"))
            .header("A2A-Version", "1.0")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        (t["status"]["state"] == "TASK_STATE_COMPLETED").then_some(t)
    })
    .await;
    assert_eq!(
        data(artifact(&t, "evaluate_resource_condition"))["result"],
        "condition_met"
    );
    s.stop().await;
}

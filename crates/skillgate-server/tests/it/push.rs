//! Push notifications: the config methods on both bindings, delivery to a real webhook
//! receiver on 127.0.0.1 (in order, with the auth headers, retried, never redirected, never
//! stalling the task), and the SSRF guard's refusals (nothing sent).

use crate::common::*;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use serde_json::{json, Value};
use skillgate_runtime::push::guard::Guard;
use skillgate_runtime::{PushPolicy, ServerConfig, TokenTable};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the receiver answers its next request.
#[derive(Clone, Debug)]
enum Answer {
    Status(u16),
    /// 302 to this location.
    Redirect(String),
    /// Never answers.
    Hang,
}

/// One request the receiver saw.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) headers: HeaderMap,
    pub(crate) body: Value,
}

/// A webhook receiver on 127.0.0.1:0 recording every request; answers 200 unless told.
pub(crate) struct Receiver {
    pub(crate) url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    answers: Arc<Mutex<VecDeque<Answer>>>,
    default: Arc<Mutex<Answer>>,
}

impl Receiver {
    pub(crate) async fn start() -> Receiver {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let answers = Arc::new(Mutex::new(VecDeque::new()));
        let default = Arc::new(Mutex::new(Answer::Status(200)));
        let (s, a, d) = (seen.clone(), answers.clone(), default.clone());
        let app = axum::Router::new().fallback(move |headers: HeaderMap, body: Bytes| {
            let (s, a, d) = (s.clone(), a.clone(), d.clone());
            async move {
                let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
                s.lock().unwrap().push(Seen { headers, body });
                let answer = a
                    .lock()
                    .unwrap()
                    .pop_front()
                    .unwrap_or_else(|| d.lock().unwrap().clone());
                match answer {
                    Answer::Status(c) => StatusCode::from_u16(c).unwrap().into_response(),
                    Answer::Redirect(to) => (StatusCode::FOUND, [("location", to)]).into_response(),
                    Answer::Hang => {
                        // The scenario, not synchronisation: a webhook that never answers.
                        tokio::time::sleep(Duration::from_secs(3600)).await;
                        StatusCode::OK.into_response()
                    }
                }
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver {
            url,
            seen,
            answers,
            default,
        }
    }

    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    pub(crate) fn bodies(&self) -> Vec<Value> {
        self.seen().into_iter().map(|s| s.body).collect()
    }

    /// Waits until a final (terminal status) event arrived, returning every body.
    pub(crate) async fn until_final(&self) -> Vec<Value> {
        eventually(Duration::from_secs(10), || async {
            let b = self.bodies();
            b.iter().any(is_final).then_some(b)
        })
        .await
    }
}

fn is_final(ev: &Value) -> bool {
    ev["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
}

/// Push on, http allowed to loopback, short backoff and timeout.
fn push_config() -> ServerConfig {
    ServerConfig {
        push: Some(PushPolicy {
            guard: Guard {
                allow_http_loopback: true,
                allow: Vec::new(),
            },
            attempts: 3,
            backoff: Duration::from_millis(20),
            timeout: Duration::from_millis(500),
            ..Default::default()
        }),
        metrics: true,
        ..Default::default()
    }
}

pub(crate) async fn push_server() -> Server {
    Server::start(agent(), push_config()).await
}

/// A finished task's id (the observe skill completes at once).
async fn a_task(s: &Server) -> String {
    let card = s.card().await;
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
    task_of(&r)["id"].as_str().unwrap().to_owned()
}

/// Waits for a line in the server's metrics.
async fn metric_appears(s: &Server, line: &str) {
    eventually(Duration::from_secs(5), || async {
        let (_, _, m) = s.get_raw("/metrics", &[]).await;
        m.contains(line).then_some(())
    })
    .await;
}

fn rpc_code(r: &Value) -> i64 {
    r["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no error: {r}"))
}

#[tokio::test]
async fn without_push_every_method_and_send_config_answers_not_supported() {
    let s = start_server().await;
    assert_eq!(s.card().await["capabilities"]["pushNotifications"], false);
    let id = a_task(&s).await;
    for (m, p) in [
        (
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "url": "https://h.example/"}),
        ),
        (
            "GetTaskPushNotificationConfig",
            json!({"taskId": id, "id": "c"}),
        ),
        ("ListTaskPushNotificationConfigs", json!({"taskId": id})),
        (
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": id, "id": "c"}),
        ),
    ] {
        assert_eq!(rpc_code(&s.rpc(m, p).await), -32003, "{m}");
    }
    let card = s.card().await;
    let mut send = msg(request(
        &card,
        "evaluate_resource_condition",
        observe_args(),
    ));
    send["configuration"] = json!({"taskPushNotificationConfig": {"url": "https://h.example/"}});
    assert_eq!(rpc_code(&s.rpc("SendMessage", send).await), -32003);
    let (status, e) = s
        .rest("GET", &format!("/tasks/{id}/pushNotificationConfigs"), None)
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        e["error"]["details"][0]["reason"],
        "PUSH_NOTIFICATION_NOT_SUPPORTED"
    );
    let r = s
        .client
        .delete(format!("{}/tasks/{id}/pushNotificationConfigs/c", s.base))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
}

/// A push config creation whose body is no JSON: its status and the error reason.
async fn create_with_a_broken_body(s: &Server) -> (u16, Value) {
    let r = s
        .client
        .post(format!("{}/tasks/t1/pushNotificationConfigs", s.base))
        .header("A2A-Version", "1.0")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let e: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    (status, e["error"]["details"][0]["reason"].clone())
}

/// The push guard runs before the request is read: without push, a body or params that would
/// be refused as malformed still get PushNotificationNotSupported, on both bindings.
#[tokio::test]
async fn without_push_even_a_malformed_push_request_answers_not_supported() {
    let s = start_server().await;
    let params = json!(["not", "an", "object"]);
    let r = s.rpc("CreateTaskPushNotificationConfig", params).await;
    assert_eq!(rpc_code(&r), -32003, "{r}");
    assert_eq!(
        create_with_a_broken_body(&s).await,
        (400, json!("PUSH_NOTIFICATION_NOT_SUPPORTED"))
    );
    // With push on, the same body is a parse error: the guard let it through.
    let (_, reason) = create_with_a_broken_body(&push_server().await).await;
    assert_ne!(reason, "PUSH_NOTIFICATION_NOT_SUPPORTED");
}

#[tokio::test]
async fn configs_are_created_read_listed_and_deleted_on_jsonrpc() {
    let s = push_server().await;
    assert_eq!(s.card().await["capabilities"]["pushNotifications"], true);
    let id = a_task(&s).await;
    let rx = Receiver::start().await;
    let created = s
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "url": rx.url, "token": "tok",
                   "authentication": {"scheme": "Bearer", "credentials": "s3cret"}}),
        )
        .await;
    let c = &created["result"];
    let cid = c["id"].as_str().expect("the server made an id").to_owned();
    assert!(!cid.is_empty());
    assert_eq!(c["taskId"], id.as_str());
    assert_eq!(c["authentication"]["scheme"], "Bearer");
    let got = s
        .rpc(
            "GetTaskPushNotificationConfig",
            json!({"taskId": id, "id": cid}),
        )
        .await;
    assert_eq!(got["result"], *c);
    for n in 0..3 {
        let r = s
            .rpc(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": id, "id": format!("mine-{n}"), "url": rx.url}),
            )
            .await;
        assert_eq!(r["result"]["id"], format!("mine-{n}"));
    }
    let page = s
        .rpc(
            "ListTaskPushNotificationConfigs",
            json!({"taskId": id, "pageSize": 3}),
        )
        .await;
    let ids: Vec<&str> = page["result"]["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [cid.as_str(), "mine-0", "mine-1"]);
    let token = page["result"]["nextPageToken"].as_str().unwrap();
    let rest = s
        .rpc(
            "ListTaskPushNotificationConfigs",
            json!({"taskId": id, "pageSize": 3, "pageToken": token}),
        )
        .await;
    assert_eq!(rest["result"]["configs"][0]["id"], "mine-2");
    assert_eq!(rest["result"]["nextPageToken"], "");
    let del = s
        .rpc(
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": id, "id": cid}),
        )
        .await;
    assert_eq!(del["result"], json!({}));
    // Deleting is idempotent (A2A 1.0 section 3.1.10): a second delete has the same effect.
    let again = s
        .rpc(
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": id, "id": cid}),
        )
        .await;
    assert_eq!(again["result"], json!({}), "{again}");
    let gone = s
        .rpc(
            "GetTaskPushNotificationConfig",
            json!({"taskId": id, "id": cid}),
        )
        .await;
    assert_eq!(rpc_code(&gone), -32001);
    // Bad input: clear InvalidParams; unknown task: TaskNotFound; the bound per task.
    for (p, needle) in [
        (json!({"taskId": id}), "url"),
        (json!({"taskId": id, "url": ""}), "url is required"),
        (json!({"taskId": id, "url": "/relative"}), "absolute URL"),
        (
            json!({"taskId": id, "url": rx.url, "authentication": {"scheme": ""}}),
            "authentication.scheme is required",
        ),
        (json!({"url": rx.url}), "taskId is required"),
    ] {
        let r = s.rpc("CreateTaskPushNotificationConfig", p).await;
        assert_eq!(rpc_code(&r), -32602, "{r}");
        assert!(
            r["error"]["message"].as_str().unwrap().contains(needle),
            "{r}"
        );
    }
    let r = s
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": "nope", "url": rx.url}),
        )
        .await;
    assert_eq!(rpc_code(&r), -32001);
    for n in 3..16 {
        let r = s
            .rpc(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": id, "id": format!("mine-{n}"), "url": rx.url}),
            )
            .await;
        assert!(r.get("result").is_some(), "{n}: {r}");
    }
    let over = s
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "url": rx.url}),
        )
        .await;
    assert_eq!(rpc_code(&over), -32602);
    assert!(
        over["error"]["message"].as_str().unwrap().contains("16"),
        "{over}"
    );
    // The task was finished when the configs were made: nothing was sent. (Not
    // synchronisation: there is no event to await, so a bounded wait shows nothing comes.)
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(rx.seen().is_empty());
}

#[tokio::test]
async fn configs_are_created_read_listed_and_deleted_on_rest() {
    let s = push_server().await;
    let id = a_task(&s).await;
    let rx = Receiver::start().await;
    let base = format!("/tasks/{id}/pushNotificationConfigs");
    let (status, c) = s
        .rest("POST", &base, Some(json!({"id": "r1", "url": rx.url})))
        .await;
    assert_eq!(status, 200, "{c}");
    assert_eq!(
        (c["id"].as_str(), c["taskId"].as_str()),
        (Some("r1"), Some(id.as_str()))
    );
    let (status, got) = s.rest("GET", &format!("{base}/r1"), None).await;
    assert_eq!((status, got), (200, c.clone()));
    let (status, list) = s.rest("GET", &format!("{base}?pageSize=5"), None).await;
    assert_eq!(status, 200);
    assert_eq!(list, json!({"configs": [c], "nextPageToken": ""}));
    let (status, slash) = s.rest("GET", &format!("{base}/"), None).await;
    assert_eq!((status, slash), (200, list));
    let (status, e) = s
        .rest(
            "POST",
            &base,
            Some(json!({"taskId": "other", "url": rx.url})),
        )
        .await;
    assert_eq!(status, 400, "{e}");
    let r = s
        .client
        .delete(format!("{}{base}/r1", s.base))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(body, json!({}));
    let r = s
        .client
        .delete(format!("{}{base}/r1", s.base))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "a second delete has the same effect");
    let (status, e) = s.rest("GET", &format!("{base}/r1"), None).await;
    assert_eq!(status, 404, "{e}");
    let (status, _) = s
        .rest("GET", "/tasks/nope/pushNotificationConfigs", None)
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_caller_that_cannot_see_the_task_cannot_see_its_configs() {
    const ALICE: (&str, &str) = ("Authorization", "Bearer alice-secret-0123456789");
    const BOB: (&str, &str) = ("Authorization", "Bearer bob-secret-0123456789");
    let config = ServerConfig {
        tokens: Some(
            TokenTable::parse("alice-secret-0123456789\nbob-secret-0123456789\n").unwrap(),
        ),
        ..push_config()
    };
    let s = Server::start(agent(), config).await;
    let rx = Receiver::start().await;
    let card = s.card().await;
    let (_, _, r) = s
        .rpc_with(
            "SendMessage",
            msg(request(
                &card,
                "evaluate_resource_condition",
                observe_args(),
            )),
            &[ALICE],
        )
        .await;
    let id = task_of(&r)["id"].as_str().unwrap().to_owned();
    let (_, _, mine) = s
        .rpc_with(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "id": "a", "url": rx.url}),
            &[ALICE],
        )
        .await;
    assert_eq!(mine["result"]["id"], "a");
    for (m, p) in [
        (
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "url": rx.url}),
        ),
        (
            "GetTaskPushNotificationConfig",
            json!({"taskId": id, "id": "a"}),
        ),
        ("ListTaskPushNotificationConfigs", json!({"taskId": id})),
        (
            "DeleteTaskPushNotificationConfig",
            json!({"taskId": id, "id": "a"}),
        ),
    ] {
        let (_, _, r) = s.rpc_with(m, p, &[BOB]).await;
        assert_eq!(rpc_code(&r), -32001, "{m}: {r}");
    }
    let (_, _, still) = s
        .rpc_with(
            "ListTaskPushNotificationConfigs",
            json!({"taskId": id}),
            &[ALICE],
        )
        .await;
    assert_eq!(still["result"]["configs"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn every_event_is_posted_in_order_with_the_auth_headers() {
    let s = push_server().await;
    let rx = Receiver::start().await;
    let card = s.card().await;
    let mut params = msg(request(
        &card,
        "evaluate_resource_condition",
        observe_args(),
    ));
    params["configuration"] = json!({"taskPushNotificationConfig": {
        "url": rx.url, "token": "tok-123",
        "authentication": {"scheme": "Bearer", "credentials": "s3cret"}}});
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": params});
    let (status, _, text) = s
        .post_raw(
            "/",
            body.to_string(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert_eq!(status, 200);
    // The stream's events after its first (the Task) are exactly what the webhook got.
    let streamed: Vec<Value> = sse_events(&text)
        .into_iter()
        .skip(1)
        .map(|e| e["result"].clone())
        .collect();
    let pushed = rx.until_final().await;
    assert!(streamed.len() >= 3, "{text}");
    assert_eq!(pushed, streamed);
    assert!(pushed.iter().any(|e| e.get("artifactUpdate").is_some()));
    for seen in rx.seen() {
        let h = &seen.headers;
        assert_eq!(h["content-type"], "application/a2a+json");
        assert_eq!(h["authorization"], "Bearer s3cret");
        assert_eq!(h["x-a2a-notification-token"], "tok-123");
    }
    // Nothing after the final event; each delivery counted once.
    let line = format!(
        "skillgate_push_deliveries_total{{outcome=\"delivered\"}} {}",
        pushed.len()
    );
    metric_appears(&s, &line).await;
    assert_eq!(rx.bodies().len(), pushed.len());
}

#[tokio::test]
async fn a_webhook_500_is_retried_then_the_event_is_delivered() {
    let s = push_server().await;
    let rx = Receiver::start().await;
    rx.answers.lock().unwrap().push_back(Answer::Status(500));
    let card = s.card().await;
    let mut params = msg(request(&card, "slow", json!({"ms": 50, "progress": "p"})));
    params["configuration"] = json!({"taskPushNotificationConfig": {"url": rx.url}});
    s.rpc("SendMessage", params).await;
    let pushed = rx.until_final().await;
    // The first event twice (refused, then accepted), then the rest once each, in order.
    assert_eq!(pushed[0], pushed[1], "{pushed:#?}");
    let states: Vec<&str> = pushed[1..]
        .iter()
        .filter_map(|e| e["statusUpdate"]["status"]["state"].as_str())
        .collect();
    assert_eq!(
        states,
        [
            "TASK_STATE_WORKING",
            "TASK_STATE_WORKING",
            "TASK_STATE_COMPLETED"
        ]
    );
    metric_appears(&s, "skillgate_push_deliveries_total{outcome=\"retried\"} 1").await;
}

#[tokio::test]
async fn a_webhook_that_never_answers_does_not_stall_the_task_or_other_webhooks() {
    let s = push_server().await;
    let stuck = Receiver::start().await;
    *stuck.default.lock().unwrap() = Answer::Hang;
    let good = Receiver::start().await;
    let card = s.card().await;
    let r = s
        .rpc(
            "SendMessage",
            json!({"message": msg(request(&card, "wait", json!({"ms": 2000})))["message"],
                   "configuration": {"returnImmediately": true}}),
        )
        .await;
    let id = task_of(&r)["id"].as_str().unwrap().to_owned();
    for url in [&stuck.url, &good.url] {
        let c = s
            .rpc(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": id, "url": url}),
            )
            .await;
        assert!(c.get("result").is_some(), "{c}");
    }
    let started = std::time::Instant::now();
    let canceled = s.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(canceled["result"]["status"]["state"], "TASK_STATE_CANCELED");
    assert!(started.elapsed() < Duration::from_millis(400));
    let got = eventually(Duration::from_secs(5), || async {
        let b = good.bodies();
        b.iter()
            .any(|e| e["statusUpdate"]["status"]["state"] == "TASK_STATE_CANCELED")
            .then_some(b)
    })
    .await;
    assert_eq!(got.len(), 1, "{got:#?}");
    // The stuck one was tried (and timed out, then retried), never more than 3 times.
    eventually(Duration::from_secs(5), || async {
        (stuck.seen().len() >= 3).then_some(())
    })
    .await;
    metric_appears(&s, "skillgate_push_deliveries_total{outcome=\"failed\"} 1").await;
    assert_eq!(stuck.seen().len(), 3);
}

#[tokio::test]
async fn a_redirect_is_never_followed() {
    let s = push_server().await;
    let target = Receiver::start().await;
    let redirecting = Receiver::start().await;
    *redirecting.default.lock().unwrap() = Answer::Redirect(target.url.clone());
    let card = s.card().await;
    let mut params = msg(request(&card, "slow", json!({"ms": 10})));
    params["configuration"] = json!({"taskPushNotificationConfig": {"url": redirecting.url}});
    let r = s.rpc("SendMessage", params).await;
    assert_eq!(task_of(&r)["status"]["state"], "TASK_STATE_COMPLETED");
    let seen = eventually(Duration::from_secs(5), || async {
        let b = redirecting.bodies();
        b.iter().any(is_final).then_some(b)
    })
    .await;
    // Every event's delivery has its final outcome (a retry would come before it) ...
    metric_appears(
        &s,
        &format!(
            "skillgate_push_deliveries_total{{outcome=\"rejected\"}} {}\n",
            seen.len()
        ),
    )
    .await;
    // ... each event once (a redirect is a final answer, not retried), nothing at the target.
    assert_eq!(redirecting.bodies(), seen);
    assert!(target.seen().is_empty());
    let (_, _, m) = s.get_raw("/metrics", &[]).await;
    assert!(
        !m.contains("skillgate_push_deliveries_total{outcome=\"retried\"} "),
        "{m}"
    );
}

#[tokio::test]
async fn the_guard_refuses_webhooks_and_nothing_is_sent() {
    // Push on, nothing but public https allowed.
    let strict = ServerConfig {
        push: Some(PushPolicy::default()),
        ..Default::default()
    };
    let s = Server::start(agent(), strict).await;
    let rx = Receiver::start().await;
    let id = a_task(&s).await;
    let port = rx
        .url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/hook");
    for (url, needle) in [
        (rx.url.clone(), "must use https"),
        (
            format!("https://127.0.0.1:{port}/hook"),
            "127.0.0.1 is loopback",
        ),
        (
            format!("https://localhost:{port}/hook"),
            "webhook host localhost resolves to a refused address",
        ),
        ("https://[::1]/".to_owned(), "::1 is loopback"),
        (
            "https://10.0.0.5/".to_owned(),
            "webhook address 10.0.0.5 is private",
        ),
        ("https://192.168.7.7/".to_owned(), "private"),
        (
            "https://169.254.169.254/latest/meta-data".to_owned(),
            "cloud metadata",
        ),
        ("https://[fd00:ec2::254]/".to_owned(), "cloud metadata"),
        ("https://100.64.1.1/".to_owned(), "carrier-grade NAT"),
        ("https://224.0.0.1/".to_owned(), "multicast"),
        ("https://0.0.0.0/".to_owned(), "unspecified"),
        ("https://[fe80::1]/".to_owned(), "link-local"),
        ("https://[::127.0.0.1]/".to_owned(), "is loopback"),
        ("https://[64:ff9b::a00:5]/".to_owned(), "is private"),
        ("https://[2002:a00:5::1]/".to_owned(), "is private"),
        ("https://[fec0::1]/".to_owned(), "is private"),
        ("https://198.18.0.1/".to_owned(), "reserved"),
        ("https://192.0.0.8/".to_owned(), "reserved"),
    ] {
        let r = s
            .rpc(
                "CreateTaskPushNotificationConfig",
                json!({"taskId": id, "url": url}),
            )
            .await;
        assert_eq!(rpc_code(&r), -32602, "{url}: {r}");
        let m = r["error"]["message"].as_str().unwrap();
        assert!(m.contains(needle), "{url}: {m}");
        assert!(
            !m.contains("127.0.0.1") || url.contains("127.0.0.1"),
            "{url}: {m}"
        );
        // A remote caller learns what is wrong with its webhook, nothing about which server
        // setting would admit it.
        assert!(
            !m.contains("--") && !m.contains("allow") && !m.contains("cidr"),
            "{url}: {m}"
        );
    }
    // A refused webhook on SendMessage creates no task.
    let card = s.card().await;
    let mut params = msg(request(&card, "slow", json!({"ms": 1})));
    params["configuration"] = json!({"taskPushNotificationConfig": {"url": "https://10.0.0.5/"}});
    let before = s.rpc("ListTasks", json!({})).await["result"]["totalSize"].clone();
    assert_eq!(rpc_code(&s.rpc("SendMessage", params).await), -32602);
    assert_eq!(
        s.rpc("ListTasks", json!({})).await["result"]["totalSize"],
        before
    );
    // With --allow-http-push: loopback over http only; a private address stays refused.
    let s2 = push_server().await;
    let id2 = a_task(&s2).await;
    let r = s2
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id2, "url": "http://10.0.0.5/"}),
        )
        .await;
    assert_eq!(rpc_code(&r), -32602, "{r}");
    // An allowed range opens exactly itself.
    let cidr = ServerConfig {
        push: Some(PushPolicy {
            guard: Guard {
                allow_http_loopback: false,
                allow: vec!["10.0.0.0/24".parse().unwrap()],
            },
            ..Default::default()
        }),
        ..Default::default()
    };
    let s3 = Server::start(agent(), cidr).await;
    let id3 = a_task(&s3).await;
    let ok = s3
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id3, "url": "https://10.0.0.5/"}),
        )
        .await;
    assert!(ok.get("result").is_some(), "{ok}");
    let no = s3
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id3, "url": "https://10.0.1.5/"}),
        )
        .await;
    assert_eq!(rpc_code(&no), -32602);
    assert!(rx.seen().is_empty(), "the receiver got nothing");
}

#[tokio::test]
async fn configs_survive_a_restart_with_the_sqlite_store() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("tasks.db").display());
    let open = || async {
        skillgate_runtime::store_api::open(
            &url,
            skillgate_runtime::store_api::StoreLimits::memory(),
        )
        .await
        .unwrap()
    };
    let rx = Receiver::start().await;
    let s = Server::start(
        agent(),
        ServerConfig {
            store: Some(open().await),
            ..push_config()
        },
    )
    .await;
    let id = a_task(&s).await;
    let c = s
        .rpc(
            "CreateTaskPushNotificationConfig",
            json!({"taskId": id, "id": "keep", "url": rx.url}),
        )
        .await;
    s.shutdown().await;
    let store = eventually(Duration::from_secs(5), || async {
        skillgate_runtime::store_api::open(
            &url,
            skillgate_runtime::store_api::StoreLimits::memory(),
        )
        .await
        .ok()
    })
    .await;
    let s = Server::start(
        agent(),
        ServerConfig {
            store: Some(store),
            ..push_config()
        },
    )
    .await;
    let got = s
        .rpc(
            "GetTaskPushNotificationConfig",
            json!({"taskId": id, "id": "keep"}),
        )
        .await;
    assert_eq!(got["result"], c["result"]);
}

/// A config this process did not create (another replica, or before a restart) is served as
/// soon as this process writes the task: here a cancel.
#[tokio::test]
async fn configs_stored_elsewhere_hear_the_writes_this_process_makes() {
    use skillgate_runtime::store_api::{MemoryStore, StoreLimits, TaskStore};
    let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new(StoreLimits::memory()));
    let s = Server::start(
        agent(),
        ServerConfig {
            store: Some(store.clone()),
            ..push_config()
        },
    )
    .await;
    let rx = Receiver::start().await;
    let card = s.card().await;
    let r = s
        .rpc(
            "SendMessage",
            json!({"message": msg(request(&card, "wait", json!({"ms": 5000})))["message"],
                   "configuration": {"returnImmediately": true}}),
        )
        .await;
    let id = task_of(&r)["id"].as_str().unwrap().to_owned();
    let elsewhere = skillgate_store::PushRegistration {
        config: skillgate_runtime::a2a::TaskPushNotificationConfig {
            id: "other-replica".into(),
            task_id: id.clone(),
            url: rx.url.clone(),
            ..Default::default()
        },
        version: skillgate_a2a::version::WireVersion::V1_0,
    };
    store.put_push_config(&elsewhere, 16).await.unwrap();
    let canceled = s.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(canceled["result"]["status"]["state"], "TASK_STATE_CANCELED");
    let got = eventually(Duration::from_secs(5), || async {
        let b = rx.bodies();
        (!b.is_empty()).then_some(b)
    })
    .await;
    assert_eq!(
        got[0]["statusUpdate"]["status"]["state"], "TASK_STATE_CANCELED",
        "{got:#?}"
    );
}

/// A webhook slower than its task loses what does not fit in its queue; the task and the
/// other events are unaffected, and the loss is counted.
#[tokio::test]
async fn a_full_webhook_queue_drops_events_and_counts_them() {
    let mut config = push_config();
    if let Some(p) = config.push.as_mut() {
        p.queue = 1;
        p.attempts = 1;
    }
    let s = Server::start(agent(), config).await;
    let stuck = Receiver::start().await;
    *stuck.default.lock().unwrap() = Answer::Hang;
    let card = s.card().await;
    let mut params = msg(request(
        &card,
        "evaluate_resource_condition",
        observe_args(),
    ));
    params["configuration"] = json!({"taskPushNotificationConfig": {"url": stuck.url}});
    let r = s.rpc("SendMessage", params).await;
    assert_eq!(
        task_of(&r)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{r}"
    );
    // Three events or more: one in flight, one queued, the rest dropped.
    metric_appears(&s, "skillgate_push_deliveries_total{outcome=\"dropped\"}").await;
    assert!(stuck.seen().len() <= 1);
}

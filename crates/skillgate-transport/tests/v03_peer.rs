//! The transport against a tiny hand-written A2A 0.3 peer (JSON-RPC, and HTTP+JSON under
//! `/v1`): a real TCP listener on an ephemeral loopback port that reads each HTTP request and
//! writes a canned answer byte for byte, so hostile answers (not JSON, a wrong `kind` or enum
//! spelling, a body past the limit) are what the transport really receives.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{Message, Part, Role, SendMessageRequest, StreamResponse, TaskState};
use skillgate_transport::{
    Binding, Endpoint, Interface, Transport, TransportConfig, TransportError,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use url::Url;

/// One request as the peer read it.
#[derive(Debug, Clone)]
struct Seen {
    head: String,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }
}

/// An answer: content type, body, and whether a `Content-Length` is sent (without one the
/// body runs until the connection closes, so a limit must hold while it streams in).
struct Answer {
    content_type: &'static str,
    body: Vec<u8>,
    length: bool,
}

fn json_answer(v: Value) -> Answer {
    Answer {
        content_type: "application/json",
        body: v.to_string().into_bytes(),
        length: true,
    }
}

type Script = Arc<dyn Fn(&Seen) -> Answer + Send + Sync>;

async fn read_request(s: &mut tokio::net::TcpStream) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let seen = Seen {
        head,
        body: Value::Null,
    };
    let len: usize = seen
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
    Some(Seen { body, ..seen })
}

/// Starts the peer; returns its URL and what it saw.
async fn peer(script: Script) -> (Url, Arc<Mutex<Vec<Seen>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let log: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let seen_log = log.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let script = script.clone();
            let log = seen_log.clone();
            tokio::spawn(async move {
                let Some(seen) = read_request(&mut s).await else {
                    return;
                };
                let a = script(&seen);
                log.lock().unwrap().push(seen);
                let mut head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: {}\r\nconnection: close\r\n",
                    a.content_type
                );
                if a.length {
                    head.push_str(&format!("content-length: {}\r\n", a.body.len()));
                }
                head.push_str("\r\n");
                let _ = s.write_all(head.as_bytes()).await;
                let _ = s.write_all(&a.body).await;
                let _ = s.shutdown().await;
            });
        }
    });
    (Url::parse(&format!("http://{addr}/")).unwrap(), log)
}

fn endpoint(url: Url, limit: usize) -> Endpoint {
    let t = Transport::new(TransportConfig {
        response_limit: limit,
        ..TransportConfig::default()
    })
    .unwrap();
    Endpoint::new(
        t,
        Interface {
            url,
            binding: Binding::JsonRpc,
            tenant: String::new(),
            version: WireVersion::V0_3,
        },
    )
}

fn request() -> SendMessageRequest {
    SendMessageRequest {
        message: Message {
            message_id: "m1".into(),
            role: Role::User,
            parts: vec![Part::data(json!({"skill": "s", "arguments": {"n": 1}}))],
            ..Message::default()
        },
        ..SendMessageRequest::default()
    }
}

fn id_of(seen: &Seen) -> Value {
    seen.body["id"].clone()
}

fn task(state: &str) -> Value {
    json!({"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": state},
           "artifacts": [{"artifactId": "a1", "parts": [{"kind": "data", "data": {"x": 1.5}}]}]})
}

#[tokio::test]
async fn a_call_is_written_in_0_3_and_answered_in_1_0() {
    let script: Script = Arc::new(|s| {
        json_answer(json!({"jsonrpc": "2.0", "id": id_of(s), "result": task("completed")}))
    });
    let (url, log) = peer(script).await;
    let sent = endpoint(url, 1 << 20)
        .send_message(&request(), true)
        .await
        .unwrap();
    let seen = log.lock().unwrap()[0].clone();
    assert_eq!(seen.body["method"], "message/send");
    assert_eq!(seen.body["params"]["message"]["kind"], "message");
    assert_eq!(seen.body["params"]["message"]["parts"][0]["kind"], "data");
    assert_eq!(seen.header("a2a-version").as_deref(), Some("0.3"));
    let uri = skillgate_core::wire::EXTENSION_URI;
    assert_eq!(seen.header("a2a-extensions").as_deref(), Some(uri));
    assert_eq!(seen.header("x-a2a-extensions").as_deref(), Some(uri));
    let v: Value = serde_json::from_slice(&sent.reply.bytes).unwrap();
    assert_eq!(
        v["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    assert_eq!(
        v["result"]["task"]["artifacts"][0]["parts"][0]["data"],
        json!({"x": 1.5})
    );
    assert_eq!(v["id"], id_of(&seen));
}

#[tokio::test]
async fn a_0_3_stream_is_read_as_1_0_events_and_an_early_error_as_a_1_0_body() {
    let script: Script = Arc::new(|s| {
        let id = id_of(s);
        if s.body["params"]["message"]["messageId"] == "bad" {
            return json_answer(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32602, "message": "nope", "data": {"free": "form"}}}));
        }
        let ev = |r: Value| {
            format!(
                "data: {}\n\n",
                json!({"jsonrpc": "2.0", "id": id, "result": r})
            )
        };
        let mut body = ev(task("submitted"));
        body.push_str(&ev(
            json!({"kind": "status-update", "taskId": "t1", "contextId": "c1",
            "status": {"state": "working"}, "final": false}),
        ));
        body.push_str(&ev(
            json!({"kind": "status-update", "taskId": "t1", "contextId": "c1",
            "status": {"state": "completed"}, "final": true}),
        ));
        Answer {
            content_type: "text/event-stream",
            body: body.into_bytes(),
            length: false,
        }
    });
    let (url, _) = peer(script).await;
    let ep = endpoint(url, 1 << 20);
    let (id, mut open) = ep.stream_message(&request(), true).await.unwrap();
    assert!(open.is_event_stream());
    let mut states = Vec::new();
    while let Some(events) = open.events().await.unwrap() {
        for e in events {
            let v: Value = serde_json::from_str(&e.data).unwrap();
            assert_eq!(
                Some(&v["id"]),
                id.as_ref()
                    .map(|i| serde_json::to_value(i).unwrap())
                    .as_ref()
            );
            let r: StreamResponse = serde_json::from_value(v["result"].clone()).unwrap();
            states.push(match r {
                StreamResponse::Task(t) => t.status.state,
                StreamResponse::StatusUpdate(u) => u.status.state,
                other => panic!("unexpected {other:?}"),
            });
        }
    }
    assert_eq!(
        states,
        [
            TaskState::Submitted,
            TaskState::Working,
            TaskState::Completed
        ]
    );
    let mut bad = request();
    bad.message.message_id = "bad".into();
    let (_, open) = ep.stream_message(&bad, true).await.unwrap();
    assert!(!open.is_event_stream());
    let body: Value = serde_json::from_slice(&open.rest().await.unwrap().bytes).unwrap();
    assert_eq!(body["error"], json!({"code": -32602, "message": "nope"}));
}

#[tokio::test]
async fn hostile_answers_are_typed_errors() {
    let script: Script = Arc::new(|s| {
        let id = id_of(s);
        match s.body["params"]["message"]["messageId"]
            .as_str()
            .unwrap_or("")
        {
            "notjson" => Answer {
                content_type: "application/json",
                body: b"{\"jsonrpc\":\"2.0\",".to_vec(),
                length: true,
            },
            "kind" => json_answer(json!({"jsonrpc": "2.0", "id": id,
                "result": {"kind": "status-update", "id": "t"}})),
            "huge" => Answer {
                content_type: "application/json",
                body: vec![b' '; 300_000],
                length: false,
            },
            "hugestream" => Answer {
                content_type: "text/event-stream",
                body: format!("data: {}", "x".repeat(300_000)).into_bytes(),
                length: false,
            },
            _ => Answer {
                content_type: "text/event-stream",
                body: b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"nope\"}}\n\n"
                    .to_vec(),
                length: true,
            },
        }
    });
    let (url, _) = peer(script).await;
    let ep = endpoint(url, 100_000);
    let with_id = |id: &str| {
        let mut r = request();
        r.message.message_id = id.into();
        r
    };
    for id in ["notjson", "kind"] {
        let e = ep.send_message(&with_id(id), true).await.unwrap_err();
        assert!(matches!(e, TransportError::V03Answer { .. }), "{id}: {e:?}");
        assert_eq!(e.code(), "bad_v03_answer");
    }
    let e = ep.send_message(&with_id("huge"), true).await.unwrap_err();
    assert!(
        matches!(e, TransportError::TooLarge { limit: 100_000, .. }),
        "{e:?}"
    );
    let (_, mut open) = ep
        .stream_message(&with_id("hugestream"), true)
        .await
        .unwrap();
    let e = open.events().await.unwrap_err();
    assert!(matches!(e, TransportError::TooLarge { .. }), "{e:?}");
    let (_, mut open) = ep
        .stream_message(&with_id("wrongevent"), true)
        .await
        .unwrap();
    let e = open.events().await.unwrap_err();
    assert!(matches!(e, TransportError::V03Answer { .. }), "{e:?}");
}

#[tokio::test]
async fn list_tasks_is_refused_locally_and_the_extended_card_is_read_as_1_0() {
    let script: Script = Arc::new(|s| {
        json_answer(json!({"jsonrpc": "2.0", "id": id_of(s), "result": {
            "name": "a", "description": "d", "version": "1", "url": "http://127.0.0.1:1/",
            "protocolVersion": "0.3.0", "capabilities": {}, "defaultInputModes": [],
            "defaultOutputModes": [], "skills": []}}))
    });
    let (url, log) = peer(script).await;
    let ep = endpoint(url, 1 << 20);
    let e = ep
        .list_tasks(&skillgate_a2a::ListTasksRequest::default())
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            TransportError::Unsupported {
                operation: "ListTasks",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(log.lock().unwrap().is_empty(), "nothing was sent");
    let sent = ep.get_extended_card().await.unwrap();
    let seen = log.lock().unwrap()[0].clone();
    assert_eq!(seen.body["method"], "agent/getAuthenticatedExtendedCard");
    assert!(seen.body.get("params").is_none(), "{}", seen.body);
    let v: Value = serde_json::from_slice(&sent.reply.bytes).unwrap();
    assert_eq!(
        v["result"]["supportedInterfaces"],
        json!([{"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}])
    );
}

fn rest_endpoint(url: Url, binding: Binding, limit: usize) -> Endpoint {
    let t = Transport::new(TransportConfig {
        response_limit: limit,
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

#[tokio::test]
async fn a_0_3_grpc_interface_refuses_list_tasks_before_sending() {
    let script: Script = Arc::new(|_| json_answer(json!({})));
    let (url, log) = peer(script).await;
    let ep = rest_endpoint(url, Binding::Grpc, 1 << 20);
    let e = ep
        .list_tasks(&skillgate_a2a::ListTasksRequest::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&e, TransportError::Unsupported { version, .. } if *version == WireVersion::V0_3),
        "{e:?}"
    );
    // The extended card is 0.3's GetAgentCard and is sent (D301; tested against our server in
    // skillgate-cli's v03_operations): only ListTasks has no 0.3 form.
    assert!(log.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_0_3_rest_peer_is_sent_v1_requests_and_its_protojson_read_as_1_0() {
    let script: Script = Arc::new(|seen: &Seen| {
        let line = seen.head.lines().next().unwrap_or("").to_owned();
        if line.starts_with("GET /v1/tasks/t1 ") {
            json_answer(
                json!({"id": "t1", "contextId": "c", "status": {"state": "TASK_STATE_CANCELLED"}}),
            )
        } else if line.starts_with("GET /v1/tasks/spelled") {
            // The 0.3 JSON spelling is not a proto enum name.
            json_answer(json!({"id": "t1", "contextId": "c", "status": {"state": "canceled"}}))
        } else if line.starts_with("GET /v1/tasks/extra") {
            json_answer(
                json!({"id": "t1", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}, "kind": "task"}),
            )
        } else if line.starts_with("POST /v1/tasks/t1:cancel ") {
            json_answer(
                json!({"id": "t1", "contextId": "c", "status": {"state": "TASK_STATE_CANCELLED"}}),
            )
        } else {
            Answer {
                content_type: "text/html",
                body: b"<html>no</html>".to_vec(),
                length: true,
            }
        }
    });
    let (url, log) = peer(script).await;
    let ep = rest_endpoint(url, Binding::HttpJson, 1 << 20);
    let sent = ep.get_task("t1").await.unwrap();
    let v: Value = serde_json::from_slice(&sent.reply.bytes).unwrap();
    assert_eq!(v["status"]["state"], "TASK_STATE_CANCELED", "{v}");
    let seen = log.lock().unwrap()[0].clone();
    assert_eq!(seen.header("a2a-version").as_deref(), Some("0.3"));
    let sent = ep.cancel_task("t1").await.unwrap();
    let v: Value = serde_json::from_slice(&sent.reply.bytes).unwrap();
    assert_eq!(v["status"]["state"], "TASK_STATE_CANCELED", "{v}");
    assert_eq!(
        log.lock().unwrap()[1].body,
        json!({}),
        "the cancel body is {{}}"
    );
    for id in ["spelled", "extra", "html"] {
        match ep.get_task(id).await {
            Err(TransportError::V03Answer { reason, .. }) => {
                assert!(!reason.is_empty(), "{id}");
            }
            other => panic!("{id}: {other:?}"),
        }
    }
    // ListTasks has no 0.3 form: refused before anything is sent.
    let before = log.lock().unwrap().len();
    let e = ep
        .list_tasks(&skillgate_a2a::ListTasksRequest::default())
        .await
        .unwrap_err();
    assert!(matches!(e, TransportError::Unsupported { .. }), "{e:?}");
    assert_eq!(log.lock().unwrap().len(), before);
}

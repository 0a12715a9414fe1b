//! Connection hardening over raw TCP: silent and slowloris connections are closed after the
//! header-read timeout, idle kept-alive connections after the idle timeout, connections past
//! `max_connections` are refused with a JSON 503, and shutdown ends within its grace period
//! whatever clients do.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_runtime::*;
use skillgate_testkit::rawhttp;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn addr(s: &Server) -> String {
    s.base.trim_start_matches("http://").to_string()
}

/// Reads until EOF or error; returns what was read and how long the connection lived.
async fn read_until_closed(conn: &mut TcpStream, limit: Duration) -> (String, Option<Duration>) {
    let t0 = Instant::now();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(limit.saturating_sub(t0.elapsed()), conn.read(&mut buf)).await {
            Err(_) => return (String::from_utf8_lossy(&out).into(), None),
            Ok(Ok(0)) | Ok(Err(_)) => {
                return (String::from_utf8_lossy(&out).into(), Some(t0.elapsed()))
            }
            Ok(Ok(n)) => out.extend_from_slice(&buf[..n]),
        }
    }
}

/// The server's `skillgate_open_connections` (metrics on), asked on the kept-alive `probe`.
async fn open_connections(probe: &mut TcpStream, addr: &str) -> f64 {
    let (head, scrape) = rawhttp::get_async(probe, addr, "/metrics").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    rawhttp::metric(&scrape, "skillgate_open_connections").unwrap()
}

fn short_timeouts() -> ServerConfig {
    ServerConfig {
        header_read_timeout: Duration::from_millis(800),
        idle_timeout: Duration::from_millis(1500),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_after_the_header_read_timeout() {
    let s = Server::start(agent(), short_timeouts()).await;
    let mut conn = TcpStream::connect(addr(&s)).await.unwrap();
    let (_, lived) = read_until_closed(&mut conn, Duration::from_secs(6)).await;
    let lived = lived.expect("the server closed the silent connection");
    assert!(
        lived >= Duration::from_millis(700) && lived < Duration::from_secs(3),
        "{lived:?}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_slowloris_head_is_cut_off_at_the_header_read_timeout() {
    let s = Server::start(agent(), short_timeouts()).await;
    let mut conn = TcpStream::connect(addr(&s)).await.unwrap();
    let head = format!("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {}\r\nX-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n", addr(&s));
    let t0 = Instant::now();
    let mut closed_at = None;
    for b in head.bytes() {
        if conn.write_all(&[b]).await.is_err() {
            closed_at = Some(t0.elapsed());
            break;
        }
        let mut probe = [0u8; 1];
        // A read that returns 0 (or fails) means the server closed the connection.
        if let Ok(r) = tokio::time::timeout(Duration::from_millis(100), conn.read(&mut probe)).await
        {
            if matches!(r, Ok(0) | Err(_)) {
                closed_at = Some(t0.elapsed());
                break;
            }
        }
        if t0.elapsed() > Duration::from_secs(8) {
            break;
        }
    }
    let at = closed_at.expect("the server closed the trickling connection");
    assert!(at < Duration::from_secs(3), "closed after {at:?}");
    s.shutdown().await;
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed_after_the_idle_timeout() {
    let s = Server::start(agent(), short_timeouts()).await;
    let a = addr(&s);
    let mut conn = TcpStream::connect(&a).await.unwrap();
    conn.write_all(
        format!("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {a}\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let mut buf = vec![0u8; 65536];
    let n = conn.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    // Kept alive longer than the header-read timeout (the idle timeout rules between
    // requests) ... (the scenario, not synchronisation: an idle spell of this length)
    tokio::time::sleep(Duration::from_millis(1000)).await;
    conn.write_all(
        format!("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {a}\r\n\r\n").as_bytes(),
    )
    .await
    .unwrap();
    let n = conn.read(&mut buf).await.unwrap();
    assert!(
        String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"),
        "still served after 1 s idle"
    );
    // ... but closed once idle for longer than the idle timeout.
    let (_, lived) = read_until_closed(&mut conn, Duration::from_secs(6)).await;
    let lived = lived.expect("the idle connection was closed");
    assert!(
        lived >= Duration::from_millis(1300) && lived < Duration::from_secs(4),
        "{lived:?}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn connections_past_the_limit_are_refused_with_a_json_503() {
    let cfg = ServerConfig {
        max_connections: 3,
        header_read_timeout: Duration::from_secs(30),
        ..Default::default()
    };
    let s = Server::start(agent(), cfg).await;
    let a = addr(&s);
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut conn = TcpStream::connect(&a).await.unwrap();
        // An answer shows the server accepted the connection; kept alive, it holds its slot.
        let (head, _) = rawhttp::get_async(&mut conn, &a, "/.well-known/agent-card.json").await;
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        held.push(conn);
    }
    let mut extra = TcpStream::connect(&a).await.unwrap();
    let (text, lived) = read_until_closed(&mut extra, Duration::from_secs(5)).await;
    assert!(lived.is_some(), "the extra connection is closed at once");
    assert!(text.starts_with("HTTP/1.1 503"), "{text}");
    assert!(
        text.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{text}"
    );
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    let v: Value = serde_json::from_str(body).unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("connections"),
        "{v}"
    );
    // Freeing a slot lets the next client in.
    drop(held.pop());
    let (ok, card) = eventually(Duration::from_secs(5), || async {
        let r = s
            .client
            .get(format!("{}/.well-known/agent-card.json", s.base))
            .send()
            .await
            .ok()?;
        Some((r.status().as_u16(), r.text().await.ok()?))
    })
    .await;
    assert_eq!(ok, 200, "{card}");
    s.shutdown().await;
}

#[tokio::test]
async fn a_refused_connection_is_answered_in_the_dialect_of_its_request() {
    let cfg = ServerConfig {
        max_connections: 1,
        header_read_timeout: Duration::from_secs(30),
        ..Default::default()
    };
    let s = Server::start(agent(), cfg).await;
    let a = addr(&s);
    let mut held = TcpStream::connect(&a).await.unwrap();
    let (head, _) = rawhttp::get_async(&mut held, &a, "/.well-known/agent-card.json").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let refused = |request: String| {
        let a = a.clone();
        async move {
            let mut c = TcpStream::connect(&a).await.unwrap();
            c.write_all(request.as_bytes()).await.unwrap();
            let (text, lived) = read_until_closed(&mut c, Duration::from_secs(5)).await;
            assert!(lived.is_some(), "closed after the answer: {text}");
            assert!(text.starts_with("HTTP/1.1 503"), "{text}");
            assert!(
                text.to_ascii_lowercase().contains("retry-after: 1"),
                "{text}"
            );
            let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
            serde_json::from_str::<Value>(&body).unwrap_or_else(|e| panic!("{e}: {text}"))
        }
    };
    // 0.3 HTTP+JSON: `{message}` only.
    let v = refused(format!(
        "GET /v1/tasks/t HTTP/1.1\r\nHost: {a}\r\nConnection: close\r\n\r\n"
    ))
    .await;
    assert!(
        v["message"].as_str().unwrap().contains("connections"),
        "{v}"
    );
    assert!(v.get("error").is_none(), "{v}");
    // 0.3 JSON-RPC (no A2A-Version): an error object with a null id and no 1.0 data.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "t"}})
        .to_string();
    let v = refused(format!(
        "POST / HTTP/1.1\r\nHost: {a}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ))
    .await;
    assert_eq!(v["jsonrpc"], "2.0", "{v}");
    assert_eq!(v["id"], Value::Null, "{v}");
    assert_eq!(v["error"]["code"], -32603, "{v}");
    assert!(v["error"].get("data").is_none(), "{v}");
    // 1.0, on either binding: the google.rpc.Status body, as before.
    let v = refused(format!(
        "POST / HTTP/1.1\r\nHost: {a}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"
    ))
    .await;
    assert_eq!(v["error"]["status"], "UNAVAILABLE", "{v}");
    let v = refused(format!(
        "GET /tasks/t HTTP/1.1\r\nHost: {a}\r\nA2A-Version: 1.0\r\n\r\n"
    ))
    .await;
    assert_eq!(v["error"]["code"], 503, "{v}");
    drop(held);
    s.shutdown().await;
}

/// An agent whose plain handler interrupts its task (input required): a SubscribeToTask
/// stream on it stays open until the task ends.
fn interrupting_agent() -> Agent {
    Agent::builder("interrupting", "d", "1.0")
        .skill(observe_skill())
        .plain_handler(|_m: a2a::Message, _c: PlainContext| async move {
            PlainReply::Task(vec![PlainStep::Status(
                a2a::TaskState::InputRequired,
                vec![a2a::Part::text("which interface?")],
            )])
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn shutdown_ends_streams_and_returns_within_the_grace_period_whatever_clients_do() {
    let cfg = ServerConfig {
        shutdown_grace: Duration::from_millis(1500),
        header_read_timeout: Duration::from_secs(60),
        idle_timeout: Duration::from_secs(60),
        metrics: true,
        ..Default::default()
    };
    let mut s = Server::start(interrupting_agent(), cfg).await;
    let a = addr(&s);
    // A kept-alive probe of its own counts the server's open connections: the hostile ones
    // below are waited for, not slept on.
    let probe = tokio::sync::Mutex::new(TcpStream::connect(&a).await.unwrap());
    let r = s
        .rpc(
            "SendMessage",
            json!({"message": {"messageId": uuid(), "role": "ROLE_USER", "parts": [{"text": "go"}]}}),
        )
        .await;
    let id = task_of(&r)["id"].as_str().unwrap().to_owned();
    assert_eq!(task_of(&r)["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    // An open SubscribeToTask stream on the interrupted task ...
    let mut sub = TcpStream::connect(&a).await.unwrap();
    let body =
        json!({"jsonrpc": "2.0", "id": 9, "method": "SubscribeToTask", "params": {"id": id}})
            .to_string();
    sub.write_all(format!("POST / HTTP/1.1\r\nHost: {a}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len()).as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 65536];
    let n = sub.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).contains("text/event-stream"));
    // ... a half-sent request head, and a half-sent body.
    let before = open_connections(&mut *probe.lock().await, &a).await;
    let mut half_head = TcpStream::connect(&a).await.unwrap();
    half_head
        .write_all(b"POST / HTTP/1.1\r\nHost: x")
        .await
        .unwrap();
    let mut half_body = TcpStream::connect(&a).await.unwrap();
    half_body.write_all(format!("POST / HTTP/1.1\r\nHost: {a}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{").as_bytes()).await.unwrap();
    // The server has accepted both before it is asked to stop.
    eventually(Duration::from_secs(5), || async {
        let open = open_connections(&mut *probe.lock().await, &a).await;
        (open >= before + 2.0).then_some(())
    })
    .await;

    let handle = s.handle.take().unwrap();
    let t0 = Instant::now();
    drop(s); // asks the server to stop
             // The stream is ended at once (its terminating chunk, then EOF), not left to the grace.
    let (rest, closed) = read_until_closed(&mut sub, Duration::from_millis(1200)).await;
    assert!(
        closed.is_some(),
        "stream closed before the grace ran out; got {rest:?}"
    );
    assert!(
        rest.ends_with("0\r\n\r\n"),
        "a cleanly ended stream: {rest:?}"
    );
    tokio::time::timeout(Duration::from_secs(5), handle)
        .await
        .expect("serve returned within the grace period")
        .unwrap()
        .unwrap();
    let took = t0.elapsed();
    assert!(took < Duration::from_millis(2500), "{took:?}");
    // The hostile connections were dropped.
    let (_, c1) = read_until_closed(&mut half_head, Duration::from_secs(1)).await;
    let (_, c2) = read_until_closed(&mut half_body, Duration::from_secs(1)).await;
    assert!(c1.is_some() && c2.is_some());
}

//! Request-level hardening: duplicate credentials, browser origins, Host checks, content
//! types, JSON error bodies for 405 and unknown paths, and raw JSON-RPC ids.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_server::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TOKEN: &str = "operator-secret-0123456789";

fn with_token() -> ServerConfig {
    ServerConfig {
        tokens: Some(TokenTable::parse(&format!("{TOKEN}\n")).unwrap()),
        ..Default::default()
    }
}

/// Sends `raw` (a whole HTTP/1.1 request) and returns the whole answer.
async fn raw(s: &Server, raw: &str) -> String {
    let addr = s.base.trim_start_matches("http://");
    let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
    c.write_all(raw.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(10), c.read_to_end(&mut out))
        .await
        .unwrap()
        .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

fn status_of(resp: &str) -> u16 {
    resp.split(' ').nth(1).unwrap().parse().unwrap()
}

fn body_json(resp: &str) -> Value {
    let body = resp.split("\r\n\r\n").nth(1).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {resp}"))
}

#[tokio::test]
async fn two_authorization_headers_are_a_400_not_first_wins() {
    let s = Server::start(agent(), with_token()).await;
    let addr = s.base.trim_start_matches("http://").to_string();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}).to_string();
    let r = raw(&s, &format!("POST / HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nAuthorization: Bearer {TOKEN}\r\nAuthorization: Bearer wrong\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())).await;
    assert_eq!(status_of(&r), 400, "{r}");
    assert!(body_json(&r)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Authorization"));
    let r = raw(&s, &format!("GET /tasks HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nAuthorization: Bearer {TOKEN}\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n")).await;
    assert_eq!(status_of(&r), 400, "{r}");
    // One header still works.
    let r = raw(&s, &format!("GET /tasks HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n")).await;
    assert_eq!(status_of(&r), 200, "{r}");
    s.shutdown().await;
}

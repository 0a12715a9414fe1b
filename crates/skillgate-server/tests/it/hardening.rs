//! Request-level hardening: duplicate credentials, browser origins, Host checks, content
//! types, JSON error bodies for 405 and unknown paths, and raw JSON-RPC ids.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_runtime::*;
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

fn rpc_raw(addr: &str, body: &str, extra: &str) -> String {
    format!("POST / HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())
}

#[tokio::test]
async fn json_rpc_ids_outside_64_bits_are_echoed_exactly() {
    let s = start_server().await;
    let addr = s.base.trim_start_matches("http://").to_string();
    for id in [
        "18446744073709551616",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "1.50",
        "1e300",
        "-0.0",
        "18446744073709551615",
        "-9223372036854775808",
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ListTasks","params":{{}}}}"#);
        let r = raw(
            &s,
            &rpc_raw(&addr, &body, "Content-Type: application/json\r\n"),
        )
        .await;
        let text = r.split("\r\n\r\n").nth(1).unwrap_or("");
        assert!(
            text.contains(&format!(r#""id":{id}"#)),
            "id {id} echoed exactly: {text}"
        );
        // Also on an error reply (unknown method).
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"Nope","params":{{}}}}"#);
        let r = raw(
            &s,
            &rpc_raw(&addr, &body, "Content-Type: application/json\r\n"),
        )
        .await;
        assert!(r.contains(&format!(r#""id":{id}"#)), "id {id}: {r}");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn wrong_methods_and_unknown_paths_answer_with_a_json_body() {
    let s = start_server().await;
    let addr = s.base.trim_start_matches("http://").to_string();
    for (method, path, want) in [
        ("GET", "/", 405),
        ("PUT", "/", 405),
        ("DELETE", "/message:send", 405),
        ("GET", "/message:send", 405),
        ("POST", "/.well-known/agent-card.json", 405),
        ("GET", "/no/such/path", 404),
        ("POST", "/no/such/path", 404),
    ] {
        let r = raw(
            &s,
            &format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
        )
        .await;
        assert_eq!(status_of(&r), want, "{method} {path}: {r}");
        assert!(
            r.to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{method} {path}: {r}"
        );
        let v = body_json(&r);
        assert!(v["error"]["message"].is_string(), "{method} {path}: {v}");
    }
    s.shutdown().await;
}

#[tokio::test]
async fn a_post_without_a_json_content_type_is_refused() {
    let s = start_server().await;
    let addr = s.base.trim_start_matches("http://").to_string();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}).to_string();
    // No Content-Type at all: a browser's "simple request" from any page looks like this.
    let r = raw(&s, &rpc_raw(&addr, &body, "")).await;
    let v = body_json(&r);
    assert_eq!(v["error"]["code"], -32005, "JSON-RPC: {r}");
    let r = raw(&s, &rpc_raw(&addr, &body, "Content-Type: text/plain\r\n")).await;
    assert_eq!(body_json(&r)["error"]["code"], -32005, "{r}");
    let (status, v) = {
        let r = raw(&s, &format!("POST /message:send HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}")).await;
        (status_of(&r), body_json(&r))
    };
    assert_eq!(status, 400, "REST (the A2A table's status): {v}");
    assert_eq!(
        v["error"]["details"][0]["reason"],
        "CONTENT_TYPE_NOT_SUPPORTED"
    );
    // A JSON content type still works.
    let r = raw(
        &s,
        &rpc_raw(&addr, &body, "Content-Type: application/json\r\n"),
    )
    .await;
    assert!(body_json(&r)["result"].is_object(), "{r}");
    s.shutdown().await;
}

#[tokio::test]
async fn browser_origins_are_refused_unless_allowed() {
    let s = start_server().await;
    let addr = s.base.trim_start_matches("http://").to_string();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}).to_string();
    let r = raw(
        &s,
        &rpc_raw(
            &addr,
            &body,
            "Content-Type: application/json\r\nOrigin: https://evil.example\r\n",
        ),
    )
    .await;
    assert_eq!(status_of(&r), 403, "{r}");
    assert!(body_json(&r)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Origin"));
    let r = raw(&s, &format!("GET /tasks HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nOrigin: null\r\nConnection: close\r\n\r\n")).await;
    assert_eq!(status_of(&r), 403, "{r}");
    // The card still serves a client that sends no Origin.
    let (status, _, _) = s.get_raw("/.well-known/agent-card.json", &[]).await;
    assert_eq!(status, 200);
    s.shutdown().await;

    let s = Server::start(
        agent(),
        ServerConfig {
            allowed_origins: vec!["https://console.example".into()],
            ..Default::default()
        },
    )
    .await;
    let addr = s.base.trim_start_matches("http://").to_string();
    let r = raw(
        &s,
        &rpc_raw(
            &addr,
            &body,
            "Content-Type: application/json\r\nOrigin: https://console.example\r\n",
        ),
    )
    .await;
    assert_eq!(status_of(&r), 200, "{r}");
    assert!(
        r.to_ascii_lowercase()
            .contains("access-control-allow-origin: https://console.example"),
        "{r}"
    );
    let r = raw(
        &s,
        &rpc_raw(
            &addr,
            &body,
            "Content-Type: application/json\r\nOrigin: https://other.example\r\n",
        ),
    )
    .await;
    assert_eq!(status_of(&r), 403, "{r}");
    // The preflight of an allowed origin is answered.
    let r = raw(&s, &format!("OPTIONS / HTTP/1.1\r\nHost: {addr}\r\nOrigin: https://console.example\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type, a2a-version\r\nConnection: close\r\n\r\n")).await;
    assert_eq!(status_of(&r), 204, "{r}");
    assert!(
        r.to_ascii_lowercase()
            .contains("access-control-allow-headers"),
        "{r}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn the_host_header_must_name_this_server() {
    let s = start_server().await;
    let port = s.base.rsplit(':').next().unwrap().to_string();
    let addr = s.base.trim_start_matches("http://").to_string();
    let card = |host: String| {
        format!("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
    };
    // DNS rebinding: a name the attacker controls, resolving to 127.0.0.1.
    let r = raw(&s, &card(format!("rebind.attacker.example:{port}"))).await;
    assert_eq!(status_of(&r), 403, "{r}");
    assert!(body_json(&r)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Host"));
    for ok in [
        addr.clone(),
        format!("localhost:{port}"),
        "127.0.0.1".to_string(),
    ] {
        let r = raw(&s, &card(ok.clone())).await;
        assert_eq!(status_of(&r), 200, "{ok}: {r}");
    }
    s.shutdown().await;

    let s = Server::start(
        agent(),
        ServerConfig {
            public_url: Some("https://agent.example.net/a2a".into()),
            ..Default::default()
        },
    )
    .await;
    let r = raw(&s, &card("agent.example.net".into())).await;
    assert_eq!(status_of(&r), 200, "the public URL's host: {r}");
    let r = raw(&s, &card("other.example.net".into())).await;
    assert_eq!(status_of(&r), 403, "{r}");
    s.shutdown().await;

    let s = Server::start(
        agent(),
        ServerConfig {
            allow_any_host: true,
            ..Default::default()
        },
    )
    .await;
    let r = raw(&s, &card("whatever.example".into())).await;
    assert_eq!(status_of(&r), 200, "{r}");
    s.shutdown().await;
}

#[tokio::test]
async fn serve_refuses_a_public_url_that_is_not_absolute_http() {
    for bad in [
        "agent.example:7420",
        "/a2a",
        "ftp://agent.example/",
        "http://",
        "not a url",
    ] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let cfg = ServerConfig {
            public_url: Some(bad.into()),
            ..Default::default()
        };
        let r = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            serve(agent(), listener, cfg, std::future::pending()),
        )
        .await
        .unwrap_or_else(|_| panic!("{bad}: served instead of refusing"));
        let e = r.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{bad}: {e}");
        assert!(e.to_string().contains("public"), "{bad}: {e}");
    }
}

//! Refusals made before any binding reads the request's method (bearer token, browser origin,
//! `Host`, body limit, content type) are written in the dialect the request speaks: under
//! `/v1` the 0.3 HTTP+JSON `{message}` body, at `/` without `A2A-Version` (a 0.3 client) a
//! 0.3 JSON-RPC error object, and 1.0 requests exactly as before. Real server, real requests.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_runtime::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TOKEN: &str = "operator-secret-0123456789";
const JSON: (&str, &str) = ("Content-Type", "application/json");
const V10: (&str, &str) = ("A2A-Version", "1.0");
const FOREIGN: (&str, &str) = ("Origin", "https://evil.example");

fn guarded() -> ServerConfig {
    ServerConfig {
        tokens: Some(TokenTable::parse(&format!("{TOKEN}\n")).unwrap()),
        body_limit: 2048,
        ..Default::default()
    }
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The 0.3 HTTP+JSON refusal body: a message and nothing of 1.0's `google.rpc.Status`.
fn assert_rest03(v: &Value, needle: &str) {
    assert!(
        v["message"].as_str().is_some_and(|m| m.contains(needle)),
        "{v}"
    );
    assert!(v.get("error").is_none() && v.get("code").is_none(), "{v}");
}

/// A 0.3 JSON-RPC error object: `id: null`, `code` and `message`, no 1.0 ErrorInfo `data`.
fn assert_rpc03(v: &Value, code: i64, needle: &str) {
    assert_eq!(v["jsonrpc"], "2.0", "{v}");
    assert_eq!(v["id"], Value::Null, "{v}");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(needle)),
        "{v}"
    );
    assert!(v["error"].get("data").is_none(), "no 1.0 data: {v}");
}

fn rpc03(method: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "method": method,
        "params": {"id": "no-such-task"}})
    .to_string()
}

#[tokio::test]
async fn v1_refusals_in_front_of_the_router_have_the_0_3_body() {
    let s = Server::start(agent(), guarded()).await;
    let auth = format!("Bearer {TOKEN}");
    let bearer = ("Authorization", auth.as_str());
    // A foreign browser origin: 403, 0.3 body under /v1, the 1.0 body elsewhere.
    let (status, _, text) = s
        .post_raw("/v1/message:send", "{}", &[JSON, bearer, FOREIGN])
        .await;
    assert_eq!(status, 403, "{text}");
    assert_rest03(&json_of(&text), "Origin");
    let (status, _, text) = s
        .post_raw("/message:send", "{}", &[JSON, V10, bearer, FOREIGN])
        .await;
    assert_eq!(status, 403, "{text}");
    assert_eq!(json_of(&text)["error"]["status"], "PERMISSION_DENIED");
    // A Host this server does not serve, and two Host headers.
    let addr = s.base.trim_start_matches("http://").to_string();
    let r = raw(
        &addr,
        "GET /v1/tasks/t HTTP/1.1\r\nHost: rebind.example\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(r.starts_with("HTTP/1.1 403"), "{r}");
    assert_rest03(&json_of(body(&r)), "Host");
    let r = raw(
        &addr,
        &format!(
            "GET /v1/tasks/t HTTP/1.1\r\nHost: {addr}\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
        ),
    )
    .await;
    assert!(r.starts_with("HTTP/1.1 400"), "{r}");
    assert_rest03(&json_of(body(&r)), "Host");
    // Still 0.3 after the origin check: no token.
    let (status, h, text) = s.get_raw("/v1/tasks/t", &[]).await;
    assert_eq!(status, 401, "{text}");
    assert!(h.contains_key("www-authenticate"));
    assert_rest03(&json_of(&text), "");
    s.shutdown().await;
}

#[tokio::test]
async fn json_rpc_refusals_before_the_method_speak_the_version_of_the_header() {
    let s = Server::start(agent(), guarded()).await;
    let auth = format!("Bearer {TOKEN}");
    let bearer = ("Authorization", auth.as_str());
    // No token. Without A2A-Version (a 0.3 client): a 0.3 JSON-RPC error, the 401 and its
    // challenge kept; with `A2A-Version: 1.0`, the body 1.0 clients have always read.
    let (status, h, text) = s.post_raw("/", rpc03("tasks/get"), &[JSON]).await;
    assert_eq!(status, 401, "{text}");
    assert!(h.contains_key("www-authenticate"));
    assert_rpc03(&json_of(&text), -32600, "token");
    let (status, _, text) = s.post_raw("/", rpc03("GetTask"), &[JSON, V10]).await;
    assert_eq!(status, 401, "{text}");
    assert_eq!(json_of(&text)["error"]["status"], "UNAUTHENTICATED");
    // A foreign origin.
    let (status, _, text) = s
        .post_raw("/", rpc03("tasks/get"), &[JSON, bearer, FOREIGN])
        .await;
    assert_eq!(status, 403, "{text}");
    assert_rpc03(&json_of(&text), -32600, "Origin");
    // A body over the limit, and one that is not JSON: read before the method is.
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get",
        "params": {"id": "x".repeat(4096)}})
    .to_string();
    let (status, _, text) = s.post_raw("/", big.clone(), &[JSON, bearer]).await;
    assert_eq!(status, 413, "{text}");
    assert_rpc03(&json_of(&text), -32600, "");
    let (status, _, text) = s.post_raw("/", big, &[JSON, bearer, V10]).await;
    assert_eq!(status, 413, "{text}");
    assert_eq!(
        json_of(&text)["error"]["data"][0]["reason"],
        "INVALID_REQUEST"
    );
    let (status, _, text) = s.post_raw("/", "{nope", &[JSON, bearer]).await;
    assert_eq!(status, 200, "{text}");
    assert_rpc03(&json_of(&text), -32700, "");
    let (status, _, text) = s
        .post_raw(
            "/",
            rpc03("tasks/get"),
            &[("Content-Type", "text/plain"), bearer],
        )
        .await;
    assert_eq!(status, 200, "{text}");
    assert_rpc03(&json_of(&text), -32005, "application/json");
    // Past the early checks nothing changed: the method's own answer.
    let (status, _, text) = s.post_raw("/", rpc03("tasks/get"), &[JSON, bearer]).await;
    assert_eq!(status, 200, "{text}");
    let v = json_of(&text);
    assert_eq!(v["id"], 7, "{v}");
    assert_eq!(v["error"]["code"], -32001, "{v}");
    s.shutdown().await;
}

/// Sends `request` on a fresh connection and reads the whole answer.
async fn raw(addr: &str, request: &str) -> String {
    let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
    c.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(10), c.read_to_end(&mut out))
        .await
        .unwrap()
        .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

fn body(answer: &str) -> &str {
    answer.split("\r\n\r\n").nth(1).unwrap_or("")
}

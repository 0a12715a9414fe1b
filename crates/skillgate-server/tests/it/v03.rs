//! The A2A 0.3 JSON-RPC dialect beside 1.0, end to end on a real server: the card chosen by
//! `A2A-Version` (with `Vary` and distinct ETags), 0.3 methods and shapes, negotiation refusals
//! in both directions, `X-A2A-Extensions`, and `a2a_versions` narrowing either way.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_a2a::version::WireVersion;
use skillgate_runtime::checks::VersionSet;
use skillgate_runtime::*;

const CARD: &str = "/.well-known/agent-card.json";

/// A 0.3 `message/send` (or `message/stream`) body around one Data Part.
fn send03(method: &str, data: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": {"message": {
        "kind": "message", "messageId": uuid(), "role": "user",
        "parts": [{"kind": "data", "data": data}]}}})
    .to_string()
}

fn rpc03(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 8, "method": method, "params": params}).to_string()
}

async fn post(
    s: &Server,
    body: String,
    headers: &[(&str, &str)],
) -> (reqwest::header::HeaderMap, Value) {
    let mut h = vec![("Content-Type", "application/json")];
    h.extend_from_slice(headers);
    let (status, hd, text) = s.post_raw("/", body, &h).await;
    assert_eq!(status, 200, "{text}");
    (
        hd,
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}")),
    )
}

async fn card_with(
    s: &Server,
    headers: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, Value) {
    let (status, h, text) = s.get_raw(CARD, headers).await;
    let v = serde_json::from_str(&text).unwrap_or(Value::Null);
    (status, h, v)
}

fn header<'a>(h: &'a reqwest::header::HeaderMap, name: &str) -> &'a str {
    h.get(name).map(|v| v.to_str().unwrap()).unwrap_or("")
}

#[tokio::test]
async fn the_card_is_chosen_by_a2a_version_and_says_it_varies() {
    let s = start_server().await;
    let (status, h03, c03) = card_with(&s, &[]).await;
    assert_eq!(status, 200);
    assert!(header(&h03, "vary").contains("A2A-Version"), "{h03:?}");
    assert_eq!(c03["protocolVersion"], "0.3.0", "{c03}");
    assert_eq!(c03["preferredTransport"], "JSONRPC");
    assert_eq!(c03["url"].as_str().unwrap(), format!("{}/", s.base));
    // Every 1.0 member stays (a 1.0 reader without the header can still call us).
    assert!(c03["supportedInterfaces"].is_array(), "{c03}");
    assert_eq!(c03["additionalInterfaces"][0]["transport"], "JSONRPC");
    assert_eq!(c03["additionalInterfaces"][1]["transport"], "HTTP+JSON");
    assert_eq!(c03["additionalInterfaces"][1]["url"], s.base.as_str());
    // The advertisement is the same in both kinds of card.
    let (_, h10, c10) = card_with(&s, &[("A2A-Version", "1.0")]).await;
    assert!(header(&h10, "vary").contains("A2A-Version"));
    assert!(
        c10.get("url").is_none(),
        "a 1.0 reader sees a pure 1.0 card: {c10}"
    );
    // The advertisement is the same in both kinds of card, but for the 0.3 rendering's
    // explicit `required: false` (what a2a-sdk 0.3 reads over gRPC too, design.md D303).
    let mut ext03 = c03["capabilities"]["extensions"].clone();
    assert_eq!(ext03[0]["required"], false, "{ext03}");
    ext03[0].as_object_mut().unwrap().remove("required");
    assert_eq!(ext03, c10["capabilities"]["extensions"]);
    assert!(c10["capabilities"]["extensions"][0]
        .get("required")
        .is_none());
    let ifaces = c10["supportedInterfaces"].as_array().unwrap();
    let v03: Vec<_> = ifaces
        .iter()
        .filter(|i| i["protocolVersion"] == "0.3")
        .collect();
    assert_eq!(v03.len(), 2, "{c10}");
    assert_eq!(v03[0]["protocolBinding"], "JSONRPC");
    assert_eq!(v03[1]["protocolBinding"], "HTTP+JSON");
    // Distinct representations carry distinct validators, and one never revalidates the other.
    let (e03, e10) = (header(&h03, "etag"), header(&h10, "etag"));
    assert!(!e03.is_empty() && e03 != e10, "{e03} {e10}");
    let (status, _, _) = card_with(&s, &[("A2A-Version", "1.0"), ("If-None-Match", e03)]).await;
    assert_eq!(status, 200);
    let (status, _, _) = card_with(&s, &[("If-None-Match", e03)]).await;
    assert_eq!(status, 304);
    // Discovery does not fail on a version nobody serves: the card says what is served.
    let (status, _, c) = card_with(&s, &[("A2A-Version", "2.0")]).await;
    assert_eq!(status, 200);
    assert_eq!(c, c10);
    s.shutdown().await;
}

#[tokio::test]
async fn a_governed_call_over_0_3_has_0_3_shapes_and_the_same_gate() {
    let s = start_server().await;
    let card = s.card().await;
    let ok = request(&card, "evaluate_resource_condition", observe_args());
    let (h, v) = post(&s, send03("message/send", ok), &[("X-A2A-Extensions", EXT)]).await;
    assert_eq!(
        header(&h, "x-a2a-extensions"),
        EXT,
        "echoed under the name used"
    );
    assert!(h.get("a2a-extensions").is_none(), "{h:?}");
    let task = &v["result"];
    assert_eq!(v["id"], 7);
    assert_eq!(task["kind"], "task", "{v}");
    assert_eq!(task["status"]["state"], "completed", "{v}");
    let parts = task["artifacts"][0]["parts"].as_array().unwrap();
    assert!(parts.iter().all(|p| p["kind"] == "data"), "{v}");
    // tasks/get answers the same task in 0.3 shapes.
    let id = task["id"].as_str().unwrap();
    let (_, got) = post(&s, rpc03("tasks/get", json!({"id": id})), &[]).await;
    assert_eq!(got["result"]["id"], id);
    assert_eq!(got["result"]["status"]["state"], "completed");

    // The gate's codes reach a 0.3 caller in the status message's data part.
    let bad = request(
        &card,
        "evaluate_resource_condition",
        json!({"resource_id": 5}),
    );
    let (_, v) = post(
        &s,
        send03("message/send", bad),
        &[("X-A2A-Extensions", EXT)],
    )
    .await;
    let status = &v["result"]["status"];
    assert_eq!(status["state"], "rejected", "{v}");
    assert_eq!(status["message"]["role"], "agent");
    let data = &status["message"]["parts"][0];
    assert_eq!(data["kind"], "data");
    assert_eq!(data["data"]["code"], "input_invalid", "{v}");
    s.shutdown().await;
}

#[tokio::test]
async fn message_stream_over_0_3_ends_with_a_final_status_update() {
    let s = start_server().await;
    let card = s.card().await;
    let ok = request(&card, "evaluate_resource_condition", observe_args());
    let (status, h, text) = s
        .post_raw(
            "/",
            send03("message/stream", ok),
            &[
                ("Content-Type", "application/json"),
                ("Accept", "text/event-stream"),
            ],
        )
        .await;
    assert_eq!(status, 200);
    assert!(header(&h, "content-type").starts_with("text/event-stream"));
    let events = sse_events(&text);
    assert!(!events.is_empty(), "{text}");
    for e in &events {
        assert_eq!(e["jsonrpc"], "2.0");
        assert_eq!(e["id"], 7);
        assert!(
            e["result"]["kind"].is_string(),
            "every 0.3 event has a kind: {e}"
        );
    }
    let last = &events.last().unwrap()["result"];
    assert_eq!(last["kind"], "status-update", "{last}");
    assert_eq!(last["final"], true);
    assert_eq!(last["status"]["state"], "completed");
    s.shutdown().await;
}

#[tokio::test]
async fn method_family_and_version_header_must_agree() {
    let s = start_server().await;
    let card = s.card().await;
    let data = request(&card, "evaluate_resource_condition", observe_args());
    // A 0.3 method under a 1.x header: VersionNotSupported in the 1.0 shape (with data).
    let (_, v) = post(
        &s,
        send03("message/send", data.clone()),
        &[("A2A-Version", "1.0")],
    )
    .await;
    assert_eq!(v["error"]["code"], -32009, "{v}");
    // A 1.0 method with no header (which means 0.3) is refused the same way.
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": msg(data.clone())});
    let (_, v) = post(&s, body.to_string(), &[]).await;
    assert_eq!(v["error"]["code"], -32009, "{v}");
    // A version nobody serves.
    let (_, v) = post(&s, send03("message/send", data), &[("A2A-Version", "0.2")]).await;
    assert_eq!(v["error"]["code"], -32009, "{v}");
    // 0.3 errors carry no 1.0 ErrorInfo data.
    let (_, v) = post(&s, rpc03("tasks/get", json!({"id": "nope"})), &[]).await;
    assert_eq!(v["error"]["code"], -32001, "{v}");
    assert!(v["error"].get("data").is_none(), "{v}");
    s.shutdown().await;
}

#[tokio::test]
async fn narrowed_to_1_0_the_server_has_no_0_3_face() {
    let config = ServerConfig {
        a2a_versions: VersionSet::only(WireVersion::V1_0),
        ..ServerConfig::default()
    };
    let s = Server::start(agent(), config).await;
    let (status, h, c) = card_with(&s, &[]).await;
    assert_eq!(status, 200);
    assert!(!header(&h, "vary").contains("A2A-Version"), "{h:?}");
    assert!(c["supportedInterfaces"].is_array(), "{c}");
    assert!(c.get("url").is_none());
    let ifaces = c["supportedInterfaces"].as_array().unwrap();
    assert!(ifaces.iter().all(|i| i["protocolVersion"] == "1.0"), "{c}");
    let card = s.card().await;
    let data = request(&card, "evaluate_resource_condition", observe_args());
    let (_, v) = post(&s, send03("message/send", data), &[]).await;
    assert_eq!(v["error"]["code"], -32009, "{v}");
    // The 1.0 face is untouched.
    let v = s.rpc("GetTask", json!({"id": "nope"})).await;
    assert_eq!(v["error"]["code"], -32001, "{v}");
    s.shutdown().await;
}

#[tokio::test]
async fn narrowed_to_0_3_only_0_3_is_served() {
    let config = ServerConfig {
        a2a_versions: VersionSet::only(WireVersion::V0_3),
        ..ServerConfig::default()
    };
    let s = Server::start(agent(), config).await;
    let (status, _, c) = card_with(&s, &[]).await;
    assert_eq!(status, 200);
    assert_eq!(c["protocolVersion"], "0.3.0", "{c}");
    let (_, v) = post(&s, rpc03("tasks/get", json!({"id": "nope"})), &[]).await;
    assert_eq!(v["error"]["code"], -32001, "{v}");
    let v = s.rpc("GetTask", json!({"id": "nope"})).await;
    assert_eq!(v["error"]["code"], -32009, "{v}");
    s.shutdown().await;
}

#[tokio::test]
async fn a_0_3_request_without_an_id_is_answered_like_a2a_sdk_0_3_does() {
    // The 0.3 TCK (JSON-RPC MUST) sends these without "id" and expects these codes; a2a-sdk 0.3
    // answers such requests with "id": null. A 1.0 request without an id stays refused.
    let s = start_server().await;
    let card = s.card().await;
    let no_id = |method: &str, params: Value| {
        json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
    };
    let (_, v) = post(&s, no_id("message/ssend", json!({})), &[]).await;
    assert_eq!(v["error"]["code"], -32601, "{v}");
    let (_, v) = post(&s, no_id("message/send", json!({"": "not_a_dict"})), &[]).await;
    assert_eq!(v["error"]["code"], -32602, "{v}");
    let data = request(&card, "evaluate_resource_condition", observe_args());
    let params = json!({"message": {"kind": "message", "messageId": uuid(), "role": "user",
        "parts": [{"kind": "data", "data": data}]}});
    let (_, v) = post(&s, no_id("message/send", params), &[]).await;
    assert_eq!(v["result"]["status"]["state"], "completed", "{v}");
    assert!(v["id"].is_null(), "{v}");
    let (_, v) = post(
        &s,
        no_id("GetTask", json!({"id": "x"})),
        &[("A2A-Version", "1.0")],
    )
    .await;
    assert_eq!(v["error"]["code"], -32600, "{v}");
    s.shutdown().await;
}

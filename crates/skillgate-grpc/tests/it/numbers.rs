//! Data Part numbers over gRPC: a protobuf Struct holds doubles.

use crate::common::*;
use serde_json::json;
use skillgate_runtime::ServerConfig;

/// 2^53 + 1: the smallest positive integer a double cannot hold.
const BEYOND: u64 = 9_007_199_254_740_993;

#[tokio::test]
async fn integers_beyond_2_pow_53_are_rounded_over_grpc_but_not_over_jsonrpc() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;

    // JSON-RPC carries the integer exactly.
    let params = json!({"message": {"messageId": uuid(), "role": "ROLE_USER",
        "parts": [{"data": call(&card, "echo", json!({"n": BEYOND}))}]}});
    let r = s.rpc("SendMessage", params).await;
    assert_eq!(output(&r["result"]["task"])["n"], json!(BEYOND), "{r}");

    // gRPC: a protobuf client can only put the nearest double, 2^53, in the Struct (the
    // pbjson parser even refuses the integer itself). Past 2^53 - 1 the server leaves it a
    // double: the skill sees 9007199254740992.0 (a whole number, so `integer` validates)
    // and answers it.
    let mut c = s.client().await;
    assert!(serde_json::from_value::<pbjson_types::Value>(json!(BEYOND)).is_err());
    #[allow(clippy::cast_precision_loss)]
    let m = send(call(&card, "echo", json!({"n": BEYOND as f64})));
    let r = c.send_message(req(m, &[])).await.unwrap().into_inner();
    let r = json_of(&r);
    assert_eq!(r["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{r}");
    let n = output(&r["task"])["n"].as_f64().unwrap();
    assert_eq!(n, 9_007_199_254_740_992.0);

    // The task as stored (read over JSON-RPC) shows what the skill really saw.
    let id = r["task"]["id"].as_str().unwrap();
    let stored = s.rpc("GetTask", json!({"id": id})).await;
    let n = &output(&stored["result"])["n"];
    assert!(n.is_f64(), "{stored}");
    assert_eq!(n.as_f64(), Some(9_007_199_254_740_992.0));
    s.shutdown().await;
}

#[tokio::test]
async fn a_task_holding_a_big_integer_is_still_readable_over_grpc() {
    let s = Both::start(ServerConfig::default()).await;
    let card = s.card().await;
    let params = json!({"message": {"messageId": uuid(), "role": "ROLE_USER",
        "parts": [{"data": call(&card, "echo", json!({"n": BEYOND}))}]}});
    let r = s.rpc("SendMessage", params).await;
    let id = r["result"]["task"]["id"].as_str().unwrap().to_owned();
    let mut c = s.client().await;
    let t = c
        .get_task(req(
            pb::<skillgate_grpc::pb::GetTaskRequest>(json!({"id": id})),
            &[],
        ))
        .await
        .unwrap()
        .into_inner();
    // The nearest double: what a protobuf Struct can carry.
    assert_eq!(
        output(&json_of(&t))["n"].as_f64(),
        Some(9_007_199_254_740_992.0)
    );
    s.shutdown().await;
}

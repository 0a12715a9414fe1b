//! A JSON-RPC request body as the server reads it: strict, depth-limited parse, the envelope,
//! the id (read again as raw text when it is not a 64-bit integer), then the params of every
//! A2A method into their request types. Any outcome but a panic or a hang is fine.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use skillgate_a2a::{self as a2a, JsonRpcId, JsonRpcRequest};
use skillgate_core::jcs;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = jcs::parse_strict_with(data, jcs::ParseOptions { max_depth: 64 }) else {
        return;
    };
    let _ = JsonRpcRequest::id_of(&value);
    if let Some(n) = value.get("id").and_then(Value::as_number) {
        let _ = JsonRpcId::raw_number(&n.to_string());
    }
    let Ok(rpc) = JsonRpcRequest::from_value(value) else {
        return;
    };
    let Some(params) = rpc.params else {
        return;
    };
    let _ = serde_json::from_value::<a2a::SendMessageRequest>(params.clone());
    let _ = serde_json::from_value::<a2a::GetTaskRequest>(params.clone());
    let _ = serde_json::from_value::<a2a::ListTasksRequest>(params.clone());
    let _ = serde_json::from_value::<a2a::CancelTaskRequest>(params.clone());
    let _ = serde_json::from_value::<a2a::SubscribeToTaskRequest>(params);
});

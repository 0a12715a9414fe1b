//! An HTTP+JSON body as the REST binding reads it (strict parse, then the request type), and
//! every A2A wire type read and written back: whatever parses must serialize, and read again
//! to the same value (ProtoJSON round trip).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::{de::DeserializeOwned, Serialize};
use skillgate_a2a as a2a;
use skillgate_core::jcs;

fn round_trip<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(
    v: &serde_json::Value,
) {
    let Ok(t) = serde_json::from_value::<T>(v.clone()) else {
        return;
    };
    let text = serde_json::to_vec(&t).expect("a parsed value serializes");
    let again: T = serde_json::from_slice(&text).expect("its serialization parses");
    assert_eq!(again, t, "round trip of {}", String::from_utf8_lossy(&text));
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = jcs::parse_strict_with(data, jcs::ParseOptions { max_depth: 64 }) else {
        return;
    };
    round_trip::<a2a::SendMessageRequest>(&value);
    round_trip::<a2a::CancelTaskRequest>(&value);
    round_trip::<a2a::Message>(&value);
    round_trip::<a2a::Task>(&value);
    round_trip::<a2a::StreamResponse>(&value);
    round_trip::<a2a::AgentCard>(&value);
});

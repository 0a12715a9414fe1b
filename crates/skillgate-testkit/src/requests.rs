//! The requests tests send to a governed agent, built once for every binding's tests: the
//! skill request Data Part (version and digest as the Agent Card advertises them), SendMessage
//! params around a Data Part, and unique message ids.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};
use skillgate_core::wire::EXTENSION_URI;

/// The entry the card's skillgate extension advertises for `skill` (`skill_id`,
/// `skill_version`, `interface_digest`); fails the test if there is none.
pub fn advertised<'a>(card: &'a Value, skill: &str) -> &'a Value {
    card["capabilities"]["extensions"]
        .as_array()
        .unwrap_or_else(|| panic!("the card has no extensions: {card}"))
        .iter()
        .filter(|e| e["uri"] == EXTENSION_URI)
        .filter_map(|e| e["params"]["skills"].as_array())
        .flatten()
        .find(|s| s["skill_id"] == skill)
        .unwrap_or_else(|| panic!("{skill} is not advertised: {card}"))
}

/// The skill advertisements of the card's skillgate extension, to change in place (a test
/// serving a card that lies about a digest or a version); fails the test if there are none.
pub fn advertisements_mut(card: &mut Value) -> &mut Vec<Value> {
    let shown = card.to_string();
    card["capabilities"]["extensions"]
        .as_array_mut()
        .and_then(|exts| exts.iter_mut().find(|e| e["uri"] == EXTENSION_URI))
        .and_then(|e| e["params"]["skills"].as_array_mut())
        .unwrap_or_else(|| panic!("the card advertises no governed skill: {shown}"))
}

/// The request Data Part for the governed `skill` with `arguments`, carrying the version and
/// interface digest the card advertises for it.
pub fn skill_request(card: &Value, skill: &str, arguments: Value) -> Value {
    let entry = advertised(card, skill);
    json!({"skill": skill, "skill_version": entry["skill_version"],
        "interface_digest": entry["interface_digest"], "arguments": arguments})
}

/// A message id unique within the test process (`m-0`, `m-1`, ...).
pub fn message_id() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!("m-{}", N.fetch_add(1, Ordering::Relaxed))
}

/// SendMessage params (ProtoJSON): a user message with a fresh id and one Data Part, `data`
/// (`application/json`); add `configuration` to the result as a test needs.
pub fn send_params(data: Value) -> Value {
    json!({"message": {"messageId": message_id(), "role": "ROLE_USER",
        "parts": [{"data": data, "mediaType": "application/json"}]}})
}

//! The signing payload: what A2A 1.0 section 8.4.1 says is signed, computed from the card's
//! JSON as received (unknown members included, so nothing a signer covered is dropped).
//!
//! Removed before canonicalization: `signatures`; empty strings, arrays and objects at any
//! depth (ProtoJSON prints no default-valued field without presence, and the official SDK's
//! signer drops empty values the same way, extension `params` included); and the two boolean
//! fields a card can hold without presence when they are `false`: an extension's `required`
//! and an OAuth authorization-code flow's `pkceRequired`. `optional` booleans such as
//! `capabilities.streaming` keep an explicit `false`.

use serde_json::{Map, Value};

/// Members that are proto3 booleans without presence: `false` is their default, never printed.
const NO_PRESENCE_BOOLEANS: &[(&str, &str)] = &[
    ("extensions", "required"),
    ("authorizationCode", "pkceRequired"),
];

/// The RFC 8785 bytes that a signature of `card` covers; `None` if `card` is not an object.
pub fn signing_payload(card: &Value) -> Option<Vec<u8>> {
    let Value::Object(members) = card else {
        return None;
    };
    let mut members = members.clone();
    members.remove("signatures");
    let cleaned = clean(Value::Object(members), "").unwrap_or(Value::Object(Map::new()));
    Some(skillgate_core::jcs::to_canonical_vec(&cleaned))
}

/// `value` without its empty members; `None` when nothing is left. `parent` is the member name
/// the value sits under (for an array element, the array's name).
fn clean(value: Value, parent: &str) -> Option<Value> {
    match value {
        Value::String(s) if s.is_empty() => None,
        Value::Array(items) => {
            let kept: Vec<Value> = items.into_iter().filter_map(|v| clean(v, parent)).collect();
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        Value::Object(members) => {
            let mut kept = Map::new();
            for (k, v) in members {
                let default_false = v == Value::Bool(false)
                    && NO_PRESENCE_BOOLEANS
                        .iter()
                        .any(|(p, m)| *p == parent && *m == k);
                if default_false {
                    continue;
                }
                if let Some(v) = clean(v, &k) {
                    kept.insert(k, v);
                }
            }
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        other => Some(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_specifications_example_canonical_form() {
        // A2A 1.0.1 section 8.4.1's worked example.
        let card = json!({"name": "Example Agent", "description": "",
            "capabilities": {"streaming": false, "pushNotifications": false, "extensions": []}, "skills": []});
        let got = String::from_utf8(signing_payload(&card).unwrap()).unwrap();
        // The example keeps the REQUIRED empty `description` and `skills`; the official SDK
        // (whose canonical form interop needs) drops every empty value. We follow the SDK.
        assert_eq!(
            got,
            r#"{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}"#
        );
    }

    #[test]
    fn signatures_and_default_booleans_are_not_signed_but_optional_false_is() {
        let card = json!({"name": "a", "signatures": [{"protected": "x", "signature": "y"}],
            "capabilities": {"streaming": false, "extensions": [{"uri": "u", "required": false, "params": {"x": ""}},
                {"uri": "v", "required": true}]},
            "securitySchemes": {"o": {"oauth2SecurityScheme": {"flows": {"authorizationCode": {"pkceRequired": false, "tokenUrl": "t"}}}}}});
        let got = String::from_utf8(signing_payload(&card).unwrap()).unwrap();
        assert_eq!(
            got,
            r#"{"capabilities":{"extensions":[{"uri":"u"},{"required":true,"uri":"v"}],"streaming":false},"name":"a","securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{"authorizationCode":{"tokenUrl":"t"}}}}}}"#
        );
    }
}

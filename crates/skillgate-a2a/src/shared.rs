//! Immutable JSON shared between tasks: parsed once, serialized once.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// A JSON value that never changes, held with its serialization: cloning it is a reference
/// count increment and serializing it copies the stored text, instead of walking (and, for a
/// clone, allocating) the whole tree.
///
/// A server hands the same document (a Skill Interface Document in every describe_skill
/// answer) to every task; as a [`crate::PartContent::SharedData`] it is kept once, however
/// many tasks hold it. Equality is the value's.
#[derive(Clone)]
pub struct SharedJson(Arc<Inner>);

struct Inner {
    value: Value,
    text: Box<RawValue>,
    /// `sha256:` and the hex SHA-256 of `text`, made on first use.
    fingerprint: OnceLock<String>,
}

impl SharedJson {
    /// Serializes `value` once and keeps both forms.
    pub fn new(value: Value) -> Self {
        // Serializing a `Value` cannot fail (its keys are strings, its numbers finite) and
        // yields JSON; the default (`null`) only keeps this total without a panic path.
        let text = serde_json::to_string(&value)
            .ok()
            .and_then(|t| RawValue::from_string(t).ok())
            .unwrap_or_default();
        Self(Arc::new(Inner {
            value,
            text,
            fingerprint: OnceLock::new(),
        }))
    }

    /// The value.
    pub fn value(&self) -> &Value {
        &self.0.value
    }

    /// Its JSON text, exactly as it is written on the wire.
    pub fn text(&self) -> &str {
        self.0.text.get()
    }

    /// `sha256:` and the lowercase hex SHA-256 of [`SharedJson::text`] (its exact bytes, not
    /// a canonical form): a name under which a store can keep the text once for every task
    /// that holds it. Computed on the first call, then kept.
    pub fn fingerprint(&self) -> &str {
        self.0.fingerprint.get_or_init(|| {
            use sha2::{Digest, Sha256};
            use std::fmt::Write;
            let hash = Sha256::digest(self.text().as_bytes());
            let mut out = String::with_capacity(7 + 64);
            out.push_str("sha256:");
            for b in hash.iter() {
                // Writing into a String cannot fail.
                let _ = write!(out, "{b:02x}");
            }
            out
        })
    }
}

impl PartialEq for SharedJson {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.value == other.0.value
    }
}

impl fmt::Debug for SharedJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0.value, f)
    }
}

impl Serialize for SharedJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.text.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{JsonRpcId, JsonRpcResponse, JsonRpcSuccess, Part, PartContent};
    use serde_json::json;

    fn doc() -> Value {
        json!({"interface_digest": "sha256:00", "skill_interface": {"a": [1, 2.5, "é\n"], "b": null}})
    }

    #[test]
    fn a_shared_part_is_written_and_read_as_a_data_part() {
        let shared = Part::shared_data(SharedJson::new(doc()));
        let plain = Part::data(doc());
        let text = serde_json::to_string(&shared).unwrap();
        assert_eq!(text, serde_json::to_string(&plain).unwrap());
        assert_eq!(shared, plain);
        assert_eq!(shared.as_data(), Some(&doc()));
        assert_eq!(shared.content.member(), "data");
        let back: Part = serde_json::from_str(&text).unwrap();
        assert!(matches!(back.content, PartContent::Data(_)));
        assert_eq!(back, shared);
        assert_ne!(Part::shared_data(SharedJson::new(json!(1))), plain);
    }

    #[test]
    fn clones_share_one_copy() {
        let a = SharedJson::new(doc());
        let b = a.clone();
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert_eq!(a.text(), serde_json::to_string(&doc()).unwrap());
    }

    #[test]
    fn the_fingerprint_is_the_sha256_of_the_text() {
        // SHA-256 of the three bytes `[1]`, computed independently (`printf '[1]' | sha256sum`).
        let one = SharedJson::new(json!([1]));
        assert_eq!(
            one.fingerprint(),
            "sha256:080a9ed428559ef602668b4c00f114f1a11c3f6b02a435f0bdc154578e4d7f22"
        );
        assert_eq!(one.clone().fingerprint(), one.fingerprint());
        assert_ne!(SharedJson::new(json!([2])).fingerprint(), one.fingerprint());
    }

    #[test]
    fn a_success_envelope_is_the_bytes_of_a_result_response() {
        let id = JsonRpcId::String("x".into());
        let direct = serde_json::to_string(&JsonRpcSuccess {
            id: &id,
            result: &Part::shared_data(SharedJson::new(doc())),
        })
        .unwrap();
        let via_value = serde_json::to_string(&JsonRpcResponse::result(
            id,
            serde_json::to_value(Part::data(doc())).unwrap(),
        ))
        .unwrap();
        let direct: Value = serde_json::from_str(&direct).unwrap();
        let via_value: Value = serde_json::from_str(&via_value).unwrap();
        assert_eq!(direct, via_value);
    }
}

//! RFC 8785 conformance: the reference vectors, byte for byte, plus properties.

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{Map, Value};
use skillgate_core::jcs;

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/jcs")
}

#[test]
fn every_reference_vector_is_byte_exact() {
    let mut seen = 0;
    for entry in std::fs::read_dir(vectors_dir().join("input")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_owned();
        let input = std::fs::read(&path).unwrap();
        let want = std::fs::read(vectors_dir().join("output").join(&name)).unwrap();
        let got = jcs::canonicalize(&input).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "vector {name:?}"
        );
        // Canonical output is a fixed point.
        assert_eq!(jcs::canonicalize(&got).unwrap(), got, "{name:?} not idempotent");
        seen += 1;
    }
    assert_eq!(seen, 6, "expected the six cyberphone vectors");
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| Value::from(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| Value::from(f)),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Serializes with arbitrary whitespace and reversed member order.
fn scramble(v: &Value, out: &mut String, ws: &str) {
    match v {
        Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().rev().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(ws);
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push_str(ws);
                out.push(':');
                scramble(v, out, ws);
            }
            out.push_str(ws);
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(ws);
                scramble(v, out, ws);
            }
            out.push(']');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap()),
    }
}

proptest! {
    #[test]
    fn canonicalize_is_idempotent(v in arb_json()) {
        let once = jcs::to_canonical_vec(&v);
        let twice = jcs::canonicalize(&once).unwrap();
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn whitespace_and_member_order_do_not_matter(v in arb_json(), ws in "[ \t\r\n]{0,3}") {
        let mut text = String::new();
        scramble(&v, &mut text, &ws);
        let from_text = jcs::canonicalize(text.as_bytes()).unwrap();
        prop_assert_eq!(from_text, jcs::to_canonical_vec(&v));
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = jcs::canonicalize(&bytes);
    }
}

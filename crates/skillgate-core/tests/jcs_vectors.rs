//! RFC 8785 conformance: the reference vectors, byte for byte, plus properties.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{Map, Value};
use skillgate_core::jcs::{self, JcsErrorKind};

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
        assert_eq!(
            jcs::canonicalize(&got).unwrap(),
            got,
            "{name:?} not idempotent"
        );
        seen += 1;
    }
    assert_eq!(seen, 6, "expected the six cyberphone vectors");
}

/// Found by the `jcs` fuzz target: bytes that are not UTF-8 where a value should start. Both
/// paths refuse them at the same place; the text path, which checks UTF-8 first, says so.
#[test]
fn invalid_utf8_where_a_value_starts_is_refused_by_both_paths() {
    let input = b"{\n \"result\":\xdd\xdd\x9e\x9cept\"\n}";
    let text = jcs::canonicalize(input).unwrap_err();
    let value = jcs::parse_strict(input).unwrap_err();
    assert_eq!(text.kind, JcsErrorKind::InvalidUtf8);
    assert_eq!((text.line, text.column), (2, 11));
    assert_eq!((value.line, value.column), (2, 11));
    assert!(skillgate_core::digest_text(input).is_err());
}

/// Found by the `jcs` fuzz target: a `\u` escape cut short by the end of the input is an
/// unexpected end on both paths, whatever the bytes left are.
#[test]
fn a_unicode_escape_cut_by_the_end_is_an_unexpected_end() {
    for input in [
        &b"{\n  \"k\":\"A\\u\n"[..],
        b"\"\\u12",
        b"\"\\ud83d\\u1",
        // A high surrogate at the very end, or followed by a lone backslash.
        b"{\n  \"\\u20ac\": \"E\\ud83e",
        b"\"\\ud83e\\",
    ] {
        let text = jcs::canonicalize(input).unwrap_err();
        let value = jcs::parse_strict(input).unwrap_err();
        assert_eq!(text.kind, JcsErrorKind::UnexpectedEof, "{text}");
        assert_eq!(value.kind, JcsErrorKind::UnexpectedEof, "{value}");
    }
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
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

/// Text that exercises escapes, numbers and nesting, for comparing the two paths.
fn arb_text() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("-0".to_owned()),
        Just("1e400".to_owned()),
        Just("1E-400".to_owned()),
        Just("9007199254740993".to_owned()),
        Just("123456789012345678901234567890".to_owned()),
        Just("0.1e1".to_owned()),
        Just("01".to_owned()),
        Just("1.".to_owned()),
        Just("\"\\ud83d\\ude02\\u00e9\\n\"".to_owned()),
        Just("\"\\ud800\"".to_owned()),
        Just("\"\\udc00x\"".to_owned()),
        Just("\"\u{fb33}\"".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|f| format!("{f:e}")),
        "\"[a-z\u{e9}\u{1F602}\u{fb33}]{0,3}\"".prop_map(|s| s),
    ];
    atom.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec(("[ab\u{fb33}\u{1F602}]{0,2}", inner), 0..5).prop_map(|v| {
                let members: Vec<String> = v
                    .into_iter()
                    .map(|(k, v)| format!("\"{k}\" : {v}"))
                    .collect();
                format!("{{ {} }}", members.join(" ,"))
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The fast text path and parse-then-serialize agree on every input, valid or not.
    #[test]
    fn text_path_agrees_with_value_path(text in arb_text()) {
        let fast = jcs::canonicalize(text.as_bytes());
        let slow = jcs::parse_strict(text.as_bytes()).map(|v| jcs::to_canonical_vec(&v));
        match (&fast, &slow) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            // The text path finds duplicates when an object closes, the streaming path at the
            // second name; with several defects in one input each may report a different one.
            (Err(a), Err(b)) if a.kind == JcsErrorKind::DuplicateMember
                || b.kind == JcsErrorKind::DuplicateMember => {}
            (Err(a), Err(b)) => prop_assert_eq!(a.kind, b.kind, "{} vs {}", a, b),
            _ => prop_assert!(false, "disagree on {:?}: {:?} vs {:?}", text, fast, slow),
        }
    }

    /// The hashed-as-produced digest of text is the digest of the one-vector canonical form.
    #[test]
    fn digest_of_text_agrees_with_canonical_bytes(text in arb_text()) {
        let streamed = skillgate_core::digest_text(text.as_bytes());
        let whole = jcs::canonicalize(text.as_bytes()).map(|b| skillgate_core::Digest::of_bytes(&b));
        prop_assert_eq!(streamed, whole);
    }

    #[test]
    fn mutated_text_agrees_too(text in arb_text(), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = text.into_bytes();
        if !bytes.is_empty() {
            let i = cut.index(bytes.len());
            bytes[i] = byte;
        }
        let fast = jcs::canonicalize(&bytes);
        let slow = jcs::parse_strict(&bytes).map(|v| jcs::to_canonical_vec(&v));
        prop_assert_eq!(fast.is_ok(), slow.is_ok(), "{:?}: {:?} vs {:?}", String::from_utf8_lossy(&bytes), fast, slow);
        if let (Ok(a), Ok(b)) = (fast, slow) {
            prop_assert_eq!(a, b);
        }
    }
}

//! The chunked and streamed paths against the one-vector path.

use super::*;
use proptest::prelude::*;

/// Records every chunk a streamed pass hands out.
#[derive(Default)]
struct Chunks(Vec<Vec<u8>>);

impl Sink for Chunks {
    fn put(&mut self, bytes: &[u8]) {
        self.0.push(bytes.to_vec());
    }
}

fn streamed(text: &[u8], stream_min: usize) -> Result<(Vec<u8>, usize)> {
    let mut sink = Chunks::default();
    stream_with(text, 128, &mut sink, stream_min)?;
    Ok((sink.0.concat(), sink.0.len()))
}

/// Many records under an unsorted top-level object, about `n` * 100 bytes.
fn records(n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"z": {i}, "name": "r\u00e9c {i}", "v": {}.5, "tags": ["a", "b"], "a": {{"y": null, "x": true}}}}"#,
                i % 97
            )
        })
        .collect();
    format!(
        r#"{{"version": "1", "records": [{}], "count": {n}}}"#,
        items.join(", ")
    )
}

#[test]
fn a_large_object_is_streamed_in_chunks_with_the_same_bytes() {
    let text = records(20_000);
    let whole = canonicalize_text(text.as_bytes(), 128).unwrap();
    let (bytes, chunks) = streamed(text.as_bytes(), STREAM_MIN).unwrap();
    assert_eq!(bytes, whole);
    // ~2 MB out in 64 KiB pieces: held whole, it would be one chunk at the end.
    assert!(chunks > 20, "{chunks} chunks");
    assert!(whole.starts_with(br#"{"count":20000,"records":[{"a":{"x":true,"y":null}"#));
}

#[test]
fn a_large_array_is_handed_out_in_chunks() {
    let text = format!("[{}]", vec![r#"{"b":1,"a":"x"}"#; 50_000].join(","));
    let (bytes, chunks) = streamed(text.as_bytes(), STREAM_MIN).unwrap();
    assert_eq!(bytes, canonicalize_text(text.as_bytes(), 128).unwrap());
    assert!(chunks > 5, "{chunks} chunks");
}

#[test]
fn streamed_errors_are_the_first_in_text_order() {
    // The member sorted first (`a`) has the later defect; the error must be `b`'s.
    let text = br#"{"b": [1, 01], "a": {"k": 1, "k": 2}}"#;
    let err = streamed(text, 0).unwrap_err();
    assert_eq!(err, canonicalize_text(text, 128).unwrap_err());
    assert_eq!(err.kind, JcsErrorKind::Syntax);
    for bad in [
        &br#"{"a": 1x}"#[..],
        br#"{"a": "x" "y"}"#,
        br#"{"a": [1, 2}"#,
        br#"{"a": 1, "a": 2}"#,
        br#"{"a": {"b": "#,
        br#"{"a": "\"}"#,
    ] {
        assert_eq!(
            streamed(bad, 0).unwrap_err(),
            canonicalize_text(bad, 128).unwrap_err(),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn find_special_finds_the_first_special_byte() {
    let cases: [(&[u8], usize); 7] = [
        (b"", 0),
        (b"abc", 3),
        (b"abcdefgh\"", 8),
        (b"abcdefghij\\k", 10),
        (b"ab\x1f\"cdefghij", 2),
        ("h\u{e9}llo w\u{f6}rld\u{1F602}\"".as_bytes(), 17),
        (b"\x7f\x80\xff\x20\x21\x22", 5),
    ];
    for (bytes, want) in cases {
        assert_eq!(find_special(bytes), want, "{bytes:?}");
    }
}

fn arb_text() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just("null".to_owned()),
        Just("-0".to_owned()),
        Just("1e400".to_owned()),
        Just("01".to_owned()),
        Just("9007199254740993".to_owned()),
        Just("\"\\ud83d\\ude02\\n\"".to_owned()),
        Just("\"\\ud800\"".to_owned()),
        any::<i32>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|f| format!("{f:e}")),
        "\"[a-z\u{e9}\u{1F602}\u{fb33}\\\\\"]{0,10}\"".prop_map(|s| s),
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

    /// Streaming every object (threshold 0) or none gives the bytes and the exact error
    /// of the one-vector path, on valid and mutated input.
    #[test]
    fn streaming_agrees_with_buffering(
        text in arb_text(),
        cut in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        mutate in any::<bool>(),
    ) {
        let mut bytes = text.into_bytes();
        if mutate && !bytes.is_empty() {
            let i = cut.index(bytes.len());
            bytes[i] = byte;
        }
        let whole = canonicalize_text(&bytes, 128);
        for stream_min in [0, 16, usize::MAX] {
            let got = streamed(&bytes, stream_min).map(|(b, _)| b);
            prop_assert_eq!(&got, &whole, "stream_min {}", stream_min);
        }
    }
}

#[test]
fn repeated_member_orders_sort_like_new_ones() {
    // Ten orders of the same names cycle through the remembered shapes (eight) twice; a
    // repeated order with a duplicate name is still refused.
    let names = ["c", "a", "b", "\u{fb33}", "\u{1F602}"];
    let mut items = Vec::new();
    for round in 0..2 {
        for i in 0..10 {
            let mut keys = names.to_vec();
            keys.rotate_left(i % names.len());
            if i >= names.len() {
                keys.reverse();
            }
            let members: Vec<String> = keys
                .iter()
                .enumerate()
                .map(|(j, k)| format!("\"{k}\":{}", round * 100 + j))
                .collect();
            items.push(format!("{{{}}}", members.join(",")));
        }
    }
    let text = format!("[{}]", items.join(","));
    let got = canonicalize_text(text.as_bytes(), 128).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(got, crate::jcs::to_canonical_vec(&value));
    let dup = br#"[{"b":1,"a":2},{"b":1,"a":2},{"b":1,"b":2}]"#;
    let err = canonicalize_text(dup, 128).unwrap_err();
    assert_eq!(err.kind, JcsErrorKind::DuplicateMember);
    assert_eq!(err.column, 37);
}

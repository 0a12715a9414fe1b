//! RFC 8785 canonicalization: the text path (one vector, chunked, streamed) and the value path
//! (strict parse, then the writer) must agree on every input, valid or not, and the canonical
//! form must be a fixed point. The strict typed read must refuse what the strict parse refuses.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillgate_core::jcs::{self, JcsErrorKind, ParseOptions};
use skillgate_core::Digest;

fuzz_target!(|data: &[u8]| {
    let text = jcs::canonicalize(data);
    let value = jcs::parse_strict(data).map(|v| jcs::to_canonical_vec(&v));
    match (&text, &value) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "text and value paths disagree"),
        (Err(a), Err(b)) => {
            // The value parser finds a duplicate at the second name, the text path when the
            // object closes: with several defects each may report another one first. The text
            // path checks UTF-8 before anything else; serde_json reports invalid bytes where a
            // value should start as a syntax error (same position).
            let lenient = [JcsErrorKind::DuplicateMember, JcsErrorKind::InvalidUtf8];
            if !lenient.contains(&a.kind) && !lenient.contains(&b.kind) {
                assert_eq!(a.kind, b.kind, "{a} vs {b}");
            }
        }
        _ => panic!("text path {text:?}, value path {value:?}"),
    }
    // Streamed from every size (0: every object), and the default chunked path.
    for stream_min in [0, 32, usize::MAX] {
        let mut out = Vec::new();
        let streamed = jcs::canonicalize_into_streaming_from(
            data,
            ParseOptions::default(),
            &mut out,
            stream_min,
        )
        .map(|()| out);
        assert_eq!(streamed, text, "streamed from {stream_min}");
    }
    let digest = skillgate_core::digest_text(data);
    assert_eq!(
        digest,
        text.as_ref()
            .map(|b| Digest::of_bytes(b))
            .map_err(Clone::clone)
    );
    if let Ok(canonical) = &text {
        assert_eq!(
            jcs::canonicalize(canonical).as_ref(),
            Ok(canonical),
            "not a fixed point"
        );
    }
    // The strict typed read refuses exactly what the `Value` parse refuses (read into a `Value`,
    // and into a type that ignores everything, which must still walk it all), and reads the
    // same value.
    let strict = jcs::parse_strict(data);
    let typed = jcs::from_slice_strict::<serde_json::Value>(data, ParseOptions::default());
    match (&strict, &typed) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the typed read reads another value"),
        (Err(_), Err(_)) => {}
        _ => panic!("value parse {strict:?}, typed read {typed:?}"),
    }
    let ignored = jcs::from_slice_strict::<serde::de::IgnoredAny>(data, ParseOptions::default());
    assert_eq!(strict.is_ok(), ignored.is_ok(), "{strict:?} vs {ignored:?}");
});

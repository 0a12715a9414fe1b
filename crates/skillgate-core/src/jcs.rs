//! RFC 8785 JSON Canonicalization Scheme over strict I-JSON input.
//!
//! Parsing rejects what RFC 7493 forbids instead of "fixing" it: duplicate member names, lone
//! surrogates, numbers outside the IEEE 754 double range, and nesting deeper than a limit. The
//! writer formats numbers as ECMAScript `Number.prototype.toString` does (via `ryu-js`) and sorts
//! members by their UTF-16 code units.

use std::cmp::Ordering;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Default maximum nesting depth of arrays and objects.
pub const DEFAULT_MAX_DEPTH: usize = 128;
/// Hard ceiling for a configured depth, so that parsing can never exhaust a thread's stack.
pub const MAX_DEPTH_CEILING: usize = 512;

/// What to say about an input with nothing but JSON whitespace in it: the parser's own "EOF
/// while parsing a value at line 1, column 0" reads like a truncation, when the usual cause is
/// an empty file or a pipe that produced nothing.
pub const EMPTY_INPUT: &str = "empty input: expected a JSON value";

/// Whether `bytes` hold nothing but JSON whitespace (RFC 8259 section 2), see [`EMPTY_INPUT`].
pub fn is_blank(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// What was wrong with the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JcsErrorKind {
    /// Not JSON at all, or malformed JSON.
    Syntax,
    /// The input ended early.
    UnexpectedEof,
    /// Something other than whitespace follows the value.
    TrailingCharacters,
    /// An object repeats a member name (forbidden by I-JSON).
    DuplicateMember,
    /// A `\uD800`-style escape without its partner (forbidden by I-JSON).
    LoneSurrogate,
    /// A number outside IEEE 754 double range, e.g. `1e400`.
    NumberOutOfRange,
    /// Arrays and objects nest deeper than the limit.
    TooDeep,
    /// The bytes are not UTF-8.
    InvalidUtf8,
}

impl JcsErrorKind {
    /// A stable machine-readable name.
    pub fn as_str(self) -> &'static str {
        match self {
            JcsErrorKind::Syntax => "syntax",
            JcsErrorKind::UnexpectedEof => "unexpected_eof",
            JcsErrorKind::TrailingCharacters => "trailing_characters",
            JcsErrorKind::DuplicateMember => "duplicate_member",
            JcsErrorKind::LoneSurrogate => "lone_surrogate",
            JcsErrorKind::NumberOutOfRange => "number_out_of_range",
            JcsErrorKind::TooDeep => "too_deep",
            JcsErrorKind::InvalidUtf8 => "invalid_utf8",
        }
    }
}

/// Input that is not I-JSON, with the 1-based line and column where it was detected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at line {line}, column {column}")]
pub struct JcsError {
    /// Category of the problem.
    pub kind: JcsErrorKind,
    /// Human-readable description without the position.
    pub message: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// Options for strict parsing.
#[derive(Debug, Clone, Copy)]
pub struct ParseOptions {
    /// Maximum nesting depth (clamped to [`MAX_DEPTH_CEILING`]).
    pub max_depth: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self {
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

pub use crate::jcs_typed::{from_slice_strict, TypedError};

/// Parses I-JSON text strictly with the default depth limit.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, JcsError> {
    parse_strict_with(bytes, ParseOptions::default())
}

/// Parses I-JSON text strictly.
pub fn parse_strict_with(bytes: &[u8], options: ParseOptions) -> Result<Value, JcsError> {
    let max_depth = options.max_depth.min(MAX_DEPTH_CEILING);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // Our own seed enforces the depth limit; serde_json's fixed limit would cap it at 127.
    de.disable_recursion_limit();
    let value = StrictSeed {
        depth_left: max_depth,
    }
    .deserialize(&mut de)
    .map_err(classify)?;
    de.end().map_err(classify)?;
    Ok(value)
}

/// Canonicalizes JSON text with the default depth limit: strict parse, then RFC 8785.
pub fn canonicalize(bytes: &[u8]) -> Result<Vec<u8>, JcsError> {
    canonicalize_with(bytes, ParseOptions::default())
}

/// Canonicalizes JSON text; as strict as [`parse_strict_with`], without building a `Value`.
pub fn canonicalize_with(bytes: &[u8], options: ParseOptions) -> Result<Vec<u8>, JcsError> {
    crate::jcs_text::canonicalize_text(bytes, options.max_depth.min(MAX_DEPTH_CEILING))
}

/// Canonicalizes JSON text into `sink`, in chunks of up to 64 KiB, with the strictness of
/// [`canonicalize_with`].
///
/// Memory stays near the input's size however large it is: finished bytes leave as soon as no
/// open object can still reorder them, and a large object is streamed member by member in key
/// order. On an error `sink` has received part of the output, which the caller must discard.
pub fn canonicalize_into(
    bytes: &[u8],
    options: ParseOptions,
    sink: &mut dyn Sink,
) -> Result<(), JcsError> {
    crate::jcs_text::canonicalize_text_into(bytes, options.max_depth.min(MAX_DEPTH_CEILING), sink)
}

/// [`canonicalize_into`] streaming every object of at least `stream_min` input bytes (normally
/// 256 KiB), so that tests and the fuzz targets reach the streamed path with small inputs.
#[doc(hidden)]
pub fn canonicalize_into_streaming_from(
    bytes: &[u8],
    options: ParseOptions,
    sink: &mut dyn Sink,
    stream_min: usize,
) -> Result<(), JcsError> {
    crate::jcs_text::stream_with(
        bytes,
        options.max_depth.min(MAX_DEPTH_CEILING),
        sink,
        stream_min,
    )
}

/// The RFC 8785 serialization of an already-parsed value.
///
/// Integers beyond 2^53 are written as the nearest double, as JCS requires.
pub fn to_canonical_vec(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    write_canonical(value, &mut out);
    out
}

/// The RFC 8785 serialization of `value`, as a `String`.
pub fn to_canonical_string(value: &Value) -> String {
    let bytes = to_canonical_vec(value);
    // The writer emits only valid UTF-8: input strings are UTF-8 and escapes are ASCII.
    String::from_utf8(bytes).unwrap_or_default()
}

/// A byte sink for the canonical writer.
pub trait Sink {
    /// Appends bytes.
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Writes the RFC 8785 serialization of `value` into `out`.
pub fn write_canonical<S: Sink + ?Sized>(value: &Value, out: &mut S) {
    match value {
        Value::Null => out.put(b"null"),
        Value::Bool(true) => out.put(b"true"),
        Value::Bool(false) => out.put(b"false"),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.put(b"[");
            let mut first = true;
            for item in items {
                if !first {
                    out.put(b",");
                }
                first = false;
                write_canonical(item, out);
            }
            out.put(b"]");
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object<S: Sink + ?Sized>(map: &Map<String, Value>, out: &mut S) {
    out.put(b"{");
    if map_in_utf16_order(map) {
        write_members(map.iter(), out);
    } else {
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        sort_members(&mut entries, |e| e.0.as_str());
        write_members(entries, out);
    }
    out.put(b"}");
}

fn write_members<'a, S: Sink + ?Sized>(
    members: impl IntoIterator<Item = (&'a String, &'a Value)>,
    out: &mut S,
) {
    let mut first = true;
    for (k, v) in members {
        if !first {
            out.put(b",");
        }
        first = false;
        write_string(k, out);
        out.put(b":");
        write_canonical(v, out);
    }
}

/// Sorts object members into RFC 8785 order (section 3.2.3: by the UTF-16 code units of their
/// names), for writers that walk objects of their own rather than a `serde_json` map.
///
/// UTF-8 byte order is the same order unless a name holds a character at or above U+E000, so
/// names are compared as bytes unless one does; members already in order cost one pass.
/// Members with equal names end up adjacent: refusing them is the caller's choice.
pub fn sort_members<T>(members: &mut [T], name: impl Fn(&T) -> &str) {
    let high = members.iter().any(|m| name(m).bytes().any(|b| b >= 0xEE));
    let cmp = |a: &str, b: &str| {
        if high {
            utf16_cmp(a, b)
        } else {
            a.as_bytes().cmp(b.as_bytes())
        }
    };
    if members
        .windows(2)
        .all(|w| cmp(name(&w[0]), name(&w[1])) == Ordering::Less)
    {
        return;
    }
    members.sort_unstable_by(|a, b| cmp(name(a), name(b)));
}

/// True when iterating the map already yields UTF-16 order.
///
/// serde_json's default map is sorted by UTF-8 bytes, which equals UTF-16 order unless a key
/// holds a character at or above U+E000; checking keeps us correct even if a dependency turns
/// on `preserve_order`.
fn map_in_utf16_order(map: &Map<String, Value>) -> bool {
    if map_iterates_sorted() {
        return !map.keys().any(|k| k.bytes().any(|b| b >= 0xEE));
    }
    let mut prev: Option<&str> = None;
    for k in map.keys() {
        if k.bytes().any(|b| b >= 0xEE) {
            return false;
        }
        if let Some(p) = prev {
            if p.as_bytes() >= k.as_bytes() {
                return false;
            }
        }
        prev = Some(k);
    }
    true
}

/// Whether serde_json's map iterates in key order (a `BTreeMap`), probed once at run time
/// because a dependency may switch on `preserve_order` through feature unification.
fn map_iterates_sorted() -> bool {
    static SORTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SORTED.get_or_init(|| {
        let mut m = Map::new();
        m.insert("b".to_owned(), Value::Null);
        m.insert("a".to_owned(), Value::Null);
        m.keys().next().map(String::as_str) == Some("a")
    })
}

/// Compares strings by their UTF-16 code units, as RFC 8785 section 3.2.3 requires.
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Writes a JSON number as RFC 8785 does: an integer of magnitude up to 2^53 in decimal
/// digits, anything else as ECMAScript's `Number.prototype.toString` writes the nearest double
/// (so `2^53 + 1` is written `9007199254740992`, and `-0.0` is `0`). The value writer and the
/// Python package's object walk use it; the text canonicalizer copies integers of up to 15
/// digits as written (already canonical) and formats every other number with the same double
/// formatting.
pub fn write_number<S: Sink + ?Sized>(n: &Number, out: &mut S) {
    const EXACT: u64 = 1 << 53;
    if let Some(u) = n.as_u64() {
        if u <= EXACT {
            out.put(itoa::Buffer::new().format(u).as_bytes());
            return;
        }
    } else if let Some(i) = n.as_i64() {
        if i.unsigned_abs() <= EXACT {
            out.put(itoa::Buffer::new().format(i).as_bytes());
            return;
        }
    }
    // serde_json (without arbitrary_precision) always yields a finite double here.
    write_f64(n.as_f64().unwrap_or(0.0), out);
}

/// Writes a finite double as ECMAScript's `Number.prototype.toString` would (`-0` is `0`).
pub(crate) fn write_f64<S: Sink + ?Sized>(f: f64, out: &mut S) {
    if f == 0.0 {
        out.put(b"0");
        return;
    }
    out.put(ryu_js::Buffer::new().format_finite(f).as_bytes());
}

/// Writes `s` as an RFC 8785 string (section 3.2.2.2): quoted, `"` and `\\` escaped, the
/// control characters as their short escapes or `\u00xx`, everything else as its UTF-8 bytes.
pub fn write_string<S: Sink + ?Sized>(s: &str, out: &mut S) {
    let bytes = s.as_bytes();
    // Most strings need no escape; a branch-free scan lets the compiler vectorize the check.
    let plain = !bytes.iter().fold(false, |acc, &b| {
        acc | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if plain {
        out.put(b"\"");
        out.put(bytes);
        out.put(b"\"");
        return;
    }
    out.put(b"\"");
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            0x0C => b"\\f",
            b'\r' => b"\\r",
            0x00..=0x1F => b"",
            _ => continue,
        };
        if start < i {
            out.put(&bytes[start..i]);
        }
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.put(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xF) as usize],
            ]);
        } else {
            out.put(escape);
        }
        start = i + 1;
    }
    if start < bytes.len() {
        out.put(&bytes[start..]);
    }
    out.put(b"\"");
}

// ---------------------------------------------------------------------------------------------
// Strict parsing: a serde seed that builds a serde_json::Value, refusing duplicates and depth.

pub(crate) const DUPLICATE_TAG: &str = "duplicate member name ";
pub(crate) const DEPTH_TAG: &str = "nesting deeper than ";

struct StrictSeed {
    depth_left: usize,
}

impl<'de> DeserializeSeed<'de> for StrictSeed {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl StrictSeed {
    fn nested<E: de::Error>(&self) -> Result<StrictSeed, E> {
        match self.depth_left.checked_sub(1) {
            Some(depth_left) => Ok(StrictSeed { depth_left }),
            None => Err(E::custom(format_args!("{DEPTH_TAG}the limit"))),
        }
    }
}

impl<'de> Visitor<'de> for StrictSeed {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let child = self.nested()?;
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictSeed {
            depth_left: child.depth_left,
        })? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let child = self.nested()?;
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            if map.contains_key(&key) {
                let shown: String = key.chars().take(64).collect();
                return Err(de::Error::custom(format_args!("{DUPLICATE_TAG}{shown:?}")));
            }
            let value = access.next_value_seed(StrictSeed {
                depth_left: child.depth_left,
            })?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

fn classify(err: serde_json::Error) -> JcsError {
    let line = err.line();
    let column = err.column();
    let full = err.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    let kind = if message.starts_with(DUPLICATE_TAG) {
        JcsErrorKind::DuplicateMember
    } else if message.starts_with(DEPTH_TAG) {
        JcsErrorKind::TooDeep
    } else if message.contains("surrogate") || message.contains("end of hex escape") {
        // serde_json reports a high surrogate without its low partner as "end of hex escape".
        JcsErrorKind::LoneSurrogate
    } else if message.contains("number out of range") {
        JcsErrorKind::NumberOutOfRange
    } else if message.contains("trailing characters") {
        JcsErrorKind::TrailingCharacters
    } else if message.contains("invalid unicode code point") || message.contains("UTF-8") {
        JcsErrorKind::InvalidUtf8
    } else if err.is_eof() {
        JcsErrorKind::UnexpectedEof
    } else {
        JcsErrorKind::Syntax
    };
    let message = match kind {
        JcsErrorKind::TooDeep => "arrays and objects nest deeper than the limit".to_owned(),
        JcsErrorKind::LoneSurrogate => format!("lone UTF-16 surrogate in \\u escape ({message})"),
        _ => message,
    };
    JcsError {
        kind,
        message,
        line,
        column,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        String::from_utf8(canonicalize(s.as_bytes()).unwrap()).unwrap()
    }

    fn kind_of(s: &[u8]) -> JcsErrorKind {
        canonicalize(s).unwrap_err().kind
    }

    #[test]
    fn sort_members_orders_by_utf16_code_units() {
        // U+10000 is the surrogate pair D800 DC00 in UTF-16: before U+E000 and U+FFFF there,
        // after them in UTF-8 bytes. ASCII-only names take the byte comparison.
        let mut names = vec!["\u{ffff}", "\u{10000}", "\u{e000}", "b", "a"];
        sort_members(&mut names, |n| *n);
        assert_eq!(names, ["a", "b", "\u{10000}", "\u{e000}", "\u{ffff}"]);
        let mut names = vec!["ab", "a", "B"];
        sort_members(&mut names, |n| *n);
        assert_eq!(names, ["B", "a", "ab"]);
        let mut dup = vec!["x", "y", "x"];
        sort_members(&mut dup, |n| *n);
        assert_eq!(dup, ["x", "x", "y"]);
    }

    #[test]
    fn rfc8785_number_examples() {
        // RFC 8785 Appendix B, plus the issue's named cases.
        let cases = [
            ("0", "0"),
            ("-0", "0"),
            ("-0.0", "0"),
            ("5e-324", "5e-324"),
            ("-5e-324", "-5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("-1.7976931348623157e308", "-1.7976931348623157e+308"),
            ("9007199254740992", "9007199254740992"),
            ("-9007199254740992", "-9007199254740992"),
            ("9007199254740993", "9007199254740992"),
            ("295147905179352830000", "295147905179352830000"),
            ("1e21", "1e+21"),
            ("1e20", "100000000000000000000"),
            ("1e-7", "1e-7"),
            ("1e-6", "0.000001"),
            ("9.999999999999997e22", "9.999999999999997e+22"),
            ("1e23", "1e+23"),
            ("0.000001", "0.000001"),
            ("1.0000000000000001e23", "1.0000000000000001e+23"),
            ("4.50", "4.5"),
            ("2e-3", "0.002"),
            ("333333333.33333329", "333333333.3333333"),
            ("1E30", "1e+30"),
            ("0.000000000000000000000000001", "1e-27"),
            ("18446744073709551615", "18446744073709552000"),
            ("-9223372036854775808", "-9223372036854776000"),
            ("123456789012345680000", "123456789012345680000"),
            ("2.2250738585072014e-308", "2.2250738585072014e-308"),
        ];
        for (input, want) in cases {
            assert_eq!(canon(input), want, "input {input}");
        }
    }

    #[test]
    fn strings_escape_exactly_as_rfc8785() {
        assert_eq!(canon(r#""\u0000\u001f\u007f""#), "\"\\u0000\\u001f\u{7f}\"");
        assert_eq!(canon(r#""\b\f\n\r\t\"\\\/""#), r#""\b\f\n\r\t\"\\/""#);
        assert_eq!(canon(r#""\u2028\ud83d\ude02""#), "\"\u{2028}\u{1F602}\"");
    }

    #[test]
    fn members_sort_by_utf16_code_units() {
        // U+FB33 (BMP, above the surrogates) sorts after U+1F602 (a surrogate pair) in UTF-16,
        // but before it in UTF-8 byte order.
        assert_eq!(
            canon("{\"\u{fb33}\":1,\"\u{1F602}\":2,\"a\":3}"),
            "{\"a\":3,\"\u{1F602}\":2,\"\u{fb33}\":1}"
        );
    }

    #[test]
    fn rejects_what_i_json_forbids() {
        assert_eq!(kind_of(br#"{"a":1,"a":2}"#), JcsErrorKind::DuplicateMember);
        assert_eq!(
            kind_of(br#"{"x":{"b":1,"b":1}}"#),
            JcsErrorKind::DuplicateMember
        );
        assert_eq!(kind_of(br#""\ud800""#), JcsErrorKind::LoneSurrogate);
        assert_eq!(kind_of(br#""\ud800x""#), JcsErrorKind::LoneSurrogate);
        assert_eq!(kind_of(br#"["\udc00"]"#), JcsErrorKind::LoneSurrogate);
        assert_eq!(kind_of(b"1e400"), JcsErrorKind::NumberOutOfRange);
        assert_eq!(kind_of(b"-1e400"), JcsErrorKind::NumberOutOfRange);
        assert_eq!(kind_of(b"NaN"), JcsErrorKind::Syntax);
        assert_eq!(kind_of(b"Infinity"), JcsErrorKind::Syntax);
        assert_eq!(kind_of(b"{} x"), JcsErrorKind::TrailingCharacters);
        assert_eq!(kind_of(b"{\"a\":"), JcsErrorKind::UnexpectedEof);
        assert_eq!(kind_of(b""), JcsErrorKind::UnexpectedEof);
        assert_eq!(kind_of(b"\"\xff\""), JcsErrorKind::InvalidUtf8);
        assert!(canonicalize(br#""\u12""#).is_err());
    }

    #[test]
    fn duplicate_error_names_the_member_and_position() {
        let err = canonicalize(b"{\n  \"a\": 1,\n  \"a\": 2\n}").unwrap_err();
        assert!(err.message.contains("\"a\""), "{err}");
        assert_eq!(err.line, 3);
        assert!(err.to_string().contains("line 3"), "{err}");
    }

    #[test]
    fn depth_limit_is_exact_and_never_overflows_the_stack() {
        let nest = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(canonicalize(nest(128).as_bytes()).is_ok());
        assert_eq!(kind_of(nest(129).as_bytes()), JcsErrorKind::TooDeep);
        let objects = format!("{}1{}", "{\"a\":".repeat(129), "}".repeat(129));
        assert_eq!(kind_of(objects.as_bytes()), JcsErrorKind::TooDeep);
        // Far beyond any stack: must be a clean error.
        assert_eq!(kind_of(nest(1_000_000).as_bytes()), JcsErrorKind::TooDeep);
        let opts = ParseOptions { max_depth: 2 };
        assert!(parse_strict_with(b"[[1]]", opts).is_ok());
        assert!(parse_strict_with(b"[[[1]]]", opts).is_err());
    }

    #[test]
    fn big_integers_stay_exact_in_the_parsed_value() {
        let v = parse_strict(b"9007199254740993").unwrap();
        assert_eq!(v.as_u64(), Some(9_007_199_254_740_993));
    }
}

//! The A2A 0.3 view of a card: the bytes an A2A 0.3 reader (a2a-sdk 0.3.x, what CrewAI,
//! Strands and ADK ship) rebuilds and checks a signature against.
//!
//! 0.3 defined no canonical form of its own, so the SDK's is the one that matters: the card
//! read into its 0.3 model (members the model does not know are dropped, object by object),
//! then dumped without `signatures`, without nulls and without members equal to their model
//! default (`protocolVersion: "0.3.0"`, `preferredTransport: "JSONRPC"`, every security
//! scheme's `type`), then every empty string, array and object removed at any depth (extension
//! `params` included), then printed as Python's `json.dumps(sort_keys=True, separators=(",",
//! ":"))` prints: keys sorted by code point, non-ASCII escaped as `\uXXXX`, floats as Python's
//! `repr`. This is not RFC 8785, which is why a 0.3 card needs its own signature.

use serde_json::{Map, Value};

/// What a member of a 0.3 model object holds: another model object (members filtered by its
/// own table), a list of them, a map of them, or any JSON kept whole.
#[derive(Clone, Copy)]
enum Shape {
    Any,
    Object(&'static [(&'static str, Shape)]),
    List(&'static [(&'static str, Shape)]),
    /// `securitySchemes`: a map of schemes, each filtered by its `type`.
    Schemes,
}

use Shape::{Any, List, Object};

const INTERFACE: &[(&str, Shape)] = &[("transport", Any), ("url", Any)];
const EXTENSION: &[(&str, Shape)] = &[
    ("description", Any),
    ("params", Any),
    ("required", Any),
    ("uri", Any),
];
const CAPABILITIES: &[(&str, Shape)] = &[
    ("extensions", List(EXTENSION)),
    ("pushNotifications", Any),
    ("stateTransitionHistory", Any),
    ("streaming", Any),
];
const PROVIDER: &[(&str, Shape)] = &[("organization", Any), ("url", Any)];
const SKILL: &[(&str, Shape)] = &[
    ("description", Any),
    ("examples", Any),
    ("id", Any),
    ("inputModes", Any),
    ("name", Any),
    ("outputModes", Any),
    ("security", Any),
    ("tags", Any),
];
const CARD: &[(&str, Shape)] = &[
    ("additionalInterfaces", List(INTERFACE)),
    ("capabilities", Object(CAPABILITIES)),
    ("defaultInputModes", Any),
    ("defaultOutputModes", Any),
    ("description", Any),
    ("documentationUrl", Any),
    ("iconUrl", Any),
    ("name", Any),
    ("preferredTransport", Any),
    ("protocolVersion", Any),
    ("provider", Object(PROVIDER)),
    ("security", Any),
    ("securitySchemes", Shape::Schemes),
    ("skills", List(SKILL)),
    ("supportsAuthenticatedExtendedCard", Any),
    ("url", Any),
    ("version", Any),
];

const CODE_FLOW: &[(&str, Shape)] = &[
    ("authorizationUrl", Any),
    ("refreshUrl", Any),
    ("scopes", Any),
    ("tokenUrl", Any),
];
const CLIENT_FLOW: &[(&str, Shape)] = &[("refreshUrl", Any), ("scopes", Any), ("tokenUrl", Any)];
const IMPLICIT_FLOW: &[(&str, Shape)] = &[
    ("authorizationUrl", Any),
    ("refreshUrl", Any),
    ("scopes", Any),
];
const FLOWS: &[(&str, Shape)] = &[
    ("authorizationCode", Object(CODE_FLOW)),
    ("clientCredentials", Object(CLIENT_FLOW)),
    ("implicit", Object(IMPLICIT_FLOW)),
    ("password", Object(CLIENT_FLOW)),
];

/// A scheme's members by its `type` (without `type` itself: it always equals the model's
/// default, so the SDK never dumps it). `None` for a type 0.3 does not know.
fn scheme_members(kind: &str) -> Option<&'static [(&'static str, Shape)]> {
    Some(match kind {
        "apiKey" => &[("description", Any), ("in", Any), ("name", Any)],
        "http" => &[("bearerFormat", Any), ("description", Any), ("scheme", Any)],
        "mutualTLS" => &[("description", Any)],
        "oauth2" => &[
            ("description", Any),
            ("flows", Object(FLOWS)),
            ("oauth2MetadataUrl", Any),
        ],
        "openIdConnect" => &[("description", Any), ("openIdConnectUrl", Any)],
        _ => return None,
    })
}

/// The bytes an A2A 0.3 verifier checks a signature of `card` against (see the module docs);
/// `None` if `card` is not an object.
pub fn v03_signing_payload(card: &Value) -> Option<Vec<u8>> {
    let Value::Object(members) = card else {
        return None;
    };
    let mut view = filter(members, CARD);
    // Members equal to the 0.3 model's defaults are not dumped.
    for (member, default) in [
        ("protocolVersion", "0.3.0"),
        ("preferredTransport", "JSONRPC"),
    ] {
        if view.get(member).and_then(Value::as_str) == Some(default) {
            view.remove(member);
        }
    }
    let cleaned = clean(Value::Object(view)).unwrap_or(Value::Object(Map::new()));
    let mut out = String::new();
    write_python(&cleaned, &mut out);
    Some(out.into_bytes())
}

/// The members of `o` the model table knows, each filtered by its own shape.
fn filter(o: &Map<String, Value>, table: &[(&str, Shape)]) -> Map<String, Value> {
    let mut kept = Map::new();
    for (name, shape) in table {
        if let Some(v) = o.get(*name) {
            kept.insert((*name).to_owned(), shaped(v, *shape));
        }
    }
    kept
}

fn shaped(v: &Value, shape: Shape) -> Value {
    match (shape, v) {
        (Object(t), Value::Object(o)) => Value::Object(filter(o, t)),
        (List(t), Value::Array(items)) => Value::Array(
            items
                .iter()
                .map(|i| match i {
                    Value::Object(o) => Value::Object(filter(o, t)),
                    other => other.clone(),
                })
                .collect(),
        ),
        (Shape::Schemes, Value::Object(schemes)) => Value::Object(
            schemes
                .iter()
                .map(|(name, s)| {
                    let kind = s.get("type").and_then(Value::as_str).unwrap_or("");
                    let scheme = match (s, scheme_members(kind)) {
                        (Value::Object(o), Some(t)) => Value::Object(filter(o, t)),
                        // A scheme the 0.3 model cannot read: the SDK refuses the card anyway.
                        _ => Value::Null,
                    };
                    (name.clone(), scheme)
                })
                .collect(),
        ),
        // A value of the wrong kind fails the SDK's model; keep it so the bytes differ.
        _ => v.clone(),
    }
}

/// `value` without nulls and empty strings, arrays and objects, at any depth; `None` when
/// nothing is left (the SDK's `exclude_none` and `_clean_empty`).
fn clean(value: Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::Array(items) => {
            let kept: Vec<Value> = items.into_iter().filter_map(clean).collect();
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        Value::Object(members) => {
            let kept: Map<String, Value> = members
                .into_iter()
                .filter_map(|(k, v)| clean(v).map(|v| (k, v)))
                .collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        other => Some(other),
    }
}

/// `value` as Python's `json.dumps(value, sort_keys=True, separators=(",", ":"))` prints it.
fn write_python(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => out.push_str(&i.to_string()),
            (_, Some(u), _) => out.push_str(&u.to_string()),
            (_, _, Some(f)) => out.push_str(&python_float(f)),
            _ => out.push_str(&n.to_string()),
        },
        Value::String(s) => write_python_str(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_python(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            // Python compares str by code point, which is the order of Rust's `str` `Ord`.
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_python_str(k, out);
                out.push(':');
                if let Some(v) = members.get(k) {
                    write_python(v, out);
                }
            }
            out.push('}');
        }
    }
}

/// A string as `json.dumps` with `ensure_ascii=True` writes it.
fn write_python_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            // Python escapes everything outside printable ASCII (space to `~`), DEL included.
            c if !(' '..='~').contains(&c) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A float as Python's `repr` prints it: the shortest round-trip digits, positional for
/// decimal exponents from -4 to 15 (always with a fractional part), else `d.ddde+XX`.
fn python_float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
    }
    // Rust's `{:e}` gives the same shortest round-trip digits: `-1.2345e-7`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        let (int, frac) = if point <= 0 {
            (
                "0".to_owned(),
                format!("{}{digits}", "0".repeat(point.unsigned_abs() as usize)),
            )
        } else if point as usize >= digits.len() {
            (
                format!("{digits}{}", "0".repeat(point as usize - digits.len())),
                "0".to_owned(),
            )
        } else {
            let (i, f) = digits.split_at(point as usize);
            (i.to_owned(), f.to_owned())
        };
        format!("{sign}{int}.{frac}")
    } else {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_owned()
        } else {
            format!("{first}.{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{esign}{:02}", exp.unsigned_abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_print_as_python_repr() {
        // Each pair was printed by CPython 3.11's repr().
        for (f, py) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e-7, "1e-07"),
            (0.0001, "0.0001"),
            (1.5e16, "1.5e+16"),
            (1e15, "1000000000000000.0"),
            (123.456, "123.456"),
            (-2.5e-5, "-2.5e-05"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (-0.0, "-0.0"),
            (1e16, "1e+16"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (0.00001, "1e-05"),
        ] {
            assert_eq!(python_float(f), py, "{f}");
        }
    }

    #[test]
    fn strings_are_escaped_as_ensure_ascii_does() {
        let mut out = String::new();
        write_python_str("a\"\\\n\u{1}\u{7f}é😀", &mut out);
        // What CPython 3.11's json.dumps printed for the same string.
        assert_eq!(out, r#""a\"\\\n\u0001\u007f\u00e9\ud83d\ude00""#);
    }

    #[test]
    fn the_view_keeps_only_0_3_members_without_defaults_or_empties() {
        let card = json!({
            "name": "n", "description": "", "version": "1",
            "url": "http://127.0.0.1:1/", "preferredTransport": "JSONRPC",
            "protocolVersion": "0.3.0",
            "supportedInterfaces": [{"url": "x", "protocolBinding": "JSONRPC"}],
            "capabilities": {"streaming": false, "extendedAgentCard": true,
                "extensions": [{"uri": "u", "required": false, "params": {"a": [], "b": 1.0}}]},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "Bearer",
                "httpAuthSecurityScheme": {"scheme": "Bearer"}}},
            "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"], "x": 1}],
            "signatures": [{"protected": "p", "signature": "s"}]
        });
        let got = String::from_utf8(v03_signing_payload(&card).unwrap()).unwrap();
        assert_eq!(
            got,
            concat!(
                r#"{"capabilities":{"extensions":[{"params":{"b":1.0},"required":false,"uri":"u"}],"#,
                r#""streaming":false},"name":"n","securitySchemes":{"bearer":{"scheme":"Bearer"}},"#,
                r#""skills":[{"description":"d","id":"s","name":"S","tags":["t"]}],"#,
                r#""url":"http://127.0.0.1:1/","version":"1"}"#
            )
        );
    }
}

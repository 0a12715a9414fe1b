//! A JSON Schema read as a table of fields for people: one row per property, nested object
//! properties under dotted names, local `$ref`s followed. `skillgate describe` prints these
//! rows and the web console renders them, so both show the same table. Never used for
//! validation (the gate validates against the schema itself).
//!
//! Schemas are untrusted input here, so the walk is bounded in depth (reference hops count)
//! and rows, and anything it does not understand is shown as-is rather than guessed.
//!
//! ```
//! use serde_json::json;
//! let rows = skillgate_core::fields::field_rows(&json!({
//!     "type": "object", "required": ["window_ms"],
//!     "properties": {"window_ms": {"type": "integer", "minimum": 100, "maximum": 5000}}
//! }));
//! assert_eq!(rows[0].name, "window_ms");
//! assert_eq!(rows[0].bounds, ["100..5000"]);
//! ```

use serde::Serialize;
use serde_json::{Map, Value};

/// Deepest nesting of objects (and local `$ref` hops) followed; deeper fields are left to the
/// schema itself.
pub const MAX_DEPTH: usize = 8;

/// A schema with more fields than this is cut short (the raw schema is always shown too).
pub const MAX_ROWS: usize = 500;

/// Longest keyword value shown in a bound before it is cut (a pattern can be any length).
const MAX_VALUE_CHARS: usize = 80;

/// One property of a schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldRow {
    /// Dotted path from the top (`condition.metric`); `[]` marks array items (`items[].id`).
    pub name: String,
    /// The JSON type(s) `|`-joined, `array of T`, `object`, `enum`, `const`, `oneOf`,
    /// `anyOf`, `$ref URI` (a reference that is not local or does not resolve) or `any`.
    pub kind: String,
    /// Listed in the enclosing object's `required`.
    pub required: bool,
    /// The allowed values (`enum`, or one `const`), empty when unrestricted.
    pub allowed: Vec<Value>,
    /// Bounds in words, one per constraint: `100..5000`, `length 1..256`, `> 0`,
    /// `pattern ^a`, `closed` (no additional properties).
    pub bounds: Vec<String>,
    /// The schema's `description` (or `title`), empty when it has none.
    pub description: String,
}

/// The rows of `schema`'s properties, each object's fields right after it (empty when it
/// declares none).
pub fn field_rows(schema: &Value) -> Vec<FieldRow> {
    let mut out = Vec::new();
    walk(schema, schema, "", 0, &mut out);
    out
}

/// The top-level properties of `schema` (a top-level local `$ref` followed): name, schema
/// and whether it is required, in the schema's own order, at most [`MAX_ROWS`].
pub fn top_level(schema: &Value) -> Vec<(String, Value, bool)> {
    let s = resolve(schema, schema, 0);
    let required = required_of(s);
    properties(s)
        .map(|p| {
            p.iter()
                .take(MAX_ROWS)
                .map(|(k, v)| {
                    let v = resolve(schema, v, 0).clone();
                    (k.clone(), v, required.contains(&k.as_str()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Follows a local `#/...` reference within `root` (hops count toward [`MAX_DEPTH`]); a
/// remote or dangling one is left as it is.
fn resolve<'a>(root: &'a Value, s: &'a Value, depth: usize) -> &'a Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) if depth < MAX_DEPTH => match r.strip_prefix('#') {
            Some(pointer) => root
                .pointer(pointer)
                .map_or(s, |t| resolve(root, t, depth + 1)),
            None => s,
        },
        _ => s,
    }
}

fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

fn required_of(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn walk(root: &Value, schema: &Value, prefix: &str, depth: usize, out: &mut Vec<FieldRow>) {
    let schema = resolve(root, schema, depth);
    let Some(props) = properties(schema) else {
        return;
    };
    let required = required_of(schema);
    for (name, sub) in props {
        if out.len() >= MAX_ROWS {
            return;
        }
        let sub = resolve(root, sub, depth);
        let path = format!("{prefix}{name}");
        out.push(row(root, &path, sub, required.contains(&name.as_str())));
        if depth + 1 >= MAX_DEPTH {
            continue;
        }
        walk(root, sub, &format!("{path}."), depth + 1, out);
        if let Some(items) = sub.get("items") {
            walk(root, items, &format!("{path}[]."), depth + 1, out);
        }
    }
}

fn row(root: &Value, name: &str, s: &Value, required: bool) -> FieldRow {
    let allowed = match (s.get("enum"), s.get("const")) {
        (Some(Value::Array(v)), _) => v.clone(),
        (_, Some(c)) => vec![c.clone()],
        _ => Vec::new(),
    };
    let description = ["description", "title"]
        .iter()
        .find_map(|k| s.get(*k).and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned();
    FieldRow {
        name: name.to_owned(),
        kind: kind_in(root, s, 0),
        required,
        allowed,
        bounds: bounds(s),
        description,
    }
}

/// A schema's type as a person reads it (see [`FieldRow::kind`]); references are not
/// followed (there is no root to follow them in).
pub fn kind_of(s: &Value) -> String {
    kind_in(&Value::Null, s, 0)
}

fn kind_in(root: &Value, s: &Value, depth: usize) -> String {
    let s = resolve(root, s, depth);
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        return format!("$ref {}", cut(r));
    }
    let string_enum = |k: &str| match s.get(k) {
        Some(Value::Array(v)) => !v.is_empty() && v.iter().all(Value::is_string),
        Some(v) => v.is_string(),
        None => false,
    };
    let base = match s.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ if s.get("properties").is_some() => "object".to_owned(),
        // An enum of strings is a string, whether or not the schema says so.
        _ if string_enum("enum") || string_enum("const") => "string".to_owned(),
        _ if s.get("enum").is_some() => "enum".to_owned(),
        _ if s.get("const").is_some() => "const".to_owned(),
        _ if s.get("oneOf").is_some() => "oneOf".to_owned(),
        _ if s.get("anyOf").is_some() => "anyOf".to_owned(),
        _ => "any".to_owned(),
    };
    match s.get("items") {
        Some(items) if base == "array" && depth + 1 < MAX_DEPTH => {
            format!("array of {}", kind_in(root, items, depth + 1))
        }
        _ => base,
    }
}

fn range(lo: Option<String>, hi: Option<String>, unit: &str) -> Option<String> {
    match (lo, hi) {
        (None, None) => None,
        (Some(l), Some(h)) => Some(format!("{unit}{l}..{h}")),
        (Some(l), None) => Some(format!("{unit}>= {l}")),
        (None, Some(h)) => Some(format!("{unit}<= {h}")),
    }
}

fn bounds(s: &Value) -> Vec<String> {
    let num = |k: &str| s.get(k).filter(|v| v.is_number()).map(Value::to_string);
    let text = |k: &str| s.get(k).and_then(Value::as_str).map(cut);
    let mut out = Vec::new();
    out.extend(range(num("minimum"), num("maximum"), ""));
    out.extend(num("exclusiveMinimum").map(|v| format!("> {v}")));
    out.extend(num("exclusiveMaximum").map(|v| format!("< {v}")));
    out.extend(num("multipleOf").map(|v| format!("multiple of {v}")));
    out.extend(range(num("minLength"), num("maxLength"), "length "));
    out.extend(range(num("minItems"), num("maxItems"), "items "));
    if s.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("unique items".to_owned());
    }
    out.extend(range(
        num("minProperties"),
        num("maxProperties"),
        "properties ",
    ));
    out.extend(text("pattern").map(|p| format!("pattern {p}")));
    out.extend(text("format").map(|f| format!("format {f}")));
    if s.get("additionalProperties") == Some(&Value::Bool(false)) {
        out.push("closed".to_owned());
    }
    out
}

/// A keyword value for a table cell, long text cut at a character boundary.
fn cut(s: &str) -> String {
    if s.chars().count() > MAX_VALUE_CHARS {
        let head: String = s.chars().take(MAX_VALUE_CHARS - 3).collect();
        format!("{head}...")
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_fields_bounds_enums_and_local_refs() {
        let schema = json!({
            "type": "object", "required": ["resource_id", "condition"],
            "$defs": {"op": {"type": "string", "enum": ["gte", "lte"]}},
            "properties": {
                "resource_id": {"type": "string", "minLength": 1, "maxLength": 64,
                                "description": "Interface name"},
                "condition": {"type": "object", "required": ["operator"], "properties": {
                    "operator": {"$ref": "#/$defs/op"},
                    "threshold": {"type": ["number", "integer"], "exclusiveMinimum": 0}
                }},
                "window_ms": {"type": "integer", "minimum": 100, "maximum": 5000},
                "ids": {"type": "array", "items": {"type": "integer"}, "maxItems": 3,
                        "uniqueItems": true}
            }
        });
        let f = field_rows(&schema);
        let names: Vec<&str> = f.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "condition",
                "condition.operator",
                "condition.threshold",
                "ids",
                "resource_id",
                "window_ms"
            ]
        );
        assert!(f[4].required && !f[5].required && !f[2].required && f[1].required);
        assert_eq!(f[4].bounds, ["length 1..64"]);
        assert_eq!(f[4].description, "Interface name");
        assert_eq!(f[1].allowed, [json!("gte"), json!("lte")]);
        assert_eq!(f[1].kind, "string");
        assert_eq!(f[2].kind, "number|integer");
        assert_eq!(f[2].bounds, ["> 0"]);
        assert_eq!(f[3].kind, "array of integer");
        assert_eq!(f[3].bounds, ["items <= 3", "unique items"]);
        assert_eq!(f[5].bounds, ["100..5000"]);
    }

    #[test]
    fn cycles_depth_and_width_are_bounded() {
        let cyclic = json!({"$defs": {"n": {"type": "object",
                                            "properties": {"next": {"$ref": "#/$defs/n"}}}},
                            "$ref": "#/$defs/n"});
        assert!(field_rows(&cyclic).len() <= MAX_DEPTH);
        let mut deep = json!({"type": "string"});
        for _ in 0..100 {
            deep = json!({"type": "object", "properties": {"x": deep}});
        }
        assert_eq!(field_rows(&deep).len(), MAX_DEPTH);
        let wide: Map<String, Value> = (0..2000)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        assert_eq!(field_rows(&json!({"properties": wide})).len(), MAX_ROWS);
        assert!(field_rows(&json!(true)).is_empty());
    }

    #[test]
    fn remote_and_dangling_refs_are_shown_not_followed() {
        let s = json!({"properties": {
            "r": {"$ref": "https://example.invalid/s.json"},
            "d": {"$ref": "#/$defs/missing"},
            "e": {"enum": [1, 2]},
            "c": {"additionalProperties": false, "properties": {}},
            "p": {"type": "string", "pattern": "a".repeat(200)}}});
        let f = field_rows(&s);
        let kind = |n: &str| f.iter().find(|r| r.name == n).unwrap().kind.clone();
        assert_eq!(kind("r"), "$ref https://example.invalid/s.json");
        assert_eq!(kind("d"), "$ref #/$defs/missing");
        assert_eq!(kind("e"), "enum");
        assert_eq!(kind("c"), "object");
        // Without a root, as the console's form asks: arrays still name their items.
        assert_eq!(
            kind_of(&json!({"type": "array", "items": {"type": "integer"}})),
            "array of integer"
        );
        assert_eq!(kind_of(&json!({"$ref": "#/$defs/x"})), "$ref #/$defs/x");
        let p = f.iter().find(|r| r.name == "p").unwrap();
        assert_eq!(
            p.bounds[0].chars().count(),
            "pattern ".len() + MAX_VALUE_CHARS
        );
    }
}

//! A JSON Schema read as a table of fields for people: one row per property, nested object
//! properties under dotted names. Schemas are untrusted input here, so the walk is bounded in
//! depth and rows, and anything it does not understand is shown as-is rather than guessed.

use serde_json::{Map, Value};

/// Nested objects deeper than this are shown as one `object` row.
const MAX_DEPTH: usize = 6;
/// A schema with more fields than this is cut short (the raw JSON is on the page anyway).
pub(crate) const MAX_ROWS: usize = 500;

/// One property of a schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldRow {
    /// Dotted path from the top (`condition.metric`); `[]` marks array items.
    pub(crate) name: String,
    /// `type`, `array of T`, `enum`, `const`, `$ref …` or `any`.
    pub(crate) kind: String,
    /// Listed in its parent's `required`.
    pub(crate) required: bool,
    /// The `enum` (or `const`) values as JSON text.
    pub(crate) allowed: Vec<String>,
    /// Length, range, item-count, pattern and format keywords, as `keyword: value`.
    pub(crate) bounds: Vec<String>,
    /// The `description` (or `title`).
    pub(crate) description: String,
}

/// The rows of `schema`'s properties (empty when it declares none).
pub(crate) fn rows(schema: &Value) -> Vec<FieldRow> {
    let mut out = Vec::new();
    walk(schema, "", 0, &mut out);
    out
}

/// The top-level properties of `schema`: name, schema and whether it is required, in the
/// schema's own order (the "try it" form has one input per entry).
pub(crate) fn top_level(schema: &Value) -> Vec<(String, Value, bool)> {
    let required = required_of(schema);
    properties(schema)
        .map(|p| {
            p.iter()
                .take(MAX_ROWS)
                .map(|(k, v)| (k.clone(), v.clone(), required.contains(&k.as_str())))
                .collect()
        })
        .unwrap_or_default()
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

fn walk(schema: &Value, prefix: &str, depth: usize, out: &mut Vec<FieldRow>) {
    let Some(props) = properties(schema) else {
        return;
    };
    let required = required_of(schema);
    for (name, sub) in props {
        if out.len() >= MAX_ROWS {
            return;
        }
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        out.push(row(&path, sub, required.contains(&name.as_str())));
        if depth + 1 < MAX_DEPTH {
            walk(sub, &path, depth + 1, out);
            if let Some(items) = sub.get("items") {
                walk(items, &format!("{path}[]"), depth + 1, out);
            }
        }
    }
}

fn row(name: &str, s: &Value, required: bool) -> FieldRow {
    let mut allowed: Vec<String> = s
        .get("enum")
        .and_then(Value::as_array)
        .map(|e| e.iter().map(Value::to_string).collect())
        .unwrap_or_default();
    if let Some(c) = s.get("const") {
        allowed.push(c.to_string());
    }
    let bounds = [
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "pattern",
        "format",
        "additionalProperties",
    ]
    .iter()
    .filter_map(|k| s.get(*k).map(|v| format!("{k}: {}", short(v))))
    .collect();
    let description = ["description", "title"]
        .iter()
        .find_map(|k| s.get(*k).and_then(Value::as_str))
        .unwrap_or("")
        .to_owned();
    FieldRow {
        name: name.to_owned(),
        kind: kind_of(s),
        required,
        allowed,
        bounds,
        description,
    }
}

/// A schema's type as a person reads it.
pub(crate) fn kind_of(s: &Value) -> String {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        return format!("$ref {r}");
    }
    let base = match s.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ if s.get("enum").is_some() => "enum".to_owned(),
        _ if s.get("const").is_some() => "const".to_owned(),
        _ if s.get("oneOf").is_some() => "oneOf".to_owned(),
        _ if s.get("anyOf").is_some() => "anyOf".to_owned(),
        _ if s.get("properties").is_some() => "object".to_owned(),
        _ => "any".to_owned(),
    };
    match s.get("items") {
        Some(items) if base == "array" => format!("array of {}", kind_of(items)),
        _ => base,
    }
}

/// A keyword value for a table cell: strings bare, anything else as JSON, long text cut.
fn short(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}...")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_rows_with_bounds_and_enums() {
        let s = json!({"type": "object", "required": ["a"], "properties": {
            "a": {"type": "string", "minLength": 1, "description": "the a"},
            "b": {"type": "object", "required": ["c"], "properties": {"c": {"enum": [">", "<"]}}},
            "d": {"type": "array", "items": {"type": "integer"}, "maxItems": 3}}});
        let r = rows(&s);
        let names: Vec<&str> = r.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "b.c", "d"]);
        assert!(r[0].required && !r[1].required && r[2].required);
        assert_eq!(r[0].bounds, ["minLength: 1"]);
        assert_eq!(r[0].description, "the a");
        assert_eq!(r[2].kind, "enum");
        assert_eq!(r[2].allowed, ["\">\"", "\"<\""]);
        assert_eq!(r[3].kind, "array of integer");
        assert_eq!(r[3].bounds, ["maxItems: 3"]);
    }

    #[test]
    fn deep_and_wide_schemas_are_bounded() {
        let mut s = json!({"type": "string"});
        for _ in 0..100 {
            s = json!({"type": "object", "properties": {"x": s}});
        }
        assert_eq!(rows(&s).len(), MAX_DEPTH);
        let wide: Map<String, Value> = (0..2000)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        assert_eq!(rows(&json!({"properties": wide})).len(), MAX_ROWS);
        assert!(rows(&json!(true)).is_empty());
    }
}

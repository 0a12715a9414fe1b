//! A readable summary of a skill's arguments: one row per field of its `input_schema` (nested
//! objects flattened to dotted names), for people reading `describe`, never for validation
//! (the gate validates against the schema itself).

use serde::Serialize;
use serde_json::Value;

/// Deepest nesting of objects (and local `$ref` hops) the summary follows; deeper fields are
/// left to the document itself.
const MAX_DEPTH: usize = 8;

/// One field of the arguments.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// Dotted path from the arguments object (`condition.metric`; `items[]` for array items).
    pub name: String,
    /// The JSON type(s), `|`-joined (`any` when the schema names none).
    pub ty: String,
    /// Whether the enclosing object requires it.
    pub required: bool,
    /// The allowed values (`enum`, or one `const`), empty when unrestricted.
    pub allowed: Vec<Value>,
    /// Bounds in words: `100..5000`, `length 1..256`, `> 0`, `pattern ^a`.
    pub bounds: String,
    /// The schema's `description` (or `title`), empty when it has none.
    pub description: String,
}

/// The fields of the arguments schema `schema`, by name (each object's fields right after it).
pub fn argument_fields(schema: &Value) -> Vec<Field> {
    let mut out = Vec::new();
    object_fields(schema, schema, "", 0, &mut out);
    out
}

/// Follows a local `#/$defs/...` (or `#/definitions/...`) reference within `root`.
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

fn object_fields(root: &Value, schema: &Value, prefix: &str, depth: usize, out: &mut Vec<Field>) {
    let schema = resolve(root, schema, depth);
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, sub) in props {
        let sub = resolve(root, sub, depth);
        let path = format!("{prefix}{name}");
        out.push(field(&path, sub, required.contains(&name.as_str())));
        if depth + 1 >= MAX_DEPTH {
            continue;
        }
        object_fields(root, sub, &format!("{path}."), depth + 1, out);
        if let Some(items) = sub.get("items") {
            let items = resolve(root, items, depth);
            object_fields(root, items, &format!("{path}[]."), depth + 1, out);
        }
    }
}

fn field(name: &str, s: &Value, required: bool) -> Field {
    let allowed = match (s.get("enum"), s.get("const")) {
        (Some(Value::Array(v)), _) => v.clone(),
        (_, Some(c)) => vec![c.clone()],
        _ => Vec::new(),
    };
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ if s.get("properties").is_some() => "object".to_owned(),
        // An enum of strings is a string, whether or not the schema says so.
        _ if !allowed.is_empty() && allowed.iter().all(Value::is_string) => "string".to_owned(),
        _ => "any".to_owned(),
    };
    let description = s
        .get("description")
        .or_else(|| s.get("title"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Field {
        name: name.to_owned(),
        ty,
        required,
        allowed,
        bounds: bounds(s),
        description,
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

fn bounds(s: &Value) -> String {
    let num = |k: &str| s.get(k).filter(|v| v.is_number()).map(Value::to_string);
    let mut parts = Vec::new();
    parts.extend(range(num("minimum"), num("maximum"), ""));
    if let Some(v) = num("exclusiveMinimum") {
        parts.push(format!("> {v}"));
    }
    if let Some(v) = num("exclusiveMaximum") {
        parts.push(format!("< {v}"));
    }
    parts.extend(range(num("minLength"), num("maxLength"), "length "));
    parts.extend(range(num("minItems"), num("maxItems"), "items "));
    if let Some(p) = s.get("pattern").and_then(Value::as_str) {
        parts.push(format!("pattern {p}"));
    }
    if let Some(f) = s.get("format").and_then(Value::as_str) {
        parts.push(format!("format {f}"));
    }
    parts.join(", ")
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
                "window_ms": {"type": "integer", "minimum": 100, "maximum": 5000}
            }
        });
        let f = argument_fields(&schema);
        let names: Vec<&str> = f.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "condition",
                "condition.operator",
                "condition.threshold",
                "resource_id",
                "window_ms"
            ]
        );
        assert!(f[3].required && !f[4].required && !f[2].required);
        assert_eq!(f[3].bounds, "length 1..64");
        assert_eq!(f[3].description, "Interface name");
        assert_eq!(f[1].allowed, [json!("gte"), json!("lte")]);
        assert!(f[1].required);
        assert_eq!(f[2].ty, "number|integer");
        assert_eq!(f[2].bounds, "> 0");
        assert_eq!(f[4].bounds, "100..5000");
        // A reference cycle ends at the depth limit instead of looping.
        let cyclic = json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}},
                            "$ref": "#/$defs/n"});
        assert_eq!(argument_fields(&cyclic).len(), MAX_DEPTH);
    }
}

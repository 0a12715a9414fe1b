//! Finding references that leave an embedded schema.
//!
//! Version 1.0 carries every schema inline and forbids fetching, so a `$ref` may only point at a
//! fragment (`#…`) or at an `$id` declared inside the same schema. The walk is keyword-aware:
//! a member called `$ref` inside `properties`, `const`, `enum`, `default` or `examples` is data,
//! not a reference.

use std::collections::HashSet;

use serde_json::Value;

/// A `$ref` or `$dynamicRef` that does not resolve inside the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalReference {
    /// The reference as written.
    pub reference: String,
    /// JSON Pointer (inside the schema) of the reference member.
    pub path: String,
}

const SCHEMA_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "items",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    "additionalItems",
];
const SCHEMA_ARRAY_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];
const DATA_KEYWORDS: &[&str] = &["const", "enum", "default", "examples"];

/// Every reference in `schema` that points outside it.
pub fn external_references(schema: &Value) -> Vec<ExternalReference> {
    let mut ids = HashSet::new();
    let mut refs = Vec::new();
    walk(schema, &mut String::new(), &mut ids, &mut refs);
    refs.into_iter()
        .filter(|r| !is_internal(&r.reference, &ids))
        .collect()
}

fn is_internal(reference: &str, ids: &HashSet<String>) -> bool {
    if reference.starts_with('#') {
        return true;
    }
    let base = reference.split('#').next().unwrap_or_default();
    ids.contains(base) || ids.contains(base.trim_end_matches('/'))
}

fn push_token(path: &mut String, token: &str) -> usize {
    let len = path.len();
    path.push('/');
    for c in token.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
    len
}

fn walk(
    schema: &Value,
    path: &mut String,
    ids: &mut HashSet<String>,
    refs: &mut Vec<ExternalReference>,
) {
    let Value::Object(map) = schema else {
        return;
    };
    if let Some(id) = map.get("$id").and_then(Value::as_str) {
        ids.insert(id.split('#').next().unwrap_or_default().to_owned());
        ids.insert(id.trim_end_matches('#').trim_end_matches('/').to_owned());
    }
    for (key, value) in map {
        let k = key.as_str();
        if k == "$ref" || k == "$dynamicRef" {
            let mark = push_token(path, k);
            match value.as_str() {
                Some(r) => refs.push(ExternalReference {
                    reference: r.to_owned(),
                    path: path.clone(),
                }),
                None => refs.push(ExternalReference {
                    reference: value.to_string(),
                    path: path.clone(),
                }),
            }
            path.truncate(mark);
            continue;
        }
        if DATA_KEYWORDS.contains(&k) {
            continue;
        }
        let mark = push_token(path, k);
        if SCHEMA_MAP_KEYWORDS.contains(&k) {
            if let Value::Object(members) = value {
                for (name, sub) in members {
                    let m = push_token(path, name);
                    walk(sub, path, ids, refs);
                    path.truncate(m);
                }
            }
        } else if SCHEMA_ARRAY_KEYWORDS.contains(&k) && value.is_array() {
            walk_array(value, path, ids, refs);
        } else if SCHEMA_KEYWORDS.contains(&k) || value.is_object() {
            // Unknown keywords are walked too: over-reporting a reference is the safe side.
            walk(value, path, ids, refs);
        } else if value.is_array() {
            walk_array(value, path, ids, refs);
        }
        path.truncate(mark);
    }
}

fn walk_array(
    value: &Value,
    path: &mut String,
    ids: &mut HashSet<String>,
    refs: &mut Vec<ExternalReference>,
) {
    if let Value::Array(items) = value {
        for (i, sub) in items.iter().enumerate() {
            let m = push_token(path, &i.to_string());
            walk(sub, path, ids, refs);
            path.truncate(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ext(schema: Value) -> Vec<String> {
        external_references(&schema)
            .into_iter()
            .map(|r| format!("{} {}", r.path, r.reference))
            .collect()
    }

    #[test]
    fn fragments_and_embedded_ids_are_internal() {
        assert!(ext(json!({"$defs": {"a": {}}, "$ref": "#/$defs/a"})).is_empty());
        assert!(ext(json!({"$anchor": "x", "items": {"$ref": "#x"}})).is_empty());
        assert!(ext(json!({
            "$id": "urn:example:root",
            "$defs": {"n": {"$id": "urn:example:n", "type": "number"}},
            "properties": {"a": {"$ref": "urn:example:n"}, "b": {"$ref": "urn:example:root#/$defs/n"}}
        }))
        .is_empty());
    }

    #[test]
    fn everything_else_is_external_with_its_pointer() {
        assert_eq!(
            ext(json!({"properties": {"a/b": {"$ref": "https://evil.example/s.json"}}})),
            vec!["/properties/a~1b/$ref https://evil.example/s.json"]
        );
        assert_eq!(
            ext(json!({"anyOf": [{"type": "string"}, {"$dynamicRef": "other.json#meta"}]})),
            vec!["/anyOf/1/$dynamicRef other.json#meta"]
        );
        assert_eq!(ext(json!({"$ref": 5})), vec!["/$ref 5"]);
    }

    #[test]
    fn data_named_ref_is_not_a_reference() {
        assert!(ext(json!({
            "properties": {"$ref": {"type": "string"}},
            "const": {"$ref": "https://x"},
            "examples": [{"$ref": "https://x"}],
            "default": {"$ref": "https://x"}
        }))
        .is_empty());
    }
}

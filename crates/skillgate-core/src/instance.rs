//! Compiled domain schemas and draft-style validation details.
//!
//! A schema is compiled once (JSON Schema 2020-12, `format` asserted, no reference ever
//! retrieved) and then validates many instances. Failures become [`ErrorDetail`]s that name the
//! JSON type found, never the value, so diagnostics cannot leak caller data.

use std::borrow::Cow;
use std::sync::Arc;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, Retrieve, Uri, ValidationError};
use serde_json::Value;

use crate::jcs;
use crate::refs;
use crate::wire::ErrorDetail;

/// Upper bound on details reported for one instance, so a hostile instance cannot make the
/// error object larger than the request.
pub const MAX_DETAILS: usize = 32;

/// A domain schema that could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// A `$ref` points outside the embedded schema; nothing was fetched.
    #[error("reference {reference:?} at {path} leaves the embedded schema (nothing is fetched)")]
    ExternalReference {
        /// The `$ref` value.
        reference: String,
        /// JSON Pointer of the `$ref` member inside the schema.
        path: String,
    },
    /// `$schema` names a dialect other than 2020-12.
    #[error("$schema {0:?} is not JSON Schema 2020-12")]
    WrongDialect(String),
    /// The validator refused the schema.
    #[error("schema does not compile: {0}")]
    Invalid(String),
}

/// A compiled JSON Schema 2020-12 validator; cheap to clone and shareable across threads.
#[derive(Clone)]
pub struct CompiledSchema {
    validator: Arc<jsonschema::Validator>,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompiledSchema")
    }
}

/// A retriever that refuses every URI: version 1.0 schemas are self-contained and a client
/// must never be made to open a connection or a file by a schema it received.
struct RefuseAll;

impl Retrieve for RefuseAll {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "retrieval of {} refused: schemas must be self-contained",
            uri.as_str()
        )
        .into())
    }
}

impl CompiledSchema {
    /// Checks that every reference stays inside the schema, then compiles it.
    pub fn compile(schema: &Value) -> Result<Self, SchemaError> {
        if let Some(dialect) = schema.get("$schema").and_then(Value::as_str) {
            if dialect.trim_end_matches('#') != crate::wire::DIALECT_2020_12 {
                return Err(SchemaError::WrongDialect(dialect.to_owned()));
            }
        }
        if let Some(ext) = refs::external_references(schema).into_iter().next() {
            return Err(SchemaError::ExternalReference {
                reference: ext.reference,
                path: ext.path,
            });
        }
        Self::compile_unchecked(schema)
    }

    /// Compiles without our own reference pre-check; the validator's retriever still refuses
    /// everything. Kept separate so tests can prove the second line of defence holds.
    pub(crate) fn compile_unchecked(schema: &Value) -> Result<Self, SchemaError> {
        let validator = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true)
            .with_retriever(RefuseAll)
            .build(schema)
            .map_err(|e| SchemaError::Invalid(e.to_string()))?;
        Ok(Self {
            validator: Arc::new(validator),
        })
    }

    /// True when the instance conforms (fast path, no details built).
    #[inline]
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// Validates and, on failure, returns at most [`MAX_DETAILS`] draft-style details.
    pub fn validate(&self, instance: &Value) -> Result<(), Vec<ErrorDetail>> {
        let mut details = Vec::new();
        if self.each_failure(instance, |f| details.push(f.into())) {
            Err(details)
        } else {
            Ok(())
        }
    }

    /// Calls `each` with every failure of `instance` (at most [`MAX_DETAILS`], in the
    /// validator's order) and returns whether there was any: what [`CompiledSchema::validate`]
    /// collects, before it is copied into [`ErrorDetail`]s.
    pub fn each_failure(&self, instance: &Value, mut each: impl FnMut(Failure<'_>)) -> bool {
        if self.validator.is_valid(instance) {
            return false;
        }
        let mut count = 0;
        for e in self.validator.iter_errors(instance) {
            failures_of(&e, |f| {
                if count < MAX_DETAILS {
                    count += 1;
                    each(f);
                }
            });
            if count >= MAX_DETAILS {
                break;
            }
        }
        if count == 0 {
            // is_valid and iter_errors disagree only if the validator has a bug; still fail closed.
            each(Failure {
                instance_path: Cow::Borrowed(""),
                schema_path: None,
                keyword: None,
                expected: None,
                actual: json_type(instance),
            });
        }
        true
    }
}

/// One failure of an instance as the validator reports it, borrowed: an [`ErrorDetail`]
/// before its copy. A binding that makes its own objects of failures (the Python package's
/// dicts) reads these and skips the copies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure<'a> {
    /// JSON Pointer to the offending member of the instance.
    pub instance_path: Cow<'a, str>,
    /// JSON Pointer to the failing keyword in the schema.
    pub schema_path: Option<&'a str>,
    /// The failing keyword.
    pub keyword: Option<&'a str>,
    /// What the schema expects (never derived from the instance value).
    pub expected: Option<Cow<'static, str>>,
    /// The JSON type found; never the value itself.
    pub actual: &'static str,
}

impl From<Failure<'_>> for ErrorDetail {
    fn from(f: Failure<'_>) -> Self {
        ErrorDetail {
            instance_path: f.instance_path.into_owned(),
            schema_path: f.schema_path.map(str::to_owned),
            keyword: f.keyword.map(str::to_owned),
            expected: f.expected.map(Cow::into_owned),
            actual: Some(f.actual.to_owned()),
        }
    }
}

/// Rewrites every number that is a whole double (`80.0`) as an integer, in place.
///
/// JSON Schema and RFC 8785 already treat `80.0` and `80` as the same value, but peers whose
/// JSON goes through protobuf (Python's a2a-sdk) send every integer as a double, and typed Rust
/// code (`u64` fields) would refuse those. Only doubles below 2^53 in magnitude are rewritten,
/// where the conversion is exact; digests are unchanged.
pub fn normalize_integral_floats(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
                    // Exact: |f| < 2^53, so the cast loses nothing (and -0.0 becomes 0).
                    *value = Value::from(f as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_integral_floats),
        Value::Object(map) => map.values_mut().for_each(normalize_integral_floats),
        _ => {}
    }
}

/// The JSON Schema type name of a value; a number with no fraction is an `integer`.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                "integer"
            } else {
                "number"
            }
        }
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn pointer_push(base: &str, token: &str) -> String {
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

fn schema_text(v: &Value) -> String {
    let s = jcs::to_canonical_string(v);
    if s.len() > 200 {
        let mut cut = 200;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}…", &s[..cut])
    } else {
        s
    }
}

/// The failures one validator error stands for (several for `additionalProperties`), each
/// given to `emit`.
fn failures_of<'e>(e: &'e ValidationError<'_>, mut emit: impl FnMut(Failure<'e>)) {
    let instance_path = e.instance_path().as_str();
    let schema_path = Some(e.schema_path().as_str());
    let keyword = Some(e.kind().keyword());
    let actual = json_type(e.instance());
    let one = |instance_path: Cow<'e, str>, expected: Option<Cow<'static, str>>, actual| Failure {
        instance_path,
        schema_path,
        keyword,
        expected,
        actual,
    };
    let expected: Cow<'static, str> = match e.kind() {
        ValidationErrorKind::Type { kind } => match kind {
            TypeKind::Single(t) => Cow::Borrowed(t.as_str()),
            TypeKind::Multiple(set) => Cow::Owned(
                set.iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" or "),
            ),
        },
        ValidationErrorKind::Required { property } => {
            // Point at the member that is missing, so a caller knows exactly what to add.
            let name = property.as_str().unwrap_or_default();
            let path = Cow::Owned(pointer_push(instance_path, name));
            return emit(one(path, Some("present".into()), "missing"));
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for name in unexpected {
                let path = Cow::Owned(pointer_push(instance_path, name));
                emit(one(path, Some("absent".into()), "present"));
            }
            return;
        }
        ValidationErrorKind::Enum { options } => format!("one of {}", schema_text(options)).into(),
        ValidationErrorKind::Constant { expected_value } => {
            format!("exactly {}", schema_text(expected_value)).into()
        }
        ValidationErrorKind::Minimum { limit } => format!(">= {limit}").into(),
        ValidationErrorKind::Maximum { limit } => format!("<= {limit}").into(),
        ValidationErrorKind::ExclusiveMinimum { limit } => format!("> {limit}").into(),
        ValidationErrorKind::ExclusiveMaximum { limit } => format!("< {limit}").into(),
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("a multiple of {multiple_of}").into()
        }
        ValidationErrorKind::MinLength { limit } => format!("length >= {limit}").into(),
        ValidationErrorKind::MaxLength { limit } => format!("length <= {limit}").into(),
        ValidationErrorKind::MinItems { limit } => format!("at least {limit} items").into(),
        ValidationErrorKind::MaxItems { limit } => format!("at most {limit} items").into(),
        ValidationErrorKind::MinProperties { limit } => {
            format!("at least {limit} properties").into()
        }
        ValidationErrorKind::MaxProperties { limit } => {
            format!("at most {limit} properties").into()
        }
        ValidationErrorKind::Pattern { pattern } => format!("matches {pattern}").into(),
        ValidationErrorKind::Format { format } => format!("format {format}").into(),
        ValidationErrorKind::UniqueItems => "unique items".into(),
        ValidationErrorKind::FalseSchema => "nothing (false schema)".into(),
        ValidationErrorKind::AnyOf { .. } => "match of at least one subschema".into(),
        ValidationErrorKind::OneOfNotValid { .. } => "match of exactly one subschema".into(),
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "match of exactly one subschema, several matched".into()
        }
        ValidationErrorKind::Not { .. } => "no match of the negated subschema".into(),
        ValidationErrorKind::Contains => "an item matching contains".into(),
        _ => return emit(one(Cow::Borrowed(instance_path), None, actual)),
    };
    emit(one(Cow::Borrowed(instance_path), Some(expected), actual));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn threshold_schema() -> Value {
        json!({
            "type": "object",
            "required": ["threshold", "unit"],
            "additionalProperties": false,
            "properties": {
                "threshold": {"type": "number"},
                "count": {"type": "integer", "minimum": 0},
                "unit": {"enum": ["percent", "count"]},
                "at": {"type": "string", "format": "date-time"}
            }
        })
    }

    #[test]
    fn draft_example_threshold_must_be_numeric() {
        let s = CompiledSchema::compile(&threshold_schema()).unwrap();
        let d = s
            .validate(&json!({"threshold": "secret-80", "unit": "percent"}))
            .unwrap_err();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].instance_path, "/threshold");
        assert_eq!(d[0].keyword.as_deref(), Some("type"));
        assert_eq!(d[0].expected.as_deref(), Some("number"));
        assert_eq!(d[0].actual.as_deref(), Some("string"));
        assert_eq!(
            d[0].schema_path.as_deref(),
            Some("/properties/threshold/type")
        );
        let text = serde_json::to_string(&d).unwrap();
        assert!(!text.contains("secret"), "value leaked: {text}");
    }

    #[test]
    fn missing_and_unexpected_members_are_pointed_at() {
        let s = CompiledSchema::compile(&threshold_schema()).unwrap();
        let d = s.validate(&json!({"threshold": 1, "x/y": 2})).unwrap_err();
        let paths: Vec<_> = d.iter().map(|d| d.instance_path.as_str()).collect();
        assert!(paths.contains(&"/unit"), "{d:?}");
        assert!(paths.contains(&"/x~1y"), "{d:?}");
    }

    #[test]
    fn python_style_floats_are_integers() {
        let s = CompiledSchema::compile(&threshold_schema()).unwrap();
        let v: Value =
            serde_json::from_str(r#"{"threshold": 80, "count": 3.0, "unit": "count"}"#).unwrap();
        assert!(s.is_valid(&v));
        let v: Value =
            serde_json::from_str(r#"{"threshold": 80, "count": 3.5, "unit": "count"}"#).unwrap();
        assert!(!s.is_valid(&v));
    }

    #[test]
    fn integral_floats_become_integers_without_changing_the_digest() {
        let mut v: Value =
            serde_json::from_str(r#"{"a": 5000.0, "b": [1.5, -0.0, 1e300, 3], "c": "7.0"}"#)
                .unwrap();
        let before = crate::digest(&v);
        normalize_integral_floats(&mut v);
        assert_eq!(v["a"], Value::from(5000u64));
        assert!(v["a"].is_u64());
        assert_eq!(v["b"][0], Value::from(1.5));
        assert!(v["b"][1].is_i64());
        assert!(v["b"][2].is_f64(), "beyond 2^53 stays a double");
        assert_eq!(v["c"], "7.0");
        assert_eq!(crate::digest(&v), before);
    }

    #[test]
    fn date_time_format_is_asserted() {
        let s = CompiledSchema::compile(&threshold_schema()).unwrap();
        let ok = json!({"threshold": 1, "unit": "count", "at": "2026-08-11T12:00:01Z"});
        assert!(s.is_valid(&ok));
        let bad = json!({"threshold": 1, "unit": "count", "at": "yesterday"});
        let d = s.validate(&bad).unwrap_err();
        assert_eq!(d[0].keyword.as_deref(), Some("format"));
        assert_eq!(d[0].expected.as_deref(), Some("format date-time"));
    }

    #[test]
    fn internal_references_resolve() {
        let schema = json!({
            "$defs": {"pct": {"type": "number", "maximum": 100}},
            "properties": {"u": {"$ref": "#/$defs/pct"}}
        });
        let s = CompiledSchema::compile(&schema).unwrap();
        assert!(s.is_valid(&json!({"u": 50})));
        assert!(!s.is_valid(&json!({"u": 500})));
    }

    /// A listener that would see any attempt to fetch a referenced schema.
    fn watched_url() -> (std::net::TcpListener, String) {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        let url = format!("http://{}/schema.json", l.local_addr().unwrap());
        (l, url)
    }

    fn no_connection_attempted(l: &std::net::TcpListener) {
        match l.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            other => panic!("a connection reached the listener: {other:?}"),
        }
    }

    #[test]
    fn remote_and_file_references_are_refused_without_any_access() {
        let (listener, url) = watched_url();
        let dir = std::env::temp_dir().join(format!("skillgate-ref-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("s.json");
        std::fs::write(&file, r#"{"type":"string"}"#).unwrap();
        let file_url = format!("file://{}", file.display());
        for reference in [url.as_str(), file_url.as_str(), "other.json", "/abs.json"] {
            let schema = json!({"properties": {"a": {"$ref": reference}}});
            let err = CompiledSchema::compile(&schema).unwrap_err();
            assert!(
                matches!(err, SchemaError::ExternalReference { .. }),
                "{err}"
            );
            // The validator's own retriever is the second line of defence.
            assert!(
                CompiledSchema::compile_unchecked(&schema).is_err(),
                "{reference}"
            );
        }
        no_connection_attempted(&listener);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn wrong_dialect_is_refused_before_any_metaschema_lookup() {
        let (listener, url) = watched_url();
        let err = CompiledSchema::compile(&json!({"$schema": url})).unwrap_err();
        assert!(matches!(err, SchemaError::WrongDialect(_)));
        no_connection_attempted(&listener);
    }

    #[test]
    fn details_are_bounded() {
        let schema = json!({"type": "array", "items": {"type": "string"}});
        let s = CompiledSchema::compile(&schema).unwrap();
        let many = Value::Array((0..1000).map(|i| json!(i)).collect());
        assert_eq!(s.validate(&many).unwrap_err().len(), MAX_DETAILS);
    }

    #[test]
    fn each_failure_is_what_validate_copies() {
        let schema = json!({
            "type": "object",
            "properties": {"a": {"type": ["string", "null"]}, "b": {"minimum": 3}, "c": {}},
            "required": ["c"],
            "additionalProperties": false
        });
        let s = CompiledSchema::compile(&schema).unwrap();
        let bad = json!({"a": 1, "b": 2, "x": true, "y": false});
        let mut seen = Vec::new();
        assert!(s.each_failure(&bad, |f| seen.push(ErrorDetail::from(f))));
        assert_eq!(seen, s.validate(&bad).unwrap_err());
        let by_path = |p: &str| seen.iter().find(|d| d.instance_path == p).unwrap();
        assert_eq!(by_path("/a").expected.as_deref(), Some("null or string"));
        assert_eq!(by_path("/b").expected.as_deref(), Some(">= 3"));
        assert_eq!(by_path("/c").actual.as_deref(), Some("missing"));
        assert_eq!(by_path("/y").expected.as_deref(), Some("absent"));
        assert!(!s.each_failure(&json!({"c": 1}), |_| panic!("no failure expected")));
        // The bound holds when one error stands for several failures.
        let wide: serde_json::Map<String, Value> =
            (0..100).map(|i| (format!("m{i}"), json!(i))).collect();
        let mut count = 0;
        s.each_failure(&Value::Object(wide), |_| count += 1);
        assert_eq!(count, MAX_DETAILS);
    }
}

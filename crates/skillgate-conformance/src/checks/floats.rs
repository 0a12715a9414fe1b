//! Integers written as floats (`5000.0`), as protobuf-based peers send them.

use serde_json::Value;

/// How many numbers in `v` are doubles with an exact integer value (`5000.0`), which core's
/// `ValidatedDocument::from_value` reads as integers; reported as evidence.
pub(crate) fn integral_float_count(v: &Value) -> usize {
    match v {
        Value::Number(n) => {
            usize::from(n.as_f64().is_some_and(|f| {
                n.is_f64() && f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0
            }))
        }
        Value::Array(a) => a.iter().map(integral_float_count).sum(),
        Value::Object(o) => o.values().map(integral_float_count).sum(),
        _ => 0,
    }
}

/// A copy of `v` with every integer written as a float (what protobuf-based peers send), and
/// how many were rewritten; integers beyond 2^53 are left alone (a float cannot hold them).
pub(crate) fn integers_as_floats(v: &Value) -> (Value, usize) {
    fn walk(v: &Value, n: &mut usize) -> Value {
        match v {
            Value::Number(num) if !num.is_f64() => match num.as_f64() {
                Some(f) if f.abs() < 9_007_199_254_740_992.0 => {
                    match serde_json::Number::from_f64(f) {
                        Some(x) => {
                            *n += 1;
                            Value::Number(x)
                        }
                        None => v.clone(),
                    }
                }
                _ => v.clone(),
            },
            Value::Array(a) => Value::Array(a.iter().map(|x| walk(x, n)).collect()),
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, x)| (k.clone(), walk(x, n))).collect())
            }
            _ => v.clone(),
        }
    }
    let mut n = 0;
    let out = walk(v, &mut n);
    (out, n)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use skillgate_core::digest;

    use super::*;

    #[test]
    fn integral_floats_are_counted() {
        let v: Value =
            serde_json::from_str(r#"{"a": 5000.0, "b": [1.5, -2.0, 1e300], "c": 3}"#).unwrap();
        assert_eq!(integral_float_count(&v), 2);
        assert_eq!(integral_float_count(&json!({"a": 1, "b": "2.0"})), 0);
    }

    #[test]
    fn integers_are_written_as_floats() {
        let v = json!({"a": 2, "b": [1.5, -3], "c": "7", "d": 18446744073709551615u64});
        let (out, n) = integers_as_floats(&v);
        assert_eq!(n, 2);
        assert!(out["a"].is_f64());
        assert_eq!(
            out.to_string(),
            r#"{"a":2.0,"b":[1.5,-3.0],"c":"7","d":18446744073709551615}"#
        );
        assert_eq!(digest(&out), digest(&v));
    }
}

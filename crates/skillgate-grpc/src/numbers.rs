//! Numbers in a protobuf `Struct`/`Value` (Data Parts, metadata) are doubles; these keep
//! the JSON bindings' integers intact where a double can carry them, on both sides of the
//! binding (server adapter and client transport).

use serde_json::{Number, Value};

/// The largest "safe" integer, 2^53 - 1: it and every integer below it is exactly one
/// double, and no other integer rounds to it. 2^53 itself is also what 2^53 + 1 rounds to,
/// so it is not safe; pbjson's `Value` parser draws the line at the same place.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Turns every number of `v` that is a whole double within +-(2^53 - 1) into a JSON integer.
///
/// A protobuf `Struct`/`Value` (Data Part `data`, every `metadata`) holds numbers as doubles,
/// so `{"n": 1}` arrives as `1.0`; a skill's JSON Schema and output would otherwise see a
/// float where the JSON binding gives an integer. From 2^53 on a double is no longer exact:
/// the caller's integer was already rounded when its client built the `Value`, and it stays
/// a float so the rounding is visible rather than passed off as the caller's number. No
/// other A2A field is a double, so the whole tree can be walked.
pub fn integral_numbers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
                if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 {
                    // Exact: |f| <= 2^53 fits an i64 without loss.
                    #[allow(clippy::cast_possible_truncation)]
                    let i = f as i64;
                    *n = Number::from(i);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(integral_numbers),
        Value::Object(m) => m.values_mut().for_each(integral_numbers),
        _ => {}
    }
}

/// Turns every integer of `v` beyond +-(2^53 - 1) into the nearest double.
///
/// The answer's Data Parts may hold such integers (a task created over JSON-RPC, a skill's
/// output): a protobuf `Struct` can only carry them as doubles, and the pbjson parser
/// refuses an integer it cannot hold exactly, which would fail the whole answer (a GetTask of
/// that task, say). The rounding is the one every protobuf peer applies; the JSON bindings
/// keep the exact value, and docs/design.md tells callers to send such numbers as strings.
pub fn inexact_integers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            let big = match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => i.unsigned_abs() > MAX_SAFE_INTEGER,
                (None, Some(u)) => u > MAX_SAFE_INTEGER,
                (None, None) => false,
            };
            if big {
                if let Some(d) = n.as_f64().and_then(Number::from_f64) {
                    *n = d;
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(inexact_integers),
        Value::Object(m) => m.values_mut().for_each(inexact_integers),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::{inexact_integers, integral_numbers};
    use serde_json::json;

    #[test]
    fn whole_doubles_become_integers_below_2_pow_53() {
        let mut v = json!({"a": 1.0, "b": [2.5, -3.0], "c": 9007199254740991.0_f64,
                           "d": 9007199254740992.0_f64, "e": 7});
        integral_numbers(&mut v);
        assert_eq!(v["a"], json!(1));
        assert!(v["a"].is_i64());
        assert_eq!(v["b"], json!([2.5, -3]));
        assert!(v["c"].is_i64());
        assert!(
            v["d"].is_f64(),
            "2^53 may be a rounded 2^53 + 1: stays a double"
        );
        assert_eq!(v["e"], json!(7));
    }

    #[test]
    fn integers_beyond_2_pow_53_become_the_nearest_double() {
        let mut v = json!({"a": 9007199254740993u64, "b": -9007199254740993i64,
                           "c": 9007199254740992u64, "d": [18446744073709551615u64],
                           "e": 9007199254740991u64});
        inexact_integers(&mut v);
        assert_eq!(v["a"].as_f64(), Some(9007199254740992.0));
        assert!(v["a"].is_f64());
        assert_eq!(v["b"].as_f64(), Some(-9007199254740992.0));
        assert!(v["c"].is_f64(), "2^53 is past the safe range too");
        assert!(v["d"][0].is_f64());
        assert!(v["e"].is_u64(), "2^53 - 1 is exact");
    }
}

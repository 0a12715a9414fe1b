//! Protobuf messages to and from skillgate's A2A types, through their ProtoJSON form: the
//! generated pbjson impls write and read exactly the JSON binding's wire shapes, and the
//! skillgate-a2a serde types already hold every A2A rule, so no rule is written twice here.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Number, Value};
use skillgate_a2a::A2aError;
use skillgate_server::ServiceError;

/// The largest magnitude up to which every integer is exactly a double (2^53).
const EXACT_DOUBLE_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// A request message as the A2A type the service takes. A message the A2A types refuse
/// (a missing required field, two members of a oneof) is `InvalidParams`, as on JSON-RPC.
pub fn request<P: Serialize, T: DeserializeOwned>(msg: &P) -> Result<T, ServiceError> {
    let mut v = serde_json::to_value(msg).map_err(|e| {
        ServiceError::new(
            A2aError::InvalidParams,
            format!("the request has no JSON form: {e}"),
        )
    })?;
    integral_numbers(&mut v);
    serde_json::from_value(v)
        .map_err(|e| ServiceError::new(A2aError::InvalidParams, format!("invalid request: {e}")))
}

/// An A2A value the service answered as the protobuf response message.
pub fn response<T: Serialize, P: DeserializeOwned>(value: &T) -> Result<P, ServiceError> {
    let v = serde_json::to_value(value).map_err(|e| internal(&e))?;
    from_json(v)
}

/// A JSON value of the A2A wire form as a protobuf message.
pub fn from_json<P: DeserializeOwned>(v: Value) -> Result<P, ServiceError> {
    serde_json::from_value(v).map_err(|e| internal(&e))
}

fn internal(e: &serde_json::Error) -> ServiceError {
    ServiceError::new(
        A2aError::InternalError,
        format!("the answer does not fit the gRPC message: {e}"),
    )
}

/// Turns every number of `v` that is a whole double within +-2^53 into a JSON integer.
///
/// A protobuf `Struct`/`Value` (Data Part `data`, every `metadata`) holds numbers as doubles,
/// so `{"n": 1}` arrives as `1.0`; a skill's JSON Schema and output would otherwise see a
/// float where the JSON binding gives an integer. Beyond 2^53 a double is no longer exact:
/// the caller's integer was already rounded when its client built the `Value`, and it stays
/// a float so the rounding is visible rather than passed off as the caller's number. No
/// other A2A field is a double, so the whole tree can be walked.
pub fn integral_numbers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
                if f.fract() == 0.0 && f.abs() <= EXACT_DOUBLE_INTEGERS {
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

#[cfg(test)]
mod tests {
    use super::integral_numbers;
    use serde_json::json;

    #[test]
    fn whole_doubles_become_integers_up_to_2_pow_53() {
        let mut v = json!({"a": 1.0, "b": [2.5, -3.0], "c": 9007199254740992.0_f64,
                           "d": 18014398509481984.0_f64, "e": 7});
        integral_numbers(&mut v);
        assert_eq!(v["a"], json!(1));
        assert!(v["a"].is_i64());
        assert_eq!(v["b"], json!([2.5, -3]));
        assert!(v["c"].is_i64());
        assert!(v["d"].is_f64(), "beyond 2^53 stays a double");
        assert_eq!(v["e"], json!(7));
    }
}

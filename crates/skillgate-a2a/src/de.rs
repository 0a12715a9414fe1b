//! Deserialization helpers for ProtoJSON leniency: `null` means the default value, integers may
//! arrive as JSON strings or as integral floats (Python peers send `10.0`).

use serde::{de::Error as _, Deserialize, Deserializer};
use serde_json::Value;

/// `null` or absent means the type's default.
pub(crate) fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Keeps presence of a JSON value member, including an explicit `null`.
pub(crate) fn present<'de, D>(d: D) -> Result<Option<Value>, D::Error>
where
    D: Deserializer<'de>,
{
    Value::deserialize(d).map(Some)
}

fn int32_from_value<E: serde::de::Error>(v: &Value) -> Result<i32, E> {
    let n = match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i
            } else if let Some(f) = n.as_f64() {
                if f.fract() != 0.0 || !f.is_finite() {
                    return Err(E::custom("expected an integer"));
                }
                f as i64
            } else {
                return Err(E::custom("expected an integer"));
            }
        }
        Value::String(s) => s
            .trim()
            .parse::<i64>()
            .map_err(|_| E::custom("expected an integer"))?,
        _ => return Err(E::custom("expected an integer")),
    };
    i32::try_from(n).map_err(|_| E::custom("integer out of int32 range"))
}

/// An `optional int32`: absent/null is `None`, numbers or numeric strings are accepted.
pub(crate) fn opt_int32<'de, D>(d: D) -> Result<Option<i32>, D::Error>
where
    D: Deserializer<'de>,
{
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => int32_from_value(&v).map(Some),
    }
}

/// A plain `int32`: absent/null is 0.
pub(crate) fn int32<'de, D>(d: D) -> Result<i32, D::Error>
where
    D: Deserializer<'de>,
{
    Ok(opt_int32(d)?.unwrap_or(0))
}

/// An `optional bool`; ProtoJSON also allows no string form, so only JSON booleans are accepted.
pub(crate) fn opt_bool<'de, D>(d: D) -> Result<Option<bool>, D::Error>
where
    D: Deserializer<'de>,
{
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(_) => Err(D::Error::custom("expected a boolean")),
    }
}

/// Serde `skip_serializing_if` helper for plain bools.
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

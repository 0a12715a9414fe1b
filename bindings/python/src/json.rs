//! Python values <-> `serde_json::Value`, and the JSON inputs the API accepts.
//!
//! Written here rather than taken from a serde bridge because the bridge would be wrong for
//! this API in two ways: serde_json turns a non-finite float into `null` silently (a digest
//! of `nan` would equal the digest of `None`), and nesting would be unbounded. Here a
//! non-finite float, an integer outside 64 bits, a non-string key and nesting deeper than the
//! core's strict parser allows are each a `JsonInvalid` error with its own code.

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};
use serde_json::{Map, Number, Value};
use skillgate_core::jcs::{self, JcsError};

use crate::errors::{json_invalid, raise};
use crate::utf8::utf8;

/// The deepest Python value converted, the same limit the core's strict parser applies to
/// JSON text, so that `digest(obj)` and `digest(json.dumps(obj))` accept the same values.
pub(crate) const MAX_DEPTH: usize = jcs::DEFAULT_MAX_DEPTH;

/// A Python value as a JSON value: dict (string keys), list or tuple, str, int, float, bool,
/// None.
pub(crate) fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_value_counted(obj).map(|(v, _)| v)
}

/// [`to_value`], with the number of values converted (what a caller weighs before handing the
/// work to another thread).
pub(crate) fn to_value_counted(obj: &Bound<'_, PyAny>) -> PyResult<(Value, usize)> {
    let mut nodes = 0;
    convert(obj, MAX_DEPTH, &mut nodes).map(|v| (v, nodes))
}

/// Values above which hashing or validating runs with the GIL released: below it, releasing
/// and taking the GIL back costs more than the work.
pub(crate) const DETACH_NODES: usize = 10_000;

fn convert(obj: &Bound<'_, PyAny>, depth_left: usize, nodes: &mut usize) -> PyResult<Value> {
    *nodes += 1;
    // The most frequent types first. A Python bool is an int: checked inside the int case.
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(utf8(s)?.into_owned()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        if depth_left == 0 {
            return Err(too_deep(obj.py()));
        }
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(non_string_key(k));
            };
            map.insert(utf8(key)?.into_owned(), convert(&v, depth_left - 1, nodes)?);
        }
        return Ok(Value::Object(map));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(b) = obj.cast::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::Number(u.into()));
        }
        return Err(out_of_range_int(obj.py()));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        return Number::from_f64(v).map(Value::Number).ok_or_else(|| {
            json_invalid(
                obj.py(),
                "number_out_of_range",
                format!("{v} is not a JSON number (I-JSON has no NaN or infinity)"),
            )
        });
    }
    if let Ok(l) = obj.cast::<PyList>() {
        if depth_left == 0 {
            return Err(too_deep(obj.py()));
        }
        let mut items = Vec::with_capacity(l.len());
        for v in l.iter() {
            items.push(convert(&v, depth_left - 1, nodes)?);
        }
        return Ok(Value::Array(items));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        if depth_left == 0 {
            return Err(too_deep(obj.py()));
        }
        let mut items = Vec::with_capacity(t.len());
        for v in t.iter() {
            items.push(convert(&v, depth_left - 1, nodes)?);
        }
        return Ok(Value::Array(items));
    }
    Err(not_json(obj))
}

/// The name of `obj`'s type, for messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}

/// A dict key that is not a `str` (`key`).
pub(crate) fn non_string_key(key: Bound<'_, PyAny>) -> PyErr {
    json_invalid(
        key.py(),
        "non_string_key",
        format!("object keys must be str, found {}", type_name(&key)),
    )
}

/// A value of no JSON type.
pub(crate) fn not_json(obj: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "{} is not a JSON value (expected dict, list, tuple, str, int, float, bool or None)",
        type_name(obj)
    ))
}

/// An `int` outside the 64-bit range.
pub(crate) fn out_of_range_int(py: Python<'_>) -> PyErr {
    json_invalid(
        py,
        "number_out_of_range",
        "an integer outside the 64-bit range has no exact JSON number in this API; pass it as a string or a float",
    )
}

/// Nesting deeper than [`MAX_DEPTH`] (a cycle ends here too).
pub(crate) fn too_deep(py: Python<'_>) -> PyErr {
    json_invalid(
        py,
        "too_deep",
        format!("arrays and objects nest deeper than {MAX_DEPTH} levels"),
    )
}

/// A JSON value as a Python value (dict, list, str, int, float, bool, None).
pub(crate) fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for item in a {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(m) => {
            let dict = PyDict::new(py);
            for (k, item) in m {
                dict.set_item(k, to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// What a JSON-taking function was given: JSON text (bytes or str, parsed strictly by the
/// core: duplicate members, lone surrogates and depth are refused) or a Python value.
pub(crate) enum JsonInput<'a> {
    /// UTF-8 JSON text.
    Text(Cow<'a, [u8]>),
    /// An already converted value.
    Value(Value),
}

impl<'a> JsonInput<'a> {
    /// Reads `obj`: `bytes`, `bytearray` and `str` are JSON text, anything else a value.
    pub(crate) fn read(obj: &'a Bound<'_, PyAny>) -> PyResult<Self> {
        match Self::text(obj)? {
            Some(text) => Ok(JsonInput::Text(text)),
            None => to_value(obj).map(JsonInput::Value),
        }
    }

    /// `obj` as JSON text when it is `bytes`, `bytearray` or `str` (borrowed where it can
    /// be); `None` for anything else.
    pub(crate) fn text(obj: &'a Bound<'_, PyAny>) -> PyResult<Option<Cow<'a, [u8]>>> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Some(Cow::Borrowed(b.as_bytes())));
        }
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(Some(match utf8(s)? {
                Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
                Cow::Owned(s) => Cow::Owned(s.into_bytes()),
            }));
        }
        if let Ok(b) = obj.cast::<PyByteArray>() {
            return Ok(Some(Cow::Owned(b.to_vec())));
        }
        Ok(None)
    }

    /// The value (text parsed strictly).
    pub(crate) fn into_value(self, py: Python<'_>) -> PyResult<Value> {
        match self {
            JsonInput::Value(v) => Ok(v),
            JsonInput::Text(t) => py
                .detach(|| jcs::parse_strict(&t))
                .map_err(|e| jcs_error(py, &e)),
        }
    }
}

/// Runs `f` with the GIL released when the value has more than [`DETACH_NODES`] values.
pub(crate) fn detach_if<T: Send>(py: Python<'_>, nodes: usize, f: impl FnOnce() -> T + Send) -> T {
    if nodes > DETACH_NODES {
        py.detach(f)
    } else {
        f()
    }
}

/// A strict-parse failure as `JsonInvalid` with the core's kind as its code.
pub(crate) fn jcs_error(py: Python<'_>, e: &JcsError) -> PyErr {
    raise(py, e.kind.as_str(), &e.to_string(), None)
}

//! Raising the Python exceptions of `skillgate.errors` from Rust failures.
//!
//! The exception classes are plain Python (docstrings, `__init__`, `isinstance` checks that
//! type checkers understand); this module only picks the class by code and fills in the
//! attributes, so the code -> class table lives once, in `errors.py`.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use skillgate_client::ClientError;
use skillgate_core::instance::Failure;
use skillgate_core::wire::{ErrorDetail, ErrorObject};
use skillgate_core::ErrorCode;
use std::sync::Mutex;

/// The `details` of a validation failure as a list of dicts (never the offending value: the
/// core's details carry types and keywords only).
///
/// The keys, and the values that come from a small fixed set (keywords, JSON type names,
/// `present`/`absent`/`missing`), are interned strings made once per interpreter: an invalid
/// call with six failures otherwise made about 30 new `str` objects just for them.
pub(crate) fn details_to_py<'py>(
    py: Python<'py>,
    details: &[ErrorDetail],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for d in details {
        list.append(detail_dict(
            py,
            &d.instance_path,
            d.schema_path.as_deref(),
            d.keyword.as_deref(),
            d.expected.as_deref(),
            d.actual.as_deref(),
        )?)?;
    }
    Ok(list)
}

/// One failure as the validator reports it, as a detail dict ([`details_to_py`]'s form), made
/// without the owned `ErrorDetail` in between.
pub(crate) fn failure_to_py<'py>(py: Python<'py>, f: &Failure<'_>) -> PyResult<Bound<'py, PyDict>> {
    detail_dict(
        py,
        &f.instance_path,
        f.schema_path,
        f.keyword,
        f.expected.as_deref(),
        Some(f.actual),
    )
}

/// A detail dict: the members that are present, fixed words as interned strings.
fn detail_dict<'py>(
    py: Python<'py>,
    instance_path: &str,
    schema_path: Option<&str>,
    keyword: Option<&str>,
    expected: Option<&str>,
    actual: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let item = PyDict::new(py);
    item.set_item(intern!(py, "instance_path"), instance_path)?;
    if let Some(v) = schema_path {
        item.set_item(intern!(py, "schema_path"), v)?;
    }
    for (k, v) in [
        (intern!(py, "keyword"), keyword),
        (intern!(py, "expected"), expected),
        (intern!(py, "actual"), actual),
    ] {
        if let Some(v) = v {
            match known_word(py, v) {
                Some(word) => item.set_item(k, word)?,
                None => item.set_item(k, v)?,
            }
        }
    }
    Ok(item)
}

/// The `str` of `code`: one of the draft's ten codes is made once per interpreter, anything else
/// (a JSON refusal's kind, a code a peer sent) now.
fn code_str<'py>(py: Python<'py>, code: &str) -> Bound<'py, PyString> {
    static CODES: pyo3::sync::PyOnceLock<Vec<Py<PyString>>> = pyo3::sync::PyOnceLock::new();
    let Some(i) = ErrorCode::ALL.iter().position(|c| c.as_str() == code) else {
        return PyString::new(py, code);
    };
    let codes = CODES.get_or_init(py, || {
        ErrorCode::ALL
            .iter()
            .map(|c| PyString::intern(py, c.as_str()).unbind())
            .collect()
    });
    codes[i].bind(py).clone()
}

/// The interned `str` of a word details often carry, if `word` is one.
fn known_word<'py>(py: Python<'py>, word: &str) -> Option<&'py Bound<'py, PyString>> {
    macro_rules! words {
        ($($w:literal),* $(,)?) => {
            match word {
                $($w => Some(intern!(py, $w)),)*
                _ => None,
            }
        };
    }
    words!(
        // JSON types (`actual`, and `expected` of `type`) and presence.
        "null",
        "boolean",
        "integer",
        "number",
        "string",
        "array",
        "object",
        "present",
        "absent",
        "missing",
        // Keywords that fail most often.
        "type",
        "required",
        "additionalProperties",
        "unevaluatedProperties",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "pattern",
        "format",
        "uniqueItems",
        "anyOf",
        "oneOf",
        "not",
        "contains",
        "false",
    )
}

/// The exception class for `code`, as `skillgate.errors.error_class` says, asked once per code
/// and kept (calling into Python for it was ~1.8k instructions of every raise).
fn class_of(py: Python<'_>, code: &str) -> PyResult<Py<PyAny>> {
    static LOOKUP: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    // Codes are a short fixed set plus whatever a peer sent; past this many, look up uncached.
    const KEPT: usize = 64;
    static KNOWN: Mutex<Vec<(String, Py<PyAny>)>> = Mutex::new(Vec::new());
    {
        let known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, class)) = known.iter().find(|(c, _)| c == code) {
            return Ok(class.clone_ref(py));
        }
    }
    let lookup = LOOKUP.get_or_try_init(py, || {
        py.import("skillgate.errors")?
            .getattr("error_class")
            .map(Bound::unbind)
    })?;
    let class = lookup.bind(py).call1((code,))?.unbind();
    let mut known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    if known.len() < KEPT {
        known.push((code.to_owned(), class.clone_ref(py)));
    }
    Ok(class)
}

/// Builds the exception for `code`; any failure while building it becomes that failure.
///
/// The instance is made by the class's `__new__` (which sets `args`, so `str()` is the message)
/// and its attributes are set here, without running the Python `__init__`: that frame was a
/// third of an invalid call's cost. Attributes `fill` does not set keep the class defaults
/// `SkillgateError` declares (`None`).
fn build(
    py: Python<'_>,
    code: &str,
    message: &str,
    fill: impl FnOnce(&Bound<'_, PyAny>) -> PyResult<()>,
) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let class = class_of(py, code)?;
        let class = class.bind(py);
        let message = PyString::new(py, message);
        let instance = class
            .getattr(intern!(py, "__new__"))?
            .call1((&class, &message))?;
        instance.setattr(intern!(py, "message"), &message)?;
        instance.setattr(intern!(py, "code"), code_str(py, code))?;
        fill(&instance)?;
        Ok(PyErr::from_value(instance))
    })();
    made.unwrap_or_else(|e| e)
}

/// A `SkillgateError` subclass for `code` whose `details` are `details`, already made.
pub(crate) fn raise_with_details(
    py: Python<'_>,
    code: &str,
    message: &str,
    details: Bound<'_, PyList>,
) -> PyErr {
    build(py, code, message, |e| {
        e.setattr(intern!(py, "details"), details)
    })
}

/// A `SkillgateError` subclass for `code` with optional validation details.
pub(crate) fn raise(
    py: Python<'_>,
    code: &str,
    message: &str,
    details: Option<&[ErrorDetail]>,
) -> PyErr {
    build(py, code, message, |e| match details {
        Some(d) => e.setattr(intern!(py, "details"), details_to_py(py, d)?),
        None => e.setattr(intern!(py, "details"), PyList::empty(py)),
    })
}

/// `JsonInvalid` with `kind` as its code.
pub(crate) fn json_invalid(py: Python<'_>, kind: &str, message: impl AsRef<str>) -> PyErr {
    raise(py, kind, message.as_ref(), None)
}

/// The draft error object as an exception of its code.
pub(crate) fn from_error_object(py: Python<'_>, e: &ErrorObject) -> PyErr {
    raise(
        py,
        e.code.as_str(),
        e.message.as_deref().unwrap_or(e.code.as_str()),
        Some(&e.details),
    )
}

/// A client failure with its code, `where`, step, task id and state.
pub(crate) fn from_client_error(py: Python<'_>, e: &ClientError) -> PyErr {
    let details: &[ErrorDetail] = match e {
        ClientError::Local { details, .. } | ClientError::Remote { details, .. } => details,
        _ => &[],
    };
    let state = match e {
        ClientError::Remote { state, .. } => Some(state.as_str()),
        ClientError::Protocol { state, .. } => state.as_ref().map(|s| s.as_str()),
        _ => None,
    };
    build(py, e.code_str(), &e.to_string(), |x| {
        x.setattr(intern!(py, "details"), details_to_py(py, details)?)?;
        x.setattr(intern!(py, "where"), e.where_().as_str())?;
        if let Some(step) = e.step() {
            x.setattr(intern!(py, "step"), step.number())?;
            x.setattr(intern!(py, "step_name"), step.name())?;
        }
        x.setattr(intern!(py, "task_id"), e.task_id())?;
        x.setattr(intern!(py, "state"), state)
    })
}

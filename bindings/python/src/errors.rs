//! Raising the Python exceptions of `skillgate.errors` from Rust failures.
//!
//! The exception classes are plain Python (docstrings, `__init__`, `isinstance` checks that
//! type checkers understand); this module only picks the class by code and fills in the
//! attributes, so the code -> class table lives once, in `errors.py`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use skillgate_client::ClientError;
use skillgate_core::wire::{ErrorDetail, ErrorObject};

/// The `details` of a validation failure as a list of dicts (never the offending value: the
/// core's details carry types and keywords only).
pub(crate) fn details_to_py<'py>(
    py: Python<'py>,
    details: &[ErrorDetail],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for d in details {
        let item = PyDict::new(py);
        item.set_item("instance_path", &d.instance_path)?;
        for (k, v) in [
            ("schema_path", &d.schema_path),
            ("keyword", &d.keyword),
            ("expected", &d.expected),
            ("actual", &d.actual),
        ] {
            if let Some(v) = v {
                item.set_item(k, v)?;
            }
        }
        list.append(item)?;
    }
    Ok(list)
}

/// Builds the exception for `code`; any failure while building it becomes that failure.
fn build(
    py: Python<'_>,
    code: &str,
    message: &str,
    fill: impl FnOnce(&Bound<'_, PyDict>) -> PyResult<()>,
) -> PyErr {
    // The lookup function, found once per interpreter.
    static ERROR_CLASS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
    let made = (|| -> PyResult<PyErr> {
        let lookup = ERROR_CLASS.get_or_try_init(py, || {
            py.import("skillgate.errors")?
                .getattr("error_class")
                .map(Bound::unbind)
        })?;
        let class = lookup.bind(py).call1((code,))?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("code", code)?;
        fill(&kwargs)?;
        let instance = class.call((message,), Some(&kwargs))?;
        Ok(PyErr::from_value(instance))
    })();
    made.unwrap_or_else(|e| e)
}

/// A `SkillgateError` subclass for `code` with optional validation details.
pub(crate) fn raise(
    py: Python<'_>,
    code: &str,
    message: &str,
    details: Option<&[ErrorDetail]>,
) -> PyErr {
    build(py, code, message, |kw| {
        if let Some(d) = details {
            kw.set_item("details", details_to_py(py, d)?)?;
        }
        Ok(())
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
    build(py, e.code_str(), &e.to_string(), |kw| {
        kw.set_item("details", details_to_py(py, details)?)?;
        kw.set_item("where", e.where_().as_str())?;
        if let Some(step) = e.step() {
            kw.set_item("step", step.number())?;
            kw.set_item("step_name", step.name())?;
        }
        kw.set_item("task_id", e.task_id())?;
        kw.set_item("state", state)?;
        Ok(())
    })
}

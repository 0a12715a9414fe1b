//! Python values straight to RFC 8785 bytes: into a buffer (`canonicalize`) or into SHA-256
//! (`digest`), with no `serde_json::Value` in between (design.md D312).
//!
//! Walking the objects is where the time went: converting a 30 MB document into a `Value`
//! first cost more than canonicalizing and hashing it. Here each string is written from the
//! UTF-8 CPython already holds ([`utf8`]), and each dict's members are sorted by borrowed
//! names. Every formatting rule is the core's: numbers through [`jcs::write_number`], strings
//! through [`jcs::write_string`], member order through [`jcs::sort_members`]. The values
//! accepted and refused are [`crate::json`]'s, with the same codes.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Number;
use skillgate_core::jcs::{self, Sink};

use crate::errors::json_invalid;
use crate::json::{non_string_key, not_json, out_of_range_int, too_deep, MAX_DEPTH};
use crate::utf8::utf8;

/// Writes the RFC 8785 form of `obj` into `out`: dict (str keys), list, tuple, str, int,
/// float, bool, None. Refused, as [`crate::json::to_value`] refuses them: a non-str key,
/// NaN or an infinity, an int outside 64 bits, nesting deeper than 128 (so a cycle), another
/// type. One difference: a dict whose str subclass keys compare equal as text raises
/// `duplicate_member` (the code JSON text gets) rather than keeping one of them.
pub(crate) fn write<S: Sink>(obj: &Bound<'_, PyAny>, out: &mut S) -> PyResult<()> {
    write_value(obj, MAX_DEPTH, out)
}

fn write_value<S: Sink>(obj: &Bound<'_, PyAny>, depth_left: usize, out: &mut S) -> PyResult<()> {
    // The most frequent types first. A Python bool is an int: checked inside the int case.
    if let Ok(s) = obj.cast::<PyString>() {
        jcs::write_string(&utf8(s)?, out);
    } else if let Ok(d) = obj.cast::<PyDict>() {
        write_dict(d, depth_left, out)?;
    } else if obj.cast::<PyInt>().is_ok() {
        write_int(obj, out)?;
    } else if let Ok(f) = obj.cast::<PyFloat>() {
        let v = f.value();
        let n = Number::from_f64(v).ok_or_else(|| {
            json_invalid(
                obj.py(),
                "number_out_of_range",
                format!("{v} is not a JSON number (I-JSON has no NaN or infinity)"),
            )
        })?;
        jcs::write_number(&n, out);
    } else if let Ok(l) = obj.cast::<PyList>() {
        write_array(obj.py(), l.iter(), depth_left, out)?;
    } else if obj.is_none() {
        out.put(b"null");
    } else if let Ok(t) = obj.cast::<PyTuple>() {
        write_array(obj.py(), t.iter(), depth_left, out)?;
    } else {
        return Err(not_json(obj));
    }
    Ok(())
}

fn write_int<S: Sink>(obj: &Bound<'_, PyAny>, out: &mut S) -> PyResult<()> {
    if let Ok(b) = obj.cast::<PyBool>() {
        out.put(if b.is_true() { b"true" } else { b"false" });
    } else if let Ok(i) = obj.extract::<i64>() {
        jcs::write_number(&Number::from(i), out);
    } else if let Ok(u) = obj.extract::<u64>() {
        jcs::write_number(&Number::from(u), out);
    } else {
        return Err(out_of_range_int(obj.py()));
    }
    Ok(())
}

fn write_array<'py, S: Sink>(
    py: Python<'py>,
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    depth_left: usize,
    out: &mut S,
) -> PyResult<()> {
    if depth_left == 0 {
        return Err(too_deep(py));
    }
    out.put(b"[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.put(b",");
        }
        write_value(&item, depth_left - 1, out)?;
    }
    out.put(b"]");
    Ok(())
}

fn write_dict<S: Sink>(d: &Bound<'_, PyDict>, depth_left: usize, out: &mut S) -> PyResult<()> {
    let py = d.py();
    if depth_left == 0 {
        return Err(too_deep(py));
    }
    // The keys are held here so that the names borrowed from them below outlive the sort.
    let mut entries = Vec::with_capacity(d.len());
    for (k, v) in d.iter() {
        let key = k
            .cast_into::<PyString>()
            .map_err(|e| non_string_key(e.into_inner()))?;
        entries.push((key, v));
    }
    let mut members = Vec::with_capacity(entries.len());
    for (k, v) in &entries {
        members.push((utf8(k)?, v));
    }
    jcs::sort_members(&mut members, |m| &m.0);
    if let Some(w) = members.windows(2).find(|w| w[0].0 == w[1].0) {
        let shown: String = w[0].0.chars().take(64).collect();
        return Err(json_invalid(
            py,
            "duplicate_member",
            format!("duplicate member name {shown:?} (two str keys with the same text)"),
        ));
    }
    out.put(b"{");
    for (i, (name, value)) in members.iter().enumerate() {
        if i > 0 {
            out.put(b",");
        }
        jcs::write_string(name, out);
        out.put(b":");
        write_value(value, depth_left - 1, out)?;
    }
    out.put(b"}");
    Ok(())
}

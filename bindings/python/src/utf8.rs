//! A Python `str`'s UTF-8 without copying it: the one place this crate uses `unsafe`.
//!
//! CPython keeps (or makes once, then caches inside the object) a `str`'s UTF-8 form, and
//! `PyUnicode_AsUTF8AndSize` hands out a pointer to it. That function is in the limited API only
//! from 3.10, so PyO3 built for abi3-py39 does not offer it and copies every string through a
//! temporary `bytes` object instead. Every CPython 3.x exports it all the same (it has been a
//! public `PyAPI_FUNC` since 3.3; on Linux and macOS an extension's symbols are resolved
//! against the interpreter at import), so it is declared here and the abi3-py39 module still
//! loads on 3.9 (design.md D311). On Windows, an abi3 module links `python3.dll`, which forwards
//! only the limited API of the running version: there the copying path stays.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::PyString;

/// The UTF-8 of `s`, borrowed from the object where the platform allows it. A string that
/// holds a lone surrogate has no UTF-8 and raises `UnicodeEncodeError`, as before.
#[cfg(not(windows))]
pub(crate) fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    borrowed::utf8(s).map(Cow::Borrowed)
}

/// The UTF-8 of `s` (copied: see the module's doc).
#[cfg(windows)]
pub(crate) fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<Cow<'a, str>> {
    s.to_cow()
}

#[cfg(not(windows))]
#[allow(unsafe_code)]
mod borrowed {
    use std::os::raw::c_char;

    use pyo3::ffi::{PyObject, Py_ssize_t};
    use pyo3::prelude::*;
    use pyo3::types::PyString;

    extern "C" {
        /// CPython's own declaration (`Include/unicodeobject.h`, public since 3.3).
        fn PyUnicode_AsUTF8AndSize(unicode: *mut PyObject, size: *mut Py_ssize_t) -> *const c_char;
    }

    pub(super) fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
        let mut size: Py_ssize_t = 0;
        // SAFETY: `s` is a live `str` and the GIL is held (a `Bound` proves both). CPython
        // returns either NULL with an exception set, or a pointer to `size` bytes of UTF-8
        // stored inside the object, which live as long as the object and never change (a
        // `str` is immutable); the returned borrow is tied to `s`, which keeps it alive.
        let ptr = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
        if ptr.is_null() {
            return Err(PyErr::fetch(s.py()));
        }
        let len = usize::try_from(size).unwrap_or(0);
        // SAFETY: as above, `ptr` points to `len` initialized bytes that outlive the borrow.
        let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
        // SAFETY: CPython's encoder writes strict UTF-8 (it fails, above, on a lone surrogate
        // rather than write one), so a second validation pass over every string is not needed.
        Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
    }
}

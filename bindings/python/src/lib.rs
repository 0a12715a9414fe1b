//! The native module `skillgate._skillgate` behind the Python package `skillgate`: the same
//! Rust crates as the `skillgate` binary (skillgate-core for canonical JSON, digests and
//! documents, skillgate-client for the eleven client steps, skillgate-runtime for the serving
//! gate), so a Python agent gets the same rules at the same speed. Python objects cross as
//! JSON values ([`json`]); failures cross as the exceptions of `skillgate.errors`.
//!
//! Only conversions live here. The pure-Python parts of the package (`python/skillgate`:
//! the exception classes, type stubs and the a2a-sdk integration) are next to it.

mod canon;
mod client;
mod core;
mod errors;
mod gate;
mod json;
mod utf8;

use pyo3::prelude::*;

/// Every Rust allocation of the module (not Python's own objects, which stay with CPython's
/// allocator): the C library's malloc and free were a quarter of an invalid call's instructions.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The module; `skillgate/__init__.py` re-exports its public names.
#[pymodule]
fn _skillgate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(core::canonicalize, m)?)?;
    m.add_function(wrap_pyfunction!(core::digest, m)?)?;
    m.add_function(wrap_pyfunction!(core::compose, m)?)?;
    m.add_function(wrap_pyfunction!(core::lint_card, m)?)?;
    m.add_class::<core::InterfaceDocument>()?;
    m.add_class::<gate::Gate>()?;
    m.add_class::<gate::Admitted>()?;
    m.add_class::<gate::Described>()?;
    m.add_class::<gate::Refused>()?;
    // Wrapped by the Python classes skillgate.Client and skillgate.BlockingClient.
    m.add_class::<client::Client>()?;
    m.add_class::<client::CallResult>()?;
    m.add_class::<client::Description>()?;
    m.add("EXTENSION_URI", skillgate_core::wire::EXTENSION_URI)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

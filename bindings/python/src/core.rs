//! The core functions: RFC 8785 canonical bytes, `sha256:` digests, Skill Interface
//! Documents (checked, digested, validating instances), composition and card lint. Every rule
//! is the Rust crates'; this module converts arguments and results.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde_json::Value;
use skillgate_core::compose::direct_composition;
use skillgate_core::digest::Hasher;
use skillgate_core::document::{validate_document, Expectations, Finding, ValidatedDocument};
use skillgate_core::instance::CompiledSchema;
use skillgate_core::jcs;
use skillgate_lint::ProfileChoice;
use std::borrow::Cow;

use crate::canon;
use crate::errors::{failure_to_py, raise, raise_with_details};
use crate::json::{jcs_error, to_py, to_value_counted, JsonInput, DETACH_NODES};

/// canonicalize(value) -> bytes
/// --
///
/// The RFC 8785 (JCS) canonical UTF-8 bytes of `value`. `bytes` and `str` are JSON text,
/// parsed strictly (a duplicate member, a lone surrogate or nesting deeper than 128 raises
/// `JsonInvalid`); any other argument is a JSON value (dict, list, str, int, float, bool, None).
#[pyfunction]
pub(crate) fn canonicalize<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = match JsonInput::text(value)? {
        Some(t) => py
            .detach(|| jcs::canonicalize(&t))
            .map_err(|e| jcs_error(py, &e))?,
        None => {
            let mut out = Vec::with_capacity(256);
            canon::write(value, &mut out)?;
            out
        }
    };
    Ok(PyBytes::new(py, &bytes))
}

/// digest(value) -> str
/// --
///
/// `"sha256:<64 hex>"` over the RFC 8785 form of `value` (the draft's Schema Reference and
/// interface digest). Takes what `canonicalize` takes; the canonical bytes are hashed as they
/// are produced, never held whole.
#[pyfunction]
pub(crate) fn digest(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    match JsonInput::text(value)? {
        Some(t) => py
            .detach(|| skillgate_core::digest_text(&t))
            .map(|d| d.to_string())
            .map_err(|e| jcs_error(py, &e)),
        None => {
            // Python objects can only be read with the GIL held, so the walk keeps it.
            let mut hasher = Hasher::new();
            canon::write(value, &mut hasher)?;
            Ok(hasher.finish().to_string())
        }
    }
}

/// Findings as a list of `{"code", "path", "message"}` dicts.
fn findings_to_py<'py>(py: Python<'py>, findings: &[Finding]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for f in findings {
        let d = PyDict::new(py);
        d.set_item("code", f.code.as_str())?;
        d.set_item("path", &f.path)?;
        d.set_item("message", &f.message)?;
        list.append(d)?;
    }
    Ok(list)
}

/// A Skill Interface Document, checked when it is built: the trusted Skill Interface Schema,
/// every embedded schema's digest, the JSON Schema dialect, no reference outside the document
/// (nothing is ever fetched). `InterfaceDocument(doc)` takes JSON text (bytes or str) or a
/// dict and raises `InterfaceInvalid` listing every finding; `InterfaceDocument.check(doc)`
/// returns the findings instead.
#[pyclass(module = "skillgate._skillgate", frozen, name = "InterfaceDocument")]
pub(crate) struct InterfaceDocument {
    pub(crate) doc: ValidatedDocument,
    /// The messages of failed input and output validations, made once (formatting one per
    /// failure was about a thirtieth of an invalid call).
    input_invalid: Box<str>,
    output_invalid: Box<str>,
}

/// `doc` as a value: JSON text (strict) or a dict.
fn document_value(py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<Value> {
    JsonInput::read(doc)?.into_value(py)
}

/// Every finding as one `InterfaceInvalid`, its message listing them.
fn invalid(py: Python<'_>, findings: &[Finding]) -> PyErr {
    let lines: Vec<String> = findings
        .iter()
        .map(|f| {
            format!(
                "{}: {}",
                if f.path.is_empty() { "/" } else { &f.path },
                f.message
            )
        })
        .collect();
    let err = raise(
        py,
        "interface_invalid",
        &format!(
            "the Skill Interface Document is invalid ({} finding{}): {}",
            findings.len(),
            if findings.len() == 1 { "" } else { "s" },
            lines.join("; ")
        ),
        None,
    );
    if let Ok(list) = findings_to_py(py, findings) {
        // The findings ride along as `findings`; a failure here leaves the message intact.
        let _ = err.value(py).setattr("findings", list);
    }
    err
}

impl InterfaceDocument {
    /// The Python object of a validated document.
    pub(crate) fn of(doc: ValidatedDocument) -> Self {
        let skill = doc.skill_id();
        Self {
            input_invalid: format!("arguments do not conform to the input schema of {skill}")
                .into(),
            output_invalid: format!("the output of {skill} does not conform to its output schema")
                .into(),
            doc,
        }
    }

    /// Validates `value` into a document.
    pub(crate) fn from_value(py: Python<'_>, value: &Value) -> PyResult<Self> {
        py.detach(|| ValidatedDocument::from_value(value, &Expectations::default()))
            .map(Self::of)
            .map_err(|e| invalid(py, &e.findings))
    }

    /// An `InterfaceDocument` or anything its constructor takes.
    pub(crate) fn extract_any(
        py: Python<'_>,
        obj: &Bound<'_, PyAny>,
    ) -> PyResult<ValidatedDocument> {
        if let Ok(d) = obj.cast::<InterfaceDocument>() {
            return Ok(d.get().doc.clone());
        }
        let value = document_value(py, obj)?;
        Self::from_value(py, &value).map(|d| d.doc)
    }

    /// Validates `v` against `schema`; on failure raises `code` with the message `what` makes
    /// and one detail per failure. An instance small enough to validate with the GIL held
    /// has its failures made into dicts as the validator reports them (an owned copy of each
    /// in between was a sixth of an invalid call); a large one is validated with the GIL
    /// released, its details copied out first.
    fn check_instance<'m>(
        py: Python<'_>,
        schema: &CompiledSchema,
        v: &Value,
        nodes: usize,
        code: &str,
        what: impl FnOnce() -> Cow<'m, str>,
    ) -> PyResult<()> {
        if nodes > DETACH_NODES {
            return py
                .detach(|| schema.validate(v))
                .map_err(|details| raise(py, code, &what(), Some(&details)));
        }
        let details = PyList::empty(py);
        let mut made = Ok(());
        let invalid = schema.each_failure(v, |f| {
            if made.is_ok() {
                made = failure_to_py(py, &f).and_then(|d| details.append(d));
            }
        });
        made?;
        if invalid {
            Err(raise_with_details(py, code, &what(), details))
        } else {
            Ok(())
        }
    }
}

#[pymethods]
impl InterfaceDocument {
    #[new]
    fn new(py: Python<'_>, document: &Bound<'_, PyAny>) -> PyResult<Self> {
        let value = document_value(py, document)?;
        Self::from_value(py, &value)
    }

    /// check(document) -> list[dict]
    /// --
    ///
    /// Every finding of `document` (JSON text or dict) as `{"code", "path", "message"}`;
    /// empty when it is valid. Never raises for an invalid document, only for input that is
    /// not JSON.
    #[staticmethod]
    fn check<'py>(py: Python<'py>, document: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let value = document_value(py, document)?;
        let findings = py.detach(|| validate_document(&value, &Expectations::default()));
        findings_to_py(py, &findings)
    }

    /// The skill id the document describes.
    #[getter]
    fn skill_id(&self) -> &str {
        self.doc.skill_id()
    }

    /// The skill version (`Major.Minor`).
    #[getter]
    fn skill_version(&self) -> &str {
        self.doc.skill_version()
    }

    /// The interface digest: `sha256:` over the document's RFC 8785 form, what an Agent Card
    /// advertises and a request must carry.
    #[getter]
    fn digest(&self) -> String {
        self.doc.interface_digest().to_string()
    }

    /// The supporting record kinds the document declares.
    #[getter]
    fn record_kinds(&self) -> Vec<String> {
        self.doc
            .document()
            .supporting_record_schemas
            .keys()
            .cloned()
            .collect()
    }

    /// The document as a dict (as given, not canonicalized).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.doc.value())
    }

    /// The document's RFC 8785 canonical bytes (what `digest` hashes).
    fn canonical_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.doc.canonical_bytes())
    }

    /// validate_input(arguments) -> None
    /// --
    ///
    /// Validates arguments (a JSON value) against the input schema; raises `InputInvalid`
    /// with one detail per failure (`instance_path`, `schema_path`, `keyword`, `expected`,
    /// `actual`, never the value itself).
    fn validate_input(&self, py: Python<'_>, arguments: &Bound<'_, PyAny>) -> PyResult<()> {
        let (v, nodes) = to_value_counted(arguments)?;
        let message = || Cow::Borrowed(&*self.input_invalid);
        Self::check_instance(
            py,
            self.doc.input_validator(),
            &v,
            nodes,
            "input_invalid",
            message,
        )
    }

    /// validate_output(output) -> None
    /// --
    ///
    /// Validates a result against the output schema; raises `OutputInvalid` with details.
    fn validate_output(&self, py: Python<'_>, output: &Bound<'_, PyAny>) -> PyResult<()> {
        let (v, nodes) = to_value_counted(output)?;
        let message = || Cow::Borrowed(&*self.output_invalid);
        Self::check_instance(
            py,
            self.doc.output_validator(),
            &v,
            nodes,
            "output_invalid",
            message,
        )
    }

    /// validate_record(kind, record) -> None
    /// --
    ///
    /// Validates a supporting record against the schema of its declared `kind`; raises
    /// `OutputInvalid` for an undeclared kind or an invalid record.
    fn validate_record(
        &self,
        py: Python<'_>,
        kind: &str,
        record: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let Some(validator) = self.doc.record_validator(kind) else {
            return Err(raise(
                py,
                "output_invalid",
                &format!(
                    "{} declares no supporting record kind {kind:?}",
                    self.doc.skill_id()
                ),
                None,
            ));
        };
        let (v, nodes) = to_value_counted(record)?;
        Self::check_instance(py, validator, &v, nodes, "output_invalid", || {
            Cow::Owned(format!(
                "a {kind} record of {} does not conform to its schema",
                self.doc.skill_id()
            ))
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "InterfaceDocument(skill_id={:?}, skill_version={:?}, digest={:?})",
            self.doc.skill_id(),
            self.doc.skill_version(),
            self.doc.interface_digest().to_string()
        )
    }
}

/// compose(upstream, downstream) -> dict
/// --
///
/// Whether `upstream`'s output feeds `downstream`'s input directly (the draft's rule: the
/// two Schema References identical in schema_uri, version, digest and embedded schema).
/// Returns `{"composable": bool, "field", "upstream_value", "downstream_value", "message"}`
/// (the last four when not composable) plus `"inclusion"`: this profile's extension, whether
/// every value the upstream output schema accepts the downstream input schema accepts
/// (`included`, `not_included` or `undecided`, with `findings`). Takes `InterfaceDocument`s,
/// dicts or JSON text.
#[pyfunction]
pub(crate) fn compose<'py>(
    py: Python<'py>,
    upstream: &Bound<'py, PyAny>,
    downstream: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let up = InterfaceDocument::extract_any(py, upstream)?;
    let down = InterfaceDocument::extract_any(py, downstream)?;
    let (u, d) = (&up.document().output_schema, &down.document().input_schema);
    let result = direct_composition(u, d);
    let included = skillgate_evolve::inclusion(&u.resolution.schema, &d.resolution.schema);
    let mut out = serde_json::json!({
        "composable": result.is_ok(),
        "inclusion": serde_json::to_value(&included).unwrap_or(Value::Null),
    });
    if let Err(e) = &result {
        out["field"] = e.field.as_str().into();
        out["upstream_value"] = e.upstream.clone().into();
        out["downstream_value"] = e.downstream.clone().into();
        out["message"] = e.to_string().into();
    }
    to_py(py, &out)
}

/// lint_card(card, profile="auto") -> dict
/// --
///
/// Lints an Agent Card (JSON text as bytes or str, or a dict) against the A2A profile
/// (`auto`, `a2a-1.0`, `a2a-0.3`, `agentvault-1.0`) and the schema-interface extension.
/// Returns `{"profile", "findings": [{"rule", "severity", "path", "message", ...}]}`. Raises
/// `UsageError` for an unknown profile and `JsonInvalid` for text that is not JSON.
#[pyfunction]
#[pyo3(signature = (card, profile = "auto"))]
pub(crate) fn lint_card<'py>(
    py: Python<'py>,
    card: &Bound<'py, PyAny>,
    profile: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let choice: ProfileChoice = profile
        .parse()
        .map_err(|e: skillgate_lint::UnknownProfile| {
            raise(py, "usage_error", &e.to_string(), None)
        })?;
    let report = match JsonInput::read(card)? {
        JsonInput::Text(t) => py
            .detach(|| skillgate_lint::lint_bytes(&t, choice))
            .map_err(|e| raise(py, "json_invalid", &e.to_string(), None))?,
        JsonInput::Value(v) => py.detach(|| skillgate_lint::lint_value(&v, choice)),
    };
    let value = serde_json::to_value(&report)
        .map_err(|e| raise(py, "protocol_error", &e.to_string(), None))?;
    to_py(py, &value)
}

//! The serving side: `Gate`, everything the Rust runtime does at the wire for a set of Skill
//! Interface Documents, for an agent built on another A2A stack (a2a-sdk). The decisions are
//! the runtime's own ([`skillgate_runtime::Agent`] and [`skillgate_runtime::SkillGate`]): the
//! Python side only renders them into its SDK's types.

use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::Value;
use skillgate_core::document::{InterfaceBuilder, ValidatedDocument};
use skillgate_core::wire::{self, names, ErrorObject};
use skillgate_runtime::gate::{Phase, Rejection};
use skillgate_runtime::skill::SupportingRecord;
use skillgate_runtime::{Agent, ApprovalPolicy, Skill, SkillError, SkillOutput};

use crate::core::InterfaceDocument;
use crate::errors::{from_error_object, json_invalid, raise};
use crate::json::{detach_if, to_py, to_value_counted};

/// The gate's card members and decisions for a fixed set of documents. Built once; every
/// method is a lookup on precompiled validators and precomputed digests.
#[pyclass(module = "skillgate._skillgate", frozen, name = "Gate")]
pub(crate) struct Gate {
    agent: Agent,
    approval: ApprovalPolicy,
    extension: Value,
    describe_skill: Value,
    /// Each skill's describe_skill Data Part content, by artifact id: read once from the
    /// runtime's precomputed artifact, never serialized again per request.
    described: std::collections::HashMap<String, std::sync::Arc<Value>>,
}

/// A governed request the gate let through: run the skill with `arguments`.
#[pyclass(module = "skillgate._skillgate", frozen, name = "Admitted")]
pub(crate) struct Admitted {
    /// The skill id the request names.
    #[pyo3(get)]
    skill_id: String,
    arguments: Value,
}

/// A `describe_skill` request the gate answered: complete the task with this artifact.
#[pyclass(module = "skillgate._skillgate", frozen, name = "Described")]
pub(crate) struct Described {
    /// The skill whose document is described.
    #[pyo3(get)]
    skill_id: String,
    /// The artifact's id (unique per skill).
    #[pyo3(get)]
    artifact_id: String,
    /// The artifact's name (`describe_skill`).
    #[pyo3(get)]
    name: String,
    data: std::sync::Arc<Value>,
}

/// A refused request, or output that failed its schema: end the task in `state` with a status
/// message whose one Data Part is `error`.
#[pyclass(module = "skillgate._skillgate", frozen, name = "Refused")]
pub(crate) struct Refused {
    /// `"rejected"` (refused before acceptance) or `"failed"` (after it), as the profile
    /// assigns to the code in this phase.
    #[pyo3(get)]
    state: &'static str,
    /// `"admission"` or `"processing"`.
    #[pyo3(get)]
    phase: &'static str,
    error: ErrorObject,
}

impl Refused {
    fn of(r: Rejection) -> Self {
        Refused {
            state: match r.task_state() {
                skillgate_a2a::TaskState::Rejected => "rejected",
                _ => "failed",
            },
            phase: match r.phase {
                Phase::Admission => "admission",
                Phase::Processing => "processing",
            },
            error: r.error,
        }
    }
}

#[pymethods]
impl Admitted {
    /// The validated arguments (integral floats normalised: 80.0 is 80).
    #[getter]
    fn arguments<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.arguments)
    }
    fn __repr__(&self) -> String {
        format!("Admitted(skill_id={:?})", self.skill_id)
    }
}

#[pymethods]
impl Described {
    /// The Data Part content: `{"interface_digest", "skill_interface"}`.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.data)
    }
    fn __repr__(&self) -> String {
        format!("Described(skill_id={:?})", self.skill_id)
    }
}

#[pymethods]
impl Refused {
    /// The draft error code.
    #[getter]
    fn code(&self) -> &'static str {
        self.error.code.as_str()
    }
    /// The error object for the status message's Data Part: `{"code", "message",
    /// "details"}` (details only for input_invalid and output_invalid).
    #[getter]
    fn error<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = serde_json::to_value(&self.error)
            .map_err(|e| raise(py, "protocol_error", &e.to_string(), None))?;
        to_py(py, &v)
    }
    /// The same refusal as a `SkillgateError` subclass, to raise.
    fn exception(&self, py: Python<'_>) -> PyErr {
        from_error_object(py, &self.error)
    }
    fn __repr__(&self) -> String {
        format!("Refused(state={:?}, code={:?})", self.state, self.code())
    }
}

/// A handler for the runtime's bookkeeping only: the embedding agent runs its own executor,
/// so this is never called through `Gate`.
async fn unused(_: Value, _: skillgate_runtime::SkillContext) -> Result<SkillOutput, SkillError> {
    Err(SkillError::execution_failed(
        "this skill is served by the embedding agent's own executor",
    ))
}

impl Gate {
    fn build(docs: Vec<ValidatedDocument>, approval: ApprovalPolicy) -> Result<Self, String> {
        let mut builder = Agent::builder("skillgate gate", "documents served by an embedder", "1");
        for doc in &docs {
            let skill = Skill::declare(InterfaceBuilder::from_document(doc));
            // The runtime serves what the builder assembles: it must be the document as given.
            let served = skill.document().map(|d| d.interface_digest());
            if served.as_ref().ok() != Some(&doc.interface_digest()) {
                return Err(format!(
                    "skill {}: the document would not be served as written (digest {} becomes {})",
                    doc.skill_id(),
                    doc.interface_digest(),
                    served.map_or_else(|e| e.to_string(), |d| d.to_string())
                ));
            }
            builder = builder.skill(skill.handler(unused).build());
        }
        let agent = builder.build().map_err(|e| e.to_string())?;
        let card = agent.card("http://gate.invalid", false);
        let ext = card
            .capabilities
            .extensions
            .iter()
            .find(|e| e.uri == wire::EXTENSION_URI);
        let extension = serde_json::to_value(ext).map_err(|e| e.to_string())?;
        let describe = card.skills.iter().find(|s| s.id == wire::DESCRIBE_SKILL);
        let describe_skill = serde_json::to_value(describe).map_err(|e| e.to_string())?;
        let mut described = std::collections::HashMap::new();
        for id in agent.skill_ids() {
            let args = serde_json::json!({ names::SKILL_ID: id });
            if let Ok(artifact) = agent.describe_skill(&args) {
                let data = artifact
                    .parts
                    .first()
                    .and_then(|p| serde_json::to_value(p).ok())
                    .and_then(|p| p.get("data").cloned())
                    .unwrap_or(Value::Null);
                described.insert(artifact.artifact_id.clone(), std::sync::Arc::new(data));
            }
        }
        Ok(Gate {
            agent,
            approval,
            extension,
            describe_skill,
            described,
        })
    }

    /// [`Gate::decide`] on a converted value (`nodes` of it: above the threshold the checks run
    /// with the GIL released).
    fn decide_value(
        &self,
        py: Python<'_>,
        data: Value,
        nodes: usize,
    ) -> PyResult<Option<Py<PyAny>>> {
        let Some(Value::String(skill)) = data.get(names::SKILL) else {
            return Ok(None);
        };
        if skill == wire::DESCRIBE_SKILL {
            let args = data.get(names::ARGUMENTS).cloned().unwrap_or(Value::Null);
            return Ok(Some(match self.agent.describe_skill(&args) {
                Ok(artifact) => {
                    let data = self
                        .described
                        .get(&artifact.artifact_id)
                        .cloned()
                        .unwrap_or_default();
                    let skill_id = args
                        .get(names::SKILL_ID)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    Py::new(
                        py,
                        Described {
                            skill_id,
                            artifact_id: artifact.artifact_id.clone(),
                            name: artifact.name.clone(),
                            data,
                        },
                    )?
                    .into_any()
                }
                Err(r) => Py::new(py, Refused::of(r))?.into_any(),
            }));
        }
        let decided = detach_if(py, nodes, || {
            self.agent.governed(skill).and_then(|h| {
                h.gate()
                    .admit(&data, None, &self.approval)
                    .map(|a| (h.gate().skill_id().to_owned(), a.arguments))
            })
        });
        Ok(Some(match decided {
            Ok((skill_id, arguments)) => Py::new(
                py,
                Admitted {
                    skill_id,
                    arguments,
                },
            )?
            .into_any(),
            Err(r) => Py::new(py, Refused::of(r))?.into_any(),
        }))
    }
}

#[pymethods]
impl Gate {
    /// Gate(documents, approve_execute=False)
    /// --
    ///
    /// A gate over `documents` (`InterfaceDocument`s, dicts or JSON text), one per skill.
    /// `approve_execute` approves requests to skills whose authority mode is `execute`: `True`
    /// for all, a list of skill ids for those, `False` (the default) for none (they are refused
    /// with `authorization_failed`, as `skillgate serve` does without an approval policy).
    #[new]
    #[pyo3(signature = (documents, approve_execute = None))]
    fn new(
        py: Python<'_>,
        documents: &Bound<'_, PyAny>,
        approve_execute: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut docs = Vec::new();
        for d in documents.try_iter()? {
            docs.push(InterfaceDocument::extract_any(py, &d?)?);
        }
        let approval = match approve_execute {
            None => ApprovalPolicy::deny_all(),
            Some(a) if a.is_instance_of::<pyo3::types::PyBool>() => {
                if a.is_truthy()? {
                    ApprovalPolicy::allow_all()
                } else {
                    ApprovalPolicy::deny_all()
                }
            }
            Some(a) => ApprovalPolicy::allow_skills(a.extract::<Vec<String>>()?),
        };
        Gate::build(docs, approval).map_err(|m| raise(py, "interface_invalid", &m, None))
    }

    /// The `capabilities.extensions[]` entry to add to the Agent Card: the extension URI and
    /// `params` listing every skill's version and interface digest. The same object in 1.0
    /// and 0.3 cards.
    #[getter]
    fn extension<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.extension)
    }

    /// The card's `skills[]` entry for `describe_skill` (1.0 member names; the same in 0.3).
    #[getter]
    fn describe_skill_card_skill<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.describe_skill)
    }

    /// The skill ids, in the order given.
    #[getter]
    fn skill_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.agent.skill_ids())
    }

    /// document(skill_id) -> InterfaceDocument
    /// --
    ///
    /// The document served for `skill_id`; raises `InterfaceUnavailable` for another id.
    fn document(&self, py: Python<'_>, skill_id: &str) -> PyResult<InterfaceDocument> {
        self.agent
            .governed(skill_id)
            .map(|h| InterfaceDocument::of(h.gate().document().clone()))
            .map_err(|r| from_error_object(py, &r.error))
    }

    /// decide(request) -> Admitted | Described | Refused | None
    /// --
    ///
    /// The gate's decision on the content of a message's one Data Part, before any skill runs,
    /// in the profile's order: describe_skill is answered (`Described`); a skill not served is
    /// `interface_unavailable`; then `interface_mismatch` (skill_version and
    /// interface_digest), `resource_limit_exceeded` (max_input_bytes), `input_invalid`, and
    /// `authorization_failed` for an unapproved `execute` skill (`Refused`). `None` when
    /// `request` is not a governed request at all (not an object with a string `skill`):
    /// the embedding agent decides what to do with such messages.
    fn decide(&self, py: Python<'_>, request: &Bound<'_, PyAny>) -> PyResult<Option<Py<PyAny>>> {
        let (data, nodes) = to_value_counted(request)?;
        self.decide_value(py, data, nodes)
    }

    /// decide_protobuf(value) -> Admitted | Described | Refused | None
    /// --
    ///
    /// `decide` on a Data Part given as the serialized bytes of its protobuf
    /// `google.protobuf.Value` (a2a-sdk 1.x: `part.data.SerializeToString()`), read in Rust
    /// instead of through protobuf's pure-Python `json_format`. Bytes that are not such a value
    /// raise `JsonInvalid`.
    fn decide_protobuf(&self, py: Python<'_>, value: &[u8]) -> PyResult<Option<Py<PyAny>>> {
        let data = protobuf_value(py, value)?;
        self.decide_value(py, data, 0)
    }

    /// check_output_protobuf(skill_id, output, records=()) -> Refused | None
    /// --
    ///
    /// `check_output` with the output and each record's data given as serialized protobuf
    /// `google.protobuf.Value` bytes; records are `(kind, artifact_id, bytes)` tuples.
    #[pyo3(signature = (skill_id, output, records = None))]
    fn check_output_protobuf(
        &self,
        py: Python<'_>,
        skill_id: &str,
        output: &[u8],
        records: Option<Vec<(String, String, Vec<u8>)>>,
    ) -> PyResult<Option<Refused>> {
        let h = self
            .agent
            .governed(skill_id)
            .map_err(|r| from_error_object(py, &r.error))?;
        let mut out = SkillOutput::new(protobuf_value(py, output)?);
        for (kind, artifact_id, data) in records.unwrap_or_default() {
            out = out.with_record(SupportingRecord {
                artifact_id,
                kind,
                data: protobuf_value(py, &data)?,
            });
        }
        Ok(h.gate().check_output(&out).err().map(Refused::of))
    }

    /// check_output(skill_id, output, records=()) -> Refused | None
    /// --
    ///
    /// Checks a result before completion is reported: `output` against the output schema,
    /// each record (`{"kind", "artifact_id", "data"}` dicts or `(kind, artifact_id, data)`
    /// tuples) against its kind's schema, artifact ids non-empty, unique and not `result`.
    /// `None` when all is valid, else `Refused` with `output_invalid` (state `failed`).
    #[pyo3(signature = (skill_id, output, records = None))]
    fn check_output(
        &self,
        py: Python<'_>,
        skill_id: &str,
        output: &Bound<'_, PyAny>,
        records: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<Refused>> {
        let h = self
            .agent
            .governed(skill_id)
            .map_err(|r| from_error_object(py, &r.error))?;
        let (value, mut nodes) = to_value_counted(output)?;
        let mut out = SkillOutput::new(value);
        if let Some(records) = records {
            for r in records.try_iter()? {
                let (r, n) = record(&r?)?;
                nodes += n;
                out = out.with_record(r);
            }
        }
        Ok(detach_if(py, nodes, || h.gate().check_output(&out))
            .err()
            .map(Refused::of))
    }
}

/// One supporting record from a dict or a 3-tuple, with the number of values in its data.
fn record(r: &Bound<'_, PyAny>) -> PyResult<(SupportingRecord, usize)> {
    let (kind, artifact_id, data) = match r.extract::<(String, String, Bound<'_, PyAny>)>() {
        Ok(t) => t,
        Err(_) => (
            r.get_item("kind")?.extract()?,
            r.get_item("artifact_id")?.extract()?,
            r.get_item("data")?,
        ),
    };
    let (data, nodes) = to_value_counted(&data)?;
    Ok((
        SupportingRecord {
            artifact_id,
            kind,
            data,
        },
        nodes,
    ))
}

/// A serialized `google.protobuf.Value` as JSON: prost reads the bytes, pbjson writes the
/// value's ProtoJSON (numbers are doubles, as the protobuf peer sent them; the gate normalises
/// integral ones).
fn protobuf_value(py: Python<'_>, bytes: &[u8]) -> PyResult<Value> {
    use prost::Message;
    let v = pbjson_types::Value::decode(bytes).map_err(|e| {
        json_invalid(
            py,
            "syntax",
            format!("not a serialized google.protobuf.Value: {e}"),
        )
    })?;
    serde_json::to_value(&v).map_err(|e| json_invalid(py, "syntax", e.to_string()))
}

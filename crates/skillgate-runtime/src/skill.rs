//! The Skill API: a skill is its core [`InterfaceBuilder`] (id, version, schemas, declared
//! behaviour), the fields only its Agent Card entry needs, and an async handler
//! `(arguments, context) -> Result<SkillOutput, SkillError>`; [`SkillBuilder::typed_handler`]
//! lets a Rust handler take and return its own serde types instead of JSON values.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use skillgate_core::document::{InterfaceBuilder, InterfaceError, ValidatedDocument};
use skillgate_core::wire::{Authority, Constraints, Interaction};
use skillgate_core::ErrorCode;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The boxed future a handler returns.
pub(crate) type HandlerFuture =
    Pin<Box<dyn Future<Output = Result<SkillOutput, SkillError>> + Send + 'static>>;
/// A type-erased handler.
pub(crate) type Handler = Arc<dyn Fn(Value, SkillContext) -> HandlerFuture + Send + Sync>;

/// A schema-governed skill, ready to be added to an [`crate::AgentBuilder`]: the one place its
/// interface and its Agent Card entry are declared.
pub struct Skill {
    /// Everything the Skill Interface Document says; `AgentBuilder::build` validates it.
    pub(crate) interface: InterfaceBuilder,
    pub(crate) name: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) tags: Vec<String>,
    pub(crate) examples: Vec<String>,
    pub(crate) handler: Option<Handler>,
    /// Listed only in the extended Agent Card (see [`SkillBuilder::extended_only`]).
    pub(crate) extended: bool,
}

impl std::fmt::Debug for Skill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skill")
            .field("id", &self.interface.skill_id())
            .field("version", &self.interface.skill_version())
            .finish_non_exhaustive()
    }
}

impl Skill {
    /// Starts a skill with its id and `Major.Minor` version and the core builder's defaults
    /// (all three response modes, not cancelable, `observe_only`, no constraints).
    pub fn builder(id: impl Into<String>, version: impl Into<String>) -> SkillBuilder {
        Self::declare(InterfaceBuilder::new(id, version))
    }

    /// Starts a skill from an interface already declared with the core builder; the Agent Card
    /// fields and the handler are added on the returned builder.
    pub fn declare(interface: InterfaceBuilder) -> SkillBuilder {
        SkillBuilder(Skill {
            interface,
            name: None,
            description: None,
            tags: Vec::new(),
            examples: Vec::new(),
            handler: None,
            extended: false,
        })
    }

    /// The skill id.
    pub fn id(&self) -> &str {
        self.interface.skill_id()
    }
}

/// Builder of a [`Skill`]; the document is assembled and validated by `AgentBuilder::build`
/// (or earlier by [`SkillBuilder::document`]).
pub struct SkillBuilder(Skill);

impl SkillBuilder {
    /// The skill id, as declared.
    pub fn id(&self) -> &str {
        self.0.id()
    }
    /// The interface declared so far, for callers that inspect or reuse it.
    pub fn interface(&self) -> &InterfaceBuilder {
        &self.0.interface
    }
    /// Assembles and validates the Skill Interface Document this skill declares, the same one
    /// `AgentBuilder::build` will serve, without building an agent.
    pub fn document(&self) -> Result<ValidatedDocument, InterfaceError> {
        self.0.interface.clone().build()
    }
    /// Applies `f` to the declared interface (the setters below are shorthands for it).
    fn with_interface(self, f: impl FnOnce(InterfaceBuilder) -> InterfaceBuilder) -> Self {
        let Skill { interface, .. } = self.0;
        SkillBuilder(Skill {
            interface: f(interface),
            ..self.0
        })
    }
    /// Lists the skill only in the extended Agent Card (`GetExtendedAgentCard`), which
    /// authenticated callers whose token allows the skill receive. To everyone else (the public
    /// card, describe_skill, calls) it does not exist; without authentication nobody reaches it.
    pub fn extended_only(mut self) -> Self {
        self.0.extended = true;
        self
    }
    /// Human-readable name for the Agent Card (default: the id).
    pub fn name(mut self, s: impl Into<String>) -> Self {
        self.0.name = Some(s.into());
        self
    }
    /// Description for the Agent Card (default: "Schema-governed skill <id>").
    pub fn description(mut self, s: impl Into<String>) -> Self {
        self.0.description = Some(s.into());
        self
    }
    /// Tags for the Agent Card (at least one is advertised; default: the id).
    pub fn tags<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tags: I) -> Self {
        self.0.tags = tags.into_iter().map(Into::into).collect();
        self
    }
    /// Example prompts for the Agent Card.
    pub fn examples<I: IntoIterator<Item = S>, S: Into<String>>(mut self, ex: I) -> Self {
        self.0.examples = ex.into_iter().map(Into::into).collect();
        self
    }
    /// The input schema and its Schema Reference identity ([`InterfaceBuilder::input`]).
    pub fn input_schema(
        self,
        schema_uri: impl Into<String>,
        version: impl Into<String>,
        schema: Value,
    ) -> Self {
        self.with_interface(|i| i.input(schema_uri, version, schema))
    }
    /// The output schema and its Schema Reference identity ([`InterfaceBuilder::output`]).
    pub fn output_schema(
        self,
        schema_uri: impl Into<String>,
        version: impl Into<String>,
        schema: Value,
    ) -> Self {
        self.with_interface(|i| i.output(schema_uri, version, schema))
    }
    /// A supporting record kind and its schema ([`InterfaceBuilder::record`]).
    pub fn record_schema(
        self,
        kind: impl Into<String>,
        schema_uri: impl Into<String>,
        version: impl Into<String>,
        schema: Value,
    ) -> Self {
        self.with_interface(|i| i.record(kind, schema_uri, version, schema))
    }
    /// Response modes and cancelability.
    pub fn interaction(self, i: Interaction) -> Self {
        self.with_interface(|b| b.interaction(i))
    }
    /// Authority posture (descriptive; `execute` additionally needs the approval policy).
    pub fn authority(self, a: Authority) -> Self {
        self.with_interface(|b| b.authority(a))
    }
    /// Declared constraints (`max_input_bytes`, `max_duration_ms`), enforced by the runtime.
    pub fn constraints(self, c: Constraints) -> Self {
        self.with_interface(|b| b.constraints(c))
    }
    /// The domain handler, on JSON values: it receives schema-valid arguments and its output
    /// is checked against the output schema before it is published.
    pub fn handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Value, SkillContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<SkillOutput, SkillError>> + Send + 'static,
    {
        self.0.handler = Some(Arc::new(move |args, ctx| Box::pin(f(args, ctx))));
        self
    }
    /// The domain handler, on Rust types: the schema-valid arguments are deserialized into
    /// `In` and the `Out` it returns is serialized as the output (without supporting records;
    /// use [`Self::handler`] for those). Its error type only needs `Into<SkillError>`.
    ///
    /// Arguments that pass the input schema but not `In` are refused with `input_invalid`
    /// (the schema is looser than the type; the message does not quote the value, since
    /// serde's messages can contain it); an `Out` that cannot be serialized is
    /// `execution_failed`.
    pub fn typed_handler<In, Out, E, F, Fut>(self, f: F) -> Self
    where
        In: DeserializeOwned + Send + 'static,
        Out: Serialize + Send + 'static,
        E: Into<SkillError> + Send + 'static,
        F: Fn(In, SkillContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Out, E>> + Send + 'static,
    {
        let skill_id: Arc<str> = Arc::from(self.id());
        let f = Arc::new(f);
        self.handler(move |args: Value, ctx| {
            let parsed = In::deserialize(args).map_err(|_| {
                SkillError::new(
                    ErrorCode::InputInvalid,
                    format!("arguments do not match the input type of {skill_id}"),
                )
            });
            let f = Arc::clone(&f);
            async move {
                let out = f(parsed?, ctx).await.map_err(Into::into)?;
                serde_json::to_value(out)
                    .map(SkillOutput::new)
                    .map_err(|e| {
                        SkillError::execution_failed(format!("encoding the output failed: {e}"))
                    })
            }
        })
    }
    /// Finishes the skill.
    pub fn build(self) -> Skill {
        self.0
    }
}

/// What a handler knows about the request it serves.
#[derive(Clone, Debug)]
pub struct SkillContext {
    pub(crate) task_id: Arc<str>,
    pub(crate) context_id: Arc<str>,
    pub(crate) caller: Option<Arc<str>>,
    /// Fired by `CancelTask` only; clones share it, so the handler and the runner see one signal.
    pub(crate) cancel: CancellationToken,
    pub(crate) next_record: Arc<AtomicU64>,
    /// Where [`SkillContext::progress`] writes; `None` outside a running task.
    pub(crate) progress: Option<Progress>,
}

/// The running task a handler reports progress to.
#[derive(Clone)]
pub(crate) struct Progress(pub(crate) Arc<crate::task::TaskHandle>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Progress").field(&self.0.id).finish()
    }
}

impl SkillContext {
    /// The A2A task id.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }
    /// The A2A context id.
    pub fn context_id(&self) -> &str {
        &self.context_id
    }
    /// The authenticated caller's label (never the token), if authentication is on.
    pub fn caller(&self) -> Option<&str> {
        self.caller.as_deref()
    }
    /// A fresh task-scoped artifactId for a supporting record the handler is about to return;
    /// the handler puts it in its output (e.g. `supporting_record_refs`) and in
    /// `SupportingRecord::artifact_id`.
    pub fn new_record_artifact_id(&self) -> String {
        let n = self.next_record.fetch_add(1, Ordering::Relaxed) + 1;
        format!("record-{n}")
    }
    /// Whether the task was canceled (cancelable skills only).
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
    /// Resolves when the task is canceled.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }
    /// Reports that a long invocation is still working: a WORKING status update whose message
    /// is `text`, stored with the task and seen at once by streaming and subscribed clients
    /// (a gateway relays its upstream agent's status messages this way). Nothing happens once
    /// the task has ended (a cancel may have raced the report).
    pub async fn progress(&self, text: &str) {
        let Some(Progress(entry)) = &self.progress else {
            return;
        };
        let msg = crate::task::agent_message(entry, vec![skillgate_a2a::Part::text(text)]);
        let _ = entry
            .set_status(skillgate_a2a::TaskState::Working, Some(msg))
            .await;
    }
}

/// A handler's successful result: the output value and its supporting records.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkillOutput {
    /// Must conform to the output schema.
    pub output: Value,
    /// Each must conform to the schema of its kind.
    pub records: Vec<SupportingRecord>,
}

impl SkillOutput {
    /// An output without records.
    pub fn new(output: Value) -> Self {
        Self {
            output,
            records: Vec::new(),
        }
    }
    /// Adds a record.
    pub fn with_record(mut self, record: SupportingRecord) -> Self {
        self.records.push(record);
        self
    }
}

/// A supporting record, returned as its own Artifact named by its kind.
#[derive(Debug, Clone, PartialEq)]
pub struct SupportingRecord {
    /// The artifactId (from [`SkillContext::new_record_artifact_id`]).
    pub artifact_id: String,
    /// The record kind, one of the skill's declared kinds.
    pub kind: String,
    /// The record content.
    pub data: Value,
}

/// A domain failure reported by a handler, with one of the draft's codes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct SkillError {
    /// The draft error code.
    pub code: ErrorCode,
    /// Explanation for the caller (must not echo sensitive input).
    pub message: String,
}

impl SkillError {
    /// An error with any code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
    /// `constraint_rejected`: valid input the skill will not accept (REJECTED).
    pub fn constraint_rejected(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ConstraintRejected, message)
    }
    /// `execution_failed`: accepted work that could not finish (FAILED).
    pub fn execution_failed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ExecutionFailed, message)
    }
}

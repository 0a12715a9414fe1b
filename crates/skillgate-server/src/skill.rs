//! The Skill API: a skill is an id, a version, its schemas, its declared behaviour and an async
//! handler `(arguments, context) -> Result<SkillOutput, SkillError>`.

use serde_json::Value;
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

/// A schema-governed skill, ready to be added to an [`crate::AgentBuilder`].
pub struct Skill {
    pub(crate) id: String,
    pub(crate) version: String,
    pub(crate) name: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) tags: Vec<String>,
    pub(crate) examples: Vec<String>,
    pub(crate) input: Option<(String, String, Value)>,
    pub(crate) output: Option<(String, String, Value)>,
    pub(crate) records: Vec<(String, String, String, Value)>,
    pub(crate) interaction: Option<Interaction>,
    pub(crate) authority: Option<Authority>,
    pub(crate) constraints: Option<Constraints>,
    pub(crate) handler: Option<Handler>,
}

impl std::fmt::Debug for Skill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skill")
            .field("id", &self.id)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl Skill {
    /// Starts a skill with its id and `Major.Minor` version.
    pub fn builder(id: impl Into<String>, version: impl Into<String>) -> SkillBuilder {
        SkillBuilder(Skill {
            id: id.into(),
            version: version.into(),
            name: None,
            description: None,
            tags: Vec::new(),
            examples: Vec::new(),
            input: None,
            output: None,
            records: Vec::new(),
            interaction: None,
            authority: None,
            constraints: None,
            handler: None,
        })
    }

    /// The skill id.
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// Builder of a [`Skill`]; the document is assembled and validated by `AgentBuilder::build`.
pub struct SkillBuilder(Skill);

impl SkillBuilder {
    /// Human-readable name for the Agent Card (default: the id).
    pub fn name(mut self, s: impl Into<String>) -> Self {
        self.0.name = Some(s.into());
        self
    }
    /// Description for the Agent Card.
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
    /// The input schema and its Schema Reference identity.
    pub fn input_schema(
        mut self,
        schema_uri: impl Into<String>,
        version: impl Into<String>,
        schema: Value,
    ) -> Self {
        self.0.input = Some((schema_uri.into(), version.into(), schema));
        self
    }
    /// The output schema and its Schema Reference identity.
    pub fn output_schema(
        mut self,
        schema_uri: impl Into<String>,
        version: impl Into<String>,
        schema: Value,
    ) -> Self {
        self.0.output = Some((schema_uri.into(), version.into(), schema));
        self
    }
    /// A supporting record kind and its schema.
    pub fn record_schema(
        mut self,
        kind: impl Into<String>,
        schema_uri: impl Into<String>,
        version: impl Into<String>,
        schema: Value,
    ) -> Self {
        self.0
            .records
            .push((kind.into(), schema_uri.into(), version.into(), schema));
        self
    }
    /// Response modes and cancelability.
    pub fn interaction(mut self, i: Interaction) -> Self {
        self.0.interaction = Some(i);
        self
    }
    /// Authority posture (descriptive; `execute` additionally needs the approval policy).
    pub fn authority(mut self, a: Authority) -> Self {
        self.0.authority = Some(a);
        self
    }
    /// Declared constraints (`max_input_bytes`, `max_duration_ms`), enforced by the runtime.
    pub fn constraints(mut self, c: Constraints) -> Self {
        self.0.constraints = Some(c);
        self
    }
    /// The domain handler.
    pub fn handler<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Value, SkillContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<SkillOutput, SkillError>> + Send + 'static,
    {
        self.0.handler = Some(Arc::new(move |args, ctx| Box::pin(f(args, ctx))));
        self
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

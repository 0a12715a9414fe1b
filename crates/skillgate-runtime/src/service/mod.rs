//! The A2A service: every method of the protocol over typed requests, knowing nothing about HTTP.
//! The JSON-RPC and HTTP+JSON bindings are thin adapters over [`A2aService`].
//!
//! By concern: [`prepare`] turns a `SendMessage` into a task (or a plain turn), [`run`] drives
//! describe_skill and domain skills through the gate, [`plain`] plays plain-handler tasks,
//! [`stream`] serves event streams, [`query`] answers task reads and cancellation, and
//! [`answers`] holds the fixed answers both bindings give, and [`maintenance`] keeps the store
//! honest in the background (leases, stale tasks, retention).

mod answers;
mod maintenance;
mod plain;
mod prepare;
mod push;
mod query;
mod run;
mod stream;
mod turn;

pub use push::PushConfigs;

use crate::agent::Agent;
use crate::auth::Caller;
use crate::config::{ApprovalPolicy, ServerConfig};
use crate::gate::Rejection;
use crate::metrics::Metrics;
use crate::task::TaskHandle;
use serde_json::Value;
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{
    A2aError, Message, Part, SendMessageRequest, SendMessageResponse, StreamResponse, Task,
    TaskState,
};
use skillgate_core::wire::ErrorObject;
use skillgate_store::{StoreError, TaskStore};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use turn::{Turn, Work};

/// Per-request facts the bindings pass in.
#[derive(Clone, Debug)]
pub struct RequestContext {
    /// The authenticated caller, when authentication is on.
    pub caller: Option<Caller>,
    /// Activated extension URIs (supported ones the client asked for).
    pub extensions: Vec<String>,
    /// The A2A version the caller speaks (negotiated by the binding): a push notification
    /// config it registers is sent bodies of this version.
    pub version: WireVersion,
}

impl Default for RequestContext {
    /// An anonymous A2A 1.0 caller with no extension activated.
    fn default() -> Self {
        Self {
            caller: None,
            extensions: Vec::new(),
            version: WireVersion::V1_0,
        }
    }
}

/// A protocol-level error (not a task outcome).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct ServiceError {
    /// The A2A error.
    pub kind: A2aError,
    /// The message for the caller.
    pub message: String,
}

impl ServiceError {
    /// An error with a message.
    pub fn new(kind: A2aError, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// A stream of events, ended after a terminal or interrupted status.
pub type EventStream = mpsc::Receiver<StreamResponse>;

struct Inner {
    /// Swapped whole by a reload ([`crate::AgentSwap`]); a request takes one snapshot when it
    /// is prepared and keeps it until its task ends.
    agent: std::sync::RwLock<Agent>,
    store: Arc<dyn TaskStore>,
    /// The maintenance loop (leases, stale tasks, retention) has been started.
    maintenance: std::sync::Once,
    approval: ApprovalPolicy,
    request_timeout: Duration,
    max_task_duration: Duration,
    /// The server's counters (a no-op unless metrics are on).
    metrics: Metrics,
    /// Push notification delivery; `None` when push notifications are off.
    push: Option<crate::push::Pusher>,
    /// The A2A versions every binding serves (`ServerConfig::a2a_versions`).
    versions: crate::checks::VersionSet,
}

/// How long a deferred task (a blocking request to a skill that acts on nothing, see
/// `prepare`) may run unstored: past it, it is stored WORKING and can be found while it runs.
/// A task that ends sooner is written once, created finished.
const DEFER_GRACE: std::time::Duration = std::time::Duration::from_millis(100);

/// The A2A service over one agent.
#[derive(Clone)]
pub struct A2aService(Arc<Inner>);

/// What a prepared task runs once spawned.
enum Job {
    /// `describe_skill` with its arguments, on the agent the request was prepared with.
    Describe(Agent, Value),
    /// A domain skill (its id) with the request Data Part, on the agent the request was
    /// prepared with (a reload in between does not change the skill under a task).
    Domain(Agent, String, Value),
    /// A domain skill its gate already admitted (the checked arguments): a blocking request,
    /// whose task was stored WORKING, skipping SUBMITTED, or is stored when it ends (see
    /// `prepare`).
    Admitted(Agent, String, Value),
    /// A request refused before it reached any skill (e.g. a skill this agent does not serve).
    Refuse(Rejection),
    /// Nothing: the task was answered while it was prepared.
    Settled,
}

enum Prepared {
    Plain {
        message: Message,
        context_id: String,
    },
    Task {
        entry: Arc<TaskHandle>,
        job: Job,
    },
    Continue {
        entry: Arc<TaskHandle>,
        message: Message,
    },
}

pub(crate) use crate::task::{agent_message, new_id};

fn error_part(e: &ErrorObject) -> Part {
    Part::data(serde_json::to_value(e).unwrap_or(Value::Null))
}

fn trim_history(mut task: Task, history_length: Option<i32>) -> Task {
    if let Some(n) = history_length {
        let n = usize::try_from(n.max(0)).unwrap_or(0);
        let len = task.history.len();
        if len > n {
            task.history.drain(..len - n);
        }
    }
    task
}

fn check_history_length(h: Option<i32>) -> Result<(), ServiceError> {
    match h {
        Some(n) if n < 0 => Err(ServiceError::new(
            A2aError::InvalidParams,
            "historyLength must not be negative",
        )),
        _ => Ok(()),
    }
}

impl A2aService {
    /// A service over an agent with the given configuration. It counts nothing: the server's
    /// metrics come with the bindings that serve it (`ServerConfig::metrics`).
    pub fn new(agent: Agent, config: &ServerConfig) -> Self {
        Self::with_metrics(agent, config, Metrics::disabled())
    }

    /// [`A2aService::new`], counting tasks, gate outcomes and skill durations in `metrics`.
    pub(crate) fn with_metrics(agent: Agent, config: &ServerConfig, metrics: Metrics) -> Self {
        let store = config.store.clone().unwrap_or_else(|| {
            Arc::new(skillgate_store::MemoryStore::new(config.task_store.clone()))
        });
        let push = config.push.clone().and_then(|p| {
            match crate::push::Pusher::new(p, Arc::clone(&store), metrics.clone()) {
                Ok(p) => Some(p),
                Err(e) => {
                    tracing::error!(error = %e, "push notifications are off: cannot build the webhook client");
                    None
                }
            }
        });
        Self(Arc::new(Inner {
            push,
            agent: std::sync::RwLock::new(agent),
            store,
            maintenance: std::sync::Once::new(),
            approval: config.approval.clone(),
            request_timeout: config.request_timeout,
            max_task_duration: config.max_task_duration,
            metrics,
            versions: config.a2a_versions,
        }))
    }

    /// The A2A versions served: what every binding passes to [`crate::checks::negotiate`].
    pub fn versions(&self) -> crate::checks::VersionSet {
        self.0.versions
    }

    /// The hosted agent (a snapshot: a reload swaps in another one).
    pub fn agent(&self) -> Agent {
        // A poisoned lock still holds a whole Agent: a swap is one assignment.
        match self.0.agent.read() {
            Ok(a) => a.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// Serves `agent` from now on; requests already prepared keep the one they started with.
    pub(crate) fn replace_agent(&self, agent: Agent) {
        match self.0.agent.write() {
            Ok(mut a) => *a = agent,
            Err(p) => *p.into_inner() = agent,
        }
    }

    /// The task store in use.
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.0.store
    }

    /// A task the caller may see; another caller's task is "not found", exactly like a task
    /// that does not exist.
    async fn visible(
        &self,
        id: &str,
        ctx: &RequestContext,
    ) -> Result<Arc<TaskHandle>, ServiceError> {
        self.start_maintenance();
        let not_found =
            || ServiceError::new(A2aError::TaskNotFound, format!("task {id} not found"));
        let e = TaskHandle::load(&self.0.store, &self.0.metrics, id)
            .await
            .map_err(store_error)?
            .ok_or_else(not_found)?;
        let caller = ctx.caller.as_ref().map(|c| &*c.label);
        if e.owner.is_some() && e.owner.as_deref() != caller {
            return Err(not_found());
        }
        Ok(e)
    }

    /// `SendMessage`: waits for a terminal state (up to the request timeout) unless
    /// `returnImmediately` is set.
    pub async fn send_message(
        &self,
        req: SendMessageRequest,
        ctx: &RequestContext,
    ) -> Result<SendMessageResponse, ServiceError> {
        // Boxed here, once, as `send_streaming_message` is: unboxed, this future (about 6 KiB:
        // the turn, the skill's steps, the waits) sat inside every binding's handler future,
        // which the HTTP stack copied whole several times while routing each request.
        Box::pin(self.send_message_unboxed(req, ctx)).await
    }

    async fn send_message_unboxed(
        &self,
        req: SendMessageRequest,
        ctx: &RequestContext,
    ) -> Result<SendMessageResponse, ServiceError> {
        let (cfg, turn) = self.begin_turn(req, ctx, true).await?;
        let (entry, work, attached) = match turn {
            Turn::Answered(answer) => return Ok(*answer),
            Turn::Started {
                entry,
                work,
                attached,
            } => (entry, work, attached),
        };
        let job = match work {
            Work::Steps(steps) => {
                let answer = self.play_and_answer(entry, steps, &cfg).await;
                return attached.map(|()| answer);
            }
            Work::Job(job) => job,
        };
        self.spawn(entry.clone(), job, ctx).await;
        attached?;
        if cfg.return_immediately {
            entry.store_now().await.map_err(store_error)?;
        } else {
            // A deferred task (see `prepare`) still running after DEFER_GRACE is stored then,
            // so one that runs long can be found (listed, followed, canceled) while it runs;
            // one whose store refused it is answered with that refusal.
            let timeout = self.0.request_timeout;
            let grace = DEFER_GRACE.min(timeout);
            entry.wait_done(grace).await;
            entry.store_now().await.map_err(store_error)?;
            entry.wait_done(timeout.saturating_sub(grace)).await;
        }
        let task = entry.snapshot().await;
        if let Some(code) = refusal_code(&task) {
            tracing::Span::current().record("code", tracing::field::display(code));
        }
        Ok(SendMessageResponse::Task(trim_history(
            task,
            cfg.history_length,
        )))
    }
}

/// The draft error code a refused or failed task carries in its status message (the error
/// object of [`error_part`]), for the logs.
pub(crate) fn refusal_code(task: &Task) -> Option<&str> {
    if !matches!(task.status.state, TaskState::Rejected | TaskState::Failed) {
        return None;
    }
    let m = task.status.message.as_ref()?;
    skillgate_a2a::single_data(&m.parts)
        .ok()?
        .get("code")?
        .as_str()
}

/// A store failure as the caller sees it: a refusal (caller limit, full store) is an A2A
/// error with the reason, never a 5xx; a broken database is an internal error.
pub(crate) fn store_error(e: StoreError) -> ServiceError {
    match e {
        StoreError::CallerLimit(_) | StoreError::Full { .. } => {
            ServiceError::new(A2aError::UnsupportedOperation, e.to_string())
        }
        StoreError::NotFound(id) => {
            ServiceError::new(A2aError::TaskNotFound, format!("task {id} not found"))
        }
        other => ServiceError::new(A2aError::InternalError, other.to_string()),
    }
}

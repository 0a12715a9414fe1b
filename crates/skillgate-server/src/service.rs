//! The A2A service: every method of the protocol over typed requests, knowing nothing about HTTP.
//! The JSON-RPC and HTTP+JSON bindings are thin adapters over [`A2aService`].

use crate::agent::{Agent, HostedSkill, PlainContext, PlainReply};
use crate::config::{ApprovalPolicy, ApprovalRequest, ServerConfig};
use crate::gate::{describe_args_invalid, RESULT_ARTIFACT_ID};
use crate::skill::SkillContext;
use crate::store::{TaskEntry, TaskStore, TurnRefused};
use serde_json::Value;
use skillgate_a2a::{
    A2aError, Artifact, CancelTaskRequest, GetTaskRequest, ListTasksRequest, ListTasksResponse,
    Message, Part, Role, SendMessageRequest, SendMessageResponse, StreamResponse,
    SubscribeToTaskRequest, Task, TaskState, TaskStatus,
};
use skillgate_core::wire::{self, names, ErrorObject};
use skillgate_core::{ErrorCode, TerminalState};
use std::collections::BTreeSet;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};

/// An authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// Identity label (never the secret).
    pub label: Arc<str>,
    /// Skills this caller may use; `None` means all.
    pub skills: Option<Arc<BTreeSet<String>>>,
}

impl Caller {
    /// Whether this caller may use the skill.
    pub fn allows(&self, skill_id: &str) -> bool {
        self.skills.as_ref().is_none_or(|s| s.contains(skill_id))
    }
}

/// Per-request facts the bindings pass in.
#[derive(Clone, Debug, Default)]
pub struct RequestContext {
    /// The authenticated caller, when authentication is on.
    pub caller: Option<Caller>,
    /// Activated extension URIs (supported ones the client asked for).
    pub extensions: Vec<String>,
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
    agent: Agent,
    store: TaskStore,
    approval: ApprovalPolicy,
    request_timeout: Duration,
    max_task_duration: Duration,
}

/// The A2A service over one agent.
#[derive(Clone)]
pub struct A2aService(Arc<Inner>);

enum Job {
    Describe(Value),
    Domain(String, Value),
    Unknown(String),
}

enum Prepared {
    Plain {
        message: Message,
        context_id: String,
    },
    Task {
        entry: Arc<TaskEntry>,
        job: Job,
    },
    Continue {
        entry: Arc<TaskEntry>,
        message: Message,
    },
}

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn agent_message(task: &Task, parts: Vec<Part>) -> Message {
    Message {
        message_id: new_id(),
        context_id: task.context_id.clone(),
        task_id: task.id.clone(),
        role: Role::Agent,
        parts,
        ..Default::default()
    }
}

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
    /// A service over an agent with the given configuration.
    pub fn new(agent: Agent, config: &ServerConfig) -> Self {
        Self(Arc::new(Inner {
            agent,
            store: TaskStore::new(config.task_store),
            approval: config.approval.clone(),
            request_timeout: config.request_timeout,
            max_task_duration: config.max_task_duration,
        }))
    }

    /// The hosted agent.
    pub fn agent(&self) -> &Agent {
        &self.0.agent
    }

    fn visible(&self, id: &str, ctx: &RequestContext) -> Result<Arc<TaskEntry>, ServiceError> {
        let not_found =
            || ServiceError::new(A2aError::TaskNotFound, format!("task {id} not found"));
        let e = self.0.store.get(id).ok_or_else(not_found)?;
        let caller = ctx.caller.as_ref().map(|c| &c.label);
        if e.owner.is_some() && e.owner.as_ref() != caller {
            return Err(not_found());
        }
        Ok(e)
    }

    fn prepare(
        &self,
        req: SendMessageRequest,
        ctx: &RequestContext,
    ) -> Result<Prepared, ServiceError> {
        let mut m = req.message;
        let invalid = |s: &str| Err(ServiceError::new(A2aError::InvalidParams, s));
        if m.message_id.is_empty() {
            return invalid("message.messageId is required");
        }
        if m.parts.is_empty() {
            return invalid("message.parts must contain at least one part");
        }
        if m.role != Role::User {
            return invalid("message.role must be ROLE_USER");
        }
        if !m.task_id.is_empty() {
            let e = self.visible(&m.task_id, ctx)?;
            let task_id = m.task_id.clone();
            return match e.take_turn(m) {
                Ok(message) => Ok(Prepared::Continue { entry: e, message }),
                Err(TurnRefused::NotWaiting(state)) => Err(ServiceError::new(
                    A2aError::UnsupportedOperation,
                    format!(
                        "task {task_id} is in state {state}; skills take a single request message, so send a new message without taskId"
                    ),
                )),
                Err(TurnRefused::Taken) => Err(ServiceError::new(
                    A2aError::UnsupportedOperation,
                    format!(
                        "task {task_id} is already being continued by another message; wait for its next state"
                    ),
                )),
            };
        }
        let context_id = if m.context_id.is_empty() {
            new_id()
        } else {
            m.context_id.clone()
        };
        let request = match m.parts.as_slice() {
            [p] => match p.as_data() {
                Some(v @ Value::Object(o)) => match o.get(names::SKILL) {
                    Some(Value::String(s)) => Some((s.clone(), v.clone())),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let Some((skill, data)) = request else {
            if self.0.agent.0.plain.is_some() {
                m.context_id = context_id.clone();
                return Ok(Prepared::Plain {
                    message: m,
                    context_id,
                });
            }
            let entry = self.new_task(&mut m, context_id, false, ctx)?;
            let text = "this agent serves schema-governed requests only: send exactly one Data Part \
                        {\"skill\": ..., \"skill_version\": ..., \"interface_digest\": ..., \"arguments\": {...}}, \
                        or {\"skill\": \"describe_skill\", \"arguments\": {\"skill_id\": ...}}";
            let snap = entry.snapshot();
            let _ = entry.set_status(
                TaskState::Rejected,
                Some(agent_message(&snap, vec![Part::text(text)])),
            );
            return Ok(Prepared::Task {
                entry,
                job: Job::Unknown(String::new()),
            });
        };
        let (job, cancelable) = if skill == wire::DESCRIBE_SKILL {
            let args = data.get(names::ARGUMENTS).cloned().unwrap_or(Value::Null);
            (Job::Describe(args), false)
        } else if let Some(h) = self.0.agent.0.skills.get(&skill) {
            (Job::Domain(skill.clone(), data), h.gate.cancelable())
        } else {
            (Job::Unknown(skill), false)
        };
        let entry = self.new_task(&mut m, context_id, cancelable, ctx)?;
        Ok(Prepared::Task { entry, job })
    }

    fn new_task(
        &self,
        m: &mut Message,
        context_id: String,
        cancelable: bool,
        ctx: &RequestContext,
    ) -> Result<Arc<TaskEntry>, ServiceError> {
        let id = new_id();
        m.task_id = id.clone();
        m.context_id = context_id.clone();
        let task = Task {
            id: id.clone(),
            context_id,
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: Some(crate::time::now_rfc3339()),
            },
            artifacts: Vec::new(),
            history: vec![m.clone()],
            metadata: None,
        };
        let owner = ctx.caller.as_ref().map(|c| c.label.clone());
        let entry = Arc::new(TaskEntry::new(task, cancelable, owner));
        self.0.store.insert(id, entry.clone()).map_err(|_| {
            ServiceError::new(
                A2aError::InternalError,
                "the task store is full of running tasks; retry later",
            )
        })?;
        Ok(entry)
    }

    fn spawn(&self, entry: Arc<TaskEntry>, job: Job, ctx: &RequestContext) {
        if entry.state().is_terminal() {
            return;
        }
        let svc = self.clone();
        let caller = ctx.caller.clone();
        tokio::spawn(async move { svc.run(entry, job, caller).await });
    }

    fn fail(entry: &TaskEntry, state: TaskState, e: ErrorObject) {
        let snap = entry.snapshot();
        let msg = agent_message(&snap, vec![error_part(&e)]);
        let _ = entry.set_status(state, Some(msg));
    }

    fn state_for_handler_error(code: ErrorCode) -> TaskState {
        match code.terminal_state() {
            TerminalState::Rejected => TaskState::Rejected,
            _ => TaskState::Failed,
        }
    }

    async fn run(&self, entry: Arc<TaskEntry>, job: Job, caller: Option<Caller>) {
        let agent = &self.0.agent.0;
        match job {
            Job::Unknown(skill) => Self::fail(
                &entry,
                TaskState::Failed,
                ErrorObject::new(
                    ErrorCode::InterfaceUnavailable,
                    format!("this agent does not serve a skill {skill:?}"),
                ),
            ),
            Job::Describe(args) => match args.get(names::SKILL_ID) {
                Some(Value::String(id)) => match agent.skills.get(id) {
                    Some(h) => {
                        if entry.add_artifact(h.describe_artifact.clone()).is_ok() {
                            let _ = entry.set_status(TaskState::Completed, None);
                        }
                    }
                    None => Self::fail(
                        &entry,
                        TaskState::Failed,
                        ErrorObject::new(
                            ErrorCode::InterfaceUnavailable,
                            format!("no Skill Interface Document for skill {id:?}: it is not served by this agent"),
                        ),
                    ),
                },
                _ => Self::fail(
                    &entry,
                    TaskState::Rejected,
                    describe_args_invalid("describe_skill arguments must be an object with a string skill_id"),
                ),
            },
            Job::Domain(skill, data) => {
                if let Some(h) = agent.skills.get(&skill) {
                    self.run_domain(&entry, h, &data, caller).await;
                }
            }
        }
    }

    async fn run_domain(
        &self,
        entry: &Arc<TaskEntry>,
        h: &HostedSkill,
        data: &Value,
        caller: Option<Caller>,
    ) {
        let gate = &h.gate;
        let args = match gate.check_request(data) {
            Ok(a) => a.clone(),
            Err(e) => return Self::fail(entry, TaskState::Rejected, e),
        };
        if let Some(c) = &caller {
            if !c.allows(gate.skill_id()) {
                return Self::fail(
                    entry,
                    TaskState::Rejected,
                    ErrorObject::new(
                        ErrorCode::AuthorizationFailed,
                        format!(
                            "the presented credentials are not authorized for skill {}",
                            gate.skill_id()
                        ),
                    ),
                );
            }
        }
        if gate.is_execute() {
            let req = ApprovalRequest {
                skill_id: gate.skill_id(),
                caller: caller.as_ref().map(|c| &*c.label),
            };
            if !self.0.approval.approves(&req) {
                return Self::fail(
                    entry,
                    TaskState::Rejected,
                    ErrorObject::new(
                        ErrorCode::AuthorizationFailed,
                        format!(
                            "skill {} has authority mode execute and the approval policy did not approve this request",
                            gate.skill_id()
                        ),
                    ),
                );
            }
        }
        if entry.set_status(TaskState::Working, None).is_err() {
            return;
        }
        let snap = entry.snapshot();
        let ctx = SkillContext {
            task_id: snap.id.as_str().into(),
            context_id: snap.context_id.as_str().into(),
            caller: caller.map(|c| c.label),
            cancel: entry.cancel.clone(),
            next_record: Arc::new(AtomicU64::new(0)),
        };
        let limit = gate.max_duration().map_or(self.0.max_task_duration, |d| {
            d.min(self.0.max_task_duration)
        });
        // The input validated as JSON Schema sees it (80.0 is an integer); hand the handler the
        // same view, so typed handlers accept what Python peers send.
        let mut args = args;
        skillgate_core::instance::normalize_integral_floats(&mut args);
        // A separate task so a panicking handler becomes a JoinError, not a dead runtime thread.
        let mut handle = tokio::spawn((h.handler)(args, ctx));
        let outcome = tokio::select! {
            r = tokio::time::timeout(limit, &mut handle) => r,
            _ = entry.cancel.cancelled() => {
                handle.abort();
                return;
            }
        };
        let result = match outcome {
            Err(_) => {
                handle.abort();
                return Self::fail(
                    entry,
                    TaskState::Failed,
                    ErrorObject::new(
                        ErrorCode::ResourceLimitExceeded,
                        format!(
                            "skill {} did not finish within {} ms",
                            gate.skill_id(),
                            limit.as_millis()
                        ),
                    ),
                );
            }
            Ok(Err(_join)) => {
                return Self::fail(
                    entry,
                    TaskState::Failed,
                    ErrorObject::new(
                        ErrorCode::ExecutionFailed,
                        format!("skill {} failed unexpectedly", gate.skill_id()),
                    ),
                );
            }
            Ok(Ok(r)) => r,
        };
        let out = match result {
            Ok(o) => o,
            Err(e) => {
                return Self::fail(
                    entry,
                    Self::state_for_handler_error(e.code),
                    ErrorObject::new(e.code, e.message),
                )
            }
        };
        if let Err(e) = gate.check_output(&out) {
            return Self::fail(entry, TaskState::Failed, e);
        }
        for r in out.records {
            let a = Artifact {
                artifact_id: r.artifact_id,
                name: r.kind,
                parts: vec![Part::data(r.data)],
                ..Default::default()
            };
            if entry.add_artifact(a).is_err() {
                return;
            }
        }
        let primary = Artifact {
            artifact_id: RESULT_ARTIFACT_ID.to_string(),
            name: gate.skill_id().to_string(),
            parts: vec![Part::data(out.output)],
            ..Default::default()
        };
        if entry.add_artifact(primary).is_ok() {
            let _ = entry.set_status(TaskState::Completed, None);
        }
    }

    async fn plain_reply(
        &self,
        message: Message,
        context_id: String,
        ctx: &RequestContext,
    ) -> PlainReply {
        let Some(handler) = self.0.agent.0.plain.clone() else {
            return PlainReply::Rejected("no plain handler".into());
        };
        let pctx = PlainContext {
            context_id,
            caller: ctx.caller.as_ref().map(|c| c.label.to_string()),
        };
        match tokio::time::timeout(self.0.request_timeout, tokio::spawn(handler(message, pctx)))
            .await
        {
            Ok(Ok(r)) => r,
            Ok(Err(_)) => PlainReply::Rejected("the message handler failed".into()),
            Err(_) => PlainReply::Rejected("the message handler did not answer in time".into()),
        }
    }

    fn plain_to_response(
        &self,
        reply: PlainReply,
        mut message: Message,
        context_id: String,
        ctx: &RequestContext,
    ) -> Result<SendMessageResponse, ServiceError> {
        match reply {
            PlainReply::Message(parts) => Ok(SendMessageResponse::Message(Message {
                message_id: new_id(),
                context_id,
                role: Role::Agent,
                parts: if parts.is_empty() {
                    vec![Part::text("")]
                } else {
                    parts
                },
                ..Default::default()
            })),
            PlainReply::Task(_) => Err(ServiceError::new(
                A2aError::InternalError,
                "plain task replies are handled before this point",
            )),
            PlainReply::Rejected(text) => {
                let entry = self.new_task(&mut message, context_id, false, ctx)?;
                let snap = entry.snapshot();
                let _ = entry.set_status(
                    TaskState::Rejected,
                    Some(agent_message(&snap, vec![Part::text(text)])),
                );
                Ok(SendMessageResponse::Task(entry.snapshot()))
            }
        }
    }

    /// A task for a plain handler's `PlainReply::Task`; follow-up messages may continue it.
    fn new_plain_task(
        &self,
        mut message: Message,
        context_id: String,
        ctx: &RequestContext,
    ) -> Result<Arc<TaskEntry>, ServiceError> {
        let entry = self.new_task(&mut message, context_id, true, ctx)?;
        entry
            .plain
            .store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(entry)
    }

    /// Plays a plain task's steps and answers a blocking request once it settles (bounded by
    /// the request timeout), or at once with `returnImmediately`.
    async fn play_and_answer(
        &self,
        entry: Arc<TaskEntry>,
        steps: Vec<crate::agent::PlainStep>,
        cfg: &skillgate_a2a::SendMessageConfiguration,
    ) -> SendMessageResponse {
        let (_, mut events) = entry.subscribe();
        play(entry.clone(), steps);
        if !cfg.return_immediately {
            settle(&mut events, self.0.request_timeout).await;
        }
        SendMessageResponse::Task(trim_history(entry.snapshot(), cfg.history_length))
    }

    /// `SendMessage`: waits for a terminal state (up to the request timeout) unless
    /// `returnImmediately` is set.
    pub async fn send_message(
        &self,
        req: SendMessageRequest,
        ctx: &RequestContext,
    ) -> Result<SendMessageResponse, ServiceError> {
        let cfg = req.configuration.clone().unwrap_or_default();
        check_history_length(cfg.history_length)?;
        match self.prepare(req, ctx)? {
            Prepared::Plain {
                message,
                context_id,
            } => {
                let reply = self
                    .plain_reply(message.clone(), context_id.clone(), ctx)
                    .await;
                if let PlainReply::Task(steps) = reply {
                    let entry = self.new_plain_task(message, context_id, ctx)?;
                    return Ok(self.play_and_answer(entry, steps, &cfg).await);
                }
                self.plain_to_response(reply, message, context_id, ctx)
            }
            Prepared::Continue { entry, message } => {
                let context_id = entry.snapshot().context_id;
                let reply = self.plain_reply(message, context_id, ctx).await;
                Ok(self
                    .play_and_answer(entry, continuation_steps(reply), &cfg)
                    .await)
            }
            Prepared::Task { entry, job } => {
                self.spawn(entry.clone(), job, ctx);
                if !cfg.return_immediately {
                    entry.wait_done(self.0.request_timeout).await;
                }
                Ok(SendMessageResponse::Task(trim_history(
                    entry.snapshot(),
                    cfg.history_length,
                )))
            }
        }
    }

    /// `SendStreamingMessage`: the Task first, then status and artifact updates until terminal.
    pub async fn send_streaming_message(
        &self,
        req: SendMessageRequest,
        ctx: &RequestContext,
    ) -> Result<EventStream, ServiceError> {
        let cfg = req.configuration.clone().unwrap_or_default();
        check_history_length(cfg.history_length)?;
        match self.prepare(req, ctx)? {
            Prepared::Plain {
                message,
                context_id,
            } => {
                let reply = self
                    .plain_reply(message.clone(), context_id.clone(), ctx)
                    .await;
                if let PlainReply::Task(steps) = reply {
                    let entry = self.new_plain_task(message, context_id, ctx)?;
                    let (first, events) = entry.subscribe();
                    let rx = forward(
                        entry.clone(),
                        trim_history(first, cfg.history_length),
                        events,
                    );
                    play(entry, steps);
                    return Ok(rx);
                }
                let (tx, rx) = mpsc::channel(1);
                let ev = match self.plain_to_response(reply, message, context_id, ctx)? {
                    SendMessageResponse::Message(m) => StreamResponse::Message(m),
                    SendMessageResponse::Task(t) => StreamResponse::Task(t),
                };
                let _ = tx.try_send(ev);
                Ok(rx)
            }
            Prepared::Continue { entry, message } => {
                let context_id = entry.snapshot().context_id;
                let reply = self.plain_reply(message, context_id, ctx).await;
                let steps = continuation_steps(reply);
                let (first, events) = entry.subscribe();
                let rx = forward(
                    entry.clone(),
                    trim_history(first, cfg.history_length),
                    events,
                );
                play(entry, steps);
                Ok(rx)
            }
            Prepared::Task { entry, job } => {
                let (first, events) = entry.subscribe();
                let rx = forward(
                    entry.clone(),
                    trim_history(first, cfg.history_length),
                    events,
                );
                self.spawn(entry, job, ctx);
                Ok(rx)
            }
        }
    }

    /// `GetTask`.
    pub fn get_task(
        &self,
        req: &GetTaskRequest,
        ctx: &RequestContext,
    ) -> Result<Task, ServiceError> {
        check_history_length(req.history_length)?;
        Ok(trim_history(
            self.visible(&req.id, ctx)?.snapshot(),
            req.history_length,
        ))
    }

    /// `ListTasks`: newest status first, pages of 1..=100 (default 50).
    pub fn list_tasks(
        &self,
        req: &ListTasksRequest,
        ctx: &RequestContext,
    ) -> Result<ListTasksResponse, ServiceError> {
        check_history_length(req.history_length)?;
        let page_size = req.page_size.unwrap_or(50);
        if !(1..=100).contains(&page_size) {
            return Err(ServiceError::new(
                A2aError::InvalidParams,
                "pageSize must be between 1 and 100",
            ));
        }
        let offset: usize = if req.page_token.is_empty() {
            0
        } else {
            req.page_token
                .parse()
                .map_err(|_| ServiceError::new(A2aError::InvalidParams, "invalid pageToken"))?
        };
        let after = match &req.status_timestamp_after {
            None => None,
            Some(t) => Some(crate::time::parse_rfc3339_millis(t).ok_or_else(|| {
                ServiceError::new(
                    A2aError::InvalidParams,
                    "statusTimestampAfter must be an RFC 3339 date-time",
                )
            })?),
        };
        let caller = ctx.caller.as_ref().map(|c| &c.label);
        let mut tasks: Vec<Task> = self
            .0
            .store
            .all()
            .into_iter()
            .filter(|e| e.owner.is_none() || e.owner.as_ref() == caller)
            .map(|e| e.snapshot())
            .filter(|t| req.context_id.is_empty() || t.context_id == req.context_id)
            .filter(|t| req.status == TaskState::Unspecified || t.status.state == req.status)
            .filter(|t| match (after, &t.status.timestamp) {
                (Some(after), Some(ts)) => {
                    crate::time::parse_rfc3339_millis(ts).is_some_and(|ts| ts > after)
                }
                _ => true,
            })
            .collect();
        tasks.sort_by(|a, b| {
            b.status
                .timestamp
                .cmp(&a.status.timestamp)
                .then_with(|| a.id.cmp(&b.id))
        });
        let total = tasks.len();
        let page_size_u = usize::try_from(page_size).unwrap_or(50);
        let include_artifacts = req.include_artifacts.unwrap_or(false);
        let page: Vec<Task> = tasks
            .into_iter()
            .skip(offset)
            .take(page_size_u)
            .map(|mut t| {
                if !include_artifacts {
                    t.artifacts.clear();
                }
                trim_history(t, req.history_length)
            })
            .collect();
        let next = offset.saturating_add(page.len());
        Ok(ListTasksResponse {
            tasks: page,
            next_page_token: if next < total {
                next.to_string()
            } else {
                String::new()
            },
            page_size,
            total_size: i32::try_from(total).unwrap_or(i32::MAX),
        })
    }

    /// `CancelTask`: only for skills declaring `cancelable`, and only before a terminal state.
    pub fn cancel_task(
        &self,
        req: &CancelTaskRequest,
        ctx: &RequestContext,
    ) -> Result<Task, ServiceError> {
        let e = self.visible(&req.id, ctx)?;
        if !e.cancelable {
            return Err(ServiceError::new(
                A2aError::TaskNotCancelable,
                format!(
                    "task {} is not cancelable: its skill does not declare interaction.cancelable",
                    req.id
                ),
            ));
        }
        if let Err(state) = e.set_status(TaskState::Canceled, None) {
            return Err(ServiceError::new(
                A2aError::TaskNotCancelable,
                format!("task {} is already in terminal state {state}", req.id),
            ));
        }
        e.cancel.cancel();
        Ok(e.snapshot())
    }

    /// `SubscribeToTask`: the current Task first, then updates; terminal tasks are refused.
    pub fn subscribe_to_task(
        &self,
        req: &SubscribeToTaskRequest,
        ctx: &RequestContext,
    ) -> Result<EventStream, ServiceError> {
        let e = self.visible(&req.id, ctx)?;
        let (first, events) = e.subscribe();
        if first.status.state.is_terminal() {
            return Err(ServiceError::new(
                A2aError::UnsupportedOperation,
                format!(
                    "task {} is already in terminal state {}",
                    req.id, first.status.state
                ),
            ));
        }
        Ok(forward(e, first, events))
    }

    /// Number of tasks held (for tests and metrics).
    pub fn task_count(&self) -> usize {
        self.0.store.len()
    }
}

/// The steps a follow-up turn plays on an interrupted plain task, whatever the reply kind.
fn continuation_steps(reply: PlainReply) -> Vec<crate::agent::PlainStep> {
    use crate::agent::PlainStep;
    match reply {
        PlainReply::Task(steps) => steps,
        PlainReply::Message(parts) => vec![PlainStep::Status(TaskState::Completed, parts)],
        PlainReply::Rejected(t) => {
            vec![PlainStep::Status(TaskState::Rejected, vec![Part::text(t)])]
        }
    }
}

/// Waits (bounded) until a plain task reaches a state that ends a blocking request.
async fn settle(events: &mut broadcast::Receiver<StreamResponse>, limit: Duration) {
    let settled = async {
        while let Ok(ev) = events.recv().await {
            if ends_stream(&ev) {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(limit, settled).await;
}

/// Plays a plain Task's steps in the background (a canceled task stops taking steps).
fn play(entry: Arc<TaskEntry>, steps: Vec<crate::agent::PlainStep>) {
    use crate::agent::PlainStep;
    tokio::spawn(async move {
        let mut moved = false;
        for step in steps {
            let ok = match step {
                PlainStep::Status(state, parts) => {
                    let msg = (!parts.is_empty()).then(|| agent_message(&entry.snapshot(), parts));
                    moved = true;
                    entry.set_status(state, msg).is_ok()
                }
                PlainStep::Artifact {
                    artifact,
                    append,
                    last_chunk,
                } => entry
                    .add_artifact_chunk(artifact, append, last_chunk)
                    .is_ok(),
                PlainStep::Sleep(d) => {
                    tokio::time::sleep(d).await;
                    !entry.state().is_terminal()
                }
            };
            if !ok {
                return;
            }
        }
        // Steps that never changed the status leave the task waiting: open it to the next turn.
        // (A status change already did, and a later follow-up may hold the turn by now.)
        if !moved {
            entry.release_turn();
        }
    });
}

fn ends_stream(ev: &StreamResponse) -> bool {
    match ev {
        StreamResponse::StatusUpdate(s) => {
            s.status.state.is_terminal() || s.status.state.is_interrupted()
        }
        StreamResponse::Task(t) => t.status.state.is_terminal() || t.status.state.is_interrupted(),
        StreamResponse::Message(_) => true,
        StreamResponse::ArtifactUpdate(_) => false,
    }
}

fn forward(
    entry: Arc<TaskEntry>,
    first: Task,
    mut events: broadcast::Receiver<StreamResponse>,
) -> EventStream {
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        let first = StreamResponse::Task(first);
        // An interrupted task's stream stays open: the next turn moves it on.
        let end = matches!(&first, StreamResponse::Task(t) if t.status.state.is_terminal());
        if tx.send(first).await.is_err() || end {
            return;
        }
        loop {
            let ev = match events.recv().await {
                Ok(ev) => ev,
                // A slow reader missed events: resynchronise it with the whole task.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    StreamResponse::Task(entry.snapshot())
                }
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let end = ends_stream(&ev);
            if tx.send(ev).await.is_err() || end {
                return;
            }
        }
    });
    rx
}

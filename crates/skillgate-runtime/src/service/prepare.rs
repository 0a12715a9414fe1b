//! Turning a `SendMessage` into work: message checks, the follow-up turn of an interrupted
//! task, the plain-handler route, and a new task for a schema-governed request.

use super::run::{settle, Outcome};
use super::{
    agent_message, new_id, store_error, A2aService, Job, Prepared, RequestContext, ServiceError,
};
use crate::gate::Rejection;
use crate::task::{Refused, TaskHandle, TurnRefused};
use serde_json::Value;
use skillgate_a2a::{
    A2aError, Message, Part, Role, SendMessageRequest, Task, TaskState, TaskStatus,
};
use skillgate_core::wire::{self, names};
use skillgate_store::Flags;
use std::sync::Arc;

impl A2aService {
    /// Reads a `SendMessage` into a prepared turn. With `settle`, a skill request whose end is
    /// known at once (describe_skill, a refusal before any skill, the gate's refusal) is stored
    /// finished, in one write, and its job is [`Job::Settled`]; a domain skill the gate admits
    /// is stored WORKING ([`Job::Admitted`]): the caller asked for the finished task and nobody
    /// else can know the new task's id yet, so nobody misses a state in between. With `waits`
    /// too (the caller waits for the end), an admitted skill that acts on nothing (its
    /// authority mode is not `execute`) is not stored until its first write or its grace
    /// period ends ([`TaskHandle::deferred`], `send_message`): one that ends within it is
    /// created finished, in one write.
    pub(super) async fn prepare(
        &self,
        req: SendMessageRequest,
        ctx: &RequestContext,
        settle: bool,
        waits: bool,
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
            return self.continue_task(m, ctx).await;
        }
        let context_id = if m.context_id.is_empty() {
            new_id()
        } else {
            m.context_id.clone()
        };
        let request =
            skillgate_a2a::single_data(&m.parts)
                .ok()
                .and_then(|v| match v.get(names::SKILL) {
                    Some(Value::String(s)) => Some((s.clone(), v.clone())),
                    _ => None,
                });
        let agent = self.agent();
        let Some((skill, data)) = request else {
            if agent.0.plain.is_some() {
                m.context_id = context_id.clone();
                return Ok(Prepared::Plain {
                    message: m,
                    context_id,
                });
            }
            let entry = self
                .new_task(
                    &mut m,
                    context_id,
                    Flags::default(),
                    ctx,
                    TaskState::Submitted,
                )
                .await?;
            let text = "this agent serves schema-governed requests only: send exactly one Data Part \
                        {\"skill\": ..., \"skill_version\": ..., \"interface_digest\": ..., \"arguments\": {...}}, \
                        or {\"skill\": \"describe_skill\", \"arguments\": {\"skill_id\": ...}}";
            // A write that fails leaves the task as it was; the caller reads it back.
            let _ = entry
                .set_status(
                    TaskState::Rejected,
                    Some(agent_message(&entry, vec![Part::text(text)])),
                )
                .await;
            return Ok(Prepared::Task {
                entry,
                job: Job::Settled,
            });
        };
        tracing::Span::current().record("skill", tracing::field::display(skill.as_str()));
        let caller = ctx.caller.as_ref();
        let described = data
            .get(names::ARGUMENTS)
            .and_then(|a| a.get(names::SKILL_ID))
            .and_then(Value::as_str);
        let (job, cancelable) = if skill == wire::DESCRIBE_SKILL
            && described.is_some_and(|id| !agent.visible(id, caller))
        {
            // An extended-only skill is unknown to callers who may not see it.
            let id = described.unwrap_or_default();
            let unserved = crate::agent::unserved_interface(id);
            (Job::Refuse(Rejection::admission(unserved)), false)
        } else if skill == wire::DESCRIBE_SKILL {
            let args = data.get(names::ARGUMENTS).cloned().unwrap_or(Value::Null);
            (Job::Describe(agent, args), false)
        } else {
            // A skill the caller may not see is refused as one that is not served.
            let served = agent.governed(&skill).and_then(|h| {
                if agent.visible(&skill, caller) {
                    Ok(h)
                } else {
                    Err(Rejection::admission(crate::agent::unserved_skill(&skill)))
                }
            });
            match served {
                Ok(h) => (
                    Job::Domain(agent.clone(), skill.clone(), data),
                    h.gate.cancelable(),
                ),
                Err(refused) => (Job::Refuse(refused), false),
            }
        };
        let flags = Flags {
            cancelable,
            ..Flags::default()
        };
        let mut job = job;
        if settle {
            if let Job::Domain(agent, skill, data) = &job {
                if let Some(admitted) = self.admit_before_storing(agent, skill, data, ctx) {
                    job = admitted;
                }
            }
            if let Some(outcome) = Outcome::of(&job) {
                let task = self.new_task_value(&mut m, context_id.clone());
                if let Some(entry) = self.new_settled_task(task, outcome, flags, ctx).await? {
                    return Ok(Prepared::Task {
                        entry,
                        job: Job::Settled,
                    });
                }
                // Too large to settle at once: the usual way, whose budget rules it keeps.
            }
        }
        if let (true, Job::Admitted(agent, skill, _)) = (waits, &job) {
            let observes = agent
                .0
                .skills
                .get(skill)
                .is_some_and(|h| !h.gate.is_execute());
            if observes {
                if let Some(entry) = self.deferred_task(&mut m, &context_id, flags, ctx) {
                    return Ok(Prepared::Task { entry, job });
                }
            }
        }
        let state = match job {
            Job::Admitted(..) => TaskState::Working,
            _ => TaskState::Submitted,
        };
        let entry = self.new_task(&mut m, context_id, flags, ctx, state).await?;
        Ok(Prepared::Task { entry, job })
    }

    /// The gate's admission of a blocking request, before its task is stored: the admitted
    /// job (its task is then created WORKING, one write fewer than SUBMITTED then WORKING) or
    /// the refusal (then stored already ended, in one write). Nobody can see the task before
    /// the answer, so nobody misses the SUBMITTED state; the store still refuses the create
    /// (caller limit, byte budget) before the skill runs, and the running task is findable,
    /// cancelable and leased as before. `None` if the skill is gone (the usual path then
    /// answers).
    fn admit_before_storing(
        &self,
        agent: &crate::agent::Agent,
        skill: &str,
        data: &Value,
        ctx: &RequestContext,
    ) -> Option<Job> {
        let h = agent.0.skills.get(skill)?;
        Some(
            match h.gate.admit(data, ctx.caller.as_ref(), &self.0.approval) {
                Ok(a) => Job::Admitted(agent.clone(), skill.to_string(), a.arguments),
                Err(r) => Job::Refuse(r),
            },
        )
    }

    /// Stores a new task already ended as `outcome` says (one write instead of two), counting
    /// the gate's refusal like [`super::run`] would; `None` when the finished task would take
    /// more than half the per-task budget, which the two-write path handles by its own rules.
    async fn new_settled_task(
        &self,
        mut task: Task,
        outcome: Outcome,
        flags: Flags,
        ctx: &RequestContext,
    ) -> Result<Option<Arc<TaskHandle>>, ServiceError> {
        let counted = settle(&mut task, outcome);
        let id = task.id.clone();
        let owner = ctx.caller.as_ref().map(|c| c.label.to_string());
        let m = &self.0.metrics;
        let Some(handle) = TaskHandle::create_finished(&self.0.store, m, task, owner, flags)
            .await
            .map_err(store_error)?
        else {
            return Ok(None);
        };
        if let Some((phase, code)) = counted {
            m.gate(phase, code);
        }
        tracing::Span::current().record("task_id", tracing::field::display(id.as_str()));
        // The line `run` writes at a task's end, for a task that never ran: a failure at
        // `info`, anything else at `debug`.
        let (state, code) = (handle.state().await, counted.map(|(_, c)| c));
        if state == TaskState::Failed {
            tracing::info!(task_id = %id, state = %state, code, duration_ms = 0, "task ended");
        } else {
            tracing::debug!(task_id = %id, state = %state, code, duration_ms = 0, "task ended");
        }
        Ok(Some(handle))
    }

    /// A follow-up message (it names a task): takes the task's next turn, or says why not.
    async fn continue_task(
        &self,
        m: Message,
        ctx: &RequestContext,
    ) -> Result<Prepared, ServiceError> {
        let e = self.visible(&m.task_id, ctx).await?;
        let task_id = m.task_id.clone();
        match e.take_turn(m).await {
            Ok(message) => Ok(Prepared::Continue { entry: e, message }),
            Err(Refused::Turn(TurnRefused::NotWaiting(state)) | Refused::Terminal(state)) => Err(ServiceError::new(
                A2aError::UnsupportedOperation,
                format!(
                    "task {task_id} is in state {state}; skills take a single request message, so send a new message without taskId"
                ),
            )),
            Err(Refused::Turn(TurnRefused::Taken)) => Err(ServiceError::new(
                A2aError::UnsupportedOperation,
                format!(
                    "task {task_id} is already being continued by another message; wait for its next state"
                ),
            )),
            Err(Refused::OverBudget(size, budget)) => Err(ServiceError::new(
                A2aError::UnsupportedOperation,
                format!(
                    "task {task_id} cannot take this message: it would grow to {size} bytes, over the per-task budget of {budget}"
                ),
            )),
            Err(Refused::Store(e)) => Err(store_error(e)),
        }
    }

    /// Stores a new task in `state` (SUBMITTED, or WORKING for a task admitted before it was
    /// stored) whose history is the request message (the task handle keeps it only as a note
    /// when it would take more than half the per-task budget).
    pub(super) async fn new_task(
        &self,
        m: &mut Message,
        context_id: String,
        flags: Flags,
        ctx: &RequestContext,
        state: TaskState,
    ) -> Result<Arc<TaskHandle>, ServiceError> {
        let mut task = self.new_task_value(m, context_id);
        task.status.state = state;
        let id = task.id.clone();
        let owner = ctx.caller.as_ref().map(|c| c.label.to_string());
        let handle = TaskHandle::create(&self.0.store, &self.0.metrics, task, owner, flags)
            .await
            .map_err(store_error)?;
        tracing::Span::current().record("task_id", tracing::field::display(id.as_str()));
        Ok(handle)
    }

    /// A new WORKING task that is stored by its first write ([`TaskHandle::deferred`]); `None`
    /// when it is too large for that (the usual create then keeps what fits).
    fn deferred_task(
        &self,
        m: &mut Message,
        context_id: &str,
        flags: Flags,
        ctx: &RequestContext,
    ) -> Option<Arc<TaskHandle>> {
        let mut task = self.new_task_value(m, context_id.to_string());
        task.status.state = TaskState::Working;
        let owner = ctx.caller.as_ref().map(|c| c.label.to_string());
        let entry = TaskHandle::deferred(&self.0.store, &self.0.metrics, task, owner, flags)?;
        tracing::Span::current().record("task_id", tracing::field::display(entry.id.as_str()));
        Some(entry)
    }

    /// A new submitted task (not stored) whose history is the request message, which gets the
    /// task's id and context id.
    fn new_task_value(&self, m: &mut Message, context_id: String) -> Task {
        self.start_maintenance();
        let id = new_id();
        m.task_id = id.clone();
        m.context_id = context_id.clone();
        Task {
            id,
            context_id,
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: Some(skillgate_a2a::timestamp::now_rfc3339()),
            },
            artifacts: Vec::new(),
            history: vec![m.clone()],
            metadata: None,
        }
    }
}

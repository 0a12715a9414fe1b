//! Turning a `SendMessage` into work: message checks, the follow-up turn of an interrupted
//! task, the plain-handler route, and a new task for a schema-governed request.

use super::{agent_message, new_id, A2aService, Job, Prepared, RequestContext, ServiceError};
use crate::gate::Rejection;
use crate::store::{TaskEntry, TurnRefused};
use serde_json::Value;
use skillgate_a2a::{
    A2aError, Message, Part, Role, SendMessageRequest, Task, TaskState, TaskStatus,
};
use skillgate_core::wire::{self, names, ErrorObject};
use skillgate_core::ErrorCode;
use std::sync::Arc;

impl A2aService {
    pub(super) fn prepare(
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
                job: Job::Settled,
            });
        };
        let (job, cancelable) = if skill == wire::DESCRIBE_SKILL {
            let args = data.get(names::ARGUMENTS).cloned().unwrap_or(Value::Null);
            (Job::Describe(args), false)
        } else if let Some(h) = self.0.agent.0.skills.get(&skill) {
            (Job::Domain(skill.clone(), data), h.gate.cancelable())
        } else {
            let unserved = ErrorObject::new(
                ErrorCode::InterfaceUnavailable,
                format!("this agent does not serve a skill {skill:?}"),
            );
            (Job::Refuse(Rejection::admission(unserved)), false)
        };
        let entry = self.new_task(&mut m, context_id, cancelable, ctx)?;
        Ok(Prepared::Task { entry, job })
    }

    pub(super) fn new_task(
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
}

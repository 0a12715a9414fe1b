//! Running a prepared task: `describe_skill` answered from the precomputed artifact, a domain
//! skill admitted by its gate, run under its time limit and cancel signal, and its output
//! checked before any artifact is published. A finished task's artifacts and its COMPLETED
//! status are written together, in one versioned write.

use super::{agent_message, error_part, new_id, refusal_code, A2aService, Job, RequestContext};
use crate::agent::{Agent, HostedSkill};
use crate::auth::Caller;
use crate::gate::{Phase, Rejection, RESULT_ARTIFACT_ID};
use crate::metrics::{GatePhase, Metrics};
use crate::skill::SkillContext;
use crate::task::{Refused, TaskHandle};
use serde_json::Value;
use skillgate_a2a::{Artifact, Message, Part, Role, Task, TaskState, TaskStatus};
use skillgate_core::wire::ErrorObject;
use skillgate_core::ErrorCode;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;
use tracing::Instrument;

/// Ends a task with a refusal: its error object as the status message, in the state the
/// code and the phase give. Every draft error code a task gets passes here, so here it is
/// counted.
async fn refuse(m: &Metrics, entry: &TaskHandle, rejection: Rejection) {
    let phase = match rejection.phase {
        Phase::Admission => GatePhase::Admission,
        Phase::Processing => GatePhase::Processing,
    };
    m.gate(phase, rejection.error.code.as_str());
    let msg = agent_message(entry, vec![error_part(&rejection.error)]);
    let state = rejection.task_state();
    // A write that fails (the task ended meanwhile, say) leaves it as it was.
    let _ = entry.set_status(state, Some(msg)).await;
}

/// Completes a task with its result artifacts, in one write (artifact updates, then the
/// COMPLETED status). A result that would take the task over its byte budget fails the task
/// with `resource_limit_exceeded` instead, and none of its artifacts is kept.
async fn complete(m: &Metrics, entry: &TaskHandle, artifacts: Vec<Artifact>) {
    match entry.finish(artifacts, TaskState::Completed, None).await {
        Ok(()) => {}
        Err(Refused::OverBudget(size, budget)) => {
            let message = format!(
                "the result would make the task {size} bytes, over the per-task budget of {budget} bytes"
            );
            let error = ErrorObject::new(ErrorCode::ResourceLimitExceeded, message);
            refuse(m, entry, Rejection::processing(error)).await;
        }
        // Terminal already (a cancel won the race) or a store failure: nothing was written.
        Err(_) => {}
    }
}

impl A2aService {
    /// Runs the job in the background unless its task was already answered.
    pub(super) async fn spawn(&self, entry: Arc<TaskHandle>, job: Job, ctx: &RequestContext) {
        if matches!(job, Job::Settled) || entry.state().await.is_terminal() {
            return;
        }
        let svc = self.clone();
        let caller = ctx.caller.clone();
        // A child of the request's span: the task's logs name the request that started it,
        // even when it runs on after the answer (returnImmediately).
        let span = tracing::info_span!("task", task_id = %entry.id, skill = tracing::field::Empty);
        // Boxed where it is made: the run's future (the skill's steps, the writes; about 9 KB)
        // was otherwise copied whole at each of the five moves into the spawned task.
        let run = Box::pin(async move { svc.run(entry, job, caller).await });
        tokio::spawn(run.instrument(span));
    }

    /// Runs a job with the task registered as running here: its lease is renewed and a
    /// cancel from any replica fires its token. Afterwards the task is re-read so a waiter
    /// sees a state written elsewhere (a cancel).
    async fn run(&self, entry: Arc<TaskHandle>, job: Job, caller: Option<Caller>) {
        let started = Instant::now();
        let m = &self.0.metrics;
        let hub = entry.store().hub().clone();
        hub.run(&entry.id, entry.cancel.clone());
        match job {
            Job::Settled => {}
            Job::Refuse(r) => refuse(m, &entry, r).await,
            Job::Describe(agent, args) => describe(m, &agent, &entry, &args).await,
            Job::Domain(agent, skill, data) => {
                if let Some(h) = agent.0.skills.get(&skill) {
                    self.run_domain(&entry, h, &data, caller).await;
                }
            }
            Job::Admitted(agent, skill, arguments) => {
                if let Some(h) = agent.0.skills.get(&skill) {
                    tracing::Span::current()
                        .record("skill", tracing::field::display(h.gate.skill_id()));
                    // Counted here, as for a job admitted while it runs: a task the store
                    // refused to create never reaches the skill.
                    m.gate(GatePhase::Admission, "ok");
                    self.execute(&entry, h, arguments, caller).await;
                }
            }
        }
        hub.finish(&entry.id);
        if !entry.state().await.is_terminal() {
            let _ = entry.refresh().await;
        }
        log_end(&entry, started).await;
    }
}

/// The task's end, in its span: a failure (the agent's fault, or its skill's) at `info`,
/// anything else at `debug`. The task is copied for its error code only when the event is
/// written.
async fn log_end(entry: &TaskHandle, started: Instant) {
    let state = entry.state().await;
    let failed = state == TaskState::Failed;
    let wanted = if failed {
        tracing::enabled!(tracing::Level::INFO)
    } else {
        tracing::enabled!(tracing::Level::DEBUG)
    };
    if !wanted {
        return;
    }
    let task = entry.snapshot().await;
    let code = refusal_code(&task);
    let ms = crate::metrics::millis(started.elapsed());
    if failed {
        tracing::info!(state = %state, code, duration_ms = ms, "task ended");
    } else {
        tracing::debug!(state = %state, code, duration_ms = ms, "task ended");
    }
}

/// How a task that needs no handler ends: describe_skill's answer, or a refusal decided
/// before any skill ran. Known as soon as the request is read, so a blocking request can store
/// its task finished, in one write ([`settle`]).
pub(super) enum Outcome {
    /// COMPLETED with these artifacts.
    Complete(Vec<Artifact>),
    /// Ended by this refusal.
    Refuse(Rejection),
}

impl Outcome {
    /// The outcome of a job that needs no handler; `None` for a domain skill (or nothing).
    pub(super) fn of(job: &Job) -> Option<Self> {
        match job {
            Job::Describe(agent, args) => Some(describe_outcome(agent, args)),
            Job::Refuse(r) => Some(Outcome::Refuse(r.clone())),
            Job::Domain(..) | Job::Admitted(..) | Job::Settled => None,
        }
    }
}

/// Ends `task` (not yet stored) as `outcome` says, exactly as [`complete`] and [`refuse`]
/// would through its handle: artifacts applied as replacements, then the terminal status with
/// the refusal's error object. Returns the gate phase and code to count once it is stored.
pub(super) fn settle(task: &mut Task, outcome: Outcome) -> Option<(GatePhase, &'static str)> {
    let (artifacts, state, message, counted) = match outcome {
        Outcome::Complete(artifacts) => (artifacts, TaskState::Completed, None, None),
        Outcome::Refuse(r) => {
            let phase = match r.phase {
                Phase::Admission => GatePhase::Admission,
                Phase::Processing => GatePhase::Processing,
            };
            let message = Message {
                message_id: new_id(),
                context_id: task.context_id.clone(),
                task_id: task.id.clone(),
                role: Role::Agent,
                parts: vec![error_part(&r.error)],
                ..Default::default()
            };
            let counted = Some((phase, r.error.code.as_str()));
            (Vec::new(), r.task_state(), Some(message), counted)
        }
    };
    for artifact in artifacts {
        task.apply_artifact_update(artifact, false);
    }
    task.status = TaskStatus {
        state,
        message,
        timestamp: Some(skillgate_a2a::timestamp::now_rfc3339()),
    };
    counted
}

/// `describe_skill`: the precomputed document artifact of a skill `agent` serves.
async fn describe(m: &Metrics, agent: &Agent, entry: &TaskHandle, args: &Value) {
    match describe_outcome(agent, args) {
        Outcome::Complete(artifacts) => complete(m, entry, artifacts).await,
        Outcome::Refuse(r) => refuse(m, entry, r).await,
    }
}

/// What `describe_skill` with `args` answers on `agent`.
fn describe_outcome(agent: &Agent, args: &Value) -> Outcome {
    match agent.describe_skill(args) {
        Ok(artifact) => Outcome::Complete(vec![artifact.clone()]),
        Err(r) => Outcome::Refuse(r),
    }
}

impl A2aService {
    /// A domain skill: the gate's admission, the handler under its limits, the output check.
    async fn run_domain(
        &self,
        entry: &Arc<TaskHandle>,
        h: &HostedSkill,
        data: &Value,
        caller: Option<Caller>,
    ) {
        let gate = &h.gate;
        let m = &self.0.metrics;
        tracing::Span::current().record("skill", tracing::field::display(gate.skill_id()));
        let admission = match gate.admit(data, caller.as_ref(), &self.0.approval) {
            Ok(a) => a,
            Err(r) => return refuse(m, entry, r).await,
        };
        m.gate(GatePhase::Admission, "ok");
        if entry.set_status(TaskState::Working, None).await.is_err() {
            return;
        }
        self.execute(entry, h, admission.arguments, caller).await;
    }

    /// An admitted domain skill on its WORKING task: the handler under its limits and cancel
    /// signal, then the output check and the result, or the refusal that ends it.
    async fn execute(
        &self,
        entry: &Arc<TaskHandle>,
        h: &HostedSkill,
        arguments: Value,
        caller: Option<Caller>,
    ) {
        let gate = &h.gate;
        let m = &self.0.metrics;
        let ctx = SkillContext {
            task_id: entry.id.as_str().into(),
            context_id: entry.context_id.as_str().into(),
            caller: caller.map(|c| c.label),
            cancel: entry.cancel.clone(),
            next_record: Arc::new(AtomicU64::new(0)),
            progress: Some(crate::skill::Progress(Arc::clone(entry))),
        };
        let limit = gate.max_duration().map_or(self.0.max_task_duration, |d| {
            d.min(self.0.max_task_duration)
        });
        // A separate task so a panicking handler becomes a JoinError, not a dead runtime thread.
        let started = Instant::now();
        let mut handle = tokio::spawn((h.handler)(arguments, ctx).in_current_span());
        let outcome = tokio::select! {
            r = tokio::time::timeout(limit, &mut handle) => r,
            _ = entry.cancel.cancelled() => {
                handle.abort();
                m.skill_duration(gate.skill_id(), started.elapsed());
                return;
            }
        };
        m.skill_duration(gate.skill_id(), started.elapsed());
        let result = match outcome {
            Err(_) => {
                handle.abort();
                return refuse(
                    m,
                    entry,
                    Rejection::processing(ErrorObject::new(
                        ErrorCode::ResourceLimitExceeded,
                        format!(
                            "skill {} did not finish within {} ms",
                            gate.skill_id(),
                            limit.as_millis()
                        ),
                    )),
                )
                .await;
            }
            Ok(Err(_join)) => {
                return refuse(
                    m,
                    entry,
                    Rejection::processing(ErrorObject::new(
                        ErrorCode::ExecutionFailed,
                        format!("skill {} failed unexpectedly", gate.skill_id()),
                    )),
                )
                .await;
            }
            Ok(Ok(r)) => r,
        };
        let out = match result {
            Ok(o) => o,
            Err(e) => {
                return refuse(
                    m,
                    entry,
                    Rejection::processing(ErrorObject::new(e.code, e.message)),
                )
                .await
            }
        };
        if let Err(r) = gate.check_output(&out) {
            return refuse(m, entry, r).await;
        }
        m.gate(GatePhase::Processing, "ok");
        // The records, then the primary artifact, then COMPLETED: one write.
        let mut artifacts: Vec<Artifact> = out
            .records
            .into_iter()
            .map(|r| Artifact {
                artifact_id: r.artifact_id,
                name: r.kind,
                parts: vec![Part::data(r.data)],
                ..Default::default()
            })
            .collect();
        artifacts.push(Artifact {
            artifact_id: RESULT_ARTIFACT_ID.to_string(),
            name: gate.skill_id().to_string(),
            parts: vec![Part::data(out.output)],
            ..Default::default()
        });
        complete(m, entry, artifacts).await;
    }
}

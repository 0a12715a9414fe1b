//! Tasks of the plain (not schema-governed) handler: its reply, the steps a task reply plays,
//! and the blocking answer once the task settles.

use super::stream::ends_stream;
use super::{agent_message, new_id, trim_history, A2aService, RequestContext, ServiceError};
use crate::agent::{PlainContext, PlainReply, PlainStep};
use crate::store::TaskEntry;
use skillgate_a2a::{
    A2aError, Message, Part, Role, SendMessageConfiguration, SendMessageResponse, StreamResponse,
    TaskState,
};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

impl A2aService {
    pub(super) async fn plain_reply(
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

    pub(super) fn plain_to_response(
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
    pub(super) fn new_plain_task(
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
    pub(super) async fn play_and_answer(
        &self,
        entry: Arc<TaskEntry>,
        steps: Vec<PlainStep>,
        cfg: &SendMessageConfiguration,
    ) -> SendMessageResponse {
        let (_, mut events) = entry.subscribe();
        play(entry.clone(), steps);
        if !cfg.return_immediately {
            settle(&mut events, self.0.request_timeout).await;
        }
        SendMessageResponse::Task(trim_history(entry.snapshot(), cfg.history_length))
    }
}

/// The steps a follow-up turn plays on an interrupted plain task, whatever the reply kind.
pub(super) fn continuation_steps(reply: PlainReply) -> Vec<PlainStep> {
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
pub(super) fn play(entry: Arc<TaskEntry>, steps: Vec<PlainStep>) {
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

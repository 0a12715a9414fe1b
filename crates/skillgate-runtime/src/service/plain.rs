//! Tasks of the plain (not schema-governed) handler: its reply, the steps a task reply plays,
//! and the blocking answer once the task settles.

use super::stream::ends_stream;
use super::{agent_message, new_id, trim_history, A2aService, RequestContext, ServiceError};
use crate::agent::{PlainContext, PlainReply, PlainStep};
use crate::task::TaskHandle;
use skillgate_a2a::{
    A2aError, Message, Part, Role, SendMessageConfiguration, SendMessageResponse, TaskState,
};
use skillgate_store::{Flags, HubEvent, Subscription};
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
        let Some(handler) = self.agent().0.plain.clone() else {
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

    pub(super) async fn plain_to_response(
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
                let entry = self
                    .new_task(
                        &mut message,
                        context_id,
                        Flags::default(),
                        ctx,
                        TaskState::Submitted,
                    )
                    .await?;
                // A write that fails leaves the task as it was; the caller reads it back.
                let _ = entry
                    .set_status(
                        TaskState::Rejected,
                        Some(agent_message(&entry, vec![Part::text(text)])),
                    )
                    .await;
                Ok(SendMessageResponse::Task(entry.snapshot().await))
            }
        }
    }

    /// A task for a plain handler's `PlainReply::Task`; follow-up messages may continue it.
    pub(super) async fn new_plain_task(
        &self,
        mut message: Message,
        context_id: String,
        ctx: &RequestContext,
    ) -> Result<Arc<TaskHandle>, ServiceError> {
        let flags = Flags {
            cancelable: true,
            plain: true,
            turn_taken: false,
        };
        self.new_task(&mut message, context_id, flags, ctx, TaskState::Submitted)
            .await
    }

    /// Plays a plain task's steps and answers a blocking request once it settles (bounded by
    /// the request timeout), or at once with `returnImmediately`.
    pub(super) async fn play_and_answer(
        &self,
        entry: Arc<TaskHandle>,
        steps: Vec<PlainStep>,
        cfg: &SendMessageConfiguration,
    ) -> SendMessageResponse {
        let (_, version, mut events) = entry.subscribe().await;
        play(entry.clone(), steps);
        if !cfg.return_immediately {
            settle(&entry, &mut events, version, self.0.request_timeout).await;
        }
        SendMessageResponse::Task(trim_history(entry.snapshot().await, cfg.history_length))
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
async fn settle(entry: &TaskHandle, events: &mut Subscription, seen: i64, limit: Duration) {
    let settled = async {
        loop {
            match events.recv().await {
                Ok(HubEvent::Event { version, event }) if version > seen => {
                    if ends_stream(&event) {
                        break;
                    }
                }
                // An event too large to pass between replicas: read the task to learn its state.
                Ok(HubEvent::Resync { version }) if version > seen => {
                    if entry.refresh().await.is_err() {
                        break;
                    }
                    let state = entry.state().await;
                    if state.is_terminal() || state.is_interrupted() {
                        break;
                    }
                }
                Ok(_) => {}
                // Missed or too-large events: the snapshot read afterwards is the answer.
                Err(broadcast::error::RecvError::Lagged(_)) => break,
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
    };
    let _ = tokio::time::timeout(limit, settled).await;
}

/// Plays a plain Task's steps in the background (a canceled task stops taking steps).
pub(super) fn play(entry: Arc<TaskHandle>, steps: Vec<PlainStep>) {
    tokio::spawn(async move {
        let hub = entry.store().hub().clone();
        hub.run(&entry.id, entry.cancel.clone());
        play_steps(&entry, steps).await;
        hub.finish(&entry.id);
    });
}

async fn play_steps(entry: &TaskHandle, steps: Vec<PlainStep>) {
    {
        let mut moved = false;
        for step in steps {
            let ok = match step {
                PlainStep::Status(state, parts) => {
                    let msg = if parts.is_empty() {
                        None
                    } else {
                        Some(agent_message(entry, parts))
                    };
                    moved = true;
                    entry.set_status(state, msg).await.is_ok()
                }
                PlainStep::Artifact {
                    artifact,
                    append,
                    last_chunk,
                } => entry
                    .add_artifact(artifact, append, last_chunk)
                    .await
                    .is_ok(),
                PlainStep::Sleep(d) => {
                    tokio::select! {
                        _ = tokio::time::sleep(d) => {}
                        _ = entry.cancel.cancelled() => {}
                    }
                    let _ = entry.refresh().await;
                    !entry.state().await.is_terminal()
                }
            };
            if !ok {
                return;
            }
        }
        // Steps that never changed the status leave the task waiting: open it to the next turn.
        // (A status change already did, and a later follow-up may hold the turn by now.)
        if !moved {
            entry.release_turn().await;
        }
    }
}

//! What `SendMessage` and `SendStreamingMessage` share, written once: the configuration
//! checks, the push config the request carries, preparing the turn (a skill task, a plain
//! reply, or the next turn of an interrupted task) and attaching the push config. The two
//! methods differ only in how they deliver what follows (one answer, or a stream).

use super::plain::continuation_steps;
use super::{check_history_length, A2aService, Job, Prepared, RequestContext, ServiceError};
use crate::agent::{PlainReply, PlainStep};
use crate::task::TaskHandle;
use skillgate_a2a::{SendMessageConfiguration, SendMessageRequest, SendMessageResponse};
use std::sync::Arc;

/// A prepared turn of a send.
pub(super) enum Turn {
    /// Answered at once, with no work left (a message, or a reply the agent gave directly).
    Answered(Box<SendMessageResponse>),
    /// A task with work to start. The caller starts it with [`Work`] once it has subscribed
    /// to the task's events (so a stream misses none). `attached` is the outcome of storing
    /// the request's push config: a store refusal there does not stop the work that was
    /// asked for, the caller learns of it in the answer.
    Started {
        entry: Arc<TaskHandle>,
        work: Work,
        attached: Result<(), ServiceError>,
    },
}

/// The work of a started turn.
pub(super) enum Work {
    /// A plain (non-skill) task: the agent's steps, played in order.
    Steps(Vec<PlainStep>),
    /// A skill task: the gate and the handler.
    Job(Job),
}

impl A2aService {
    /// The shared start of a send: checks, push config, the prepared turn. `blocking` is a
    /// `SendMessage` (one answer): with no push config its short tasks may be stored finished
    /// in one write (a stream or a webhook wants every state, so they get every write).
    pub(super) async fn begin_turn(
        &self,
        req: SendMessageRequest,
        ctx: &RequestContext,
        blocking: bool,
    ) -> Result<(SendMessageConfiguration, Turn), ServiceError> {
        let cfg = req.configuration.clone().unwrap_or_default();
        check_history_length(cfg.history_length)?;
        let push = self
            .send_push(
                cfg.task_push_notification_config.as_ref(),
                &req.message.task_id,
                ctx,
            )
            .await?;
        let settle = blocking && push.is_none();
        let waits = settle && !cfg.return_immediately;
        let turn = match self.prepare(req, ctx, settle, waits).await? {
            Prepared::Plain {
                message,
                context_id,
            } => {
                let reply = self
                    .plain_reply(message.clone(), context_id.clone(), ctx)
                    .await;
                if let PlainReply::Task(steps) = reply {
                    let entry = self.new_plain_task(message, context_id, ctx).await?;
                    let attached = self.attach_push(&entry, push, false).await;
                    Turn::Started {
                        entry,
                        work: Work::Steps(steps),
                        attached,
                    }
                } else {
                    Turn::Answered(Box::new(
                        self.plain_to_response(reply, message, context_id, ctx)
                            .await?,
                    ))
                }
            }
            Prepared::Continue { entry, message } => {
                let attached = self.attach_push(&entry, push, true).await;
                let context_id = entry.context_id.clone();
                let reply = self.plain_reply(message, context_id, ctx).await;
                Turn::Started {
                    entry,
                    work: Work::Steps(continuation_steps(reply)),
                    attached,
                }
            }
            Prepared::Task { entry, job } => {
                let attached = self.attach_push(&entry, push, false).await;
                Turn::Started {
                    entry,
                    work: Work::Job(job),
                    attached,
                }
            }
        };
        Ok((cfg, turn))
    }
}

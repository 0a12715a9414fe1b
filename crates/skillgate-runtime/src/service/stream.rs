//! Event streams: `SendStreamingMessage`, `SubscribeToTask`, and the forwarding of a task's
//! events to one subscriber until its stream ends.

use super::plain::play;
use super::turn::{Turn, Work};
use super::{trim_history, A2aService, EventStream, RequestContext, ServiceError};
use crate::task::TaskHandle;
use skillgate_a2a::{
    A2aError, SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task,
};
use skillgate_store::Subscription;
use std::sync::Arc;
use tokio::sync::mpsc;

impl A2aService {
    /// `SendStreamingMessage`: the Task first, then status and artifact updates until terminal.
    pub async fn send_streaming_message(
        &self,
        req: SendMessageRequest,
        ctx: &RequestContext,
    ) -> Result<EventStream, ServiceError> {
        // Boxed for the reason `send_message` is (about 6 KiB inline in every handler).
        Box::pin(self.send_streaming_message_unboxed(req, ctx)).await
    }

    async fn send_streaming_message_unboxed(
        &self,
        req: SendMessageRequest,
        ctx: &RequestContext,
    ) -> Result<EventStream, ServiceError> {
        let (cfg, turn) = self.begin_turn(req, ctx, false).await?;
        let (entry, work, attached) = match turn {
            Turn::Answered(answer) => {
                let (tx, rx) = mpsc::channel(1);
                let _ = tx.try_send(match *answer {
                    SendMessageResponse::Message(m) => StreamResponse::Message(m),
                    SendMessageResponse::Task(t) => StreamResponse::Task(t),
                });
                return Ok(rx);
            }
            Turn::Started {
                entry,
                work,
                attached,
            } => (entry, work, attached),
        };
        // Subscribed before the work starts: the stream misses no event.
        let (first, version, events) = entry.subscribe().await;
        let rx = forward(
            entry.clone(),
            trim_history(first, cfg.history_length),
            version,
            events,
        );
        match work {
            Work::Steps(steps) => play(entry, steps),
            Work::Job(job) => self.spawn(entry, job, ctx).await,
        }
        attached.map(|()| rx)
    }

    /// `SubscribeToTask`: the current Task first, then updates; terminal tasks are refused.
    pub async fn subscribe_to_task(
        &self,
        req: &SubscribeToTaskRequest,
        ctx: &RequestContext,
    ) -> Result<EventStream, ServiceError> {
        let e = self.visible(&req.id, ctx).await?;
        let (first, version, events) = e.subscribe().await;
        if first.status.state.is_terminal() {
            return Err(ServiceError::new(
                A2aError::UnsupportedOperation,
                format!(
                    "task {} is already in terminal state {}",
                    req.id, first.status.state
                ),
            ));
        }
        Ok(forward(e, first, version, events))
    }
}

/// Whether an event ends a stream: a terminal or interrupted status, or a direct message.
pub(super) fn ends_stream(ev: &StreamResponse) -> bool {
    match ev {
        StreamResponse::StatusUpdate(s) => {
            s.status.state.is_terminal() || s.status.state.is_interrupted()
        }
        StreamResponse::Task(t) => t.status.state.is_terminal() || t.status.state.is_interrupted(),
        StreamResponse::Message(_) => true,
        StreamResponse::ArtifactUpdate(_) => false,
    }
}

/// Sends `first` (the task at version `seen`), then the task's later events, to a new
/// receiver until an event ends the stream. Events at or below the version already sent are
/// skipped; a missed or too-large event resynchronises the reader with the stored task.
pub(super) fn forward(
    entry: Arc<TaskHandle>,
    first: Task,
    mut seen: i64,
    mut events: Subscription,
) -> EventStream {
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        let first = StreamResponse::Task(first);
        // An interrupted task's stream stays open: the next turn moves it on.
        let end = matches!(&first, StreamResponse::Task(t) if t.status.state.is_terminal());
        if tx.send(first).await.is_err() || end {
            return;
        }
        while let Some(ev) = entry.next_event(&mut events, &mut seen).await {
            let end = ends_stream(&ev);
            if tx.send(ev).await.is_err() || end {
                return;
            }
        }
    });
    rx
}

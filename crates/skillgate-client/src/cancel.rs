//! Calls that can be abandoned: steps 7 to 11 streaming when the skill and the card offer it,
//! every stream event handed to the caller as it arrives, and the remote task cancelled when
//! the caller drops the call before it finished (an asyncio task cancelled, an MCP
//! `notifications/cancelled`). A blocking `SendMessage` names its task only in its answer, so
//! only a streamed call can be cancelled remotely: this is why the mode is chosen here.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use skillgate_a2a::StreamResponse;
use skillgate_core::wire::ResponseMode;

use crate::a2a::{A2aConn, Mode};
use crate::client::{Client, Resolved};
use crate::error::{ClientError, Step};
use crate::http::EventSink;
use crate::steps::SkillResult;

/// The task a stream event belongs to (none for a direct message or an empty id).
fn event_task_id(event: &StreamResponse) -> Option<String> {
    let id = match event {
        StreamResponse::Task(t) => &t.id,
        StreamResponse::StatusUpdate(u) => &u.task_id,
        StreamResponse::ArtifactUpdate(u) => &u.task_id,
        StreamResponse::Message(m) => &m.task_id,
    };
    (!id.is_empty()).then(|| id.clone())
}

/// Sends `CancelTask` for the task its stream named when dropped armed: the call was
/// abandoned, so the agent should stop too. Best effort, in the background.
struct CancelOnDrop {
    conn: Option<A2aConn>,
    seen: Arc<Mutex<Option<String>>>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else {
            return;
        };
        let id = self.seen.lock().ok().and_then(|s| s.clone());
        let (Some(id), Ok(rt)) = (id, tokio::runtime::Handle::try_current()) else {
            return;
        };
        rt.spawn(async move {
            if let Err(e) = conn.cancel_task(Step::Delegate, &id).await {
                tracing::warn!(task = %id, error = %e, "cancelling an abandoned call's task failed");
            }
        });
    }
}

impl Client {
    /// Whether a call to `resolved` streams when asked to choose: the skill offers the `stream`
    /// response mode and the card declares streaming.
    pub fn streams(resolved: &Resolved) -> bool {
        resolved
            .document
            .document()
            .interaction
            .response_modes
            .contains(&ResponseMode::Stream)
            && resolved.target.card.capabilities.streaming == Some(true)
    }

    /// Steps 7 to 11 for a call the caller may abandon. `stream`: `Some(true)` streams,
    /// `Some(false)` blocks, `None` streams when [`Client::streams`] says it can (so that the
    /// task can be cancelled). Every stream event goes to `on_event` as it arrives. If the
    /// returned future is dropped before it completes, the remote task the stream named is
    /// cancelled (`CancelTask`) in the background; a blocking call is only abandoned.
    pub async fn invoke_cancellable(
        &self,
        resolved: &Resolved,
        arguments: &Value,
        stream: Option<bool>,
        on_event: impl Fn(&StreamResponse) + Send + Sync + 'static,
    ) -> Result<SkillResult, ClientError> {
        let mode = if stream.unwrap_or_else(|| Self::streams(resolved)) {
            Mode::Stream
        } else {
            Mode::Sync
        };
        if mode == Mode::Sync {
            return self.invoke(resolved, arguments, mode, &mut |_, _| {}).await;
        }
        let seen: Arc<Mutex<Option<String>>> = Arc::default();
        let sink = {
            let seen = Arc::clone(&seen);
            EventSink::new(move |event| {
                if let Ok(mut slot) = seen.lock() {
                    if slot.is_none() {
                        *slot = event_task_id(event);
                    }
                }
                on_event(event);
            })
        };
        let mut guard = CancelOnDrop {
            conn: Some(A2aConn::new(
                self.http().clone(),
                resolved.target.interface.clone(),
            )),
            seen,
        };
        let result = self
            .with_events(sink)
            .invoke(resolved, arguments, mode, &mut |_, _| {})
            .await;
        // Finished, either way: nothing left to cancel.
        guard.conn = None;
        result
    }
}

//! What every `tools/call` of this crate's servers shares once the call is under way: the A2A
//! task's stream events as MCP progress notifications, and `notifications/cancelled` ending
//! the call. One loop, for the server in front of a remote agent ([`crate::SkillServer`]) and
//! the one inside an agent ([`crate::AgentTools`]).

use std::future::Future;

use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use skillgate_a2a::StreamResponse;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

/// A sink for a call's stream events and the receiver [`drive`] reads them from, as text.
pub(crate) fn channel() -> (ProgressSink, UnboundedReceiver<String>) {
    let (tx, rx) = unbounded_channel();
    (ProgressSink(tx), rx)
}

/// Where a running call hands its A2A stream events. Unbounded, since the events of one task
/// are few and bounded by the task itself; a closed receiver (the call returned) drops them.
#[derive(Clone)]
pub(crate) struct ProgressSink(UnboundedSender<String>);

impl ProgressSink {
    /// Passes on what `e` says, if anything.
    pub(crate) fn event(&self, e: &StreamResponse) {
        if let Some(text) = progress_text(e) {
            let _ = self.0.send(text);
        }
    }
}

/// Runs `call` to its end, sending each text `rx` yields as a progress notification when the
/// client asked for them with a progress token. When the client cancels the request
/// (`notifications/cancelled` cancels the context's token), `call` is dropped at once: its
/// own drop guard decides what that stops (an A2A task it named is cancelled).
pub(crate) async fn drive(
    call: impl Future<Output = CallToolResult>,
    mut rx: UnboundedReceiver<String>,
    name: &str,
    context: &RequestContext<RoleServer>,
) -> CallToolResult {
    let token = context.meta.get_progress_token();
    tokio::pin!(call);
    let mut progress = 0.0;
    loop {
        tokio::select! {
            r = &mut call => return r,
            Some(text) = rx.recv() => {
                if let Some(token) = &token {
                    progress += 1.0;
                    let mut p = ProgressNotificationParam::new(token.clone(), progress);
                    p.message = Some(text);
                    // A client gone away is found by the call itself; nothing to do here.
                    let _ = context.peer.notify_progress(p).await;
                }
            }
            () = context.ct.cancelled() => {
                tracing::info!(tool = %name, "call cancelled by the MCP client");
                return CallToolResult::error(vec![ContentBlock::text("cancelled")]);
            }
        }
    }
}

/// What an A2A stream event says, as a progress message: the task and its state, the status
/// message's text, an artifact's name.
fn progress_text(e: &StreamResponse) -> Option<String> {
    match e {
        StreamResponse::Task(t) => Some(format!("task {} {}", t.id, t.status.state.as_str())),
        StreamResponse::StatusUpdate(u) => {
            let text: Vec<&str> = u
                .status
                .message
                .iter()
                .flat_map(|m| m.parts.iter())
                .filter_map(|p| p.as_text())
                .collect();
            Some(if text.is_empty() {
                u.status.state.as_str().to_owned()
            } else {
                format!("{}: {}", u.status.state.as_str(), text.join(" "))
            })
        }
        StreamResponse::ArtifactUpdate(u) => Some(format!("artifact {}", u.artifact.name)),
        StreamResponse::Message(_) => None,
    }
}

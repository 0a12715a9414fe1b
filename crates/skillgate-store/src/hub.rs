//! Local fan-out of task events, and the cancel signals of the tasks this process runs.
//!
//! A channel exists only while someone subscribes to a task (most tasks are never streamed,
//! so they cost no channel at all), and disappears with its last subscriber.

use skillgate_a2a::StreamResponse;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// Events buffered per subscribed task before a slow subscriber is resynchronised.
const EVENT_BUFFER: usize = 64;

/// One event of a task as subscribers receive it.
// `Resync` is rare and small; boxing `Event` would cost an allocation on every event instead.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum HubEvent {
    /// The event written with the task's version `version`.
    Event {
        /// Task version after the update that produced the event.
        version: i64,
        /// The event.
        event: StreamResponse,
    },
    /// An event too large to carry between replicas: read the task again.
    Resync {
        /// Task version after the update.
        version: i64,
    },
}

impl HubEvent {
    /// The task version this event follows.
    pub fn version(&self) -> i64 {
        match self {
            HubEvent::Event { version, .. } | HubEvent::Resync { version } => *version,
        }
    }
}

#[derive(Default)]
struct Entry {
    tx: Option<broadcast::Sender<HubEvent>>,
    running: Option<CancellationToken>,
}

/// The per-process event fan-out.
#[derive(Default)]
pub struct EventHub {
    tasks: Mutex<HashMap<String, Entry>>,
}

impl std::fmt::Debug for EventHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventHub")
            .field("tasks", &self.lock().len())
            .finish()
    }
}

/// A subscriber's end: events of one task from the moment of subscribing.
pub struct Subscription {
    rx: broadcast::Receiver<HubEvent>,
    hub: Arc<EventHub>,
    id: String,
}

impl Subscription {
    /// The next event; `Err(Lagged)` when events were missed (resynchronise with a snapshot).
    pub async fn recv(&mut self) -> Result<HubEvent, broadcast::error::RecvError> {
        self.rx.recv().await
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.hub.release(&self.id);
    }
}

impl EventHub {
    /// A new hub.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.tasks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Subscribes to a task's events. Subscribe before reading the task, then skip events
    /// whose version is not above the one read: nothing is missed in between.
    pub fn subscribe(self: &Arc<Self>, id: &str) -> Subscription {
        let mut map = self.lock();
        let entry = map.entry(id.to_string()).or_default();
        let rx = match &entry.tx {
            Some(tx) => tx.subscribe(),
            None => {
                let (tx, rx) = broadcast::channel(EVENT_BUFFER);
                entry.tx = Some(tx);
                rx
            }
        };
        Subscription {
            rx,
            hub: self.clone(),
            id: id.to_string(),
        }
    }

    fn release(&self, id: &str) {
        let mut map = self.lock();
        if let Some(e) = map.get_mut(id) {
            // Called from the subscription's Drop, before its receiver field is dropped: a
            // count of one is that receiver alone. New subscribers need this lock, so the
            // count cannot grow meanwhile.
            if e.tx.as_ref().is_some_and(|tx| tx.receiver_count() <= 1) {
                e.tx = None;
            }
            if e.tx.is_none() && e.running.is_none() {
                map.remove(id);
            }
        }
    }

    /// Whether anyone in this process listens to the task (saves building events nobody reads).
    pub fn has_subscribers(&self, id: &str) -> bool {
        self.lock().get(id).is_some_and(|e| e.tx.is_some())
    }

    /// Delivers an event to the task's local subscribers. A terminal status also fires the
    /// cancel signal of the task if this process runs it (a CancelTask on another replica
    /// stops the handler here).
    pub fn publish(&self, id: &str, ev: HubEvent) {
        let map = self.lock();
        let Some(e) = map.get(id) else { return };
        if let (Some(token), HubEvent::Event { event, .. }) = (&e.running, &ev) {
            let terminal = match event {
                StreamResponse::StatusUpdate(s) => s.status.state.is_terminal(),
                StreamResponse::Task(t) => t.status.state.is_terminal(),
                _ => false,
            };
            if terminal {
                token.cancel();
            }
        }
        if let Some(tx) = &e.tx {
            let _ = tx.send(ev);
        }
    }

    /// Records that this process runs the task; its token fires when the task ends elsewhere.
    pub fn run(&self, id: &str, token: CancellationToken) {
        self.lock().entry(id.to_string()).or_default().running = Some(token);
    }

    /// The task no longer runs here.
    pub fn finish(&self, id: &str) {
        let mut map = self.lock();
        if let Some(e) = map.get_mut(id) {
            e.running = None;
            if e.tx.is_none() {
                map.remove(id);
            }
        }
    }

    /// Ids of the tasks this process runs (their leases are renewed).
    pub fn running(&self) -> Vec<String> {
        self.lock()
            .iter()
            .filter(|(_, e)| e.running.is_some())
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Fires the cancel signal of a task running here; false if it does not run here.
    pub fn cancel_local(&self, id: &str) -> bool {
        match self.lock().get(id).and_then(|e| e.running.as_ref()) {
            Some(t) => {
                t.cancel();
                true
            }
            None => false,
        }
    }

    /// Tasks with a channel or a running handler (for tests of the cleanup).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no task has a channel or a running handler.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillgate_a2a::{TaskState, TaskStatus, TaskStatusUpdateEvent};

    fn status(state: TaskState) -> HubEvent {
        HubEvent::Event {
            version: 2,
            event: StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: "t".into(),
                status: TaskStatus {
                    state,
                    ..Default::default()
                },
                ..Default::default()
            }),
        }
    }

    #[tokio::test]
    async fn channels_live_only_while_subscribed() {
        let hub = EventHub::new();
        hub.publish("t", status(TaskState::Working));
        assert!(
            hub.is_empty(),
            "publishing without subscribers allocates nothing"
        );
        let mut s = hub.subscribe("t");
        hub.publish("t", status(TaskState::Working));
        assert_eq!(s.recv().await.unwrap().version(), 2);
        drop(s);
        assert!(hub.is_empty());
    }

    #[test]
    fn terminal_status_cancels_a_local_run() {
        let hub = EventHub::new();
        let token = CancellationToken::new();
        hub.run("t", token.clone());
        hub.publish("t", status(TaskState::Working));
        assert!(!token.is_cancelled());
        hub.publish("t", status(TaskState::Canceled));
        assert!(token.is_cancelled());
        hub.finish("t");
        assert!(hub.is_empty());
    }
}

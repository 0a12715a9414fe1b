//! In-memory task store, bounded by count and age.
//!
//! Finished tasks older than `max_age` are dropped; when `max_tasks` are held, the oldest
//! finished task is evicted to make room, and if every held task is still running the new task
//! is refused (the caller gets a JSON-RPC internal error). Running tasks are never evicted:
//! their duration is bounded by the skill's `max_duration_ms` or the server's cap.

use crate::config::TaskStoreConfig;
use skillgate_a2a::{
    Artifact, Message, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, watch};

/// Events buffered per subscriber before it is resynchronised with a full Task snapshot.
const EVENT_BUFFER: usize = 64;

pub(crate) struct TaskData {
    pub(crate) task: Task,
    pub(crate) finished: Option<Instant>,
    /// A follow-up holds the turn of this interrupted task; cleared by the next status change.
    turn_taken: bool,
}

/// Why a follow-up message may not continue a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TurnRefused {
    /// The task is not an interrupted plain task (its current state is given).
    NotWaiting(TaskState),
    /// Another follow-up already continues it.
    Taken,
}

/// One task with its event fan-out and cancel signal.
pub(crate) struct TaskEntry {
    data: Mutex<TaskData>,
    events: broadcast::Sender<StreamResponse>,
    done: watch::Sender<bool>,
    pub(crate) cancel: tokio_util::sync::CancellationToken,
    pub(crate) cancelable: bool,
    pub(crate) owner: Option<Arc<str>>,
    /// Created by the plain handler: later messages with its taskId continue it.
    pub(crate) plain: std::sync::atomic::AtomicBool,
}

/// Recover the data even if a thread panicked while holding the lock: the task data is always
/// left consistent by our own short critical sections.
fn lock(m: &Mutex<TaskData>) -> MutexGuard<'_, TaskData> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl TaskEntry {
    pub(crate) fn new(task: Task, cancelable: bool, owner: Option<Arc<str>>) -> Self {
        let finished = task.status.state.is_terminal().then(Instant::now);
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let (done, _) = watch::channel(finished.is_some());
        Self {
            data: Mutex::new(TaskData {
                task,
                finished,
                turn_taken: false,
            }),
            events,
            done,
            cancel: tokio_util::sync::CancellationToken::new(),
            cancelable,
            owner,
            plain: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Takes the next turn of an interrupted plain task: checks the state, appends the
    /// follow-up (with the task's context id) to the history and marks the turn taken in one
    /// critical section, so of two concurrent follow-ups exactly one continues the task.
    pub(crate) fn take_turn(&self, mut m: Message) -> Result<Message, TurnRefused> {
        let mut d = lock(&self.data);
        let state = d.task.status.state;
        if !state.is_interrupted() || !self.plain.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(TurnRefused::NotWaiting(state));
        }
        if d.turn_taken {
            return Err(TurnRefused::Taken);
        }
        d.turn_taken = true;
        m.context_id = d.task.context_id.clone();
        d.task.history.push(m.clone());
        Ok(m)
    }

    /// Gives the turn back when a follow-up's steps ended without moving the task on.
    pub(crate) fn release_turn(&self) {
        lock(&self.data).turn_taken = false;
    }

    pub(crate) fn snapshot(&self) -> Task {
        lock(&self.data).task.clone()
    }

    pub(crate) fn state(&self) -> TaskState {
        lock(&self.data).task.status.state
    }

    pub(crate) fn with_data<R>(&self, f: impl FnOnce(&TaskData) -> R) -> R {
        f(&lock(&self.data))
    }

    /// A consistent snapshot plus a receiver of every later event.
    pub(crate) fn subscribe(&self) -> (Task, broadcast::Receiver<StreamResponse>) {
        let d = lock(&self.data);
        (d.task.clone(), self.events.subscribe())
    }

    /// Moves to a new state unless already terminal; returns the state it was in on refusal.
    pub(crate) fn set_status(
        &self,
        state: TaskState,
        message: Option<Message>,
    ) -> Result<(), TaskState> {
        let mut d = lock(&self.data);
        let current = d.task.status.state;
        if current.is_terminal() {
            return Err(current);
        }
        let status = TaskStatus {
            state,
            message,
            timestamp: Some(crate::time::now_rfc3339()),
        };
        d.task.status = status.clone();
        d.turn_taken = false;
        if state.is_terminal() {
            d.finished = Some(Instant::now());
        }
        let ev = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: d.task.id.clone(),
            context_id: d.task.context_id.clone(),
            status,
            metadata: None,
        });
        let _ = self.events.send(ev);
        drop(d);
        if state.is_terminal() {
            self.done.send_replace(true);
        }
        Ok(())
    }

    /// Adds an artifact unless the task is already terminal.
    pub(crate) fn add_artifact(&self, artifact: Artifact) -> Result<(), TaskState> {
        let mut d = lock(&self.data);
        let current = d.task.status.state;
        if current.is_terminal() {
            return Err(current);
        }
        // Only pay for the event copy when someone is streaming this task.
        if self.events.receiver_count() > 0 {
            let ev = StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: d.task.id.clone(),
                context_id: d.task.context_id.clone(),
                artifact: artifact.clone(),
                append: false,
                last_chunk: true,
                metadata: None,
            });
            let _ = self.events.send(ev);
        }
        d.task.artifacts.push(artifact);
        Ok(())
    }

    /// Adds an artifact chunk: `append` extends the parts of the artifact with the same id.
    pub(crate) fn add_artifact_chunk(
        &self,
        artifact: Artifact,
        append: bool,
        last_chunk: bool,
    ) -> Result<(), TaskState> {
        let mut d = lock(&self.data);
        let current = d.task.status.state;
        if current.is_terminal() {
            return Err(current);
        }
        let ev = StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: d.task.id.clone(),
            context_id: d.task.context_id.clone(),
            artifact: artifact.clone(),
            append,
            last_chunk,
            metadata: None,
        });
        let _ = self.events.send(ev);
        match d
            .task
            .artifacts
            .iter_mut()
            .find(|a| append && a.artifact_id == artifact.artifact_id)
        {
            Some(existing) => existing.parts.extend(artifact.parts),
            None => d.task.artifacts.push(artifact),
        }
        Ok(())
    }

    /// Waits until the task is terminal or the timeout passes.
    pub(crate) async fn wait_done(&self, timeout: Duration) {
        let mut rx = self.done.subscribe();
        let _ = tokio::time::timeout(timeout, rx.wait_for(|d| *d)).await;
    }
}

/// The store could not take another task.
#[derive(Debug)]
pub(crate) struct StoreFull;

struct StoreInner {
    map: HashMap<String, Arc<TaskEntry>>,
    order: VecDeque<String>,
}

/// All tasks, by id.
pub(crate) struct TaskStore {
    inner: Mutex<StoreInner>,
    config: TaskStoreConfig,
}

impl TaskStore {
    pub(crate) fn new(config: TaskStoreConfig) -> Self {
        Self {
            inner: Mutex::new(StoreInner {
                map: HashMap::new(),
                order: VecDeque::new(),
            }),
            config,
        }
    }

    fn lock(&self) -> MutexGuard<'_, StoreInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn insert(&self, id: String, entry: Arc<TaskEntry>) -> Result<(), StoreFull> {
        let mut s = self.lock();
        let max_age = self.config.max_age;
        // Drop expired finished tasks from the front (oldest first) until a live one is met.
        while let Some(front) = s.order.front().cloned() {
            let expired = match s.map.get(&front) {
                None => true,
                Some(e) => e.with_data(|d| d.finished.is_some_and(|f| f.elapsed() > max_age)),
            };
            if !expired {
                break;
            }
            s.order.pop_front();
            s.map.remove(&front);
        }
        if s.map.len() >= self.config.max_tasks.max(1) {
            let victim = s.order.iter().position(|id| {
                s.map
                    .get(id)
                    .is_none_or(|e| e.with_data(|d| d.finished.is_some()))
            });
            match victim {
                Some(i) => {
                    if let Some(old) = s.order.remove(i) {
                        s.map.remove(&old);
                    }
                }
                None => return Err(StoreFull),
            }
        }
        s.order.push_back(id.clone());
        s.map.insert(id, entry);
        Ok(())
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<TaskEntry>> {
        let max_age = self.config.max_age;
        let s = self.lock();
        let e = s.map.get(id)?;
        if e.with_data(|d| d.finished.is_some_and(|f| f.elapsed() > max_age)) {
            return None;
        }
        Some(e.clone())
    }

    pub(crate) fn all(&self) -> Vec<Arc<TaskEntry>> {
        let max_age = self.config.max_age;
        self.lock()
            .map
            .values()
            .filter(|e| !e.with_data(|d| d.finished.is_some_and(|f| f.elapsed() > max_age)))
            .cloned()
            .collect()
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, state: TaskState) -> Arc<TaskEntry> {
        Arc::new(TaskEntry::new(
            Task {
                id: id.into(),
                status: TaskStatus {
                    state,
                    ..Default::default()
                },
                ..Default::default()
            },
            false,
            None,
        ))
    }

    #[test]
    fn evicts_oldest_finished_and_refuses_when_all_run() {
        let s = TaskStore::new(TaskStoreConfig {
            max_tasks: 2,
            max_age: Duration::from_secs(60),
        });
        s.insert("a".into(), task("a", TaskState::Completed))
            .unwrap();
        s.insert("b".into(), task("b", TaskState::Working)).unwrap();
        s.insert("c".into(), task("c", TaskState::Working)).unwrap();
        assert!(s.get("a").is_none());
        assert_eq!(s.len(), 2);
        assert!(s.insert("d".into(), task("d", TaskState::Working)).is_err());
    }

    #[test]
    fn drops_expired_finished_tasks() {
        let s = TaskStore::new(TaskStoreConfig {
            max_tasks: 10,
            max_age: Duration::from_millis(0),
        });
        s.insert("a".into(), task("a", TaskState::Completed))
            .unwrap();
        std::thread::sleep(Duration::from_millis(2));
        assert!(s.get("a").is_none());
        s.insert("b".into(), task("b", TaskState::Working)).unwrap();
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn terminal_state_is_final() {
        let e = task("a", TaskState::Working);
        e.set_status(TaskState::Canceled, None).unwrap();
        assert_eq!(
            e.set_status(TaskState::Completed, None),
            Err(TaskState::Canceled)
        );
        assert!(e.add_artifact(Artifact::default()).is_err());
    }
}

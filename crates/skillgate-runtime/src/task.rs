//! The runtime's view of its task store: live handles over stored tasks.
//!
//! A [`TaskHandle`] caches the Task it last wrote, so the process running a task never parses
//! it back; it serializes it once per change for a SQL store, and not at all for the memory
//! store, which keeps the handle's typed Task itself ([`TaskStore::keeps_typed_tasks`]). Every change is a versioned write
//! ([`TaskStore::update`]): when another writer got there first (a CancelTask on another
//! replica, say) the handle reloads the task and applies the change again, so nothing is lost
//! and a terminal state stays final. A change is stored before its event is published, so a
//! reader never sees an event for a state the store does not hold.

use crate::metrics::Metrics;
use skillgate_a2a::{
    Artifact, Message, Part, Role, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState,
    TaskStatus, TaskStatusUpdateEvent,
};
use skillgate_store::{Flags, HubEvent, StoreError, Subscription, TaskRow, TaskStore};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, watch, Mutex};
use tokio_util::sync::CancellationToken;

/// A fresh id for a task, context, message or push config: a UUID v7 (a millisecond
/// timestamp, then 74 random bits). Time-ordered rather than v4's all-random so a SQL store
/// appends each new task to the same few index pages (its primary key and context index)
/// instead of dirtying a random leaf page per write; an id grants nothing (every read checks
/// the caller), so the timestamp it shows costs no secrecy.
pub(crate) fn new_id() -> String {
    // Encoded into a buffer and copied once: `to_string` goes through `fmt` and grows the
    // string as it writes (several ids per request).
    let mut buf = uuid::Uuid::encode_buffer();
    uuid::Uuid::now_v7()
        .hyphenated()
        .encode_lower(&mut buf)
        .to_owned()
}

/// A message from the agent about a task (ids from the handle: no copy of the task needed).
pub(crate) fn agent_message(task: &TaskHandle, parts: Vec<Part>) -> Message {
    Message {
        message_id: new_id(),
        context_id: task.context_id.clone(),
        task_id: task.id.clone(),
        role: Role::Agent,
        parts,
        ..Default::default()
    }
}

/// How often a write is retried after losing a version race before giving up.
const MAX_RETRIES: usize = 8;

/// Why a change was not applied.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The task is already terminal (its state is given).
    Terminal(TaskState),
    /// The change would take the task over its byte budget (size, budget).
    OverBudget(u64, u64),
    /// A follow-up may not continue the task.
    Turn(TurnRefused),
    /// The store failed.
    Store(StoreError),
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Self {
        Refused::Store(e)
    }
}

/// Why a follow-up message may not continue a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TurnRefused {
    /// The task is not an interrupted plain task (its current state is given).
    NotWaiting(TaskState),
    /// Another follow-up already continues it.
    Taken,
}

/// What a change is told about the attempt it is applied in.
#[derive(Debug, Clone, Copy)]
struct Attempt {
    /// Someone could receive the change's events when it began: build them.
    emit: bool,
    /// A lost version race may apply the change again, to the task re-read: what it puts
    /// into the task must stay with it. When `false` (the first write of a deferred task,
    /// which creates it), the change may move its inputs instead of copying them.
    may_retry: bool,
}

/// The events of one change.
// Lives for one write on the stack; boxing would allocate on every event instead.
#[allow(clippy::large_enum_variant)]
enum Event {
    /// A change with no event (the turn flag).
    None,
    /// The event, built because someone could receive it.
    Built(StreamResponse),
    /// Several events in order (a finishing task's artifacts and status), built because
    /// someone could receive them; the write advances the version by their number.
    Many(Vec<StreamResponse>),
    /// The change has events but nobody could receive them when the change began.
    Skipped,
}

impl Event {
    /// The events to write with the change.
    fn built(&self) -> &[StreamResponse] {
        match self {
            Event::Built(ev) => std::slice::from_ref(ev),
            Event::Many(evs) => evs,
            Event::None | Event::Skipped => &[],
        }
    }

    fn of(emit: bool, build: impl FnOnce() -> StreamResponse) -> Self {
        if emit {
            Event::Built(build())
        } else {
            Event::Skipped
        }
    }
}

struct Current {
    /// Shared with the row a memory store keeps; a change copies it first (copy on write).
    task: Arc<Task>,
    row: TaskRow,
    /// Whether `row` is in the store: a deferred task ([`TaskHandle::deferred`]) is not until
    /// its first write creates it.
    stored: Stored,
}

/// Where a handle's task is, for a deferred one.
enum Stored {
    /// In the store (every handle but a deferred one, from the start).
    Yes,
    /// Not yet: the first write creates it.
    Not,
    /// Its create was refused: nothing is stored; the refusal, for the waiting caller.
    Refused(Option<StoreError>),
}

/// A copy of a create's refusal for the caller waiting on a deferred task (the original goes
/// back to the writer): the refusals a caller is told as they are, anything else by its text.
fn copy_refusal(e: &StoreError) -> StoreError {
    match e {
        StoreError::CallerLimit(n) => StoreError::CallerLimit(*n),
        StoreError::Full { used, budget } => StoreError::Full {
            used: *used,
            budget: *budget,
        },
        other => StoreError::Database(other.to_string()),
    }
}

/// Puts `task` into `row` in the form the store keeps: typed (shared, nothing serialized; sized
/// from what changed when the row held the task it was made from) or as its JSON, serialized
/// here once.
fn fill(store: &dyn TaskStore, row: &mut TaskRow, task: &Arc<Task>) {
    if store.keeps_typed_tasks() {
        row.set_typed_changed(Arc::clone(task));
    } else {
        row.set_task(task);
    }
}

/// A version-1 row of `task` in the form the store keeps (see [`fill`]).
fn new_row(
    store: &dyn TaskStore,
    task: &Arc<Task>,
    owner: Option<String>,
    flags: Flags,
) -> TaskRow {
    if store.keeps_typed_tasks() {
        TaskRow::typed(Arc::clone(task), owner, flags)
    } else {
        TaskRow::new(task, owner, flags)
    }
}

/// One task as this process works on it.
pub(crate) struct TaskHandle {
    store: Arc<dyn TaskStore>,
    /// Counts the task's creation and its terminal write, each once, where they happen.
    metrics: Metrics,
    current: Mutex<Current>,
    done: watch::Sender<bool>,
    /// Fired when the task is canceled (here or on another replica) or the run must stop.
    pub(crate) cancel: CancellationToken,
    /// Cached facts that never change after creation.
    pub(crate) id: String,
    pub(crate) context_id: String,
    pub(crate) owner: Option<String>,
    pub(crate) flags: Flags,
}

impl TaskHandle {
    fn from_row(
        store: Arc<dyn TaskStore>,
        metrics: &Metrics,
        row: TaskRow,
        task: Arc<Task>,
    ) -> Arc<Self> {
        Self::with_stored(store, metrics, row, task, Stored::Yes)
    }

    /// [`TaskHandle::from_row`] for a row that may not be stored yet.
    fn with_stored(
        store: Arc<dyn TaskStore>,
        metrics: &Metrics,
        row: TaskRow,
        task: Arc<Task>,
        stored: Stored,
    ) -> Arc<Self> {
        let (done, _) = watch::channel(task.status.state.is_terminal());
        Arc::new(Self {
            store,
            metrics: metrics.clone(),
            id: row.id.clone(),
            context_id: task.context_id.clone(),
            owner: row.owner.clone(),
            flags: row.flags,
            current: Mutex::new(Current { task, row, stored }),
            done,
            cancel: CancellationToken::new(),
        })
    }

    /// Stores a new task (refusals: the caller's limit, a full store) and returns its handle.
    /// A task whose JSON would take more than half the per-task budget keeps its request
    /// message only as a note of its size: the running job has its own copy of the request,
    /// the store keeps what fits. The common case serializes the task once.
    pub(crate) async fn create(
        store: &Arc<dyn TaskStore>,
        metrics: &Metrics,
        task: Task,
        owner: Option<String>,
        flags: Flags,
    ) -> Result<Arc<Self>, StoreError> {
        let limit = store.limits().max_task_bytes / 2;
        let mut task = Arc::new(task);
        let mut row = new_row(store.as_ref(), &task, owner, flags);
        let size = row.body_len();
        if size > limit {
            // The row shares the task: let it go before the task is changed in place.
            row.set_body(bytes::Bytes::new());
            for m in &mut Arc::make_mut(&mut task).history {
                *m = Message {
                    message_id: std::mem::take(&mut m.message_id),
                    context_id: std::mem::take(&mut m.context_id),
                    task_id: std::mem::take(&mut m.task_id),
                    role: m.role,
                    parts: vec![skillgate_a2a::Part::text(format!(
                        "request message not kept: the task's {size} bytes exceed half the per-task budget ({limit} bytes)"
                    ))],
                    ..Default::default()
                };
            }
            fill(store.as_ref(), &mut row, &task);
        }
        store.create(&row).await?;
        metrics.task_created();
        Ok(Self::from_row(store.clone(), metrics, row, task))
    }

    /// Stores a task that is already terminal (created and finished in one write) and returns
    /// its handle, counting its creation and its end. `None`, with nothing written, when its
    /// JSON would take more than half the per-task budget: [`TaskHandle::create`] then keeps
    /// only a note of the request, which a finished task would have to decide differently.
    pub(crate) async fn create_finished(
        store: &Arc<dyn TaskStore>,
        metrics: &Metrics,
        task: Task,
        owner: Option<String>,
        flags: Flags,
    ) -> Result<Option<Arc<Self>>, StoreError> {
        let task = Arc::new(task);
        let row = new_row(store.as_ref(), &task, owner, flags);
        if row.body_len() > store.limits().max_task_bytes / 2 {
            return Ok(None);
        }
        store.create(&row).await?;
        metrics.task_created();
        if task.status.state.is_terminal() {
            metrics.task_ended(task.status.state);
        }
        Ok(Some(Self::from_row(store.clone(), metrics, row, task)))
    }

    /// A handle over a new task that is not stored yet: its first write creates it, already
    /// in the state that write gives (for a short blocking request, created and finished in one
    /// write). Only for a task nobody else can know of before its caller's answer, whose
    /// caller waits for that answer and stores it with [`TaskHandle::store_now`] if it runs
    /// longer than a short grace period.
    /// `None`, with nothing built, when its JSON would take more than half the per-task budget
    /// (see [`TaskHandle::create_finished`]).
    pub(crate) fn deferred(
        store: &Arc<dyn TaskStore>,
        metrics: &Metrics,
        task: Task,
        owner: Option<String>,
        flags: Flags,
    ) -> Option<Arc<Self>> {
        let task = Arc::new(task);
        let mut row = new_row(store.as_ref(), &task, owner, flags);
        if row.body_len() > store.limits().max_task_bytes / 2 {
            return None;
        }
        // Its caller's running-task limit still refuses it, when it is stored.
        row.counts_as_running = true;
        Some(Self::with_stored(
            store.clone(),
            metrics,
            row,
            task,
            Stored::Not,
        ))
    }

    /// Stores a deferred task as it is now if no write has yet (it runs longer than its grace
    /// period, or its caller's wait ran out: the task must be found while it runs and after
    /// the answer). The store's refusal, if it refused this create or the one a write tried:
    /// the caller gets that instead of a task.
    pub(crate) async fn store_now(&self) -> Result<(), StoreError> {
        let mut cur = self.current.lock().await;
        match &mut cur.stored {
            Stored::Yes => Ok(()),
            Stored::Refused(e) => Err(e
                .take()
                .unwrap_or_else(|| StoreError::Database("the task was not stored".into()))),
            Stored::Not => {
                let created = self.store.create(&cur.row).await;
                self.created(&mut cur, created)
            }
        }
    }

    /// Records the outcome of a deferred task's create.
    fn created(&self, cur: &mut Current, r: Result<(), StoreError>) -> Result<(), StoreError> {
        match r {
            Ok(()) => {
                cur.stored = Stored::Yes;
                self.metrics.task_created();
                Ok(())
            }
            Err(e) => {
                cur.stored = Stored::Refused(Some(copy_refusal(&e)));
                // The waiting caller is told now, not when its wait runs out.
                self.done.send_replace(true);
                Err(e)
            }
        }
    }

    /// A handle over a row already read from the store.
    pub(crate) fn of_row(
        store: &Arc<dyn TaskStore>,
        metrics: &Metrics,
        row: TaskRow,
    ) -> Result<Arc<Self>, StoreError> {
        let task = row.shared_task()?;
        Ok(Self::from_row(store.clone(), metrics, row, task))
    }

    /// Loads a stored task.
    pub(crate) async fn load(
        store: &Arc<dyn TaskStore>,
        metrics: &Metrics,
        id: &str,
    ) -> Result<Option<Arc<Self>>, StoreError> {
        let Some(row) = store.get(id).await? else {
            return Ok(None);
        };
        let task = row.shared_task()?;
        Ok(Some(Self::from_row(store.clone(), metrics, row, task)))
    }

    /// The task as last read or written.
    pub(crate) async fn snapshot(&self) -> Task {
        Task::clone(&self.current.lock().await.task)
    }

    /// The task as last read or written, with its version.
    pub(crate) async fn versioned(&self) -> (Task, i64) {
        let cur = self.current.lock().await;
        (Task::clone(&cur.task), cur.row.version)
    }

    /// Its current state.
    pub(crate) async fn state(&self) -> TaskState {
        self.current.lock().await.task.status.state
    }

    /// Re-reads the task from the store (after a run ends, to see a cancel made elsewhere).
    pub(crate) async fn refresh(&self) -> Result<(), StoreError> {
        let mut cur = self.current.lock().await;
        self.reload(&mut cur).await
    }

    async fn reload(&self, cur: &mut Current) -> Result<(), StoreError> {
        let row = self
            .store
            .get(&self.id)
            .await?
            .ok_or_else(|| StoreError::NotFound(self.id.clone()))?;
        cur.task = row.shared_task()?;
        cur.row = row;
        if cur.task.status.state.is_terminal() {
            self.done.send_replace(true);
        }
        Ok(())
    }

    /// Applies `change` to the task and stores it in one write, publishing the events the
    /// change returns (asked for only when someone can receive them: the `bool`); the version
    /// advances by their number (one when there are none). Retries on a lost version race with
    /// the stored task.
    ///
    /// The change is applied to the cached task in place when the handle holds it alone (a SQL
    /// store keeps only the JSON): a clone and a drop of the whole task per write were a tenth
    /// of an evaluate request's instructions (callgrind, docs/benchmarks.md). The memory store
    /// keeps the written task itself, so there the change applies to a copy (what the store
    /// holds must not change before the write): that copy replaces the serialization a stored
    /// body cost. When the change is refused or not stored, the cached task is restored from
    /// the stored row, which holds it exactly.
    async fn change<F>(&self, mut change: F) -> Result<(), Refused>
    where
        F: FnMut(&mut Task, &mut Flags, Attempt) -> Result<Event, Refused>,
    {
        let budget = self.store.limits().max_task_bytes;
        let mut cur = self.current.lock().await;
        for _ in 0..MAX_RETRIES {
            let was_terminal = cur.task.status.state.is_terminal();
            let mut row = cur.row.clone();
            let attempt = Attempt {
                emit: self.store.wants_event(&self.id),
                may_retry: !matches!(cur.stored, Stored::Not),
            };
            let event = match change(Arc::make_mut(&mut cur.task), &mut row.flags, attempt) {
                Ok(event) => event,
                Err(refused) => {
                    restore(&mut cur)?;
                    return Err(refused);
                }
            };
            fill(self.store.as_ref(), &mut row, &cur.task);
            let size = row.body_len();
            if size > budget && size > cur.row.body_len() {
                restore(&mut cur)?;
                return Err(Refused::OverBudget(size, budget));
            }
            let built = event.built();
            // A deferred task's first write creates it, at version 1: nobody can have
            // subscribed to a task the store does not hold.
            match cur.stored {
                Stored::Yes => {}
                Stored::Refused(_) => {
                    restore(&mut cur)?;
                    return Err(StoreError::NotFound(self.id.clone()).into());
                }
                Stored::Not => {
                    let created = self.store.create(&row).await;
                    if let Err(e) = self.created(&mut cur, created) {
                        restore(&mut cur)?;
                        return Err(e.into());
                    }
                    self.written(&mut cur, row, was_terminal);
                    return Ok(());
                }
            }
            row.version += i64::try_from(built.len().max(1)).unwrap_or(1);
            match self.store.update(&row, built).await {
                Ok(()) => {
                    // A subscriber that arrived after `attempt.emit` was decided may have read the
                    // task before this write: tell it to read again.
                    if matches!(event, Event::Skipped) && self.store.hub().has_subscribers(&self.id)
                    {
                        let version = row.version;
                        self.store
                            .hub()
                            .publish(&self.id, skillgate_store::HubEvent::Resync { version });
                    }
                    self.written(&mut cur, row, was_terminal);
                    return Ok(());
                }
                Err(StoreError::Conflict(_)) => self.reload(&mut cur).await?,
                Err(e) => {
                    restore(&mut cur)?;
                    return Err(e.into());
                }
            }
        }
        Err(StoreError::Conflict(self.id.clone()).into())
    }

    /// After a stored change: the handle holds `row`; a task that just ended is counted and
    /// its waiters woken.
    fn written(&self, cur: &mut Current, row: TaskRow, was_terminal: bool) {
        cur.row = row;
        let state = cur.task.status.state;
        if state.is_terminal() {
            if !was_terminal {
                // The one place a task's end is counted: whichever path wrote it.
                self.metrics.task_ended(state);
            }
            self.done.send_replace(true);
        }
    }

    /// Takes the next turn of an interrupted plain task: checks the state, appends the
    /// follow-up (with the task's context id) to the history and marks the turn taken in one
    /// versioned write, so of two concurrent follow-ups (on any replicas) exactly one
    /// continues the task.
    pub(crate) async fn take_turn(&self, m: Message) -> Result<Message, Refused> {
        let mut out = None;
        self.change(|task, flags, _| {
            let state = task.status.state;
            if !state.is_interrupted() || !flags.plain {
                return Err(Refused::Turn(TurnRefused::NotWaiting(state)));
            }
            if flags.turn_taken {
                return Err(Refused::Turn(TurnRefused::Taken));
            }
            flags.turn_taken = true;
            let mut m = m.clone();
            m.context_id = task.context_id.clone();
            task.history.push(m.clone());
            out = Some(m);
            Ok(Event::None)
        })
        .await?;
        out.ok_or(Refused::Terminal(TaskState::Unspecified))
    }

    /// Gives the turn back when a follow-up's steps ended without moving the task on.
    pub(crate) async fn release_turn(&self) {
        let _ = self
            .change(|_, flags, _| {
                flags.turn_taken = false;
                Ok(Event::None)
            })
            .await;
    }

    /// Moves to a new state unless already terminal.
    pub(crate) async fn set_status(
        &self,
        state: TaskState,
        message: Option<Message>,
    ) -> Result<(), Refused> {
        self.finish(Vec::new(), state, message).await
    }

    /// Adds an artifact (or, with `append`, extends the parts of the artifact with the same
    /// id) unless the task is terminal or would exceed its byte budget.
    pub(crate) async fn add_artifact(
        &self,
        artifact: Artifact,
        append: bool,
        last_chunk: bool,
    ) -> Result<(), Refused> {
        self.change(|task, _, attempt| {
            let current = task.status.state;
            if current.is_terminal() {
                return Err(Refused::Terminal(current));
            }
            let ev = Event::of(attempt.emit, || {
                artifact_update(task, &artifact, append, last_chunk)
            });
            // A2A 1.0: append extends the artifact with this id; otherwise it is replaced.
            task.apply_artifact_update(artifact.clone(), append);
            Ok(ev)
        })
        .await
    }

    /// Adds `artifacts` (each a new, complete artifact) and moves to `state` in one write, so
    /// a finishing task commits once. Refused without writing when the task is terminal or
    /// the result would exceed its byte budget. Subscribers receive one artifact update per
    /// artifact, in order, then the status update.
    pub(crate) async fn finish(
        &self,
        mut artifacts: Vec<Artifact>,
        state: TaskState,
        message: Option<Message>,
    ) -> Result<(), Refused> {
        self.change(|task, flags, attempt| {
            let current = task.status.state;
            if current.is_terminal() {
                return Err(Refused::Terminal(current));
            }
            let emit = attempt.emit;
            let mut events = Vec::with_capacity(if emit { artifacts.len() + 1 } else { 0 });
            // Moved into the task when this attempt is the last one (a copy and a drop of
            // each artifact were a twentieth of an evaluate's instructions); copied otherwise.
            let given = if attempt.may_retry {
                artifacts.clone()
            } else {
                std::mem::take(&mut artifacts)
            };
            for artifact in given {
                if emit {
                    events.push(artifact_update(task, &artifact, false, true));
                }
                // Announced with append: false, so applied as a replacement too.
                task.apply_artifact_update(artifact, false);
            }
            let status = TaskStatus {
                state,
                message: message.clone(),
                timestamp: Some(skillgate_a2a::timestamp::now_rfc3339()),
            };
            task.status = status.clone();
            flags.turn_taken = false;
            if !emit {
                return Ok(Event::Skipped);
            }
            events.push(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                status,
                metadata: None,
            }));
            Ok(Event::Many(events))
        })
        .await
    }

    /// The next event for a reader of this task that has seen every version up to `seen`
    /// (advanced here). When the reader missed events (it lagged, or an event was too large to
    /// pass between replicas) the answer is the whole stored task instead, re-read. `None`
    /// when the subscription is closed or the task cannot be re-read. The one reading loop of
    /// SubscribeToTask streams and push delivery.
    pub(crate) async fn next_event(
        &self,
        events: &mut Subscription,
        seen: &mut i64,
    ) -> Option<StreamResponse> {
        loop {
            match events.recv().await {
                Ok(HubEvent::Event { version, event }) => {
                    if version <= *seen {
                        continue;
                    }
                    *seen = version;
                    return Some(event);
                }
                Ok(HubEvent::Resync { version }) if version <= *seen => continue,
                Ok(HubEvent::Resync { .. }) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    self.refresh().await.ok()?;
                    let (task, version) = self.versioned().await;
                    *seen = version;
                    return Some(StreamResponse::Task(task));
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// A subscription to later events plus the task as of subscribing (events at or below
    /// its version are already reflected in it).
    pub(crate) async fn subscribe(&self) -> (Task, i64, Subscription) {
        let sub = self.store.hub().subscribe(&self.id);
        let cur = self.current.lock().await;
        (Task::clone(&cur.task), cur.row.version, sub)
    }

    /// Waits until the task is terminal here or the timeout passes.
    pub(crate) async fn wait_done(&self, timeout: Duration) {
        let mut rx = self.done.subscribe();
        let _ = tokio::time::timeout(timeout, rx.wait_for(|d| *d)).await;
    }

    /// The store the task lives in.
    pub(crate) fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }
}

/// The event announcing `artifact` on `task`.
/// Puts the cached task back to what the store holds after a change that was not stored.
fn restore(cur: &mut Current) -> Result<(), StoreError> {
    cur.task = cur.row.shared_task()?;
    Ok(())
}

fn artifact_update(
    task: &Task,
    artifact: &Artifact,
    append: bool,
    last_chunk: bool,
) -> StreamResponse {
    StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        artifact: artifact.clone(),
        append,
        last_chunk,
        metadata: None,
    })
}

#[cfg(test)]
mod tests;

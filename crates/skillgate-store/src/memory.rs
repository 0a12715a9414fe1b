//! The in-memory store: rows in a map, a list index ordered by update time, and exact byte
//! accounting so the whole store stays within its budget. Rows keep the typed Task they were
//! given ([`TaskRow::typed`]): a read hands the same `Arc` back, nothing is parsed or serialized.
//! Finished tasks stay typed only while they are among the most recent ones (a window of
//! [`TYPED_SHARE`] of the budget); older ones are kept as their compact JSON, which a typed
//! Task outweighs several times (its `Value` trees), so the process's memory follows the budget.

use crate::hub::{EventHub, HubEvent};
use crate::row::{now_ms, ListPage, ListQuery, StoreLimits, TaskRow};
use crate::{expected_version, versioned_events, PushRegistration, StoreError, TaskStore};
use async_trait::async_trait;
use skillgate_a2a::StreamResponse;
use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

/// The share of the budget (1/n) that finished tasks may take as typed Tasks; beyond it the
/// oldest are kept as JSON. Measured (docs/benchmarks.md): a finished evaluate task held typed
/// takes about five times its JSON length, so at the default 16 MiB budget a store of typed
/// tasks alone held about 70 MiB.
const TYPED_SHARE: u64 = 32;

#[derive(Default)]
struct Inner {
    rows: HashMap<String, TaskRow>,
    /// List order: newest status first, ties by id.
    by_update: BTreeSet<(Reverse<i64>, String)>,
    /// Eviction order: oldest finish first.
    finished: BTreeSet<(i64, String)>,
    /// Unfinished tasks per owner ("" for anonymous).
    unfinished: HashMap<String, usize>,
    used: u64,
    /// Push notification configs by task, oldest first; removed with their task.
    push: HashMap<String, Vec<PushRegistration>>,
    /// Finished typed rows that [`TaskRow::compacts`], oldest first (ids of rows since removed
    /// or compacted are skipped when they come up), and their JSON bytes.
    typed: VecDeque<String>,
    typed_bytes: u64,
}

fn owner_key(row: &TaskRow) -> &str {
    row.owner.as_deref().unwrap_or("")
}

impl Inner {
    fn add(&mut self, row: TaskRow) {
        self.used += row.size();
        if row.finished_ms.is_some() && row.compacts() {
            self.typed_bytes += row.body_len();
            self.typed.push_back(row.id.clone());
        }
        self.by_update
            .insert((Reverse(row.updated_ms), row.id.clone()));
        match row.finished_ms {
            Some(f) => {
                self.finished.insert((f, row.id.clone()));
            }
            None => {
                *self
                    .unfinished
                    .entry(owner_key(&row).to_string())
                    .or_default() += 1
            }
        }
        self.rows.insert(row.id.clone(), row);
    }

    fn remove(&mut self, id: &str) -> Option<TaskRow> {
        let row = self.rows.remove(id)?;
        self.used -= row.size();
        if row.finished_ms.is_some() && row.compacts() {
            self.typed_bytes -= row.body_len();
        }
        self.by_update
            .remove(&(Reverse(row.updated_ms), row.id.clone()));
        match row.finished_ms {
            Some(f) => {
                self.finished.remove(&(f, row.id.clone()));
            }
            None => {
                let key = owner_key(&row);
                if let Some(n) = self.unfinished.get_mut(key) {
                    *n -= 1;
                    if *n == 0 {
                        self.unfinished.remove(key);
                    }
                }
            }
        }
        Some(row)
    }

    /// Deletes a task for good (purge, eviction): its push configs go with it. An update
    /// only takes the row out to put it back ([`Inner::remove`]), keeping them.
    fn delete(&mut self, id: &str) {
        self.remove(id);
        self.push.remove(id);
    }

    /// Keeps the oldest finished typed rows as JSON until those left typed take at most
    /// `window` bytes (and drops ids of rows that are gone, so the queue stays bounded).
    fn compact(&mut self, window: u64) {
        while self.typed_bytes > window || self.typed.len() > self.rows.len() {
            let Some(id) = self.typed.pop_front() else {
                return;
            };
            if let Some(row) = self.rows.get_mut(&id) {
                if row.finished_ms.is_some() && row.compacts() {
                    self.typed_bytes -= row.body_len();
                    row.compact();
                }
            }
        }
    }

    /// Evicts the oldest finished tasks until `extra` more bytes fit in `budget`.
    fn make_room(&mut self, extra: u64, budget: u64) -> bool {
        while self.used + extra > budget {
            let Some((_, id)) = self.finished.first().cloned() else {
                return false;
            };
            self.delete(&id);
        }
        true
    }
}

/// Tasks in process memory, bounded by bytes; lost when the process exits.
#[derive(Debug)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
    hub: Arc<EventHub>,
    limits: StoreLimits,
    replica: String,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner")
            .field("rows", &self.rows.len())
            .field("used", &self.used)
            .finish()
    }
}

impl MemoryStore {
    /// An empty store with these bounds.
    pub fn new(limits: StoreLimits) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            hub: EventHub::new(),
            limits,
            replica: uuid::Uuid::new_v4().to_string(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Number of tasks held.
    pub fn len(&self) -> usize {
        self.lock().rows.len()
    }

    /// Whether no task is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn matches(row: &TaskRow, q: &ListQuery) -> bool {
    (row.owner.is_none() || row.owner == q.caller)
        && q.context_id.as_ref().is_none_or(|c| *c == row.context_id)
        && q.state.is_none_or(|s| s == row.state)
        && q.updated_after_ms.is_none_or(|t| row.updated_ms > t)
}

#[async_trait]
impl TaskStore for MemoryStore {
    fn describe(&self) -> String {
        format!("memory (budget {} bytes)", self.limits.max_bytes)
    }

    fn hub(&self) -> &Arc<EventHub> {
        &self.hub
    }

    fn limits(&self) -> &StoreLimits {
        &self.limits
    }

    fn replica(&self) -> &str {
        &self.replica
    }

    fn keeps_typed_tasks(&self) -> bool {
        true
    }

    async fn create(&self, row: &TaskRow) -> Result<(), StoreError> {
        let mut s = self.lock();
        if s.rows.contains_key(&row.id) {
            return Err(StoreError::Conflict(row.id.clone()));
        }
        let held = s.unfinished.get(owner_key(row)).copied().unwrap_or(0);
        self.limits.admit_running(row, held)?;
        if !s.make_room(row.size(), self.limits.max_bytes) {
            return Err(StoreError::Full {
                used: s.used,
                budget: self.limits.max_bytes,
            });
        }
        s.add(row.clone());
        s.compact(self.limits.max_bytes / TYPED_SHARE);
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Option<TaskRow>, StoreError> {
        Ok(self.lock().rows.get(id).cloned())
    }

    async fn update(&self, row: &TaskRow, events: &[StreamResponse]) -> Result<(), StoreError> {
        let mut s = self.lock();
        let Some(old) = s.rows.get(&row.id) else {
            return Err(StoreError::NotFound(row.id.clone()));
        };
        if old.version != expected_version(row, events.len()) {
            return Err(StoreError::Conflict(row.id.clone()));
        }
        s.remove(&row.id);
        let grow = row.size();
        // A growing task may push finished ones out; it is never refused here (the
        // runtime keeps each task within its own budget).
        s.make_room(grow, self.limits.max_bytes);
        s.add(row.clone());
        s.compact(self.limits.max_bytes / TYPED_SHARE);
        // Published under the store lock, so concurrent writers of a task publish in version
        // order (subscribers drop anything not newer than what they have seen).
        for (version, ev) in versioned_events(row, events) {
            self.hub.publish(
                &row.id,
                HubEvent::Event {
                    version,
                    event: ev.clone(),
                },
            );
        }
        drop(s);
        Ok(())
    }

    async fn list(&self, q: &ListQuery) -> Result<ListPage, StoreError> {
        let s = self.lock();
        let mut total = 0u64;
        let mut rows = Vec::new();
        for (_, id) in &s.by_update {
            let Some(row) = s.rows.get(id) else { continue };
            if !matches(row, q) {
                continue;
            }
            if total >= q.offset && rows.len() < q.limit as usize {
                rows.push(row.clone());
            }
            total += 1;
        }
        Ok(ListPage { rows, total })
    }

    async fn renew_leases(&self, _ids: &[String]) -> Result<(), StoreError> {
        Ok(())
    }

    async fn put_push_config(
        &self,
        registration: &PushRegistration,
        max: usize,
    ) -> Result<(), StoreError> {
        let config = &registration.config;
        let mut s = self.lock();
        if !s.rows.contains_key(&config.task_id) {
            return Err(StoreError::NotFound(config.task_id.clone()));
        }
        let list = s.push.entry(config.task_id.clone()).or_default();
        if let Some(old) = list.iter_mut().find(|c| c.config.id == config.id) {
            *old = registration.clone();
            return Ok(());
        }
        if list.len() >= max {
            return Err(StoreError::PushConfigLimit {
                task: config.task_id.clone(),
                max,
            });
        }
        list.push(registration.clone());
        Ok(())
    }

    async fn push_configs(&self, task_id: &str) -> Result<Vec<PushRegistration>, StoreError> {
        Ok(self.lock().push.get(task_id).cloned().unwrap_or_default())
    }

    async fn delete_push_config(&self, task_id: &str, id: &str) -> Result<bool, StoreError> {
        let mut s = self.lock();
        let Some(list) = s.push.get_mut(task_id) else {
            return Ok(false);
        };
        let before = list.len();
        list.retain(|c| c.config.id != id);
        let found = list.len() < before;
        if list.is_empty() {
            s.push.remove(task_id);
        }
        Ok(found)
    }

    async fn stale(&self, limit: usize) -> Result<Vec<TaskRow>, StoreError> {
        let cutoff = now_ms().saturating_sub(self.limits.interrupted_ms());
        Ok(self
            .lock()
            .rows
            .values()
            .filter(|r| r.state.is_interrupted() && r.updated_ms < cutoff)
            .take(limit)
            .cloned()
            .collect())
    }

    async fn purge(&self) -> Result<u64, StoreError> {
        let cutoff = now_ms().saturating_sub(self.limits.retention_ms());
        let mut s = self.lock();
        let old: Vec<String> = s
            .finished
            .iter()
            .take_while(|(f, _)| *f < cutoff)
            .map(|(_, id)| id.clone())
            .collect();
        for id in &old {
            s.delete(id);
        }
        Ok(old.len() as u64)
    }

    async fn used_bytes(&self) -> Result<u64, StoreError> {
        Ok(self.lock().used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillgate_a2a::{Artifact, Part, SharedJson, Task, TaskState};

    fn finished(id: &str, part: Part) -> Arc<Task> {
        let mut t = Task {
            id: id.into(),
            context_id: "c".into(),
            ..Default::default()
        };
        t.status.state = TaskState::Completed;
        t.status.timestamp = Some("2026-12-04T10:00:00.000Z".into());
        t.artifacts.push(Artifact {
            artifact_id: "a".into(),
            parts: vec![part],
            ..Default::default()
        });
        Arc::new(t)
    }

    #[tokio::test]
    async fn old_finished_tasks_are_kept_as_json_and_read_back_the_same() {
        let limits = StoreLimits {
            max_bytes: 64 * 1024,
            ..StoreLimits::memory()
        };
        let s = MemoryStore::new(limits);
        let doc = SharedJson::new(serde_json::json!({"doc": "d".repeat(2000)}));
        let mut tasks = Vec::new();
        for i in 0..40 {
            let t = finished(
                &format!("t{i:02}"),
                Part::data(serde_json::json!({"n": i, "pad": "p".repeat(300)})),
            );
            s.create(&TaskRow::typed(Arc::clone(&t), None, Default::default()))
                .await
                .unwrap();
            tasks.push(t);
        }
        let shared = finished("shared", Part::shared_data(doc));
        s.create(&TaskRow::typed(
            Arc::clone(&shared),
            None,
            Default::default(),
        ))
        .await
        .unwrap();
        let mut typed = 0;
        for t in &tasks {
            let row = s.get(&t.id).await.unwrap().unwrap();
            let back = row.shared_task().unwrap();
            assert_eq!(*back, **t, "{}", t.id);
            assert_eq!(
                row.body().as_ref(),
                serde_json::to_vec(&**t).unwrap().as_slice()
            );
            if Arc::ptr_eq(&back, t) {
                typed += 1;
            }
        }
        // The window (1/32 of 64 KiB) holds the newest few; the oldest are JSON.
        assert!(typed > 0 && typed < 10, "{typed} of 40 still typed");
        let oldest = s.get("t00").await.unwrap().unwrap();
        assert!(!Arc::ptr_eq(&oldest.shared_task().unwrap(), &tasks[0]));
        // A task whose bulk is shared text stays typed (its JSON would be a copy).
        let row = s.get("shared").await.unwrap().unwrap();
        assert!(Arc::ptr_eq(&row.shared_task().unwrap(), &shared));
        let inner = s.lock();
        assert!(inner.typed_bytes <= 64 * 1024 / TYPED_SHARE);
        assert!(inner.typed.len() <= inner.rows.len());
    }
}

//! The SQLite store's writer: creates and updates of a batch in one transaction on the store's
//! one connection (see [`crate::group`]).
//!
//! Refusals are decided before anything is written, so a refused write leaves nothing behind
//! in the shared transaction; the one write that may change rows before it is refused (a
//! create that evicts finished tasks and still does not fit) does so inside a savepoint it
//! rolls back.

use super::{make_room, Stmt};
use crate::group::{Committer, Gate, Write};
use crate::hub::{EventHub, HubEvent};
use crate::row::{StoreLimits, TaskRow};
use crate::sql::{to_i64, to_u64};
use crate::{expected_version, versioned_events, StoreError};
use async_trait::async_trait;
use sqlx::sqlite::SqliteConnection;
use sqlx::{Connection, QueryBuilder, Sqlite};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tokio::sync::Mutex;

/// The writer task's state: the store's connection (shared with readers) and what a write
/// needs to check and publish.
pub(super) struct Writer {
    pub(super) conn: Arc<Mutex<SqliteConnection>>,
    pub(super) hub: Arc<EventHub>,
    pub(super) limits: StoreLimits,
    pub(super) replica: String,
}

#[async_trait]
impl Committer for Writer {
    async fn commit(
        &mut self,
        batch: &[&Write],
        gate: &Gate,
    ) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let mut conn = self.conn.lock().await;
        let mut tx = conn.begin().await?;
        let mut outcomes: Vec<Result<(), StoreError>> = Vec::with_capacity(batch.len());
        outcomes.resize_with(batch.len(), || Ok(()));
        // Updates first, then creates: the writes of one batch come from callers that did
        // not wait for each other, so any order is one they could have had; a task's update
        // never shares a batch with its create (its caller waited for the create's commit).
        self.updates(&mut tx, batch, &mut outcomes).await?;
        self.creates(&mut tx, batch, &mut outcomes).await?;
        gate.pass().await;
        tx.commit().await?;
        Ok(outcomes)
    }

    fn committed(&self, write: &Write) {
        // The writer is the only publisher of updates and runs one batch at a time, so events
        // leave in commit order, after their commit, before their writer resumes.
        if let Write::Update(row, events) = write {
            for (version, ev) in versioned_events(row, events) {
                self.hub.publish(
                    &row.id,
                    HubEvent::Event {
                        version,
                        event: ev.clone(),
                    },
                );
            }
        }
    }
}

/// What the creates of a batch are checked against, read in one statement: the ids already
/// taken, the unfinished tasks each creating caller holds, and the bytes held.
#[derive(Debug, Default)]
struct CreateView {
    taken: HashSet<String>,
    held: HashMap<Option<String>, usize>,
    used: i64,
}

impl Writer {
    /// Every update of the batch in one statement (one round trip to the connection's
    /// worker thread instead of one per update); an update that changed no row is a conflict
    /// or a vanished task, told apart by one more query. A second update of the same task in
    /// one batch (two writers racing) is applied after the first, on its own, so the first
    /// in batch order wins as it would alone.
    async fn updates(
        &self,
        tx: &mut SqliteConnection,
        batch: &[&Write],
        outcomes: &mut [Result<(), StoreError>],
    ) -> Result<(), StoreError> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut first: Vec<(usize, &TaskRow, i64)> = Vec::new();
        let mut again: Vec<(usize, &TaskRow, i64)> = Vec::new();
        for (i, w) in batch.iter().enumerate() {
            if let Write::Update(row, events) = w {
                let expected = expected_version(row, events.len());
                if seen.insert(&row.id) {
                    first.push((i, row, expected));
                } else {
                    again.push((i, row, expected));
                }
            }
        }
        if first.is_empty() {
            return Ok(());
        }
        let rows: Vec<(&TaskRow, i64)> = first.iter().map(|(_, r, e)| (*r, *e)).collect();
        let changed =
            changed_ids(tx, Stmt::update_many(&rows, &self.replica, &self.limits)).await?;
        let mut updated: Vec<&str> = Vec::with_capacity(first.len() + again.len());
        let mut missed: Vec<(usize, &TaskRow)> = Vec::new();
        for (i, row, _) in &first {
            if changed.contains(row.id.as_str()) {
                updated.push(&row.id);
            } else {
                missed.push((*i, row));
            }
        }
        for (i, row, expected) in &again {
            let one = Stmt::update(row, *expected, &self.replica, &self.limits)
                .build()
                .execute(&mut *tx)
                .await?;
            if one.rows_affected() > 0 {
                updated.push(&row.id);
            } else {
                missed.push((*i, row));
            }
        }
        let ids: Vec<&str> = missed.iter().map(|(_, r)| r.id.as_str()).collect();
        let present = present_ids(tx, &ids).await?;
        for (i, row) in missed {
            outcomes[i] = Err(if present.contains(row.id.as_str()) {
                StoreError::Conflict(row.id.clone())
            } else {
                StoreError::NotFound(row.id.clone())
            });
        }
        if !updated.is_empty() {
            // Growing tasks may push finished ones out (never one just updated); an update is
            // never refused for it (the runtime keeps each task within its own budget). Once
            // per batch: one usage check instead of one per update.
            make_room(tx, 0, self.limits.budget(), &updated).await?;
        }
        Ok(())
    }

    /// Every create of the batch: checked in batch order against one read of what they
    /// depend on (refused on a taken id, the caller's limit or a full store, in that order),
    /// the admitted ones inserted by one string of statements. A create that needs finished
    /// tasks evicted first takes the one-at-a-time path, as does every create after it.
    async fn creates(
        &self,
        tx: &mut SqliteConnection,
        batch: &[&Write],
        outcomes: &mut [Result<(), StoreError>],
    ) -> Result<(), StoreError> {
        let creates: Vec<(usize, &TaskRow)> = batch
            .iter()
            .enumerate()
            .filter_map(|(i, w)| match w {
                Write::Create(row) => Some((i, row)),
                Write::Update(..) => None,
            })
            .collect();
        if creates.is_empty() {
            return Ok(());
        }
        let mut view = create_view(tx, &creates).await?;
        let budget = self.limits.budget();
        let mut admitted: Vec<(usize, &TaskRow)> = Vec::with_capacity(creates.len());
        let mut rest = creates.len();
        for (n, (i, row)) in creates.iter().enumerate() {
            if view.taken.contains(&row.id) {
                outcomes[*i] = Err(StoreError::Conflict(row.id.clone()));
                continue;
            }
            let held = view.held.entry(row.owner.clone()).or_insert(0);
            if let Err(e) = self.limits.admit_running(row, *held) {
                outcomes[*i] = Err(e);
                continue;
            }
            let size = to_i64(row.size());
            if view.used.saturating_add(size) > budget {
                rest = n;
                break;
            }
            view.used = view.used.saturating_add(size);
            view.taken.insert(row.id.clone());
            if row.finished_ms.is_none() {
                *held += 1;
            }
            admitted.push((*i, row));
        }
        self.insert_all(tx, &admitted, outcomes).await?;
        for (i, row) in creates.iter().skip(rest) {
            outcomes[*i] = self.create(tx, row).await?;
        }
        Ok(())
    }

    /// Inserts the admitted creates (distinct ids, none taken) in one statement; one that
    /// did not go in lost its id to a write outside the batch's view (none exists while the
    /// writer holds the connection, but the statement says so rather than assume it).
    async fn insert_all(
        &self,
        tx: &mut SqliteConnection,
        admitted: &[(usize, &TaskRow)],
        outcomes: &mut [Result<(), StoreError>],
    ) -> Result<(), StoreError> {
        if admitted.is_empty() {
            return Ok(());
        }
        let rows: Vec<&TaskRow> = admitted.iter().map(|(_, r)| *r).collect();
        let inserted =
            changed_ids(tx, Stmt::insert_many(&rows, &self.replica, &self.limits)).await?;
        for (i, row) in admitted {
            if !inserted.contains(row.id.as_str()) {
                outcomes[*i] = Err(StoreError::Conflict(row.id.clone()));
            }
        }
        Ok(())
    }

    /// One create on its own, checks included: the path of a create that needs finished
    /// tasks evicted (inside a savepoint, undone if it still does not fit).
    async fn create(
        &self,
        tx: &mut SqliteConnection,
        row: &TaskRow,
    ) -> Result<Result<(), StoreError>, StoreError> {
        let view = create_view(tx, &[(0, row)]).await?;
        if view.taken.contains(&row.id) {
            return Ok(Err(StoreError::Conflict(row.id.clone())));
        }
        let held = view.held.get(&row.owner).copied().unwrap_or(0);
        if let Err(e) = self.limits.admit_running(row, held) {
            return Ok(Err(e));
        }
        let size = to_i64(row.size());
        let budget = self.limits.budget();
        if view.used.saturating_add(size) > budget {
            // Evictions are undone if the task still does not fit: nothing is lost for a
            // task that is refused anyway.
            let mut sp = Connection::begin(&mut *tx).await?;
            let (fits, used, _) = make_room(&mut sp, size, budget, &[]).await?;
            if !fits {
                sp.rollback().await?;
                return Ok(Err(StoreError::Full {
                    used: to_u64(used),
                    budget: self.limits.max_bytes,
                }));
            }
            sp.commit().await?;
        }
        let done = Stmt::insert(row, &self.replica, &self.limits)
            .build()
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Ok(Err(StoreError::Conflict(row.id.clone())));
        }
        Ok(Ok(()))
    }
}

/// Runs a statement built by `qb` that returns task ids and collects them. Not kept in the
/// statement cache: a batch's statement differs with its size, and each cached text would
/// hold a prepared statement of its own.
async fn changed_ids(
    tx: &mut SqliteConnection,
    mut qb: QueryBuilder<'_, Sqlite>,
) -> Result<HashSet<String>, sqlx::Error> {
    let rows: Vec<(String,)> = qb
        .build_query_as()
        .persistent(false)
        .fetch_all(&mut *tx)
        .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// Which of `ids` are stored (one query, none when `ids` is empty).
async fn present_ids(
    tx: &mut SqliteConnection,
    ids: &[&str],
) -> Result<HashSet<String>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(HashSet::new());
    }
    let mut qb = QueryBuilder::<Sqlite>::new("SELECT id FROM tasks WHERE id IN (");
    let mut list = qb.separated(", ");
    for id in ids {
        list.push_bind(*id);
    }
    qb.push(")");
    let rows: Vec<(String,)> = qb
        .build_query_as()
        .persistent(false)
        .fetch_all(&mut *tx)
        .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// Reads what `creates` are checked against in one statement: which of their ids are taken,
/// how many unfinished tasks each of their callers holds, and the bytes held.
async fn create_view(
    tx: &mut SqliteConnection,
    creates: &[(usize, &TaskRow)],
) -> Result<CreateView, sqlx::Error> {
    let mut qb = QueryBuilder::<Sqlite>::new("SELECT 0, id, 0 FROM tasks WHERE id IN (");
    let mut ids = qb.separated(", ");
    for (_, row) in creates {
        ids.push_bind(row.id.as_str());
    }
    qb.push(") UNION ALL SELECT 1, owner, COUNT(*) FROM tasks WHERE finished_ms IS NULL AND (");
    let owners: HashSet<Option<&str>> = creates.iter().map(|(_, r)| r.owner.as_deref()).collect();
    let mut first = true;
    for owner in &owners {
        if !first {
            qb.push(" OR ");
        }
        first = false;
        qb.push("owner IS ").push_bind(*owner);
    }
    qb.push(
        ") GROUP BY owner UNION ALL SELECT 2, NULL, COALESCE(SUM(used), 0) FROM skillgate_usage",
    );
    // Not cached: the text differs with the number of ids and callers.
    let rows: Vec<(i64, Option<String>, i64)> = qb
        .build_query_as()
        .persistent(false)
        .fetch_all(&mut *tx)
        .await?;
    let mut view = CreateView::default();
    for (kind, key, n) in rows {
        match (kind, key) {
            (0, Some(id)) => {
                view.taken.insert(id);
            }
            (1, owner) => {
                view.held
                    .insert(owner, usize::try_from(n).unwrap_or(usize::MAX));
            }
            _ => view.used = n,
        }
    }
    Ok(view)
}

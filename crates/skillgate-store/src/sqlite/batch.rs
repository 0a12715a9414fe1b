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
use crate::sql::plan::{admit_creates, keep_prepared, CreateView, Plan};
use crate::sql::{to_i64, to_u64};
use crate::{versioned_events, StoreError};
use async_trait::async_trait;
use sqlx::sqlite::SqliteConnection;
use sqlx::{Connection, QueryBuilder, Sqlite};
use std::collections::HashSet;
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
        let plan = Plan::of(batch);
        self.updates(&mut tx, &plan, &mut outcomes).await?;
        self.creates(&mut tx, &plan, &mut outcomes).await?;
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

impl Writer {
    /// The plan's updates: one statement (one round trip to the connection's worker thread
    /// instead of one per update), then the repeated ones alone; an update that changed no
    /// row is a conflict or a vanished task, told apart by one more query.
    async fn updates(
        &self,
        tx: &mut SqliteConnection,
        plan: &Plan<'_>,
        outcomes: &mut [Result<(), StoreError>],
    ) -> Result<(), StoreError> {
        if plan.updates.is_empty() {
            return Ok(());
        }
        let rows: Vec<(&TaskRow, i64)> = plan.updates.iter().map(|(_, r, e)| (*r, *e)).collect();
        let changed = ids(
            tx,
            Stmt::update_many(&rows, &self.replica, &self.limits),
            rows.len(),
        )
        .await?;
        let mut updated: Vec<&str> = Vec::with_capacity(rows.len() + plan.again.len());
        let mut missed: Vec<(usize, &TaskRow)> = Vec::new();
        for (i, row, _) in &plan.updates {
            if changed.contains(row.id.as_str()) {
                updated.push(&row.id);
            } else {
                missed.push((*i, row));
            }
        }
        for (i, row, expected) in &plan.again {
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
        if !missed.is_empty() {
            let mut qb = QueryBuilder::<Sqlite>::new("SELECT id FROM tasks WHERE id IN (");
            let mut list = qb.separated(", ");
            for (_, row) in &missed {
                list.push_bind(row.id.as_str());
            }
            qb.push(")");
            let present = ids(tx, qb, missed.len()).await?;
            for (i, row) in missed {
                outcomes[i] = Err(if present.contains(row.id.as_str()) {
                    StoreError::Conflict(row.id.clone())
                } else {
                    StoreError::NotFound(row.id.clone())
                });
            }
        }
        if !updated.is_empty() {
            // Growing tasks may push finished ones out (never one just updated); an update is
            // never refused for it (the runtime keeps each task within its own budget). Once
            // per batch: one usage check instead of one per update.
            make_room(tx, 0, self.limits.budget(), &updated).await?;
        }
        Ok(())
    }

    /// The plan's creates: checked against one read, the admitted ones inserted by one
    /// statement; a create that needs finished tasks evicted first takes the one-at-a-time
    /// path, as does every create after it.
    async fn creates(
        &self,
        tx: &mut SqliteConnection,
        plan: &Plan<'_>,
        outcomes: &mut [Result<(), StoreError>],
    ) -> Result<(), StoreError> {
        if plan.creates.is_empty() {
            return Ok(());
        }
        let rows: Vec<&TaskRow> = plan.creates.iter().map(|(_, r)| *r).collect();
        let mut view = self.view(tx, &rows).await?;
        let (admitted, rest) = admit_creates(&mut view, &plan.creates, &self.limits, outcomes);
        if !admitted.is_empty() {
            let rows: Vec<&TaskRow> = admitted.iter().map(|(_, r)| *r).collect();
            let inserted = ids(
                tx,
                Stmt::insert_many(&rows, &self.replica, &self.limits),
                rows.len(),
            )
            .await?;
            for (i, row) in &admitted {
                // Nothing else writes while the writer holds the connection, so an id the
                // view did not show as taken goes in; the statement says so rather than
                // assume it.
                if !inserted.contains(row.id.as_str()) {
                    outcomes[*i] = Err(StoreError::Conflict(row.id.clone()));
                }
            }
        }
        for (i, row) in plan.creates.iter().skip(rest) {
            outcomes[*i] = self.create(tx, row).await?;
        }
        Ok(())
    }

    /// The create view of `rows` on this connection.
    async fn view(
        &self,
        tx: &mut SqliteConnection,
        rows: &[&TaskRow],
    ) -> Result<CreateView, sqlx::Error> {
        let keep = keep_prepared(rows.len());
        let rows: Vec<(i64, Option<String>, i64)> = Stmt::create_view(rows)
            .build_query_as()
            .persistent(keep)
            .fetch_all(&mut *tx)
            .await?;
        Ok(CreateView::from_rows(rows))
    }

    /// One create on its own, checks included: the path of a create that needs finished
    /// tasks evicted (inside a savepoint, undone if it still does not fit).
    async fn create(
        &self,
        tx: &mut SqliteConnection,
        row: &TaskRow,
    ) -> Result<Result<(), StoreError>, StoreError> {
        let mut view = self.view(tx, &[row]).await?;
        match view.admit(row, &self.limits) {
            Err(e) => return Ok(Err(e)),
            Ok(true) => {}
            Ok(false) => {
                // Evictions are undone if the task still does not fit: nothing is lost for
                // a task that is refused anyway.
                let size = to_i64(row.size());
                let mut sp = Connection::begin(&mut *tx).await?;
                let (fits, used, _) = make_room(&mut sp, size, self.limits.budget(), &[]).await?;
                if !fits {
                    sp.rollback().await?;
                    return Ok(Err(StoreError::Full {
                        used: to_u64(used),
                        budget: self.limits.max_bytes,
                    }));
                }
                sp.commit().await?;
            }
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

/// Runs a statement over `rows` rows built by `qb` that returns task ids and collects them
/// (kept prepared only for a small batch: [`keep_prepared`]).
async fn ids(
    tx: &mut SqliteConnection,
    mut qb: QueryBuilder<'_, Sqlite>,
    rows: usize,
) -> Result<HashSet<String>, sqlx::Error> {
    let rows: Vec<(String,)> = qb
        .build_query_as()
        .persistent(keep_prepared(rows))
        .fetch_all(&mut *tx)
        .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

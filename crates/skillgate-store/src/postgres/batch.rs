//! The PostgreSQL store's writers: creates and updates of a batch in one transaction on one
//! pooled connection, with every notification of the batch sent by one statement (see
//! [`crate::group`]).
//!
//! Why batching matters more here than anywhere: a transaction that called `pg_notify` takes
//! PostgreSQL's notification-queue lock at commit and holds it until its commit record is
//! flushed, so notifying transactions commit one at a time, one flush each, across every
//! connection and replica. One transaction per batch pays that once for the whole batch.
//!
//! Refusals are decided before anything is written (a refused write leaves nothing in the
//! shared transaction); a create that evicts finished tasks and still does not fit rolls its
//! evictions back inside a savepoint. A database error aborts the whole PostgreSQL
//! transaction, and the writer then retries each write alone.

use super::{exists, make_room, Stmt, CHANNEL};
use crate::group::{Committer, Gate, Write};
use crate::row::{StoreLimits, TaskRow};
use crate::sql::plan::{admit_creates, keep_prepared, CreateView, Plan};
use crate::sql::{notify_payload, to_i64, to_u64};
use crate::{versioned_events, StoreError};
use async_trait::async_trait;
use sqlx::postgres::{PgConnection, PgPool};
use sqlx::{Connection, Postgres, QueryBuilder};
use std::collections::HashSet;

/// Notifications per statement: well under PostgreSQL's 65,535 bind parameters, and a
/// statement of bounded size.
const NOTIFY_CHUNK: usize = 256;

/// One writer lane: its pool (shared with the store's readers) and what a write needs.
pub(super) struct Writer {
    pub(super) pool: PgPool,
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
        let mut tx = self.pool.begin().await?;
        let mut outcomes: Vec<Result<(), StoreError>> = Vec::with_capacity(batch.len());
        outcomes.resize_with(batch.len(), || Ok(()));
        let plan = Plan::of(batch);
        let updated = self.updates(&mut tx, &plan, &mut outcomes).await?;
        // Each payload names its own version, so PostgreSQL never folds two of one
        // transaction into one as duplicates; in the order the updates were applied.
        let mut payloads = Vec::new();
        for i in updated {
            if let Some(Write::Update(row, events)) = batch.get(i) {
                for (version, ev) in versioned_events(row, events) {
                    payloads.push(notify_payload(&row.id, version, Some(ev)));
                }
            }
        }
        self.creates(&mut tx, &plan, &mut outcomes).await?;
        notify(&mut tx, &payloads).await?;
        gate.pass().await;
        tx.commit().await?;
        Ok(outcomes)
    }

    fn committed(&self, _write: &Write) {
        // Every replica (this one included) publishes from its listener: the notifications
        // went out at commit, in commit order.
    }
}

/// Sends `payloads` in order on the events channel: `SELECT pg_notify($1, $2), pg_notify($1,
/// $3), ...` evaluates its target list left to right, one statement per chunk instead of one
/// round trip per event. Delivered at commit, only if the transaction commits.
async fn notify(conn: &mut PgConnection, payloads: &[String]) -> Result<(), sqlx::Error> {
    for chunk in payloads.chunks(NOTIFY_CHUNK) {
        let mut qb: QueryBuilder<'_, Postgres> = QueryBuilder::new("SELECT ");
        let mut calls = qb.separated(", ");
        for p in chunk {
            calls.push("pg_notify(");
            calls.push_bind_unseparated(CHANNEL);
            calls.push_unseparated(", ");
            calls.push_bind_unseparated(p.as_str());
            calls.push_unseparated(")");
        }
        qb.build().execute(&mut *conn).await?;
    }
    Ok(())
}

impl Writer {
    /// The plan's updates: one statement (one round trip instead of one per update), then
    /// the repeated ones alone; an update that changed no row is a conflict or a vanished
    /// task, told apart by one more query. Returns the batch positions of the applied ones,
    /// in the order they were applied.
    async fn updates(
        &self,
        tx: &mut PgConnection,
        plan: &Plan<'_>,
        outcomes: &mut [Result<(), StoreError>],
    ) -> Result<Vec<usize>, StoreError> {
        if plan.updates.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<(&TaskRow, i64)> = plan.updates.iter().map(|(_, r, e)| (*r, *e)).collect();
        let changed = ids(
            tx,
            Stmt::update_many(&rows, &self.replica, &self.limits),
            rows.len(),
        )
        .await?;
        let mut applied = Vec::with_capacity(rows.len() + plan.again.len());
        let mut updated: Vec<&str> = Vec::with_capacity(applied.capacity());
        let mut missed: Vec<(usize, &TaskRow)> = Vec::new();
        for (i, row, _) in &plan.updates {
            if changed.contains(row.id.as_str()) {
                applied.push(*i);
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
                applied.push(*i);
                updated.push(&row.id);
            } else {
                missed.push((*i, row));
            }
        }
        for (i, row) in missed {
            outcomes[i] = Err(if exists(&mut *tx, &row.id).await? {
                StoreError::Conflict(row.id.clone())
            } else {
                StoreError::NotFound(row.id.clone())
            });
        }
        if !updated.is_empty() {
            // Growing tasks may push finished ones out (never one just updated); an update is
            // never refused for it. Once per batch rather than once per update.
            make_room(&mut *tx, 0, self.limits.budget(), &updated).await?;
        }
        Ok(applied)
    }

    /// The plan's creates: checked against one read, the admitted ones inserted by one
    /// statement; a create that needs finished tasks evicted first takes the one-at-a-time
    /// path, as does every create after it. The per-caller count is exact within a batch
    /// and, as before, not locked across connections (D093).
    async fn creates(
        &self,
        tx: &mut PgConnection,
        plan: &Plan<'_>,
        outcomes: &mut [Result<(), StoreError>],
    ) -> Result<(), StoreError> {
        if plan.creates.is_empty() {
            return Ok(());
        }
        let rows: Vec<&TaskRow> = plan.creates.iter().map(|(_, r)| *r).collect();
        let mut view = view(tx, &rows).await?;
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
                // Another replica may have taken the id since the view was read.
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

    /// One create on its own, checks included: the path of a create that needs finished
    /// tasks evicted (inside a savepoint, undone if it still does not fit).
    async fn create(
        &self,
        tx: &mut PgConnection,
        row: &TaskRow,
    ) -> Result<Result<(), StoreError>, StoreError> {
        let mut view = view(tx, &[row]).await?;
        match view.admit(row, &self.limits) {
            Err(e) => return Ok(Err(e)),
            Ok(true) => {}
            Ok(false) => {
                let size = to_i64(row.size());
                let mut sp = Connection::begin(&mut *tx).await?;
                let (fits, used, _) = make_room(&mut sp, size, self.limits.budget(), &[]).await?;
                if !fits {
                    // The evictions are undone for a refused task.
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

/// The create view of `rows` (kept prepared only for a small batch: [`keep_prepared`]).
async fn view(tx: &mut PgConnection, rows: &[&TaskRow]) -> Result<CreateView, sqlx::Error> {
    let keep = keep_prepared(rows.len());
    let rows: Vec<(i64, Option<String>, i64)> = Stmt::create_view(rows)
        .build_query_as()
        .persistent(keep)
        .fetch_all(&mut *tx)
        .await?;
    Ok(CreateView::from_rows(rows))
}

/// Runs a statement over `rows` rows built by `qb` that returns task ids and collects them
/// (kept prepared only for a small batch: [`keep_prepared`]).
async fn ids(
    tx: &mut PgConnection,
    mut qb: QueryBuilder<'_, Postgres>,
    rows: usize,
) -> Result<HashSet<String>, sqlx::Error> {
    let rows: Vec<(String,)> = qb
        .build_query_as()
        .persistent(keep_prepared(rows))
        .fetch_all(&mut *tx)
        .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

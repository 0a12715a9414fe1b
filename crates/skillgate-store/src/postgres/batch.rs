//! The PostgreSQL store's writers: creates and updates of a batch in one transaction on one
//! pooled connection, with every notification of the batch sent by one statement (see
//! [`crate::group`]), applied as [`Plan::apply`] says; this module executes its statements
//! and sends the notifications.
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

use super::{make_room, Stmt, CHANNEL};
use crate::group::{Committer, Gate, Write};
use crate::row::{StoreLimits, TaskRow};
use crate::sql::notify_payload;
use crate::sql::plan::{keep_prepared, BatchDb, CreateView, KnownShared, Plan};
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
    /// The shared texts this writer has committed.
    pub(super) known: KnownShared,
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
        let mut db = Db {
            tx: &mut tx,
            replica: &self.replica,
            limits: &self.limits,
        };
        let plan = Plan::of(batch);
        let missing = self.known.missing(&plan);
        let applied = plan
            .apply(&mut db, &self.limits, &missing, &mut outcomes)
            .await?;
        // Each payload names its own version, so PostgreSQL never folds two of one
        // transaction into one as duplicates; in the order the updates were applied.
        let mut payloads = Vec::new();
        for i in applied {
            if let Some(Write::Update(row, events)) = batch.get(i) {
                for (version, ev) in versioned_events(row, events) {
                    payloads.push(notify_payload(&row.id, version, Some(ev)));
                }
            }
        }
        notify(&mut tx, &payloads).await?;
        gate.pass().await;
        tx.commit().await?;
        self.known.committed(&missing);
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

/// A batch's statements on one pooled connection, inside the batch's transaction. The
/// per-caller count is exact within a batch and, as before, not locked across connections
/// (D093); an id another replica took since the view was read shows as not inserted.
struct Db<'c> {
    tx: &'c mut PgConnection,
    replica: &'c str,
    limits: &'c StoreLimits,
}

#[async_trait]
impl BatchDb for Db<'_> {
    async fn update_rows(
        &mut self,
        rows: &[(&TaskRow, i64)],
    ) -> Result<HashSet<String>, StoreError> {
        let qb = Stmt::update_many(rows, self.replica, self.limits);
        ids(self.tx, qb, rows.len()).await
    }

    async fn insert_rows(&mut self, rows: &[&TaskRow]) -> Result<HashSet<String>, StoreError> {
        let qb = Stmt::insert_many(rows, self.replica, self.limits);
        ids(self.tx, qb, rows.len()).await
    }

    async fn keep_shared(&mut self, texts: &[(&str, &str)]) -> Result<(), StoreError> {
        Stmt::keep_shared(texts)
            .build()
            .persistent(keep_prepared(texts.len()))
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    async fn present(&mut self, list: &[&str]) -> Result<HashSet<String>, StoreError> {
        ids(self.tx, Stmt::present(list), list.len()).await
    }

    async fn view(&mut self, rows: &[&TaskRow]) -> Result<CreateView, StoreError> {
        let keep = keep_prepared(rows.len());
        let rows: Vec<(i64, Option<String>, i64)> = Stmt::create_view(rows)
            .build_query_as()
            .persistent(keep)
            .fetch_all(&mut *self.tx)
            .await?;
        Ok(CreateView::from_rows(rows))
    }

    async fn make_room(&mut self, updated: &[&str]) -> Result<(), StoreError> {
        make_room(self.tx, 0, self.limits.budget(), updated).await?;
        Ok(())
    }

    async fn evict_for(&mut self, size: i64) -> Result<Option<i64>, StoreError> {
        let mut sp = Connection::begin(&mut *self.tx).await?;
        let (fits, used, _) = make_room(&mut sp, size, self.limits.budget(), &[]).await?;
        if fits {
            sp.commit().await?;
            Ok(None)
        } else {
            sp.rollback().await?;
            Ok(Some(used))
        }
    }
}

/// Runs a statement over `rows` rows built by `qb` that returns task ids and collects them
/// (kept prepared only for a small batch: [`keep_prepared`]).
async fn ids(
    tx: &mut PgConnection,
    mut qb: QueryBuilder<'_, Postgres>,
    rows: usize,
) -> Result<HashSet<String>, StoreError> {
    let rows: Vec<(String,)> = qb
        .build_query_as()
        .persistent(keep_prepared(rows))
        .fetch_all(&mut *tx)
        .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

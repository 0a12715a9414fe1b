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
use crate::sql::{notify_payload, to_i64, to_u64};
use crate::{expected_version, versioned_events, StoreError};
use async_trait::async_trait;
use sqlx::postgres::{PgConnection, PgPool};
use sqlx::{Connection, Postgres, QueryBuilder};

/// A write's own outcome inside a batch (`Ok(Err(_))`: refused), or the database error that
/// breaks the whole batch.
type Outcome = Result<Result<(), StoreError>, sqlx::Error>;

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
        let mut outcomes = Vec::with_capacity(batch.len());
        let mut updated: Vec<&str> = Vec::new();
        let mut payloads = Vec::new();
        for w in batch {
            outcomes.push(match w {
                Write::Create(row) => self.create(&mut tx, row).await?,
                Write::Update(row, events) => {
                    let o = self.update(&mut tx, row, events.len()).await?;
                    if o.is_ok() {
                        updated.push(&row.id);
                        // Each payload names its own version, so PostgreSQL never folds two
                        // of one transaction into one as duplicates.
                        for (version, ev) in versioned_events(row, events) {
                            payloads.push(notify_payload(&row.id, version, Some(ev)));
                        }
                    }
                    o
                }
            });
        }
        if !updated.is_empty() {
            // Growing tasks may push finished ones out (never one just updated); an update is
            // never refused for it. Once per batch rather than once per update.
            make_room(&mut tx, 0, self.limits.budget(), &updated).await?;
        }
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
    /// One create inside the batch: refused on a taken id, the caller's limit or a full store
    /// (in that order), else inserted. The per-caller count is exact within a batch (it sees
    /// the batch's own inserts) and, as before, not locked across connections (D093).
    async fn create(&self, tx: &mut PgConnection, row: &TaskRow) -> Outcome {
        // One round trip for the three checks; the owner test is written per case so the
        // partial index on unfinished owners applies.
        let owner_test = if row.owner.is_some() {
            "owner = $2"
        } else {
            "owner IS NULL"
        };
        let sql = format!(
            "SELECT EXISTS (SELECT 1 FROM tasks WHERE id = $1),
                (SELECT COUNT(*) FROM tasks WHERE finished_ms IS NULL AND {owner_test}),
                (SELECT COALESCE(SUM(used), 0)::BIGINT FROM skillgate_usage)"
        );
        let mut q = sqlx::query_as::<_, (bool, i64, i64)>(&sql).bind(&row.id);
        if let Some(o) = &row.owner {
            q = q.bind(o);
        }
        let (taken, held, used) = q.fetch_one(&mut *tx).await?;
        if taken {
            return Ok(Err(StoreError::Conflict(row.id.clone())));
        }
        let held = usize::try_from(held).unwrap_or(usize::MAX);
        if let Err(e) = self.limits.admit_running(row, held) {
            return Ok(Err(e));
        }
        let size = to_i64(row.size());
        let budget = self.limits.budget();
        if used.saturating_add(size) > budget {
            let mut sp = Connection::begin(&mut *tx).await?;
            let (fits, used, _) = make_room(&mut sp, size, budget, &[]).await?;
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
        let done = Stmt::insert(row, &self.replica, &self.limits)
            .build()
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Ok(Err(StoreError::Conflict(row.id.clone())));
        }
        Ok(Ok(()))
    }

    /// One versioned update inside the batch; a conflict or a vanished task changes nothing.
    async fn update(&self, tx: &mut PgConnection, row: &TaskRow, events: usize) -> Outcome {
        let expected = expected_version(row, events);
        let done = Stmt::update(row, expected, &self.replica, &self.limits)
            .build()
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Ok(Err(if exists(&mut *tx, &row.id).await? {
                StoreError::Conflict(row.id.clone())
            } else {
                StoreError::NotFound(row.id.clone())
            }));
        }
        Ok(Ok(()))
    }
}

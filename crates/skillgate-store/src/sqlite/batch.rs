//! The SQLite store's writer: creates and updates of a batch in one transaction on the store's
//! one connection (see [`crate::group`]).
//!
//! Refusals are decided before anything is written, so a refused write leaves nothing behind
//! in the shared transaction; the one write that may change rows before it is refused (a
//! create that evicts finished tasks and still does not fit) does so inside a savepoint it
//! rolls back.

use super::{exists, make_room, Stmt};
use crate::group::{Committer, Gate, Write};
use crate::hub::{EventHub, HubEvent};
use crate::row::{StoreLimits, TaskRow};
use crate::sql::{to_i64, to_u64};
use crate::{expected_version, versioned_events, StoreError};
use async_trait::async_trait;
use sqlx::sqlite::SqliteConnection;
use sqlx::Connection;
use std::sync::Arc;
use tokio::sync::Mutex;

/// A write's own outcome inside a batch (`Ok(Err(_))`: refused), or the database error that
/// breaks the whole batch.
type Outcome = Result<Result<(), StoreError>, sqlx::Error>;

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
        let mut outcomes = Vec::with_capacity(batch.len());
        let mut updated: Vec<&str> = Vec::new();
        for w in batch {
            outcomes.push(match w {
                Write::Create(row) => self.create(&mut tx, row).await?,
                Write::Update(row, events) => {
                    let o = self.update(&mut tx, row, events.len()).await?;
                    if o.is_ok() {
                        updated.push(&row.id);
                    }
                    o
                }
            });
        }
        if !updated.is_empty() {
            // Growing tasks may push finished ones out (never one just updated); an update is
            // never refused for it (the runtime keeps each task within its own budget). Once
            // per batch: one usage check instead of one per update.
            make_room(&mut tx, 0, self.limits.budget(), &updated).await?;
        }
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
    /// One create inside the batch: refused on a taken id, the caller's limit or a full store
    /// (in that order), else inserted.
    async fn create(&self, tx: &mut SqliteConnection, row: &TaskRow) -> Outcome {
        // One statement for the three checks: each statement is a round trip to the
        // connection's worker thread.
        let (taken, held, used): (i64, i64, i64) = sqlx::query_as(
            "SELECT EXISTS (SELECT 1 FROM tasks WHERE id = ?),
                (SELECT COUNT(*) FROM tasks WHERE finished_ms IS NULL AND owner IS ?),
                (SELECT COALESCE(SUM(used), 0) FROM skillgate_usage)",
        )
        .bind(&row.id)
        .bind(&row.owner)
        .fetch_one(&mut *tx)
        .await?;
        if taken != 0 {
            return Ok(Err(StoreError::Conflict(row.id.clone())));
        }
        let held = usize::try_from(held).unwrap_or(usize::MAX);
        if let Err(e) = self.limits.admit_running(row, held) {
            return Ok(Err(e));
        }
        let size = to_i64(row.size());
        let budget = self.limits.budget();
        if used.saturating_add(size) > budget {
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

    /// One versioned update inside the batch; a conflict or a vanished task changes nothing.
    async fn update(&self, tx: &mut SqliteConnection, row: &TaskRow, events: usize) -> Outcome {
        let done = Stmt::update(
            row,
            expected_version(row, events),
            &self.replica,
            &self.limits,
        )
        .build()
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 0 {
            return Ok(Err(if exists(tx, &row.id).await? {
                StoreError::Conflict(row.id.clone())
            } else {
                StoreError::NotFound(row.id.clone())
            }));
        }
        Ok(Ok(()))
    }
}

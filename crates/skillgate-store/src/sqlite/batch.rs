//! The SQLite store's writer: creates and updates of a batch in one transaction on the store's
//! one connection (see [`crate::group`]), applied as [`Plan::apply`] says; this module only
//! executes its statements.
//!
//! Refusals are decided before anything is written, so a refused write leaves nothing behind
//! in the shared transaction; the one write that may change rows before it is refused (a
//! create that evicts finished tasks and still does not fit) does so inside a savepoint it
//! rolls back.

use super::{make_room, Stmt};
use crate::group::{Committer, Gate, Write};
use crate::hub::{EventHub, HubEvent};
use crate::row::{StoreLimits, TaskRow};
use crate::sql::plan::{keep_prepared, BatchDb, CreateView, KnownShared, Plan};
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
        let mut conn = self.conn.lock().await;
        let mut tx = conn.begin().await?;
        let mut outcomes: Vec<Result<(), StoreError>> = Vec::with_capacity(batch.len());
        outcomes.resize_with(batch.len(), || Ok(()));
        let mut db = Db {
            tx: &mut tx,
            replica: &self.replica,
            limits: &self.limits,
        };
        let plan = Plan::of(batch);
        let missing = self.known.missing(&plan);
        plan.apply(&mut db, &self.limits, &missing, &mut outcomes)
            .await?;
        gate.pass().await;
        tx.commit().await?;
        self.known.committed(&missing);
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

/// A batch's statements on the store's connection, inside the batch's transaction: each is
/// one round trip to the connection's worker thread.
struct Db<'c> {
    tx: &'c mut SqliteConnection,
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
    tx: &mut SqliteConnection,
    mut qb: QueryBuilder<'_, Sqlite>,
    rows: usize,
) -> Result<HashSet<String>, StoreError> {
    let rows: Vec<(String,)> = qb
        .build_query_as()
        .persistent(keep_prepared(rows))
        .fetch_all(&mut *tx)
        .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

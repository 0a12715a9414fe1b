//! The SQLite store's writer: creates and updates of a batch in one transaction on the store's
//! one connection (see [`crate::group`]), applied as [`Plan::apply`] says; this module only
//! executes its statements.
//!
//! A batch's rows go in statements of a power-of-two number of rows, at most [`CHUNK_MAX`],
//! each kept prepared: see [`chunks`].
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
        let mut changed = HashSet::with_capacity(rows.len());
        for chunk in chunks(rows) {
            let qb = Stmt::update_many(chunk, self.replica, self.limits);
            ids(self.tx, qb, &mut changed).await?;
        }
        Ok(changed)
    }

    async fn insert_rows(&mut self, rows: &[&TaskRow]) -> Result<HashSet<String>, StoreError> {
        let mut inserted = HashSet::with_capacity(rows.len());
        for chunk in chunks(rows) {
            let qb = Stmt::insert_many(chunk, self.replica, self.limits);
            ids(self.tx, qb, &mut inserted).await?;
        }
        Ok(inserted)
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
        let mut found = HashSet::with_capacity(list.len());
        for chunk in chunks(list) {
            ids(self.tx, Stmt::present(chunk), &mut found).await?;
        }
        Ok(found)
    }

    async fn view(&mut self, rows: &[&TaskRow]) -> Result<CreateView, StoreError> {
        // Every chunk reads the same state (nothing is written until all are read): the ids
        // taken add up, and a caller's running count or the usage read twice is read alike.
        let mut read: Vec<(i64, Option<String>, i64)> = Vec::new();
        for chunk in chunks(rows) {
            read.extend(
                Stmt::create_view(chunk)
                    .build_query_as::<(i64, Option<String>, i64)>()
                    .persistent(true)
                    .fetch_all(&mut *self.tx)
                    .await?,
            );
        }
        Ok(CreateView::from_rows(read))
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

/// Most rows one statement of a batch carries.
const CHUNK_MAX: usize = 64;

/// `rows` split for statements that stay prepared: in order, each chunk the largest power of
/// two (at most [`CHUNK_MAX`]) that fits in what is left, so 45 rows go as 32, 8, 4 and 1.
///
/// A statement's text depends on its number of rows, and preparing a batch statement costs
/// more than running it: prepared per use, as batches over 8 rows were, preparing took 16k
/// of the 192k instructions of a describe_skill call under 64 connections (batches of 16 on
/// average, callgrind, docs/benchmarks.md). With seven sizes per statement the connection's
/// statement cache holds them all; a chunk more is one more step on the connection's worker
/// thread, far cheaper than a preparation.
pub(super) fn chunks<T>(rows: &[T]) -> impl Iterator<Item = &[T]> {
    let mut rest = rows;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let n = CHUNK_MAX.min(1 << rest.len().ilog2());
        let (chunk, tail) = rest.split_at(n);
        rest = tail;
        Some(chunk)
    })
}

/// Runs a statement built by `qb` that returns task ids (kept prepared: [`chunks`]) and adds
/// them to `into`.
async fn ids(
    tx: &mut SqliteConnection,
    mut qb: QueryBuilder<'_, Sqlite>,
    into: &mut HashSet<String>,
) -> Result<(), StoreError> {
    let rows: Vec<(String,)> = qb
        .build_query_as()
        .persistent(true)
        .fetch_all(&mut *tx)
        .await?;
    into.extend(rows.into_iter().map(|(id,)| id));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{chunks, CHUNK_MAX};

    #[test]
    fn chunks_are_powers_of_two_in_order_and_cover_every_row() {
        for n in 0..=300usize {
            let rows: Vec<usize> = (0..n).collect();
            let split: Vec<&[usize]> = chunks(&rows).collect();
            let sizes: Vec<usize> = split.iter().map(|c| c.len()).collect();
            assert!(
                sizes.iter().all(|s| s.is_power_of_two() && *s <= CHUNK_MAX),
                "{n}: {sizes:?}"
            );
            assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{n}: {sizes:?}");
            assert_eq!(split.concat(), rows, "{n}");
        }
        let sizes = |n: usize| chunks(&vec![0u8; n]).map(<[u8]>::len).collect::<Vec<_>>();
        assert_eq!(sizes(45), [32, 8, 4, 1]);
        assert_eq!(sizes(64), [64]);
        assert_eq!(sizes(200), [64, 64, 64, 8]);
    }
}

//! The SQLite store: one process per file, tasks survive restarts.
//!
//! The file is opened by a single connection in `locking_mode=EXCLUSIVE` with a WAL journal:
//! SQLite then takes an exclusive lock on the file at first access and holds it until the
//! connection closes (the WAL index lives in heap memory, no `-shm` file), so a second process
//! opening the same file gets [`StoreError::Locked`] instead of sharing it. A single connection
//! behind an async mutex is all an exclusive file allows anyway, and it serializes every write,
//! which keeps the byte accounting and the per-caller count exact, like the memory store.
//!
//! Writes: creates and updates go through the store's writer task ([`crate::group`]), which
//! commits every write queued while the previous commit was flushing in one transaction; reads
//! and the rare writes (push configs, purges) take the connection between batches.
//!
//! Durability: `synchronous=FULL` in WAL mode syncs the WAL to disk before `COMMIT` returns,
//! so a write whose caller resumed survives a crash of the process (`kill -9`), of the kernel
//! or of the power. Group commit pays that sync once per batch rather than once per write,
//! which is what made `FULL` affordable (it used to be `NORMAL`, which could lose the last
//! commits on a power loss). `NORMAL` is still there for whoever asks for it
//! (`sqlite:PATH?synchronous=normal`, [`SqliteSync`]), with what it can lose.
//!
//! Leases: since no other process can use the file, every running task found at open belongs to
//! a process that died; open marks their leases expired, and [`TaskStore::stale`] returns every
//! running task whose lease is not this process's, so the runtime fails them at once. The
//! process's own running tasks never go stale (renewal is a no-op, as the trait says for
//! single-process stores).

mod batch;

use crate::group::{CommitHold, CommitStats, Queue, Write};
use crate::hub::EventHub;
use crate::row::{now_ms, ListPage, ListQuery, StoreLimits, TaskRow};
use crate::sql::plan::KnownShared;
use crate::sql::query::Statements;
use crate::sql::{
    decode_push, decode_row, encode_push, to_u64, COLUMNS, DELETE_BATCH, RUNNING_STATES,
};
use crate::{PushRegistration, StoreError, TaskStore, SCHEMA_VERSION};
use async_trait::async_trait;
use skillgate_a2a::StreamResponse;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqliteLockingMode, SqliteSynchronous,
};
use sqlx::{Connection, Executor, QueryBuilder, Sqlite};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;

/// The statements SQLite and PostgreSQL share, with SQLite's placeholders.
type Stmt = Statements<Sqlite>;

/// How long open waits for a previous holder of the file to let go (a process still exiting,
/// a store just dropped) before reporting [`StoreError::Locked`].
const LOCK_WAIT: Duration = Duration::from_millis(1500);

/// Schema steps: `MIGRATIONS[i]` takes the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&[&str]] = &[
    &[
        "CREATE TABLE tasks (
        id TEXT PRIMARY KEY NOT NULL,
        context_id TEXT NOT NULL,
        owner TEXT NULL,
        state INTEGER NOT NULL,
        updated_ms BIGINT NOT NULL,
        finished_ms BIGINT NULL,
        flags BIGINT NOT NULL,
        version BIGINT NOT NULL,
        size BIGINT NOT NULL,
        lease_owner TEXT NULL,
        lease_until_ms BIGINT NULL,
        body BLOB NOT NULL
    )",
        "CREATE INDEX tasks_list ON tasks (updated_ms DESC, id)",
        "CREATE INDEX tasks_context ON tasks (context_id, updated_ms DESC)",
        "CREATE INDEX tasks_state ON tasks (state, updated_ms)",
        "CREATE INDEX tasks_unfinished_owner ON tasks (owner) WHERE finished_ms IS NULL",
        "CREATE INDEX tasks_finished ON tasks (finished_ms) WHERE finished_ms IS NOT NULL",
        "CREATE INDEX tasks_lease ON tasks (lease_until_ms) WHERE state IN (1, 2)",
        // Bytes held, kept by triggers so any writer (even an operator's DELETE) keeps it right.
        "CREATE TABLE skillgate_usage (shard INTEGER PRIMARY KEY, used BIGINT NOT NULL)",
        "INSERT INTO skillgate_usage (shard, used) VALUES (0, 0)",
        "CREATE TRIGGER tasks_usage_insert AFTER INSERT ON tasks BEGIN
        UPDATE skillgate_usage SET used = used + NEW.size WHERE shard = 0;
    END",
        "CREATE TRIGGER tasks_usage_delete AFTER DELETE ON tasks BEGIN
        UPDATE skillgate_usage SET used = used - OLD.size WHERE shard = 0;
    END",
        "CREATE TRIGGER tasks_usage_update AFTER UPDATE OF size ON tasks
        WHEN OLD.size <> NEW.size BEGIN
        UPDATE skillgate_usage SET used = used + NEW.size - OLD.size WHERE shard = 0;
    END",
    ],
    // 2: push notification configs, kept with (and deleted with) their task.
    &[
        "CREATE TABLE push_configs (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            task_id TEXT NOT NULL,
            id TEXT NOT NULL,
            body BLOB NOT NULL,
            UNIQUE (task_id, id)
        )",
        "CREATE TRIGGER tasks_push_delete AFTER DELETE ON tasks BEGIN
            DELETE FROM push_configs WHERE task_id = OLD.id;
        END",
    ],
    // 3: a text many tasks hold (describe_skill's document) stored once; a row's body then
    // lacks it from `shared_at` on (see `TaskRow::cut`).
    &[
        "CREATE TABLE shared_json (key TEXT PRIMARY KEY NOT NULL, text BLOB NOT NULL)",
        "ALTER TABLE tasks ADD COLUMN shared_at BIGINT NULL",
        "ALTER TABLE tasks ADD COLUMN shared_key TEXT NULL",
    ],
];

/// Tasks in a SQLite file owned by this process.
pub struct SqliteStore {
    /// Shared with the writer task, which takes it for each batch.
    conn: Arc<Mutex<SqliteConnection>>,
    writes: Queue,
    path: PathBuf,
    hub: Arc<EventHub>,
    limits: StoreLimits,
    replica: String,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .field("replica", &self.replica)
            .finish_non_exhaustive()
    }
}

/// Whether a SQLite error is "the file is locked" (SQLITE_BUSY or SQLITE_LOCKED, any
/// extended code).
fn is_locked(e: &sqlx::Error) -> bool {
    let Some(db) = e.as_database_error() else {
        return false;
    };
    db.code()
        .and_then(|c| c.parse::<i32>().ok())
        .is_some_and(|c| matches!(c & 0xff, 5 | 6))
}

/// Maps an error met while opening `path`: a lock held elsewhere is [`StoreError::Locked`].
fn open_error(e: sqlx::Error, path: &Path) -> StoreError {
    if is_locked(&e) {
        StoreError::Locked(path.display().to_string())
    } else {
        StoreError::Database(format!("{}: {e}", path.display()))
    }
}

/// When a SQLite store's commits reach the disk: the `synchronous` setting of its WAL.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SqliteSync {
    /// `synchronous=FULL` (the default): each commit's WAL is synced before the commit
    /// returns, so an acknowledged write survives a crash of the process, of the kernel and a
    /// power loss.
    #[default]
    Full,
    /// `synchronous=NORMAL`: commits are not synced, only checkpoints are. An acknowledged
    /// write still survives the process being killed (`kill -9`: the WAL is in the kernel's
    /// page cache), but the commits since the last checkpoint (at most about 4 MiB of WAL) can
    /// be lost to a kernel crash or a power loss. No task is ever half-written either way.
    Normal,
}

impl SqliteSync {
    fn pragma(self) -> SqliteSynchronous {
        match self {
            SqliteSync::Full => SqliteSynchronous::Full,
            SqliteSync::Normal => SqliteSynchronous::Normal,
        }
    }
}

/// Opens (creating it and its directory if missing) and locks the file, then migrates it.
/// Returns the connection, the absolute path and the schema versions before and after.
async fn connect(
    path: &Path,
    sync: SqliteSync,
) -> Result<(SqliteConnection, PathBuf, i64, i64), StoreError> {
    let abs = std::path::absolute(path)
        .map_err(|e| StoreError::Database(format!("{}: {e}", path.display())))?;
    if let Some(dir) = abs.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            StoreError::Database(format!("cannot create directory {}: {e}", dir.display()))
        })?;
    }
    let opts = SqliteConnectOptions::new()
        .filename(&abs)
        .create_if_missing(true)
        // Set before the journal mode so the WAL index is kept in process memory and the
        // exclusive lock is taken at first access (sqlx issues locking_mode first).
        .locking_mode(SqliteLockingMode::Exclusive)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(sync.pragma())
        .busy_timeout(LOCK_WAIT)
        .foreign_keys(false)
        // A write inside a batch fires the usage triggers, so SQLite keeps a statement
        // journal for it; with the default temp store that journal spills to a temporary
        // file, two `pwrite`s per page touched (measured: seven pages a request). In memory
        // it is a copy; it only ever holds one statement's pages.
        .pragma("temp_store", "memory");
    let mut conn = SqliteConnection::connect_with(&opts)
        .await
        .map_err(|e| open_error(e, &abs))?;
    let (before, after) = match migrate(&mut conn).await {
        Ok(v) => v,
        Err(e) => {
            let _ = conn.close().await;
            return Err(match e {
                MigrateError::Sql(e) => open_error(e, &abs),
                MigrateError::Store(e) => e,
            });
        }
    };
    Ok((conn, abs, before, after))
}

enum MigrateError {
    Sql(sqlx::Error),
    Store(StoreError),
}

impl From<sqlx::Error> for MigrateError {
    fn from(e: sqlx::Error) -> Self {
        MigrateError::Sql(e)
    }
}

/// Brings the schema to [`SCHEMA_VERSION`] in one transaction. The transaction always writes
/// the version row, so the exclusive lock is surely taken before open returns.
async fn migrate(conn: &mut SqliteConnection) -> Result<(i64, i64), MigrateError> {
    let mut tx = conn.begin().await?;
    (&mut *tx)
        .execute("CREATE TABLE IF NOT EXISTS skillgate_schema_version (version BIGINT NOT NULL)")
        .await?;
    let before: Option<i64> =
        sqlx::query_scalar("SELECT MAX(version) FROM skillgate_schema_version")
            .fetch_one(&mut *tx)
            .await?;
    let before = before.unwrap_or(0);
    if before > SCHEMA_VERSION {
        return Err(MigrateError::Store(StoreError::SchemaTooNew {
            found: before,
            supported: SCHEMA_VERSION,
        }));
    }
    let from = usize::try_from(before.max(0)).unwrap_or(0);
    for step in MIGRATIONS.iter().skip(from) {
        for &stmt in step.iter() {
            (&mut *tx).execute(stmt).await?;
        }
    }
    (&mut *tx)
        .execute("DELETE FROM skillgate_schema_version")
        .await?;
    sqlx::query("INSERT INTO skillgate_schema_version (version) VALUES (?)")
        .bind(SCHEMA_VERSION)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok((before, SCHEMA_VERSION))
}

/// Runs the migrations of a SQLite file and closes it. Fails with [`StoreError::Locked`]
/// while a server has the file open.
pub(crate) async fn migrate_only(path: &Path) -> Result<(i64, i64), StoreError> {
    let (conn, _, before, after) = connect(path, SqliteSync::Full).await?;
    conn.close().await?;
    Ok((before, after))
}

impl SqliteStore {
    /// Opens (creating it and its directory if missing), locks and migrates the SQLite file at
    /// `path`. Fails with [`StoreError::Locked`] if another process (or another store in this
    /// process) has it open, and [`StoreError::SchemaTooNew`] if a newer skillgate wrote it.
    pub async fn open(path: &Path, limits: StoreLimits) -> Result<Self, StoreError> {
        Self::open_with(path, limits, SqliteSync::Full).await
    }

    /// [`SqliteStore::open`] with commits synced as `sync` says.
    pub async fn open_with(
        path: &Path,
        limits: StoreLimits,
        sync: SqliteSync,
    ) -> Result<Self, StoreError> {
        let (mut conn, path, _, _) = connect(path, sync).await?;
        // Whoever ran these tasks is gone (the file was not locked): expire their leases.
        sqlx::query(&format!(
            "UPDATE tasks SET lease_until_ms = 0 WHERE state IN {RUNNING_STATES}"
        ))
        .execute(&mut conn)
        .await?;
        let conn = Arc::new(Mutex::new(conn));
        let hub = EventHub::new();
        let replica = uuid::Uuid::new_v4().to_string();
        // One writer: there is one connection, so a second lane would only wait for it.
        let writes = Queue::start(vec![batch::Writer {
            conn: conn.clone(),
            hub: hub.clone(),
            limits: limits.clone(),
            replica: replica.clone(),
            known: KnownShared::default(),
        }]);
        Ok(Self {
            conn,
            writes,
            path,
            hub,
            limits,
            replica,
        })
    }

    /// Stops this store's commits right before COMMIT until the returned hold is dropped: a
    /// test hook showing that a write's caller resumes only once its batch is durable.
    pub fn hold_commits(&self) -> CommitHold {
        self.writes.hold()
    }

    /// Transactions and writes the writer committed so far (`writes / batches` is how many
    /// writes shared one sync to disk).
    pub fn commit_stats(&self) -> CommitStats {
        self.writes.stats()
    }
}

async fn used(conn: &mut SqliteConnection) -> Result<i64, sqlx::Error> {
    let used: Option<i64> = sqlx::query_scalar("SELECT SUM(used) FROM skillgate_usage")
        .fetch_one(conn)
        .await?;
    Ok(used.unwrap_or(0))
}

async fn exists(conn: &mut SqliteConnection, id: &str) -> Result<bool, sqlx::Error> {
    Ok(sqlx::query("SELECT 1 FROM tasks WHERE id = ?")
        .bind(id)
        .fetch_optional(conn)
        .await?
        .is_some())
}

/// Deletes the oldest finished tasks (never those in `keep`) until `extra` more bytes fit in
/// `budget`. Returns whether they fit, the bytes then held, and how many tasks were deleted.
async fn make_room(
    conn: &mut SqliteConnection,
    extra: i64,
    budget: i64,
    keep: &[&str],
) -> Result<(bool, i64, u64), sqlx::Error> {
    let mut used = used(conn).await?;
    let mut deleted = 0u64;
    // Candidates are read a few at first (most calls make room for a batch's creates, a few
    // tasks), then twice as many each round up to DELETE_BATCH.
    let mut fetch: i64 = 16;
    while used.saturating_add(extra) > budget {
        // `keep` is filtered here rather than in SQL (no list binding in SQLite); fetching
        // that many more rows keeps a full round of candidates.
        let victims: Vec<(String, i64)> = sqlx::query_as(
            "SELECT id, size FROM tasks WHERE finished_ms IS NOT NULL
             ORDER BY finished_ms, id LIMIT ?",
        )
        .bind(fetch.saturating_add(i64::try_from(keep.len()).unwrap_or(i64::MAX)))
        .fetch_all(&mut *conn)
        .await?;
        fetch = fetch.saturating_mul(2).min(DELETE_BATCH);
        let mut doomed: Vec<String> = Vec::new();
        for (id, size) in victims {
            if used.saturating_add(extra) <= budget {
                break;
            }
            if keep.contains(&id.as_str()) {
                continue;
            }
            used -= size;
            doomed.push(id);
        }
        if doomed.is_empty() {
            return Ok((false, used, deleted));
        }
        // One statement per chunk instead of one per task (each is a round trip to the
        // connection's worker thread); the usage trigger counts each row as before.
        for chunk in batch::chunks(&doomed) {
            let mut qb = QueryBuilder::<Sqlite>::new("DELETE FROM tasks WHERE id IN (");
            let mut ids = qb.separated(", ");
            for id in chunk {
                ids.push_bind(id.as_str());
            }
            qb.push(")")
                .build()
                .persistent(true)
                .execute(&mut *conn)
                .await?;
        }
        deleted += doomed.len() as u64;
    }
    Ok((true, used, deleted))
}

#[async_trait]
impl TaskStore for SqliteStore {
    fn describe(&self) -> String {
        format!("sqlite:{}", self.path.display())
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

    async fn create(&self, row: &TaskRow) -> Result<(), StoreError> {
        self.writes.submit(Write::Create(row.clone())).await
    }

    async fn get(&self, id: &str) -> Result<Option<TaskRow>, StoreError> {
        let mut conn = self.conn.lock().await;
        let row = Stmt::get(id).build().fetch_optional(&mut *conn).await?;
        row.as_ref().map(decode_row).transpose()
    }

    async fn update(&self, row: &TaskRow, events: &[StreamResponse]) -> Result<(), StoreError> {
        self.writes
            .submit(Write::Update(row.clone(), events.to_vec()))
            .await
    }

    async fn list(&self, q: &ListQuery) -> Result<ListPage, StoreError> {
        let mut conn = self.conn.lock().await;
        let mut tx = conn.begin().await?;
        let total: i64 = Stmt::count(q)
            .build_query_scalar()
            .fetch_one(&mut *tx)
            .await?;
        let mut rows = Vec::new();
        if let Some(mut page) = Stmt::page(q, total) {
            for r in page.build().fetch_all(&mut *tx).await? {
                rows.push(decode_row(&r)?);
            }
        }
        tx.commit().await?;
        Ok(ListPage {
            rows,
            total: to_u64(total),
        })
    }

    async fn renew_leases(&self, _ids: &[String]) -> Result<(), StoreError> {
        // One process per file: this process's leases cannot be taken over (see the module
        // docs), so there is nothing to renew.
        Ok(())
    }

    async fn put_push_config(
        &self,
        registration: &PushRegistration,
        max: usize,
    ) -> Result<(), StoreError> {
        let body = encode_push(registration)?;
        let config = &registration.config;
        let mut conn = self.conn.lock().await;
        let mut tx = conn.begin().await?;
        if !exists(&mut tx, &config.task_id).await? {
            return Err(StoreError::NotFound(config.task_id.clone()));
        }
        let replaced = sqlx::query("UPDATE push_configs SET body = ? WHERE task_id = ? AND id = ?")
            .bind(&body)
            .bind(&config.task_id)
            .bind(&config.id)
            .execute(&mut *tx)
            .await?;
        if replaced.rows_affected() == 0 {
            let held: i64 =
                sqlx::query_scalar("SELECT COUNT(*) FROM push_configs WHERE task_id = ?")
                    .bind(&config.task_id)
                    .fetch_one(&mut *tx)
                    .await?;
            if usize::try_from(held).unwrap_or(usize::MAX) >= max {
                return Err(StoreError::PushConfigLimit {
                    task: config.task_id.clone(),
                    max,
                });
            }
            sqlx::query("INSERT INTO push_configs (task_id, id, body) VALUES (?, ?, ?)")
                .bind(&config.task_id)
                .bind(&config.id)
                .bind(&body)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn push_configs(&self, task_id: &str) -> Result<Vec<PushRegistration>, StoreError> {
        let mut conn = self.conn.lock().await;
        let bodies: Vec<(Vec<u8>,)> =
            sqlx::query_as("SELECT body FROM push_configs WHERE task_id = ? ORDER BY seq")
                .bind(task_id)
                .fetch_all(&mut *conn)
                .await?;
        bodies.iter().map(|(b,)| decode_push(task_id, b)).collect()
    }

    async fn delete_push_config(&self, task_id: &str, id: &str) -> Result<bool, StoreError> {
        let mut conn = self.conn.lock().await;
        let done = sqlx::query("DELETE FROM push_configs WHERE task_id = ? AND id = ?")
            .bind(task_id)
            .bind(id)
            .execute(&mut *conn)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    async fn stale(&self, limit: usize) -> Result<Vec<TaskRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut conn = self.conn.lock().await;
        let mut out = Vec::new();
        let running = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM tasks WHERE state IN {RUNNING_STATES}
               AND (lease_owner IS NULL OR lease_owner <> ?)
             ORDER BY updated_ms, id LIMIT ?"
        ))
        .bind(&self.replica)
        .bind(limit)
        .fetch_all(&mut *conn)
        .await?;
        for r in &running {
            out.push(decode_row(r)?);
        }
        let left = limit - i64::try_from(out.len()).unwrap_or(0);
        if left > 0 {
            let cutoff = now_ms().saturating_sub(self.limits.interrupted_ms());
            let waiting = Stmt::interrupted(cutoff, left)
                .build()
                .fetch_all(&mut *conn)
                .await?;
            for r in &waiting {
                out.push(decode_row(r)?);
            }
        }
        Ok(out)
    }

    async fn purge(&self) -> Result<u64, StoreError> {
        let cutoff = now_ms().saturating_sub(self.limits.retention_ms());
        let mut deleted = 0u64;
        loop {
            // One batch per lock, so a large purge does not stall the runtime.
            let mut conn = self.conn.lock().await;
            let done = sqlx::query(
                "DELETE FROM tasks WHERE id IN (SELECT id FROM tasks
                   WHERE finished_ms IS NOT NULL AND finished_ms < ? LIMIT ?)",
            )
            .bind(cutoff)
            .bind(DELETE_BATCH)
            .execute(&mut *conn)
            .await?;
            deleted += done.rows_affected();
            if done.rows_affected() < to_u64(DELETE_BATCH) {
                break;
            }
        }
        let mut conn = self.conn.lock().await;
        let mut tx = conn.begin().await?;
        let (_, _, evicted) = make_room(&mut tx, 0, self.limits.budget(), &[]).await?;
        tx.commit().await?;
        Ok(deleted + evicted)
    }

    async fn used_bytes(&self) -> Result<u64, StoreError> {
        let mut conn = self.conn.lock().await;
        Ok(to_u64(used(&mut conn).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::{SqliteStore, SqliteSync};
    use crate::row::StoreLimits;

    /// What SQLite reports for `PRAGMA synchronous` on the store's own connection.
    async fn synchronous(sync: SqliteSync) -> i64 {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open_with(&dir.path().join("t.db"), StoreLimits::disk(), sync)
            .await
            .unwrap();
        let mut conn = store.conn.lock().await;
        sqlx::query_scalar("PRAGMA synchronous")
            .fetch_one(&mut *conn)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn commits_sync_as_asked() {
        // SQLite's numbers: 1 = NORMAL, 2 = FULL.
        assert_eq!(synchronous(SqliteSync::Full).await, 2);
        assert_eq!(synchronous(SqliteSync::Normal).await, 1);
        assert_eq!(SqliteSync::default(), SqliteSync::Full);
    }
}

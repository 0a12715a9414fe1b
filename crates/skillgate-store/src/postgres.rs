//! The PostgreSQL store: any number of replicas acting as one agent.
//!
//! Creates and updates go through the store's writer lanes ([`crate::group`]): each lane
//! commits every write queued while its previous commit was flushing in one transaction, and
//! sends the batch's notifications with one statement (see `batch`). Other writes are one
//! short transaction each. Versioned updates make concurrent writers safe; the
//! per-caller limit is exact (creates of one owner are serialized by a transaction-scoped
//! advisory lock on the owner); the byte budget is enforced against a counter kept by triggers
//! in `skillgate_usage`, split into 16 rows (one per backend, `pg_backend_pid() % 16`) so
//! writers of different connections do not queue on one counter row. Under concurrent creates
//! the budget can be overshot by the tasks in flight (each create sees the others' bytes only
//! once they commit); the next create or purge evicts back under it.
//!
//! Events: an accepted update sends one `pg_notify('skillgate_task_events', payload)` per event
//! in its batch's transaction, so the notifications go out exactly when (and only if) the update
//! commits, in commit order (and, within one update, in the order of its events). Every replica (this one included) LISTENs on a dedicated connection and
//! publishes what it receives to its [`EventHub`]. If that connection drops, notifications sent
//! meanwhile are lost; after reconnecting, the listener publishes [`HubEvent::Resync`] with the
//! current version for every task that may have changed in the gap (all unfinished tasks and
//! those finished since the connection was last known alive), and fires the local cancel signal
//! of tasks that ended elsewhere, so a stream re-reads its task instead of waiting for an event
//! that will never come.
//!
//! Leases use each replica's clock: keep replica clocks within a fraction of `lease_ttl`.

mod batch;

use crate::group::{CommitHold, CommitStats, Queue, Write};
use crate::hub::{EventHub, HubEvent};
use crate::row::{now_ms, ListPage, ListQuery, StoreLimits, TaskRow};
use crate::sql::plan::KnownShared;
use crate::sql::query::Statements;
use crate::sql::{
    decode_push, decode_row, encode_push, parse_payload, scrub, to_u64, COLUMNS, DELETE_BATCH,
    RUNNING_STATES,
};
use crate::{redact, PushRegistration, StoreError, TaskStore, SCHEMA_VERSION};
use async_trait::async_trait;
use skillgate_a2a::{StreamResponse, TaskState};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgListener, PgPool, PgPoolOptions};
use sqlx::{Connection, Executor, PgExecutor, Postgres};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The statements SQLite and PostgreSQL share, with PostgreSQL's placeholders.
type Stmt = Statements<Postgres>;

/// The notification channel of task events.
pub(crate) const CHANNEL: &str = "skillgate_task_events";

/// Connections per replica for queries and writer lanes (the listener has its own), unless
/// the URL says `pool_size=N`.
const POOL_SIZE: u32 = 16;

/// Writer lanes per replica, unless the URL says `writers=N`: with two, one lane executes its
/// batch while the other's commit is flushing.
const WRITERS: usize = 2;

/// The URL parameters this store reads itself (and removes before the driver sees the URL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Tuning {
    pool_size: u32,
    writers: usize,
}

/// Splits `pool_size` and `writers` off a PostgreSQL URL: the URL for the driver and the
/// tuning, refusing values that are not positive numbers (or writers that would leave no
/// connection for reads).
fn tuning(url: &str) -> Result<(String, Tuning), StoreError> {
    let mut t = Tuning {
        pool_size: POOL_SIZE,
        writers: WRITERS,
    };
    let Ok(mut u) = url::Url::parse(url) else {
        // The driver reports what is wrong with it.
        return Ok((url.to_string(), t));
    };
    if u.query().is_none() {
        return Ok((url.to_string(), t));
    }
    let bad = |k: &str, v: &str| {
        StoreError::InvalidUrl(format!(
            "{}: {k}={v:?} must be a positive number",
            redact(url)
        ))
    };
    let mut rest = Vec::new();
    for (k, v) in u.query_pairs() {
        match k.as_ref() {
            "pool_size" => {
                t.pool_size = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| bad(&k, &v))?;
            }
            "writers" => {
                t.writers = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| bad(&k, &v))?;
            }
            _ => rest.push((k.into_owned(), v.into_owned())),
        }
    }
    if u32::try_from(t.writers).map_or(true, |w| w >= t.pool_size) {
        return Err(StoreError::InvalidUrl(format!(
            "{}: writers={} needs pool_size above it (now {}): reads need a connection too",
            redact(url),
            t.writers,
            t.pool_size
        )));
    }
    if rest.is_empty() {
        u.set_query(None);
    } else {
        u.query_pairs_mut().clear().extend_pairs(rest);
    }
    Ok((u.to_string(), t))
}

/// How long a query waits for a free pooled connection.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// Advisory lock key serializing migrators ("skillgat").
const MIGRATE_LOCK: i64 = 0x736b_696c_6c67_6174;

/// Longest wait between attempts to re-establish the listener.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// After a listener outage, tasks finished this long before the connection was last known
/// alive are resynchronised too (covers clock differences between replicas).
const RESYNC_SLACK_MS: i64 = 60_000;

/// Schema steps: `MIGRATIONS[i]` takes the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&[&str]] = &[
    &[
        // `id` compares bytewise (like the other stores) so list ties order the same everywhere.
        r#"CREATE TABLE tasks (
        id TEXT COLLATE "C" PRIMARY KEY,
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
        body BYTEA NOT NULL
    )"#,
        "CREATE INDEX tasks_list ON tasks (updated_ms DESC, id)",
        "CREATE INDEX tasks_context ON tasks (context_id, updated_ms DESC)",
        "CREATE INDEX tasks_state ON tasks (state, updated_ms)",
        "CREATE INDEX tasks_unfinished_owner ON tasks (owner) WHERE finished_ms IS NULL",
        "CREATE INDEX tasks_finished ON tasks (finished_ms) WHERE finished_ms IS NOT NULL",
        "CREATE INDEX tasks_lease ON tasks (lease_until_ms) WHERE state IN (1, 2)",
        "CREATE TABLE skillgate_usage (shard INTEGER PRIMARY KEY, used BIGINT NOT NULL)",
        "INSERT INTO skillgate_usage (shard, used) SELECT g, 0 FROM generate_series(0, 15) AS g",
        "CREATE FUNCTION skillgate_tasks_usage() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        delta BIGINT;
    BEGIN
        IF TG_OP = 'INSERT' THEN
            delta := NEW.size;
        ELSIF TG_OP = 'DELETE' THEN
            delta := -OLD.size;
        ELSE
            delta := NEW.size - OLD.size;
        END IF;
        UPDATE skillgate_usage SET used = used + delta WHERE shard = pg_backend_pid() % 16;
        RETURN NULL;
    END
    $$",
        "CREATE TRIGGER tasks_usage_insert_delete AFTER INSERT OR DELETE ON tasks
        FOR EACH ROW EXECUTE FUNCTION skillgate_tasks_usage()",
        "CREATE TRIGGER tasks_usage_update AFTER UPDATE OF size ON tasks
        FOR EACH ROW WHEN (OLD.size IS DISTINCT FROM NEW.size)
        EXECUTE FUNCTION skillgate_tasks_usage()",
        "CREATE FUNCTION skillgate_tasks_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE skillgate_usage SET used = 0;
        RETURN NULL;
    END
    $$",
        "CREATE TRIGGER tasks_usage_truncate AFTER TRUNCATE ON tasks
        FOR EACH STATEMENT EXECUTE FUNCTION skillgate_tasks_truncate()",
    ],
    // 2: push notification configs, kept with (and deleted with) their task. Triggers rather
    // than a foreign key, so an operator's TRUNCATE of tasks keeps working.
    &[
        r#"CREATE TABLE push_configs (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            task_id TEXT COLLATE "C" NOT NULL,
            id TEXT COLLATE "C" NOT NULL,
            body BYTEA NOT NULL,
            UNIQUE (task_id, id)
        )"#,
        "CREATE FUNCTION skillgate_tasks_push_delete() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM push_configs WHERE task_id = OLD.id;
            RETURN NULL;
        END
        $$",
        "CREATE TRIGGER tasks_push_delete AFTER DELETE ON tasks
            FOR EACH ROW EXECUTE FUNCTION skillgate_tasks_push_delete()",
        "CREATE FUNCTION skillgate_tasks_push_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM push_configs;
            RETURN NULL;
        END
        $$",
        "CREATE TRIGGER tasks_push_truncate AFTER TRUNCATE ON tasks
            FOR EACH STATEMENT EXECUTE FUNCTION skillgate_tasks_push_truncate()",
    ],
    // 3: a text many tasks hold (describe_skill's document) stored once; a row's body then
    // lacks it from `shared_at` on (see `TaskRow::cut`).
    &[
        r#"CREATE TABLE shared_json (key TEXT COLLATE "C" PRIMARY KEY, text BYTEA NOT NULL)"#,
        "ALTER TABLE tasks ADD COLUMN shared_at BIGINT NULL",
        "ALTER TABLE tasks ADD COLUMN shared_key TEXT NULL",
    ],
];

/// Tasks in a PostgreSQL database shared by replicas.
pub struct PostgresStore {
    pool: PgPool,
    writes: Queue,
    url: String,
    hub: Arc<EventHub>,
    limits: StoreLimits,
    replica: String,
    shutdown: CancellationToken,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("url", &self.url)
            .field("replica", &self.replica)
            .finish_non_exhaustive()
    }
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        // Stops the listener task (and with it the listening connection).
        self.shutdown.cancel();
    }
}

/// Parses the URL and opens one connection, with errors that name the (redacted) URL.
async fn connect(url: &str) -> Result<(PgConnectOptions, PgConnection), StoreError> {
    let shown = redact(url);
    let opts = PgConnectOptions::from_str(url)
        .map_err(|e| StoreError::InvalidUrl(format!("{shown}: {}", scrub(e.to_string(), url))))?;
    let conn = PgConnection::connect_with(&opts).await.map_err(|e| {
        StoreError::Database(format!(
            "cannot connect to {shown}: {}",
            scrub(e.to_string(), url)
        ))
    })?;
    Ok((opts, conn))
}

/// Brings the schema to [`SCHEMA_VERSION`] in one transaction, serialized between replicas
/// starting together by an advisory lock.
async fn migrate(conn: &mut PgConnection) -> Result<(i64, i64), StoreError> {
    let mut tx = conn.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(MIGRATE_LOCK)
        .execute(&mut *tx)
        .await?;
    (&mut *tx)
        .execute("CREATE TABLE IF NOT EXISTS skillgate_schema_version (version BIGINT NOT NULL)")
        .await?;
    let before: Option<i64> =
        sqlx::query_scalar("SELECT MAX(version) FROM skillgate_schema_version")
            .fetch_one(&mut *tx)
            .await?;
    let before = before.unwrap_or(0);
    if before > SCHEMA_VERSION {
        return Err(StoreError::SchemaTooNew {
            found: before,
            supported: SCHEMA_VERSION,
        });
    }
    if before < SCHEMA_VERSION {
        let from = usize::try_from(before.max(0)).unwrap_or(0);
        for step in MIGRATIONS.iter().skip(from) {
            for &stmt in step.iter() {
                (&mut *tx).execute(stmt).await?;
            }
        }
        (&mut *tx)
            .execute("DELETE FROM skillgate_schema_version")
            .await?;
        sqlx::query("INSERT INTO skillgate_schema_version (version) VALUES ($1)")
            .bind(SCHEMA_VERSION)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok((before, SCHEMA_VERSION))
}

/// Runs the migrations of a PostgreSQL database and disconnects.
pub(crate) async fn migrate_only(url: &str) -> Result<(i64, i64), StoreError> {
    let (_, mut conn) = connect(url).await?;
    let versions = migrate(&mut conn).await;
    let _ = conn.close().await;
    versions
}

impl PostgresStore {
    /// Connects to the database at `url`, migrates it and starts listening for the task events
    /// of every replica. Fails with a message naming the URL (password redacted) when the
    /// server is unreachable, and with [`StoreError::SchemaTooNew`] if a newer skillgate
    /// migrated it.
    ///
    /// Two URL parameters are the store's own: `pool_size=N` (connections per replica for
    /// queries and writers, default 16) and `writers=N` (writer lanes, default 2, fewer than
    /// `pool_size`).
    pub async fn open(url: &str, limits: StoreLimits) -> Result<Self, StoreError> {
        let shown_url = url;
        let (driver_url, tune) = tuning(url)?;
        let url = driver_url.as_str();
        let (opts, mut conn) = connect(url).await?;
        let migrated = migrate(&mut conn).await;
        let _ = conn.close().await;
        migrated?;
        let shown = redact(shown_url);
        let pool = PgPoolOptions::new()
            .max_connections(tune.pool_size)
            // No ping before every query: a dead connection fails its query, which reports it.
            .test_before_acquire(false)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(opts.clone())
            .await
            .map_err(|e| {
                StoreError::Database(format!(
                    "cannot connect to {shown}: {}",
                    scrub(e.to_string(), url)
                ))
            })?;
        // The listener's own pool of one, so it never takes a query connection.
        let listen_pool = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_lazy_with(opts);
        let listener = start_listener(&listen_pool).await.map_err(|e| {
            StoreError::Database(format!(
                "cannot listen on {shown}: {}",
                scrub(e.to_string(), url)
            ))
        })?;
        let hub = EventHub::new();
        let shutdown = CancellationToken::new();
        tokio::spawn(listen_loop(
            listener,
            listen_pool,
            pool.clone(),
            hub.clone(),
            shutdown.clone(),
        ));
        let replica = uuid::Uuid::new_v4().to_string();
        let writes = Queue::start(
            (0..tune.writers)
                .map(|_| batch::Writer {
                    pool: pool.clone(),
                    limits: limits.clone(),
                    replica: replica.clone(),
                    known: KnownShared::default(),
                })
                .collect(),
        );
        Ok(Self {
            pool,
            writes,
            url: shown,
            hub,
            limits,
            replica,
            shutdown,
        })
    }

    /// Stops this store's commits right before COMMIT until the returned hold is dropped: a
    /// test hook showing that a write's caller resumes only once its batch is durable.
    pub fn hold_commits(&self) -> CommitHold {
        self.writes.hold()
    }

    /// Transactions and writes the writers committed so far (`writes / batches` is how many
    /// writes shared one commit).
    pub fn commit_stats(&self) -> CommitStats {
        self.writes.stats()
    }
}

async fn start_listener(pool: &PgPool) -> Result<PgListener, sqlx::Error> {
    let mut l = PgListener::connect_with(pool).await?;
    l.listen(CHANNEL).await?;
    Ok(l)
}

/// Receives every replica's task events and publishes them locally until the store is dropped.
async fn listen_loop(
    mut listener: PgListener,
    listen_pool: PgPool,
    pool: PgPool,
    hub: Arc<EventHub>,
    shutdown: CancellationToken,
) {
    // The last instant the connection was known to deliver: notifications before it arrived.
    let mut alive_ms = now_ms();
    loop {
        let received = tokio::select! {
            () = shutdown.cancelled() => return,
            r = listener.try_recv() => r,
        };
        match received {
            Ok(Some(n)) => {
                alive_ms = now_ms();
                if let Some((id, ev)) = parse_payload(n.payload()) {
                    hub.publish(&id, ev);
                }
                continue;
            }
            // The connection dropped and PgListener has already reconnected and re-LISTENed.
            Ok(None) => {}
            // Anything else (server terminated the session, reconnect failed): start afresh.
            Err(_) => {
                drop(listener);
                let mut backoff = Duration::from_millis(100);
                listener = loop {
                    let started = tokio::select! {
                        () = shutdown.cancelled() => return,
                        r = start_listener(&listen_pool) => r,
                    };
                    match started {
                        Ok(l) => break l,
                        Err(_) => {
                            tokio::select! {
                                () = shutdown.cancelled() => return,
                                () = tokio::time::sleep(backoff) => {}
                            }
                            backoff = (backoff * 2).min(MAX_BACKOFF);
                        }
                    }
                };
            }
        }
        // Listening again: whatever was committed from here on arrives as notifications; what
        // may have been missed before is resynchronised from the table.
        let since = alive_ms.saturating_sub(RESYNC_SLACK_MS);
        alive_ms = now_ms();
        let mut backoff = Duration::from_millis(100);
        loop {
            let done = tokio::select! {
                () = shutdown.cancelled() => return,
                r = resync(&pool, &hub, since) => r.is_ok(),
            };
            if done {
                break;
            }
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(backoff) => {}
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }
}

/// Publishes a resync of every task that may have changed since `since_ms` (all unfinished
/// tasks and those finished since), and fires the cancel signal of local runs of tasks that
/// ended. Tasks nobody subscribes to here cost a map lookup each.
async fn resync(pool: &PgPool, hub: &EventHub, since_ms: i64) -> Result<(), sqlx::Error> {
    let rows: Vec<(String, i64, i32)> = sqlx::query_as(
        "SELECT id, version, state FROM tasks
         WHERE finished_ms IS NULL OR finished_ms >= $1",
    )
    .bind(since_ms)
    .fetch_all(pool)
    .await?;
    for (id, version, state) in rows {
        hub.publish(&id, HubEvent::Resync { version });
        if TaskState::from_number(i64::from(state)).is_some_and(TaskState::is_terminal) {
            hub.cancel_local(&id);
        }
    }
    Ok(())
}

async fn used(db: impl PgExecutor<'_>) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT COALESCE(SUM(used), 0)::BIGINT FROM skillgate_usage")
        .fetch_one(db)
        .await
}

/// Deletes the oldest finished tasks (never those in `keep`, never rows another transaction holds)
/// until `extra` more bytes fit in `budget`. Returns whether they fit, the bytes then held and
/// how many tasks were deleted.
async fn make_room(
    conn: &mut PgConnection,
    extra: i64,
    budget: i64,
    keep: &[&str],
) -> Result<(bool, i64, u64), sqlx::Error> {
    let mut used = used(&mut *conn).await?;
    let mut deleted = 0u64;
    // Candidates are read (and locked) a few at first, as most calls make room for one batch's
    // creates, then twice as many each round up to DELETE_BATCH: locking 256 rows to delete a
    // few dirtied 256 tuples.
    let mut fetch: i64 = 16;
    while used.saturating_add(extra) > budget {
        let victims: Vec<(String, i64)> = sqlx::query_as(
            "SELECT id, size FROM tasks
             WHERE finished_ms IS NOT NULL AND id <> ALL($1)
             ORDER BY finished_ms, id LIMIT $2 FOR UPDATE SKIP LOCKED",
        )
        .bind(keep)
        .bind(fetch)
        .fetch_all(&mut *conn)
        .await?;
        fetch = fetch.saturating_mul(2).min(DELETE_BATCH);
        if victims.is_empty() {
            return Ok((false, used, deleted));
        }
        let mut ids = Vec::new();
        for (id, size) in victims {
            if used.saturating_add(extra) <= budget {
                break;
            }
            used -= size;
            ids.push(id);
        }
        let done = sqlx::query("DELETE FROM tasks WHERE id = ANY($1)")
            .bind(&ids)
            .execute(&mut *conn)
            .await?;
        deleted += done.rows_affected();
    }
    Ok((true, used, deleted))
}

#[async_trait]
impl TaskStore for PostgresStore {
    fn describe(&self) -> String {
        self.url.clone()
    }

    fn wants_event(&self, _id: &str) -> bool {
        // Any replica may have a subscriber; only the database knows.
        true
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
        let row = Stmt::get(id).build().fetch_optional(&self.pool).await?;
        row.as_ref().map(decode_row).transpose()
    }

    async fn update(&self, row: &TaskRow, events: &[StreamResponse]) -> Result<(), StoreError> {
        self.writes
            .submit(Write::Update(row.clone(), events.to_vec()))
            .await
    }

    async fn list(&self, q: &ListQuery) -> Result<ListPage, StoreError> {
        // One snapshot for the count and the page.
        let mut tx = self
            .pool
            .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .await?;
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

    async fn renew_leases(&self, ids: &[String]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        // Rows a writer lane holds are skipped, not waited for: the lane's batch locks its
        // rows in its own order, so waiting could deadlock with it (PostgreSQL then aborts one
        // side after `deadlock_timeout`, 1 s, seen in the load bench), and the lane's write
        // of a running task sets its lease anyway.
        sqlx::query(&format!(
            "UPDATE tasks SET lease_until_ms = $1
             WHERE id IN (SELECT id FROM tasks
                 WHERE id = ANY($2) AND lease_owner = $3 AND state IN {RUNNING_STATES}
                 FOR UPDATE SKIP LOCKED)"
        ))
        .bind(now_ms().saturating_add(self.limits.lease_ms()))
        .bind(ids)
        .bind(&self.replica)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn put_push_config(
        &self,
        registration: &PushRegistration,
        max: usize,
    ) -> Result<(), StoreError> {
        let body = encode_push(registration)?;
        let config = &registration.config;
        let mut tx = self.pool.begin().await?;
        // Locking the task row serializes the puts of one task (the count below stays exact)
        // and proves the task exists.
        let task = sqlx::query("SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE")
            .bind(&config.task_id)
            .fetch_optional(&mut *tx)
            .await?;
        if task.is_none() {
            return Err(StoreError::NotFound(config.task_id.clone()));
        }
        let replaced =
            sqlx::query("UPDATE push_configs SET body = $1 WHERE task_id = $2 AND id = $3")
                .bind(&body)
                .bind(&config.task_id)
                .bind(&config.id)
                .execute(&mut *tx)
                .await?;
        if replaced.rows_affected() == 0 {
            let held: i64 =
                sqlx::query_scalar("SELECT COUNT(*) FROM push_configs WHERE task_id = $1")
                    .bind(&config.task_id)
                    .fetch_one(&mut *tx)
                    .await?;
            if usize::try_from(held).unwrap_or(usize::MAX) >= max {
                return Err(StoreError::PushConfigLimit {
                    task: config.task_id.clone(),
                    max,
                });
            }
            sqlx::query("INSERT INTO push_configs (task_id, id, body) VALUES ($1, $2, $3)")
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
        let bodies: Vec<(Vec<u8>,)> =
            sqlx::query_as("SELECT body FROM push_configs WHERE task_id = $1 ORDER BY seq")
                .bind(task_id)
                .fetch_all(&self.pool)
                .await?;
        bodies.iter().map(|(b,)| decode_push(task_id, b)).collect()
    }

    async fn delete_push_config(&self, task_id: &str, id: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM push_configs WHERE task_id = $1 AND id = $2")
            .bind(task_id)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    async fn stale(&self, limit: usize) -> Result<Vec<TaskRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let now = now_ms();
        let mut out = Vec::new();
        let running = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM tasks WHERE state IN {RUNNING_STATES}
               AND (lease_until_ms < $1 OR lease_until_ms IS NULL)
             ORDER BY lease_until_ms NULLS FIRST, id LIMIT $2"
        ))
        .bind(now)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        for r in &running {
            out.push(decode_row(r)?);
        }
        let left = limit - i64::try_from(out.len()).unwrap_or(0);
        if left > 0 {
            let cutoff = now.saturating_sub(self.limits.interrupted_ms());
            let waiting = Stmt::interrupted(cutoff, left)
                .build()
                .fetch_all(&self.pool)
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
            // Short batches; rows another replica is purging are skipped, not waited for.
            let done = sqlx::query(
                "DELETE FROM tasks WHERE id IN (SELECT id FROM tasks
                   WHERE finished_ms IS NOT NULL AND finished_ms < $1
                   LIMIT $2 FOR UPDATE SKIP LOCKED)",
            )
            .bind(cutoff)
            .bind(DELETE_BATCH)
            .execute(&self.pool)
            .await?;
            deleted += done.rows_affected();
            if done.rows_affected() < to_u64(DELETE_BATCH) {
                break;
            }
        }
        let mut tx = self.pool.begin().await?;
        let (_, _, evicted) = make_room(&mut tx, 0, self.limits.budget(), &[]).await?;
        tx.commit().await?;
        Ok(deleted + evicted)
    }

    async fn used_bytes(&self) -> Result<u64, StoreError> {
        Ok(to_u64(used(&self.pool).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuning_is_read_from_the_url_and_removed() {
        let (u, t) = tuning("postgres://u:pw@h/db?pool_size=32&sslmode=disable&writers=4").unwrap();
        assert_eq!(u, "postgres://u:pw@h/db?sslmode=disable");
        assert_eq!(
            t,
            Tuning {
                pool_size: 32,
                writers: 4
            }
        );
        let (u, t) = tuning("postgres://h/db?writers=1").unwrap();
        assert_eq!(
            (u.as_str(), t.pool_size, t.writers),
            ("postgres://h/db", 16, 1)
        );
        let (u, t) = tuning("postgres://h/db").unwrap();
        assert_eq!(
            (u.as_str(), t.pool_size, t.writers),
            ("postgres://h/db", 16, 2)
        );
        for bad in [
            "pool_size=0",
            "pool_size=x",
            "writers=-1",
            "pool_size=2&writers=2",
        ] {
            let e = tuning(&format!("postgres://u:secret@h/db?{bad}")).unwrap_err();
            assert!(matches!(e, StoreError::InvalidUrl(_)), "{bad}: {e}");
            assert!(!e.to_string().contains("secret"), "{e}");
        }
    }
}

//! skillgate-store: where an A2A agent keeps its tasks.
//!
//! One [`TaskStore`] trait, three implementations chosen by URL ([`open`]):
//! `memory` (bounded by bytes, gone on exit), `sqlite:PATH` (one process, survives restarts)
//! and `postgres://...` (any number of replicas acting as one agent).
//!
//! A store keeps each task as a [`TaskRow`]: the Task plus the columns queries need (owner,
//! state, context, update time, version, lease). The SQL stores hold the Task as compact JSON
//! bytes; the memory store holds the typed Task, shared with the handle that wrote it, so a
//! state change is not paid for with a serialization of the whole task (its budget still counts
//! the exact JSON length). Writes are versioned: [`TaskStore::update`]
//! succeeds only if the stored version is the one the writer read, so two concurrent updates of
//! one task never lose one silently. One update may carry several events (a finishing task's
//! artifacts and its final status), each with a version of its own. Every accepted update's
//! events reach the subscribers of that task, in order, through the store's [`EventHub`]:
//! directly for memory and SQLite, through PostgreSQL `LISTEN/NOTIFY` for replicas, so a stream
//! on one replica sees events produced on another without polling.
//!
//! # A task through a store
//!
//! ```
//! use skillgate_a2a::{Task, TaskState};
//! use skillgate_store::{open, Flags, StoreError, StoreLimits, TaskRow};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//! // "memory" here; "sqlite:/var/lib/skillgate/tasks.db" or "postgres://..." work the same.
//! let store = open("memory", StoreLimits::memory()).await?;
//!
//! let mut task = Task { id: "t1".into(), context_id: "c1".into(), ..Task::default() };
//! task.status.state = TaskState::Submitted;
//! let row = TaskRow::new(&task, Some("label=ops".into()), Flags::default());
//! store.create(&row).await?;
//!
//! // Two writers read version 1; the first to write wins.
//! let mut first = store.get("t1").await?.expect("stored");
//! let mut second = first.clone();
//! task.status.state = TaskState::Working;
//! first.set_task(&task);
//! first.version += 1;
//! store.update(&first, &[]).await?;
//! task.status.state = TaskState::Canceled;
//! second.set_task(&task);
//! second.version += 1;
//! let lost = store.update(&second, &[]).await;
//! assert!(matches!(lost, Err(StoreError::Conflict(_))));
//!
//! // The loser reads again and sees what won.
//! let now = store.get("t1").await?.expect("stored");
//! assert_eq!((now.version, now.state), (2, TaskState::Working));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod group;
mod hub;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
mod row;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod sql;
#[cfg(feature = "sqlite")]
mod sqlite;

#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use group::{CommitHold, CommitStats};
pub use hub::{EventHub, HubEvent, Subscription};
pub use memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub use row::{now_ms, Flags, ListPage, ListQuery, StoreLimits, TaskRow};
#[cfg(feature = "sqlite")]
pub use sqlite::{SqliteStore, SqliteSync};

use async_trait::async_trait;
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{StreamResponse, TaskPushNotificationConfig};
use std::sync::Arc;

/// A push notification config as the store keeps it: the A2A 1.0 config plus the A2A version of
/// the request that registered it, which decides the shape of the bodies its webhook is sent
/// (an A2A 0.3 client's webhook expects 0.3 Task objects, not 1.0 StreamResponses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushRegistration {
    /// The config: id, task id, webhook URL, token and authentication.
    pub config: TaskPushNotificationConfig,
    /// The A2A version the webhook's owner speaks.
    pub version: WireVersion,
}

/// The schema version this build writes. A database whose version table holds a newer one was
/// written by a newer skillgate and is refused rather than misread.
pub const SCHEMA_VERSION: i64 = 3;

/// What went wrong in a store. Every variant's message is meant for an operator or caller.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The task changed since it was read (another writer won); read it again and retry.
    #[error("task {0} was changed concurrently")]
    Conflict(String),
    /// The task does not exist (any more).
    #[error("task {0} not found")]
    NotFound(String),
    /// The caller already has as many unfinished tasks as it may (the limit it has reached).
    /// The message goes to the caller, so it names no server setting.
    #[error(
        "this caller already has {0} unfinished tasks, the most allowed; wait for some to finish"
    )]
    CallerLimit(usize),
    /// The store is full of tasks that may not be evicted (running or waiting for input).
    #[error(
        "the task store is full ({used} of {budget} bytes held by unfinished tasks); retry later"
    )]
    Full {
        /// Bytes held.
        used: u64,
        /// The store's byte budget.
        budget: u64,
    },
    /// The store URL is not one of `memory`, `sqlite:PATH`, `postgres://...`.
    #[error("invalid store {0}")]
    InvalidUrl(String),
    /// The database was written by a newer skillgate.
    #[error("the task store's schema is version {found}, newer than this skillgate's {supported}; upgrade skillgate or use another store")]
    SchemaTooNew {
        /// Version in the database.
        found: i64,
        /// Version this build knows.
        supported: i64,
    },
    /// Another process holds the SQLite file.
    #[error("the SQLite store {0} is in use by another process (one process per SQLite file; use PostgreSQL for replicas)")]
    Locked(String),
    /// A stored task could not be read back.
    #[error("stored task {0} is corrupt: {1}")]
    Corrupt(String, String),
    /// The task already has as many push notification configs as a task may.
    #[error("task {task} already has {max} push notification configs, the most allowed; delete one first")]
    PushConfigLimit {
        /// The task.
        task: String,
        /// The most configs a task may have.
        max: usize,
    },
    /// The database failed (connection, I/O, SQL).
    #[error("task store error: {0}")]
    Database(String),
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Database(e.to_string())
    }
}

/// A task store. Implementations must be safe to share between tasks and, for PostgreSQL,
/// between processes.
#[async_trait]
pub trait TaskStore: Send + Sync + std::fmt::Debug + 'static {
    /// A description for logs (`memory`, `sqlite:/path`, `postgres://host/db`), without secrets.
    fn describe(&self) -> String;

    /// The fan-out of this store's task events to local subscribers.
    fn hub(&self) -> &Arc<EventHub>;

    /// The bounds this store enforces.
    fn limits(&self) -> &StoreLimits;

    /// Stores a new task (version 1). Refuses with [`StoreError::CallerLimit`] when its owner
    /// already has the most unfinished tasks allowed, and with [`StoreError::Full`] when the
    /// byte budget is held by tasks that may not be evicted; evicts the oldest finished tasks
    /// first to make room.
    async fn create(&self, row: &TaskRow) -> Result<(), StoreError>;

    /// The task with this id.
    async fn get(&self, id: &str) -> Result<Option<TaskRow>, StoreError>;

    /// Replaces a task if its stored version is `row.version - max(1, events.len())`
    /// ([`StoreError::Conflict`] otherwise, publishing nothing), then publishes `events` in
    /// order to every subscriber of the task on every replica.
    ///
    /// A write with `k` events advances the version by `k` (by one when it has none), so every
    /// event keeps a version of its own: with `base` the stored version before the write,
    /// event `i` is published as [`HubEvent::Event`] with version `base + 1 + i`, the last one
    /// with `row.version`. A subscriber that read the task at some version skips the events at
    /// or below it, so it misses nothing and sees nothing twice.
    async fn update(&self, row: &TaskRow, events: &[StreamResponse]) -> Result<(), StoreError>;

    /// One page of the tasks a caller may see, newest status first, filtered and counted in
    /// the store.
    async fn list(&self, query: &ListQuery) -> Result<ListPage, StoreError>;

    /// Extends this replica's lease on tasks it is running (no-op for single-process stores).
    async fn renew_leases(&self, ids: &[String]) -> Result<(), StoreError>;

    /// Unfinished tasks to fail: running tasks whose lease expired (their replica stopped) and
    /// interrupted tasks that waited longer than the interrupted TTL. At most `limit`.
    async fn stale(&self, limit: usize) -> Result<Vec<TaskRow>, StoreError>;

    /// Deletes finished tasks past their retention and, oldest first, finished tasks beyond
    /// the byte budget. Returns how many were deleted.
    async fn purge(&self) -> Result<u64, StoreError>;

    /// Bytes held by stored tasks (exact for memory, from the database otherwise).
    async fn used_bytes(&self) -> Result<u64, StoreError>;

    /// Stores a push notification config of the existing task `config.task_id`, replacing
    /// the config with the same id (keeping its place in the list). Refuses with
    /// [`StoreError::NotFound`] when the task does not exist and with
    /// [`StoreError::PushConfigLimit`] when adding it would give the task more than `max`.
    /// A task's configs are deleted with the task (retention, eviction), and do not count
    /// against the byte budget (the service bounds their number and size).
    async fn put_push_config(
        &self,
        registration: &PushRegistration,
        max: usize,
    ) -> Result<(), StoreError>;

    /// The push notification configs of a task, oldest first (none for an unknown task).
    async fn push_configs(&self, task_id: &str) -> Result<Vec<PushRegistration>, StoreError>;

    /// Deletes one push notification config of a task; whether it existed.
    async fn delete_push_config(&self, task_id: &str, id: &str) -> Result<bool, StoreError>;

    /// The replica id written into leases (unique per process).
    fn replica(&self) -> &str;

    /// Whether this store keeps the typed Task of a row it is given ([`TaskRow::typed`]) rather
    /// than its JSON: writers then build typed rows, and serialize nothing; for the others they
    /// build serialized rows ([`TaskRow::new`]), so the JSON is made once, by the writer.
    fn keeps_typed_tasks(&self) -> bool {
        false
    }

    /// Whether an update of this task needs its event: always when other processes may listen
    /// (PostgreSQL), else only while someone in this process subscribes to the task. Writers
    /// skip building events nobody can receive.
    fn wants_event(&self, id: &str) -> bool {
        self.hub().has_subscribers(id)
    }
}

/// The stored version an update of `row` carrying `events` events expects: the write advances
/// the version by the number of its events, and by one when it has none.
pub(crate) fn expected_version(row: &TaskRow, events: usize) -> i64 {
    row.version
        .saturating_sub(i64::try_from(events.max(1)).unwrap_or(i64::MAX))
}

/// The events of an accepted update as the hub publishes them, each with its own version:
/// the last one has `row.version`, those before it the versions just below.
pub(crate) fn versioned_events<'a>(
    row: &'a TaskRow,
    events: &'a [StreamResponse],
) -> impl Iterator<Item = (i64, &'a StreamResponse)> + 'a {
    let base = expected_version(row, events.len());
    (1i64..).map(move |i| base + i).zip(events)
}

/// Opens the store a URL names: `memory`, `sqlite:PATH` (created with its directory if
/// missing; `sqlite:PATH?synchronous=normal` syncs only checkpoints, see `SqliteSync`) or
/// `postgres://...` / `postgresql://...`. Runs the embedded migrations.
pub async fn open(url: &str, limits: StoreLimits) -> Result<Arc<dyn TaskStore>, StoreError> {
    if url == "memory" {
        return Ok(Arc::new(MemoryStore::new(limits)));
    }
    if let Some(rest) = url.strip_prefix("sqlite:") {
        let (path, normal) = sqlite_url(rest)?;
        return open_sqlite(path, normal, limits).await;
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        #[cfg(feature = "postgres")]
        return Ok(Arc::new(PostgresStore::open(url, limits).await?));
        #[cfg(not(feature = "postgres"))]
        return Err(not_built("postgres"));
    }
    Err(StoreError::InvalidUrl(format!(
        "{:?}: use memory, sqlite:PATH or postgres://USER@HOST/DB",
        redact(url)
    )))
}

/// The store a server uses when none is named: SQLite at
/// `$XDG_STATE_HOME/skillgate/tasks.db`, else `$HOME/.local/state/skillgate/tasks.db` (the XDG
/// base directory for state that should survive restarts; `skillgate_platform::dirs` has the
/// rules). `None` when neither gives a usable directory: there is no per-user place to keep
/// tasks.
pub fn default_url() -> Option<String> {
    let dir = skillgate_platform::dirs::skillgate_dir(skillgate_platform::dirs::BaseDir::State)?;
    Some(format!("sqlite:{}", dir.join("tasks.db").display()))
}

/// Runs the migrations of a SQL store without serving (`skillgate store migrate`). Returns the
/// schema version before and after.
pub async fn migrate(url: &str) -> Result<(i64, i64), StoreError> {
    if let Some(rest) = url.strip_prefix("sqlite:") {
        let (_path, _) = sqlite_url(rest)?;
        #[cfg(feature = "sqlite")]
        return sqlite::migrate_only(_path.as_ref()).await;
        #[cfg(not(feature = "sqlite"))]
        return Err(not_built("sqlite"));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        #[cfg(feature = "postgres")]
        return postgres::migrate_only(url).await;
        #[cfg(not(feature = "postgres"))]
        return Err(not_built("postgres"));
    }
    Err(StoreError::InvalidUrl(format!(
        "{:?}: migrations apply to sqlite:PATH or postgres://... stores",
        redact(url)
    )))
}

/// The SQLite store at `path`, its commits synced only at checkpoints if `normal`.
#[cfg(feature = "sqlite")]
async fn open_sqlite(
    path: &str,
    normal: bool,
    limits: StoreLimits,
) -> Result<Arc<dyn TaskStore>, StoreError> {
    let sync = if normal {
        SqliteSync::Normal
    } else {
        SqliteSync::Full
    };
    Ok(Arc::new(
        SqliteStore::open_with(path.as_ref(), limits, sync).await?,
    ))
}

/// The refusal of a build without the SQLite store.
#[cfg(not(feature = "sqlite"))]
async fn open_sqlite(
    _path: &str,
    _normal: bool,
    _limits: StoreLimits,
) -> Result<Arc<dyn TaskStore>, StoreError> {
    Err(not_built("sqlite"))
}

/// What follows `sqlite:` in a store URL: the file's path (a leading `//` dropped) and
/// whether it asks for `synchronous=normal`, the one option there is (`synchronous=full` is
/// the default, and may be written). The option is read from after the last `?`, so a path
/// with a `?` in it needs one at its end (`sqlite:/odd?name.db?`).
fn sqlite_url(rest: &str) -> Result<(&str, bool), StoreError> {
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let (path, normal) = match rest.rsplit_once('?') {
        None => (rest, false),
        Some((path, "")) => (path, false),
        Some((path, "synchronous=full")) => (path, false),
        Some((path, "synchronous=normal")) => (path, true),
        Some((_, other)) => {
            return Err(StoreError::InvalidUrl(format!(
                "sqlite: unknown option {other:?}: the one option is synchronous=full (the default: every commit synced) or synchronous=normal (only checkpoints synced; a power loss can lose the last commits)"
            )))
        }
    };
    if path.is_empty() {
        return Err(StoreError::InvalidUrl(
            "sqlite: needs a file path, e.g. sqlite:/var/lib/skillgate/tasks.db".into(),
        ));
    }
    Ok((path, normal))
}

/// The refusal of a store kind this build left out (its Cargo feature is off).
#[cfg(not(all(feature = "sqlite", feature = "postgres")))]
fn not_built(feature: &str) -> StoreError {
    StoreError::InvalidUrl(format!(
        "{feature}: this build has no {feature} store (skillgate-store was built without its `{feature}` feature)"
    ))
}

/// A store URL with any password replaced by `***`, for logs and messages: the one
/// redaction of skillgate-a2a, so a URL that does not parse loses its user-info too.
pub use skillgate_a2a::redact::redact_str as redact;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_passwords() {
        assert_eq!(
            redact("postgres://alice:S3cret@db.example/tasks"),
            "postgres://alice:***@db.example/tasks"
        );
        assert_eq!(redact("memory"), "memory");
        // A URL that does not parse still loses what may be a password.
        assert_eq!(
            redact("postgres://alice:S3 cret@[bad/tasks"),
            "postgres://***@[bad/tasks"
        );
    }

    #[test]
    fn sqlite_urls_name_a_path_and_maybe_how_commits_sync() {
        assert_eq!(sqlite_url("/var/t.db").unwrap(), ("/var/t.db", false));
        assert_eq!(sqlite_url("///var/t.db").unwrap(), ("/var/t.db", false));
        assert_eq!(
            sqlite_url("t.db?synchronous=normal").unwrap(),
            ("t.db", true)
        );
        assert_eq!(
            sqlite_url("t.db?synchronous=full").unwrap(),
            ("t.db", false)
        );
        assert_eq!(
            sqlite_url("/odd?name.db?").unwrap(),
            ("/odd?name.db", false)
        );
        for bad in [
            "t.db?synchronous=off",
            "t.db?mode=ro",
            "",
            "?synchronous=normal",
        ] {
            let e = sqlite_url(bad).unwrap_err();
            assert!(matches!(e, StoreError::InvalidUrl(_)), "{bad}: {e}");
        }
        let e = sqlite_url("t.db?synchronous=off").unwrap_err().to_string();
        assert!(
            e.contains("synchronous=normal") && e.contains("\"synchronous=off\""),
            "{e}"
        );
    }
}

//! Rows, limits and scratch stores for the tests.

use bytes::Bytes;
use skillgate_a2a::types::{Artifact, Part, Task, TaskState};
use skillgate_store::{
    Flags, MemoryStore, PostgresStore, SqliteStore, StoreLimits, TaskRow, TaskStore,
};
use sqlx::Connection;
use std::sync::Arc;
use std::time::Duration;

/// Generous limits; tests narrow the one they exercise.
pub fn limits() -> StoreLimits {
    StoreLimits {
        max_bytes: 1 << 30,
        max_task_bytes: 256 << 10,
        max_running_per_caller: 1000,
        interrupted_ttl: Duration::from_secs(3600),
        retention: Duration::from_secs(24 * 3600),
        lease_ttl: Duration::from_secs(15),
    }
}

/// RFC 3339 of ms since the epoch.
pub fn rfc3339(ms: i64) -> String {
    skillgate_a2a::timestamp::format_unix_millis(ms)
}

/// A task in `state` whose status changed at `updated_ms`.
pub fn task(id: &str, ctx: &str, state: TaskState, updated_ms: i64) -> Task {
    let mut t = Task {
        id: id.into(),
        context_id: ctx.into(),
        ..Default::default()
    };
    t.status.state = state;
    t.status.timestamp = Some(rfc3339(updated_ms));
    t
}

/// A row of [`task`]; terminal rows finish at `updated_ms`.
pub fn row(id: &str, ctx: &str, owner: Option<&str>, state: TaskState, updated_ms: i64) -> TaskRow {
    let mut r = TaskRow::new(
        &task(id, ctx, state, updated_ms),
        owner.map(Into::into),
        Flags::default(),
    );
    if state.is_terminal() {
        r.finished_ms = Some(updated_ms);
    }
    r
}

/// A row with an artifact of non-ASCII text, flags and an owner: everything a body carries.
pub fn rich_row(id: &str) -> TaskRow {
    let mut t = task(id, "ctx-ü", TaskState::Working, skillgate_store::now_ms());
    t.artifacts.push(Artifact {
        artifact_id: "a1".into(),
        name: "résumé \u{1F600} \"quoted\" \\ back".into(),
        parts: vec![Part::text("x".repeat(3000) + "\u{0}\u{7f}ß")],
        ..Default::default()
    });
    TaskRow::new(
        &t,
        Some("alice@example".into()),
        Flags {
            cancelable: true,
            plain: false,
            turn_taken: true,
        },
    )
}

/// The next version of `r` with its task moved to `state` at `updated_ms`.
pub fn next(r: &TaskRow, state: TaskState, updated_ms: i64) -> TaskRow {
    let mut t = r.task().unwrap();
    t.status.state = state;
    t.status.timestamp = Some(rfc3339(updated_ms));
    let mut n = r.clone();
    n.set_task(&t);
    n.version += 1;
    n
}

/// `r` with a body of exactly `len` bytes (the store never parses bodies).
pub fn sized(mut r: TaskRow, len: usize) -> TaskRow {
    let head = format!("{{\"id\":\"{}\",\"pad\":\"", r.id);
    let pad = len - head.len() - 2;
    r.set_body(Bytes::from(format!("{head}{}\"}}", "p".repeat(pad))));
    assert_eq!(r.body().len(), len);
    r
}

/// Which store a test runs on.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Memory,
    Sqlite,
    Postgres,
}

/// A scratch store and what must outlive it.
pub struct Env {
    pub store: Arc<dyn TaskStore>,
    _dir: Option<tempfile::TempDir>,
    _db: Option<PgDb>,
}

impl Env {
    /// A fresh, empty store of `kind`; `None` when PostgreSQL tests are skipped.
    pub async fn open(kind: Kind, limits: StoreLimits) -> Option<Env> {
        Some(match kind {
            Kind::Memory => Env {
                store: Arc::new(MemoryStore::new(limits)),
                _dir: None,
                _db: None,
            },
            Kind::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                let store = SqliteStore::open(&dir.path().join("tasks.db"), limits)
                    .await
                    .unwrap();
                Env {
                    store: Arc::new(store),
                    _dir: Some(dir),
                    _db: None,
                }
            }
            Kind::Postgres => {
                let db = PgDb::create().await?;
                let store = PostgresStore::open(&db.url, limits).await.unwrap();
                Env {
                    store: Arc::new(store),
                    _dir: None,
                    _db: Some(db),
                }
            }
        })
    }
}

/// The PostgreSQL server tests use, or `None` when told to skip.
pub fn pg_admin_url() -> Option<String> {
    match std::env::var("SKILLGATE_TEST_PG") {
        Ok(v) if v == "skip" => {
            eprintln!("SKILLGATE_TEST_PG=skip: PostgreSQL test skipped");
            None
        }
        Ok(v) if !v.is_empty() => Some(v),
        _ => Some("postgres://postgres@127.0.0.1:5432/postgres".into()),
    }
}

/// A scratch database, dropped (best effort) when this is.
pub struct PgDb {
    pub url: String,
    admin: String,
    name: String,
}

impl PgDb {
    /// Creates `sg_test_<uuid>`; fails the test if the server is unreachable.
    pub async fn create() -> Option<PgDb> {
        let admin = pg_admin_url()?;
        let mut c = sqlx::PgConnection::connect(&admin)
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "PostgreSQL at {} is unreachable ({e}); start it, point SKILLGATE_TEST_PG at \
                 one, or set SKILLGATE_TEST_PG=skip",
                    skillgate_store::redact(&admin)
                )
            });
        let name = format!("sg_test_{}", uuid::Uuid::new_v4().simple());
        sqlx::raw_sql(&format!("CREATE DATABASE {name}"))
            .execute(&mut c)
            .await
            .unwrap();
        let _ = c.close().await;
        let mut u = url::Url::parse(&admin).unwrap();
        u.set_path(&format!("/{name}"));
        Some(PgDb {
            url: u.to_string(),
            admin,
            name,
        })
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        let (admin, name) = (self.admin.clone(), self.name.clone());
        // Own thread and runtime: this may run inside (or while unwinding out of) a test's
        // runtime.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                if let Ok(mut c) = sqlx::PgConnection::connect(&admin).await {
                    let _ = sqlx::raw_sql(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                        .execute(&mut c)
                        .await;
                    let _ = c.close().await;
                }
            });
        })
        .join();
    }
}

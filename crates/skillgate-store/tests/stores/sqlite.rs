//! What only the SQLite store shows: durability across restarts and crashes, one process per
//! file, schema versions.

use crate::common::{limits, next, rich_row, row};
use skillgate_a2a::types::TaskState;
use skillgate_store::{now_ms, ListQuery, SqliteStore, StoreError, TaskRow, TaskStore};
use sqlx::Connection;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Writes a mix of tasks: running, interrupted, finished, updated. Returns them as stored.
async fn write_mix(s: &SqliteStore) -> Vec<TaskRow> {
    let t = now_ms();
    let mut rows = vec![
        rich_row("running"),
        row("waiting", "c1", None, TaskState::InputRequired, t),
        row("done", "c2", Some("bob"), TaskState::Completed, t - 5),
    ];
    for r in &rows {
        s.create(r).await.unwrap();
    }
    let updated = next(&rows[1], TaskState::Working, t + 1);
    s.update(&updated, &[]).await.unwrap();
    rows[1] = updated;
    for i in 0..20 {
        let r = row(
            &format!("bulk{i:02}"),
            "c3",
            None,
            TaskState::Completed,
            t - 100 - i,
        );
        s.create(&r).await.unwrap();
        rows.push(r);
    }
    rows
}

async fn assert_recovered(s: &SqliteStore, rows: &[TaskRow]) {
    for r in rows {
        assert_eq!(
            s.get(&r.id).await.unwrap().as_ref(),
            Some(r),
            "{} survives",
            r.id
        );
    }
    let all = s
        .list(&ListQuery {
            caller: Some("alice@example".into()),
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(all.total, rows.len() as u64 - 1, "all but bob's");
    assert_eq!(
        s.used_bytes().await.unwrap(),
        rows.iter().map(TaskRow::size).sum::<u64>()
    );
    // The tasks that were running belong to a process that is gone: stale at once.
    let mut stale: Vec<String> = s
        .stale(100)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    stale.sort();
    assert_eq!(stale, ["running", "waiting"]);
}

#[tokio::test]
async fn durable_across_reopen_and_running_tasks_go_stale() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dirs/tasks.db");
    let s = SqliteStore::open(&path, limits()).await.unwrap();
    assert_eq!(s.describe(), format!("sqlite:{}", path.display()));
    let rows = write_mix(&s).await;
    assert!(
        s.stale(100).await.unwrap().is_empty(),
        "own running tasks are not stale"
    );
    drop(s);
    let s = SqliteStore::open(&path, limits()).await.unwrap();
    assert_recovered(&s, &rows).await;
    // And through the URL form.
    drop(s);
    let s = skillgate_store::open(&format!("sqlite:{}", path.display()), limits())
        .await
        .unwrap();
    assert_eq!(s.get("done").await.unwrap().as_ref(), Some(&rows[2]));
}

/// The child half of `durable_across_kill_9`: writes, reports, then waits to be killed.
#[tokio::test]
#[ignore = "run by durable_across_kill_9 in a child process"]
async fn crash_child() {
    let Ok(path) = std::env::var("SG_CRASH_DB") else {
        return;
    };
    let s = SqliteStore::open(Path::new(&path), limits()).await.unwrap();
    let rows = write_mix(&s).await;
    std::fs::write(
        format!("{path}.expected"),
        serde_json::to_vec(&rows.iter().map(|r| &r.id).collect::<Vec<_>>()).unwrap(),
    )
    .unwrap();
    println!("READY");
    tokio::time::sleep(Duration::from_secs(120)).await;
}

#[tokio::test]
async fn durable_across_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.db");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "sqlite::crash_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SG_CRASH_DB", &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        let line = lines.next().expect("child exited before writing").unwrap();
        if line.contains("READY") {
            break;
        }
    }
    // While the child lives, the file is its own.
    let r = SqliteStore::open(&path, limits()).await;
    assert!(matches!(r, Err(StoreError::Locked(_))), "{r:?}");
    child.kill().unwrap(); // SIGKILL: no close, no checkpoint
    child.wait().unwrap();
    let s = SqliteStore::open(&path, limits()).await.unwrap();
    // Same rows the child wrote (rebuilt here deterministically but for timestamps: compare
    // what does not depend on the clock).
    let ids: Vec<String> =
        serde_json::from_slice(&std::fs::read(format!("{}.expected", path.display())).unwrap())
            .unwrap();
    assert_eq!(ids.len(), 23);
    for id in &ids {
        assert!(s.get(id).await.unwrap().is_some(), "{id} survived kill -9");
    }
    assert_eq!(
        s.get("waiting").await.unwrap().unwrap().version,
        2,
        "the update survived"
    );
    let mut stale: Vec<String> = s
        .stale(100)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    stale.sort();
    assert_eq!(stale, ["running", "waiting"]);
}

#[tokio::test]
async fn second_open_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.db");
    let a = SqliteStore::open(&path, limits()).await.unwrap();
    a.create(&rich_row("t1")).await.unwrap();
    let b = SqliteStore::open(&path, limits()).await;
    match b {
        Err(StoreError::Locked(p)) => assert_eq!(p, path.display().to_string()),
        other => panic!("expected Locked, got {other:?}"),
    }
    let m = skillgate_store::migrate(&format!("sqlite:{}", path.display())).await;
    assert!(matches!(m, Err(StoreError::Locked(_))), "{m:?}");
    // The first store is unharmed by the attempts.
    a.create(&rich_row("t2")).await.unwrap();
    assert!(a.get("t1").await.unwrap().is_some());
    drop(a);
    let b = SqliteStore::open(&path, limits()).await.unwrap();
    assert!(b.get("t2").await.unwrap().is_some());
}

#[tokio::test]
async fn migrations_and_schema_too_new() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.db");
    let url = format!("sqlite:{}", path.display());
    assert_eq!(skillgate_store::migrate(&url).await.unwrap(), (0, 3));
    assert_eq!(skillgate_store::migrate(&url).await.unwrap(), (3, 3));
    let s = SqliteStore::open(&path, limits()).await.unwrap();
    s.create(&rich_row("t1")).await.unwrap();
    drop(s);
    // Wait for the dropped store's connection to let go, then play a newer skillgate.
    let c = loop {
        let c = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display())).await;
        if let Ok(mut c) = c {
            if sqlx::raw_sql("UPDATE skillgate_schema_version SET version = 99")
                .execute(&mut c)
                .await
                .is_ok()
            {
                break c;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    c.close().await.unwrap();
    let r = SqliteStore::open(&path, limits()).await;
    assert!(
        matches!(
            r,
            Err(StoreError::SchemaTooNew {
                found: 99,
                supported: 3
            })
        ),
        "{r:?}"
    );
    let r = skillgate_store::migrate(&url).await;
    assert!(
        matches!(r, Err(StoreError::SchemaTooNew { found: 99, .. })),
        "{r:?}"
    );
}

/// `open` and `migrate` (all three kinds: one future type) can run on any runtime thread,
/// as a server spawning them needs.
#[tokio::test]
async fn open_and_migrate_futures_are_send() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("t.db").display());
    let u = url.clone();
    let versions = tokio::spawn(async move { skillgate_store::migrate(&u).await.unwrap() })
        .await
        .unwrap();
    assert_eq!(versions, (0, 3));
    let s = tokio::spawn(async move { skillgate_store::open(&url, limits()).await.unwrap() })
        .await
        .unwrap();
    assert!(s.describe().starts_with("sqlite:/"));
}

/// Push notification configs survive a restart, and a file written by schema version 1
/// (before push configs existed) gains the table on open.
#[tokio::test]
async fn push_configs_survive_a_restart_and_an_upgrade_from_version_1() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.db");
    let cfg = skillgate_store::PushRegistration {
        config: skillgate_a2a::TaskPushNotificationConfig {
            id: "c1".into(),
            task_id: "t1".into(),
            url: "https://hook.example/a2a".into(),
            token: "tok".into(),
            ..Default::default()
        },
        version: skillgate_a2a::version::WireVersion::V0_3,
    };
    let s = SqliteStore::open(&path, limits()).await.unwrap();
    s.create(&rich_row("t1")).await.unwrap();
    s.put_push_config(&cfg, 16).await.unwrap();
    drop(s);
    let s = SqliteStore::open(&path, limits()).await.unwrap();
    assert_eq!(s.push_configs("t1").await.unwrap(), vec![cfg.clone()]);
    drop(s);
    // Play a version-1 file: no push table, version 1.
    let c = loop {
        let c = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display())).await;
        if let Ok(mut c) = c {
            let v1 = "DROP TRIGGER tasks_push_delete; DROP TABLE push_configs;
                      DROP TABLE shared_json; ALTER TABLE tasks DROP COLUMN shared_at;
                      ALTER TABLE tasks DROP COLUMN shared_key;
                      UPDATE skillgate_schema_version SET version = 1";
            if sqlx::raw_sql(v1).execute(&mut c).await.is_ok() {
                break c;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    c.close().await.unwrap();
    let url = format!("sqlite:{}", path.display());
    assert_eq!(skillgate_store::migrate(&url).await.unwrap(), (1, 3));
    let s = SqliteStore::open(&path, limits()).await.unwrap();
    assert!(s.get("t1").await.unwrap().is_some(), "tasks kept");
    assert!(s.push_configs("t1").await.unwrap().is_empty());
    s.put_push_config(&cfg, 16).await.unwrap();
    assert_eq!(s.push_configs("t1").await.unwrap().len(), 1);
}

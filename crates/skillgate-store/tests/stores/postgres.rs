//! What only the PostgreSQL store shows: replicas sharing events and leases, migrations
//! between replicas, schema versions, connection errors.

use crate::common::{limits, next, row, PgDb};
use skillgate_a2a::types::{
    Artifact, Part, StreamResponse, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use skillgate_store::{
    now_ms, HubEvent, PostgresStore, StoreError, StoreLimits, Subscription, TaskRow, TaskStore,
};
use sqlx::Connection;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub fn status_event(r: &TaskRow, n: usize) -> StreamResponse {
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id: r.id.clone(),
        context_id: r.context_id.clone(),
        status: TaskStatus {
            state: r.state,
            timestamp: Some(format!("event {n}")),
            ..Default::default()
        },
        ..Default::default()
    })
}

pub async fn recv(sub: &mut Subscription) -> HubEvent {
    tokio::time::timeout(Duration::from_secs(10), sub.recv())
        .await
        .expect("event within 10 s")
        .expect("no lag")
}

#[tokio::test]
async fn events_reach_every_replica_in_order() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    let a = PostgresStore::open(&db.url, limits()).await.unwrap();
    let b = PostgresStore::open(&db.url, limits()).await.unwrap();
    assert_ne!(a.replica(), b.replica());
    let mut cur = row("t1", "c", None, TaskState::Working, now_ms());
    a.create(&cur).await.unwrap();
    let mut on_b = b.hub().subscribe("t1");
    let mut on_a = a.hub().subscribe("t1");
    let mut sent = Vec::new();
    for n in 0..50 {
        cur = next(&cur, TaskState::Working, now_ms());
        let ev = status_event(&cur, n);
        a.update(&cur, std::slice::from_ref(&ev)).await.unwrap();
        sent.push((cur.version, ev));
    }
    for sub in [&mut on_b, &mut on_a] {
        for (version, ev) in &sent {
            match recv(sub).await {
                HubEvent::Event { version: v, event } => {
                    assert_eq!(v, *version);
                    assert_eq!(&event, ev);
                }
                other => panic!("expected event {version}, got {other:?}"),
            }
        }
    }
    // An update without an event publishes nothing; an event too large for NOTIFY arrives as
    // a resync with its version.
    cur = next(&cur, TaskState::Working, now_ms());
    a.update(&cur, &[]).await.unwrap();
    cur = next(&cur, TaskState::Working, now_ms());
    let big = StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: "t1".into(),
        artifact: Artifact {
            artifact_id: "a".into(),
            parts: vec![Part::text("z".repeat(9000))],
            ..Default::default()
        },
        ..Default::default()
    });
    a.update(&cur, std::slice::from_ref(&big)).await.unwrap();
    for sub in [&mut on_b, &mut on_a] {
        match recv(sub).await {
            HubEvent::Resync { version } => assert_eq!(version, 53),
            other => panic!("expected a resync, got {other:?}"),
        }
    }
    // Nothing else was published (no local duplicate of A's own events).
    cur = next(&cur, TaskState::Working, now_ms());
    a.update(&cur, &[status_event(&cur, 99)]).await.unwrap();
    assert_eq!(recv(&mut on_a).await.version(), 54);
    assert_eq!(recv(&mut on_b).await.version(), 54);
    // A terminal status written by B stops A's local run of the task.
    let token = tokio_util::sync::CancellationToken::new();
    a.hub().run("t1", token.clone());
    let mut done = next(&cur, TaskState::Canceled, now_ms());
    done.finished_ms = Some(now_ms());
    b.update(&done, &[status_event(&done, 100)]).await.unwrap();
    assert_eq!(recv(&mut on_a).await.version(), 55);
    assert!(token.is_cancelled());
}

#[tokio::test]
async fn several_events_of_one_write_reach_every_replica_in_order() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    let a = PostgresStore::open(&db.url, limits()).await.unwrap();
    let b = PostgresStore::open(&db.url, limits()).await.unwrap();
    let first = row("t1", "c", None, TaskState::Working, now_ms());
    a.create(&first).await.unwrap();
    let mut on_b = b.hub().subscribe("t1");
    let mut on_a = a.hub().subscribe("t1");
    // Three events in one write: versions 2, 3, 4, in order, on both replicas.
    let mut cur = next(&first, TaskState::Working, now_ms());
    cur.version += 2;
    let evs: Vec<_> = (0..3).map(|n| status_event(&cur, n)).collect();
    a.update(&cur, &evs).await.unwrap();
    assert_eq!(b.get("t1").await.unwrap().unwrap().version, 4);
    // A stale write with several events (from version 1, now 4) conflicts and sends nothing.
    let mut stale = next(&first, TaskState::Canceled, now_ms());
    stale.version += 1;
    let r = b
        .update(
            &stale,
            &[status_event(&stale, 90), status_event(&stale, 91)],
        )
        .await;
    assert!(matches!(r, Err(StoreError::Conflict(_))), "{r:?}");
    // A write whose middle event is too large for NOTIFY: that one becomes a resync with its
    // own version, the others keep theirs.
    let mut done = next(&cur, TaskState::Completed, now_ms());
    done.finished_ms = Some(now_ms());
    done.version += 2;
    let big = StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: "t1".into(),
        artifact: Artifact {
            artifact_id: "a".into(),
            parts: vec![Part::text("z".repeat(9000))],
            ..Default::default()
        },
        ..Default::default()
    });
    let last = [status_event(&done, 3), big, status_event(&done, 4)];
    b.update(&done, &last).await.unwrap();
    for sub in [&mut on_b, &mut on_a] {
        for (version, ev) in (2i64..).zip(&evs) {
            match recv(sub).await {
                HubEvent::Event { version: v, event } => {
                    assert_eq!(v, version);
                    assert_eq!(&event, ev);
                }
                other => panic!("expected event {version}, got {other:?}"),
            }
        }
        match recv(sub).await {
            HubEvent::Event { version: 5, event } => assert_eq!(event, last[0]),
            other => panic!("expected event 5, got {other:?}"),
        }
        match recv(sub).await {
            HubEvent::Resync { version: 6 } => {}
            other => panic!("expected a resync of version 6, got {other:?}"),
        }
        match recv(sub).await {
            HubEvent::Event { version: 7, event } => assert_eq!(event, last[2]),
            other => panic!("expected event 7, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn listener_outage_resyncs_streams() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    let a = PostgresStore::open(&db.url, limits()).await.unwrap();
    let b = PostgresStore::open(&db.url, limits()).await.unwrap();
    let mut cur = row("t1", "c", None, TaskState::Working, now_ms());
    a.create(&cur).await.unwrap();
    let mut sub = b.hub().subscribe("t1");
    let token = tokio_util::sync::CancellationToken::new();
    b.hub().run("t1", token.clone());
    // Kill every listening session, then write while the replicas reconnect.
    let mut admin = sqlx::PgConnection::connect(&db.url).await.unwrap();
    let killed: i64 = sqlx::query_scalar(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'LISTEN%'",
    )
    .fetch_one(&mut admin)
    .await
    .unwrap();
    assert_eq!(killed, 2, "both replicas' listeners");
    cur = next(&cur, TaskState::Working, now_ms());
    a.update(&cur, &[status_event(&cur, 1)]).await.unwrap();
    // B learns of version 2 either way: as the event (if it was listening again in time) or
    // as a resync from the table (possibly after a resync of version 1, if the table was read
    // before the update committed, which a stream skips as not newer than what it has).
    while recv(&mut sub).await.version() < 2 {}
    // And it listens again.
    cur = next(&cur, TaskState::Working, now_ms());
    a.update(&cur, &[status_event(&cur, 2)]).await.unwrap();
    loop {
        match recv(&mut sub).await {
            HubEvent::Event { version: 3, .. } => break,
            e if e.version() <= 3 => continue,
            e => panic!("unexpected {e:?}"),
        }
    }
    // A cancel written elsewhere during an outage still stops the local run. Wait until both
    // listeners are back first (they reconnect on their own schedule; on a loaded machine
    // that can take a while).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let listening: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND query LIKE 'LISTEN%'",
        )
        .fetch_one(&mut admin)
        .await
        .unwrap();
        if listening == 2 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "listeners did not come back: {listening}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let killed: i64 = sqlx::query_scalar(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'LISTEN%'",
    )
    .fetch_one(&mut admin)
    .await
    .unwrap();
    assert_eq!(killed, 2);
    let mut done = next(&cur, TaskState::Canceled, now_ms());
    done.finished_ms = Some(now_ms());
    a.update(&done, &[status_event(&done, 3)]).await.unwrap();
    loop {
        if recv(&mut sub).await.version() >= 4 {
            break;
        }
    }
    assert!(token.is_cancelled());
    admin.close().await.unwrap();
}

#[tokio::test]
async fn expired_leases_are_stale_on_other_replicas() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    let short = StoreLimits {
        lease_ttl: Duration::from_millis(300),
        ..limits()
    };
    let a = PostgresStore::open(&db.url, short.clone()).await.unwrap();
    let b = PostgresStore::open(&db.url, short).await.unwrap();
    let t = row("t1", "c", None, TaskState::Working, now_ms());
    a.create(&t).await.unwrap();
    a.create(&row("t2", "c", None, TaskState::Completed, now_ms()))
        .await
        .unwrap();
    // A renews for well over a TTL: never stale.
    let ids = vec!["t1".to_string()];
    for _ in 0..8 {
        a.renew_leases(&ids).await.unwrap();
        assert!(
            b.stale(10).await.unwrap().is_empty(),
            "renewed lease is live"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // B cannot renew A's lease.
    b.renew_leases(&ids).await.unwrap();
    // A stops renewing: stale after the TTL.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let stale = b.stale(10).await.unwrap();
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0], t);
    // B fails it; A's late write loses.
    let mut failed = next(&t, TaskState::Failed, now_ms());
    failed.finished_ms = Some(now_ms());
    b.update(&failed, &[]).await.unwrap();
    let late = next(&t, TaskState::Completed, now_ms());
    assert!(matches!(
        a.update(&late, &[]).await,
        Err(StoreError::Conflict(_))
    ));
    assert!(b.stale(10).await.unwrap().is_empty());
    // A running task written by B carries B's lease, which A's renewal does not touch.
    let t3 = row("t3", "c", None, TaskState::Submitted, now_ms());
    b.create(&t3).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    a.renew_leases(&["t3".to_string()]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(a.stale(10).await.unwrap().len(), 1);
}

#[tokio::test]
async fn migrations_concurrent_and_schema_too_new() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    // Several replicas starting at once on an empty database.
    let mut starts = Vec::new();
    for _ in 0..4 {
        let url = db.url.clone();
        starts.push(tokio::spawn(async move {
            PostgresStore::open(&url, limits()).await.map(|_| ())
        }));
    }
    for s in starts {
        s.await.unwrap().unwrap();
    }
    assert_eq!(skillgate_store::migrate(&db.url).await.unwrap(), (3, 3));
    let mut c = sqlx::PgConnection::connect(&db.url).await.unwrap();
    sqlx::raw_sql("UPDATE skillgate_schema_version SET version = 99")
        .execute(&mut c)
        .await
        .unwrap();
    c.close().await.unwrap();
    let r = PostgresStore::open(&db.url, limits()).await;
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
    let r = skillgate_store::migrate(&db.url).await;
    assert!(
        matches!(r, Err(StoreError::SchemaTooNew { found: 99, .. })),
        "{r:?}"
    );
}

#[tokio::test]
async fn migrate_only_on_a_fresh_database() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    assert_eq!(skillgate_store::migrate(&db.url).await.unwrap(), (0, 3));
    let s = skillgate_store::open(&db.url, limits()).await.unwrap();
    assert!(!s.describe().is_empty());
    assert_eq!(s.used_bytes().await.unwrap(), 0);
}

/// A database at schema version 1 (before push configs) gains them on open, keeping its
/// tasks; TRUNCATE of tasks (an operator's reset) empties the configs too.
#[tokio::test]
async fn upgrade_from_version_1_adds_push_configs() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    let s = PostgresStore::open(&db.url, limits()).await.unwrap();
    s.create(&row("t1", "c", None, TaskState::Working, now_ms()))
        .await
        .unwrap();
    drop(s);
    let mut c = sqlx::PgConnection::connect(&db.url).await.unwrap();
    sqlx::raw_sql(
        "DROP TABLE push_configs;
         DROP TRIGGER tasks_push_delete ON tasks; DROP FUNCTION skillgate_tasks_push_delete();
         DROP TRIGGER tasks_push_truncate ON tasks; DROP FUNCTION skillgate_tasks_push_truncate();
         DROP TABLE shared_json;
         ALTER TABLE tasks DROP COLUMN shared_at, DROP COLUMN shared_key;
         UPDATE skillgate_schema_version SET version = 1",
    )
    .execute(&mut c)
    .await
    .unwrap();
    assert_eq!(skillgate_store::migrate(&db.url).await.unwrap(), (1, 3));
    let s = PostgresStore::open(&db.url, limits()).await.unwrap();
    assert!(s.get("t1").await.unwrap().is_some(), "tasks kept");
    let cfg = skillgate_store::PushRegistration {
        config: skillgate_a2a::TaskPushNotificationConfig {
            id: "c1".into(),
            task_id: "t1".into(),
            url: "https://hook.example/".into(),
            ..Default::default()
        },
        version: skillgate_a2a::version::WireVersion::V1_0,
    };
    s.put_push_config(&cfg, 16).await.unwrap();
    assert_eq!(s.push_configs("t1").await.unwrap(), vec![cfg]);
    sqlx::raw_sql("TRUNCATE tasks")
        .execute(&mut c)
        .await
        .unwrap();
    assert!(s.push_configs("t1").await.unwrap().is_empty());
    c.close().await.unwrap();
}

#[tokio::test]
async fn unreachable_server_is_named_without_its_password() {
    let url = "postgres://alice:S3cretPw@127.0.0.1:1/tasks";
    let err = PostgresStore::open(url, limits()).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, StoreError::Database(_)), "{err:?}");
    assert!(msg.contains("127.0.0.1:1"), "{msg}");
    assert!(msg.contains("***"), "{msg}");
    assert!(!msg.contains("S3cretPw"), "{msg}");
    let err = skillgate_store::migrate(url).await.unwrap_err().to_string();
    assert!(
        !err.contains("S3cretPw") && err.contains("127.0.0.1:1"),
        "{err}"
    );
}

#[tokio::test]
async fn describe_redacts_the_password() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    let s = PostgresStore::open(&db.url, limits()).await.unwrap();
    assert_eq!(s.describe(), skillgate_store::redact(&db.url));
    // With a password in the URL (trust auth ignores it).
    let mut u = url::Url::parse(&db.url).unwrap();
    u.set_password(Some("Hunter2pw")).unwrap();
    if let Ok(s) = PostgresStore::open(u.as_str(), limits()).await {
        assert!(!s.describe().contains("Hunter2pw"));
        assert!(s.describe().contains("***"));
    }
}

/// A TCP relay to the database that can refuse new connections, to hold a replica's listener
/// off for as long as a test needs.
struct Relay {
    url: String,
    refusing: Arc<AtomicBool>,
}

async fn relay(db_url: &str) -> Relay {
    let u = url::Url::parse(db_url).unwrap();
    let target = format!("{}:{}", u.host_str().unwrap(), u.port().unwrap_or(5432));
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut via = u.clone();
    via.set_host(Some("127.0.0.1")).unwrap();
    via.set_port(Some(l.local_addr().unwrap().port())).unwrap();
    let refusing = Arc::new(AtomicBool::new(false));
    let r = refusing.clone();
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = l.accept().await {
            if r.load(Ordering::SeqCst) {
                continue; // dropped: the connection attempt fails
            }
            let target = target.clone();
            tokio::spawn(async move {
                if let Ok(mut out) = tokio::net::TcpStream::connect(&target).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut out).await;
                }
            });
        }
    });
    Relay {
        url: via.to_string(),
        refusing,
    }
}

#[tokio::test]
async fn lost_notifications_become_resyncs() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    let a = PostgresStore::open(&db.url, limits()).await.unwrap();
    let relay = relay(&db.url).await;
    let b = PostgresStore::open(&relay.url, limits()).await.unwrap();
    let mut cur = row("t1", "c", None, TaskState::Working, now_ms());
    a.create(&cur).await.unwrap();
    let mut sub = b.hub().subscribe("t1");
    // B's listener goes down and cannot come back while A writes: that event is lost for B.
    relay.refusing.store(true, Ordering::SeqCst);
    let mut admin = sqlx::PgConnection::connect(&db.url).await.unwrap();
    let killed: i64 = sqlx::query_scalar(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'LISTEN%'",
    )
    .fetch_one(&mut admin)
    .await
    .unwrap();
    assert_eq!(killed, 2);
    cur = next(&cur, TaskState::Working, now_ms());
    a.update(&cur, &[status_event(&cur, 1)]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        tokio::time::timeout(Duration::from_millis(10), sub.recv())
            .await
            .is_err(),
        "nothing can reach B yet"
    );
    // B reconnects and, instead of the lost event, the stream is told to re-read the task.
    relay.refusing.store(false, Ordering::SeqCst);
    match recv(&mut sub).await {
        HubEvent::Resync { version: 2 } => {}
        other => panic!("expected a resync at version 2, got {other:?}"),
    }
    // Then events flow again.
    cur = next(&cur, TaskState::Working, now_ms());
    a.update(&cur, &[status_event(&cur, 2)]).await.unwrap();
    match recv(&mut sub).await {
        HubEvent::Event { version: 3, .. } => {}
        other => panic!("expected event 3, got {other:?}"),
    }
    admin.close().await.unwrap();
}

//! A text many tasks hold (describe_skill's Skill Interface Document, a `SharedJson` part) is
//! written once by the SQL stores, not into every task's row, and every reader still gets the
//! task's exact bytes: through `get` and `list`, after an update, after a restart, and when a
//! caller sent the same text earlier in the task.

use crate::common::{limits, task, PgDb};
use serde_json::json;
use skillgate_a2a::types::{Artifact, Message, Part, TaskState};
use skillgate_a2a::SharedJson;
use skillgate_store::{
    now_ms, ListQuery, PostgresStore, SqliteStore, StoreError, TaskRow, TaskStore,
};
use sqlx::Connection;
use std::time::Duration;

/// A document of a few KiB with escapes and non-ASCII text, like a describe_skill answer.
fn document() -> SharedJson {
    SharedJson::new(json!({
        "interface_digest": "sha256:5f1e",
        "skill_interface": {
            "description": "Évaluer \"la condition\" \\ d'une ressource \u{1F600}\n".repeat(80),
            "input_schema": {"type": "object", "properties": {"x": {"type": "integer"}}},
            "examples": (0..60).map(|i| json!({"n": i, "f": 2.5})).collect::<Vec<_>>(),
        }
    }))
}

/// A completed task whose artifact is `doc`; with `echo` its request message carries the same
/// value first, so the text occurs twice in its JSON.
fn describe_row(id: &str, doc: &SharedJson, echo: bool) -> TaskRow {
    let mut t = task(id, "ctx", TaskState::Completed, now_ms());
    if echo {
        t.history.push(Message {
            message_id: format!("m-{id}"),
            parts: vec![Part::data(doc.value().clone())],
            ..Default::default()
        });
    }
    t.artifacts.push(Artifact {
        artifact_id: "describe".into(),
        parts: vec![Part::shared_data(doc.clone())],
        ..Default::default()
    });
    let mut r = TaskRow::new(&t, None, Default::default());
    r.finished_ms = Some(now_ms());
    r
}

/// Writes three tasks holding `doc` (two created, one updated to hold it) and checks that
/// `get` and `list` give back each one exactly. Returns them as stored.
async fn write_and_read(s: &dyn TaskStore, doc: &SharedJson) -> Vec<TaskRow> {
    let a = describe_row("a", doc, false);
    let b = describe_row("b", doc, true);
    s.create(&a).await.unwrap();
    s.create(&b).await.unwrap();
    let running = TaskRow::new(
        &task("c", "ctx", TaskState::Working, now_ms()),
        None,
        Default::default(),
    );
    s.create(&running).await.unwrap();
    let mut done = running.clone();
    let mut t = describe_row("c", doc, false).task().unwrap();
    t.artifacts[0].parts = vec![Part::shared_data(doc.clone())];
    done.set_task(&t);
    done.version += 1;
    s.update(&done, &[]).await.unwrap();
    let rows = vec![a, b, done];
    assert_read_back(s, &rows).await;
    rows
}

async fn assert_read_back(s: &dyn TaskStore, rows: &[TaskRow]) {
    for r in rows {
        let got = s.get(&r.id).await.unwrap().unwrap();
        assert_eq!(got.body(), r.body(), "{}: the exact bytes", r.id);
        assert_eq!(&got, r);
    }
    let page = s
        .list(&ListQuery {
            limit: 10,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(page.total, rows.len() as u64);
    for r in &page.rows {
        let want = rows.iter().find(|w| w.id == r.id).unwrap();
        assert_eq!(r.body(), want.body(), "{} listed", r.id);
    }
}

/// What the SQL tables hold: each task's stored body length, and the shared texts.
type Stored = (Vec<(String, i64, Option<i64>)>, i64);

fn assert_stored_once(stored: &Stored, rows: &[TaskRow], doc: &SharedJson) {
    let (bodies, texts) = stored;
    assert_eq!(*texts, 1, "the document is stored once for three tasks");
    for (id, len, at) in bodies {
        let r = rows.iter().find(|r| &r.id == id).unwrap();
        assert!(at.is_some(), "{id}: the text was taken out");
        assert_eq!(
            *len as usize,
            r.body().len() - doc.text().len(),
            "{id}: the row holds the task without the document"
        );
    }
}

#[tokio::test]
async fn sqlite_stores_a_shared_text_once_and_reads_tasks_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.db");
    let doc = document();
    assert!(doc.text().len() > 4000);
    let s = SqliteStore::open(&path, limits()).await.unwrap();
    let rows = write_and_read(&s, &doc).await;
    drop(s);
    let url = format!("sqlite://{}", path.display());
    let mut c = loop {
        // The dropped store's connection lets go of the file shortly.
        if let Ok(c) = sqlx::SqliteConnection::connect(&url).await {
            break c;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let stored: Stored = loop {
        let bodies = sqlx::query_as("SELECT id, length(body), shared_at FROM tasks")
            .fetch_all(&mut c)
            .await;
        let texts = sqlx::query_as::<_, (i64,)>("SELECT COUNT(*) FROM shared_json")
            .fetch_one(&mut c)
            .await;
        if let (Ok(b), Ok((t,))) = (bodies, texts) {
            break (b, t);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_stored_once(&stored, &rows, &doc);
    c.close().await.unwrap();

    // A restart reads the same bytes; a new writer stores the text again as a no-op.
    let s = SqliteStore::open(&path, limits()).await.unwrap();
    assert_read_back(&s, &rows).await;
    let d = describe_row("d", &doc, false);
    s.create(&d).await.unwrap();
    assert_eq!(s.get("d").await.unwrap().as_ref(), Some(&d));
    drop(s);

    // A shared text deleted behind the store's back is a corrupt task, named, not a panic.
    let c = loop {
        if let Ok(mut c) = sqlx::SqliteConnection::connect(&url).await {
            if sqlx::raw_sql("DELETE FROM shared_json")
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
    let s = SqliteStore::open(&path, limits()).await.unwrap();
    let err = s.get("a").await.unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt(ref id, _) if id == "a"),
        "{err:?}"
    );
}

#[tokio::test]
async fn postgres_stores_a_shared_text_once_and_reads_tasks_back_exactly() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    let doc = document();
    let s = PostgresStore::open(&db.url, limits()).await.unwrap();
    let rows = write_and_read(&s, &doc).await;
    let mut c = sqlx::PgConnection::connect(&db.url).await.unwrap();
    let bodies = sqlx::query_as("SELECT id, CAST(length(body) AS BIGINT), shared_at FROM tasks")
        .fetch_all(&mut c)
        .await
        .unwrap();
    let (texts,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM shared_json")
        .fetch_one(&mut c)
        .await
        .unwrap();
    assert_stored_once(&(bodies, texts), &rows, &doc);

    // A second replica (its own writers, which do not know the text is stored) reads and
    // writes the same tasks.
    let other = PostgresStore::open(&db.url, limits()).await.unwrap();
    assert_read_back(&other, &rows).await;
    let d = describe_row("d", &doc, true);
    other.create(&d).await.unwrap();
    assert_eq!(s.get("d").await.unwrap().as_ref(), Some(&d));

    sqlx::raw_sql("DELETE FROM shared_json")
        .execute(&mut c)
        .await
        .unwrap();
    let err = s.get("a").await.unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt(ref id, _) if id == "a"),
        "{err:?}"
    );
    c.close().await.unwrap();
}

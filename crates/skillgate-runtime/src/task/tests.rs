//! The task handle's unit tests: versioned writes, budgets, terminal states.

use super::*;
use skillgate_store::{MemoryStore, StoreLimits};

fn store() -> Arc<dyn TaskStore> {
    Arc::new(MemoryStore::new(StoreLimits::memory()))
}

fn task(id: &str, state: TaskState) -> Task {
    Task {
        id: id.into(),
        status: TaskStatus {
            state,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Task "a", WORKING, created on `s` with no owner and default flags.
async fn working(s: &Arc<dyn TaskStore>) -> Arc<TaskHandle> {
    TaskHandle::create(
        s,
        &Metrics::disabled(),
        task("a", TaskState::Working),
        None,
        Flags::default(),
    )
    .await
    .unwrap()
}

/// A memory store whose tasks may take at most `max_task_bytes`.
fn store_with_task_budget(max_task_bytes: u64) -> Arc<dyn TaskStore> {
    Arc::new(MemoryStore::new(StoreLimits {
        max_task_bytes,
        ..StoreLimits::memory()
    }))
}

#[tokio::test]
async fn terminal_state_is_final() {
    let s = store();
    let e = working(&s).await;
    e.set_status(TaskState::Canceled, None).await.unwrap();
    assert!(matches!(
        e.set_status(TaskState::Completed, None).await,
        Err(Refused::Terminal(TaskState::Canceled))
    ));
    assert!(e
        .add_artifact(Artifact::default(), false, true)
        .await
        .is_err());
}

#[tokio::test]
async fn a_stale_handle_rereads_and_respects_a_cancel_made_through_another() {
    let s = store();
    let runner = working(&s).await;
    let other = TaskHandle::load(&s, &Metrics::disabled(), "a")
        .await
        .unwrap()
        .unwrap();
    other.set_status(TaskState::Canceled, None).await.unwrap();
    // The runner's cached copy still says WORKING; its write loses the version race,
    // re-reads, and is refused because the stored task is terminal.
    assert!(matches!(
        runner.set_status(TaskState::Completed, None).await,
        Err(Refused::Terminal(TaskState::Canceled))
    ));
    assert_eq!(runner.state().await, TaskState::Canceled);
    let stored = s.get("a").await.unwrap().unwrap();
    assert_eq!(stored.version, 2);
}

#[tokio::test]
async fn a_result_over_the_task_budget_is_refused() {
    let s = store_with_task_budget(2000);
    let e = working(&s).await;
    let big = artifact("x", &"y".repeat(5000));
    assert!(matches!(
        e.add_artifact(big, false, true).await,
        Err(Refused::OverBudget(size, 2000)) if size > 5000
    ));
}

fn artifact(id: &str, text: &str) -> Artifact {
    Artifact {
        artifact_id: id.into(),
        parts: vec![skillgate_a2a::Part::text(text)],
        ..Default::default()
    }
}

#[tokio::test]
async fn finish_writes_artifacts_and_status_once_with_an_event_each() {
    let s = store();
    let e = working(&s).await;
    let (_, seen, mut sub) = e.subscribe().await;
    assert_eq!(seen, 1);
    e.finish(
        vec![artifact("r1", "one"), artifact("r2", "two")],
        TaskState::Completed,
        None,
    )
    .await
    .unwrap();
    let stored = s.get("a").await.unwrap().unwrap();
    assert_eq!(stored.version, 4, "one write, a version per event");
    let t = stored.task().unwrap();
    assert_eq!(t.status.state, TaskState::Completed);
    assert_eq!(t.artifacts.len(), 2);
    let mut got = Vec::new();
    for _ in 0..3 {
        match sub.recv().await.unwrap() {
            skillgate_store::HubEvent::Event { version, event } => got.push((version, event)),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(
        matches!(&got[0], (2, StreamResponse::ArtifactUpdate(u)) if u.artifact.artifact_id == "r1" && u.last_chunk && !u.append)
    );
    assert!(
        matches!(&got[1], (3, StreamResponse::ArtifactUpdate(u)) if u.artifact.artifact_id == "r2")
    );
    assert!(
        matches!(&got[2], (4, StreamResponse::StatusUpdate(u)) if u.status.state == TaskState::Completed)
    );
    assert!(matches!(
        e.finish(vec![artifact("r3", "x")], TaskState::Failed, None)
            .await,
        Err(Refused::Terminal(TaskState::Completed))
    ));
}

#[tokio::test]
async fn finish_without_subscribers_writes_one_version() {
    let s = store();
    let e = working(&s).await;
    e.finish(vec![artifact("r1", "one")], TaskState::Completed, None)
        .await
        .unwrap();
    assert_eq!(s.get("a").await.unwrap().unwrap().version, 2);
    assert_eq!(e.state().await, TaskState::Completed);
    // No event was built, so the write took one version; a later subscriber starts there.
    let (t, seen, _sub) = e.subscribe().await;
    assert_eq!(seen, 2);
    assert_eq!(t.artifacts.len(), 1);
}

#[tokio::test]
async fn a_finish_over_the_task_budget_is_refused_without_writing() {
    let s = store_with_task_budget(2000);
    refused_finish_leaves_no_trace(s).await;
}

/// The same on a store that keeps JSON: there the change is applied to the handle's own
/// task in place, and a refusal restores it from the stored body.
#[cfg(feature = "sqlite")]
#[tokio::test]
async fn a_finish_over_the_task_budget_is_refused_without_writing_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let limits = StoreLimits {
        max_task_bytes: 2000,
        ..StoreLimits::disk()
    };
    let s: Arc<dyn TaskStore> = Arc::new(
        skillgate_store::SqliteStore::open(&dir.path().join("t.db"), limits)
            .await
            .unwrap(),
    );
    assert!(!s.keeps_typed_tasks());
    refused_finish_leaves_no_trace(s).await;
}

async fn refused_finish_leaves_no_trace(s: Arc<dyn TaskStore>) {
    let e = working(&s).await;
    // Each fits alone; together they do not.
    let parts = vec![
        artifact("r1", &"y".repeat(1200)),
        artifact("r2", &"y".repeat(1200)),
    ];
    assert!(matches!(
        e.finish(parts, TaskState::Completed, None).await,
        Err(Refused::OverBudget(size, 2000)) if size > 2400
    ));
    let stored = s.get("a").await.unwrap().unwrap();
    assert_eq!(stored.version, 1);
    assert_eq!(stored.task().unwrap().status.state, TaskState::Working);
    assert_eq!(e.state().await, TaskState::Working);
    // The change is applied in place: a refused one must leave no trace in the cache.
    assert!(e.snapshot().await.artifacts.is_empty());
    e.finish(
        vec![artifact("r1", &"y".repeat(1200))],
        TaskState::Completed,
        None,
    )
    .await
    .unwrap();
    assert_eq!(s.get("a").await.unwrap().unwrap().version, 2);
}

/// Task "d", WORKING, deferred on `s`: stored by its first write.
fn deferred(s: &Arc<dyn TaskStore>) -> Arc<TaskHandle> {
    TaskHandle::deferred(
        s,
        &Metrics::disabled(),
        task("d", TaskState::Working),
        None,
        Flags::default(),
    )
    .unwrap()
}

/// A deferred task's first write creates it finished: its finish moves the artifacts into
/// the task (no retry can need them), and the store holds what the handle holds.
#[tokio::test]
async fn a_deferred_task_is_created_finished_with_its_artifacts() {
    let s = store();
    let e = deferred(&s);
    assert!(s.get("d").await.unwrap().is_none());
    e.finish(
        vec![artifact("r1", "one"), artifact("r2", "two")],
        TaskState::Completed,
        None,
    )
    .await
    .unwrap();
    let stored = s.get("d").await.unwrap().unwrap();
    assert_eq!(stored.version, 1);
    let t = stored.task().unwrap();
    assert_eq!(t.status.state, TaskState::Completed);
    assert_eq!(t.artifacts, [artifact("r1", "one"), artifact("r2", "two")]);
    assert_eq!(t, e.snapshot().await);
}

/// A deferred task's finish over the budget stores nothing and leaves no artifact behind:
/// the refusal that follows creates the task without them.
#[tokio::test]
async fn a_deferred_finish_over_the_budget_leaves_no_artifact() {
    let s = store_with_task_budget(2000);
    let e = deferred(&s);
    let parts = vec![
        artifact("r1", &"y".repeat(1200)),
        artifact("r2", &"y".repeat(1200)),
    ];
    assert!(matches!(
        e.finish(parts, TaskState::Completed, None).await,
        Err(Refused::OverBudget(_, 2000))
    ));
    assert!(s.get("d").await.unwrap().is_none());
    assert!(e.snapshot().await.artifacts.is_empty());
    e.set_status(TaskState::Failed, None).await.unwrap();
    let t = s.get("d").await.unwrap().unwrap().task().unwrap();
    assert_eq!(t.status.state, TaskState::Failed);
    assert!(t.artifacts.is_empty());
}

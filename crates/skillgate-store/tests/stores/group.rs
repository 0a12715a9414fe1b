//! Group commit (SQLite and PostgreSQL): a write's caller resumes only once the transaction
//! carrying it has committed, its event leaves only then, writes queued meanwhile share the
//! next transaction, and a refused write in a shared transaction refuses only itself.
//! Commits are held with the store's own hook (`hold_commits`), not by slowing a database.

use crate::common::{limits, next, row, PgDb};
use crate::postgres::status_event;
use skillgate_a2a::types::TaskState;
use skillgate_store::{
    now_ms, CommitHold, CommitStats, PostgresStore, SqliteStore, StoreError, TaskRow, TaskStore,
};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;

/// A store under test with its hook and counters (the trait object has neither).
struct Held {
    store: Arc<dyn TaskStore>,
    hold: Box<dyn Fn() -> CommitHold + Send + Sync>,
    stats: Box<dyn Fn() -> CommitStats + Send + Sync>,
    /// Whether reads run while a commit is held (PostgreSQL: other connections; SQLite: the
    /// one connection is the writer's until it commits).
    reads_while_held: bool,
    _keep: Box<dyn std::any::Any + Send>,
}

async fn sqlite() -> Held {
    sqlite_with(limits()).await
}

async fn sqlite_with(limits: skillgate_store::StoreLimits) -> Held {
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(
        SqliteStore::open(&dir.path().join("tasks.db"), limits)
            .await
            .unwrap(),
    );
    let (h, st) = (s.clone(), s.clone());
    Held {
        store: s,
        hold: Box::new(move || h.hold_commits()),
        stats: Box::new(move || st.commit_stats()),
        reads_while_held: false,
        _keep: Box::new(dir),
    }
}

async fn postgres() -> Option<Held> {
    postgres_with(limits(), None).await
}

/// A PostgreSQL store under `limits`; `lanes` writer lanes if given (one lane makes every
/// queued write share the parked batch, as with SQLite).
async fn postgres_with(limits: skillgate_store::StoreLimits, lanes: Option<u32>) -> Option<Held> {
    let db = PgDb::create().await?;
    let url = match lanes {
        Some(n) => format!("{}?writers={n}", db.url),
        None => db.url.clone(),
    };
    let s = Arc::new(PostgresStore::open(&url, limits).await.unwrap());
    let (h, st) = (s.clone(), s.clone());
    Some(Held {
        store: s,
        hold: Box::new(move || h.hold_commits()),
        stats: Box::new(move || st.commit_stats()),
        reads_while_held: true,
        _keep: Box::new(db),
    })
}

async fn within<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), f)
        .await
        .expect("within 10 s")
}

/// Lets spawned writers reach the queue (and shows they stay parked there).
async fn settle() {
    tokio::time::sleep(Duration::from_millis(150)).await;
}

async fn caller_resumes_after_commit(h: Held, one_lane: bool) {
    let s = h.store.clone();
    let t0 = now_ms();
    let a = row("a", "c", None, TaskState::Working, t0);
    s.create(&a).await.unwrap();
    let mut sub = s.hub().subscribe("a");
    let before = (h.stats)();

    let hold = (h.hold)();
    let a2 = next(&a, TaskState::Completed, t0 + 1);
    let ev = status_event(&a2, 1);
    let (store, w, e) = (s.clone(), a2.clone(), ev.clone());
    let first: JoinHandle<_> = tokio::spawn(async move { store.update(&w, &[e]).await });
    within(hold.parked()).await;
    settle().await;
    assert!(!first.is_finished(), "resumed before its commit");
    assert!(
        tokio::time::timeout(Duration::from_millis(100), sub.recv())
            .await
            .is_err(),
        "event published before its commit"
    );
    if h.reads_while_held {
        let seen = s.get("a").await.unwrap().unwrap();
        assert_eq!(seen.version, 1, "uncommitted write visible");
    }
    // Queued while the first batch is held: all of them go in the next transaction.
    let mut queued = Vec::new();
    for i in 0..10 {
        let store = s.clone();
        let r = row(&format!("b{i}"), "c", None, TaskState::Completed, t0);
        queued.push(tokio::spawn(async move { store.create(&r).await }));
    }
    settle().await;
    assert!(queued.iter().all(|q| !q.is_finished()));
    drop(hold);

    within(first).await.unwrap().unwrap();
    for q in queued {
        within(q).await.unwrap().unwrap();
    }
    match within(sub.recv()).await.unwrap() {
        skillgate_store::HubEvent::Event { version, event } => {
            assert_eq!((version, event), (2, ev));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(s.get("a").await.unwrap().unwrap(), a2);
    let after = (h.stats)();
    assert_eq!(after.writes - before.writes, 11);
    if one_lane {
        assert_eq!(after.batches - before.batches, 2, "{before:?} -> {after:?}");
    } else {
        // Two lanes: each may commit a first write alone before the rest of its queue.
        assert!(
            after.batches - before.batches <= 4,
            "{before:?} -> {after:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_caller_resumes_only_after_its_batch_commits() {
    caller_resumes_after_commit(sqlite().await, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_caller_resumes_only_after_its_batch_commits() {
    let Some(h) = postgres().await else { return };
    caller_resumes_after_commit(h, false).await;
}

async fn refusals_stay_in_their_write(h: Held) {
    let s = h.store.clone();
    let t0 = now_ms();
    let t1 = row("t1", "c", None, TaskState::Working, t0);
    let taken = row("taken", "c", None, TaskState::Working, t0);
    s.create(&t1).await.unwrap();
    s.create(&taken).await.unwrap();

    let hold = (h.hold)();
    // Parks the writer (every lane that gets a write) so the rest queue behind it.
    let parker = {
        let store = s.clone();
        let r = row("parker", "c", None, TaskState::Working, t0);
        tokio::spawn(async move { store.create(&r).await })
    };
    within(hold.parked()).await;
    let winner = next(&t1, TaskState::Completed, t0 + 1);
    let loser = next(&t1, TaskState::Canceled, t0 + 2);
    let mut spawned = Vec::new();
    // In this order, each one queued before the next.
    for w in [
        Write::Update(winner.clone()),
        Write::Update(loser),
        Write::Create(taken.clone()),
        Write::Create(row("fresh", "c", None, TaskState::Working, t0)),
        Write::Update(next(
            &row("ghost", "c", None, TaskState::Working, t0),
            TaskState::Working,
            t0,
        )),
    ] {
        let store = s.clone();
        spawned.push(tokio::spawn(async move {
            match w {
                Write::Create(r) => store.create(&r).await,
                Write::Update(r) => store.update(&r, &[]).await,
            }
        }));
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    settle().await;
    drop(hold);
    within(parker).await.unwrap().unwrap();
    let mut out = Vec::new();
    for j in spawned {
        out.push(within(j).await.unwrap());
    }
    assert!(out[0].is_ok(), "{out:?}");
    assert!(matches!(out[1], Err(StoreError::Conflict(_))), "{out:?}");
    assert!(matches!(out[2], Err(StoreError::Conflict(_))), "{out:?}");
    assert!(out[3].is_ok(), "{out:?}");
    assert!(matches!(out[4], Err(StoreError::NotFound(_))), "{out:?}");
    assert_eq!(s.get("t1").await.unwrap().unwrap(), winner);
    assert_eq!(s.get("taken").await.unwrap().unwrap(), taken);
    assert!(s.get("fresh").await.unwrap().is_some());
    assert!(s.get("ghost").await.unwrap().is_none());
}

enum Write {
    Create(skillgate_store::TaskRow),
    Update(skillgate_store::TaskRow),
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_refused_writes_do_not_break_their_batch() {
    refusals_stay_in_their_write(sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_refused_writes_do_not_break_their_batch() {
    let Some(h) = postgres().await else { return };
    refusals_stay_in_their_write(h).await;
}

/// Many concurrent writers share transactions: far fewer commits than writes (the point of
/// group commit), and every write is there afterwards.
async fn concurrent_writes_share_commits(h: Held) {
    let s = h.store.clone();
    let before = (h.stats)();
    let t0 = now_ms();
    let mut joins = Vec::new();
    for i in 0..64 {
        let store = s.clone();
        joins.push(tokio::spawn(async move {
            let r = row(&format!("w{i}"), "c", None, TaskState::Working, t0);
            store.create(&r).await?;
            let mut cur = r;
            for k in 1..4 {
                cur = next(&cur, TaskState::Working, t0 + k);
                store.update(&cur, &[]).await?;
            }
            Ok::<_, StoreError>(cur)
        }));
    }
    for j in joins {
        let last = within(j).await.unwrap().unwrap();
        assert_eq!(s.get(&last.id).await.unwrap().unwrap(), last);
    }
    let after = (h.stats)();
    assert_eq!(after.writes - before.writes, 256);
    assert!(
        after.batches - before.batches < 256,
        "no write shared a commit: {before:?} -> {after:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_concurrent_writes_share_commits() {
    concurrent_writes_share_commits(sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_concurrent_writes_share_commits() {
    let Some(h) = postgres().await else { return };
    concurrent_writes_share_commits(h).await;
}

/// Lease renewal never waits for a writer lane: with a batch holding a running task's row
/// (commit held), renewing that task and another returns at once instead of queueing behind
/// the batch (or deadlocking with it, as the load bench saw), and renews the free one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_lease_renewal_skips_rows_a_batch_holds() {
    let Some(h) = postgres().await else { return };
    let s = h.store.clone();
    let t0 = now_ms();
    let busy = row("busy", "c", None, TaskState::Working, t0);
    let free = row("free", "c", None, TaskState::Working, t0);
    s.create(&busy).await.unwrap();
    s.create(&free).await.unwrap();
    let hold = (h.hold)();
    let store = s.clone();
    let write = next(&busy, TaskState::Working, t0 + 1);
    let parked = tokio::spawn(async move { store.update(&write, &[]).await });
    within(hold.parked()).await;
    let ids = vec!["busy".to_string(), "free".to_string()];
    tokio::time::timeout(Duration::from_secs(2), s.renew_leases(&ids))
        .await
        .expect("renewal does not wait for the held batch")
        .unwrap();
    drop(hold);
    within(parked).await.unwrap().unwrap();
    assert_eq!(s.get("busy").await.unwrap().unwrap().version, 2);
}

/// Creates queued into one batch are checked as if each came alone, in order: a caller's
/// running tasks count the batch's earlier creates (the third is over the limit, a finished
/// one is not limited), an id taken earlier in the batch is a conflict, and a create that
/// only fits once a finished task is evicted evicts it and goes in. (The SQLite writer checks
/// a batch's creates against one read and inserts them in one statement.)
async fn creates_in_one_batch_share_the_limits(h: Held) {
    let s = h.store.clone();
    let t0 = now_ms();
    let old = row("old", "c", None, TaskState::Completed, t0 - 10);
    s.create(&old).await.unwrap();
    let hold = (h.hold)();
    let parker = {
        let store = s.clone();
        let r = row("parker", "c", None, TaskState::Working, t0);
        tokio::spawn(async move { store.create(&r).await })
    };
    within(hold.parked()).await;
    let alice = |id: &str, state| row(id, "c", Some("alice"), state, t0);
    let writes = [
        alice("a1", TaskState::Working),
        alice("a2", TaskState::Working),
        alice("a3", TaskState::Working),
        alice("a4", TaskState::Completed),
        alice("a1", TaskState::Working),
        row("b1", "c", Some("bob"), TaskState::Working, t0),
    ];
    let mut spawned = Vec::new();
    for w in writes.clone() {
        let store = s.clone();
        spawned.push(tokio::spawn(async move { store.create(&w).await }));
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    settle().await;
    drop(hold);
    within(parker).await.unwrap().unwrap();
    let mut out = Vec::new();
    for j in spawned {
        out.push(within(j).await.unwrap());
    }
    assert!(out[0].is_ok() && out[1].is_ok(), "{out:?}");
    assert!(matches!(out[2], Err(StoreError::CallerLimit(2))), "{out:?}");
    assert!(out[3].is_ok(), "{out:?}");
    assert!(matches!(out[4], Err(StoreError::Conflict(_))), "{out:?}");
    assert!(out[5].is_ok(), "{out:?}");
    for (i, w) in writes.iter().enumerate() {
        let stored = s.get(&w.id).await.unwrap();
        match i {
            2 => assert!(stored.is_none(), "a3 was refused"),
            4 => {}
            _ => assert_eq!(stored.as_ref(), Some(w)),
        }
    }
    assert!(s.get("old").await.unwrap().is_none(), "old was evicted");
    assert!(s.get("parker").await.unwrap().is_some());
}

/// Limits for [`creates_in_one_batch_share_the_limits`]: two running tasks per caller, and
/// bytes for everything it writes except the finished task `old` it then has to evict.
fn tight_limits() -> skillgate_store::StoreLimits {
    let t0 = now_ms();
    let size = |id: &str, owner: Option<&str>, state| row(id, "c", owner, state, t0).size();
    let kept = size("parker", None, TaskState::Working)
        + size("a1", Some("alice"), TaskState::Working)
        + size("a2", Some("alice"), TaskState::Working)
        + size("a4", Some("alice"), TaskState::Completed)
        + size("b1", Some("bob"), TaskState::Working);
    skillgate_store::StoreLimits {
        max_bytes: kept + size("old", None, TaskState::Completed) / 2,
        max_running_per_caller: 2,
        ..limits()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_creates_in_one_batch_share_the_limits() {
    creates_in_one_batch_share_the_limits(sqlite_with(tight_limits()).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_creates_in_one_batch_share_the_limits() {
    if let Some(h) = postgres_with(tight_limits(), Some(1)).await {
        creates_in_one_batch_share_the_limits(h).await;
    }
}

/// A batch far larger than one statement's rows (the SQLite writer splits it into statements
/// of at most 64 rows): 150 creates, then 150 updates, each set held into one batch, all go
/// in, each caller told it did, every row as written.
async fn a_large_batch_goes_in_whole(h: Held) {
    let s = h.store.clone();
    let t0 = now_ms();
    let rows: Vec<_> = (0..150)
        .map(|i| {
            let owner = ["alice", "bob", "carol"][i % 3];
            row(&format!("t{i}"), "c", Some(owner), TaskState::Working, t0)
        })
        .collect();
    let before = (h.stats)();
    let created = held_batch(&h, rows.clone(), |s, r| async move { s.create(&r).await }).await;
    assert!(created.iter().all(Result::is_ok), "{created:?}");
    let done: Vec<_> = rows
        .iter()
        .map(|r| next(r, TaskState::Completed, t0 + 1))
        .collect();
    let updated = held_batch(&h, done.clone(), |s, r| async move {
        let ev = status_event(&r, 1);
        s.update(&r, &[ev]).await
    })
    .await;
    assert!(updated.iter().all(Result::is_ok), "{updated:?}");
    let after = (h.stats)();
    assert_eq!(after.writes - before.writes, 300);
    // Each set: the first write alone (parked), then the other 149 in one batch.
    assert!(
        after.batches - before.batches <= 4,
        "{before:?} -> {after:?}"
    );
    for r in &done {
        assert_eq!(s.get(&r.id).await.unwrap().as_ref(), Some(r));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_large_batch_goes_in_whole() {
    a_large_batch_goes_in_whole(sqlite().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_large_batch_goes_in_whole() {
    if let Some(h) = postgres_with(limits(), Some(1)).await {
        a_large_batch_goes_in_whole(h).await;
    }
}

/// How many of `finished` (oldest first) one-at-a-time creates of `sizes` evict from a store
/// holding `used` bytes of `budget`: each create deletes the oldest until it fits (nothing for
/// one that cannot fit at all).
fn evicted_one_at_a_time(finished: &[TaskRow], mut used: u64, budget: u64, sizes: &[u64]) -> usize {
    let mut gone = 0;
    for &size in sizes {
        let (mut u, mut g) = (used, gone);
        while u + size > budget && g < finished.len() {
            u -= finished[g].size();
            g += 1;
        }
        if u + size <= budget {
            (used, gone) = (u + size, g);
        }
    }
    gone
}

/// Runs `write` on each of `items` with the commits held: the first write is parked at its
/// commit, the others queue meanwhile and share the next batch. Returns each outcome in order.
async fn held_batch<T, F, Fut>(h: &Held, items: Vec<T>, write: F) -> Vec<Result<(), StoreError>>
where
    T: Send + 'static,
    F: Fn(Arc<dyn TaskStore>, T) -> Fut,
    Fut: std::future::Future<Output = Result<(), StoreError>> + Send + 'static,
{
    let hold = (h.hold)();
    let mut spawned = Vec::new();
    for (n, item) in items.into_iter().enumerate() {
        spawned.push(tokio::spawn(write(h.store.clone(), item)));
        if n == 0 {
            within(hold.parked()).await;
        }
    }
    settle().await;
    drop(hold);
    let mut out = Vec::new();
    for j in spawned {
        out.push(within(j).await.unwrap());
    }
    out
}

/// [`held_batch`] of creates.
async fn create_held(h: &Held, rows: &[TaskRow]) -> Vec<Result<(), StoreError>> {
    held_batch(h, rows.to_vec(), |s, r| async move { s.create(&r).await }).await
}

/// A full store and a batch of creates that each need finished tasks evicted (the SQL stores
/// make room for the rest of a batch at once): every create goes in and exactly the tasks one
/// at a time would evict go, the oldest first. A batch with a create larger than the budget is
/// decided one at a time: the others still evict and go in, that one is refused and evicts
/// nothing.
async fn a_batch_into_a_full_store_evicts_what_one_at_a_time_would(h: Held, budget: u64) {
    let s = h.store.clone();
    let t0 = now_ms() - 10_000;
    let mut finished: Vec<TaskRow> = (0..10)
        .map(|i| row(&format!("old{i}"), "c", None, TaskState::Completed, t0 + i))
        .collect();
    for r in &finished {
        s.create(r).await.unwrap();
    }
    let mut used: u64 = finished.iter().map(|r| r.size()).sum();
    assert_eq!(used, budget, "the fixture fills the store");

    let news: Vec<TaskRow> = (0..6)
        .map(|i| {
            row(
                &format!("new{i}"),
                "c",
                None,
                TaskState::Completed,
                t0 + 100 + i,
            )
        })
        .collect();
    let sizes: Vec<u64> = news.iter().map(TaskRow::size).collect();
    let gone = evicted_one_at_a_time(&finished, used, budget, &sizes);
    assert!((1..10).contains(&gone), "the fixture evicts some: {gone}");
    let out = create_held(&h, &news).await;
    assert!(out.iter().all(Result::is_ok), "{out:?}");
    for (i, r) in finished.iter().enumerate() {
        let stored = s.get(&r.id).await.unwrap();
        assert_eq!(stored.is_some(), i >= gone, "{}: {gone} evicted", r.id);
    }
    for r in &news {
        assert_eq!(s.get(&r.id).await.unwrap().as_ref(), Some(r));
    }
    used =
        used - finished[..gone].iter().map(TaskRow::size).sum::<u64>() + sizes.iter().sum::<u64>();
    finished.drain(..gone);
    finished.extend(news);

    let mut big = row("big0", "c", None, TaskState::Completed, t0 + 200);
    big.set_body(bytes::Bytes::from(vec![
        b' ';
        usize::try_from(budget).unwrap() + 1
    ]));
    let batch = vec![
        row("sml0", "c", None, TaskState::Completed, t0 + 201),
        row("sml1", "c", None, TaskState::Completed, t0 + 202),
        big,
        row("sml2", "c", None, TaskState::Completed, t0 + 203),
    ];
    let sizes: Vec<u64> = batch.iter().map(TaskRow::size).collect();
    let gone = evicted_one_at_a_time(&finished, used, budget, &sizes);
    let out = create_held(&h, &batch).await;
    assert!(
        out[0].is_ok() && out[1].is_ok() && out[3].is_ok(),
        "{out:?}"
    );
    assert!(matches!(out[2], Err(StoreError::Full { .. })), "{out:?}");
    for (i, r) in finished.iter().enumerate() {
        let stored = s.get(&r.id).await.unwrap();
        assert_eq!(stored.is_some(), i >= gone, "{}: {gone} evicted", r.id);
    }
    assert!(s.get("big0").await.unwrap().is_none());
}

/// Limits that hold exactly ten of [`a_batch_into_a_full_store_evicts_what_one_at_a_time_would`]'s
/// first rows.
fn ten_rows() -> skillgate_store::StoreLimits {
    let t0 = now_ms();
    let one = row("old0", "c", None, TaskState::Completed, t0).size();
    skillgate_store::StoreLimits {
        max_bytes: one * 10,
        ..limits()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_batch_into_a_full_store_evicts_what_one_at_a_time_would() {
    let limits = ten_rows();
    let budget = limits.max_bytes;
    a_batch_into_a_full_store_evicts_what_one_at_a_time_would(sqlite_with(limits).await, budget)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_batch_into_a_full_store_evicts_what_one_at_a_time_would() {
    let limits = ten_rows();
    let budget = limits.max_bytes;
    if let Some(h) = postgres_with(limits, Some(1)).await {
        a_batch_into_a_full_store_evicts_what_one_at_a_time_would(h, budget).await;
    }
}

//! The behaviour every store shares, run on each (the memory store is the reference).

use crate::common::{limits, next, rich_row, row, sized, Env, Kind};
use crate::postgres::{recv, status_event};
use skillgate_a2a::types::{Task, TaskState};
use skillgate_a2a::version::WireVersion;
use skillgate_store::{
    now_ms, HubEvent, ListQuery, PushRegistration, StoreError, StoreLimits, Subscription, TaskRow,
};
use std::sync::Arc;
use std::time::Duration;

/// One `#[tokio::test]` per store for each case.
macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod memory {
            $(#[tokio::test]
            async fn $case() {
                super::$case(super::Kind::Memory).await;
            })*
        }
        mod sqlite {
            $(#[tokio::test]
            async fn $case() {
                super::$case(super::Kind::Sqlite).await;
            })*
        }
        mod postgres {
            $(#[tokio::test]
            async fn $case() {
                super::$case(super::Kind::Postgres).await;
            })*
        }
    };
}

conformance!(
    round_trip,
    typed_round_trip,
    versioned_update,
    update_with_several_events,
    stale_update_with_several_events_conflicts,
    list_filters_order_paging_and_visibility,
    caller_limit,
    byte_budget,
    update_growth_evicts_finished,
    purge_by_retention,
    stale_interrupted,
    push_configs_live_with_their_task,
);

async fn open(kind: Kind, limits: StoreLimits) -> Option<Env> {
    Env::open(kind, limits).await
}

async fn round_trip(kind: Kind) {
    let Some(env) = open(kind, limits()).await else {
        return;
    };
    let s = &env.store;
    let r = rich_row("t1");
    s.create(&r).await.unwrap();
    let got = s.get("t1").await.unwrap().expect("stored");
    assert_eq!(got.body(), r.body(), "body bytes are kept exactly");
    assert_eq!(got, r);
    assert_eq!(got.task().unwrap(), r.task().unwrap());
    assert!(s.get("missing").await.unwrap().is_none());
    assert_eq!(s.used_bytes().await.unwrap(), r.size());
    let dup = s.create(&r).await;
    assert!(
        matches!(dup, Err(StoreError::Conflict(ref id)) if id == "t1"),
        "{dup:?}"
    );
    assert_eq!(s.used_bytes().await.unwrap(), r.size());
}

/// A row holding the typed Task (what the runtime gives a store that keeps typed tasks) is
/// stored, sized and read back exactly as the same task's serialized row, on every store.
async fn typed_round_trip(kind: Kind) {
    let Some(env) = open(kind, limits()).await else {
        return;
    };
    let s = &env.store;
    let json = rich_row("t1");
    let task = Arc::new(json.task().unwrap());
    let typed = TaskRow::typed(task.clone(), json.owner.clone(), json.flags);
    assert_eq!(typed.size(), json.size());
    s.create(&typed).await.unwrap();
    assert_eq!(s.used_bytes().await.unwrap(), json.size());
    let got = s.get("t1").await.unwrap().expect("stored");
    assert_eq!(
        got.body(),
        json.body(),
        "the typed task's JSON is what is kept"
    );
    assert_eq!(*got.shared_task().unwrap(), *task);
    // A typed change of the read row.
    let mut changed = Task::clone(&task);
    changed.status.state = TaskState::Completed;
    let mut next = got.clone();
    next.set_typed(Arc::new(changed.clone()));
    next.version += 1;
    s.update(&next, &[]).await.unwrap();
    let got = s.get("t1").await.unwrap().unwrap();
    assert_eq!((got.version, got.state), (2, TaskState::Completed));
    assert_eq!(got.task().unwrap(), changed);
    assert_eq!(s.used_bytes().await.unwrap(), next.size());
}

async fn versioned_update(kind: Kind) {
    let Some(env) = open(kind, limits()).await else {
        return;
    };
    let s = &env.store;
    let t0 = now_ms();
    let r = row("t1", "c", None, TaskState::Submitted, t0);
    s.create(&r).await.unwrap();
    let read = s.get("t1").await.unwrap().unwrap();
    // Two writers from the same read: exactly one wins.
    let a = next(&read, TaskState::Working, t0 + 1);
    let b = next(&read, TaskState::Canceled, t0 + 2);
    let results = [s.update(&a, &[]).await, s.update(&b, &[]).await];
    assert!(results[0].is_ok(), "{:?}", results[0]);
    assert!(
        matches!(results[1], Err(StoreError::Conflict(ref id)) if id == "t1"),
        "{:?}",
        results[1]
    );
    assert_eq!(s.get("t1").await.unwrap().unwrap(), a);
    // The winner continues; replaying its write is a conflict too.
    let mut c = next(&a, TaskState::Completed, t0 + 3);
    c.finished_ms = Some(t0 + 3);
    s.update(&c, &[]).await.unwrap();
    assert!(matches!(
        s.update(&c, &[]).await,
        Err(StoreError::Conflict(_))
    ));
    let got = s.get("t1").await.unwrap().unwrap();
    assert_eq!(got, c);
    assert_eq!(got.version, 3);
    assert_eq!(s.used_bytes().await.unwrap(), c.size());
    // Unknown task.
    let ghost = next(
        &row("ghost", "c", None, TaskState::Working, t0),
        TaskState::Working,
        t0,
    );
    assert!(
        matches!(s.update(&ghost, &[]).await, Err(StoreError::NotFound(ref id)) if id == "ghost")
    );
}

/// Receives the next event and checks its version and content.
async fn expect_event(sub: &mut Subscription, version: i64, ev: &skillgate_a2a::StreamResponse) {
    match recv(sub).await {
        HubEvent::Event { version: v, event } => {
            assert_eq!(v, version);
            assert_eq!(&event, ev, "event {version}");
        }
        other => panic!("expected event {version}, got {other:?}"),
    }
}

async fn update_with_several_events(kind: Kind) {
    let Some(env) = open(kind, limits()).await else {
        return;
    };
    let s = &env.store;
    let t0 = now_ms();
    s.create(&row("t1", "c", None, TaskState::Working, t0))
        .await
        .unwrap();
    let mut sub = s.hub().subscribe("t1");
    let read = s.get("t1").await.unwrap().unwrap();
    // Three events: the write advances the version by three, each event keeps its own.
    let mut three = next(&read, TaskState::Working, t0 + 1);
    three.version += 2;
    let evs: Vec<_> = (0..3).map(|n| status_event(&three, n)).collect();
    s.update(&three, &evs).await.unwrap();
    let got = s.get("t1").await.unwrap().unwrap();
    assert_eq!(got, three);
    assert_eq!(got.version, 4);
    for (i, ev) in (2i64..).zip(&evs) {
        expect_event(&mut sub, i, ev).await;
    }
    // One event and none still advance it by one.
    let one = next(&three, TaskState::Working, t0 + 2);
    let ev = status_event(&one, 3);
    s.update(&one, std::slice::from_ref(&ev)).await.unwrap();
    expect_event(&mut sub, 5, &ev).await;
    let none = next(&one, TaskState::Working, t0 + 3);
    s.update(&none, &[]).await.unwrap();
    let mut done = next(&none, TaskState::Completed, t0 + 4);
    done.finished_ms = Some(t0 + 4);
    done.version += 1;
    let evs: Vec<_> = (4..6).map(|n| status_event(&done, n)).collect();
    s.update(&done, &evs).await.unwrap();
    assert_eq!(s.get("t1").await.unwrap().unwrap().version, 8);
    expect_event(&mut sub, 7, &evs[0]).await;
    expect_event(&mut sub, 8, &evs[1]).await;
}

async fn stale_update_with_several_events_conflicts(kind: Kind) {
    let Some(env) = open(kind, limits()).await else {
        return;
    };
    let s = &env.store;
    let t0 = now_ms();
    s.create(&row("t1", "c", None, TaskState::Working, t0))
        .await
        .unwrap();
    let read = s.get("t1").await.unwrap().unwrap();
    let won = next(&read, TaskState::Working, t0 + 1);
    s.update(&won, &[]).await.unwrap();
    let mut sub = s.hub().subscribe("t1");
    // Written from the stale read (version 1, now 2): three events, so it expects version 1.
    let mut stale = next(&read, TaskState::Completed, t0 + 2);
    stale.version += 2;
    let evs: Vec<_> = (0..3).map(|n| status_event(&stale, n)).collect();
    let r = s.update(&stale, &evs).await;
    assert!(
        matches!(r, Err(StoreError::Conflict(ref id)) if id == "t1"),
        "{r:?}"
    );
    // A version advanced by one only, with three events, expects the version before the read.
    let mut short = next(&won, TaskState::Completed, t0 + 3);
    let evs: Vec<_> = (3..6).map(|n| status_event(&short, n)).collect();
    let r = s.update(&short, &evs).await;
    assert!(matches!(r, Err(StoreError::Conflict(_))), "{r:?}");
    assert_eq!(s.get("t1").await.unwrap().unwrap(), won);
    // Nothing was published: the next event received is the next accepted write's.
    short.version += 2;
    let evs: Vec<_> = (6..9).map(|n| status_event(&short, n)).collect();
    s.update(&short, &evs).await.unwrap();
    expect_event(&mut sub, 3, &evs[0]).await;
    expect_event(&mut sub, 4, &evs[1]).await;
    expect_event(&mut sub, 5, &evs[2]).await;
}

async fn list_filters_order_paging_and_visibility(kind: Kind) {
    let Some(env) = open(kind, limits()).await else {
        return;
    };
    let s = &env.store;
    let base = 1_700_000_000_000;
    use TaskState::*;
    // (id, context, owner, state, updated offset)
    let rows = [
        ("a1", "c1", None, Working, 5),
        ("a2", "c2", None, Completed, 3),
        ("b1", "c1", Some("alice"), InputRequired, 5), // same time as a1: id breaks the tie
        ("b2", "c2", Some("alice"), Working, 1),
        ("b3", "c1", Some("alice"), Completed, 9),
        ("c1", "c1", Some("bob"), Working, 7),
        ("c2", "c2", Some("bob"), Working, 2),
        ("a3", "c1", None, Working, 5),
    ];
    for (id, ctx, owner, state, off) in rows {
        s.create(&row(id, ctx, owner, state, base + off))
            .await
            .unwrap();
    }
    let ids =
        |p: &skillgate_store::ListPage| p.rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    let q = |caller: Option<&str>| ListQuery {
        caller: caller.map(Into::into),
        limit: 100,
        ..Default::default()
    };

    let p = s.list(&q(Some("alice"))).await.unwrap();
    assert_eq!(ids(&p), ["b3", "a1", "a3", "b1", "a2", "b2"]);
    assert_eq!(p.total, 6);
    assert_eq!(
        p.rows[0],
        row("b3", "c1", Some("alice"), Completed, base + 9)
    );

    let p = s.list(&q(None)).await.unwrap();
    assert_eq!(
        ids(&p),
        ["a1", "a3", "a2"],
        "no caller sees anonymous tasks only"
    );
    assert_eq!(p.total, 3);

    let p = s.list(&q(Some("bob"))).await.unwrap();
    assert_eq!(ids(&p), ["c1", "a1", "a3", "a2", "c2"]);

    let p = s.list(&q(Some("mallory"))).await.unwrap();
    assert_eq!(ids(&p), ["a1", "a3", "a2"]);

    // Paging: same order, total of all pages.
    let mut all = Vec::new();
    for offset in (0..8).step_by(2) {
        let p = s
            .list(&ListQuery {
                offset,
                limit: 2,
                ..q(Some("alice"))
            })
            .await
            .unwrap();
        assert_eq!(p.total, 6);
        assert!(p.rows.len() <= 2);
        all.extend(ids(&p));
    }
    assert_eq!(all, ["b3", "a1", "a3", "b1", "a2", "b2"]);
    let p = s
        .list(&ListQuery {
            offset: 50,
            limit: 10,
            ..q(Some("alice"))
        })
        .await
        .unwrap();
    assert!(p.rows.is_empty());
    assert_eq!(p.total, 6);

    // Filters.
    let p = s
        .list(&ListQuery {
            context_id: Some("c1".into()),
            ..q(Some("alice"))
        })
        .await
        .unwrap();
    assert_eq!(ids(&p), ["b3", "a1", "a3", "b1"]);
    assert_eq!(p.total, 4);
    let p = s
        .list(&ListQuery {
            state: Some(Working),
            ..q(Some("bob"))
        })
        .await
        .unwrap();
    assert_eq!(ids(&p), ["c1", "a1", "a3", "c2"]);
    let p = s
        .list(&ListQuery {
            updated_after_ms: Some(base + 5),
            ..q(Some("alice"))
        })
        .await
        .unwrap();
    assert_eq!(ids(&p), ["b3"], "strictly after");
    let p = s
        .list(&ListQuery {
            context_id: Some("c2".into()),
            state: Some(Working),
            updated_after_ms: Some(base),
            ..q(Some("alice"))
        })
        .await
        .unwrap();
    assert_eq!(ids(&p), ["b2"]);
    assert_eq!(p.total, 1);
    // The order follows updates.
    let a2 = s.get("a2").await.unwrap().unwrap();
    let mut moved = next(&a2, Completed, base + 100);
    moved.finished_ms = a2.finished_ms;
    s.update(&moved, &[]).await.unwrap();
    let p = s.list(&q(None)).await.unwrap();
    assert_eq!(ids(&p), ["a2", "a1", "a3"]);
}

async fn caller_limit(kind: Kind) {
    let Some(env) = open(
        kind,
        StoreLimits {
            max_running_per_caller: 2,
            ..limits()
        },
    )
    .await
    else {
        return;
    };
    let s = &env.store;
    let t = now_ms();
    use TaskState::*;
    // Anonymous callers share one allowance; interrupted tasks count as unfinished.
    s.create(&row("n1", "c", None, Working, t)).await.unwrap();
    s.create(&row("n2", "c", None, InputRequired, t))
        .await
        .unwrap();
    let r = s.create(&row("n3", "c", None, Submitted, t)).await;
    assert!(matches!(r, Err(StoreError::CallerLimit(2))), "{r:?}");
    // Another owner is unaffected, and has its own allowance.
    s.create(&row("a1", "c", Some("alice"), Working, t))
        .await
        .unwrap();
    s.create(&row("a2", "c", Some("alice"), Working, t))
        .await
        .unwrap();
    let r = s.create(&row("a3", "c", Some("alice"), Working, t)).await;
    assert!(matches!(r, Err(StoreError::CallerLimit(2))), "{r:?}");
    s.create(&row("b1", "c", Some("bob"), Working, t))
        .await
        .unwrap();
    // Finished tasks are not limited and do not count.
    s.create(&row("a4", "c", Some("alice"), Completed, t))
        .await
        .unwrap();
    // Unless it ran before it was stored: then the limit refuses it as a running one, and
    // it holds nothing once stored.
    let mut ran = row("r1", "c", Some("alice"), Completed, t);
    ran.counts_as_running = true;
    let r = s.create(&ran).await;
    assert!(matches!(r, Err(StoreError::CallerLimit(2))), "{r:?}");
    let mut ran = row("r2", "c", Some("bob"), Completed, t);
    ran.counts_as_running = true;
    s.create(&ran).await.unwrap();
    s.create(&row("b2", "c", Some("bob"), Working, t))
        .await
        .unwrap();
    // A task that finishes frees a place.
    let a1 = s.get("a1").await.unwrap().unwrap();
    let mut done = next(&a1, Completed, t + 1);
    done.finished_ms = Some(t + 1);
    s.update(&done, &[]).await.unwrap();
    s.create(&row("a5", "c", Some("alice"), Working, t))
        .await
        .unwrap();
    assert!(matches!(
        s.create(&row("a6", "c", Some("alice"), Working, t)).await,
        Err(StoreError::CallerLimit(2))
    ));
    assert!(s.get("n3").await.unwrap().is_none());
}

async fn byte_budget(kind: Kind) {
    use TaskState::*;
    let t = now_ms();
    let mk = |id: &str, state: TaskState, finished: Option<i64>| {
        let mut r = sized(row(id, "c", None, state, t), 1000);
        r.finished_ms = finished;
        r
    };
    let one = mk("f1", Completed, Some(1)).size();
    let Some(env) = open(
        kind,
        StoreLimits {
            max_bytes: 3 * one,
            ..limits()
        },
    )
    .await
    else {
        return;
    };
    let s = &env.store;
    // Created out of finish order: eviction follows finish time, not insertion.
    s.create(&mk("f2", Failed, Some(t - 1000))).await.unwrap();
    s.create(&mk("f1", Completed, Some(t - 2000)))
        .await
        .unwrap();
    s.create(&mk("u1", Working, None)).await.unwrap();
    assert_eq!(s.used_bytes().await.unwrap(), 3 * one);
    // Full: the oldest finished task makes room.
    s.create(&mk("u2", InputRequired, None)).await.unwrap();
    assert!(
        s.get("f1").await.unwrap().is_none(),
        "oldest finished evicted"
    );
    assert!(s.get("f2").await.unwrap().is_some());
    assert_eq!(s.used_bytes().await.unwrap(), 3 * one);
    s.create(&mk("u3", Working, None)).await.unwrap();
    assert!(s.get("f2").await.unwrap().is_none());
    // Only unfinished tasks remain: refused, nothing lost.
    let r = s.create(&mk("u4", Working, None)).await;
    assert!(
        matches!(r, Err(StoreError::Full { used, budget }) if used == 3 * one && budget == 3 * one),
        "{r:?}"
    );
    assert!(s.get("u4").await.unwrap().is_none());
    for id in ["u1", "u2", "u3"] {
        assert!(s.get(id).await.unwrap().is_some(), "{id} kept");
    }
    assert_eq!(s.used_bytes().await.unwrap(), 3 * one);
    // A finished task that does not fit either is refused the same way.
    let r = s.create(&mk("f3", Completed, Some(t))).await;
    assert!(matches!(r, Err(StoreError::Full { .. })), "{r:?}");
}

async fn update_growth_evicts_finished(kind: Kind) {
    use TaskState::*;
    let t = now_ms();
    let small = sized(row("u1", "c", None, Working, t), 1000);
    let mut f1 = sized(row("f1", "c", None, Completed, t), 1000);
    f1.finished_ms = Some(t - 10);
    let budget = small.size() + f1.size() + 500;
    let Some(env) = open(
        kind,
        StoreLimits {
            max_bytes: budget,
            ..limits()
        },
    )
    .await
    else {
        return;
    };
    let s = &env.store;
    s.create(&f1).await.unwrap();
    s.create(&small).await.unwrap();
    // The running task grows by 1000 bytes: the finished one goes, the update is never refused.
    let mut grown = sized(small.clone(), 2000);
    grown.version = 2;
    s.update(&grown, &[]).await.unwrap();
    assert!(s.get("f1").await.unwrap().is_none());
    assert_eq!(s.get("u1").await.unwrap().unwrap(), grown);
    assert_eq!(s.used_bytes().await.unwrap(), grown.size());
}

async fn purge_by_retention(kind: Kind) {
    use TaskState::*;
    let Some(env) = open(
        kind,
        StoreLimits {
            retention: Duration::from_secs(3600),
            ..limits()
        },
    )
    .await
    else {
        return;
    };
    let s = &env.store;
    let now = now_ms();
    let old = now - 2 * 3600 * 1000;
    s.create(&row("old", "c", None, Completed, old))
        .await
        .unwrap();
    s.create(&row("old2", "c", None, Failed, old + 1))
        .await
        .unwrap();
    s.create(&row("new", "c", None, Completed, now))
        .await
        .unwrap();
    s.create(&row("waiting", "c", None, InputRequired, old))
        .await
        .unwrap();
    s.create(&row("running", "c", None, Working, old))
        .await
        .unwrap();
    let before = s.used_bytes().await.unwrap();
    assert_eq!(s.purge().await.unwrap(), 2);
    assert!(s.get("old").await.unwrap().is_none());
    assert!(s.get("old2").await.unwrap().is_none());
    for id in ["new", "waiting", "running"] {
        assert!(s.get(id).await.unwrap().is_some(), "{id} kept");
    }
    assert!(s.used_bytes().await.unwrap() < before);
    assert_eq!(s.purge().await.unwrap(), 0);
}

async fn stale_interrupted(kind: Kind) {
    use TaskState::*;
    let Some(env) = open(
        kind,
        StoreLimits {
            interrupted_ttl: Duration::from_secs(3600),
            ..limits()
        },
    )
    .await
    else {
        return;
    };
    let s = &env.store;
    let now = now_ms();
    let old = now - 2 * 3600 * 1000;
    s.create(&row("in-old", "c", None, InputRequired, old))
        .await
        .unwrap();
    s.create(&row("auth-old", "c", Some("alice"), AuthRequired, old))
        .await
        .unwrap();
    s.create(&row("in-new", "c", None, InputRequired, now))
        .await
        .unwrap();
    // This store's own running task, however old its status, holds a live lease.
    s.create(&row("working-old", "c", None, Working, old))
        .await
        .unwrap();
    s.create(&row("done-old", "c", None, Completed, old))
        .await
        .unwrap();
    let mut got: Vec<String> = s
        .stale(10)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.id)
        .collect();
    got.sort();
    assert_eq!(got, ["auth-old", "in-old"]);
    assert_eq!(s.stale(1).await.unwrap().len(), 1);
    assert!(s.stale(0).await.unwrap().is_empty());
}

/// A config registered in A2A 1.0, except id `c`, registered in 0.3 (the version is stored too).
fn push_config(task: &str, id: &str, url: &str) -> PushRegistration {
    PushRegistration {
        config: skillgate_a2a::TaskPushNotificationConfig {
            id: id.into(),
            task_id: task.into(),
            url: url.into(),
            token: format!("tok-{id}"),
            authentication: Some(skillgate_a2a::AuthenticationInfo {
                scheme: "Bearer".into(),
                credentials: "secret".into(),
            }),
            ..Default::default()
        },
        version: if id == "c" {
            WireVersion::V0_3
        } else {
            WireVersion::V1_0
        },
    }
}

async fn push_configs_live_with_their_task(kind: Kind) {
    let Some(env) = open(kind, limits()).await else {
        return;
    };
    let s = &env.store;
    let missing = s
        .put_push_config(&push_config("nope", "a", "https://x"), 4)
        .await;
    assert!(
        matches!(missing, Err(StoreError::NotFound(ref id)) if id == "nope"),
        "{missing:?}"
    );
    s.create(&row("t1", "c", None, TaskState::Working, now_ms()))
        .await
        .unwrap();
    s.create(&row("t2", "c", None, TaskState::Working, now_ms()))
        .await
        .unwrap();
    for id in ["b", "a", "c"] {
        s.put_push_config(&push_config("t1", id, "https://one"), 3)
            .await
            .unwrap();
    }
    s.put_push_config(&push_config("t2", "a", "https://two"), 3)
        .await
        .unwrap();
    // Replacing keeps the place; a fourth is over the bound.
    s.put_push_config(&push_config("t1", "a", "https://new"), 3)
        .await
        .unwrap();
    let over = s
        .put_push_config(&push_config("t1", "d", "https://x"), 3)
        .await;
    assert!(
        matches!(over, Err(StoreError::PushConfigLimit { max: 3, .. })),
        "{over:?}"
    );
    // Updates of the task keep its configs.
    let t1 = s.get("t1").await.unwrap().unwrap();
    s.update(&next(&t1, TaskState::Working, now_ms()), &[])
        .await
        .unwrap();
    let got = s.push_configs("t1").await.unwrap();
    let ids: Vec<_> = got.iter().map(|c| c.config.id.as_str()).collect();
    assert_eq!(ids, ["b", "a", "c"]);
    assert_eq!(got[2].version, WireVersion::V0_3, "the version is kept");
    assert_eq!(
        got[1],
        push_config("t1", "a", "https://new"),
        "stored whole"
    );
    assert_eq!(s.push_configs("t2").await.unwrap().len(), 1);
    assert!(s.push_configs("unknown").await.unwrap().is_empty());
    assert!(s.delete_push_config("t1", "b").await.unwrap());
    assert!(!s.delete_push_config("t1", "b").await.unwrap());
    assert!(!s.delete_push_config("t2", "c").await.unwrap());
    assert_eq!(s.push_configs("t1").await.unwrap().len(), 2);
    // A purged task takes its configs with it.
    let old = now_ms() - 10 * 24 * 3600 * 1000;
    s.create(&row("done", "c", None, TaskState::Completed, old))
        .await
        .unwrap();
    s.put_push_config(&push_config("done", "a", "https://x"), 3)
        .await
        .unwrap();
    assert_eq!(s.push_configs("done").await.unwrap().len(), 1);
    assert!(s.purge().await.unwrap() >= 1);
    assert!(s.get("done").await.unwrap().is_none());
    assert!(s.push_configs("done").await.unwrap().is_empty());
}

//! Rough measurements (`cargo test -p skillgate-store --test stores -- --ignored bench
//! --nocapture`): cross-replica notify latency and single-connection write throughput.

use crate::common::{limits, next, row, PgDb};
use crate::postgres::{recv, status_event};
use skillgate_a2a::types::TaskState;
use skillgate_store::{now_ms, PostgresStore, SqliteStore, StoreLimits, TaskStore};
use std::time::{Duration, Instant};

/// Enough allowance for every task of a run to stay unfinished.
fn unlimited() -> StoreLimits {
    StoreLimits {
        max_running_per_caller: 1_000_000,
        ..limits()
    }
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

#[tokio::test]
#[ignore = "measurement"]
async fn bench_pg_notify_latency() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    let a = PostgresStore::open(&db.url, limits()).await.unwrap();
    let b = PostgresStore::open(&db.url, limits()).await.unwrap();
    let mut cur = row("t1", "c", None, TaskState::Working, now_ms());
    a.create(&cur).await.unwrap();
    let mut sub = b.hub().subscribe("t1");
    let mut lat = Vec::new();
    let mut write = Vec::new();
    for n in 0..500 {
        cur = next(&cur, TaskState::Working, now_ms());
        let ev = status_event(&cur, n);
        let t0 = Instant::now();
        a.update(&cur, std::slice::from_ref(&ev)).await.unwrap();
        write.push(t0.elapsed());
        let got = recv(&mut sub).await;
        lat.push(t0.elapsed());
        assert_eq!(got.version(), cur.version);
    }
    lat.sort();
    write.sort();
    println!(
        "BENCH pg notify A.update->B hub over {}: p50 {:?} p99 {:?} max {:?}; update alone p50 {:?} p99 {:?}",
        lat.len(),
        pct(&lat, 0.5),
        pct(&lat, 0.99),
        lat[lat.len() - 1],
        pct(&write, 0.5),
        pct(&write, 0.99)
    );
}

async fn throughput(name: &str, s: &dyn TaskStore, n: usize) {
    let t0 = Instant::now();
    let mut rows = Vec::new();
    for i in 0..n {
        let r = row(&format!("t{i:06}"), "c", None, TaskState::Working, now_ms());
        s.create(&r).await.unwrap();
        rows.push(r);
    }
    let created = t0.elapsed();
    let t1 = Instant::now();
    for r in &rows {
        let mut u = next(r, TaskState::Completed, now_ms());
        u.finished_ms = Some(now_ms());
        s.update(&u, &[]).await.unwrap();
    }
    let updated = t1.elapsed();
    println!(
        "BENCH {name}: {n} creates in {created:?} ({:.0}/s), {n} updates in {updated:?} ({:.0}/s)",
        n as f64 / created.as_secs_f64(),
        n as f64 / updated.as_secs_f64()
    );
}

#[tokio::test]
#[ignore = "measurement"]
async fn bench_sqlite_throughput() {
    let dir = tempfile::tempdir().unwrap();
    let s = SqliteStore::open(&dir.path().join("t.db"), unlimited())
        .await
        .unwrap();
    throughput("sqlite (WAL, synchronous=NORMAL)", &s, 5000).await;
}

#[tokio::test]
#[ignore = "measurement"]
async fn bench_pg_throughput() {
    let Some(db) = PgDb::create().await else {
        return;
    };
    let s = PostgresStore::open(&db.url, unlimited()).await.unwrap();
    throughput("postgres (sequential, one connection at a time)", &s, 2000).await;
}

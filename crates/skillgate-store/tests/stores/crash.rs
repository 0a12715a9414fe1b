//! Group commit under `kill -9` (SQLite, real processes): a child keeps 64 writers creating
//! and finishing tasks and prints each task once its finishing write returned (what a server
//! would then answer); the parent kills it mid-load, reopens the file and finds every reported
//! task byte-identical, and no task half-written: every row is either the create or the
//! finished task, whole, and the byte count matches the rows. Bounded: the load runs until 400
//! tasks are reported or 10 s pass.

use crate::common::{limits, next, row};
use skillgate_a2a::types::TaskState;
use skillgate_store::{ListQuery, SqliteStore, TaskRow, TaskStore};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Status times of the tasks (fixed, so the parent rebuilds the exact rows).
const T0: i64 = 1_780_000_000_000;
const WRITERS: usize = 64;

fn created(w: usize, n: usize) -> TaskRow {
    let id = format!("k{w}-{n}");
    let mut t = row(&id, "c", None, TaskState::Working, T0 + n as i64);
    // A body of some size, like a real task's.
    t.context_id = format!("ctx-{w}");
    let mut task = t.task().unwrap();
    task.context_id = t.context_id.clone();
    let mut pad = serde_json::Map::new();
    pad.insert("pad".into(), "p".repeat(512 + w).into());
    task.metadata = Some(pad);
    t.set_task(&task);
    t
}

fn finished(w: usize, n: usize, finished_ms: i64) -> TaskRow {
    let mut f = next(&created(w, n), TaskState::Completed, T0 + n as i64 + 1);
    f.finished_ms = Some(finished_ms);
    f
}

/// The child half of `sqlite_group_commit_survives_kill_9`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by sqlite_group_commit_survives_kill_9 in a child process"]
async fn group_crash_child() {
    let Ok(path) = std::env::var("SG_GROUP_CRASH_DB") else {
        return;
    };
    let s = Arc::new(SqliteStore::open(Path::new(&path), limits()).await.unwrap());
    println!("READY");
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let s = s.clone();
        writers.push(tokio::spawn(async move {
            for n in 0.. {
                let c = created(w, n);
                s.create(&c).await.unwrap();
                let f = next(&c, TaskState::Completed, T0 + n as i64 + 1);
                s.update(&f, &[]).await.unwrap();
                // Reported only now: the write that finished it has committed.
                println!("DONE {w} {n} {}", f.finished_ms.unwrap());
            }
        }));
    }
    for w in writers {
        let _ = w.await;
    }
}

#[tokio::test]
async fn sqlite_group_commit_survives_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tasks.db");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash::group_crash_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SG_GROUP_CRASH_DB", &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let started = Instant::now();
    let mut done: Vec<(usize, usize, i64)> = Vec::new();
    let parse = |l: &str| -> Option<(usize, usize, i64)> {
        let mut f = l.strip_prefix("DONE ")?.split(' ');
        Some((
            f.next()?.parse().ok()?,
            f.next()?.parse().ok()?,
            f.next()?.parse().ok()?,
        ))
    };
    for line in lines.by_ref() {
        let line = line.unwrap();
        done.extend(parse(&line));
        if done.len() >= 400 || started.elapsed() > Duration::from_secs(10) {
            break;
        }
    }
    assert!(!done.is_empty(), "the child reported no task");
    child.kill().unwrap(); // SIGKILL mid-load: no close, no checkpoint
    child.wait().unwrap();
    // Whatever it reported before dying is in the pipe still.
    for line in lines {
        match line {
            Ok(l) => done.extend(parse(&l)),
            Err(_) => break,
        }
    }

    let s = SqliteStore::open(&path, limits()).await.unwrap();
    for &(w, n, fin) in &done {
        let want = finished(w, n, fin);
        let got = s.get(&want.id).await.unwrap();
        assert_eq!(
            got.as_ref(),
            Some(&want),
            "reported task {} is whole",
            want.id
        );
    }
    // No row half-written: each is the create or the finished task of its (w, n), whole, and
    // the bytes held add up.
    let mut total = 0u64;
    let mut rows = 0u64;
    let mut offset = 0u64;
    loop {
        let page = s
            .list(&ListQuery {
                limit: 100,
                offset,
                ..Default::default()
            })
            .await
            .unwrap();
        for r in &page.rows {
            let (w, n) = r.id[1..].split_once('-').unwrap();
            let (w, n): (usize, usize) = (w.parse().unwrap(), n.parse().unwrap());
            match r.version {
                1 => assert_eq!(r, &created(w, n)),
                2 => assert_eq!(r, &finished(w, n, r.finished_ms.unwrap())),
                v => panic!("{} at version {v}", r.id),
            }
            r.task().unwrap();
            total += r.size();
            rows += 1;
        }
        offset += page.rows.len() as u64;
        if page.rows.is_empty() || offset >= page.total {
            break;
        }
    }
    assert!(rows >= done.len() as u64);
    assert_eq!(s.used_bytes().await.unwrap(), total);
    eprintln!(
        "{} tasks reported before kill -9, {rows} rows after restart",
        done.len()
    );
}

//! The task store under faults, through the real binary (issue 25): `serve` killed with
//! `kill -9` in the middle of 64 connections of load (SQLite and PostgreSQL), and PostgreSQL
//! itself restarted under load with two replicas streaming. What a client was told is never
//! lost, nothing is half-written, and the replicas reconnect by themselves.
//!
//! The restart test runs its own PostgreSQL cluster (`initdb` into a temporary directory, on a
//! free loopback port, as the `postgres` user when run as root), so restarting it disturbs no
//! other test; it is skipped with `SKILLGATE_TEST_PG=skip`, like every PostgreSQL test.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::store::{
    assert_failed_because_agent_stopped, pg_admin_url, request, send, split_response, state,
    subscribe, wait_state, PgDb, Serve,
};

// ---------------------------------------------------------------------------------------------
// kill -9 under load: nothing a client was told is lost, nothing is half-written

/// `conns` connections sending blocking SendMessages (a task that completes at once) to one
/// server until stopped, keeping every task whose completed answer reached a client, as the
/// answer gave it. A failed request (the server killed, or its database away) is retried.
struct Load {
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<Vec<Value>>>,
    failed: Arc<Mutex<u64>>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl Load {
    fn start(addr: &str, conns: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let acked: Arc<Mutex<Vec<Value>>> = Arc::default();
        let failed: Arc<Mutex<u64>> = Arc::default();
        let workers = (0..conns)
            .map(|_| {
                let (addr, stop) = (addr.to_string(), stop.clone());
                let (acked, failed) = (acked.clone(), failed.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        match send_once(&addr) {
                            Some(task) => acked.lock().unwrap().push(task),
                            None => {
                                *failed.lock().unwrap() += 1;
                                std::thread::sleep(Duration::from_millis(10));
                            }
                        }
                    }
                })
            })
            .collect();
        Load {
            stop,
            acked,
            failed,
            workers,
        }
    }

    /// Tasks acknowledged so far.
    fn acked(&self) -> usize {
        self.acked.lock().unwrap().len()
    }

    /// Stops every connection; returns the acknowledged tasks and the failed requests.
    fn stop(self) -> (Vec<Value>, u64) {
        self.stop.store(true, Ordering::Relaxed);
        for w in self.workers {
            w.join().unwrap();
        }
        let acked = self.acked.lock().unwrap().clone();
        let failed = *self.failed.lock().unwrap();
        (acked, failed)
    }
}

/// One blocking SendMessage; the task when its answer says COMPLETED.
fn send_once(addr: &str) -> Option<Value> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                      "params": send("tck-artifact-text", None, false)});
    let mut c = TcpStream::connect(addr).ok()?;
    c.set_read_timeout(Some(Duration::from_secs(20))).ok()?;
    c.write_all(request(addr, &body.to_string()).as_bytes())
        .ok()?;
    let mut raw = Vec::new();
    c.read_to_end(&mut raw).ok()?;
    if !raw.windows(4).any(|w| w == b"\r\n\r\n") {
        return None;
    }
    let (status, body) = split_response(&raw);
    let v: Value = serde_json::from_slice(&body).ok()?;
    (status == 200 && state(&v["result"]["task"]) == "TASK_STATE_COMPLETED")
        .then(|| v["result"]["task"].clone())
}

/// Asserts every task in `acked` reads back from `s` exactly as it was answered.
fn assert_acked_read_back(s: &Serve, acked: &[Value]) {
    for task in acked {
        let id = task["id"].as_str().unwrap();
        let (status, _, raw) = s.rpc("GetTask", json!({"id": id}));
        assert_eq!(status, 200, "acknowledged task {id} is missing");
        let got: Value = serde_json::from_slice(&raw).unwrap();
        assert_eq!(
            got["result"], *task,
            "acknowledged task {id} reads back as it was answered"
        );
    }
}

/// Every task in the store, page by page.
fn all_tasks(s: &Serve) -> Vec<Value> {
    let mut tasks = Vec::new();
    let mut token = String::new();
    loop {
        let page = s.ok("ListTasks", json!({"pageSize": 100, "pageToken": token}));
        tasks.extend(page["tasks"].as_array().cloned().unwrap_or_default());
        token = page["nextPageToken"].as_str().unwrap_or("").to_string();
        if token.is_empty() {
            return tasks;
        }
    }
}

/// The kill -9 check on `store`: 64 connections of load, SIGKILL mid-run, a restart; every
/// acknowledged task reads back as it was answered, and every stored task is whole (finished,
/// or failed because the agent stopped).
fn survives_kill_9_under_load(store: &str) {
    let mut a = Serve::start(store, &[]);
    let load = Load::start(&a.addr, 64);
    std::thread::sleep(Duration::from_millis(1500));
    a.kill9();
    let (acked, _) = load.stop();
    assert!(
        acked.len() >= 64,
        "the load acknowledged only {} tasks before the kill",
        acked.len()
    );
    let b = Serve::start(store, &[]);
    assert_acked_read_back(&b, &acked);
    let stored = all_tasks(&b);
    assert!(
        stored.len() >= acked.len(),
        "{} < {}",
        stored.len(),
        acked.len()
    );
    // A task the killed process had not finished is failed by the restarted one: at once on
    // SQLite (one process per file), once its 15 s lease has run out on PostgreSQL (another
    // replica could still be running it).
    for t in &stored {
        if state(t) != "TASK_STATE_COMPLETED" {
            assert_failed_because_agent_stopped(&wait_state(
                &b,
                t["id"].as_str().unwrap(),
                "TASK_STATE_FAILED",
                Duration::from_secs(40),
            ));
        }
    }
    eprintln!(
        "kill -9 under load ({}): {} acknowledged, {} stored",
        store.split(':').next().unwrap_or(""),
        acked.len(),
        stored.len()
    );
}

#[test]
fn sqlite_kill_9_under_load_loses_no_acknowledged_task() {
    let dir = tempfile::tempdir().unwrap();
    survives_kill_9_under_load(&format!("sqlite:{}", dir.path().join("tasks.db").display()));
}

/// `synchronous=normal` syncs only checkpoints: a killed process still loses nothing (the
/// WAL it wrote is in the kernel's page cache); only a kernel crash or power loss could.
#[test]
fn sqlite_normal_sync_kill_9_under_load_loses_no_acknowledged_task() {
    let dir = tempfile::tempdir().unwrap();
    survives_kill_9_under_load(&format!(
        "sqlite:{}?synchronous=normal",
        dir.path().join("tasks.db").display()
    ));
}

#[test]
fn postgres_kill_9_under_load_loses_no_acknowledged_task() {
    let Some(db) = PgDb::create() else { return };
    survives_kill_9_under_load(&db.url);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL restarted under load

/// A PostgreSQL cluster of this test's own, in a temporary directory, on a free loopback port.
struct PrivatePg {
    dir: tempfile::TempDir,
    port: u16,
    bin: PathBuf,
}

impl PrivatePg {
    /// `initdb` and start; `None` when PostgreSQL tests are skipped.
    fn start() -> Option<PrivatePg> {
        pg_admin_url()?; // SKILLGATE_TEST_PG=skip skips this one too
        let bin = PathBuf::from("/usr/lib/postgresql/15/bin");
        assert!(
            bin.join("initdb").exists(),
            "{} has no initdb: install PostgreSQL 15's server package or set SKILLGATE_TEST_PG=skip",
            bin.display()
        );
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let pg = PrivatePg { dir, port, bin };
        // initdb refuses to run as root: the cluster belongs to `postgres` then.
        Command::new("chown")
            .args(["-R", "postgres"])
            .arg(pg.dir.path())
            .status()
            .map(|_| ())
            .unwrap_or(());
        let out = pg
            .as_owner(&pg.bin.join("initdb"))
            .args(["-A", "trust", "-U", "postgres", "-D"])
            .arg(pg.data())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        pg.ctl(&["start"]);
        Some(pg)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// `program` as the cluster's owner: `postgres` when this process is root.
    fn as_owner(&self, program: &std::path::Path) -> Command {
        let root = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
        if root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        }
    }

    /// `pg_ctl ACTION` on the cluster, waiting for it to finish.
    fn ctl(&self, action: &[&str]) {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.dir.path().display()
        );
        let out = self
            .as_owner(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(self.data())
            .args(["-w", "-m", "fast", "-o", &opts, "-l"])
            .arg(self.dir.path().join("log"))
            .args(action)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg_ctl {action:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for PrivatePg {
    fn drop(&mut self) {
        let _ = self
            .as_owner(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "stop"])
            .output();
    }
}

/// Two replicas on one PostgreSQL, load on the first and a stream on the second; PostgreSQL
/// restarts. The stream still sees its task end (the event committed after the restart, and
/// whatever the listener missed is resynchronised), both replicas serve again without being
/// restarted, and every acknowledged task reads back from the other replica.
#[test]
fn replicas_ride_out_a_postgres_restart_under_load() {
    let Some(pg) = PrivatePg::start() else { return };
    let a = Serve::start(&pg.url(), &[]);
    let b = Serve::start(&pg.url(), &[]);

    // A task A works on for 4.5 s, streamed from B.
    let r = a.ok(
        "SendMessage",
        send("test-resubscribe-message-id", None, true),
    );
    let streamed = r["task"]["id"].as_str().unwrap().to_string();
    wait_state(&b, &streamed, "TASK_STATE_WORKING", Duration::from_secs(10));
    let (first, stream) = subscribe(&b.addr, &streamed);
    first
        .recv_timeout(Duration::from_secs(10))
        .expect("the stream on B is attached");

    let load = Load::start(&a.addr, 16);
    std::thread::sleep(Duration::from_millis(700));
    let before = load.acked();
    pg.ctl(&["restart"]);
    let restarted = Instant::now();

    // Both replicas answer again by themselves.
    let back_within = Duration::from_secs(20);
    let mut back = false;
    while restarted.elapsed() < back_within {
        if load.acked() > before + 16 {
            back = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let (acked, failed) = load.stop();
    assert!(
        back,
        "replica A served no new task within {back_within:?} of the restart ({} acknowledged, {failed} failed)",
        acked.len()
    );
    assert_acked_read_back(&b, &acked);

    // The stream on B saw the task finish.
    let events = stream.join().unwrap();
    let last = events.last().expect("events on B's stream");
    assert_eq!(
        last["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "the last event B streamed: {last}"
    );
    let done = b.get_task(&streamed);
    assert_eq!(state(&done), "TASK_STATE_COMPLETED", "{done}");
    eprintln!(
        "postgres restart under load: {} acknowledged, {failed} failed requests during the outage",
        acked.len()
    );
}

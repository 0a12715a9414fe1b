//! The task store through the real binary: `serve --store sqlite:PATH` surviving a `kill -9`,
//! three `serve` replicas on one PostgreSQL database, and `skillgate store migrate`.
//!
//! Every server is a real `skillgate serve --conformance-agent` process on an ephemeral port,
//! driven over raw HTTP/1.0 (close-delimited bodies, so an SSE stream is read line by line
//! without chunk framing). PostgreSQL tests create a database of their own with `psql` and drop
//! it afterwards; an unreachable server fails them unless `SKILLGATE_TEST_PG=skip`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use skillgate_testkit::cli::{code, stderr, stdout};
use skillgate_testkit::poll::eventually_sync;

use super::skillgate;

// ---------------------------------------------------------------------------------------------
// Processes and raw HTTP

/// A running `skillgate serve --conformance-agent`; killed (SIGKILL) and reaped when dropped.
pub(super) struct Serve {
    child: Child,
    pub(super) addr: String,
    /// Kept open: the server's stdout must not become a broken pipe.
    _stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<String>>,
}

impl Serve {
    /// Starts `serve --listen 127.0.0.1:0 --conformance-agent --store <store> <extra...>` and
    /// waits for its `listening on` line.
    pub(super) fn start(store: &str, extra: &[&str]) -> Serve {
        let mut child = skillgate()
            .env_remove("SKILLGATE_STORE")
            .command()
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--conformance-agent",
                "--store",
                store,
            ])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        let Some(addr) = first.trim().strip_prefix("listening on http://") else {
            let _ = child.kill();
            let _ = child.wait();
            std::thread::sleep(Duration::from_millis(100)); // let the drain thread finish
            panic!(
                "serve did not start: first line {first:?}, stderr: {}",
                stderr.lock().unwrap()
            );
        };
        Serve {
            addr: addr.to_string(),
            child,
            _stdout: out,
            stderr,
        }
    }

    /// A JSON-RPC call; returns the HTTP status, the parsed body and the raw body bytes.
    pub(super) fn rpc(&self, method: &str, params: Value) -> (u16, Value, Vec<u8>) {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let (status, raw) = post(&self.addr, &body.to_string());
        let v = serde_json::from_slice(&raw).unwrap_or_else(|e| {
            panic!(
                "{method} on {}: status {status}, body is not JSON ({e}): {}",
                self.addr,
                String::from_utf8_lossy(&raw)
            )
        });
        (status, v, raw)
    }

    /// A JSON-RPC call with a bearer token; returns the HTTP status and the parsed body.
    fn rpc_as(&self, token: &str, method: &str, params: Value) -> (u16, Value) {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let (status, raw) = post_as(&self.addr, &body.to_string(), Some(token));
        (status, serde_json::from_slice(&raw).unwrap_or(Value::Null))
    }

    /// The `result` of a JSON-RPC call that must succeed.
    pub(super) fn ok(&self, method: &str, params: Value) -> Value {
        let (status, v, _) = self.rpc(method, params);
        assert!(
            status == 200 && v.get("result").is_some(),
            "{method} on {}: status {status}, {v}\nserver stderr: {}",
            self.addr,
            self.stderr.lock().unwrap()
        );
        v["result"].clone()
    }

    pub(super) fn get_task(&self, id: &str) -> Value {
        self.ok("GetTask", json!({"id": id}))
    }

    /// SIGKILL, as `kill -9` does, and reap it.
    pub(super) fn kill9(&mut self) {
        self.child.kill().unwrap();
        let status = self.child.wait().unwrap();
        assert!(!status.success(), "killed: {status:?}");
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Splits a raw HTTP/1.x response into its status code and body.
pub(super) fn split_response(raw: &[u8]) -> (u16, Vec<u8>) {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end: {}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..end]);
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "an HTTP/1.0 answer is never chunked: {head}"
    );
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line: {head}"));
    (status, raw[end + 4..].to_vec())
}

pub(super) fn request(addr: &str, body: &str) -> String {
    request_as(addr, body, None)
}

fn request_as(addr: &str, body: &str, token: Option<&str>) -> String {
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    format!(
        "POST / HTTP/1.0\r\nHost: {addr}\r\nA2A-Version: 1.0\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// POSTs a JSON-RPC body to `/` over HTTP/1.0 and reads the whole answer.
fn post(addr: &str, body: &str) -> (u16, Vec<u8>) {
    post_as(addr, body, None)
}

/// [`post`] with a bearer token.
fn post_as(addr: &str, body: &str, token: Option<&str>) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(request_as(addr, body, token).as_bytes())
        .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    split_response(&raw)
}

/// `SubscribeToTask` over a raw TCP stream in a thread: the JSON of every `data:` line until
/// a terminal status or the end of the stream. The first event is also sent on `first` so the
/// caller knows the stream is attached.
pub(super) fn subscribe(
    addr: &str,
    task_id: &str,
) -> (
    std::sync::mpsc::Receiver<Value>,
    std::thread::JoinHandle<Vec<Value>>,
) {
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "SubscribeToTask",
                      "params": {"id": task_id}})
    .to_string();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(request(addr, &body).as_bytes()).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let h = std::thread::spawn(move || {
        let mut r = BufReader::new(s);
        let mut status_line = String::new();
        r.read_line(&mut status_line).unwrap();
        assert!(status_line.contains(" 200 "), "{status_line}");
        let mut events = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            if r.read_line(&mut line).unwrap() == 0 {
                return events;
            }
            let Some(data) = line.trim_end().strip_prefix("data:") else {
                continue;
            };
            let ev: Value = serde_json::from_str(data.trim_start()).unwrap();
            if events.is_empty() {
                let _ = tx.send(ev.clone());
            }
            let terminal = ev["result"]["statusUpdate"]["status"]["state"]
                .as_str()
                .is_some_and(|s| TERMINAL.contains(&s));
            events.push(ev);
            if terminal {
                return events;
            }
        }
    });
    (rx, h)
}

const TERMINAL: [&str; 4] = [
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
];

/// A unique suffix for message ids and database names.
fn unique() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "{}x{nanos:x}x{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// SendMessage params for the conformance agent's scenario `prefix`.
pub(super) fn send(prefix: &str, task_id: Option<&str>, return_immediately: bool) -> Value {
    let mut m = json!({"messageId": format!("{prefix}-{}", unique()), "role": "ROLE_USER",
                       "parts": [{"text": "hi"}]});
    if let Some(t) = task_id {
        m["taskId"] = json!(t);
    }
    json!({"message": m, "configuration": {"returnImmediately": return_immediately}})
}

pub(super) fn state(task: &Value) -> &str {
    task["status"]["state"].as_str().unwrap_or("")
}

/// Polls GetTask on `s` until the task is in `want` (10 s at most); returns it.
pub(super) fn wait_state(s: &Serve, id: &str, want: &str, limit: Duration) -> Value {
    eventually_sync(limit, || {
        let t = s.get_task(id);
        (state(&t) == want).then_some(t)
    })
}

/// Asserts the task failed with `execution_failed` because its agent stopped.
pub(super) fn assert_failed_because_agent_stopped(t: &Value) {
    assert_eq!(state(t), "TASK_STATE_FAILED", "{t}");
    let parts = t["status"]["message"]["parts"].as_array().unwrap();
    let data = parts
        .iter()
        .find_map(|p| p.get("data"))
        .unwrap_or_else(|| panic!("a Data Part in the status message: {t}"));
    assert_eq!(data["code"], "execution_failed", "{t}");
    let msg = data["message"].as_str().unwrap();
    assert!(
        msg.contains("agent stopped before the task finished"),
        "{msg}"
    );
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL scratch databases

/// The admin connection URL, or `None` when told to skip.
pub(super) fn pg_admin_url() -> Option<String> {
    match std::env::var("SKILLGATE_TEST_PG") {
        Ok(v) if v == "skip" => {
            eprintln!("SKILLGATE_TEST_PG=skip: PostgreSQL test skipped");
            None
        }
        Ok(v) if !v.is_empty() => Some(v),
        _ => Some("postgres://postgres@127.0.0.1:5432/postgres".into()),
    }
}

fn psql(admin: &str, sql: &str) -> std::io::Result<std::process::Output> {
    Command::new("psql")
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", admin, "-c", sql])
        .output()
}

/// A database of one test's own (created with `psql`), dropped when this is, also when the
/// test fails.
pub(super) struct PgDb {
    pub(super) url: String,
    admin: String,
    name: String,
}

impl PgDb {
    pub(super) fn create() -> Option<PgDb> {
        let admin = pg_admin_url()?;
        let name = format!("sg_cli_{}", unique());
        let out = psql(&admin, &format!("CREATE DATABASE {name}")).unwrap_or_else(|e| {
            panic!("cannot run psql ({e}); install it or set SKILLGATE_TEST_PG=skip")
        });
        assert!(
            out.status.success(),
            "PostgreSQL at {admin} is unreachable or refused CREATE DATABASE ({}); start it, \
             point SKILLGATE_TEST_PG at one, or set SKILLGATE_TEST_PG=skip",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
        Some(PgDb {
            url: format!("{base}/{name}"),
            admin,
            name,
        })
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        let _ = psql(
            &self.admin,
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 1. SQLite: a restart after kill -9, and one process per file

#[test]
fn sqlite_tasks_survive_kill_9_and_a_running_task_fails_after_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite:{}", dir.path().join("tasks.db").display());
    let mut a = Serve::start(&store, &[]);

    // A finished task, and its GetTask answer as bytes.
    let done = a.ok("SendMessage", send("tck-artifact-text", None, false));
    let done_id = done["task"]["id"].as_str().unwrap().to_string();
    assert_eq!(state(&done["task"]), "TASK_STATE_COMPLETED", "{done}");
    let (status, _, before) = a.rpc("GetTask", json!({"id": done_id}));
    assert_eq!(status, 200);

    // A running task (4.5 s of work).
    let r = a.ok(
        "SendMessage",
        send("test-resubscribe-message-id", None, true),
    );
    let running = r["task"]["id"].as_str().unwrap().to_string();
    wait_state(&a, &running, "TASK_STATE_WORKING", Duration::from_secs(10));

    // One process per SQLite file: a second serve on it is refused while the first runs.
    let second = skillgate().env_remove("SKILLGATE_STORE").run(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--store",
        &store,
    ]);
    assert_eq!(code(&second), 2, "stderr: {}", stderr(&second));
    assert!(
        stderr(&second).contains("in use by another process"),
        "{}",
        stderr(&second)
    );
    assert!(stdout(&second).is_empty(), "{}", stdout(&second));

    a.kill9();
    let b = Serve::start(&store, &[]);
    let (status, _, after) = b.rpc("GetTask", json!({"id": done_id}));
    assert_eq!(status, 200);
    assert_eq!(
        String::from_utf8_lossy(&after),
        String::from_utf8_lossy(&before),
        "a finished task reads back byte for byte after kill -9 and a restart"
    );
    assert_eq!(after, before);

    let failed = wait_state(&b, &running, "TASK_STATE_FAILED", Duration::from_secs(10));
    assert_failed_because_agent_stopped(&failed);
    drop(b);
    drop(a);
}

/// A task's owner is a stable identity of its token, not the token's line in the file: a
/// restart with a comment added above the tokens (or the tokens reordered) keeps every task
/// with the token that created it (security issue, defect 1).
#[test]
fn task_owners_survive_an_edited_token_file() {
    const A: &str = "owner-a-token-0123456789";
    const B: &str = "owner-b-token-0123456789";
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite:{}", dir.path().join("tasks.db").display());
    let tokens = dir.path().join("tokens");
    let tokens_arg = tokens.display().to_string();
    std::fs::write(&tokens, format!("{A}\n{B}\n")).unwrap();
    let mut first = Serve::start(&store, &["--token-file", &tokens_arg]);
    let (status, created) = first.rpc_as(B, "SendMessage", send("tck-artifact-text", None, false));
    assert_eq!(status, 200, "{created}");
    let id = created["result"]["task"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    first.kill9();

    for edited in [format!("# rotated\n{A}\n{B}\n"), format!("{B}\n{A}\n")] {
        std::fs::write(&tokens, &edited).unwrap();
        let s = Serve::start(&store, &["--token-file", &tokens_arg]);
        let (_, by_b) = s.rpc_as(B, "GetTask", json!({"id": id}));
        assert_eq!(
            by_b["result"]["id"],
            json!(id),
            "token B lost its task after {edited:?}: {by_b}"
        );
        let (_, by_a) = s.rpc_as(A, "GetTask", json!({"id": id}));
        assert!(
            by_a.get("error").is_some(),
            "token A reads B's task after {edited:?}: {by_a}"
        );
        drop(s);
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Three replicas on one PostgreSQL database

#[test]
fn three_replicas_on_postgres_share_tasks_events_cancels_leases_and_turns() {
    let Some(db) = PgDb::create() else { return };
    let flags = ["--lease-ttl", "1s"];
    let mut a = Serve::start(&db.url, &flags);
    let b = Serve::start(&db.url, &flags);
    let c = Serve::start(&db.url, &flags);

    // The task B cancels is started first, so by the time the streamed one (started next)
    // completes, its handler would have finished too.
    let r = a.ok(
        "SendMessage",
        send("test-resubscribe-message-id", None, true),
    );
    let canceled = r["task"]["id"].as_str().unwrap().to_string();
    let r = a.ok(
        "SendMessage",
        send("test-resubscribe-message-id", None, true),
    );
    let streamed = r["task"]["id"].as_str().unwrap().to_string();

    // B reads A's task, by id and in the list.
    let on_b = wait_state(&b, &streamed, "TASK_STATE_WORKING", Duration::from_secs(10));
    assert_eq!(on_b["id"], streamed.as_str());
    let list = b.ok("ListTasks", json!({}));
    assert!(
        list["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["id"] == streamed.as_str()),
        "{list}"
    );

    // C streams it while A works on it.
    let (first, stream) = subscribe(&c.addr, &streamed);
    let first = first
        .recv_timeout(Duration::from_secs(10))
        .expect("the first event of the subscription on C");
    assert_eq!(
        first["result"]["task"]["status"]["state"], "TASK_STATE_WORKING",
        "the first event is the Task, still working: {first}"
    );

    // B cancels the other task that A runs.
    wait_state(&b, &canceled, "TASK_STATE_WORKING", Duration::from_secs(10));
    let t = b.ok("CancelTask", json!({"id": canceled}));
    assert_eq!(state(&t), "TASK_STATE_CANCELED", "{t}");

    let events = stream.join().unwrap();
    assert!(events[0]["result"].get("task").is_some(), "{events:?}");
    let mut states = Vec::new();
    let mut stamps = Vec::new();
    stamps.push(events[0]["result"]["task"]["status"]["timestamp"].clone());
    for ev in &events[1..] {
        let su = &ev["result"]["statusUpdate"];
        assert!(su.is_object(), "only status events follow: {events:?}");
        assert_eq!(su["taskId"], streamed.as_str());
        states.push(su["status"]["state"].as_str().unwrap().to_string());
        stamps.push(su["status"]["timestamp"].clone());
    }
    assert_eq!(
        states.last().map(String::as_str),
        Some("TASK_STATE_COMPLETED"),
        "{events:?}"
    );
    assert!(
        states[..states.len() - 1]
            .iter()
            .all(|s| s == "TASK_STATE_WORKING"),
        "WORKING... COMPLETED: {states:?}"
    );
    let stamps: Vec<&str> = stamps.iter().map(|s| s.as_str().unwrap()).collect();
    assert!(
        stamps.windows(2).all(|w| w[0] <= w[1]),
        "status times never go back: {stamps:?}"
    );
    assert_eq!(
        state(&a.get_task(&streamed)),
        "TASK_STATE_COMPLETED",
        "the stream's last state is the stored one"
    );

    // The canceled task's handler had its 4.5 s (it started before the streamed one, which
    // completed): A still reports it CANCELED, nothing it ran overwrote the cancel.
    let t = a.get_task(&canceled);
    assert_eq!(state(&t), "TASK_STATE_CANCELED", "{t}");
    assert_eq!(state(&c.get_task(&canceled)), "TASK_STATE_CANCELED");

    // kill -9 A mid-task: another replica fails it once its lease (1 s) runs out.
    let r = a.ok(
        "SendMessage",
        send("test-resubscribe-message-id", None, true),
    );
    let orphan = r["task"]["id"].as_str().unwrap().to_string();
    wait_state(&b, &orphan, "TASK_STATE_WORKING", Duration::from_secs(10));
    a.kill9();
    let killed = std::time::Instant::now();
    let failed = wait_state(&b, &orphan, "TASK_STATE_FAILED", Duration::from_secs(10));
    eprintln!(
        "failed by another replica {:?} after kill -9",
        killed.elapsed()
    );
    assert_failed_because_agent_stopped(&failed);
    assert_failed_because_agent_stopped(&c.get_task(&orphan));

    // Two follow-ups to one interrupted task, on two replicas at once: exactly one continues it.
    let r = b.ok("SendMessage", send("tck-input-required", None, false));
    assert_eq!(state(&r["task"]), "TASK_STATE_INPUT_REQUIRED", "{r}");
    let waiting = r["task"]["id"].as_str().unwrap().to_string();
    let (to_b, to_c) = (b.addr.clone(), c.addr.clone());
    let follow_up = |addr: String, w: String| {
        std::thread::spawn(move || {
            let body = json!({"jsonrpc": "2.0", "id": 2, "method": "SendMessage",
                              "params": send("tck-artifact-text", Some(&w), false)});
            let (status, raw) = post(&addr, &body.to_string());
            assert_eq!(status, 200, "{}", String::from_utf8_lossy(&raw));
            serde_json::from_slice::<Value>(&raw).unwrap()
        })
    };
    let hb = follow_up(to_b, waiting.clone());
    let hc = follow_up(to_c, waiting.clone());
    let (rb, rc) = (hb.join().unwrap(), hc.join().unwrap());
    let (won, lost) = match (rb.get("result"), rc.get("result")) {
        (Some(_), None) => (&rb, &rc),
        (None, Some(_)) => (&rc, &rb),
        _ => panic!("exactly one follow-up must continue the task:\nB: {rb}\nC: {rc}"),
    };
    assert_eq!(lost["error"]["code"], -32004, "{lost}");
    assert_eq!(won["result"]["task"]["id"], waiting.as_str(), "{won}");
    let t = wait_state(
        &c,
        &waiting,
        "TASK_STATE_COMPLETED",
        Duration::from_secs(10),
    );
    assert_eq!(
        t["history"].as_array().unwrap().len(),
        2,
        "only the winning follow-up joins the history: {t}"
    );
    drop((b, c, a));
    drop(db);
}

// ---------------------------------------------------------------------------------------------
// 3. store migrate

fn migrate(store: &str) -> std::process::Output {
    skillgate()
        .env_remove("SKILLGATE_STORE")
        .run(&["store", "migrate", "--store", store])
}

fn assert_migrates_then_is_up_to_date(store: &str) {
    let first = migrate(store);
    assert_eq!(code(&first), 0, "stderr: {}", stderr(&first));
    assert!(
        stdout(&first).contains("schema version 0 -> 3"),
        "{}",
        stdout(&first)
    );
    let again = migrate(store);
    assert_eq!(code(&again), 0, "stderr: {}", stderr(&again));
    assert!(stdout(&again).contains("up to date"), "{}", stdout(&again));
    assert!(!stdout(&again).contains("->"), "{}", stdout(&again));
}

#[test]
fn store_migrate_reports_the_version_change_then_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.db");
    assert_migrates_then_is_up_to_date(&format!("sqlite:{}", path.display()));
    assert!(path.exists());

    // The sync option names the same file; an unknown option is refused with the one there is.
    let normal = migrate(&format!("sqlite:{}?synchronous=normal", path.display()));
    assert_eq!(code(&normal), 0, "stderr: {}", stderr(&normal));
    assert!(
        stdout(&normal).contains("up to date"),
        "{}",
        stdout(&normal)
    );
    let unknown = migrate(&format!("sqlite:{}?synchronous=off", path.display()));
    assert_eq!(code(&unknown), 2, "stdout: {}", stdout(&unknown));
    assert!(
        stderr(&unknown).contains("synchronous=normal"),
        "{}",
        stderr(&unknown)
    );

    let bogus = migrate("bogus:");
    assert_eq!(code(&bogus), 2, "stdout: {}", stdout(&bogus));
    let err = stderr(&bogus);
    assert!(
        err.contains("sqlite:PATH") && err.contains("postgres://"),
        "names the accepted forms: {err}"
    );
}

#[test]
fn store_migrate_on_postgres() {
    let Some(db) = PgDb::create() else { return };
    assert_migrates_then_is_up_to_date(&db.url);
}

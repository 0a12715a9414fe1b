//! The exec handler: one child process per invocation, in a process group of its own.
//!
//! The program is started without a shell, with a cleared environment (plus the allow-list),
//! in the config's directory; the validated `arguments` JSON is written to its stdin, which is
//! then closed. Stdout (at most [`MAX_STDOUT_BYTES`]) and stderr (the first
//! [`MAX_STDERR_BYTES`] kept, the rest drained) are read concurrently with the stdin write, so
//! a child that writes a lot before reading cannot deadlock against us. The invocation ends
//! when the child has exited and closed its stdout, or [`STDOUT_LINGER`] after it exited if
//! something it started still holds stdout open. It inherits no descriptor but its three
//! pipes.
//!
//! Whatever way an invocation ends, a [`GroupGuard`] kills what the child started when the
//! invocation's future is dropped, so nothing outlives it: the runtime drops the handler's
//! future on cancel and on its own time limit, and this handler drops it on ours. The guard
//! signals the child's process group, then kills whatever else the call started, found by
//! [`crate::contain`] (processes that left the group with `setsid` included). A canceled task's
//! group gets SIGTERM, then SIGKILL after [`CANCEL_GRACE`]; anything else gets SIGKILL at once.

use crate::contain;
use crate::protocol::{excerpt, interpret};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use serde_json::Value;
use skillgate_core::ErrorCode;
use skillgate_runtime::{SkillContext, SkillError, SkillOutput};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use crate::config::ExecConfig;

/// Most stdout bytes read; a longer reply fails the invocation (`execution_failed`).
pub const MAX_STDOUT_BYTES: usize = 1024 * 1024;
/// Stderr bytes kept for the log; the rest is read and dropped so the child never blocks.
pub const MAX_STDERR_BYTES: usize = 64 * 1024;
/// Stderr bytes quoted in one log line.
pub const LOG_EXCERPT_BYTES: usize = 2048;
/// Between SIGTERM and SIGKILL when a task is canceled.
pub const CANCEL_GRACE: Duration = Duration::from_secs(2);
/// How long stderr may stay open after stdout closed and the child exited (a grandchild may
/// hold it); the excerpt then has what arrived so far.
const STDERR_LINGER: Duration = Duration::from_millis(200);
/// How long stdout may stay open after the child exited (a daemon it started may hold it);
/// the reply is then what arrived so far.
const STDOUT_LINGER: Duration = Duration::from_millis(200);

/// Signals a child's process group when dropped (see the module docs).
struct GroupGuard {
    pgid: Pid,
    /// The child's pid (the group's leader) and the call's marker, for [`contain::sweep`].
    pid: u32,
    marker: String,
    /// The invocation's context, to tell a cancel (grace) from anything else (no grace).
    ctx: SkillContext,
}

impl GroupGuard {
    fn kill_all(pgid: Pid, pid: u32, marker: &str) {
        // ESRCH (the group is already gone) is the normal case after a clean exit.
        let _ = killpg(pgid, Signal::SIGKILL);
        let n = contain::sweep(pid, marker);
        if n > 0 {
            tracing::debug!(
                pid,
                killed = n,
                "exec skill: killed what the call left running"
            );
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        let (pgid, pid) = (self.pgid, self.pid);
        if !self.ctx.is_cancelled() {
            Self::kill_all(pgid, pid, &self.marker);
            return;
        }
        let _ = killpg(pgid, Signal::SIGTERM);
        let marker = self.marker.clone();
        let later = async move {
            tokio::time::sleep(CANCEL_GRACE).await;
            Self::kill_all(pgid, pid, &marker);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn(later);
            }
            // Outside a runtime (not expected): no grace rather than no kill.
            Err(_) => Self::kill_all(pgid, pid, &self.marker),
        }
    }
}

/// How an invocation's process ended, before its reply is read.
enum Ended {
    /// Exited (or was killed by a signal) with stdout complete.
    Exited(ExitStatus, Vec<u8>),
    /// Stdout went over [`MAX_STDOUT_BYTES`].
    Oversize,
    /// Waiting for the child or reading its stdout failed.
    Io(std::io::Error),
}

/// Reads into `buf` until EOF or past `max` bytes (then `buf` holds `max + 1`); what was read
/// stays in `buf` if the future is dropped first.
async fn read_bounded(
    r: impl AsyncRead + Unpin,
    max: usize,
    buf: &mut Vec<u8>,
) -> std::io::Result<()> {
    r.take(max as u64 + 1).read_to_end(buf).await.map(|_| ())
}

/// Keeps the first `max` bytes in `keep` and drains the rest until EOF.
async fn drain_capped(mut r: impl AsyncRead + Unpin, max: usize, keep: Arc<Mutex<Vec<u8>>>) {
    let mut chunk = [0u8; 8192];
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Ok(mut k) = keep.lock() {
                    let room = max.saturating_sub(k.len());
                    k.extend_from_slice(&chunk[..n.min(room)]);
                }
            }
        }
    }
}

/// A configured exec skill; cheap to clone (one per invocation).
#[derive(Clone)]
pub struct ExecHandler {
    skill_id: Arc<str>,
    config: Arc<ExecConfig>,
    timeout: Duration,
}

impl ExecHandler {
    /// The handler of `skill_id` with its config and time limit.
    pub fn new(skill_id: &str, config: ExecConfig, timeout: Duration) -> Self {
        Self {
            skill_id: skill_id.into(),
            config: Arc::new(config),
            timeout,
        }
    }

    fn log(&self, ctx: &SkillContext, what: &str, stderr: &Mutex<Vec<u8>>) {
        let err = stderr.lock().map(|e| e.clone()).unwrap_or_default();
        // In the task's span (task id, and the request that started it) when served.
        tracing::warn!(
            skill = %self.skill_id,
            task_id = ctx.task_id(),
            stderr = %excerpt(&err, LOG_EXCERPT_BYTES),
            "exec skill: {what}"
        );
    }

    fn failed(&self) -> SkillError {
        SkillError::execution_failed(format!(
            "skill {} failed; the agent's log has the reason",
            self.skill_id
        ))
    }

    /// The child's command: no shell, a cleared environment (the allow-list and the call's
    /// marker), the config's directory, three pipes, a process group of its own.
    fn command(&self, marker: &str) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(&self.config.argv[0]);
        cmd.args(&self.config.argv[1..])
            .env_clear()
            .current_dir(&self.config.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so one signal reaches every process the skill starts.
            .process_group(0);
        for name in &self.config.env {
            if let Some(v) = std::env::var_os(name) {
                cmd.env(name, v);
            }
        }
        // Inherited by what it starts: how the call's processes are found when it ends.
        cmd.env(contain::MARKER_VAR, marker);
        cmd
    }

    /// One invocation: spawn, feed, read, interpret (see the module docs).
    pub async fn call(&self, args: Value, ctx: SkillContext) -> Result<SkillOutput, SkillError> {
        let input =
            serde_json::to_vec(&args).map_err(|e| SkillError::execution_failed(e.to_string()))?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let marker = contain::new_marker();
        let mut cmd = self.command(&marker);
        contain::close_inherited_fds();
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                self.log(
                    &ctx,
                    &format!("could not start {:?}: {e}", self.config.argv[0]),
                    &stderr,
                );
                return Err(self.failed());
            }
        };
        let Some((pid, pgid)) = child.id().and_then(|p| Some((p, i32::try_from(p).ok()?))) else {
            self.log(&ctx, "the child has no pid", &stderr);
            return Err(self.failed());
        };
        let guard = GroupGuard {
            pgid: Pid::from_raw(pgid),
            pid,
            marker,
            ctx: ctx.clone(),
        };
        let (stdin, stdout, err_pipe) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let drain =
            err_pipe.map(|p| tokio::spawn(drain_capped(p, MAX_STDERR_BYTES, Arc::clone(&stderr))));
        let write = async move {
            if let Some(mut s) = stdin {
                // A child that exits without reading its input is judged by its reply.
                let _ = s.write_all(&input).await;
                let _ = s.shutdown().await;
            }
        };
        let run = async {
            let mut out = Vec::new();
            let (read, status) = {
                let io = async {
                    let read = async {
                        match stdout {
                            Some(o) => read_bounded(o, MAX_STDOUT_BYTES, &mut out).await,
                            None => Ok(()),
                        }
                    };
                    tokio::join!(write, read).1
                };
                tokio::pin!(io);
                tokio::select! {
                    read = &mut io => (read, child.wait().await),
                    status = child.wait() => {
                        // Exited; stdout may be held open by something it started.
                        let read = tokio::time::timeout(STDOUT_LINGER, &mut io)
                            .await
                            .unwrap_or(Ok(()));
                        (read, status)
                    }
                }
            };
            match (read, status) {
                (Err(e), _) | (_, Err(e)) => Ended::Io(e),
                (Ok(()), Ok(_)) if out.len() > MAX_STDOUT_BYTES => Ended::Oversize,
                (Ok(()), Ok(status)) => Ended::Exited(status, out),
            }
        };
        let ended = tokio::time::timeout(self.timeout, run).await;
        // The invocation is over: nothing the skill started may outlive it (module docs).
        drop(guard);
        if let Some(d) = drain {
            let _ = tokio::time::timeout(STDERR_LINGER, d).await;
        }
        match ended {
            Err(_) => {
                self.log(
                    &ctx,
                    &format!("killed after {} ms", self.timeout.as_millis()),
                    &stderr,
                );
                Err(SkillError::new(
                    ErrorCode::ResourceLimitExceeded,
                    format!(
                        "skill {} did not finish within {} ms",
                        self.skill_id,
                        self.timeout.as_millis()
                    ),
                ))
            }
            Ok(Ended::Oversize) => {
                self.log(
                    &ctx,
                    &format!("stdout exceeded {MAX_STDOUT_BYTES} bytes"),
                    &stderr,
                );
                Err(self.failed())
            }
            Ok(Ended::Io(e)) => {
                self.log(&ctx, &format!("I/O with the child failed: {e}"), &stderr);
                Err(self.failed())
            }
            Ok(Ended::Exited(status, out)) => match interpret(status.success(), &out, &ctx) {
                Ok(result) => result,
                Err(bad) => {
                    self.log(&ctx, &format!("exit {status}: {bad}"), &stderr);
                    Err(self.failed())
                }
            },
        }
    }
}

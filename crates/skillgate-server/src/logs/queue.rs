//! Log lines handed to one writer thread, which writes whatever has queued up in one `write`.
//!
//! Writing each line to stderr from the thread that logged it cost every request a system
//! call of its own: under load the Agent Card answered 62,000 requests/s with its access line
//! and 87,000 without (docs/benchmarks.md). Here a line is appended to a shared buffer; the
//! writer thread, woken when the buffer stops being empty, gathers lines for [`GATHER`] (1 ms),
//! takes all of them and writes them at once, and goes on while more have come: under load
//! one `write` carries many lines and nobody is woken per line; when quiet a line reaches
//! stderr about a millisecond after it was logged.
//!
//! Nothing is dropped: past [`CAP`] queued bytes (stderr slower than the logging, a full pipe)
//! a logging thread waits for the writer, as it waited for `write` before. What a crash can
//! lose is what is queued at that instant: the lines of the last moments before a `SIGKILL`.
//! [`flush`] waits for the queue to empty; the CLI calls it before it exits.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// Queued bytes past which a logging thread waits for the writer.
const CAP: usize = 1 << 20;
/// How long the writer gathers lines after the first one before it writes them: the most a
/// line waits in the queue when stderr keeps up.
const GATHER: Duration = Duration::from_millis(1);
/// The longest [`flush`] waits (a stderr nobody reads must not hang an exit).
const FLUSH_WAIT: Duration = Duration::from_secs(2);

#[derive(Default)]
struct Pending {
    bytes: Vec<u8>,
    /// The writer is waiting for lines (a logging thread wakes it only then).
    idle: bool,
    /// The writer holds a batch it has not finished writing.
    writing: bool,
}

/// The queue and its writer thread's signals.
#[derive(Default)]
pub(crate) struct Queue {
    pending: Mutex<Pending>,
    /// Signalled when lines arrive in an empty queue while the writer is idle.
    arrived: Condvar,
    /// Signalled when the writer has written a batch.
    written: Condvar,
}

/// The process's queue, started by the first [`queue`] call; `None` if its thread could not
/// be started.
static QUEUE: OnceLock<Option<Arc<Queue>>> = OnceLock::new();

/// The queue to stderr, its writer thread started on first use (once, however many threads
/// log first). `None` if the thread could not be started: the caller writes to stderr itself.
pub(crate) fn queue() -> Option<&'static Arc<Queue>> {
    QUEUE
        .get_or_init(|| {
            let q = Arc::new(Queue::default());
            let writer = q.clone();
            std::thread::Builder::new()
                .name("skillgate-log".into())
                .spawn(move || writer.run(&mut std::io::stderr()))
                .ok()
                .map(|_| q)
        })
        .as_ref()
}

/// Waits, at most two seconds, until every line queued so far has been written.
pub fn flush() {
    if let Some(Some(q)) = QUEUE.get() {
        q.flush(FLUSH_WAIT);
    }
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues one whole line (or several), waiting while the queue is over [`CAP`].
    pub(crate) fn push(&self, line: &[u8]) {
        let mut p = self.lock();
        while p.bytes.len() >= CAP {
            p = self.written.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        let wake = p.bytes.is_empty() && p.idle;
        p.bytes.extend_from_slice(line);
        drop(p);
        if wake {
            self.arrived.notify_one();
        }
    }

    /// The writer thread: takes everything queued, writes it in one call, again. A failed
    /// write drops that batch, as a failed `write` to stderr dropped its line before.
    fn run(&self, out: &mut impl Write) {
        let mut batch = Vec::new();
        loop {
            let mut p = self.lock();
            p.writing = false;
            self.written.notify_all();
            while p.bytes.is_empty() {
                p.idle = true;
                p = self.arrived.wait(p).unwrap_or_else(|e| e.into_inner());
            }
            p.idle = false;
            p.writing = true;
            drop(p);
            // Lines that arrive meanwhile join this write without waking anyone: without the
            // pause the writer kept up line by line, each line now cost a wake-up as well as
            // its write, and under load the server made as many system calls as before.
            std::thread::sleep(GATHER);
            let mut p = self.lock();
            std::mem::swap(&mut batch, &mut p.bytes);
            drop(p);
            let _ = out.write_all(&batch).and_then(|()| out.flush());
            batch.clear();
            // A burst's buffer is not kept: the queue goes back to its usual size.
            batch.shrink_to(64 * 1024);
        }
    }

    fn flush(&self, limit: Duration) {
        let until = Instant::now() + limit;
        let mut p = self.lock();
        while !p.bytes.is_empty() || p.writing {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            p = self
                .written
                .wait_timeout(p, left)
                .map(|(p, _)| p)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that records each `write_all` it gets and can be held shut.
    #[derive(Clone, Default)]
    struct Recorder {
        writes: Arc<Mutex<Vec<Vec<u8>>>>,
        gate: Arc<Mutex<()>>,
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let _open = self.gate.lock().unwrap_or_else(|p| p.into_inner());
            self.writes
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(buf.to_vec());
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Recorder {
        /// Holds every write shut until the guard drops.
        fn hold(&self) -> MutexGuard<'_, ()> {
            self.gate.lock().unwrap_or_else(|p| p.into_inner())
        }
    }

    fn started(rec: &Recorder) -> Arc<Queue> {
        let q = Arc::new(Queue::default());
        let (writer, mut out) = (q.clone(), rec.clone());
        std::thread::spawn(move || writer.run(&mut out));
        q
    }

    #[test]
    fn lines_arrive_whole_and_in_order_and_batch_while_the_writer_is_busy() {
        let rec = Recorder::default();
        let q = started(&rec);
        q.push(b"first\n");
        q.flush(Duration::from_secs(5));
        assert_eq!(rec.writes.lock().map(|w| w.len()).ok(), Some(1));
        // The writer is held inside a write: what is queued meanwhile goes out in one call.
        let shut = rec.hold();
        q.push(b"second\n");
        std::thread::sleep(Duration::from_millis(50));
        for i in 0..100 {
            q.push(format!("line {i}\n").as_bytes());
        }
        drop(shut);
        q.flush(Duration::from_secs(5));
        let writes = rec.writes.lock().map(|w| w.clone()).unwrap_or_default();
        let all: Vec<u8> = writes.concat();
        let mut want = b"first\nsecond\n".to_vec();
        for i in 0..100 {
            want.extend_from_slice(format!("line {i}\n").as_bytes());
        }
        assert_eq!(all, want, "every line, whole, in order");
        assert!(
            writes.len() <= 3,
            "the hundred lines queued behind a busy writer went out together: {} writes",
            writes.len()
        );
    }

    #[test]
    fn a_full_queue_makes_the_logger_wait_instead_of_dropping_lines() {
        let rec = Recorder::default();
        let q = started(&rec);
        let shut = rec.hold();
        q.push(b"x\n");
        std::thread::sleep(Duration::from_millis(50));
        let big = vec![b'y'; CAP];
        q.push(&big);
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let q2 = q.clone();
        std::thread::spawn(move || {
            q2.push(b"z\n");
            let _ = done_tx.send(());
        });
        assert!(
            done_rx.recv_timeout(Duration::from_millis(200)).is_err(),
            "over the cap, the logging thread waits"
        );
        drop(shut);
        assert!(done_rx.recv_timeout(Duration::from_secs(5)).is_ok());
        q.flush(Duration::from_secs(5));
        let total: usize = rec
            .writes
            .lock()
            .map(|w| w.iter().map(Vec::len).sum())
            .unwrap_or(0);
        assert_eq!(total, 2 + CAP + 2, "nothing dropped");
    }

    #[test]
    fn flush_gives_up_on_a_writer_that_never_finishes() {
        let rec = Recorder::default();
        let q = started(&rec);
        let _shut = rec.hold();
        q.push(b"stuck\n");
        let t = Instant::now();
        q.flush(Duration::from_millis(100));
        assert!(t.elapsed() < Duration::from_secs(2));
    }
}

//! Per-connection limits, like the HTTP server's: a cap on the connections served at once
//! (each accepted connection holds a permit until it closes; one more is closed at once), a
//! header-read timer (the HTTP/2 preface and the headers of the first call must arrive within
//! `header_read_timeout` of the accept) and an idle timer (a connection with no call open for
//! `idle_timeout` is closed; pings and other frames do not count).
//!
//! tonic has neither timer, and hyper's HTTP/2 server has none either: the timers live in the
//! connection's I/O, which hyper polls for reading whenever the connection is alive, so a
//! timer that fires makes the next read fail and hyper drops the connection. The calls are
//! counted by [`crate::watch`], which finds this connection's [`ConnState`] in the request's
//! [`ConnInfo`].

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};
use tonic::transport::server::{Connected, TcpConnectInfo};

/// The two timers of a connection.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timers {
    pub(crate) header_read: Duration,
    pub(crate) idle: Duration,
}

/// What the timers of one connection go by, shared with the calls on it.
#[derive(Debug)]
pub(crate) struct ConnState {
    opened: Instant,
    /// Set when the headers of the first call have arrived.
    called: AtomicBool,
    open_calls: AtomicUsize,
    /// Milliseconds after `opened` at which the last call ended.
    idle_since_ms: AtomicU64,
}

impl ConnState {
    fn new() -> Self {
        Self {
            opened: Instant::now(),
            called: AtomicBool::new(false),
            open_calls: AtomicUsize::new(0),
            idle_since_ms: AtomicU64::new(0),
        }
    }

    /// A call's headers arrived, though the call may be refused: the header-read timer is
    /// done with.
    pub(crate) fn headers_arrived(&self) {
        self.called.store(true, Ordering::SeqCst);
    }

    /// A call's headers arrived and it is served.
    pub(crate) fn call_started(&self) {
        self.open_calls.fetch_add(1, Ordering::SeqCst);
        self.called.store(true, Ordering::SeqCst);
    }

    /// A call's answer ended (or was dropped).
    pub(crate) fn call_ended(&self) {
        let ms = u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX);
        // Stored before the count drops, so a timer that sees no call open also sees when
        // the last one ended.
        self.idle_since_ms.store(ms, Ordering::SeqCst);
        self.open_calls.fetch_sub(1, Ordering::SeqCst);
    }

    /// When the connection is due to close if nothing changes; while a call is open, a time
    /// to look again (`now + idle`).
    fn deadline(&self, timers: Timers, now: Instant) -> Instant {
        if !self.called.load(Ordering::SeqCst) {
            return self.opened + timers.header_read;
        }
        if self.open_calls.load(Ordering::SeqCst) > 0 {
            return now + timers.idle;
        }
        let since = Duration::from_millis(self.idle_since_ms.load(Ordering::SeqCst));
        self.opened + since + timers.idle
    }
}

/// The connect info tonic puts in every request's extensions: the peer's, and this
/// connection's state for [`crate::watch`].
#[derive(Clone, Debug)]
pub(crate) struct ConnInfo {
    pub(crate) tcp: TcpConnectInfo,
    pub(crate) state: Arc<ConnState>,
}

/// An accepted connection holding its permit, watched by its timers.
pub(crate) struct Limited {
    io: TcpStream,
    _permit: OwnedSemaphorePermit,
    state: Arc<ConnState>,
    timers: Timers,
    timer: Pin<Box<Sleep>>,
}

impl Limited {
    /// `io` with a permit of `slots`, or `None` (and `io` closed) when none is left.
    pub(crate) fn admit(io: TcpStream, slots: &Arc<Semaphore>, timers: Timers) -> Option<Self> {
        match Arc::clone(slots).try_acquire_owned() {
            Ok(permit) => {
                let state = Arc::new(ConnState::new());
                let now = Instant::now();
                let first = state.deadline(timers, now).min(now + timers.idle);
                Some(Self {
                    io,
                    _permit: permit,
                    state,
                    timers,
                    timer: Box::pin(tokio::time::sleep_until(first)),
                })
            }
            Err(_) => {
                tracing::warn!(
                    peer = ?io.peer_addr().ok(),
                    "gRPC connection refused: at the connection limit"
                );
                None
            }
        }
    }

    /// Whether a timer ran out; re-arms the timer (registering `cx`) when it has not.
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        while self.timer.as_mut().poll(cx).is_ready() {
            let now = Instant::now();
            let due = self.state.deadline(self.timers, now);
            if due <= now {
                let called = self.state.called.load(Ordering::SeqCst);
                tracing::debug!(
                    peer = ?self.io.peer_addr().ok(),
                    "gRPC connection closed: {}",
                    if called { "idle" } else { "no call headers in time" }
                );
                return true;
            }
            // The deadline can move earlier (the first call turns a long header-read
            // deadline into a short idle one): look again at least every idle period.
            self.timer.as_mut().reset(due.min(now + self.timers.idle));
        }
        false
    }
}

impl Connected for Limited {
    type ConnectInfo = ConnInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        ConnInfo {
            tcp: self.io.connect_info(),
            state: Arc::clone(&self.state),
        }
    }
}

impl AsyncRead for Limited {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.expired(cx) {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "gRPC connection timer ran out",
            )));
        }
        Pin::new(&mut this.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Limited {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

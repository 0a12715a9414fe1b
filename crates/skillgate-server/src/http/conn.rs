//! The accept loop: one HTTP/1.1 connection per task, each watched by a clock that closes it
//! when its request head is late (`header_read_timeout`, counted from when it opens or from the
//! first byte of its next request) or when it sits idle between requests (`idle_timeout`); at
//! most `max_connections` served at once, the rest answered `503` and closed; on shutdown,
//! listening stops, open event streams end, idle connections close, in-flight requests get
//! `shutdown_grace` to finish and whatever is left is dropped.
//!
//! axum's own `serve` has none of these knobs (hyper's `header_read_timeout` alone counts from
//! the start of every wait, so it cannot tell a slow head from an idle keep-alive): see
//! docs/design.md, 2026-12-03.

use super::refusal::Dialect;
use axum::body::Body;
use axum::http::Request;
use axum::Router;
use bytes::Bytes;
use http_body::Frame;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use skillgate_a2a::HttpRefusal;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use skillgate_runtime::metrics::{GaugeGuard, Metrics};
use skillgate_runtime::ServerConfig;

/// The connection limits of a [`ServerConfig`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    header_read_timeout: Duration,
    idle_timeout: Duration,
    max_connections: usize,
    shutdown_grace: Duration,
}

impl Limits {
    /// The limits `config` sets.
    pub(crate) fn of(config: &ServerConfig) -> Self {
        Self {
            header_read_timeout: config.header_read_timeout,
            idle_timeout: config.idle_timeout,
            max_connections: config.max_connections,
            shutdown_grace: config.shutdown_grace,
        }
    }
}

/// Refusals (503s) written at once; past this, a connection over the limit is closed unanswered.
const REFUSALS_AT_ONCE: usize = 64;
/// How long a refusal may take to write its 503 and see the client close.
const REFUSAL_TIME: Duration = Duration::from_secs(1);
/// How long a refused connection's request head is waited for (its dialect decides the body).
const REFUSAL_HEAD_TIME: Duration = Duration::from_millis(300);
/// The most of a refused connection's request head that is read.
const REFUSAL_HEAD_BYTES: usize = 8 * 1024;
/// After an accept error that is not the peer's (out of file descriptors, say), wait this long.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `app` on `listener` until `shutdown` resolves, then shuts down within the grace
/// period; `streams` is cancelled at shutdown to end every open event stream.
pub(crate) async fn run(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()>,
    streams: CancellationToken,
    metrics: Metrics,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let refusals = Arc::new(Semaphore::new(REFUSALS_AT_ONCE));
    let stop = CancellationToken::new();
    let mut conns = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        while conns.try_join_next().is_some() {}
        let accepted = tokio::select! {
            biased;
            _ = &mut shutdown => break,
            a = listener.accept() => a,
        };
        let tcp = match accepted {
            Ok((tcp, _peer)) => {
                // Small writes go out at once: an event stream's frames are small, and with
                // Nagle's algorithm each waited for the peer's delayed ACK (about 40 ms).
                let _ = tcp.set_nodelay(true);
                tcp
            }
            Err(e) if is_peer_error(&e) => continue,
            Err(e) => {
                tracing::debug!(error = %e, "accept failed; retrying");
                // EMFILE and the like: the kernel queue keeps the clients; retry shortly.
                tokio::select! {
                    _ = &mut shutdown => break,
                    _ = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                }
            }
        };
        match slots.clone().try_acquire_owned() {
            Ok(permit) => {
                let open = metrics.connection();
                conns.spawn(connection(
                    tcp,
                    app.clone(),
                    limits,
                    stop.clone(),
                    (permit, open),
                ));
            }
            Err(_) => {
                metrics.connection_refused();
                tracing::debug!("connection refused: the connection limit is reached");
                if let Ok(p) = refusals.clone().try_acquire_owned() {
                    tokio::spawn(refuse(tcp, p));
                }
                // else: dropped here, closed at once.
            }
        }
    }
    drop(listener);
    streams.cancel();
    stop.cancel();
    let drained = async { while conns.join_next().await.is_some() {} };
    if tokio::time::timeout(limits.shutdown_grace, drained)
        .await
        .is_err()
    {
        conns.abort_all();
        while conns.join_next().await.is_some() {}
    }
    Ok(())
}

/// Accept errors that concern one connection only.
fn is_peer_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Answers a connection over the limit with a JSON 503 in the dialect its request speaks
/// (read from its head, `super::refusal`) and closes it.
async fn refuse(mut tcp: TcpStream, _permit: OwnedSemaphorePermit) {
    let _ = tokio::time::timeout(REFUSAL_TIME, async {
        let dialect = refused_dialect(&mut tcp).await;
        let resp = dialect.refuse(
            HttpRefusal::Unavailable,
            "too many connections: the server is at its connection limit; retry shortly".into(),
        );
        let content_type = resp
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or(super::JSON_CONTENT_TYPE)
            .to_owned();
        // The refusal's body is a small JSON object built in memory.
        let body = axum::body::to_bytes(resp.into_body(), REFUSAL_HEAD_BYTES)
            .await
            .unwrap_or_default();
        let head = format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n",
            body.len()
        );
        tcp.write_all(head.as_bytes()).await?;
        tcp.write_all(&body).await?;
        tcp.shutdown().await?;
        // Read what the client sent until it closes, so that closing sends FIN, not a reset
        // that could destroy the 503 before the client reads it.
        let mut sink = [0u8; 1024];
        while tcp.read(&mut sink).await? > 0 {}
        Ok::<_, io::Error>(())
    })
    .await;
}

/// The dialect of a refused connection's first request, from its head (the request line and
/// headers, at most [`REFUSAL_HEAD_BYTES`], waited for at most [`REFUSAL_HEAD_TIME`]); a
/// head that does not come or does not parse gets the 1.0 body, as before the head was read.
async fn refused_dialect(tcp: &mut TcpStream) -> Dialect {
    let fallback = Dialect::Rest(skillgate_a2a::version::WireVersion::V1_0);
    let mut buf = Vec::with_capacity(1024);
    let read = tokio::time::timeout(REFUSAL_HEAD_TIME, async {
        let mut chunk = [0u8; 1024];
        while buf.len() < REFUSAL_HEAD_BYTES && !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = tcp.read(&mut chunk).await?;
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        Ok::<_, io::Error>(())
    })
    .await;
    if !matches!(read, Ok(Ok(()))) {
        return fallback;
    }
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    if !matches!(req.parse(&buf), Ok(httparse::Status::Complete(_))) {
        return fallback;
    }
    let Some(uri) = req.path.and_then(|p| p.parse::<axum::http::Uri>().ok()) else {
        return fallback;
    };
    let mut map = axum::http::HeaderMap::new();
    for h in req.headers.iter() {
        if let (Ok(name), Ok(value)) = (
            axum::http::HeaderName::from_bytes(h.name.as_bytes()),
            axum::http::HeaderValue::from_bytes(h.value),
        ) {
            map.append(name, value);
        }
    }
    Dialect::of(&uri, &map)
}

/// Serves one connection until it ends, its clock runs out, or shutdown ends it.
async fn connection(
    tcp: TcpStream,
    app: Router,
    limits: Limits,
    stop: CancellationToken,
    _held: (OwnedSemaphorePermit, GaugeGuard),
) {
    let clock = Arc::new(Clock::new());
    let io = TokioIo::new(Watched {
        inner: tcp,
        clock: clock.clone(),
    });
    let svc_clock = clock.clone();
    let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
        let guard = svc_clock.begin_request();
        let app = app.clone();
        async move {
            let resp = app.oneshot(req.map(Body::new)).await;
            resp.map(|r| {
                r.map(|b| {
                    Body::new(Guarded {
                        inner: b,
                        _guard: guard,
                    })
                })
            })
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    // hyper's own timer counts from the start of every wait for a head; it backs up the clock.
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.idle_timeout + limits.header_read_timeout);
    let conn = builder.serve_connection(io, svc);
    tokio::pin!(conn);
    let watchdog = watchdog(clock.clone(), limits);
    tokio::pin!(watchdog);
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = &mut watchdog, if !stopping => return,
            _ = stop.cancelled(), if !stopping => {
                if clock.in_flight() == 0 {
                    return; // idle or still sending its head: closed now
                }
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

/// Resolves when the connection's clock has run out.
async fn watchdog(clock: Arc<Clock>, limits: Limits) {
    loop {
        let now = clock.now_ms();
        let deadline = clock.deadline_ms(limits);
        match deadline {
            Some(d) if d <= now => return,
            Some(d) => tokio::time::sleep(Duration::from_millis(d - now)).await,
            // A request is in flight: its body and answer have their own limits; look again.
            None => {
                tokio::time::sleep(limits.header_read_timeout.max(Duration::from_secs(1))).await
            }
        }
    }
}

const NONE: u64 = u64::MAX;

/// What a connection is doing, in milliseconds since it opened.
struct Clock {
    origin: Instant,
    in_flight: AtomicUsize,
    /// Requests begun (0: still waiting for the first head).
    requests: AtomicU64,
    /// When the last response ended.
    idle_since: AtomicU64,
    /// When the first byte arrived after the last response ended; NONE if none has.
    first_byte: AtomicU64,
}

impl Clock {
    fn new() -> Self {
        Self {
            origin: Instant::now(),
            in_flight: AtomicUsize::new(0),
            requests: AtomicU64::new(0),
            idle_since: AtomicU64::new(0),
            first_byte: AtomicU64::new(NONE),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_millis()).unwrap_or(NONE - 1)
    }

    fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    /// When the connection must be closed unless something happens first; `None` while a
    /// request is in flight.
    fn deadline_ms(&self, limits: Limits) -> Option<u64> {
        if self.in_flight() > 0 {
            return None;
        }
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(NONE / 4);
        if self.requests.load(Ordering::Acquire) == 0 {
            return Some(ms(limits.header_read_timeout));
        }
        let first = self.first_byte.load(Ordering::Acquire);
        if first != NONE {
            return Some(first.saturating_add(ms(limits.header_read_timeout)));
        }
        Some(
            self.idle_since
                .load(Ordering::Acquire)
                .saturating_add(ms(limits.idle_timeout)),
        )
    }

    /// Bytes arrived.
    fn on_read(&self) {
        if self.in_flight() == 0 && self.first_byte.load(Ordering::Acquire) == NONE {
            self.first_byte.store(self.now_ms(), Ordering::Release);
        }
    }

    /// A request head is complete: the connection is busy until the guard drops (when the
    /// response body has been sent, or the request is abandoned).
    fn begin_request(self: &Arc<Self>) -> RequestGuard {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.requests.fetch_add(1, Ordering::AcqRel);
        self.first_byte.store(NONE, Ordering::Release);
        RequestGuard(self.clone())
    }
}

struct RequestGuard(Arc<Clock>);

impl Drop for RequestGuard {
    fn drop(&mut self) {
        let c = &self.0;
        c.idle_since.store(c.now_ms(), Ordering::Release);
        c.first_byte.store(NONE, Ordering::Release);
        c.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A response body that holds its request's guard until it is done.
struct Guarded {
    inner: Body,
    _guard: RequestGuard,
}

impl http_body::Body for Guarded {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// The TCP stream, telling the clock when bytes arrive.
struct Watched {
    inner: TcpStream,
    clock: Arc<Clock>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.clock.on_read();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

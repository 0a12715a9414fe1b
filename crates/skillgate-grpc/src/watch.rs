//! The layer that counts calls: per connection for the idle timer ([`crate::limit`]), and
//! across all connections for [`crate::GrpcConfig::max_open_calls`]. A call counts from its
//! headers until its answer's body is dropped, so an event stream counts for as long as it is
//! open.

use crate::limit::{ConnInfo, ConnState};
use futures_util::future::BoxFuture;
use http_body::{Body as HttpBody, Frame, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::body::Body;
use tonic::codegen::http::{Request, Response};
use tonic::codegen::{Bytes, Service};
use tonic::Status;

/// Wraps the routes in [`Watch`].
#[derive(Clone, Debug)]
pub(crate) struct WatchLayer {
    calls: Arc<Semaphore>,
}

impl WatchLayer {
    /// At most `max_open_calls` calls open at once.
    pub(crate) fn new(max_open_calls: usize) -> Self {
        Self {
            calls: Arc::new(Semaphore::new(max_open_calls.max(1))),
        }
    }
}

impl<S> tower::Layer<S> for WatchLayer {
    type Service = Watch<S>;

    fn layer(&self, inner: S) -> Watch<S> {
        Watch {
            inner,
            calls: Arc::clone(&self.calls),
        }
    }
}

/// Counts each call while it is open; refuses one over the cap `RESOURCE_EXHAUSTED`.
#[derive(Clone, Debug)]
pub(crate) struct Watch<S> {
    inner: S,
    calls: Arc<Semaphore>,
}

impl<S, B> Service<Request<B>> for Watch<S>
where
    S: Service<Request<B>, Response = Response<Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        let conn = req.extensions().get::<ConnInfo>().cloned();
        if let Some(c) = &conn {
            c.state.headers_arrived();
            // tonic's Request::remote_addr looks for the TCP connect info itself.
            req.extensions_mut().insert(c.tcp.clone());
        }
        let Ok(permit) = Arc::clone(&self.calls).try_acquire_owned() else {
            tracing::warn!("gRPC call refused: at the open-call limit");
            let refused = Status::resource_exhausted(
                "too many calls open: the server is at its limit; retry shortly",
            )
            .into_http();
            return Box::pin(std::future::ready(Ok(refused)));
        };
        let guard = OpenCall::new(conn.map(|c| c.state), permit);
        let answer = self.inner.call(req);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| {
                Body::new(Counted {
                    body,
                    _guard: guard,
                })
            }))
        })
    }
}

/// One open call: counted on its connection and holding a global slot until dropped.
#[derive(Debug)]
struct OpenCall {
    conn: Option<Arc<ConnState>>,
    _permit: OwnedSemaphorePermit,
}

impl OpenCall {
    fn new(conn: Option<Arc<ConnState>>, permit: OwnedSemaphorePermit) -> Self {
        if let Some(c) = &conn {
            c.call_started();
        }
        Self {
            conn,
            _permit: permit,
        }
    }
}

impl Drop for OpenCall {
    fn drop(&mut self) {
        if let Some(c) = &self.conn {
            c.call_ended();
        }
    }
}

/// An answer's body, keeping its call counted until it is dropped.
struct Counted {
    body: Body,
    _guard: OpenCall,
}

impl HttpBody for Counted {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

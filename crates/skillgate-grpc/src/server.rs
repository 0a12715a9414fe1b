//! Serving the gRPC binding on a listener: the same limits as the HTTP server where tonic has
//! them (message size = the body limit, the connection cap, a bound on concurrent streams per
//! connection) and the same graceful shutdown (streams end at once, in-flight calls get the
//! grace).

use crate::adapter::Adapter;
use crate::limit::Limited;
use crate::pb::a2a_service_server::A2aServiceServer;
use futures_util::StreamExt;
use skillgate_runtime::{AgentSwap, TokenTable};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How the gRPC binding serves.
#[derive(Clone, Debug)]
pub struct GrpcConfig {
    /// Bearer tokens (the HTTP server's); `None` means no authentication.
    pub tokens: Option<TokenTable>,
    /// Largest accepted request message in bytes (the HTTP body limit; default 1 MiB). A
    /// larger one is refused `OUT_OF_RANGE` by tonic before it is decoded.
    pub body_limit: usize,
    /// After shutdown: how long in-flight calls get before the server stops (default 10 s).
    pub shutdown_grace: Duration,
    /// Most connections served at once (the HTTP server's `max_connections`; default 1024).
    /// One more is closed as soon as it is accepted.
    pub max_connections: usize,
    /// Most calls open at once on one HTTP/2 connection (default 100).
    pub max_concurrent_streams: u32,
    /// Longest a call may take to produce its answer (for a stream: its first message), the
    /// request's upload included; past it the call ends `CANCELLED`. Set it above the HTTP
    /// server's request timeout, which a blocking SendMessage already keeps to (default 35 s).
    pub call_timeout: Duration,
}

impl Default for GrpcConfig {
    fn default() -> Self {
        Self {
            tokens: None,
            body_limit: 1024 * 1024,
            shutdown_grace: Duration::from_secs(10),
            max_connections: 1024,
            max_concurrent_streams: 100,
            call_timeout: Duration::from_secs(35),
        }
    }
}

/// Why the gRPC server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum GrpcError {
    /// The transport failed (accepting connections, HTTP/2).
    #[error("gRPC server: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// Serves the A2A gRPC binding of `swap`'s service on `listener` until `shutdown` resolves;
/// then open event streams end at once and in-flight calls get
/// [`GrpcConfig::shutdown_grace`] before whatever is left is dropped.
pub async fn serve(
    swap: AgentSwap,
    listener: tokio::net::TcpListener,
    config: GrpcConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), GrpcError> {
    let streams_end = CancellationToken::new();
    let adapter = Adapter::new(swap, config.tokens.map(Arc::new), streams_end.clone());
    let service = A2aServiceServer::new(adapter)
        .max_decoding_message_size(config.body_limit)
        .max_encoding_message_size(usize::MAX);
    let (fired_tx, fired_rx) = tokio::sync::oneshot::channel::<()>();
    let signal = async move {
        shutdown.await;
        streams_end.cancel();
        let _ = fired_tx.send(());
    };
    // TCP_NODELAY: without it a small answer waits on the client's delayed ACK (measured:
    // a describe_skill SendMessage took a median 48 ms instead of about 2 ms on loopback).
    let slots = Arc::new(tokio::sync::Semaphore::new(config.max_connections));
    let incoming = tonic::transport::server::TcpIncoming::from(listener)
        .with_nodelay(Some(true))
        .filter_map(move |accepted| {
            let admitted = match accepted {
                Ok(io) => Limited::admit(io, &slots).map(Ok),
                Err(e) => Some(Err(e)),
            };
            std::future::ready(admitted)
        });
    let server = tonic::transport::Server::builder()
        .max_concurrent_streams(config.max_concurrent_streams)
        .timeout(config.call_timeout)
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(10)))
        .add_service(service)
        .serve_with_incoming_shutdown(incoming, signal);
    let grace = config.shutdown_grace;
    let grace_over = async move {
        // A dropped sender means the server already ended: nothing to wait for.
        if fired_rx.await.is_ok() {
            tokio::time::sleep(grace).await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        r = server => r.map_err(GrpcError::from),
        () = grace_over => Ok(()),
    }
}

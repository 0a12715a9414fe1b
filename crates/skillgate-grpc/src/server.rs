//! Serving the gRPC binding on a listener: the same limits as the HTTP server (message size =
//! the body limit, the connection cap, the header-read and idle timers of [`crate::limit`]),
//! bounds of its own on what a connection can make the server hold (concurrent streams per
//! connection, open calls in all, flow-control windows, header size), and the same graceful
//! shutdown (streams end at once, in-flight calls get the grace).

use crate::adapter::Adapter;
use crate::adapter03::Adapter03;
use crate::limit::{Limited, Timers};
use crate::pb::a2a_service_server::A2aServiceServer;
use crate::pb03::a2a_service_server::A2aServiceServer as A2aServiceServer03;
use crate::watch::WatchLayer;
use futures_util::StreamExt;
use skillgate_runtime::{AgentSwap, TokenTable};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The HTTP/2 flow-control window of one stream: what a client may send ahead on a call, and
/// so what it can make the server buffer per call before the server reads it (hyper's default
/// is 1 MiB; this is the protocol's own default).
const STREAM_WINDOW: u32 = 64 * 1024;
/// The HTTP/2 flow-control window of a whole connection (hyper's default is 1 MiB).
const CONNECTION_WINDOW: u32 = 256 * 1024;
/// Largest block of request headers (gRPC metadata included) accepted.
const MAX_HEADER_LIST: u32 = 16 * 1024;

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
    /// How long a new connection has to send the HTTP/2 preface and the headers of its first
    /// call (the HTTP server's `header_read_timeout`; default 10 s); past it, it is closed.
    pub header_read_timeout: Duration,
    /// How long a connection may stay open with no call in progress (the HTTP server's
    /// `idle_timeout`; default 60 s); answering pings does not count as activity.
    pub idle_timeout: Duration,
    /// Most calls open at once across all connections (default 1024); one more is answered
    /// `RESOURCE_EXHAUSTED` at once. With the per-connection stream cap and the flow-control
    /// windows, this bounds what clients that stop reading can make the server hold.
    pub max_open_calls: usize,
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
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_open_calls: 1024,
        }
    }
}

impl GrpcConfig {
    /// The gRPC limits of a server whose HTTP bindings run under `config`: the same tokens,
    /// body limit, connection cap, header-read and idle timers and shutdown grace, so neither
    /// port is easier to hold open than the other. A blocking `SendMessage` answers within
    /// the request timeout; the call timeout adds 5 s for converting and sending the answer.
    pub fn for_server(config: &skillgate_runtime::ServerConfig) -> Self {
        Self {
            tokens: config.tokens.clone(),
            body_limit: config.body_limit,
            shutdown_grace: config.shutdown_grace,
            call_timeout: config.request_timeout + Duration::from_secs(5),
            max_connections: config.max_connections,
            header_read_timeout: config.header_read_timeout,
            idle_timeout: config.idle_timeout,
            ..Self::default()
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
    // The 0.3 service (`a2a.v1`) beside the 1.0 one (`lf.a2a.v1`): distinct full names, one
    // port. It answers only when 0.3 is served (its calls negotiate as 0.3).
    let service03 = A2aServiceServer03::new(Adapter03::new(adapter.clone()))
        .max_decoding_message_size(config.body_limit)
        .max_encoding_message_size(usize::MAX);
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
    let timers = Timers {
        header_read: config.header_read_timeout,
        idle: config.idle_timeout,
    };
    let incoming = tonic::transport::server::TcpIncoming::from(listener)
        .with_nodelay(Some(true))
        .filter_map(move |accepted| {
            let admitted = match accepted {
                Ok(io) => Limited::admit(io, &slots, timers).map(Ok),
                Err(e) => Some(Err(e)),
            };
            std::future::ready(admitted)
        });
    let server = tonic::transport::Server::builder()
        .max_concurrent_streams(config.max_concurrent_streams)
        .timeout(config.call_timeout)
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(10)))
        .initial_stream_window_size(STREAM_WINDOW)
        .initial_connection_window_size(CONNECTION_WINDOW)
        .http2_max_header_list_size(MAX_HEADER_LIST)
        .layer(WatchLayer::new(config.max_open_calls))
        .add_service(service)
        .add_service(service03)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grpc_port_gets_the_http_servers_limits() {
        let http = skillgate_runtime::ServerConfig {
            body_limit: 4096,
            header_read_timeout: Duration::from_secs(3),
            idle_timeout: Duration::from_secs(5),
            max_connections: 20,
            shutdown_grace: Duration::from_secs(2),
            request_timeout: Duration::from_secs(7),
            ..Default::default()
        };
        let g = GrpcConfig::for_server(&http);
        assert_eq!(g.body_limit, 4096);
        assert_eq!(g.header_read_timeout, Duration::from_secs(3));
        assert_eq!(g.idle_timeout, Duration::from_secs(5));
        assert_eq!(g.max_connections, 20);
        assert_eq!(g.shutdown_grace, Duration::from_secs(2));
        assert_eq!(g.call_timeout, Duration::from_secs(12));
    }
}

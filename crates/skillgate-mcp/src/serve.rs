//! The two MCP transports, both the SDK's own: stdio (the host starts the process; stdout is
//! the protocol channel, so nothing else may write there) and Streamable HTTP on a loopback
//! listener at `/mcp`.

use std::net::SocketAddr;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;

use crate::error::McpError;
use crate::server::SkillServer;

/// Serves `server` over stdin and stdout until the host closes stdin (or the session ends).
pub async fn serve_stdio(server: SkillServer) -> Result<(), McpError> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError::Session(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| McpError::Session(e.to_string()))?;
    Ok(())
}

/// A running Streamable HTTP listener: its address, and the token that stops it.
#[derive(Debug)]
pub struct HttpServer {
    addr: SocketAddr,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl HttpServer {
    /// The bound address (the port chosen when `:0` was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The MCP endpoint a host connects to: `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stops accepting, ends every session, and waits for the listener to close.
    pub async fn shutdown(self) -> Result<(), McpError> {
        self.stop.cancel();
        self.wait().await
    }

    /// Waits until the listener ends (after [`HttpServer::shutdown`] or a socket error).
    pub async fn wait(self) -> Result<(), McpError> {
        let addr = self.addr.to_string();
        match self.task.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(source)) => Err(McpError::Listen { addr, source }),
            Err(e) => Err(McpError::Session(format!("listener task: {e}"))),
        }
    }
}

/// Binds `addr` (loopback only) and serves `server` there over Streamable HTTP at `/mcp`,
/// one session per client (`Mcp-Session-Id`), each with a clone of `server` sharing its
/// client and interface cache. The SDK's own checks stay on: `Host` must name a loopback
/// host (against DNS rebinding from a browser page).
pub async fn serve_http(server: SkillServer, addr: SocketAddr) -> Result<HttpServer, McpError> {
    if !addr.ip().is_loopback() {
        return Err(McpError::NotLoopback(addr));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| McpError::Listen {
            addr: addr.to_string(),
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| McpError::Listen {
        addr: addr.to_string(),
        source,
    })?;
    let stop = CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = stop.child_token();
    let service: StreamableHttpService<SkillServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(server.clone()), Default::default(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let shutdown = stop.clone();
    let task = tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
            .await
    });
    Ok(HttpServer { addr, stop, task })
}

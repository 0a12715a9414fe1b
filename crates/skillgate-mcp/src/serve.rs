//! The two MCP transports, both the SDK's own: stdio (the host starts the process; stdout is
//! the protocol channel, so nothing else may write there) and Streamable HTTP on a loopback
//! listener at `/mcp`.

use std::net::SocketAddr;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;

use std::sync::Arc;

use skillgate_runtime::{authenticate, TokenTable};

use crate::error::McpError;
use crate::local::AgentTools;
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
    let listener = bind_loopback(addr).await?;
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

/// Binds `addr` for an MCP listener, refusing one that is not on loopback before binding:
/// MCP hosts have no standard way to authenticate, and the SDK's `Host` check admits
/// loopback names only, so every MCP listener of this crate serves this machine only.
pub async fn bind_loopback(addr: SocketAddr) -> Result<tokio::net::TcpListener, McpError> {
    if !addr.ip().is_loopback() {
        return Err(McpError::NotLoopback(addr));
    }
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| McpError::Listen {
            addr: addr.to_string(),
            source,
        })
}

/// The Streamable HTTP app of an agent's own tools (`serve --mcp-listen`), at `/mcp`: one
/// [`AgentTools`] per session, sharing what was listed; request bodies over `max_body` bytes
/// answered 413 by the SDK; with `tokens`, every request needs `Authorization: Bearer` with
/// one of the agent's own tokens (401 otherwise), and its caller's token decides which tools
/// it sees and may call, as on the A2A bindings. `stop` ends every session (at shutdown).
/// The caller serves it under the server's connection discipline (timers, connection cap).
pub fn agent_router(
    tools: AgentTools,
    tokens: Option<Arc<TokenTable>>,
    max_body: usize,
    stop: CancellationToken,
) -> axum::Router {
    let mut config = StreamableHttpServerConfig::default().with_max_request_body_bytes(max_body);
    config.cancellation_token = stop;
    let service: StreamableHttpService<AgentTools, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(tools.clone()), Default::default(), config);
    axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(tokens, bearer))
}

/// The bearer check of the agent's own listeners, by the runtime's [`authenticate`]: the
/// caller it finds goes into the request's extensions, where [`AgentTools`] reads it.
async fn bearer(
    axum::extract::State(tokens): axum::extract::State<Option<Arc<TokenTable>>>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::{header, HeaderValue, StatusCode};
    use axum::response::IntoResponse;
    if let Some(tokens) = tokens.as_deref() {
        let values = request
            .headers()
            .get_all(header::AUTHORIZATION)
            .iter()
            .map(|v| v.to_str().unwrap_or(""));
        match authenticate(tokens, values) {
            Ok(caller) => {
                request.extensions_mut().insert(caller);
            }
            Err(refusal) => {
                let body = serde_json::json!({"error": refusal.to_string()}).to_string();
                let mut r = (StatusCode::UNAUTHORIZED, body).into_response();
                let h = r.headers_mut();
                h.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                h.insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                return r;
            }
        }
    }
    next.run(request).await
}

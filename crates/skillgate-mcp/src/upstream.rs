//! The client side: a session with an MCP server that skillgate governs (for `skillgate
//! interface from-mcp` and a gateway's MCP upstream). All framing is the SDK's (`rmcp`): a
//! child process over stdio, or Streamable HTTP. What this module adds is bounds: how long the
//! server may take to start, how many tools a list may hold, how large an answer may be.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientCapabilities, ClientConfig, ClientRequest, Implementation, JsonObject,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerResult, Tool,
};
use rmcp::service::{ClientCacheConfig, NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ClientHandler;
use rmcp::{RoleClient, ServiceExt};
use skillgate_transport::{ExtraHeader, Secret};
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

/// Where an MCP server is: a command this process starts (stdio) or a Streamable HTTP URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpEndpoint {
    /// A program and its arguments, started with stdin and stdout as the MCP channel (its
    /// stderr is ours, for its diagnostics).
    Command {
        /// The program (looked up in `PATH` when it has no `/`).
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// The working directory (`None`: ours). A gateway starts it in its config's
        /// directory, so relative paths in the command mean the same wherever it runs.
        dir: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint (`http://HOST/mcp`).
    Url(String),
}

impl McpEndpoint {
    /// A command line split on whitespace (no shell: no quoting, no expansion). Empty is an
    /// error.
    pub fn command_line(line: &str) -> Result<Self, UpstreamError> {
        let mut words = line.split_whitespace().map(str::to_owned);
        let program = words.next().ok_or(UpstreamError::EmptyCommand)?;
        Ok(Self::Command {
            program,
            args: words.collect(),
            dir: None,
        })
    }

    /// What to call the server in messages: the program, or the URL without credentials.
    pub fn shown(&self) -> String {
        match self {
            Self::Command { program, .. } => format!("command {program}"),
            Self::Url(u) => skillgate_transport::redact_str(u),
        }
    }
}

/// What a session over Streamable HTTP sends besides MCP: a bearer token and extra headers.
/// They go to the endpoint URL only: every request of the session is to that one URL, and
/// redirects are not followed, so no other origin ever receives them. `Debug` shows neither
/// value (the transport's [`Secret`] and [`ExtraHeader`] hide them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    /// Sent as `Authorization: Bearer <token>`.
    pub token: Option<Secret>,
    /// Sent on every request (after the SDK's own headers).
    pub headers: Vec<ExtraHeader>,
}

impl Credentials {
    /// Whether there is anything to send.
    pub fn is_empty(&self) -> bool {
        self.token.is_none() && self.headers.is_empty()
    }
}

/// The bounds of one session. The defaults suit a local tool server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// From start (spawn or first request) to the end of `initialize`.
    pub start: Duration,
    /// One `tools/list` page, or one request other than `tools/call`.
    pub request: Duration,
    /// The most tools a server may list (over all pages); more is an error, not a cut.
    pub max_tools: usize,
    /// The most `tools/list` pages followed.
    pub max_pages: usize,
    /// The largest JSON answer accepted over Streamable HTTP (stdio lines are bounded by
    /// the SDK at 16 MiB).
    pub max_response_bytes: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            start: Duration::from_secs(20),
            request: Duration::from_secs(30),
            max_tools: 1000,
            max_pages: 100,
            max_response_bytes: 8 * 1024 * 1024,
        }
    }
}

/// Why a session with an MCP server failed.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// `--command` was empty.
    #[error("the MCP server command is empty")]
    EmptyCommand,
    /// The URL is not http(s).
    #[error("{0} is not an http:// or https:// URL")]
    NotHttp(String),
    /// The program could not be started.
    #[error("cannot start the MCP server ({server}): {source}")]
    Spawn {
        /// The server, as shown.
        server: String,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// No `initialize` answer in time.
    #[error("the MCP server ({server}) did not complete initialize within {} ms", .limit.as_millis())]
    StartTimeout {
        /// The server, as shown.
        server: String,
        /// The limit.
        limit: Duration,
    },
    /// `initialize` failed: the process exited, the URL is not an MCP endpoint, or the answer
    /// was not MCP.
    #[error("the MCP server ({server}) did not start an MCP session: {message}")]
    Handshake {
        /// The server, as shown.
        server: String,
        /// The SDK's reason.
        message: String,
    },
    /// A request after `initialize` failed.
    #[error("MCP {method} to {server}: {message}")]
    Request {
        /// The method.
        method: &'static str,
        /// The server, as shown.
        server: String,
        /// The SDK's reason (a JSON-RPC error, a closed transport, a timeout).
        message: String,
    },
    /// A tool asked for by name is not in the server's list.
    #[error("the MCP server lists no tool `{tool}` (it lists: {available})")]
    UnknownTool {
        /// The name asked for.
        tool: String,
        /// The names it lists.
        available: String,
    },
    /// The server listed more tools (or pages) than [`Bounds`] allow.
    #[error("the MCP server ({server}) lists more than {limit} {what}")]
    TooMany {
        /// The server, as shown.
        server: String,
        /// "tools" or "tools/list pages".
        what: &'static str,
        /// The bound.
        limit: usize,
    },
}

impl UpstreamError {
    /// The failure code a command reports for it (`--format json`), in the client's
    /// vocabulary: what was asked is wrong (`usage_error`), the server is no MCP peer
    /// (`protocol_error`), or it could not be reached, started or heard in time
    /// (`transport_error`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::EmptyCommand | Self::NotHttp(_) | Self::UnknownTool { .. } => "usage_error",
            Self::Handshake { .. } | Self::TooMany { .. } => "protocol_error",
            Self::Spawn { .. } | Self::StartTimeout { .. } | Self::Request { .. } => {
                "transport_error"
            }
        }
    }
}

/// A live session with one MCP server. Dropping it ends the session (a child process is
/// killed).
pub struct McpUpstream {
    service: RunningService<RoleClient, Relay>,
    server: String,
    bounds: Bounds,
}

impl std::fmt::Debug for McpUpstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpUpstream")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

fn client_info() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("skillgate", env!("CARGO_PKG_VERSION")),
    )
}

/// Where the progress notifications of one call go, by the progress token its request sent.
type Routes = Arc<Mutex<HashMap<ProgressToken, UnboundedSender<String>>>>;

/// The session's client handler: the client's identity, and every progress notification the
/// server sends routed to the call whose request carried its token (a notification for a
/// token no running call holds is dropped).
#[derive(Clone, Default)]
pub(crate) struct Relay {
    routes: Routes,
}

impl ClientHandler for Relay {
    fn get_info(&self) -> ClientConfig {
        client_info()
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let text = params.message.unwrap_or_else(|| match params.total {
            Some(total) => format!("progress {} of {total}", params.progress),
            None => format!("progress {}", params.progress),
        });
        if let Some(tx) = self
            .routes
            .lock()
            .ok()
            .and_then(|r| r.get(&params.progress_token).cloned())
        {
            let _ = tx.send(text);
        }
    }
}

/// Removes a call's route when the call ends (or is dropped, cancelled).
struct Route {
    routes: Routes,
    token: ProgressToken,
}

impl Drop for Route {
    fn drop(&mut self) {
        if let Ok(mut r) = self.routes.lock() {
            r.remove(&self.token);
        }
    }
}

/// The SDK's reason an `initialize` failed, without the transport's Rust type name (its
/// display of a transport error names the generic type, which tells a user nothing).
fn handshake_message(e: &rmcp::service::ClientInitializeError) -> String {
    use rmcp::service::ClientInitializeError as E;
    match e {
        E::TransportError { error, context } => format!("{context}: {}", error.error),
        other => other.to_string(),
    }
}

impl McpUpstream {
    /// Starts a session (spawns the command, or connects to the URL) and completes
    /// `initialize` within `bounds.start`.
    pub async fn connect(endpoint: &McpEndpoint, bounds: Bounds) -> Result<Self, UpstreamError> {
        Self::connect_with(endpoint, bounds, &Credentials::default()).await
    }

    /// [`McpUpstream::connect`], sending `credentials` with every request to a URL endpoint
    /// (a command gets none: its channel is its own stdin and stdout).
    pub async fn connect_with(
        endpoint: &McpEndpoint,
        bounds: Bounds,
        credentials: &Credentials,
    ) -> Result<Self, UpstreamError> {
        let server = endpoint.shown();
        let handshake = |e: rmcp::service::ClientInitializeError| UpstreamError::Handshake {
            server: server.clone(),
            message: handshake_message(&e),
        };
        let start = async {
            match endpoint {
                McpEndpoint::Command { program, args, dir } => {
                    let mut cmd = tokio::process::Command::new(program);
                    cmd.args(args);
                    if let Some(d) = dir {
                        cmd.current_dir(d);
                    }
                    let (transport, _) = TokioChildProcess::builder(cmd)
                        .stderr(std::process::Stdio::inherit())
                        .spawn()
                        .map_err(|source| UpstreamError::Spawn {
                            server: server.clone(),
                            source,
                        })?;
                    Relay::default().serve(transport).await.map_err(handshake)
                }
                McpEndpoint::Url(url) => {
                    if !(url.starts_with("http://") || url.starts_with("https://")) {
                        return Err(UpstreamError::NotHttp(server.clone()));
                    }
                    let http = skillgate_platform::http::client_builder("mcp")
                        .connect_timeout(bounds.start)
                        .build()
                        .map_err(|e| UpstreamError::Handshake {
                            server: server.clone(),
                            message: e.to_string(),
                        })?;
                    let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                    config.max_json_response_size = bounds.max_response_bytes;
                    config.max_sse_event_size = bounds.max_response_bytes;
                    if let Some(token) = &credentials.token {
                        config.auth_header = Some(token.expose().to_owned());
                    }
                    config.custom_headers = credentials
                        .headers
                        .iter()
                        .map(ExtraHeader::to_pair)
                        .collect();
                    let transport = StreamableHttpClientTransport::with_client(http, config);
                    Relay::default().serve(transport).await.map_err(handshake)
                }
            }
        };
        let service = tokio::time::timeout(bounds.start, start)
            .await
            .map_err(|_| UpstreamError::StartTimeout {
                server: server.clone(),
                limit: bounds.start,
            })??;
        // Every list must be the server's answer now: a cached one would hide drift.
        service
            .peer()
            .set_response_cache_config(ClientCacheConfig::disabled())
            .await;
        Ok(Self {
            service,
            server,
            bounds,
        })
    }

    /// The server, as messages name it.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The server's name and version from its `initialize` answer (`serverInfo`), when it
    /// gave them: a gateway's card names the server it fronts.
    pub fn server_info(&self) -> Option<(String, String)> {
        self.service
            .peer_info()
            .and_then(|i| i.server_info.clone())
            .map(|s| (s.name, s.version))
    }

    fn request_error(&self, method: &'static str, message: String) -> UpstreamError {
        UpstreamError::Request {
            method,
            server: self.server.clone(),
            message,
        }
    }

    /// Every tool the server lists now, all pages followed, within [`Bounds`].
    pub async fn tools(&self) -> Result<Vec<Tool>, UpstreamError> {
        let peer = self.service.peer();
        let mut tools = Vec::new();
        let mut cursor = None;
        for _ in 0..self.bounds.max_pages {
            let params = cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
            let page = tokio::time::timeout(self.bounds.request, peer.list_tools(params))
                .await
                .map_err(|_| {
                    self.request_error(
                        "tools/list",
                        format!("no answer within {} ms", self.bounds.request.as_millis()),
                    )
                })?
                .map_err(|e| self.request_error("tools/list", e.to_string()))?;
            tools.extend(page.tools);
            if tools.len() > self.bounds.max_tools {
                return Err(UpstreamError::TooMany {
                    server: self.server.clone(),
                    what: "tools",
                    limit: self.bounds.max_tools,
                });
            }
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return Ok(tools),
            }
        }
        Err(UpstreamError::TooMany {
            server: self.server.clone(),
            what: "tools/list pages",
            limit: self.bounds.max_pages,
        })
    }

    /// One `tools/call`. Not time-limited here: the caller bounds it (a gateway by the
    /// skill's time limit). Dropping the future before the answer sends
    /// `notifications/cancelled` for the request (the SDK does), which is how a cancel
    /// reaches the tool.
    pub async fn call(
        &self,
        tool: &str,
        arguments: JsonObject,
    ) -> Result<CallToolResult, UpstreamError> {
        self.service
            .peer()
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
            .await
            .map_err(|e| self.request_error("tools/call", e.to_string()))
    }

    /// [`McpUpstream::call`] following the progress token the SDK puts on every request:
    /// each `notifications/progress` the server sends for it reaches `on_progress` as text
    /// (its message, else the progress figures) while the call runs. Dropping the future
    /// before the answer sends `notifications/cancelled` for the request, as `call` does.
    pub async fn call_with_progress(
        &self,
        tool: &str,
        arguments: JsonObject,
        on_progress: impl Fn(String),
    ) -> Result<CallToolResult, UpstreamError> {
        let relay = self.service.service();
        let peer = self.service.peer();
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.request_error("tools/call", e.to_string()))?;
        let (tx, mut rx) = unbounded_channel();
        if let Ok(mut r) = relay.routes.lock() {
            r.insert(handle.progress_token.clone(), tx);
        }
        let _route = Route {
            routes: Arc::clone(&relay.routes),
            token: handle.progress_token.clone(),
        };
        let mut abandoned = Abandoned {
            peer: peer.clone(),
            id: Some(handle.id.clone()),
        };
        let answer = handle.await_response();
        tokio::pin!(answer);
        let answer = loop {
            tokio::select! {
                r = &mut answer => break r,
                Some(text) = rx.recv() => on_progress(text),
            }
        };
        abandoned.id = None;
        // Notifications that arrived with the answer still count.
        while let Ok(text) = rx.try_recv() {
            on_progress(text);
        }
        match answer.map_err(|e| self.request_error("tools/call", e.to_string()))? {
            ServerResult::CallToolResult(r) => Ok(r),
            _ => {
                Err(self.request_error("tools/call", "the answer is not a tool result".to_owned()))
            }
        }
    }
}

/// Sends `notifications/cancelled` for a request whose caller stopped waiting before its
/// answer (the SDK's own guard does this for `call_tool`, which this path cannot use).
struct Abandoned {
    peer: rmcp::Peer<RoleClient>,
    id: Option<rmcp::model::RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        // No runtime (a process shutting down): nothing can be sent anyway.
        let (Some(id), Ok(rt)) = (self.id.take(), tokio::runtime::Handle::try_current()) else {
            return;
        };
        let peer = self.peer.clone();
        rt.spawn(async move {
            let reason = Some("request abandoned by the caller".to_owned());
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(Some(id), reason))
                .await;
        });
    }
}

/// A session shared by every skill of one gateway build (and its drift watch).
pub type SharedUpstream = Arc<McpUpstream>;

//! A real MCP server (the official Rust SDK, `rmcp`) on 127.0.0.1:0 over Streamable HTTP, with
//! tools shaped for the tests of MCP tools as governed skills:
//!
//! - `lookup` (read-only hint): `{"host": string}` in, `{"rtt_ms": number}` out as
//!   `structuredContent`; host `bad-output` answers `{"rtt_ms": "fast"}`, which its own
//!   `outputSchema` refuses;
//! - `echo`: no `outputSchema` and no read-only hint, answers its `text` as a text block;
//! - `fails` (read-only hint): answers `isError: true` with a reason;
//! - `slow` (read-only hint): sends one progress notification (`slow: started`) when the call
//!   carries a progress token, then waits until cancelled (and notes that the cancel arrived)
//!   or 30 s.
//!
//! Every call that reaches a tool is counted, per tool; [`McpToolServer::drift`] widens
//! `lookup`'s input schema from the next `tools/list` on, [`McpToolServer::hide_lookup`] drops
//! it from the list.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

#[derive(Default)]
struct State {
    calls: Mutex<HashMap<String, usize>>,
    drifted: AtomicBool,
    hidden: AtomicBool,
    cancelled: AtomicBool,
    /// Requests answered 401 (no or wrong credentials).
    refused: std::sync::atomic::AtomicUsize,
}

/// What a guarded server requires of every request: this bearer token and this header.
#[derive(Clone)]
struct Guard {
    token: String,
    header: (String, String),
    state: Arc<State>,
}

/// Answers 401 unless the request carries the guard's token and header.
async fn guard(
    axum::extract::State(g): axum::extract::State<Option<Guard>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if let Some(g) = g {
        let h = request.headers();
        let bearer = h.get("authorization").and_then(|v| v.to_str().ok());
        let extra = h.get(g.header.0.as_str()).and_then(|v| v.to_str().ok());
        let expected = format!("Bearer {}", g.token);
        if bearer != Some(expected.as_str()) || extra != Some(g.header.1.as_str()) {
            g.state.refused.fetch_add(1, Ordering::SeqCst);
            return (axum::http::StatusCode::UNAUTHORIZED, "credentials required").into_response();
        }
    }
    next.run(request).await
}

#[derive(Clone)]
struct Handler(Arc<State>);

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The input schema of `lookup`, before and after [`McpToolServer::drift`].
pub fn lookup_input_schema(drifted: bool) -> Value {
    let mut s = json!({
        "type": "object",
        "properties": {"host": {"type": "string", "minLength": 1}},
        "required": ["host"],
        "additionalProperties": false
    });
    if drifted {
        s["properties"]["port"] = json!({"type": "integer"});
    }
    s
}

/// The output schema of `lookup`.
pub fn lookup_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"rtt_ms": {"type": "number"}},
        "required": ["rtt_ms"]
    })
}

impl Handler {
    fn tools(&self) -> Vec<Tool> {
        let drifted = self.0.drifted.load(Ordering::SeqCst);
        let lookup = Tool::new(
            "lookup",
            "Round-trip time to a host",
            object(lookup_input_schema(drifted)),
        )
        .with_raw_output_schema(object(lookup_output_schema()))
        .with_annotations(ToolAnnotations::from_raw(
            Some("Lookup".into()),
            Some(true),
            None,
            None,
            None,
        ));
        let echo = Tool::new(
            "echo",
            "Echoes its text",
            object(
                json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
            ),
        );
        let read_only = ToolAnnotations::from_raw(None, Some(true), None, None, None);
        let fails = Tool::new("fails", "Always fails", object(json!({"type": "object"})))
            .with_annotations(read_only.clone());
        let slow = Tool::new(
            "slow",
            "Waits to be cancelled",
            object(json!({"type": "object"})),
        )
        .with_annotations(read_only);
        if self.0.hidden.load(Ordering::SeqCst) {
            return vec![echo, fails, slow];
        }
        vec![lookup, echo, fails, slow]
    }

    async fn run(
        &self,
        name: &str,
        args: &JsonObject,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let ct = context.ct.clone();
        if let Ok(mut c) = self.0.calls.lock() {
            *c.entry(name.to_owned()).or_default() += 1;
        }
        match name {
            "lookup" => {
                let host = args.get("host").and_then(Value::as_str).unwrap_or("");
                let out = if host == "bad-output" {
                    json!({"rtt_ms": "fast"})
                } else {
                    json!({"rtt_ms": host.len() as f64 * 1.5})
                };
                CallToolResult::structured(out)
            }
            "echo" => {
                let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            "fails" => CallToolResult::error(vec![ContentBlock::text("the backend is down")]),
            _ => {
                // Progress for a caller that asked for it (a progress token in `_meta`).
                if let Some(token) = context.meta.get_progress_token() {
                    let mut p = rmcp::model::ProgressNotificationParam::new(token, 1.0);
                    p.message = Some("slow: started".to_owned());
                    let _ = context.peer.notify_progress(p).await;
                }
                tokio::select! {
                    () = ct.cancelled() => self.0.cancelled.store(true, Ordering::SeqCst),
                    () = tokio::time::sleep(Duration::from_secs(30)) => {}
                }
                CallToolResult::success(vec![ContentBlock::text("done")])
            }
        }
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("testkit-mcp-tools", "1.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        Ok(self.run(&request.name, &args, &context).await.into())
    }
}

/// The running server; stops when dropped.
pub struct McpToolServer {
    addr: SocketAddr,
    state: Arc<State>,
    stop: CancellationToken,
}

impl McpToolServer {
    /// Starts the server on 127.0.0.1:0.
    pub async fn start() -> Self {
        Self::start_guarded(None).await
    }

    /// Starts a server that answers every request 401 unless it carries `Authorization:
    /// Bearer TOKEN` and the header `NAME: VALUE` (`guard` is `(TOKEN, NAME, VALUE)`).
    pub async fn start_with_credentials(token: &str, name: &str, value: &str) -> Self {
        Self::start_guarded(Some((
            token.to_owned(),
            (name.to_owned(), value.to_owned()),
        )))
        .await
    }

    /// How many requests were refused for their credentials.
    pub fn refused(&self) -> usize {
        self.state.refused.load(Ordering::SeqCst)
    }

    async fn start_guarded(required: Option<(String, (String, String))>) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State::default());
        let stop = CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default();
        config.cancellation_token = stop.child_token();
        let handler = Handler(Arc::clone(&state));
        let service: StreamableHttpService<Handler, LocalSessionManager> =
            StreamableHttpService::new(move || Ok(handler.clone()), Default::default(), config);
        let g = required.map(|(token, header)| Guard {
            token,
            header,
            state: Arc::clone(&state),
        });
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn_with_state(g, guard));
        let shutdown = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
                .await;
        });
        Self { addr, state, stop }
    }

    /// The MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// How many calls reached `tool`.
    pub fn calls(&self, tool: &str) -> usize {
        self.state
            .calls
            .lock()
            .map(|c| c.get(tool).copied().unwrap_or(0))
            .unwrap_or(0)
    }

    /// Whether a `slow` call was ended by `notifications/cancelled`.
    pub fn cancel_arrived(&self) -> bool {
        self.state.cancelled.load(Ordering::SeqCst)
    }

    /// From now on `lookup` lists another input schema (a `port` property more).
    pub fn drift(&self) {
        self.state.drifted.store(true, Ordering::SeqCst);
    }

    /// From now on `lookup` is not listed at all.
    pub fn hide_lookup(&self) {
        self.state.hidden.store(true, Ordering::SeqCst);
    }

    /// The tools as listed now.
    pub fn tools(&self) -> Vec<Tool> {
        Handler(Arc::clone(&self.state)).tools()
    }
}

impl Drop for McpToolServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

//! [`SkillServer`]: the `rmcp` server handler. `tools/list` resolves every governed skill of
//! the agent's card through the client (steps 1 to 6); `tools/call` runs steps 1 to 11 for one.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use serde_json::Value;
use skillgate_a2a::StreamResponse;
use skillgate_client::{skills, Client, ClientError, Step};
use skillgate_core::digest::Digest;

use crate::result::{call_result, failure_result};
use crate::tool::tool_for;

/// The MCP protocol revisions this server negotiates, newest first: those of `rmcp` 3.11
/// whose tool results carry `structuredContent` and `outputSchema` (2025-06-18 and later).
/// An older client is refused at `initialize` rather than served tools whose output it
/// cannot check.
pub const PROTOCOL_VERSIONS: [ProtocolVersion; 3] = [
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
];

struct Inner {
    client: Client,
    url: String,
    /// The interface digest of each tool at the last `tools/list`: a call is checked against
    /// the interface the host was shown, not whatever the card says now.
    listed: Mutex<HashMap<String, Digest>>,
}

/// The MCP server in front of one A2A agent. Cheap to clone: the Streamable HTTP transport
/// makes one per session, and they share the client and its interface cache.
#[derive(Clone)]
pub struct SkillServer {
    inner: Arc<Inner>,
    /// How often a session's card is re-read for `tools/list_changed` (`None`: never).
    refresh: Option<Duration>,
}

impl std::fmt::Debug for SkillServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillServer")
            .field("url", &self.inner.url)
            .finish_non_exhaustive()
    }
}

/// An observer that drops the step reports: the MCP server's answer is the result, and its
/// stdout is the protocol channel.
fn quiet(_: Step, _: &str) {}

impl SkillServer {
    /// A server for the agent at `url` (base URL or Agent Card URL), calling it through
    /// `client` (whose configuration carries the token, trusted keys, binding and bounds).
    pub fn new(client: Client, url: impl Into<String>) -> Self {
        Self {
            inner: Arc::new(Inner {
                client,
                url: url.into(),
                listed: Mutex::new(HashMap::new()),
            }),
            refresh: None,
        }
    }

    /// The same server, re-reading the card every `every` in each session that began with
    /// `initialize` and sending `notifications/tools/list_changed` when the advertised skills
    /// or digests changed. Sessions of MCP 2026-07-28 have no `initialize` and get none.
    pub fn with_refresh(mut self, every: Duration) -> Self {
        self.refresh = Some(every);
        self
    }

    /// What the card advertises now: each governed skill's version and interface digest, by
    /// id. Only the card is read (no describe_skill): a change here is what makes a list
    /// stale.
    pub async fn advertised(&self) -> Result<BTreeMap<String, (String, String)>, ClientError> {
        let target = self
            .inner
            .client
            .fetch_target(&self.inner.url, &mut quiet)
            .await?;
        Ok(skills(&target.card)
            .into_iter()
            .filter_map(|s| match (s.version, s.interface_digest) {
                (Some(v), Some(d)) => Some((s.id, (v, d))),
                _ => None,
            })
            .collect())
    }

    /// Re-reads the card every `every` and tells `peer` when the advertisement changed, until
    /// the session's transport closes. A card that cannot be read is logged and skipped: the
    /// next call reports the failure to the host anyway.
    async fn watch(self, peer: Peer<RoleServer>, every: Duration) {
        let mut last = self.advertised().await.ok();
        while !peer.is_transport_closed() {
            tokio::time::sleep(every).await;
            let now = match self.advertised().await {
                Ok(now) => now,
                Err(e) => {
                    tracing::warn!("card re-read failed: {e}");
                    continue;
                }
            };
            if last.as_ref() != Some(&now) {
                last = Some(now);
                tracing::info!("the card's governed skills changed: tools/list_changed sent");
                if peer.notify_tool_list_changed().await.is_err() {
                    break;
                }
            }
        }
    }

    /// The tools: one per advertised governed skill whose interface passes steps 1 to 6. A
    /// skill that fails is left out and the reason logged (warning); only a card that cannot
    /// be fetched (step 1) fails the whole list.
    pub async fn tools(&self) -> Result<Vec<Tool>, ClientError> {
        let target = self
            .inner
            .client
            .fetch_target(&self.inner.url, &mut quiet)
            .await?;
        let mut tools = Vec::new();
        let mut listed = HashMap::new();
        for skill in skills(&target.card) {
            if skill.version.is_none() || skill.interface_digest.is_none() {
                tracing::debug!(skill = %skill.id, "not listed: not a schema-governed skill");
                continue;
            }
            let resolved = match self
                .inner
                .client
                .resolve_target(target.clone(), &skill.id, &mut quiet)
                .await
            {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!(skill = %skill.id, code = e.code_str(), "not listed: {e}");
                    continue;
                }
            };
            match tool_for(&resolved) {
                Ok(tool) => {
                    listed.insert(skill.id.clone(), resolved.selection.interface_digest);
                    tools.push(tool);
                }
                Err(e) => tracing::warn!(skill = %skill.id, "not listed: {e}"),
            }
        }
        if let Ok(mut l) = self.inner.listed.lock() {
            *l = listed;
        }
        Ok(tools)
    }

    /// One call: steps 1 to 6 (from the interface cache when the card still advertises the
    /// same digest), the digest compared with the one listed, then steps 7 to 11. Every
    /// failure is a tool result with `isError: true`.
    pub async fn call(&self, name: &str, arguments: Value) -> CallToolResult {
        self.call_with(name, arguments, |_| {}).await
    }

    /// [`SkillServer::call`], streaming when the skill and the card offer it: each A2A stream
    /// event goes to `on_event` as it arrives (progress), and if the returned future is
    /// dropped (the MCP client cancelled the call) the A2A task is cancelled too.
    pub async fn call_with(
        &self,
        name: &str,
        arguments: Value,
        on_event: impl Fn(&StreamResponse) + Send + Sync + 'static,
    ) -> CallToolResult {
        let resolved = match self
            .inner
            .client
            .resolve(&self.inner.url, name, &mut quiet)
            .await
        {
            Ok(r) => r,
            Err(e) => return failure_result(&e),
        };
        let listed = self
            .inner
            .listed
            .lock()
            .ok()
            .and_then(|l| l.get(name).cloned());
        if let Some(listed) = listed {
            if listed != resolved.selection.interface_digest {
                return changed_result(name, &listed, &resolved.selection.interface_digest);
            }
        }
        match self
            .inner
            .client
            .invoke_cancellable(&resolved, &arguments, None, on_event)
            .await
        {
            Ok(done) => call_result(&done),
            Err(e) => failure_result(&e),
        }
    }
}

/// The card now advertises another interface than the host was shown: the call is refused
/// before anything is sent, and the host is told to list again.
pub(crate) fn changed_result(name: &str, listed: &Digest, now: &Digest) -> CallToolResult {
    let mut r = CallToolResult::error(vec![ContentBlock::text(format!(
        "interface_mismatch: tool {name} was listed with interface digest {listed}, the agent \
         now advertises {now}; nothing was sent (list the tools again)"
    ))]);
    r.meta = Some(rmcp::model::MetaObject(
        [(
            format!("{}failure", crate::result::META_PREFIX),
            serde_json::json!({
                "ok": false, "where": "local", "code": "interface_mismatch",
                "listed_digest": listed.to_string(), "advertised_digest": now.to_string(),
            }),
        )]
        .into_iter()
        .collect(),
    ));
    r
}

/// A failure of the whole `tools/list` (the card): a JSON-RPC error, since there is no tool
/// to attach a result to.
pub(crate) fn list_error(e: &ClientError) -> ErrorData {
    ErrorData::internal_error(
        format!("cannot list the agent's skills: {e}"),
        serde_json::to_value(e.output()).ok(),
    )
}

impl ServerHandler for SkillServer {
    fn get_info(&self) -> ServerConfig {
        let tools = ServerCapabilities::builder().enable_tools();
        let capabilities = if self.refresh.is_some() {
            tools.enable_tool_list_changed().build()
        } else {
            tools.build()
        };
        let mut info = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("skillgate", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Governed A2A skills of the agent at {}: each tool's input is validated \
                 against its Skill Interface Document before anything is sent, and its output \
                 after; a refusal comes back as isError with the draft's error code.",
                self.inner.url
            ));
        info.protocol_version = PROTOCOL_VERSIONS[0].clone();
        info
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Owned(PROTOCOL_VERSIONS.to_vec())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // One watcher per session: each has its own peer to notify. 2026-07-28 sessions have
        // no initialize (and list_changed there needs subscriptions/listen): none for them.
        if let Some(every) = self.refresh {
            tokio::spawn(self.clone().watch(context.peer, every));
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        match self.tools().await {
            Ok(tools) => Ok(ListToolsResult::with_all_items(tools)),
            Err(e) => Err(list_error(&e)),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let known = self
            .inner
            .listed
            .lock()
            .map(|l| l.is_empty() || l.contains_key(request.name.as_ref()))
            .unwrap_or(true);
        if !known {
            // MCP's answer to an unknown tool is a protocol error; a skill left out of
            // tools/list (its interface failed) is unknown here too.
            return Err(ErrorData::invalid_params(
                format!("unknown tool {}: not in the last tools/list", request.name),
                None,
            ));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        // Progress: each A2A stream event as a progress notification, when the client asked
        // for them with a progress token.
        let (sink, rx) = crate::progress::channel();
        let call = self.call_with(&request.name, arguments, move |e| sink.event(e));
        // Cancelled: dropping the call cancels the A2A task its stream named (a blocking
        // call is only abandoned).
        Ok(crate::progress::drive(call, rx, &request.name, &context)
            .await
            .into())
    }
}

//! [`AgentTools`]: the skills of the agent this very process serves (`skillgate serve` or
//! `gateway` with `--mcp-listen`), as MCP tools with no A2A hop in between. A thin binding
//! over the runtime's one service, like the JSON-RPC, HTTP+JSON and gRPC adapters: a
//! `tools/call` becomes the same governed `SendStreamingMessage` those bindings hand the
//! service, so the gate (interface digest and version, size, input, authorization, output and
//! records) decides exactly as it does for them. The tools are mapped by [`tool_from`] and the
//! results by [`call_result`] and [`failure_result`], the mapping `skillgate mcp` uses for a
//! remote agent; the finished task is read by the client's steps 9 to 11
//! ([`skillgate_client::task_result`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext as McpContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{CancelTaskRequest, GetTaskRequest, SendMessageRequest, StreamResponse};
use skillgate_client::{governed_message, task_result, ClientError, Step};
use skillgate_core::digest::Digest;
use skillgate_runtime::{A2aService, AgentSwap, Caller, RequestContext};

use crate::progress::ProgressSink;
use crate::result::{call_result, failure_result};
use crate::server::{changed_result, PROTOCOL_VERSIONS};
use crate::tool::tool_from;

struct Inner {
    swap: AgentSwap,
    /// The interface digest of each tool at the last `tools/list` (as in `SkillServer`): a
    /// call is checked against the interface the host was shown, even across a reload.
    listed: Mutex<HashMap<String, Digest>>,
}

/// The MCP server inside an agent: its governed skills as tools, each call handed to the
/// agent's own A2A service. Cheap to clone (one per MCP session, sharing the digests listed).
#[derive(Clone)]
pub struct AgentTools {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for AgentTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentTools")
            .field("base_url", &self.inner.swap.base_url())
            .finish_non_exhaustive()
    }
}

/// The request context of the service for `caller`: the schema-interface extension activated
/// (a governed request), A2A 1.0 (no push config can be registered through MCP anyway).
fn service_context(caller: Option<Caller>) -> RequestContext {
    RequestContext {
        caller,
        extensions: vec![skillgate_core::wire::EXTENSION_URI.to_owned()],
        version: WireVersion::V1_0,
    }
}

/// Cancels the A2A task a call started when the call is dropped before its task ended (the
/// MCP client sent `notifications/cancelled`), as the client's own guard does over the wire.
struct CancelOnDrop {
    service: A2aService,
    ctx: RequestContext,
    task_id: Option<String>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        // No runtime (a process shutting down): nothing can be sent anyway.
        let (Some(id), Ok(rt)) = (self.task_id.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let (service, ctx) = (self.service.clone(), self.ctx.clone());
        rt.spawn(async move {
            let req = CancelTaskRequest {
                id: id.clone(),
                ..CancelTaskRequest::default()
            };
            if let Err(e) = service.cancel_task(&req, &ctx).await {
                tracing::info!(task = %id, "abandoned call's task not cancelled: {e}");
            }
        });
    }
}

impl AgentTools {
    /// The tools of the agent `swap` serves (the same swap every binding of the server
    /// shares, so a reload changes the tools too).
    pub fn new(swap: AgentSwap) -> Self {
        Self {
            inner: Arc::new(Inner {
                swap,
                listed: Mutex::new(HashMap::new()),
            }),
        }
    }

    fn card_url(&self) -> String {
        format!(
            "{}{}",
            self.inner.swap.base_url(),
            skillgate_a2a::AGENT_CARD_PATH
        )
    }

    /// Whether `caller` may know of and use skill `id`: a skill the agent serves, visible to
    /// the caller (an extended-only skill needs a token that allows it) and allowed by its
    /// token. A tool nobody may call is not listed.
    fn usable(agent: &skillgate_runtime::Agent, id: &str, caller: Option<&Caller>) -> bool {
        agent.hosted(id).is_some()
            && agent.visible(id, caller)
            && caller.is_none_or(|c| c.allows(id))
    }

    /// The tools `caller` may use, one per governed skill of the agent now served.
    pub fn tools(&self, caller: Option<&Caller>) -> Vec<Tool> {
        let agent = self.inner.swap.service().agent();
        let card_url = self.card_url();
        let mut tools = Vec::new();
        let mut listed = HashMap::new();
        for id in agent.skill_ids() {
            let Some(hosted) = agent.hosted(id) else {
                continue;
            };
            if !Self::usable(&agent, id, caller) {
                continue;
            }
            let doc = hosted.gate().document();
            match tool_from(doc, Some(hosted.card_skill()), &card_url) {
                Ok(tool) => {
                    listed.insert(id.to_owned(), doc.interface_digest());
                    tools.push(tool);
                }
                Err(e) => tracing::warn!(skill = %id, "not listed as an MCP tool: {e}"),
            }
        }
        if let Ok(mut l) = self.inner.listed.lock() {
            l.extend(listed);
        }
        tools
    }

    /// One call of tool `name` for `caller`, each A2A event handed to `progress`: the digest
    /// listed compared with the one served now, then the governed request handed to the
    /// service (its gate validates the input before the skill runs and the output before the
    /// task completes), the task followed to its end, and its result read by the client's
    /// steps 9 to 11. Every failure is a tool result with `isError: true`. Dropping the
    /// returned future cancels the task.
    pub async fn call(
        &self,
        name: &str,
        arguments: &Value,
        caller: Option<Caller>,
        progress: impl Fn(&StreamResponse),
    ) -> CallToolResult {
        let agent = self.inner.swap.service().agent();
        let Some(hosted) = agent.hosted(name) else {
            let e = ClientError::protocol(
                Step::SelectSkill,
                format!("the agent no longer serves skill {name}"),
            );
            return failure_result(&e);
        };
        let doc = hosted.gate().document();
        let listed = self
            .inner
            .listed
            .lock()
            .ok()
            .and_then(|l| l.get(name).copied());
        if let Some(listed) = listed {
            if listed != doc.interface_digest() {
                return changed_result(name, &listed, &doc.interface_digest());
            }
        }
        let message = match governed_message(doc, arguments) {
            Ok(m) => m,
            Err(e) => return failure_result(&e),
        };
        let service = self.inner.swap.service();
        let ctx = service_context(caller);
        let request = SendMessageRequest {
            message,
            ..SendMessageRequest::default()
        };
        // Streamed whatever the document's response modes: in process, the stream is only
        // how this binding learns the task id at once (to cancel it) and its progress.
        let mut events = match service.send_streaming_message(request, &ctx).await {
            Ok(rx) => rx,
            Err(e) => {
                return failure_result(&ClientError::protocol(
                    Step::Delegate,
                    format!("the agent refused the request: {e}"),
                ))
            }
        };
        let mut guard = CancelOnDrop {
            service: service.clone(),
            ctx: ctx.clone(),
            task_id: None,
        };
        while let Some(event) = events.recv().await {
            if guard.task_id.is_none() {
                if let StreamResponse::Task(t) = &event {
                    guard.task_id = Some(t.id.clone());
                }
            }
            progress(&event);
        }
        let Some(task_id) = guard.task_id.take() else {
            return failure_result(&ClientError::protocol(
                Step::Delegate,
                "the agent's stream named no task",
            ));
        };
        let read = GetTaskRequest {
            id: task_id,
            ..GetTaskRequest::default()
        };
        let task = match service.get_task(&read, &ctx).await {
            Ok(t) => t,
            Err(e) => {
                return failure_result(&ClientError::protocol(
                    Step::ReadResult,
                    format!("cannot read the finished task: {e}"),
                ))
            }
        };
        match task_result(doc, &task, &self.card_url(), self.inner.swap.base_url()) {
            Ok(done) => call_result(&done),
            Err(e) => failure_result(&e),
        }
    }
}

/// The authenticated caller of an MCP request: the [`Caller`] the listener's bearer check
/// put into the HTTP request's extensions (none when the server has no tokens).
fn caller_of(context: &McpContext<RoleServer>) -> Option<Caller> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|p| p.extensions.get::<Caller>())
        .cloned()
}

impl ServerHandler for AgentTools {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("skillgate", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Governed skills of the agent at {}, served by the agent itself: each tool's \
                 input is validated against its Skill Interface Document before the skill \
                 runs, and its output before it is returned; a refusal comes back as isError \
                 with the draft's error code.",
                self.inner.swap.base_url()
            ));
        info.protocol_version = PROTOCOL_VERSIONS[0].clone();
        info
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Owned(PROTOCOL_VERSIONS.to_vec())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: McpContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let caller = caller_of(&context);
        Ok(ListToolsResult::with_all_items(self.tools(caller.as_ref())))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: McpContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = caller_of(&context);
        let agent = self.inner.swap.service().agent();
        if !Self::usable(&agent, &request.name, caller.as_ref()) {
            // MCP's answer to an unknown tool is a protocol error; a skill this caller may
            // not use is unknown to it, as on the A2A bindings.
            return Err(ErrorData::invalid_params(
                format!("unknown tool {}", request.name),
                None,
            ));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let (sink, rx): (ProgressSink, _) = crate::progress::channel();
        let name = request.name.to_string();
        let call = async {
            self.call(&name, &arguments, caller, |e| sink.event(e))
                .await
        };
        Ok(crate::progress::drive(call, rx, &request.name, &context)
            .await
            .into())
    }
}

//! An MCP server as the gateway's upstream (docs/design.md D273–D276): each governed skill is
//! one of its tools, behind the same gate as an A2A upstream's skills. The runtime validates
//! the arguments before [`McpSkill::call`] runs (a refused call never reaches the tool) and the
//! output after; this module only moves values between the two.
//!
//! - arguments: the validated object, as the tool's `arguments`;
//! - output: `structuredContent`, or `{"content": [...]}` for a tool without `outputSchema`
//!   (`skillgate_mcp::outcome`); a tool with an `outputSchema` that sends none is
//!   `output_invalid`, and `isError: true` is `execution_failed` with the tool's text;
//! - cancel: the runtime drops the call, which drops the SDK's request, which sends
//!   `notifications/cancelled` for it;
//! - drift: the tool list is re-read every `refresh`; a tool whose schemas no longer hash to
//!   its pinned document's (or that is gone) is refused until reload, with skillgate-evolve's
//!   verdict on the tool as it is now against the document.

use crate::config::{GatewayConfig, GovernedSkill};
use crate::upstream::quote;
use crate::{Gateway, GatewayError, Watch, Watching};
use serde_json::Value;
use skillgate_agent::{limited, LoadError};
use skillgate_core::document::ValidatedDocument;
use skillgate_core::ErrorCode;
use skillgate_mcp::{
    check_tool, document_for, outcome, Bounds, ImportOptions, McpUpstream, SharedUpstream, Tool,
    ToolOutcome,
};
use skillgate_runtime::{Agent, SkillContext, SkillError, SkillOutput};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One governed skill bound to one tool of the MCP server; cheap to clone.
#[derive(Clone)]
pub struct McpSkill(Arc<Inner>);

struct Inner {
    tool: String,
    /// Whether the tool declared an `outputSchema` (its output is `structuredContent`).
    structured: bool,
    session: SharedUpstream,
    drifted: Arc<AtomicBool>,
}

/// The most progress notifications of one call relayed as WORKING updates: each is a write
/// to the task store, and a server is not trusted to send few.
const MAX_PROGRESS: usize = 256;

/// Runs `call`, relaying each progress text `rx` yields to the gateway's task as a WORKING
/// status update (quoted and bounded like every upstream string; at most [`MAX_PROGRESS`]),
/// so streaming and subscribed callers see the tool's progress.
async fn relay_progress<T>(
    ctx: &SkillContext,
    call: impl std::future::Future<Output = T>,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<String>,
) -> T {
    tokio::pin!(call);
    let mut relayed = 0;
    let mut relay = |text: String| {
        relayed += 1;
        (relayed <= MAX_PROGRESS).then(|| quote(&text))
    };
    loop {
        tokio::select! {
            r = &mut call => {
                while let Ok(text) = rx.try_recv() {
                    if let Some(q) = relay(text) {
                        ctx.progress(&q).await;
                    }
                }
                return r;
            }
            Some(text) = rx.recv() => {
                if let Some(q) = relay(text) {
                    ctx.progress(&q).await;
                }
            }
        }
    }
}

impl McpSkill {
    /// One invocation: `args` already passed the gate; the output is validated after.
    pub async fn call(&self, args: Value, ctx: SkillContext) -> Result<SkillOutput, SkillError> {
        let i = &self.0;
        if i.drifted.load(Ordering::Relaxed) {
            return Err(SkillError::execution_failed(format!(
                "MCP tool `{}` at {} changed since the gateway read its schemas; calls are refused until the gateway is reloaded",
                i.tool,
                i.session.server()
            )));
        }
        // The pinned input schema is the tool's own (checked at build), and MCP input
        // schemas describe objects: anything else is a document that was edited by hand.
        let Value::Object(args) = args else {
            return Err(SkillError::execution_failed(format!(
                "MCP tool `{}` takes an arguments object; the document's input schema allows another value",
                i.tool
            )));
        };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let call = i.session.call_with_progress(&i.tool, args, move |t| {
            let _ = tx.send(t);
        });
        let result = relay_progress(&ctx, call, rx)
            .await
            .map_err(|e| SkillError::execution_failed(quote(&e.to_string())))?;
        match outcome(result, i.structured) {
            ToolOutcome::Output(output) => Ok(SkillOutput {
                output,
                records: Vec::new(),
            }),
            ToolOutcome::Failed(text) => Err(SkillError::execution_failed(format!(
                "MCP tool `{}` reported an error (isError): {}",
                i.tool,
                quote(&text)
            ))),
            ToolOutcome::Unusable(why) => Err(SkillError::new(
                ErrorCode::OutputInvalid,
                format!("MCP tool `{}`: {why}", i.tool),
            )),
        }
    }
}

/// What the drift check watches: the session and each governed tool's pinned document.
pub(crate) struct McpWatch {
    session: SharedUpstream,
    skills: Vec<WatchedTool>,
}

struct WatchedTool {
    tool: String,
    document: ValidatedDocument,
    drifted: Arc<AtomicBool>,
}

/// Starts the server of `config`'s `[mcp]` table, checks every governed tool against its
/// document, and builds the gateway's agent.
pub(crate) async fn build(config: GatewayConfig) -> Result<Gateway, GatewayError> {
    let Some(m) = &config.mcp else {
        return Err(GatewayError::NoUpstream {
            file: config.file.clone(),
        });
    };
    let bounds = Bounds {
        start: m.start_timeout,
        ..Bounds::default()
    };
    let session: SharedUpstream =
        Arc::new(McpUpstream::connect_with(&m.endpoint, bounds, &m.credentials).await?);
    let tools = session.tools().await?;
    let (name, version) = session
        .server_info()
        .unwrap_or_else(|| ("mcp-server".into(), "0.0.0".into()));
    let mut builder = Agent::builder(
        &name,
        format!("The tools of MCP server {name}, each governed by a Skill Interface Document"),
        &version,
    );
    let mut watched = Vec::new();
    for g in &config.skills {
        let tool = find_tool(&config, g, &tools, &session)?;
        check_tool(tool, &g.document).map_err(|drift| GatewayError::ToolMismatch {
            file: config.file.clone(),
            line: g.line,
            tool: g.upstream_skill.clone(),
            drift: Box::new(drift),
        })?;
        let drifted = Arc::new(AtomicBool::new(false));
        let h = McpSkill(Arc::new(Inner {
            tool: g.upstream_skill.clone(),
            structured: tool.output_schema.is_some(),
            session: Arc::clone(&session),
            drifted: Arc::clone(&drifted),
        }));
        builder = builder.skill(skill(&config, g, tool, h)?);
        watched.push(WatchedTool {
            tool: g.upstream_skill.clone(),
            document: g.document.clone(),
            drifted,
        });
    }
    let agent = builder.build().map_err(|source| LoadError::Startup {
        file: config.file.clone(),
        source,
    })?;
    Ok(Gateway {
        agent,
        watch: Watch {
            refresh: config.refresh,
            watching: Watching::Mcp(McpWatch {
                session,
                skills: watched,
            }),
        },
    })
}

fn find_tool<'t>(
    config: &GatewayConfig,
    g: &GovernedSkill,
    tools: &'t [Tool],
    session: &McpUpstream,
) -> Result<&'t Tool, GatewayError> {
    tools
        .iter()
        .find(|t| t.name.as_ref() == g.upstream_skill)
        .ok_or_else(|| GatewayError::MissingTool {
            file: config.file.clone(),
            line: g.line,
            tool: g.upstream_skill.clone(),
            server: session.server().to_owned(),
            available: tools
                .iter()
                .map(|t| t.name.as_ref())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The runtime skill of one governed tool: the document, the tool's title and description
/// for the card, and the handler under the skill's concurrency and time limits.
fn skill(
    config: &GatewayConfig,
    g: &GovernedSkill,
    tool: &Tool,
    h: McpSkill,
) -> Result<skillgate_runtime::Skill, GatewayError> {
    let id = g.document.skill_id().to_owned();
    let title = tool
        .title
        .clone()
        .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()))
        .unwrap_or_else(|| tool.name.to_string());
    let description = tool
        .description
        .as_deref()
        .map(quote)
        .unwrap_or_else(|| format!("MCP tool {}", tool.name));
    let b = skillgate_agent::declare(&config.file, &g.interface_path, &g.document)?
        .name(quote(&title))
        .description(description);
    let timeout = g.timeout;
    Ok(b.handler(limited(&id, g.max_concurrency, move |args, ctx| {
        let h = h.clone();
        async move {
            match tokio::time::timeout(timeout, h.call(args, ctx)).await {
                Ok(r) => r,
                // Dropping the call here sends notifications/cancelled to the tool.
                Err(_) => Err(SkillError::new(
                    ErrorCode::ResourceLimitExceeded,
                    format!(
                        "the MCP tool did not finish within {} ms",
                        timeout.as_millis()
                    ),
                )),
            }
        }
    }))
    .build())
}

impl McpWatch {
    /// Re-lists the tools once; every governed tool that is gone or whose schemas no longer
    /// match its pinned document is marked and refused from now on. One line per new finding.
    pub(crate) async fn check(&self) -> Vec<String> {
        let tools = match self.session.tools().await {
            Ok(t) => t,
            Err(e) => return vec![format!("cannot re-list the MCP server's tools: {e}")],
        };
        let mut found = Vec::new();
        for w in &self.skills {
            if w.drifted.load(Ordering::Relaxed) {
                continue;
            }
            let now = tools.iter().find(|t| t.name.as_ref() == w.tool);
            let how = match now {
                None => "is no longer listed by the MCP server".to_owned(),
                Some(t) => match check_tool(t, &w.document) {
                    Ok(()) => continue,
                    Err(drift) => format!("changed ({drift}){}", verdict(t, &w.document)),
                },
            };
            if !w.drifted.swap(true, Ordering::Relaxed) {
                found.push(format!(
                    "MCP tool `{}` {how}; calls to it are refused until the gateway is reloaded (SIGHUP)",
                    w.tool
                ));
            }
        }
        found
    }
}

/// skillgate-evolve's verdict on the tool as listed now (as `from-mcp` would write it, same
/// id, version and schema version) against the pinned document; nothing is compared here.
fn verdict(tool: &Tool, pinned: &ValidatedDocument) -> String {
    let opts = ImportOptions {
        skill_id: Some(pinned.skill_id().to_owned()),
        skill_version: Some(pinned.skill_version().to_owned()),
        schema_version: Some(pinned.document().input_schema.version.clone()),
        authority: Some(pinned.document().authority.default_mode),
    };
    match document_for(tool, &opts) {
        Ok(now) => {
            let report = skillgate_evolve::diff(pinned, &now);
            format!("; interface {}: {}", report.old_version, report.verdict())
        }
        Err(e) => format!("; its schemas no longer make a valid document ({e})"),
    }
}

//! An MCP tool as a governed skill: its Skill Interface Document (`skillgate interface
//! from-mcp`), the output a tool result stands for, and whether a listed tool still matches a
//! pinned document (a gateway's drift check). The reverse of [`crate::tool_for`], so a tool
//! imported here and served back out through `skillgate mcp` keeps its schemas and digests.
//!
//! Every document is assembled and validated by skillgate-core's builder: the digests, the
//! meta-schema, the 2020-12 dialect and self-containment (a remote `$ref` is a finding; nothing
//! is fetched) are its rules, not this module's.

use rmcp::model::{CallToolResult, Tool};
use serde_json::{json, Value};
use skillgate_core::digest::{digest, Digest};
use skillgate_core::document::{Finding, InterfaceBuilder, ValidatedDocument};
use skillgate_core::wire::{Authority, AuthorityMode, Interaction, ResponseMode};

/// The output schema of a tool that declares no `outputSchema`: its result's `content`
/// blocks, whole, as `{"content": [...]}` (docs/design.md D271). MCP promises nothing about
/// such a result but that each block has a `type`; the schema promises the same and no more,
/// and keeps images, resources and text alike (a text-only string would drop them).
pub fn fallback_output_schema() -> Value {
    json!({
        "type": "object",
        "description": "The MCP tool declares no outputSchema: its result's content blocks, unchanged.",
        "properties": {
            "content": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"type": {"type": "string"}},
                    "required": ["type"]
                }
            }
        },
        "required": ["content"]
    })
}

/// How one tool becomes one document; every field has a default from the tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// The skill id (default: the tool's name).
    pub skill_id: Option<String>,
    /// The skill version, `Major.Minor` (default `1.0`).
    pub skill_version: Option<String>,
    /// The version of both Schema References (default `1.0`).
    pub schema_version: Option<String>,
    /// The authority mode (default: from the tool's `readOnlyHint`, see [`document_for`]):
    /// for an operator who knows what a tool does better than its hints say.
    pub authority: Option<AuthorityMode>,
}

/// Why a tool has no document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// The assembled document failed validation: the tool's schema is not JSON Schema 2020-12,
    /// names another dialect, or references something outside itself.
    #[error("tool {tool}: {}", .findings.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// The tool's name.
        tool: String,
        /// Every finding of the document validation.
        findings: Vec<Finding>,
    },
}

/// The schema URI of a tool's input or output: a URN naming the tool, since an MCP tool
/// schema has no identity of its own.
fn schema_uri(tool: &str, role: &str) -> String {
    format!("urn:skillgate:mcp:{tool}:{role}")
}

/// The output schema a tool's document carries: its `outputSchema`, or the fallback.
pub fn output_schema_of(tool: &Tool) -> Value {
    match &tool.output_schema {
        Some(s) => Value::Object((**s).clone()),
        None => fallback_output_schema(),
    }
}

/// The Skill Interface Document of `tool`. The input schema is `inputSchema` whole, the
/// output schema [`output_schema_of`]. Authority, unless given, mirrors [`crate::tool_for`]:
/// a tool hinted read-only is `observe_only`, any other `execute` (a hint is no proof, but
/// claiming less than execute for a tool that may write would be worse; a runtime then runs it
/// only when its approval policy approves, docs/design.md D272). Every tool is cancelable,
/// since MCP cancels any request.
pub fn document_for(tool: &Tool, opts: &ImportOptions) -> Result<ValidatedDocument, ImportError> {
    let name = tool.name.to_string();
    let id = opts.skill_id.clone().unwrap_or_else(|| name.clone());
    let version = opts.skill_version.as_deref().unwrap_or("1.0");
    let sv = opts.schema_version.as_deref().unwrap_or("1.0");
    let read_only = tool
        .annotations
        .as_ref()
        .and_then(|a| a.read_only_hint)
        .unwrap_or(false);
    let mode = opts.authority.unwrap_or(if read_only {
        AuthorityMode::ObserveOnly
    } else {
        AuthorityMode::Execute
    });
    InterfaceBuilder::new(&id, version)
        .input(
            schema_uri(&name, "input"),
            sv,
            Value::Object((*tool.input_schema).clone()),
        )
        .output(schema_uri(&name, "output"), sv, output_schema_of(tool))
        .interaction(Interaction {
            response_modes: vec![ResponseMode::Sync, ResponseMode::Stream, ResponseMode::Poll],
            cancelable: true,
        })
        .authority(Authority {
            default_mode: mode,
            approval_may_be_required: false,
        })
        .build()
        .map_err(|e| ImportError::Invalid {
            tool: name,
            findings: e.findings,
        })
}

/// Why a listed tool no longer matches its pinned document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("its {role} schema has digest {now}, the pinned document's is {pinned}")]
pub struct Drift {
    /// `input` or `output`.
    pub role: &'static str,
    /// The digest of the tool's schema now.
    pub now: Digest,
    /// The digest the document pins.
    pub pinned: Digest,
}

/// Whether `tool` is still the tool `document` describes: the canonical digests of its input
/// schema and of [`output_schema_of`] against the document's embedded ones.
pub fn check_tool(tool: &Tool, document: &ValidatedDocument) -> Result<(), Drift> {
    let d = document.document();
    let input = digest(&Value::Object((*tool.input_schema).clone()));
    if input != d.input_schema.digest {
        return Err(Drift {
            role: "input",
            now: input,
            pinned: d.input_schema.digest,
        });
    }
    let output = digest(&output_schema_of(tool));
    if output != d.output_schema.digest {
        return Err(Drift {
            role: "output",
            now: output,
            pinned: d.output_schema.digest,
        });
    }
    Ok(())
}

/// What a tool result says, for the gate.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutcome {
    /// The output to validate against the document.
    Output(Value),
    /// The tool reported failure (`isError: true`): its text content, for the reason.
    Failed(String),
    /// The result cannot stand for an output: a tool with an `outputSchema` sent no
    /// `structuredContent`.
    Unusable(String),
}

/// The text of a result's text blocks, joined.
fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The output `result` stands for: `structuredContent` when the tool declared an output
/// schema (`structured`), else the content blocks as the fallback schema expects. The value is
/// not validated here: the runtime validates every output against the document.
pub fn outcome(result: CallToolResult, structured: bool) -> ToolOutcome {
    if result.is_error == Some(true) {
        return ToolOutcome::Failed(text_of(&result));
    }
    if structured {
        return match result.structured_content {
            Some(v) => ToolOutcome::Output(v),
            None => ToolOutcome::Unusable(
                "the tool declares an outputSchema but its result has no structuredContent".into(),
            ),
        };
    }
    match serde_json::to_value(&result.content) {
        Ok(content) => ToolOutcome::Output(json!({ "content": content })),
        Err(e) => ToolOutcome::Unusable(format!("its content blocks: {e}")),
    }
}

/// One tool of an imported server and its document (or why it has none).
#[derive(Debug)]
pub struct Imported {
    /// The tool as the server listed it.
    pub tool: Tool,
    /// Its document, or the findings that stop it from having one.
    pub document: Result<ValidatedDocument, ImportError>,
}

impl Imported {
    /// Whether the document's output schema is the fallback (the tool has no `outputSchema`).
    pub fn output_fallback(&self) -> bool {
        self.tool.output_schema.is_none()
    }
}

/// `skillgate interface from-mcp`: starts a session with the server at `endpoint`, lists its
/// tools and makes one document per tool, in the server's order. `select` (empty: every tool)
/// names the tools wanted; one the server does not list is an error. `options` gives each
/// tool's overrides by name. One tool without a document does not stop the others.
pub async fn import_server(
    endpoint: &crate::McpEndpoint,
    bounds: crate::Bounds,
    select: &[String],
    options: impl Fn(&str) -> ImportOptions,
) -> Result<Vec<Imported>, crate::UpstreamError> {
    let session = crate::McpUpstream::connect(endpoint, bounds).await?;
    let tools = session.tools().await?;
    if let Some(missing) = select
        .iter()
        .find(|s| !tools.iter().any(|t| t.name.as_ref() == s.as_str()))
    {
        return Err(crate::UpstreamError::UnknownTool {
            tool: missing.clone(),
            available: tools
                .iter()
                .map(|t| t.name.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    Ok(tools
        .into_iter()
        .filter(|t| select.is_empty() || select.iter().any(|s| s.as_str() == t.name.as_ref()))
        .map(|tool| {
            let document = document_for(&tool, &options(&tool.name));
            Imported { tool, document }
        })
        .collect())
}

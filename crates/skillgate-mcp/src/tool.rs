//! One MCP tool from one resolved skill (steps 1 to 6 passed): the names from the card, the
//! schemas and the annotations from the validated Skill Interface Document.

use std::sync::Arc;

use rmcp::model::{JsonObject, MetaObject, Tool, ToolAnnotations};
use serde_json::{json, Value};
use skillgate_a2a::AgentSkill;
use skillgate_client::Resolved;
use skillgate_core::document::ValidatedDocument;
use skillgate_core::wire::{AuthorityMode, SchemaReference};

use crate::result::META_PREFIX;

/// Why a skill whose interface checked out still cannot be an MCP tool. MCP's tool
/// schemas are narrower than the draft's: both must be JSON objects, and `inputSchema` an
/// object schema (the arguments of a `tools/call` are a JSON object).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unlistable {
    /// The embedded input schema is a boolean schema or does not require an object.
    #[error(
        "its input schema does not describe a JSON object (MCP passes arguments as an object)"
    )]
    InputNotObject,
}

/// The authority mode as the document spells it.
fn mode_str(mode: AuthorityMode) -> &'static str {
    match mode {
        AuthorityMode::ObserveOnly => "observe_only",
        AuthorityMode::RecommendOnly => "recommend_only",
        AuthorityMode::Execute => "execute",
    }
}

/// The identity of an embedded schema without its content (the content is the tool's schema).
fn schema_identity(r: &SchemaReference) -> Value {
    json!({"schema_uri": r.schema_uri, "version": r.version, "digest": r.digest.to_string()})
}

/// Whether `schema` (the root of an embedded schema) can only accept JSON objects: MCP hosts
/// build argument forms from `inputSchema` and send the arguments as an object.
fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The MCP tool for `resolved` (a skill of a remote agent that passed the client's steps 1
/// to 6): [`tool_from`] with its document, the card's entry for it and the card's URL.
pub fn tool_for(resolved: &Resolved) -> Result<Tool, Unlistable> {
    let skill = resolved
        .target
        .card
        .skills
        .iter()
        .find(|s| s.id == resolved.selection.skill_id);
    tool_from(&resolved.document, skill, resolved.target.card_url.as_str())
}

/// The MCP tool for a skill whose document is `doc`, listed in a card (at `card_url`) as
/// `card_skill`: the one mapping, used for a remote agent's skills ([`tool_for`]) and for the
/// skills of the agent a process serves itself (`serve --mcp-listen`). The schemas are the
/// embedded ones whole, `$defs` and `$id` included, so a local `$ref` still resolves against
/// the tool schema's root; the output schema is given only when it is an object schema, since
/// MCP's `structuredContent` is an object (a skill with another output still works: its
/// output is in the text content).
pub fn tool_from(
    doc: &ValidatedDocument,
    card_skill: Option<&AgentSkill>,
    card_url: &str,
) -> Result<Tool, Unlistable> {
    let d = doc.document();
    let Value::Object(input) = &d.input_schema.resolution.schema else {
        return Err(Unlistable::InputNotObject);
    };
    if !is_object_schema(&d.input_schema.resolution.schema) {
        return Err(Unlistable::InputNotObject);
    }
    let title = card_skill.map(|s| s.name.clone()).filter(|n| !n.is_empty());
    let description = card_skill
        .map(|s| s.description.clone())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| format!("Governed skill {}", doc.skill_id()));
    let mut tool = Tool::new(
        doc.skill_id().to_owned(),
        description,
        Arc::new(input.clone()),
    );
    if let (Value::Object(output), true) = (
        &d.output_schema.resolution.schema,
        is_object_schema(&d.output_schema.resolution.schema),
    ) {
        tool = tool.with_raw_output_schema(Arc::new(output.clone()));
    }
    // A hint only (MCP says so too): observe_only and recommend_only skills change nothing
    // by the draft's own description; execute may, so nothing is claimed for it.
    let read_only = d.authority.default_mode != AuthorityMode::Execute;
    let annotations = ToolAnnotations::from_raw(title.clone(), Some(read_only), None, None, None);
    tool = tool.with_annotations(annotations);
    if let Some(title) = title {
        tool = tool.with_title(title);
    }
    Ok(tool.with_meta(tool_meta(doc, card_url)))
}

/// The tool's `_meta`: what pins the tool to one interface, so a host (or a person reading
/// its log) can tell which version and digest a call will be checked against.
fn tool_meta(doc: &ValidatedDocument, card_url: &str) -> MetaObject {
    let d = doc.document();
    let mut m = JsonObject::new();
    let mut put = |k: &str, v: Value| {
        m.insert(format!("{META_PREFIX}{k}"), v);
    };
    put("skill_version", json!(doc.skill_version()));
    put(
        "interface_digest",
        json!(doc.interface_digest().to_string()),
    );
    put("input_schema", schema_identity(&d.input_schema));
    put("output_schema", schema_identity(&d.output_schema));
    put("authority_mode", json!(mode_str(d.authority.default_mode)));
    put(
        "approval_may_be_required",
        json!(d.authority.approval_may_be_required),
    );
    put("cancelable", json!(d.interaction.cancelable));
    put("card_url", json!(card_url));
    MetaObject(m)
}

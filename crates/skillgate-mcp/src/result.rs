//! A tool result from the client's answer: the validated output as `structuredContent` plus
//! its text rendering, or a failure as `isError: true` with the draft code and every detail.

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject};
use serde_json::{json, Value};
use skillgate_client::{ClientError, SkillResult};

/// The prefix of every `_meta` key this server sets, on tools and on results (MCP reserves
/// prefixes under `modelcontextprotocol` and `mcp` for itself; anything else is free).
pub const META_PREFIX: &str = "skillgate/";

fn meta(entries: impl IntoIterator<Item = (&'static str, Value)>) -> MetaObject {
    let mut m = JsonObject::new();
    for (k, v) in entries {
        m.insert(format!("{META_PREFIX}{k}"), v);
    }
    MetaObject(m)
}

/// The result of a call that passed all eleven steps. `structuredContent` is the output
/// exactly as step 10 validated it; the text content is the same JSON (hosts that read only
/// text see the same value). The task, the pinned digest and the supporting records (each
/// validated against its record schema) go to `_meta`: they are evidence, not the answer.
pub fn call_result(result: &SkillResult) -> CallToolResult {
    let text = serde_json::to_string_pretty(&result.output).unwrap_or_default();
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    // MCP's structuredContent is an object; another output stays in the text content only.
    if result.output.is_object() {
        r.structured_content = Some(result.output.clone());
    }
    r.meta = Some(meta([
        ("task_id", json!(result.task_id)),
        ("context_id", json!(result.context_id)),
        ("state", json!(result.state.as_str())),
        ("skill_version", json!(result.skill_version)),
        (
            "interface_digest",
            json!(result.interface_digest.to_string()),
        ),
        (
            "records",
            serde_json::to_value(&result.records).unwrap_or(Value::Null),
        ),
    ]));
    r
}

/// A failed call as a tool-level error: the host's model reads why (the code, the step, the
/// message, every validation detail), where a JSON-RPC error would be shown as an opaque
/// failure. The failure object is the one `skillgate call --format json` prints, both as
/// text and in `_meta` under `skillgate/failure`.
pub fn failure_result(error: &ClientError) -> CallToolResult {
    let failure = serde_json::to_value(error.output()).unwrap_or(Value::Null);
    let mut lines = vec![match error.step() {
        Some(step) => format!(
            "{} ({}, step {} {}): {}",
            error.code_str(),
            error.where_().as_str(),
            step.number(),
            step.name(),
            error.message()
        ),
        None => format!("{}: {}", error.code_str(), error.message()),
    }];
    if let ClientError::Local { details, .. } | ClientError::Remote { details, .. } = error {
        for d in details {
            let path = if d.instance_path.is_empty() {
                "/"
            } else {
                d.instance_path.as_str()
            };
            let mut line = format!("  {path}:");
            if let Some(k) = &d.keyword {
                line.push_str(&format!(" {k}"));
            }
            if let Some(e) = &d.expected {
                line.push_str(&format!(" expected {e}"));
            }
            if let Some(a) = &d.actual {
                line.push_str(&format!(", found {a}"));
            }
            lines.push(line);
        }
    }
    lines.push(serde_json::to_string(&failure).unwrap_or_default());
    let mut r = CallToolResult::error(vec![ContentBlock::text(lines.join("\n"))]);
    r.meta = Some(meta([("failure", failure)]));
    r
}

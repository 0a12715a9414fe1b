//! The reply both handler kinds give, and how it becomes a skill result.
//!
//! Success (exit 0, or an HTTP 2xx): one JSON object
//! `{"output": VALUE, "records": [{"kind": KIND, "data": VALUE}]}` (`records` optional).
//! Domain refusal (non-zero exit, or an HTTP 4xx/5xx):
//! `{"error": {"code": "constraint_rejected" | "execution_failed", "message": TEXT}}`.
//! Anything else is a [`BadReply`]: the caller sees `execution_failed` with a fixed message,
//! and the reason goes to the server log only. Output and records are *not* checked here: the
//! runtime validates them against the document like any handler's.

use serde::Deserialize;
use serde_json::Value;
use skillgate_core::ErrorCode;
use skillgate_runtime::{SkillContext, SkillError, SkillOutput, SupportingRecord};

/// Longest refusal message passed on to the task (a handler's text is not trusted to be
/// short); longer ones are cut at a character boundary.
pub const MAX_MESSAGE_BYTES: usize = 2048;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Success {
    output: Value,
    #[serde(default)]
    records: Vec<Record>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    kind: String,
    data: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Refusal {
    error: RefusalError,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefusalError {
    code: String,
    message: String,
}

/// A reply that breaks the protocol; for the server log, never for the task.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadReply {
    /// Not one strict I-JSON value.
    #[error("the reply is not JSON: {0}")]
    NotJson(String),
    /// JSON, but not the success object.
    #[error("a success reply is not {{\"output\": ..., \"records\": [...]}}: {0}")]
    NotSuccess(String),
    /// JSON, but not the error object.
    #[error("a failure reply is not {{\"error\": {{\"code\": ..., \"message\": ...}}}}: {0}")]
    NotRefusal(String),
    /// The error object uses a code a handler may not report (the runtime owns the others).
    #[error("a handler may not report {0:?} (only constraint_rejected or execution_failed)")]
    CodeNotAllowed(String),
}

/// Cuts `s` to at most [`MAX_MESSAGE_BYTES`] bytes at a character boundary.
pub fn bounded(s: &str) -> String {
    if s.len() <= MAX_MESSAGE_BYTES {
        return s.to_owned();
    }
    let mut cut = MAX_MESSAGE_BYTES;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &s[..cut])
}

/// Reads a reply: `succeeded` is exit status 0 or an HTTP 2xx. `Ok(Ok(..))` is a result for
/// the runtime to validate, `Ok(Err(..))` a domain refusal, `Err` a broken reply.
pub fn interpret(
    succeeded: bool,
    body: &[u8],
    ctx: &SkillContext,
) -> Result<Result<SkillOutput, SkillError>, BadReply> {
    let value =
        skillgate_core::jcs::parse_strict(body).map_err(|e| BadReply::NotJson(e.to_string()))?;
    if succeeded {
        let s: Success =
            serde_json::from_value(value).map_err(|e| BadReply::NotSuccess(e.to_string()))?;
        let mut out = SkillOutput::new(s.output);
        for r in s.records {
            out = out.with_record(SupportingRecord {
                artifact_id: ctx.new_record_artifact_id(),
                kind: r.kind,
                data: r.data,
            });
        }
        return Ok(Ok(out));
    }
    let r: Refusal =
        serde_json::from_value(value).map_err(|e| BadReply::NotRefusal(e.to_string()))?;
    let code = match r.error.code.parse::<ErrorCode>() {
        Ok(c @ (ErrorCode::ConstraintRejected | ErrorCode::ExecutionFailed)) => c,
        _ => return Err(BadReply::CodeNotAllowed(bounded(&r.error.code))),
    };
    Ok(Err(SkillError::new(code, bounded(&r.error.message))))
}

/// Up to `max` bytes of a process's stderr or a response body as one log-safe line: invalid
/// UTF-8 replaced, control characters escaped, so a hostile child cannot forge log lines.
pub fn excerpt(bytes: &[u8], max: usize) -> String {
    let cut = bytes.len().min(max);
    let text = String::from_utf8_lossy(&bytes[..cut]);
    let mut out: String = text.escape_debug().collect();
    if bytes.len() > max {
        out.push_str(&format!("… ({} bytes in all)", bytes.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_bounded_at_a_char_boundary() {
        let long = "é".repeat(MAX_MESSAGE_BYTES);
        let b = bounded(&long);
        assert!(b.len() <= MAX_MESSAGE_BYTES + '…'.len_utf8());
        assert_eq!(bounded("short"), "short");
    }

    #[test]
    fn excerpts_escape_control_characters() {
        let e = excerpt(b"line one\nFAKE LOG LINE\x1b[31m", 1000);
        assert!(!e.contains('\n') && !e.contains('\x1b'), "{e}");
        assert!(excerpt(&[b'a'; 100], 10).contains("100 bytes in all"));
    }
}

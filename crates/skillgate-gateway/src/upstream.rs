//! One governed skill's handler: the validated arguments become a message to the upstream
//! agent, the upstream task is followed to its end (its status messages relayed as progress),
//! and the output and records are read from it where the config says. The runtime then
//! validates them exactly as it validates any handler's result.
//!
//! A call the gateway gives up on (a cancel through the gateway, the time limit) cancels the
//! upstream task too: the handler's future is dropped, and a guard sends `CancelTask`.
//!
//! Strings the upstream chooses are bounded before they go anywhere: a text it sends (status
//! messages, its errors) is quoted at most [`QUOTE_CHARS`] characters with control and bidi
//! characters blanked; an id or name is passed on only if [`is_clean_id`], else a record
//! gets a fresh artifact id and a message names the id by its length.

use crate::config::{ArgumentsAs, GovernedSkill, Source};
use serde_json::{json, Value};
use skillgate_a2a::{Artifact, Message, Part, PartContent, Role, StreamResponse, TaskState};
use skillgate_client::{A2aConn, Answer, Mode, Step};
use skillgate_core::ErrorCode;
use skillgate_runtime::{SkillContext, SkillError, SkillOutput, SupportingRecord};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Characters of an upstream status text relayed or quoted in an error.
const QUOTE_CHARS: usize = 300;
/// Longest upstream id (task, artifact) or artifact name passed on or quoted.
const MAX_ID_BYTES: usize = 256;
/// The artifact id the runtime gives the primary result; an upstream record artifact with the
/// same id is renamed.
const RESULT_ARTIFACT_ID: &str = "result";

/// A governed skill bound to the upstream agent; cheap to clone.
#[derive(Clone)]
pub struct UpstreamSkill(Arc<Inner>);

struct Inner {
    skill: GovernedSkill,
    conn: A2aConn,
    mode: Mode,
    /// The upstream base URL, credentials removed, for messages.
    upstream: String,
    /// Set when the upstream card no longer shows the skill as it was at start-up.
    drifted: Arc<AtomicBool>,
}

/// The upstream task id once known, and whether the call is still waiting on it.
#[derive(Default)]
struct Tracked {
    task_id: Option<String>,
    settled: bool,
}

/// Cancels the upstream task if the call ends before the upstream task did.
struct CancelGuard {
    conn: A2aConn,
    tracked: Arc<Mutex<Tracked>>,
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        let id = match self.tracked.lock() {
            Ok(t) if !t.settled => t.task_id.clone(),
            _ => None,
        };
        let (Some(id), Ok(rt)) = (id, tokio::runtime::Handle::try_current()) else {
            return;
        };
        let conn = self.conn.clone();
        rt.spawn(async move {
            let _ = conn.cancel_task(Step::Delegate, &id).await;
        });
    }
}

/// An upstream text for a message: its first [`QUOTE_CHARS`] characters, with control
/// characters (terminal escapes, line breaks that could forge log lines) and bidi overrides
/// blanked.
pub(crate) fn quote(s: &str) -> String {
    let mut q: String = s
        .chars()
        .take(QUOTE_CHARS)
        .map(|c| if is_unsafe_char(c) { ' ' } else { c })
        .collect();
    if s.chars().nth(QUOTE_CHARS).is_some() {
        q.push('…');
    }
    q
}

/// Control characters and the Unicode bidi controls, which reorder the text around them.
fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Whether an upstream-chosen id or name may be passed on as it is: 1 to [`MAX_ID_BYTES`]
/// bytes of ASCII letters, digits and `-_.:~+=@/` (no spaces, controls or markup).
fn is_clean_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_BYTES
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:~+=@/".contains(&b))
}

/// An upstream id or name for a message: itself if [`is_clean_id`], else its length.
fn shown(id: &str) -> std::borrow::Cow<'_, str> {
    if is_clean_id(id) {
        id.into()
    } else {
        format!("(an unusable id of {} bytes)", id.len()).into()
    }
}

/// The text of a status message's text parts, if any.
fn status_text(m: Option<&Message>) -> Option<String> {
    let text: Vec<&str> = m?
        .parts
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    (!text.is_empty()).then(|| quote(&text.join(" ")))
}

/// The value of part `index` of `parts`: a Data Part's data, or a Text Part's JSON text.
fn part_value(parts: &[Part], index: usize) -> Result<Value, String> {
    match parts.get(index).map(|p| &p.content) {
        None => Err(format!("has no part {index} ({} part(s))", parts.len())),
        Some(PartContent::Data(v)) => Ok(v.clone()),
        Some(PartContent::SharedData(v)) => Ok(v.value().clone()),
        Some(PartContent::Text(t)) => skillgate_core::jcs::parse_strict(t.as_bytes())
            .map_err(|e| format!("part {index} is text that is not JSON ({})", e.message)),
        Some(other) => Err(format!(
            "part {index} is a `{}` part, not data or JSON text",
            other.member()
        )),
    }
}

fn output_invalid(message: String) -> SkillError {
    SkillError::new(ErrorCode::OutputInvalid, message)
}

impl UpstreamSkill {
    /// The handler of `skill` over `conn`; `stream` when the upstream agent streams (a cancel
    /// can then reach the upstream task as soon as it exists).
    pub fn new(
        skill: GovernedSkill,
        conn: A2aConn,
        stream: bool,
        upstream: String,
        drifted: Arc<AtomicBool>,
    ) -> Self {
        Self(Arc::new(Inner {
            skill,
            conn,
            mode: if stream { Mode::Stream } else { Mode::Sync },
            upstream,
            drifted,
        }))
    }

    fn message(&self, args: Value) -> Result<Message, SkillError> {
        let part = match self.0.skill.arguments {
            ArgumentsAs::Data => Part::data(args),
            ArgumentsAs::Text => Part::text(
                serde_json::to_string(&args)
                    .map_err(|e| SkillError::execution_failed(e.to_string()))?,
            ),
        };
        let mut metadata = serde_json::Map::new();
        // Not part of A2A: a hint for upstream agents that route by skill.
        metadata.insert("skillId".into(), json!(self.0.skill.upstream_skill));
        Ok(Message {
            message_id: skillgate_transport::fresh_id("msg"),
            role: Role::User,
            parts: vec![part],
            metadata: Some(metadata),
            ..Message::default()
        })
    }

    /// One invocation (see the module docs).
    pub async fn call(&self, args: Value, ctx: SkillContext) -> Result<SkillOutput, SkillError> {
        let inner = &self.0;
        if inner.drifted.load(Ordering::Relaxed) {
            return Err(SkillError::execution_failed(format!(
                "upstream skill `{}` at {} changed since the gateway read its card; calls are refused until the gateway is reloaded",
                inner.skill.upstream_skill, inner.upstream
            )));
        }
        let message = self.message(args)?;
        let tracked = Arc::new(Mutex::new(Tracked::default()));
        let guard = CancelGuard {
            conn: inner.conn.clone(),
            tracked: Arc::clone(&tracked),
        };
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        let seen = Arc::clone(&tracked);
        let conn = inner.conn.clone();
        let mode = inner.mode;
        let exchange = async move {
            let mut on_event = move |e: &StreamResponse| {
                if let Some(note) = note_event(&seen, e) {
                    let _ = tx.send(note);
                }
            };
            conn.exchange(Step::Delegate, message, mode, false, &mut on_event)
                .await
        };
        let relay = async {
            while let Some(note) = rx.recv().await {
                ctx.progress(&note).await;
            }
        };
        let (answer, ()) = tokio::join!(exchange, relay);
        let upstream_id = |t: &Arc<Mutex<Tracked>>| t.lock().ok().and_then(|t| t.task_id.clone());
        let answer = answer.map_err(|e| {
            let task = upstream_id(&tracked)
                .map(|id| format!(" (upstream task {})", shown(&id)))
                .unwrap_or_default();
            SkillError::execution_failed(format!(
                "upstream agent at {}{task}: {}",
                inner.upstream,
                quote(&e.to_string())
            ))
        })?;
        let result = self.settle(answer, &tracked, &ctx);
        drop(guard);
        result
    }

    /// The result of the upstream answer; marks the upstream task settled unless the gateway
    /// still has to cancel it (an interrupted task).
    fn settle(
        &self,
        answer: Answer,
        tracked: &Arc<Mutex<Tracked>>,
        ctx: &SkillContext,
    ) -> Result<SkillOutput, SkillError> {
        let task = match answer {
            Answer::Message(m) => {
                settled(tracked, None);
                return self.read(&[], Some(&m.parts), "the upstream reply message", ctx);
            }
            Answer::Task(t) => t,
        };
        let state = task.status.state;
        settled(tracked, Some((task.id.clone(), !state.is_interrupted())));
        let why = status_text(task.status.message.as_ref())
            .map(|t| format!(": {t}"))
            .unwrap_or_default();
        match state {
            TaskState::Completed => self.read(
                &task.artifacts,
                None,
                &format!("upstream task {}", shown(&task.id)),
                ctx,
            ),
            s if s.is_interrupted() => Err(SkillError::execution_failed(format!(
                "upstream task {} stopped in {s}{why}; the gateway relays single-turn skills only, so it canceled it",
                shown(&task.id)
            ))),
            s => Err(SkillError::execution_failed(format!(
                "upstream task {} ended {s}{why}",
                shown(&task.id)
            ))),
        }
    }

    /// Reads the output and records from a completed task's artifacts (or a reply's parts).
    fn read(
        &self,
        artifacts: &[Artifact],
        reply: Option<&[Part]>,
        what: &str,
        ctx: &SkillContext,
    ) -> Result<SkillOutput, SkillError> {
        let skill = &self.0.skill;
        let record_source = |kind: &str, src: &Source| -> String {
            src.artifact.clone().unwrap_or_else(|| kind.to_owned())
        };
        let mut records = Vec::new();
        for (kind, src) in &skill.records {
            let name = record_source(kind, src);
            for a in artifacts.iter().filter(|a| a.name == name) {
                let data = part_value(&a.parts, src.part)
                    .map_err(|e| output_invalid(format!("{what}: record artifact `{name}` {e}")))?;
                // An id that is not clean is replaced, as is one that would clash.
                let artifact_id =
                    if !is_clean_id(&a.artifact_id) || a.artifact_id == RESULT_ARTIFACT_ID {
                        ctx.new_record_artifact_id()
                    } else {
                        a.artifact_id.clone()
                    };
                records.push(SupportingRecord {
                    artifact_id,
                    kind: kind.clone(),
                    data,
                });
            }
        }
        let output = match (reply, &skill.output.artifact) {
            (Some(parts), _) => part_value(parts, skill.output.part)
                .map_err(|e| output_invalid(format!("{what} {e}")))?,
            (None, Some(name)) => {
                let a = artifacts
                    .iter()
                    .rev()
                    .find(|a| &a.name == name)
                    .ok_or_else(|| {
                        output_invalid(format!(
                            "{what} completed without an artifact named `{name}`"
                        ))
                    })?;
                part_value(&a.parts, skill.output.part)
                    .map_err(|e| output_invalid(format!("{what}: artifact `{name}` {e}")))?
            }
            (None, None) => {
                let claimed: Vec<String> = skill
                    .records
                    .iter()
                    .map(|(k, s)| record_source(k, s))
                    .collect();
                let a = artifacts
                    .iter()
                    .find(|a| !claimed.contains(&a.name))
                    .ok_or_else(|| {
                        output_invalid(format!("{what} completed without an output artifact"))
                    })?;
                part_value(&a.parts, skill.output.part).map_err(|e| {
                    output_invalid(format!("{what}: artifact `{}` {e}", shown(&a.name)))
                })?
            }
        };
        Ok(SkillOutput { output, records })
    }
}

/// Records the upstream task's fate: `Some((id, done))`, or `None` for a message reply.
fn settled(tracked: &Mutex<Tracked>, task: Option<(String, bool)>) {
    if let Ok(mut t) = tracked.lock() {
        match task {
            Some((id, done)) => {
                t.task_id = Some(id);
                t.settled = done;
            }
            None => t.settled = true,
        }
    }
}

/// What a stream event tells the gateway's own task: the upstream task id when first seen,
/// then each status message's text.
fn note_event(tracked: &Mutex<Tracked>, e: &StreamResponse) -> Option<String> {
    let (id, status) = match e {
        StreamResponse::Task(t) => (t.id.as_str(), Some(&t.status)),
        StreamResponse::StatusUpdate(u) => (u.task_id.as_str(), Some(&u.status)),
        StreamResponse::ArtifactUpdate(u) => (u.task_id.as_str(), None),
        StreamResponse::Message(_) => return None,
    };
    let first = match tracked.lock() {
        Ok(mut t) if t.task_id.is_none() && !id.is_empty() => {
            t.task_id = Some(id.to_owned());
            true
        }
        _ => false,
    };
    let text = status.and_then(|s| status_text(s.message.as_ref()));
    let id = shown(id);
    match (first, text) {
        (true, Some(t)) => Some(format!("upstream task {id}: {t}")),
        (true, None) => Some(format!("upstream task {id} accepted")),
        (false, Some(t)) => Some(format!("upstream task {id}: {t}")),
        (false, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_pass_only_when_short_and_plain() {
        assert!(is_clean_id("up-1"));
        assert!(is_clean_id("0f6a3e5e-7c1b-4b9a-9d7e-2f0c1d2e3f4a"));
        assert!(!is_clean_id(""));
        assert!(!is_clean_id(&"a".repeat(MAX_ID_BYTES + 1)));
        assert!(is_clean_id(&"a".repeat(MAX_ID_BYTES)));
        for bad in ["<b>", "a b", "a\u{1b}[31m", "id\n2", "\u{202e}x", "é"] {
            assert!(!is_clean_id(bad), "{bad:?}");
        }
        assert_eq!(shown("x\ny"), "(an unusable id of 3 bytes)");
    }

    #[test]
    fn quotes_are_capped_and_lose_their_controls() {
        assert_eq!(quote("a\u{1b}[1mb\r\nc\u{202e}d"), "a [1mb  c d");
        let long = "é".repeat(QUOTE_CHARS + 5);
        let q = quote(&long);
        assert_eq!(q.chars().count(), QUOTE_CHARS + 1);
        assert!(q.ends_with('…'));
        assert_eq!(quote(&"é".repeat(QUOTE_CHARS)), "é".repeat(QUOTE_CHARS));
    }
}

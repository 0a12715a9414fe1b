//! `skillgate serve --conformance-agent`: the agent the A2A TCK (a2aproject/a2a-tck, branch
//! `1.0-dev`) runs against. The TCK signals the behaviour it wants through the prefix of
//! `message.messageId` (its `scenarios/*.feature`); this agent answers those prefixes through
//! the runtime's plain-handler API, next to the netops skills, so one server exercises both the
//! A2A protocol layer and the schema-interface extension.
//!
//! The plain-handler API can answer with a direct Message or a rejected Task only. Scenarios
//! that need a Task with artifacts, an interrupted state or timed stream events are answered
//! with the closest Message (same content), and the TCK reports them as failures: see
//! `docs/design.md` ("Conformance and interop") for the list and the API they need.

use serde_json::json;
use skillgate_server::a2a::{Message, Part, PartContent};
use skillgate_server::{AgentBuilder, PlainContext, PlainReply};

/// What the TCK asks for, keyed by messageId prefix (longest prefixes first).
const SCENARIOS: &[(&str, Scenario)] = &[
    ("tck-artifact-file-url", Scenario::FileUrl),
    ("tck-artifact-file", Scenario::File),
    (
        "tck-artifact-text",
        Scenario::Text("Generated text content"),
    ),
    ("tck-artifact-data", Scenario::Data),
    (
        "tck-message-response",
        Scenario::Text("Direct message response"),
    ),
    ("tck-input-required", Scenario::Text("Input required")),
    ("tck-reject-task", Scenario::Reject("rejected")),
    (
        "tck-stream-artifact-chunked",
        Scenario::Text("chunk-1 chunk-2"),
    ),
    (
        "tck-stream-artifact-text",
        Scenario::Text("Streamed text content"),
    ),
    ("tck-stream-artifact-file", Scenario::File),
    ("tck-stream-ordering-001", Scenario::Text("Ordered output")),
    ("tck-stream-001", Scenario::Text("Stream hello from TCK")),
    ("tck-stream-002", Scenario::Text("Hello from TCK")),
    ("tck-stream-003", Scenario::Text("Stream task lifecycle")),
    (
        "test-resubscribe-message-id",
        Scenario::Text("Hello from TCK"),
    ),
    ("tck-complete-task", Scenario::Text("Hello from TCK")),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Scenario {
    Text(&'static str),
    File,
    FileUrl,
    Data,
    Reject(&'static str),
}

/// The scenario for a messageId (unknown prefixes complete with "Hello from TCK").
fn scenario(message_id: &str) -> Scenario {
    SCENARIOS
        .iter()
        .find(|(p, _)| message_id.starts_with(p))
        .map(|(_, s)| *s)
        .unwrap_or(Scenario::Text("Hello from TCK"))
}

fn reply(message: &Message) -> PlainReply {
    match scenario(&message.message_id) {
        Scenario::Text(t) => PlainReply::Message(vec![Part::text(t)]),
        Scenario::File => {
            // base64("Generated file content")
            let mut p =
                Part::from_content(PartContent::Raw("R2VuZXJhdGVkIGZpbGUgY29udGVudA==".into()));
            p.filename = "output.txt".into();
            p.media_type = "text/plain".into();
            PlainReply::Message(vec![p])
        }
        Scenario::FileUrl => {
            let mut p =
                Part::from_content(PartContent::Url("https://example.com/output.txt".into()));
            p.filename = "output.txt".into();
            p.media_type = "text/plain".into();
            PlainReply::Message(vec![p])
        }
        Scenario::Data => {
            PlainReply::Message(vec![Part::data(json!({"key": "value", "count": 42}))])
        }
        Scenario::Reject(t) => PlainReply::Rejected(t.into()),
    }
}

/// The netops agent plus the TCK's plain-message scenarios.
pub fn agent() -> AgentBuilder {
    skillgate_netops::agent()
        .plain_handler(|message: Message, _ctx: PlainContext| async move { reply(&message) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_pick_their_scenario() {
        assert_eq!(
            scenario("tck-artifact-file-url-1a2b3c4d"),
            Scenario::FileUrl
        );
        assert_eq!(scenario("tck-artifact-file-1a2b3c4d"), Scenario::File);
        assert_eq!(
            scenario("tck-reject-task-00000000"),
            Scenario::Reject("rejected")
        );
        assert_eq!(scenario("anything-else"), Scenario::Text("Hello from TCK"));
        assert!(agent().build().is_ok());
    }
}

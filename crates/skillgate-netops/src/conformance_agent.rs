//! The agent `skillgate serve --conformance-agent` runs for the A2A TCK: the netops skills plus a
//! plain handler that answers each TCK scenario, chosen by the prefix of the test's messageId,
//! with the task shape that scenario expects (artifacts of each part kind, an interrupted task,
//! a rejection, chunked streaming, a slow task to resubscribe to).

use serde_json::json;
use skillgate_runtime::a2a::{Artifact, Message, Part, PartContent, TaskState};
use skillgate_runtime::{AgentBuilder, PlainContext, PlainReply, PlainStep, Skill, SkillOutput};
use std::time::Duration;

fn text(t: &str) -> Vec<Part> {
    vec![Part::text(t)]
}

fn art(id: &str, parts: Vec<Part>) -> PlainStep {
    PlainStep::Artifact {
        artifact: Artifact {
            artifact_id: id.into(),
            name: id.into(),
            parts,
            ..Default::default()
        },
        append: false,
        last_chunk: true,
    }
}

fn file() -> Part {
    let mut p = Part::from_content(PartContent::Raw("R2VuZXJhdGVkIGZpbGUgY29udGVudA==".into()));
    p.filename = "output.txt".into();
    p.media_type = "text/plain".into();
    p
}

fn lifecycle(t: &str) -> PlainReply {
    PlainReply::Task(vec![
        PlainStep::Status(TaskState::Working, vec![]),
        art("text", text(t)),
        PlainStep::Status(TaskState::Completed, vec![]),
    ])
}

fn reply(m: &Message) -> PlainReply {
    let id = m.message_id.as_str();
    let p = |x: &str| id.starts_with(x);
    if p("tck-artifact-file-url") {
        let mut u = Part::from_content(PartContent::Url("https://example.com/output.txt".into()));
        u.filename = "output.txt".into();
        u.media_type = "text/plain".into();
        PlainReply::Task(vec![
            art("file-url", vec![u]),
            PlainStep::Status(TaskState::Completed, vec![]),
        ])
    } else if p("tck-artifact-file") {
        PlainReply::Task(vec![
            art("file", vec![file()]),
            PlainStep::Status(TaskState::Completed, vec![]),
        ])
    } else if p("tck-artifact-text") {
        PlainReply::Task(vec![
            art("text", text("Generated text content")),
            PlainStep::Status(TaskState::Completed, vec![]),
        ])
    } else if p("tck-artifact-data") {
        PlainReply::Task(vec![
            art(
                "data",
                vec![Part::data(json!({"key": "value", "count": 42}))],
            ),
            PlainStep::Status(TaskState::Completed, vec![]),
        ])
    } else if p("tck-message-response") {
        PlainReply::Message(text("Direct message response"))
    } else if p("tck-input-required") {
        PlainReply::Task(vec![PlainStep::Status(
            TaskState::InputRequired,
            text("Input required"),
        )])
    } else if p("tck-reject-task") {
        PlainReply::Rejected("rejected".into())
    } else if p("tck-stream-artifact-chunked") {
        PlainReply::Task(vec![
            PlainStep::Status(TaskState::Working, vec![]),
            PlainStep::Artifact {
                artifact: Artifact {
                    artifact_id: "chunked".into(),
                    name: "chunked".into(),
                    parts: text("chunk-1 "),
                    ..Default::default()
                },
                append: false,
                last_chunk: false,
            },
            PlainStep::Artifact {
                artifact: Artifact {
                    artifact_id: "chunked".into(),
                    name: "chunked".into(),
                    parts: text("chunk-2"),
                    ..Default::default()
                },
                append: true,
                last_chunk: true,
            },
            PlainStep::Status(TaskState::Completed, vec![]),
        ])
    } else if p("tck-stream-artifact-text") {
        lifecycle("Streamed text content")
    } else if p("tck-stream-artifact-file") {
        PlainReply::Task(vec![
            PlainStep::Status(TaskState::Working, vec![]),
            art("file", vec![file()]),
            PlainStep::Status(TaskState::Completed, vec![]),
        ])
    } else if p("tck-stream-ordering-001") {
        lifecycle("Ordered output")
    } else if p("tck-stream-001") {
        lifecycle("Stream hello from TCK")
    } else if p("tck-stream-003") {
        lifecycle("Stream task lifecycle")
    } else if p("tck-stream-002") {
        PlainReply::Task(vec![PlainStep::Status(TaskState::Completed, vec![])])
    } else if p("test-resubscribe-message-id") {
        PlainReply::Task(vec![
            PlainStep::Status(TaskState::Working, vec![]),
            PlainStep::Sleep(Duration::from_millis(4500)),
            PlainStep::Status(TaskState::Completed, vec![]),
        ])
    } else {
        PlainReply::Task(vec![PlainStep::Status(
            TaskState::Completed,
            text("Hello from TCK"),
        )])
    }
}

/// Id of the conformance agent's one extended-only skill.
pub const EXTENDED_SKILL: &str = "conformance_extended_echo";

/// A skill listed only in the extended Agent Card: with `--token-file` the public card then
/// declares `capabilities.extendedAgentCard`, so the TCK's CARD-EXT checks have an extended
/// card to read (without a token file nothing changes: nobody can see the skill). It echoes
/// its `text` argument.
fn extended_echo() -> Skill {
    Skill::builder(EXTENDED_SKILL, "1.0")
        .name("Echo (extended card only)")
        .description("Returns its text; listed only in the extended Agent Card")
        .tags(["conformance"])
        .input_schema(
            "urn:skillgate:conformance:echo:input",
            "1.0",
            json!({"type": "object", "required": ["text"], "additionalProperties": false,
                   "properties": {"text": {"type": "string", "maxLength": 256}}}),
        )
        .output_schema(
            "urn:skillgate:conformance:echo:output",
            "1.0",
            json!({"type": "object", "required": ["text"], "additionalProperties": false,
                   "properties": {"text": {"type": "string"}}}),
        )
        .handler(|args, _ctx| async move { Ok(SkillOutput::new(args)) })
        .extended_only()
        .build()
}

/// The netops agent on the real host plus the TCK's scenarios as its plain handler; messages
/// that carry a skill request still go to the schema-governed skills. One more skill,
/// [`EXTENDED_SKILL`], is in the extended Agent Card only.
pub fn agent() -> AgentBuilder {
    crate::agent()
        .skill(extended_echo())
        .plain_handler(|m: Message, _c: PlainContext| async move { reply(&m) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extended_skill_is_in_the_extended_card_only_and_only_with_authentication() {
        let agent = agent().build().unwrap();
        let listed = |card: &skillgate_runtime::a2a::AgentCard| {
            card.skills.iter().any(|s| s.id == EXTENDED_SKILL)
        };
        assert!(
            !agent.has_extended_card(false),
            "no token file, no extended card"
        );
        assert!(agent.has_extended_card(true));
        assert!(!listed(&agent.card("http://127.0.0.1:1", true)));
        let caller = skillgate_runtime::Caller {
            label: "tck".into(),
            skills: None,
        };
        let extended = agent.extended_card("http://127.0.0.1:1", true, &caller);
        assert!(listed(&extended));
        assert_eq!(extended.capabilities.extended_agent_card, Some(true));
    }

    fn message(id: &str) -> Message {
        Message {
            message_id: id.into(),
            parts: text("hi"),
            ..Default::default()
        }
    }

    #[test]
    fn scenarios_follow_the_message_id_prefix() {
        assert!(matches!(
            reply(&message("tck-message-response-1")),
            PlainReply::Message(_)
        ));
        assert!(matches!(
            reply(&message("tck-reject-task-2")),
            PlainReply::Rejected(_)
        ));
        let PlainReply::Task(steps) = reply(&message("tck-input-required-3")) else {
            panic!("a task");
        };
        assert!(matches!(
            steps.as_slice(),
            [PlainStep::Status(TaskState::InputRequired, _)]
        ));
        // file-url is tested before its prefix file.
        let PlainReply::Task(steps) = reply(&message("tck-artifact-file-url-4")) else {
            panic!("a task");
        };
        assert!(
            matches!(&steps[0], PlainStep::Artifact { artifact, .. } if artifact.artifact_id == "file-url")
        );
    }
}

//! Artifact updates as A2A 1.0 defines them: `append: false` with the id of an artifact the
//! task already has replaces that artifact; `append: true` extends it. The client assembles a
//! streamed task by the same rule, so the task a client rebuilds from the stream and the one
//! `GetTask` returns must agree.

use crate::common::*;
use serde_json::json;
use skillgate_runtime::*;

fn artifact(id: &str, text: &str) -> a2a::Artifact {
    a2a::Artifact {
        artifact_id: id.into(),
        name: "report".into(),
        parts: vec![a2a::Part::text(text)],
        ..Default::default()
    }
}

fn step(id: &str, text: &str, append: bool) -> PlainStep {
    PlainStep::Artifact {
        artifact: artifact(id, text),
        append,
        last_chunk: true,
    }
}

fn agent() -> Agent {
    Agent::builder("artifact updates", "d", "1.0")
        .skill(observe_skill())
        .plain_handler(|_m: a2a::Message, _c: PlainContext| async move {
            PlainReply::Task(vec![
                PlainStep::Status(a2a::TaskState::Working, vec![]),
                step("r1", "draft", false),
                // Same id, append false: the draft is replaced, not kept beside the final.
                step("r1", "final", false),
                step("r2", "part-1 ", false),
                step("r2", "part-2", true),
                // Append to an id the task does not have: a new artifact.
                step("r3", "only", true),
                PlainStep::Status(a2a::TaskState::Completed, vec![]),
            ])
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_non_append_update_with_a_known_id_replaces_the_artifact() {
    let s = Server::start(agent(), ServerConfig::default()).await;
    let m =
        json!({"message": {"messageId": uuid(), "role": "ROLE_USER", "parts": [{"text": "go"}]}});
    let r = s.rpc("SendMessage", m).await;
    let t = task_of(&r);
    assert_eq!(t["status"]["state"], "TASK_STATE_COMPLETED", "{r}");
    let texts: Vec<(String, Vec<String>)> = t["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            let parts = a["parts"].as_array().unwrap();
            (
                a["artifactId"].as_str().unwrap().to_owned(),
                parts
                    .iter()
                    .map(|p| p["text"].as_str().unwrap().to_owned())
                    .collect(),
            )
        })
        .collect();
    let want = |id: &str, parts: &[&str]| {
        (
            id.to_owned(),
            parts.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        texts,
        vec![
            want("r1", &["final"]),
            want("r2", &["part-1 ", "part-2"]),
            want("r3", &["only"]),
        ],
        "{t}"
    );
}

//! Plain (not schema-governed) handlers that answer with a Task: chunked artifacts, an
//! interrupted state, a follow-up turn that continues the task, and a subscription that stays
//! open across the interruption.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_runtime::*;
use std::time::Duration;

fn chunk(id: &str, text: &str) -> a2a::Artifact {
    a2a::Artifact {
        artifact_id: id.into(),
        name: "notes".into(),
        parts: vec![a2a::Part::text(text)],
        ..Default::default()
    }
}

fn agent() -> Agent {
    Agent::builder("plain tasks", "d", "1.0")
        .skill(observe_skill())
        .plain_handler(|m: a2a::Message, _c: PlainContext| async move {
            match m.parts[0].as_text().unwrap_or("") {
                "start" => PlainReply::Task(vec![
                    PlainStep::Status(a2a::TaskState::Working, vec![]),
                    PlainStep::Artifact {
                        artifact: chunk("a1", "chunk-1 "),
                        append: false,
                        last_chunk: false,
                    },
                    PlainStep::Artifact {
                        artifact: chunk("a1", "chunk-2"),
                        append: true,
                        last_chunk: true,
                    },
                    PlainStep::Status(
                        a2a::TaskState::InputRequired,
                        vec![a2a::Part::text("which interface?")],
                    ),
                ]),
                "eth0" => PlainReply::Task(vec![
                    PlainStep::Sleep(Duration::from_millis(100)),
                    PlainStep::Status(a2a::TaskState::Completed, vec![a2a::Part::text("done")]),
                ]),
                _ => PlainReply::Rejected("unknown".into()),
            }
        })
        .build()
        .unwrap()
}

fn text_message(text: &str, task_id: Option<&str>) -> Value {
    let mut m = json!({"messageId": uuid(), "role": "ROLE_USER", "parts": [{"text": text}]});
    if let Some(t) = task_id {
        m["taskId"] = json!(t);
    }
    json!({"message": m})
}

#[tokio::test]
async fn a_plain_task_is_interrupted_then_continued_by_a_follow_up() {
    let s = Server::start(agent(), ServerConfig::default()).await;
    let r = s.rpc("SendMessage", text_message("start", None)).await;
    let t = task_of(&r);
    assert_eq!(t["status"]["state"], "TASK_STATE_INPUT_REQUIRED", "{r}");
    assert_eq!(
        t["status"]["message"]["parts"][0]["text"],
        "which interface?"
    );
    let parts = t["artifacts"][0]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "appended chunk joins its artifact: {t}");
    let id = t["id"].as_str().unwrap().to_owned();

    let r = s.rpc("SendMessage", text_message("eth0", Some(&id))).await;
    let t = task_of(&r);
    assert_eq!(t["id"], id.as_str());
    assert_eq!(t["status"]["state"], "TASK_STATE_COMPLETED", "{r}");
    assert_eq!(t["history"].as_array().unwrap().len(), 2, "{t}");

    // A terminal task takes no further turns.
    let r = s.rpc("SendMessage", text_message("eth0", Some(&id))).await;
    assert_eq!(r["error"]["code"], -32004, "{r}");
    s.shutdown().await;
}

#[tokio::test]
async fn streamed_plain_task_reports_chunks_in_order() {
    let s = Server::start(agent(), ServerConfig::default()).await;
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "SendStreamingMessage",
                      "params": text_message("start", None)})
    .to_string();
    let (_, _, text) = s
        .post_raw(
            "/",
            body,
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    let evs = sse_events(&text);
    let kinds: Vec<&str> = evs
        .iter()
        .map(|e| {
            let r = e["result"].as_object().unwrap();
            r.keys().next().unwrap().as_str()
        })
        .collect();
    assert_eq!(kinds[0], "task", "{kinds:?}");
    let chunks: Vec<&Value> = evs
        .iter()
        .filter_map(|e| e["result"].get("artifactUpdate"))
        .collect();
    assert_eq!(chunks.len(), 2, "{evs:?}");
    assert_eq!(chunks[1]["append"], true);
    assert_eq!(chunks[1]["lastChunk"], true);
    let last = evs.last().unwrap();
    assert_eq!(
        last["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn a_subscription_to_an_interrupted_task_stays_open_until_it_ends() {
    let s = Server::start(agent(), ServerConfig::default()).await;
    let r = s.rpc("SendMessage", text_message("start", None)).await;
    let id = task_of(&r)["id"].as_str().unwrap().to_owned();

    let client = s.client.clone();
    let url = format!("{}/", s.base);
    let sub_id = id.clone();
    let (attached_tx, attached) = tokio::sync::oneshot::channel();
    let sub = tokio::spawn(async move {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "SubscribeToTask",
                          "params": {"id": sub_id}});
        let mut resp = client
            .post(url)
            .header("A2A-Version", "1.0")
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        // The first event (the Task) proves the subscription is attached.
        let mut text = String::new();
        while !text.contains("\n\n") {
            let chunk = resp.chunk().await.unwrap().expect("the first event");
            text.push_str(std::str::from_utf8(&chunk).unwrap());
        }
        let _ = attached_tx.send(());
        while let Some(chunk) = resp.chunk().await.unwrap() {
            text.push_str(std::str::from_utf8(&chunk).unwrap());
        }
        text
    });
    tokio::time::timeout(Duration::from_secs(5), attached)
        .await
        .expect("the subscription attached in time")
        .unwrap();
    assert!(
        !sub.is_finished(),
        "the subscription closed at the interrupted state"
    );
    let r = s.rpc("SendMessage", text_message("eth0", Some(&id))).await;
    assert_eq!(task_of(&r)["status"]["state"], "TASK_STATE_COMPLETED");
    let text = tokio::time::timeout(Duration::from_secs(5), sub)
        .await
        .unwrap()
        .unwrap();
    let evs = sse_events(&text);
    assert_eq!(
        evs[0]["result"]["task"]["status"]["state"],
        "TASK_STATE_INPUT_REQUIRED"
    );
    assert_eq!(
        evs.last().unwrap()["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{evs:?}"
    );
    s.shutdown().await;
}

#[tokio::test]
async fn two_concurrent_follow_ups_continue_an_interrupted_task_once() {
    let s = Server::start(agent(), ServerConfig::default()).await;
    let r = s.rpc("SendMessage", text_message("start", None)).await;
    let id = task_of(&r)["id"].as_str().unwrap().to_owned();
    assert_eq!(task_of(&r)["status"]["state"], "TASK_STATE_INPUT_REQUIRED");

    // The continuation takes 100 ms, so both follow-ups arrive while the task is still
    // interrupted: only one may take the turn.
    let (a, b) = tokio::join!(
        s.rpc("SendMessage", text_message("eth0", Some(&id))),
        s.rpc("SendMessage", text_message("eth0", Some(&id)))
    );
    let (won, lost) = match (a.get("result"), b.get("result")) {
        (Some(_), None) => (&a, &b),
        (None, Some(_)) => (&b, &a),
        _ => panic!("exactly one follow-up must continue the task:\n{a}\n{b}"),
    };
    assert_eq!(
        task_of(won)["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{won}"
    );
    // UnsupportedOperationError: the task is no longer waiting for input.
    assert_eq!(lost["error"]["code"], -32004, "{lost}");
    let g = s.rpc("GetTask", json!({"id": id})).await;
    assert_eq!(
        g["result"]["history"].as_array().unwrap().len(),
        2,
        "only the winning follow-up joins the history: {g}"
    );
    s.shutdown().await;
}

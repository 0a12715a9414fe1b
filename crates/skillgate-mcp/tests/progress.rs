//! Long calls through the MCP server: the A2A task's progress as MCP progress notifications,
//! and `notifications/cancelled` cancelling the A2A task. Against a real agent (the runtime,
//! served on 127.0.0.1) with a slow, cancelable skill, driven by the official SDK's client.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ProgressNotificationParam, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;
use skillgate_client::{Client, ClientConfig};
use skillgate_core::wire::{Interaction, ResponseMode};
use skillgate_mcp::SkillServer;
use skillgate_runtime::{Agent, Skill, SkillContext, SkillOutput};

/// Set when the handler's future is dropped: the runtime aborts a cancelled task's handler.
struct Dropped(Arc<AtomicBool>);
impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// An agent with `slow`: reports progress every 50 ms for `ticks` ticks, then answers.
fn slow_agent(dropped: Arc<AtomicBool>) -> Agent {
    let slow = Skill::builder("slow", "1.0")
        .input_schema(
            "urn:test:slow:in",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                   "required": ["ticks"], "properties": {"ticks": {"type": "integer", "minimum": 0}}}),
        )
        .output_schema(
            "urn:test:slow:out",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                   "required": ["ticks"]}),
        )
        .interaction(Interaction {
            response_modes: vec![ResponseMode::Sync, ResponseMode::Stream],
            cancelable: true,
        })
        .handler(move |args: serde_json::Value, ctx: SkillContext| {
            let dropped = dropped.clone();
            async move {
                let _guard = Dropped(dropped);
                let ticks = args["ticks"].as_u64().unwrap_or(0);
                for i in 0..ticks {
                    ctx.progress(&format!("tick {i}")).await;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Ok(SkillOutput::new(json!({"ticks": ticks})))
            }
        })
        .build();
    Agent::builder("slow agent", "progress and cancel", "1.0.0")
        .skill(slow)
        .build()
        .unwrap()
}

/// An MCP client that keeps every progress message.
#[derive(Clone, Default)]
struct Progress(Arc<Mutex<Vec<String>>>);

impl ClientHandler for Progress {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0
            .lock()
            .unwrap()
            .push(params.message.unwrap_or_default());
    }
}

fn call_request(ticks: u64) -> ClientRequest {
    let args = json!({"ticks": ticks}).as_object().cloned().unwrap();
    ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("slow").with_arguments(args),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_arrives_and_a_cancelled_call_cancels_the_a2a_task() {
    let dropped = Arc::new(AtomicBool::new(false));
    let agent = skillgate_testkit::server::TestServer::start(
        slow_agent(dropped.clone()),
        Default::default(),
    )
    .await;
    let server = SkillServer::new(
        Client::new(ClientConfig::default()).unwrap(),
        agent.base.as_str(),
    );
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let progress = Progress::default();
    let c = progress.clone().serve(client_io).await.unwrap();
    assert_eq!(c.list_all_tools().await.unwrap().len(), 1);

    // A short call: its progress messages arrive before its result.
    let done = c.send_request(call_request(3)).await.unwrap();
    let ServerResult::CallToolResult(done) = done else {
        panic!("{done:?}")
    };
    assert_ne!(done.is_error, Some(true), "{done:?}");
    assert_eq!(done.structured_content.unwrap()["ticks"], 3);
    let seen = progress.0.lock().unwrap().clone();
    assert!(seen.iter().any(|m| m.starts_with("task ")), "{seen:?}");
    assert!(seen.iter().any(|m| m.contains("tick 2")), "{seen:?}");
    // The finished handler dropped its guard too; only a cancel can drop the next one early.
    dropped.store(false, Ordering::SeqCst);

    // A long call, cancelled once it reported progress: the A2A task is cancelled, so the
    // agent stops running the skill.
    progress.0.lock().unwrap().clear();
    let handle = c
        .send_cancellable_request(call_request(600), PeerRequestOptions::no_options())
        .await
        .unwrap();
    skillgate_testkit::poll::eventually(Duration::from_secs(10), || async {
        progress
            .0
            .lock()
            .unwrap()
            .iter()
            .any(|m| m.contains("tick 1"))
            .then_some(())
    })
    .await;
    let task_id = progress
        .0
        .lock()
        .unwrap()
        .iter()
        .find_map(|m| {
            m.strip_prefix("task ")
                .map(|r| r.split(' ').next().unwrap().to_owned())
        })
        .expect("the task named in a progress message");
    handle.cancel(Some("test".into())).await.unwrap();
    skillgate_testkit::poll::eventually(Duration::from_secs(10), || async {
        dropped.load(Ordering::SeqCst).then_some(())
    })
    .await;
    let task = agent.rpc("GetTask", json!({"id": task_id})).await;
    assert_eq!(
        task["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{task}"
    );
    c.cancel().await.unwrap();
}

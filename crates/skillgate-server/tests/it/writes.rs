//! How many store writes a task costs, read from the stored version (1 after the create, one
//! more per write without events): a blocking describe_skill, or a request refused before any
//! skill runs (or refused by its gate), is stored finished in one write; so is a blocking
//! domain skill that acts on nothing (its authority mode is not `execute`), stored when it
//! ends; one that may act is admitted before it is stored and created WORKING (two writes); a
//! streamed one and one with a push config keep every state.

use crate::common::*;
use serde_json::{json, Value};
use skillgate_runtime::store_api::{MemoryStore, StoreLimits, TaskStore};
use skillgate_runtime::*;
use std::sync::Arc;

async fn version_of(store: &MemoryStore, task: &Value) -> (i64, String) {
    let id = task["id"].as_str().unwrap();
    let row = store.get(id).await.unwrap().unwrap();
    (row.version, format!("{:?}", row.state))
}

#[tokio::test]
async fn blocking_short_tasks_are_written_once() {
    let store = Arc::new(MemoryStore::new(StoreLimits::memory()));
    let config = ServerConfig {
        store: Some(store.clone() as Arc<dyn TaskStore>),
        approval: ApprovalPolicy::allow_skills(["restart_interface"]),
        ..Default::default()
    };
    let s = Server::start(agent(), config).await;
    let card = s.card().await;

    let describe = json!({"skill": "describe_skill", "arguments": {"skill_id": "slow"}});
    let v = s.rpc("SendMessage", msg(describe.clone())).await;
    let t = task_of(&v);
    assert_eq!(t["status"]["state"], "TASK_STATE_COMPLETED", "{v}");
    assert_eq!(t["artifacts"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(version_of(&store, t).await, (1, "Completed".into()));
    // What a reader gets back is what the answer said.
    let got = s.rpc("GetTask", json!({"id": t["id"]})).await;
    assert_eq!(got["result"], *t);

    // Refused before any skill: one write too, with the same error object as before.
    let unserved = json!({"skill": "describe_skill", "arguments": {"skill_id": "nope"}});
    let v = s.rpc("SendMessage", msg(unserved)).await;
    let t = task_of(&v);
    assert_eq!(t["status"]["state"], "TASK_STATE_FAILED", "{v}");
    assert!(v.to_string().contains("interface_unavailable"), "{v}");
    assert_eq!(version_of(&store, t).await, (1, "Failed".into()));

    // A blocking domain skill that only observes: stored when it ends, created finished.
    let v = s
        .rpc("SendMessage", msg(request(&card, "slow", json!({"ms": 0}))))
        .await;
    let t = task_of(&v);
    assert_eq!(t["status"]["state"], "TASK_STATE_COMPLETED", "{v}");
    assert_eq!(version_of(&store, t).await, (1, "Completed".into()));
    assert_eq!(t["history"].as_array().map(Vec::len), Some(1), "{v}");
    let got = s.rpc("GetTask", json!({"id": t["id"]})).await;
    assert_eq!(got["result"], *t);

    // One that may act (authority mode `execute`): admitted before it is stored, so created
    // WORKING, then finished (not SUBMITTED, WORKING, finished).
    let v = s
        .rpc(
            "SendMessage",
            msg(request(&card, "restart_interface", json!({}))),
        )
        .await;
    let t = task_of(&v);
    assert_eq!(t["status"]["state"], "TASK_STATE_COMPLETED", "{v}");
    assert_eq!(version_of(&store, t).await, (2, "Completed".into()));

    // Progress reported while it runs is a write: the first one creates the task WORKING.
    let v = s
        .rpc(
            "SendMessage",
            msg(request(&card, "slow", json!({"ms": 0, "progress": "half"}))),
        )
        .await;
    let t = task_of(&v);
    assert_eq!(t["status"]["state"], "TASK_STATE_COMPLETED", "{v}");
    assert_eq!(version_of(&store, t).await, (2, "Completed".into()));

    // Refused by its gate: stored refused in one write, with the gate's error object.
    let v = s
        .rpc("SendMessage", msg(request(&card, "slow", json!([1]))))
        .await;
    let t = task_of(&v);
    assert_eq!(t["status"]["state"], "TASK_STATE_REJECTED", "{v}");
    assert!(v.to_string().contains("input_invalid"), "{v}");
    assert_eq!(version_of(&store, t).await, (1, "Rejected".into()));
    let got = s.rpc("GetTask", json!({"id": t["id"]})).await;
    assert_eq!(got["result"], *t);

    // A streamed domain skill keeps every state: SUBMITTED first, then WORKING.
    let body = json!({"jsonrpc": "2.0", "id": "d", "method": "SendStreamingMessage",
        "params": msg(request(&card, "slow", json!({"ms": 0})))});
    let (status, _, text) = s
        .post_raw(
            "/",
            body.to_string(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert_eq!(status, 200);
    assert!(text.contains("TASK_STATE_SUBMITTED"), "{text}");
    assert!(text.contains("TASK_STATE_WORKING"), "{text}");
    assert!(text.contains("TASK_STATE_COMPLETED"), "{text}");

    // A stream wants every state: its describe_skill is created, then finished.
    let body = json!({"jsonrpc": "2.0", "id": "s", "method": "SendStreamingMessage",
        "params": msg(describe)});
    let (status, _, text) = s
        .post_raw(
            "/",
            body.to_string(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert_eq!(status, 200);
    let events = sse_events(&text);
    assert_eq!(
        events[0]["result"]["task"]["status"]["state"], "TASK_STATE_SUBMITTED",
        "{text}"
    );
    let streamed = &events[0]["result"]["task"];
    let (version, state) = version_of(&store, streamed).await;
    assert!(version > 1, "{version}");
    assert_eq!(state, "Completed");
    s.shutdown().await;
}

/// A deferred task whose caller's wait runs out is stored then, WORKING, so the answer's task
/// can be read while it runs and after it ends.
#[tokio::test]
async fn a_deferred_task_is_stored_when_the_wait_runs_out() {
    let store = Arc::new(MemoryStore::new(StoreLimits::memory()));
    let config = ServerConfig {
        store: Some(store.clone() as Arc<dyn TaskStore>),
        request_timeout: std::time::Duration::from_millis(50),
        ..Default::default()
    };
    let s = Server::start(agent(), config).await;
    let card = s.card().await;
    let v = s
        .rpc(
            "SendMessage",
            msg(request(&card, "slow", json!({"ms": 250}))),
        )
        .await;
    let t = task_of(&v);
    assert_eq!(t["status"]["state"], "TASK_STATE_WORKING", "{v}");
    let got = s.rpc("GetTask", json!({"id": t["id"]})).await;
    assert_eq!(
        got["result"]["status"]["state"], "TASK_STATE_WORKING",
        "{got}"
    );
    let mut state = String::new();
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let got = s.rpc("GetTask", json!({"id": t["id"]})).await;
        state = got["result"]["status"]["state"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if state == "TASK_STATE_COMPLETED" {
            break;
        }
    }
    assert_eq!(state, "TASK_STATE_COMPLETED");
    assert_eq!(version_of(&store, t).await, (2, "Completed".into()));
    s.shutdown().await;
}

/// A deferred task the store refuses when it ends (the store is full of unfinished tasks) is
/// answered with the store's refusal, as a create refused up front is, and nothing is stored.
#[tokio::test]
async fn a_deferred_task_the_store_refuses_is_answered_with_the_refusal() {
    let limits = StoreLimits {
        max_bytes: 6_000,
        ..StoreLimits::memory()
    };
    let store = Arc::new(MemoryStore::new(limits));
    let config = ServerConfig {
        store: Some(store.clone() as Arc<dyn TaskStore>),
        ..Default::default()
    };
    let s = Server::start(agent(), config).await;
    let card = s.card().await;
    // Unfinished tasks that may not be evicted fill the store.
    let mut held = 0;
    loop {
        let mut p = msg(request(&card, "wait", json!({"ms": 5_000})));
        p["configuration"] = json!({"returnImmediately": true});
        let v = s.rpc("SendMessage", p).await;
        if v.get("error").is_some() {
            break;
        }
        held += 1;
        assert!(held < 50, "the store never filled: {v}");
    }
    assert!(held > 0);
    let before = store.used_bytes().await.unwrap();
    let v = s
        .rpc("SendMessage", msg(request(&card, "slow", json!({"ms": 0}))))
        .await;
    assert!(v.to_string().contains("task store is full"), "{v}");
    assert_eq!(store.used_bytes().await.unwrap(), before, "nothing stored");
    s.shutdown().await;
}

/// A deferred task that runs longer than its grace period is stored WORKING while its caller
/// still waits: another caller can list it and cancel it, and the waiting caller's answer says
/// so.
#[tokio::test]
async fn a_deferred_task_that_runs_long_can_be_found_and_canceled() {
    let s = Server::start(agent(), ServerConfig::default()).await;
    let card = s.card().await;
    let server = &s;
    // The blocking call and, while it waits, another caller finding and canceling its task.
    let (answer, id) = tokio::join!(
        s.rpc(
            "SendMessage",
            msg(request(&card, "wait", json!({"ms": 10_000})))
        ),
        async move {
            let id = eventually(std::time::Duration::from_secs(5), || async move {
                let l = server.rpc("ListTasks", json!({})).await;
                l["result"]["tasks"][0]["id"].as_str().map(str::to_owned)
            })
            .await;
            let c = server.rpc("CancelTask", json!({"id": id})).await;
            assert_eq!(c["result"]["status"]["state"], "TASK_STATE_CANCELED", "{c}");
            id
        }
    );
    assert_eq!(task_of(&answer)["id"], id.as_str());
    assert_eq!(
        task_of(&answer)["status"]["state"],
        "TASK_STATE_CANCELED",
        "{answer}"
    );
    s.shutdown().await;
}

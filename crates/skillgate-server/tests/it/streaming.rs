//! SendStreamingMessage event order and handler progress reports.

use crate::common::*;
use crate::jsonrpc::code_of;
use serde_json::{json, Value};

#[tokio::test]
async fn a_handler_reports_progress_as_a_working_status_with_its_message() {
    let s = start_server().await;
    let card = s.card().await;
    let body = json!({"jsonrpc": "2.0", "id": "p1", "method": "SendStreamingMessage",
        "params": msg(request(&card, "slow", json!({"ms": 20, "progress": "halfway there"})))});
    let (status, _, text) = s
        .post_raw(
            "/",
            body.to_string(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert_eq!(status, 200);
    let states: Vec<(String, Option<String>)> = sse_events(&text)
        .iter()
        .filter_map(|e| e["result"].get("statusUpdate"))
        .map(|u| {
            let st = &u["status"];
            let text = st["message"]["parts"][0]["text"]
                .as_str()
                .map(str::to_owned);
            (st["state"].as_str().unwrap().to_owned(), text)
        })
        .collect();
    assert_eq!(
        states,
        vec![
            ("TASK_STATE_WORKING".to_owned(), None),
            (
                "TASK_STATE_WORKING".to_owned(),
                Some("halfway there".to_owned())
            ),
            ("TASK_STATE_COMPLETED".to_owned(), None),
        ],
        "{text}"
    );
    // The report is kept with the task: GetTask's history has the progress message.
    let id = sse_events(&text)[0]["result"]["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let got = s.rpc("GetTask", json!({"id": id})).await;
    assert!(got.to_string().contains("halfway there"), "{got}");
    s.shutdown().await;
}

#[tokio::test]
async fn streaming_sends_task_then_records_then_result_then_status() {
    let s = start_server().await;
    let card = s.card().await;
    let body = json!({"jsonrpc": "2.0", "id": "s1", "method": "SendStreamingMessage",
        "params": msg(request(&card, "evaluate_resource_condition", observe_args()))});
    let (status, headers, text) = s
        .post_raw(
            "/",
            body.to_string(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert_eq!(status, 200);
    assert!(headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let evs = sse_events(&text);
    assert!(evs.iter().all(|e| e["jsonrpc"] == "2.0" && e["id"] == "s1"));
    let results: Vec<&Value> = evs.iter().map(|e| &e["result"]).collect();
    assert!(
        results[0].get("task").is_some(),
        "first event is the task: {text}"
    );
    let arts: Vec<&Value> = results
        .iter()
        .filter_map(|r| r.get("artifactUpdate"))
        .collect();
    assert_eq!(arts.len(), 3);
    assert_eq!(arts[0]["artifact"]["name"], "resource-observation");
    assert_eq!(arts[1]["artifact"]["name"], "resource-observation");
    assert_eq!(arts[2]["artifact"]["name"], "evaluate_resource_condition");
    let last = results.last().unwrap();
    assert_eq!(
        last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{text}"
    );
    let pos_last_art = results
        .iter()
        .rposition(|r| r.get("artifactUpdate").is_some())
        .unwrap();
    assert!(pos_last_art < results.len() - 1);
    // A rejected request streams task then the terminal status.
    let mut args = observe_args();
    args["condition"]["threshold"] = json!("x");
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "SendStreamingMessage",
        "params": msg(request(&card, "evaluate_resource_condition", args))});
    let (_, _, text) = s
        .post_raw(
            "/",
            body.to_string(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    let evs = sse_events(&text);
    let last = &evs.last().unwrap()["result"]["statusUpdate"]["status"];
    assert_eq!(last["state"], "TASK_STATE_REJECTED");
    assert_eq!(last["message"]["parts"][0]["data"]["code"], "input_invalid");
    // Errors found before streaming starts are plain JSON-RPC errors.
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "SendStreamingMessage", "params": {"message": {"messageId": "x", "role": "ROLE_USER", "parts": []}}});
    let (_, headers, text) = s
        .post_raw(
            "/",
            body.to_string(),
            &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
        )
        .await;
    assert!(headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/json"));
    assert_eq!(code_of(&serde_json::from_str(&text).unwrap()), -32602);
    s.shutdown().await;
}

/// Event frames leave at once: the server's sockets do not hold a small write back for the
/// client's delayed ACK (Nagle), which made every streamed call of a quick skill take about
/// 40 ms more than a blocking one. The median of 11 streamed calls stays far under that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_streamed_call_is_not_held_back_by_nagle() {
    let s = start_server().await;
    let card = s.card().await;
    let mut times = Vec::new();
    for i in 0..11 {
        let body = json!({"jsonrpc": "2.0", "id": i, "method": "SendStreamingMessage",
            "params": msg(request(&card, "slow", json!({"ms": 0})))});
        let t = std::time::Instant::now();
        let (status, _, text) = s
            .post_raw(
                "/",
                body.to_string(),
                &[("A2A-Version", "1.0"), ("Content-Type", "application/json")],
            )
            .await;
        times.push(t.elapsed());
        assert_eq!(status, 200);
        assert!(text.contains("TASK_STATE_COMPLETED"), "{text}");
    }
    times.sort();
    assert!(
        times[5] < std::time::Duration::from_millis(25),
        "median streamed call {:?} (all: {times:?})",
        times[5]
    );
}

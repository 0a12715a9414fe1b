//! The JSON and event-stream endpoints the console script uses on the inspector: a validated
//! call, a conformance run with progress, and the relay of a remote task's live events.

use crate::pages::client_error;
use crate::state::{lock, AppState};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use skillgate_client::{Client, ClientConfig, ClientError, EventSink, Mode, Step};
use skillgate_conformance::{Binding, Options, Outcome, ProbeConfig};
use skillgate_transport::TransportConfig;
use std::convert::Infallible;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::StreamExt;

#[derive(Deserialize)]
pub(crate) struct CallBody {
    agent: String,
    skill: String,
    #[serde(default)]
    arguments: Value,
}

/// A client error as the page's script reads it: the draft code, where and at which step it
/// happened, the message, the details (instance paths) and the task it concerns.
fn error_json(e: &ClientError) -> Value {
    let details = match e {
        ClientError::Local { details, .. } | ClientError::Remote { details, .. } => {
            serde_json::to_value(details).unwrap_or_default()
        }
        _ => json!([]),
    };
    json!({
        "code": e.code_str(),
        "message": e.message(),
        "where": e.where_().as_str(),
        "step": e.step().map(Step::number),
        "details": details,
        "task_id": e.task_id(),
    })
}

/// `POST /api/call`: all eleven steps of the validated client (input validated before
/// anything is sent, output and records after). Always 200 with `ok`: a refusal is an
/// answer the page shows, not a failure of the inspector.
pub(crate) async fn call(
    State(st): State<AppState>,
    headers: HeaderMap,
    Json(b): Json<CallBody>,
) -> Response {
    let client = match st.client(&headers, &b.agent) {
        Ok(c) => c,
        Err(e) => return Json(json!({"ok": false, "error": error_json(&e)})).into_response(),
    };
    let mut steps: Vec<String> = Vec::new();
    let mut obs =
        |s: Step, summary: &str| steps.push(format!("{} {}: {summary}", s.number(), s.name()));
    let outcome = client
        .call(&b.agent, &b.skill, &b.arguments, Mode::Sync, &mut obs)
        .await;
    let body = match outcome {
        Ok(r) => json!({
            "ok": true,
            "state": r.state.as_str(),
            "task_id": r.task_id,
            "output": r.output,
            "records": r.records,
            "steps": steps,
        }),
        Err(e) => json!({"ok": false, "error": error_json(&e), "steps": steps}),
    };
    Json(body).into_response()
}

#[derive(Deserialize)]
pub(crate) struct ConformanceBody {
    agent: String,
}

fn outcome_text(o: Outcome) -> String {
    match o {
        Outcome::Conformant => "conformant".to_owned(),
        Outcome::NotConformant => "not conformant".to_owned(),
        Outcome::NoAgent(f) => format!(
            "no agent to judge ({})",
            serde_json::to_value(f)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        ),
    }
}

/// `POST /api/conformance`: starts a run in the background and returns its id; the page
/// polls [`conformance_progress`].
pub(crate) async fn start_conformance(
    State(st): State<AppState>,
    headers: HeaderMap,
    Json(b): Json<ConformanceBody>,
) -> Response {
    let (id, cell) = st.new_run();
    let t = st.transport(&headers, &b.agent);
    let progress = std::sync::Arc::clone(&cell);
    let trace = skillgate_transport::Tracer::new(move |e| {
        let mut p = lock(&progress);
        p.requests += 1;
        // The trace's URL has credentials removed already.
        p.last = e.to_string();
    });
    let options = Options {
        probe: ProbeConfig::from_transport(TransportConfig {
            trace: Some(trace),
            ..t
        }),
        binding: None::<Binding>,
    };
    tokio::spawn(async move {
        let done = match skillgate_conformance::check(&b.agent, &options).await {
            Ok(report) => json!({
                "outcome": outcome_text(report.outcome()),
                "summary": report.summary(),
                "checks": report.checks,
                "notes": report.notes,
            }),
            Err(e) => json!({
                "outcome": format!("not started: {e}"),
                "summary": {"pass": 0, "fail": 0, "skip": 0, "required_failed": 0},
                "checks": [],
            }),
        };
        lock(&cell).done = Some(done);
    });
    Json(json!({"run": id})).into_response()
}

/// `GET /api/conformance/{id}`: requests made so far and the last one; once finished, the
/// outcome, the verdict counts and every check.
pub(crate) async fn conformance_progress(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> Response {
    let Some(cell) = st.run(&id) else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"message": "no such conformance run (runs are kept in memory, the newest 16)"})),
        )
            .into_response();
    };
    let r = lock(&cell);
    let mut v = json!({"done": r.done.is_some(), "requests": r.requests, "last": r.last});
    if let (Some(done), Some(obj)) = (&r.done, v.as_object_mut()) {
        if let Some(d) = done.as_object() {
            obj.extend(d.clone());
        }
    }
    Json(v).into_response()
}

#[derive(Deserialize)]
pub(crate) struct EventsQuery {
    agent: String,
    id: String,
}

/// `GET /api/task/events?agent=&id=`: the remote `SubscribeToTask`, relayed as server-sent
/// events (`data:` one A2A `StreamResponse` each), then one `end` event saying how it ended.
/// The relay stops when the browser goes away.
pub(crate) async fn task_events(
    State(st): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<EventsQuery>,
) -> Response {
    // Unbounded in count, bounded in bytes: the remote stream itself is cut at the
    // transport's response limit, and the relay ends when the browser goes away.
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let mut config = ClientConfig::from_transport(st.transport(&headers, &q.agent));
    let sink = tx.clone();
    config.events = Some(EventSink::new(move |ev| {
        let _ = sink.send(Event::default().data(serde_json::to_string(ev).unwrap_or_default()));
    }));
    tokio::spawn(async move {
        let follow = async {
            let client = Client::new(config)?;
            let (_, conn) = client.connect(&q.agent, &mut |_, _| {}).await?;
            conn.subscribe(&q.id).await
        };
        let end = tokio::select! {
            r = follow => match r {
                Ok(t) => format!("the stream ended: {}", t.status.state.as_str()),
                Err(e) => format!("no live events: {}", client_error(&e)),
            },
            _ = tx.closed() => return,
        };
        let _ = tx.send(Event::default().event("end").data(end));
    });
    let stream = UnboundedReceiverStream::new(rx).map(Ok::<_, Infallible>);
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

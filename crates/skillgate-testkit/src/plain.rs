//! A plain A2A 1.0 agent (JSON-RPC, no streaming, no schema-interface extension) for the
//! gateway's tests: a real axum server on 127.0.0.1:0 that adds two numbers, counts what
//! reaches it and can be told to answer wrongly.
//!
//! Skill [`SUM_SKILL`]: the message's Data Part `{"a": N, "b": N}` (or the same as JSON text)
//! becomes a COMPLETED task with an artifact `result` holding `{"sum": a+b}` and an artifact
//! `trace` holding `{"step": "added"}`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

/// The upstream skill's id.
pub const SUM_SKILL: &str = "sum";

/// A Skill Interface Document a gateway can govern [`SUM_SKILL`] with: input `{a, b}` numbers
/// (nothing else), output `{sum: number}`, one `trace` record kind `{step: string}`.
pub fn sum_document() -> skillgate_core::document::ValidatedDocument {
    skillgate_core::document::InterfaceBuilder::new(SUM_SKILL, "1.0")
        .input(
            "urn:test:sum:input",
            "1.0",
            json!({"type": "object", "required": ["a", "b"], "additionalProperties": false,
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}),
        )
        .output(
            "urn:test:sum:output",
            "1.0",
            json!({"type": "object", "required": ["sum"],
            "properties": {"sum": {"type": "number"}}}),
        )
        .record(
            "trace",
            "urn:test:sum:trace",
            "1.0",
            json!({"type": "object", "required": ["step"],
            "properties": {"step": {"type": "string"}}}),
        )
        .build()
        .unwrap()
}

/// How the upstream answers `SendMessage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// The right sum.
    Correct,
    /// `{"sum": "tampered"}`: a string where the gateway's output schema wants a number.
    Tampered,
    /// A FAILED task with the status message "upstream broke".
    Fails,
    /// A direct Message (no task) whose one Data Part is the result.
    MessageReply,
    /// Waits this long before answering.
    Slow(Duration),
}

/// What the upstream has seen and how it behaves.
#[derive(Debug)]
pub struct PlainState {
    /// Current behaviour.
    pub behaviour: Behaviour,
    /// Every SendMessage's message, in order.
    pub messages: Vec<Value>,
    /// The description its card gives [`SUM_SKILL`] (change it to make the card drift).
    pub description: String,
    /// Its base URL.
    pub base: String,
}

/// The running upstream.
pub struct PlainAgent {
    /// Shared with the server.
    pub state: Arc<Mutex<PlainState>>,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    stop: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    /// Fires once serving has ended and the listener is closed.
    down: Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
}

impl PlainAgent {
    /// Starts it on its own runtime thread.
    pub fn start() -> PlainAgent {
        let state = Arc::new(Mutex::new(PlainState {
            behaviour: Behaviour::Correct,
            messages: Vec::new(),
            description: "Adds two numbers".into(),
            base: String::new(),
        }));
        let (tx, rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let (down_tx, down_rx) = tokio::sync::oneshot::channel::<()>();
        let st = state.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let base = format!("http://{}", listener.local_addr().unwrap());
                st.lock().unwrap().base = base.clone();
                tx.send(base).unwrap();
                let app = Router::new()
                    .route("/.well-known/agent-card.json", get(card))
                    .route("/", post(rpc))
                    .with_state(st);
                axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stop_rx.await;
                    })
                    .await
                    .unwrap();
                // `serve` has returned: the listener is dropped, the port closed.
                let _ = down_tx.send(());
            });
        });
        let base = rx.recv().unwrap();
        PlainAgent {
            state,
            base,
            stop: Mutex::new(Some(stop_tx)),
            down: Mutex::new(Some(down_rx)),
        }
    }

    /// Stops serving: the port is closed, so the agent is down.
    pub fn stop(&self) {
        if let Some(tx) = self.stop.lock().unwrap().take() {
            let _ = tx.send(());
        }
    }

    /// Stops serving, as [`Self::stop`], and waits (10 s at most) until the server has shut
    /// down and its port is closed: a test that needs the agent down awaits this instead of
    /// sleeping.
    pub async fn stop_and_wait(&self) {
        self.stop();
        let down = self.down.lock().unwrap().take();
        if let Some(down) = down {
            tokio::time::timeout(std::time::Duration::from_secs(10), down)
                .await
                .expect("the plain agent shut down within 10 s")
                .expect("the plain agent's server thread ended without panicking");
        }
    }

    /// Sets the behaviour.
    pub fn behave(&self, b: Behaviour) {
        self.state.lock().unwrap().behaviour = b;
    }

    /// SendMessage requests received so far.
    pub fn calls(&self) -> usize {
        self.state.lock().unwrap().messages.len()
    }
}

type Shared = Arc<Mutex<PlainState>>;

async fn card(State(st): State<Shared>) -> Json<Value> {
    let s = st.lock().unwrap();
    Json(json!({
        "name": "plain upstream",
        "description": "A plain A2A agent",
        "version": "2.1.0",
        "provider": {"organization": "Upstream Inc", "url": "https://upstream.example"},
        "supportedInterfaces": [{"url": format!("{}/", s.base), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": false},
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": [
            {"id": SUM_SKILL, "name": "Sum", "description": s.description, "tags": ["math"], "examples": ["add 2 and 3"]},
            {"id": "hidden", "name": "Hidden", "description": "not governed", "tags": ["x"]}
        ]
    }))
}

fn task(id: &str, state: &str, message: Option<&str>, artifacts: Value) -> Value {
    let mut status = json!({"state": state});
    if let Some(m) = message {
        status["message"] =
            json!({"messageId": format!("{id}-m"), "role": "ROLE_AGENT", "parts": [{"text": m}]});
    }
    json!({"id": id, "contextId": "ctx", "status": status, "artifacts": artifacts})
}

async fn rpc(State(st): State<Shared>, Json(req): Json<Value>) -> Response {
    let id = req["id"].clone();
    let reply = |result: Value| Json(json!({"jsonrpc": "2.0", "id": id, "result": result}));
    match req["method"].as_str() {
        Some("SendMessage") => {}
        Some("GetTask") | Some("CancelTask") => {
            return Json(json!({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32001, "message": "Task not found"}})).into_response()
        }
        _ => return StatusCode::BAD_REQUEST.into_response(),
    }
    let message = req["params"]["message"].clone();
    let (behaviour, n) = {
        let mut s = st.lock().unwrap();
        s.messages.push(message.clone());
        (s.behaviour, s.messages.len())
    };
    let part = &message["parts"][0];
    let args = match (part.get("data"), part.get("text").and_then(Value::as_str)) {
        (Some(d), _) => d.clone(),
        (None, Some(t)) => serde_json::from_str(t).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
    let tid = format!("up-{n}");
    let artifacts = |result: Value| {
        json!([
            {"artifactId": "a-trace", "name": "trace", "parts": [{"data": {"step": "added"}}]},
            {"artifactId": "a-result", "name": "result", "parts": [{"data": result}]}
        ])
    };
    match behaviour {
        Behaviour::Correct => reply(json!({"task": task(&tid, "TASK_STATE_COMPLETED", None, artifacts(json!({"sum": sum})))})).into_response(),
        Behaviour::Slow(d) => {
            tokio::time::sleep(d).await;
            reply(json!({"task": task(&tid, "TASK_STATE_COMPLETED", None, artifacts(json!({"sum": sum})))})).into_response()
        }
        Behaviour::Tampered => reply(json!({"task": task(&tid, "TASK_STATE_COMPLETED", None, artifacts(json!({"sum": "tampered"})))})).into_response(),
        Behaviour::Fails => reply(json!({"task": task(&tid, "TASK_STATE_FAILED", Some("upstream broke"), json!([]))})).into_response(),
        Behaviour::MessageReply => reply(json!({"message": {"messageId": "r1", "role": "ROLE_AGENT", "parts": [{"data": {"sum": sum}}]}})).into_response(),
    }
}

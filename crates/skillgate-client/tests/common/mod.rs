//! A small, deliberately configurable A2A agent for tests: a real axum server on 127.0.0.1:0
//! that can be told to get the schema-interface contract wrong in one specific way.
//! Shared with the CLI's tests through `#[path]`.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::{json, Value};
use skillgate_core::document::{InterfaceBuilder, ValidatedDocument};
use skillgate_core::wire::EXTENSION_URI;
use skillgate_core::{digest, ErrorCode};

/// Skill id of the fake's domain skill.
pub const SKILL: &str = "check_threshold";
/// A second skill whose input is exactly `SKILL`'s output (composes directly).
pub const NEXT_SKILL: &str = "judge_verdict";
/// A skill whose input looks like `SKILL`'s output but has another schema version.
pub const LOOKALIKE_SKILL: &str = "judge_verdict_v2";

fn input_schema() -> Value {
    json!({"type": "object", "required": ["metric", "threshold"], "additionalProperties": false,
           "properties": {"metric": {"type": "string", "enum": ["rx", "tx"]}, "threshold": {"type": "number"}}})
}

fn output_schema() -> Value {
    json!({"type": "object", "required": ["verdict", "observation_ref"], "additionalProperties": false,
           "properties": {"verdict": {"type": "string", "enum": ["ok", "alarm"]}, "observation_ref": {"type": "string"}}})
}

/// A valid document for `skill` at `version` (input, output, one record kind).
pub fn document(skill: &str, version: &str) -> ValidatedDocument {
    match skill {
        NEXT_SKILL | LOOKALIKE_SKILL => {
            let v = if skill == NEXT_SKILL { "1.0" } else { "1.1" };
            InterfaceBuilder::new(skill, version)
                .input("urn:test:verdict", v, output_schema())
                .output("urn:test:judgement", "1.0", json!({"type": "object", "required": ["fine"],
                    "properties": {"fine": {"type": "boolean"}}}))
                .build()
                .unwrap()
        }
        _ => InterfaceBuilder::new(skill, version)
            .input("urn:test:threshold-request", "1.0", input_schema())
            .output("urn:test:verdict", "1.0", output_schema())
            .record("observation", "urn:test:observation", "1.0",
                json!({"type": "object", "required": ["value"], "properties": {"value": {"type": "number"}}}))
            .build()
            .unwrap(),
    }
}

/// What the domain skill does when called.
#[derive(Debug, Clone)]
pub enum Domain {
    /// Valid output plus one valid record.
    Valid,
    /// COMPLETED with an output that fails `output_schema`.
    BadOutput,
    /// COMPLETED with a valid output and a record that fails its schema.
    BadRecord,
    /// A terminal state with this error object in the final status message.
    Fail(&'static str, Value),
    /// A terminal state whose status has no error object.
    NoErrorObject(&'static str),
    /// COMPLETED with exactly these artifacts.
    Artifacts(Vec<Value>),
    /// WORKING on SendMessage; GetTask then returns the valid completed task.
    Deferred,
}

/// How a streaming answer misbehaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamMode {
    /// Artifact updates then the final status (no initial Task event).
    Normal,
    /// An initial Task event, then updates with the artifact split into two appended chunks.
    TaskFirstChunked,
    /// Closes while the task is still WORKING.
    NoTerminal,
    /// Sends `event: error` with a JSON-RPC error.
    ErrorEvent,
    /// Answers with a Message instead of a task.
    MessageEvent,
}

/// How the card endpoint answers.
#[derive(Debug, Clone)]
pub enum CardMode {
    /// The normal card.
    Normal,
    /// Raw bytes with a content type.
    Raw(&'static str, Vec<u8>),
    /// The normal card padded past `n` bytes, sent with a Content-Length.
    Oversized(usize),
    /// `n` bytes streamed in chunks without a Content-Length.
    OversizedChunked(usize),
    /// Redirects to itself forever.
    RedirectLoop,
    /// Redirects `n` times, then serves the normal card.
    Redirects(usize),
    /// Redirects to this absolute URL.
    RedirectTo(String),
    /// Answers after this delay.
    Slow(Duration),
}

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Received {
    /// Path.
    pub path: String,
    /// JSON-RPC method or REST path.
    pub method: String,
    /// Headers.
    pub headers: HeaderMap,
    /// The parsed body (Null for GET).
    pub body: Value,
}

impl Received {
    /// The skill request object in the message's Data Part.
    pub fn skill_request(&self) -> Value {
        let params = if self.body.get("jsonrpc").is_some() {
            &self.body["params"]
        } else {
            &self.body
        };
        params["message"]["parts"][0]["data"].clone()
    }
}

/// The fake's configuration and request log.
#[derive(Debug)]
pub struct FakeState {
    /// Base URL (set on start).
    pub base: String,
    /// Skills advertised: (id, version, digest).
    pub advertised: Vec<(String, String, String)>,
    /// Documents served by describe_skill, by skill id.
    pub documents: Vec<(String, Value)>,
    /// Override of the digest describe_skill returns.
    pub returned_digest: Option<String>,
    /// Whether the card carries the extension.
    pub extension: bool,
    /// Card behaviour.
    pub card: CardMode,
    /// Interfaces (`None` = one JSONRPC interface at /rpc).
    pub interfaces: Option<Value>,
    /// Domain behaviour.
    pub domain: Domain,
    /// describe_skill fails with this code.
    pub describe_fails: Option<ErrorCode>,
    /// Delay before every RPC answer.
    pub rpc_delay: Duration,
    /// Streaming behaviour.
    pub stream: StreamMode,
    /// Replaces the artifacts of a completed describe_skill task.
    pub describe_artifacts: Option<Vec<Value>>,
    /// Tasks GetTask will return, by id.
    pub deferred: Vec<(String, Value)>,
    /// Every request received.
    pub log: Vec<Received>,
    /// Task counter.
    pub next_task: u64,
}

/// A running fake agent.
#[derive(Clone)]
pub struct Fake {
    /// Its state.
    pub state: Arc<Mutex<FakeState>>,
    /// Its base URL.
    pub base: String,
}

impl Fake {
    /// Starts a fake advertising `SKILL` 1.0 with a valid document, on its own runtime thread.
    pub fn start() -> Fake {
        Self::start_with(|_| {})
    }

    /// Starts a fake after letting `configure` change the default state.
    pub fn start_with(configure: impl FnOnce(&mut FakeState)) -> Fake {
        let doc = document(SKILL, "1.0");
        let mut state = FakeState {
            base: String::new(),
            advertised: vec![(
                SKILL.into(),
                "1.0".into(),
                doc.interface_digest().to_string(),
            )],
            documents: vec![(SKILL.into(), doc.value().clone())],
            returned_digest: None,
            extension: true,
            card: CardMode::Normal,
            interfaces: None,
            domain: Domain::Valid,
            describe_fails: None,
            rpc_delay: Duration::ZERO,
            stream: StreamMode::Normal,
            describe_artifacts: None,
            deferred: Vec::new(),
            log: Vec::new(),
            next_task: 1,
        };
        configure(&mut state);
        let state = Arc::new(Mutex::new(state));
        let (tx, rx) = std::sync::mpsc::channel();
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
                let app = Router::new().fallback(handle).with_state(st);
                axum::serve(listener, app).await.unwrap();
            });
        });
        let base = rx.recv().unwrap();
        Fake { state, base }
    }

    /// Replaces the served document for `skill` and (optionally) what the card advertises.
    pub fn set_document(&self, skill: &str, doc: Value, advertise: bool) {
        let mut s = self.state.lock().unwrap();
        s.documents.retain(|(k, _)| k != skill);
        s.documents.push((skill.into(), doc.clone()));
        if advertise {
            let version = doc["skill_version"].as_str().unwrap_or("1.0").to_owned();
            s.advertised.retain(|(k, _, _)| k != skill);
            s.advertised
                .push((skill.into(), version, digest(&doc).to_string()));
        }
    }

    /// Adds a skill with its valid document, advertised.
    pub fn add_skill(&self, skill: &str) {
        let d = document(skill, "1.0");
        self.set_document(skill, d.value().clone(), true);
    }

    /// The requests received so far.
    pub fn log(&self) -> Vec<Received> {
        self.state.lock().unwrap().log.clone()
    }

    /// POSTs received (describe_skill and domain calls).
    pub fn posts(&self) -> Vec<Received> {
        self.log()
            .into_iter()
            .filter(|r| r.method != "GET")
            .collect()
    }

    /// Domain-skill requests received (anything but describe_skill).
    pub fn domain_calls(&self) -> usize {
        self.posts()
            .iter()
            .filter(|r| r.skill_request()["skill"] != "describe_skill")
            .count()
    }

    /// describe_skill requests received.
    pub fn describe_calls(&self) -> usize {
        self.posts()
            .iter()
            .filter(|r| r.skill_request()["skill"] == "describe_skill")
            .count()
    }
}

fn card(s: &FakeState) -> Value {
    let skills: Vec<Value> = s
        .advertised
        .iter()
        .map(|(id, v, d)| json!({"skill_id": id, "skill_version": v, "interface_digest": d}))
        .collect();
    let mut card_skills = vec![json!({"id": "describe_skill", "name": "Describe skill",
        "description": "Returns a skill's interface document", "tags": ["meta"]})];
    for (id, _, _) in &s.advertised {
        card_skills
            .push(json!({"id": id, "name": id, "description": "test skill", "tags": ["test"]}));
    }
    let extensions = if s.extension {
        json!([{"uri": EXTENSION_URI, "description": "schema interfaces",
                "params": {"interface_version": "1.0", "skills": skills}}])
    } else {
        json!([])
    };
    let interfaces = s.interfaces.clone().unwrap_or_else(|| {
        json!([{"url": format!("{}/rpc", s.base), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}])
    });
    json!({
        "name": "fake", "description": "a test agent that misbehaves on request", "version": "0.0.1",
        "supportedInterfaces": interfaces,
        "capabilities": {"streaming": true, "extensions": extensions},
        "defaultInputModes": ["application/json"], "defaultOutputModes": ["application/json"],
        "skills": card_skills
    })
}

fn json_response(v: &Value, ct: &str) -> Response {
    (
        StatusCode::OK,
        [("content-type", ct.to_owned())],
        serde_json::to_vec(v).unwrap(),
    )
        .into_response()
}

async fn handle(State(st): State<Arc<Mutex<FakeState>>>, req: Request) -> Response {
    let path = req.uri().path().to_owned();
    let headers = req.headers().clone();
    let http_method = req.method().clone();
    let bytes = axum::body::to_bytes(req.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let method = if http_method == axum::http::Method::GET {
        "GET".to_owned()
    } else {
        body.get("method")
            .and_then(Value::as_str)
            .unwrap_or(&path)
            .to_owned()
    };
    st.lock().unwrap().log.push(Received {
        path: path.clone(),
        method: method.clone(),
        headers,
        body: body.clone(),
    });

    if path.starts_with("/.well-known/") || path.starts_with("/hop") {
        let mode = st.lock().unwrap().card.clone();
        return card_response(&st, &path, mode).await;
    }
    let delay = st.lock().unwrap().rpc_delay;
    tokio::time::sleep(delay).await;
    let (params, rpc_id, stream) = if body.get("jsonrpc").is_some() {
        (
            body["params"].clone(),
            Some(body["id"].clone()),
            method == "SendStreamingMessage",
        )
    } else {
        (body.clone(), None, path.ends_with("message:stream"))
    };
    if method == "GetTask" || (http_method == axum::http::Method::GET && path.contains("/tasks/")) {
        let id = params["id"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| path.rsplit('/').next().unwrap_or("").to_owned());
        let task = st
            .lock()
            .unwrap()
            .deferred
            .iter()
            .find(|(k, _)| *k == id)
            .map(|(_, t)| t.clone());
        let task = task.unwrap_or(Value::Null);
        return match rpc_id {
            Some(rid) => json_response(
                &json!({"jsonrpc": "2.0", "id": rid, "result": task}),
                "application/json",
            ),
            None => json_response(&task, "application/a2a+json"),
        };
    }
    let request = params["message"]["parts"][0]["data"].clone();
    let task = run_task(&st, &request);
    let stream_mode = st.lock().unwrap().stream.clone();
    match (rpc_id, stream) {
        (Some(id), false) => json_response(
            &json!({"jsonrpc": "2.0", "id": id, "result": {"task": task}}),
            "application/json",
        ),
        (None, false) => json_response(&json!({"task": task}), "application/a2a+json"),
        (id, true) => {
            let (tid, ctx) = (task["id"].clone(), task["contextId"].clone());
            let mut events = Vec::new();
            let artifacts = task["artifacts"].as_array().cloned().unwrap_or_default();
            match stream_mode {
                StreamMode::Normal => {
                    // No initial Task event: a robust client must assemble the task from updates.
                    for a in artifacts {
                        events.push(json!({"artifactUpdate": {"taskId": tid, "contextId": ctx, "artifact": a, "lastChunk": true}}));
                    }
                    events.push(json!({"statusUpdate": {"taskId": tid, "contextId": ctx, "status": task["status"]}}));
                }
                StreamMode::TaskFirstChunked => {
                    events.push(json!({"task": {"id": tid, "contextId": ctx, "status": {"state": "TASK_STATE_SUBMITTED"}}}));
                    events.push(json!({"statusUpdate": {"taskId": tid, "contextId": ctx, "status": {"state": "TASK_STATE_WORKING"}}}));
                    for a in artifacts {
                        let parts = a["parts"].as_array().cloned().unwrap_or_default();
                        let mut first = a.clone();
                        first["parts"] = json!([{"text": "placeholder"}]);
                        events.push(json!({"artifactUpdate": {"taskId": tid, "contextId": ctx, "artifact": first}}));
                        // The second chunk replaces the placeholder (append: false) with the data.
                        events.push(json!({"artifactUpdate": {"taskId": tid, "contextId": ctx, "lastChunk": true,
                            "artifact": {"artifactId": a["artifactId"], "name": a["name"], "parts": parts}}}));
                    }
                    events.push(json!({"statusUpdate": {"taskId": tid, "contextId": ctx, "status": task["status"]}}));
                }
                StreamMode::NoTerminal => {
                    events.push(json!({"statusUpdate": {"taskId": tid, "contextId": ctx, "status": {"state": "TASK_STATE_WORKING"}}}));
                }
                StreamMode::ErrorEvent | StreamMode::MessageEvent => {}
            }
            let mut out = String::new();
            if stream_mode == StreamMode::ErrorEvent {
                let e = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "internal error"}});
                out.push_str(&format!("event: error\ndata: {e}\n\n"));
            }
            if stream_mode == StreamMode::MessageEvent {
                events.push(json!({"message": {"messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "hello"}]}}));
            }
            for e in events {
                let data = match &id {
                    Some(id) => json!({"jsonrpc": "2.0", "id": id, "result": e}),
                    None => e,
                };
                out.push_str(&format!("data: {data}\n\n"));
            }
            (StatusCode::OK, [("content-type", "text/event-stream")], out).into_response()
        }
    }
}

async fn card_response(st: &Arc<Mutex<FakeState>>, path: &str, mode: CardMode) -> Response {
    let normal = || json_response(&card(&st.lock().unwrap()), "application/json");
    match mode {
        CardMode::Normal => normal(),
        CardMode::Raw(ct, bytes) => (StatusCode::OK, [("content-type", ct)], bytes).into_response(),
        CardMode::Oversized(n) => {
            let mut c = card(&st.lock().unwrap());
            c["description"] = Value::from("x".repeat(n));
            json_response(&c, "application/json")
        }
        CardMode::OversizedChunked(n) => {
            let chunks: Vec<Result<Bytes, std::io::Error>> = (0..n.div_ceil(65536))
                .map(|_| Ok(Bytes::from(vec![b' '; 65536])))
                .collect();
            let stream = futures_util::stream::iter(chunks);
            (
                StatusCode::OK,
                [("content-type", "application/json")],
                Body::from_stream(stream),
            )
                .into_response()
        }
        CardMode::RedirectTo(url) => (StatusCode::FOUND, [("location", url)]).into_response(),
        CardMode::RedirectLoop => (
            StatusCode::FOUND,
            [("location", "/.well-known/agent-card.json")],
        )
            .into_response(),
        CardMode::Redirects(n) => {
            let hop: usize = path
                .strip_prefix("/hop")
                .and_then(|h| h.parse().ok())
                .unwrap_or(0);
            if hop < n {
                (
                    StatusCode::FOUND,
                    [("location", format!("/hop{}", hop + 1))],
                )
                    .into_response()
            } else {
                normal()
            }
        }
        CardMode::Slow(d) => {
            tokio::time::sleep(d).await;
            normal()
        }
    }
}

fn run_task(st: &Arc<Mutex<FakeState>>, request: &Value) -> Value {
    let mut s = st.lock().unwrap();
    let id = format!("task-{}", s.next_task);
    s.next_task += 1;
    let ctx = "ctx-1";
    let skill = request["skill"].as_str().unwrap_or("");
    let status = |state: &str, error: Option<Value>| match error {
        Some(e) => {
            json!({"state": state, "message": {"messageId": "m-err", "role": "ROLE_AGENT", "parts": [{"data": e, "mediaType": "application/json"}]}})
        }
        None => json!({"state": state}),
    };
    if skill == "describe_skill" {
        if let Some(code) = s.describe_fails {
            return json!({"id": id, "contextId": ctx, "status": status("TASK_STATE_FAILED", Some(json!({"code": code.as_str(), "message": "not available"})))});
        }
        let want = request["arguments"]["skill_id"].as_str().unwrap_or("");
        let Some((_, doc)) = s.documents.iter().find(|(k, _)| k == want) else {
            return json!({"id": id, "contextId": ctx, "status": status("TASK_STATE_FAILED", Some(json!({"code": "interface_unavailable"})))});
        };
        if let Some(arts) = s.describe_artifacts.clone() {
            return json!({"id": id, "contextId": ctx, "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": arts});
        }
        let d = s
            .returned_digest
            .clone()
            .unwrap_or_else(|| digest(doc).to_string());
        return json!({"id": id, "contextId": ctx, "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a-describe", "name": "describe_skill",
                "parts": [{"data": {"interface_digest": d, "skill_interface": doc}, "mediaType": "application/json"}]}]});
    }
    let art = |aid: &str, name: &str, data: Value| json!({"artifactId": aid, "name": name, "parts": [{"data": data, "mediaType": "application/json"}]});
    let completed = |artifacts: Vec<Value>| json!({"id": id, "contextId": ctx, "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": artifacts});
    if skill == NEXT_SKILL || skill == LOOKALIKE_SKILL {
        return completed(vec![art(
            "a-out",
            skill,
            json!({"fine": request["arguments"]["verdict"] == "ok"}),
        )]);
    }
    if matches!(s.domain, Domain::Deferred) {
        let done = completed(vec![
            art("rec-1", "observation", json!({"value": 1.5})),
            art(
                "a-out",
                skill,
                json!({"verdict": "ok", "observation_ref": "rec-1"}),
            ),
        ]);
        s.deferred.push((id.clone(), done));
        return json!({"id": id, "contextId": ctx, "status": {"state": "TASK_STATE_WORKING"}});
    }
    match &s.domain {
        Domain::Artifacts(a) => completed(a.clone()),
        Domain::Deferred => Value::Null,
        Domain::Valid => completed(vec![
            art("rec-1", "observation", json!({"value": 1.5})),
            art(
                "a-out",
                skill,
                json!({"verdict": "ok", "observation_ref": "rec-1"}),
            ),
        ]),
        Domain::BadOutput => completed(vec![art(
            "a-out",
            skill,
            json!({"verdict": 42, "observation_ref": "rec-1"}),
        )]),
        Domain::BadRecord => completed(vec![
            art("rec-1", "observation", json!({"value": "high"})),
            art(
                "a-out",
                skill,
                json!({"verdict": "ok", "observation_ref": "rec-1"}),
            ),
        ]),
        Domain::Fail(state, e) => {
            json!({"id": id, "contextId": ctx, "status": status(state, Some(e.clone()))})
        }
        Domain::NoErrorObject(state) => {
            json!({"id": id, "contextId": ctx, "status": status(state, None)})
        }
    }
}

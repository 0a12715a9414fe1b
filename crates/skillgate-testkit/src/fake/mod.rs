//! One deliberately configurable A2A 1.0 agent for tests: a real axum server on 127.0.0.1:0,
//! on its own runtime thread (so sync and async tests alike can start it), that logs every
//! request and can be told to get the schema-interface contract wrong in one specific way.
//!
//! Two presets cover the suites that use it:
//! - [`FakeAgent::start`] / [`FakeAgent::start_with`]: the client's fake, advertising [`SKILL`]
//!   and answering domain calls without checking them, so the *client* must catch every defect;
//! - [`FakeAgent::start_conformant`]: the conformance suite's fake, advertising [`PING_SKILL`]
//!   and checking requests like a conformant agent, with each [`Faults`] flag breaking exactly
//!   one rule of the draft for the *checker* to find.

mod stream;

use std::sync::{Arc, Mutex};
use std::time::Duration;
use stream::{sse, stream_response};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::{json, Value};
use skillgate_core::document::{Expectations, InterfaceBuilder, ValidatedDocument};
use skillgate_core::wire::EXTENSION_URI;
use skillgate_core::{digest, ErrorCode};

/// Skill id of the client preset's domain skill (input: metric + threshold, output: a verdict
/// referencing one `observation` record).
pub const SKILL: &str = "check_threshold";
/// A second skill whose input is exactly [`SKILL`]'s output schema, so the two compose directly.
pub const NEXT_SKILL: &str = "judge_verdict";
/// A skill whose input looks like [`SKILL`]'s output but names schema version 1.1: a chain from
/// [`SKILL`] to it must not compose.
pub const LOOKALIKE_SKILL: &str = "judge_verdict_v2";
/// Skill id of the conformance preset's skill (version 1.2, integer bounds, an if/then rule and
/// a `date-time` format, so generated probes have something to get wrong).
pub const PING_SKILL: &str = "ping_host";
/// The record kind [`PING_SKILL`] declares for its supporting Artifact.
pub const PING_RECORD: &str = "ping-sample";

fn input_schema() -> Value {
    json!({"type": "object", "required": ["metric", "threshold"], "additionalProperties": false,
           "properties": {"metric": {"type": "string", "enum": ["rx", "tx"]}, "threshold": {"type": "number"}}})
}

fn output_schema() -> Value {
    json!({"type": "object", "required": ["verdict", "observation_ref"], "additionalProperties": false,
           "properties": {"verdict": {"type": "string", "enum": ["ok", "alarm"]}, "observation_ref": {"type": "string"}}})
}

/// A valid document for `skill` at `version`: [`NEXT_SKILL`] and [`LOOKALIKE_SKILL`] take a
/// verdict, [`PING_SKILL`] is [`ping_document`] (whatever `version`), and any other id gets
/// [`SKILL`]'s shape (input, output and one `observation` record kind).
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
        PING_SKILL => ping_document(),
        _ => InterfaceBuilder::new(skill, version)
            .input("urn:test:threshold-request", "1.0", input_schema())
            .output("urn:test:verdict", "1.0", output_schema())
            .record("observation", "urn:test:observation", "1.0",
                json!({"type": "object", "required": ["value"], "properties": {"value": {"type": "number"}}}))
            .build()
            .unwrap(),
    }
}

/// [`SKILL`]'s input schema, for tests that redeploy the skill with a changed input.
pub fn threshold_input() -> Value {
    input_schema()
}

/// [`SKILL`]'s document at `version` with `input` as its input schema (output and record kind
/// as in [`document`]): a redeployment whose interface changed on the callers' side.
pub fn document_with_input(version: &str, input: Value) -> ValidatedDocument {
    InterfaceBuilder::new(SKILL, version)
        .input("urn:test:threshold-request", "1.0", input)
        .output("urn:test:verdict", "1.0", output_schema())
        .record("observation", "urn:test:observation", "1.0",
            json!({"type": "object", "required": ["value"], "properties": {"value": {"type": "number"}}}))
        .build()
        .unwrap()
}

/// [`PING_SKILL`] 1.2's document: every keyword is generatable by the conformance checker, and
/// it declares `max_input_bytes` 4096 and `max_duration_ms` 2000.
pub fn ping_document() -> ValidatedDocument {
    InterfaceBuilder::new(PING_SKILL, "1.2")
        .input(
            "urn:test:ping:input",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["host", "count", "mode"], "additionalProperties": false,
                "properties": {
                    "host": {"type": "string", "minLength": 1, "maxLength": 64},
                    "count": {"type": "integer", "minimum": 1, "maximum": 5},
                    "mode": {"enum": ["icmp", "tcp"]},
                    "port": {"type": "integer"},
                    "since": {"type": "string", "format": "date-time"}
                },
                "if": {"properties": {"mode": {"const": "tcp"}}, "required": ["mode"]},
                "then": {"required": ["port"]}}),
        )
        .output(
            "urn:test:ping:output",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["host", "reachable", "supporting_record_refs"],
                "properties": {"host": {"type": "string"}, "reachable": {"type": "boolean"},
                    "supporting_record_refs": {"type": "array", "items": {"type": "string"}}}}),
        )
        .record(
            PING_RECORD,
            "urn:test:ping:sample",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["observed_at", "rtt_ms"],
                "properties": {"observed_at": {"type": "string", "format": "date-time"},
                    "rtt_ms": {"type": "number", "minimum": 0}}}),
        )
        .constraints(skillgate_core::wire::Constraints {
            max_input_bytes: Some(4096),
            max_duration_ms: Some(2000),
            ..Default::default()
        })
        .build()
        .expect("the test document is valid")
}

/// What the domain skill answers once a call gets past the request checks (if any).
#[derive(Debug, Clone)]
pub enum Domain {
    /// COMPLETED with the skill's valid output and one valid record (per skill: [`SKILL`]'s
    /// verdict, [`NEXT_SKILL`]'s judgement, [`PING_SKILL`]'s reachability).
    Valid,
    /// COMPLETED with an output that fails [`SKILL`]'s output schema.
    BadOutput,
    /// COMPLETED with a valid output and a record that fails its schema.
    BadRecord,
    /// This terminal state, with this error object in the final status message.
    Fail(&'static str, Value),
    /// This terminal state with no error object in its status.
    NoErrorObject(&'static str),
    /// COMPLETED with exactly these artifacts, whatever was asked.
    Artifacts(Vec<Value>),
    /// WORKING on SendMessage; GetTask then returns the valid completed task.
    Deferred,
    /// WORKING on SendMessage and on every GetTask after it.
    NeverFinishes,
}

/// How a streaming answer misbehaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamMode {
    /// Artifact updates then the final status, with no initial Task event.
    Normal,
    /// An initial Task event, then updates with each artifact split into two chunks, the second
    /// replacing the first.
    TaskFirstChunked,
    /// Closes while the task is still WORKING (a SubscribeToTask then drops the same way).
    NoTerminal,
    /// Closes while the task is still WORKING; a SubscribeToTask of that task then streams it
    /// to its end (the task and its final status).
    DropThenResume,
    /// Sends `event: error` with a JSON-RPC error.
    ErrorEvent,
    /// Answers with a Message instead of a task.
    MessageEvent,
}

/// How the card endpoint (`/.well-known/agent-card.json` and `/hopN`) answers.
#[derive(Debug, Clone)]
pub enum CardMode {
    /// The card built from the state.
    Normal,
    /// These raw bytes with this content type.
    Raw(&'static str, Vec<u8>),
    /// The normal card with its description padded to `n` bytes, sent with a Content-Length.
    Oversized(usize),
    /// At least `n` bytes of blanks streamed in 64 KiB chunks without a Content-Length.
    OversizedChunked(usize),
    /// Redirects to itself forever.
    RedirectLoop,
    /// Redirects `n` times (via `/hop1` ... `/hopN`), then serves the normal card.
    Redirects(usize),
    /// Redirects to this absolute URL.
    RedirectTo(String),
    /// Serves the normal card after this delay.
    Slow(Duration),
}

/// One rule of the draft broken per flag; all `false` is a conformant agent. The flags only
/// act where [`FakeState::checks_requests`] makes the fake check requests, except those on
/// the card, describe_skill, error shapes and the echo, which act always.
#[derive(Debug, Clone, Copy, Default)]
pub struct Faults {
    /// The card advertises a digest one hex digit off the served document's.
    pub wrong_advertised_digest: bool,
    /// Requests naming a wrong skill_version / interface_digest are served anyway.
    pub mismatch_not_enforced: bool,
    /// Arguments are validated before the interface selection.
    pub input_before_mismatch: bool,
    /// The supporting record Artifact is named the skill id.
    pub record_named_skill_id: bool,
    /// Responses never echo the activated extension in `A2A-Extensions`.
    pub no_echo: bool,
    /// input_invalid errors carry no details.
    pub no_details: bool,
    /// describe_skill of an unknown skill completes with no artifacts.
    pub unknown_skill_completes: bool,
    /// Every valid call is refused with constraint_rejected.
    pub refuse_valid_calls: bool,
    /// The error status message is a text part instead of a Data Part.
    pub text_errors: bool,
    /// input_invalid errors echo the offending arguments in their message.
    pub echo_values: bool,
    /// Every integer in the described document is sent as a float (what protobuf-based SDKs
    /// do): still conformant, since JSON Schema and RFC 8785 read 5.0 as 5.
    pub floats_in_document: bool,
    /// A `count` argument written as a float (`2.0`) is refused, like a handler deserializing
    /// it as an unsigned integer would.
    pub refuse_integral_floats: bool,
}

/// One request the fake received, as it arrived.
#[derive(Debug, Clone)]
pub struct Received {
    /// The URL path (`/rpc`, `/rest/t1/message:send`, `/.well-known/agent-card.json`).
    pub path: String,
    /// The JSON-RPC method, `GET` for any GET, or else the path (HTTP+JSON).
    pub method: String,
    /// The request headers.
    pub headers: HeaderMap,
    /// The body parsed as JSON (`Null` for GET or a body that is not JSON).
    pub body: Value,
}

impl Received {
    /// The skill request object (skill, version, digest, arguments) in the message's first
    /// Data Part, for either binding; `Null` if there is none.
    pub fn skill_request(&self) -> Value {
        let params = if self.body.get("jsonrpc").is_some() {
            &self.body["params"]
        } else {
            &self.body
        };
        params["message"]["parts"][0]["data"].clone()
    }
}

/// The fake's configuration and request log; tests may change it while the fake runs (through
/// [`FakeAgent::state`]) and the next request sees the change.
#[derive(Debug)]
pub struct FakeState {
    /// The base URL, `http://127.0.0.1:<port>` (set once the listener is bound).
    pub base: String,
    /// Skills the card advertises in the extension: (id, version, digest).
    pub advertised: Vec<(String, String, String)>,
    /// Documents describe_skill serves, by skill id.
    pub documents: Vec<(String, Value)>,
    /// Overrides the digest describe_skill returns next to the document.
    pub returned_digest: Option<String>,
    /// Whether the card carries the schema-interface extension at all.
    pub extension: bool,
    /// How the card endpoint answers.
    pub card: CardMode,
    /// The card's `supportedInterfaces` (`None`: one JSONRPC interface at `{base}/rpc`).
    pub interfaces: Option<Value>,
    /// What domain calls answer.
    pub domain: Domain,
    /// describe_skill fails with this code.
    pub describe_fails: Option<ErrorCode>,
    /// Delay before every answer to a non-card request.
    pub rpc_delay: Duration,
    /// How streaming answers misbehave.
    pub stream: StreamMode,
    /// Replaces the artifacts of every completed describe_skill task.
    pub describe_artifacts: Option<Vec<Value>>,
    /// Whether domain calls are checked like a conformant agent would before [`Self::domain`]
    /// answers: unknown skill (interface_unavailable), stale skill_version / interface_digest
    /// (interface_mismatch), arguments against the served input schema (input_invalid with
    /// details). Off in the client preset, whose defects the client must catch itself.
    pub checks_requests: bool,
    /// The draft rules the fake breaks.
    pub faults: Faults,
    /// Tasks GetTask returns, by id (filled by [`Domain::Deferred`]).
    pub deferred: Vec<(String, Value)>,
    /// Tasks a SubscribeToTask streams to completion, by id (filled by
    /// [`StreamMode::DropThenResume`]).
    pub resumable: Vec<(String, Value)>,
    /// Every request received, card fetches included, in order.
    pub log: Vec<Received>,
    /// The number in the next task id (`task-N`); describe_skill tasks count too.
    pub next_task: u64,
}

/// A running fake agent; cloning shares the same server. The server lives until the test
/// process exits.
#[derive(Clone)]
pub struct FakeAgent {
    /// Its configuration and log, shared with the server.
    pub state: Arc<Mutex<FakeState>>,
    /// Its base URL, `http://127.0.0.1:<port>`.
    pub base: String,
}

impl FakeAgent {
    /// Starts the client preset: [`SKILL`] 1.0 advertised with its valid document, requests not
    /// checked, every answer valid.
    pub fn start() -> FakeAgent {
        Self::start_with(|_| {})
    }

    /// Starts the client preset after letting `configure` change its state.
    pub fn start_with(configure: impl FnOnce(&mut FakeState)) -> FakeAgent {
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
            checks_requests: false,
            faults: Faults::default(),
            deferred: Vec::new(),
            resumable: Vec::new(),
            log: Vec::new(),
            next_task: 1,
        };
        configure(&mut state);
        Self::launch(state)
    }

    /// Starts the conformance preset: [`PING_SKILL`] 1.2 advertised, requests checked like a
    /// conformant agent, and `faults` broken.
    pub fn start_conformant(faults: Faults) -> FakeAgent {
        Self::start_with(|s| {
            let doc = ping_document();
            s.advertised = vec![(
                PING_SKILL.into(),
                doc.skill_version().into(),
                doc.interface_digest().to_string(),
            )];
            s.documents = vec![(PING_SKILL.into(), doc.value().clone())];
            s.checks_requests = true;
            s.faults = faults;
        })
    }

    fn launch(state: FakeState) -> FakeAgent {
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
        FakeAgent { state, base }
    }

    /// Replaces the document describe_skill serves for `skill`; with `advertise`, the card then
    /// advertises that document's `skill_version` and digest too (else it keeps the old ones).
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

    /// Adds `skill` with its valid [`document`] 1.0, advertised.
    pub fn add_skill(&self, skill: &str) {
        let d = document(skill, "1.0");
        self.set_document(skill, d.value().clone(), true);
    }

    /// A copy of every request received so far, card fetches included.
    pub fn log(&self) -> Vec<Received> {
        self.state.lock().unwrap().log.clone()
    }

    /// The non-GET requests received so far: describe_skill and domain calls.
    pub fn posts(&self) -> Vec<Received> {
        self.log()
            .into_iter()
            .filter(|r| r.method != "GET")
            .collect()
    }

    /// How many domain-skill messages arrived (SendMessage or SendStreamingMessage, either
    /// binding, not naming describe_skill).
    pub fn domain_calls(&self) -> usize {
        // Messages only: a SubscribeToTask or CancelTask is not a delegation.
        self.posts()
            .iter()
            .filter(|r| {
                matches!(r.method.as_str(), "SendMessage" | "SendStreamingMessage")
                    || r.path.ends_with("message:send")
                    || r.path.ends_with("message:stream")
            })
            .filter(|r| r.skill_request()["skill"] != "describe_skill")
            .count()
    }

    /// How many describe_skill requests arrived.
    pub fn describe_calls(&self) -> usize {
        self.posts()
            .iter()
            .filter(|r| r.skill_request()["skill"] == "describe_skill")
            .count()
    }
}

/// The same value with every integer rewritten as a float (`5` -> `5.0`).
fn as_floats(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => {
            serde_json::Number::from_f64(n.as_f64().unwrap())
                .map(Value::Number)
                .unwrap()
        }
        Value::Array(a) => Value::Array(a.iter().map(as_floats).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), as_floats(x))).collect())
        }
        _ => v.clone(),
    }
}

fn card(s: &FakeState) -> Value {
    let skills: Vec<Value> = s
        .advertised
        .iter()
        .map(|(id, v, d)| {
            let mut d = d.clone();
            if s.faults.wrong_advertised_digest {
                let last = if d.ends_with('0') { "1" } else { "0" };
                d.pop();
                d.push_str(last);
            }
            json!({"skill_id": id, "skill_version": v, "interface_digest": d})
        })
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
        headers: headers.clone(),
        body: body.clone(),
    });

    if path.starts_with("/.well-known/") || path.starts_with("/hop") {
        let mode = st.lock().unwrap().card.clone();
        return card_response(&st, &path, mode).await;
    }
    let mut response = answer(&st, &path, &http_method, &method, &body).await;
    // A conformant agent echoes the extension it activated.
    let activated = headers
        .get("a2a-extensions")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|u| u.trim() == EXTENSION_URI));
    if activated && !st.lock().unwrap().faults.no_echo {
        response
            .headers_mut()
            .insert("a2a-extensions", HeaderValue::from_static(EXTENSION_URI));
    }
    response
}

async fn answer(
    st: &Arc<Mutex<FakeState>>,
    path: &str,
    http_method: &axum::http::Method,
    method: &str,
    body: &Value,
) -> Response {
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
    if method == "SubscribeToTask"
        || (http_method == axum::http::Method::GET && path.ends_with(":subscribe"))
    {
        let id = params["id"].as_str().map(str::to_owned).unwrap_or_else(|| {
            path.rsplit('/')
                .next()
                .unwrap_or("")
                .trim_end_matches(":subscribe")
                .to_owned()
        });
        let found = st
            .lock()
            .unwrap()
            .resumable
            .iter()
            .find(|(k, _)| *k == id)
            .map(|(_, t)| t.clone());
        return match found {
            Some(task) => {
                let status = json!({"statusUpdate": {"taskId": task["id"], "contextId": task["contextId"], "status": task["status"]}});
                sse(rpc_id, vec![json!({"task": task}), status])
            }
            None => sse(
                rpc_id,
                vec![
                    json!({"statusUpdate": {"taskId": id, "contextId": "ctx", "status": {"state": "TASK_STATE_WORKING"}}}),
                ],
            ),
        };
    }
    let request = params["message"]["parts"][0]["data"].clone();
    let task = run_task(st, &request);
    let stream_mode = st.lock().unwrap().stream.clone();
    if stream_mode == StreamMode::DropThenResume {
        st.lock()
            .unwrap()
            .resumable
            .push((task["id"].as_str().unwrap_or("").to_owned(), task.clone()));
    }
    match (rpc_id, stream) {
        (Some(id), false) => json_response(
            &json!({"jsonrpc": "2.0", "id": id, "result": {"task": task}}),
            "application/json",
        ),
        (None, false) => json_response(&json!({"task": task}), "application/a2a+json"),
        (id, true) => stream_response(id, &task, &stream_mode),
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

fn error(code: &str, message: &str) -> Value {
    json!({"code": code, "message": message})
}

fn run_task(st: &Arc<Mutex<FakeState>>, request: &Value) -> Value {
    let mut s = st.lock().unwrap();
    let id = format!("task-{}", s.next_task);
    s.next_task += 1;
    let ctx = "ctx-1";
    let faults = s.faults;
    let skill = request["skill"].as_str().unwrap_or("");
    let status = |state: &str, error: Option<Value>| match error {
        Some(e) => {
            let part = if faults.text_errors {
                json!({"text": e.to_string()})
            } else {
                json!({"data": e, "mediaType": "application/json"})
            };
            json!({"state": state, "message": {"messageId": "m-err", "role": "ROLE_AGENT", "parts": [part]}})
        }
        None => json!({"state": state}),
    };
    let ended = |state: &str, e: Value| json!({"id": id, "contextId": ctx, "status": status(state, Some(e))});
    if skill == "describe_skill" {
        if let Some(code) = s.describe_fails {
            return ended("TASK_STATE_FAILED", error(code.as_str(), "not available"));
        }
        let want = request["arguments"]["skill_id"].as_str().unwrap_or("");
        let Some((_, doc)) = s.documents.iter().find(|(k, _)| k == want) else {
            if faults.unknown_skill_completes {
                return json!({"id": id, "contextId": ctx, "status": {"state": "TASK_STATE_COMPLETED"}});
            }
            return ended(
                "TASK_STATE_FAILED",
                error("interface_unavailable", "no such skill"),
            );
        };
        if let Some(arts) = s.describe_artifacts.clone() {
            return json!({"id": id, "contextId": ctx, "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": arts});
        }
        let d = s
            .returned_digest
            .clone()
            .unwrap_or_else(|| digest(doc).to_string());
        let doc = if faults.floats_in_document {
            as_floats(doc)
        } else {
            doc.clone()
        };
        return json!({"id": id, "contextId": ctx, "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a-describe", "name": "describe_skill",
                "parts": [{"data": {"interface_digest": d, "skill_interface": doc}, "mediaType": "application/json"}]}]});
    }
    if s.checks_requests {
        if let Some((state, e)) = check_request(&s, skill, request) {
            return ended(state, e);
        }
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
    if skill == PING_SKILL && matches!(s.domain, Domain::Valid) {
        let record_name = if faults.record_named_skill_id {
            PING_SKILL
        } else {
            PING_RECORD
        };
        return completed(vec![
            art(
                "a-out",
                PING_SKILL,
                json!({"host": request["arguments"]["host"], "reachable": true, "supporting_record_refs": ["a-rec"]}),
            ),
            art(
                "a-rec",
                record_name,
                json!({"observed_at": "2026-12-02T00:00:00Z", "rtt_ms": 0.25}),
            ),
        ]);
    }
    if matches!(s.domain, Domain::NeverFinishes) {
        let working =
            json!({"id": id, "contextId": ctx, "status": {"state": "TASK_STATE_WORKING"}});
        s.deferred.push((id.clone(), working.clone()));
        return working;
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
        Domain::Deferred | Domain::NeverFinishes => Value::Null,
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

/// The terminal state and error a conformant agent (as broken by `s.faults`) refuses a domain
/// call with, if it does.
fn check_request(s: &FakeState, skill: &str, request: &Value) -> Option<(&'static str, Value)> {
    const REJECTED: &str = "TASK_STATE_REJECTED";
    let f = s.faults;
    let Some(doc) = s
        .documents
        .iter()
        .find(|(k, _)| k == skill)
        .and_then(|(_, d)| ValidatedDocument::from_value(d, &Expectations::default()).ok())
    else {
        return Some((
            "TASK_STATE_FAILED",
            error("interface_unavailable", "no such skill"),
        ));
    };
    let args = &request["arguments"];
    let input_check = || -> Option<Value> {
        let details = doc.input_validator().validate(args).err()?;
        let mut e = error("input_invalid", "arguments do not match the input schema");
        if !f.no_details {
            e["details"] = serde_json::to_value(&details).unwrap();
        }
        if f.echo_values {
            e["message"] = json!(format!("bad arguments: {args}"));
        }
        Some(e)
    };
    if f.input_before_mismatch {
        if let Some(e) = input_check() {
            return Some((REJECTED, e));
        }
    }
    if !f.mismatch_not_enforced {
        let version_ok = request["skill_version"] == doc.skill_version();
        let digest_ok = request["interface_digest"] == doc.interface_digest().to_string().as_str();
        if !version_ok || !digest_ok {
            return Some((
                REJECTED,
                error("interface_mismatch", "not the active interface"),
            ));
        }
    }
    if let Some(e) = input_check() {
        return Some((REJECTED, e));
    }
    if f.refuse_integral_floats && args["count"].is_f64() {
        return Some((
            REJECTED,
            error(
                "input_invalid",
                "invalid type: floating point, expected u64",
            ),
        ));
    }
    if f.refuse_valid_calls {
        return Some((
            REJECTED,
            error(
                "constraint_rejected",
                "this host is not reachable from here",
            ),
        ));
    }
    None
}

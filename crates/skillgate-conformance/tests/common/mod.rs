//! A small, deliberately breakable schema-interface agent: a real axum server on 127.0.0.1:0
//! speaking A2A 1.0 JSON-RPC, with one skill whose document comes from core's
//! `InterfaceBuilder`. Each `Faults` flag breaks exactly one rule of the draft.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use skillgate_core::document::{InterfaceBuilder, ValidatedDocument};
use skillgate_core::wire::EXTENSION_URI;

/// One rule broken per flag.
#[derive(Debug, Clone, Copy, Default)]
pub struct Faults {
    /// The card has no schema-interface extension.
    pub no_extension: bool,
    /// The card advertises a digest that is not the served document's.
    pub wrong_advertised_digest: bool,
    /// Requests naming a wrong skill_version / interface_digest are served anyway.
    pub mismatch_not_enforced: bool,
    /// Arguments are validated before the interface selection.
    pub input_before_mismatch: bool,
    /// The supporting record Artifact is named the skill id.
    pub record_named_skill_id: bool,
    /// Responses never carry A2A-Extensions.
    pub no_echo: bool,
    /// input_invalid errors carry no details.
    pub no_details: bool,
    /// Unknown skills in describe_skill complete with an empty artifact list.
    pub unknown_skill_completes: bool,
    /// The agent refuses every valid call with constraint_rejected.
    pub refuse_valid_calls: bool,
    /// The error status message is a text part instead of a Data Part.
    pub text_errors: bool,
    /// input_invalid errors echo the offending value.
    pub echo_values: bool,
    /// Every integer in the describe_skill document is sent as a float (what protobuf-based
    /// SDKs do): still conformant, since JSON Schema and RFC 8785 read 5.0 as 5.
    pub floats_in_document: bool,
    /// The handler deserializes `count` as an unsigned integer and refuses `2.0`.
    pub refuse_integral_floats: bool,
}

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

pub const SKILL: &str = "ping_host";
pub const RECORD: &str = "ping-sample";

pub fn document() -> ValidatedDocument {
    InterfaceBuilder::new(SKILL, "1.2")
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
            RECORD,
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

struct AppState {
    faults: Faults,
    doc: ValidatedDocument,
    base: String,
    sends: AtomicUsize,
}

/// A running fake agent.
pub struct FakeAgent {
    pub base: String,
    state: Arc<AppState>,
}

impl FakeAgent {
    /// How many SendMessage requests it served.
    pub fn sends(&self) -> usize {
        self.state.sends.load(Ordering::SeqCst)
    }
}

pub async fn start(faults: Faults) -> FakeAgent {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state = Arc::new(AppState {
        faults,
        doc: document(),
        base: base.clone(),
        sends: AtomicUsize::new(0),
    });
    let app = Router::new()
        .route("/.well-known/agent-card.json", get(card))
        .route("/", post(rpc))
        .with_state(state.clone());
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    FakeAgent { base, state }
}

/// A server that answers the card path with HTML (not an A2A agent).
pub async fn start_not_a2a() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = Router::new().route(
        "/.well-known/agent-card.json",
        get(|| async { ([("content-type", "text/html")], "<html>hello</html>") }),
    );
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    base
}

async fn card(State(s): State<Arc<AppState>>) -> Json<Value> {
    let mut digest = s.doc.interface_digest().to_string();
    if s.faults.wrong_advertised_digest {
        let last = if digest.ends_with('0') { "1" } else { "0" };
        digest.pop();
        digest.push_str(last);
    }
    let mut extensions = Vec::new();
    if !s.faults.no_extension {
        extensions.push(json!({"uri": EXTENSION_URI, "description": "schema interfaces",
            "params": {"interface_version": "1.0",
                "skills": [{"skill_id": SKILL, "skill_version": s.doc.skill_version(), "interface_digest": digest}]}}));
    }
    Json(json!({
        "name": "fake", "description": "a deliberately breakable agent", "version": "0.0.1",
        "supportedInterfaces": [{"url": format!("{}/", s.base), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": false, "extensions": extensions},
        "defaultInputModes": ["application/json"], "defaultOutputModes": ["application/json"],
        "skills": [
            {"id": "describe_skill", "name": "Describe skill", "description": "interfaces", "tags": ["meta"]},
            {"id": SKILL, "name": "Ping", "description": "pings a host", "tags": ["net"]}
        ]
    }))
}

fn task(state: &str, artifacts: Vec<Value>, error: Option<Value>, text_errors: bool) -> Value {
    let mut status = json!({"state": state, "timestamp": "2026-12-02T00:00:00Z"});
    if let Some(e) = error {
        let part = if text_errors {
            json!({"text": e.to_string()})
        } else {
            json!({"data": e, "mediaType": "application/json"})
        };
        status["message"] = json!({"messageId": "m-status", "role": "ROLE_AGENT", "parts": [part]});
    }
    let mut t = json!({"id": "t-1", "contextId": "c-1", "status": status});
    if !artifacts.is_empty() {
        t["artifacts"] = Value::Array(artifacts);
    }
    t
}

fn artifact(id: &str, name: &str, data: Value) -> Value {
    json!({"artifactId": id, "name": name, "parts": [{"data": data, "mediaType": "application/json"}]})
}

async fn rpc(
    State(s): State<Arc<AppState>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    s.sends.fetch_add(1, Ordering::SeqCst);
    let id = body["id"].clone();
    if body["method"] != "SendMessage" {
        return Json(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}}))
            .into_response();
    }
    let request = body["params"]["message"]["parts"][0]["data"].clone();
    let result = json!({"task": answer(&s, &request)});
    let mut resp = (
        StatusCode::OK,
        Json(json!({"jsonrpc": "2.0", "id": id, "result": result})),
    )
        .into_response();
    let activated = headers
        .get("a2a-extensions")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|u| u.trim() == EXTENSION_URI));
    if activated && !s.faults.no_echo {
        resp.headers_mut()
            .insert("a2a-extensions", HeaderValue::from_static(EXTENSION_URI));
    }
    resp
}

fn error(code: &str, message: &str) -> Value {
    json!({"code": code, "message": message})
}

fn answer(s: &AppState, request: &Value) -> Value {
    let f = s.faults;
    let te = f.text_errors;
    let skill = request["skill"].as_str().unwrap_or_default();
    if skill == "describe_skill" {
        let wanted = request["arguments"]["skill_id"]
            .as_str()
            .unwrap_or_default();
        if wanted == SKILL {
            let doc = if f.floats_in_document {
                as_floats(s.doc.value())
            } else {
                s.doc.value().clone()
            };
            let data = json!({"interface_digest": s.doc.interface_digest().to_string(), "skill_interface": doc});
            return task(
                "TASK_STATE_COMPLETED",
                vec![artifact("a-d", "describe_skill", data)],
                None,
                te,
            );
        }
        if f.unknown_skill_completes {
            return task("TASK_STATE_COMPLETED", vec![], None, te);
        }
        return task(
            "TASK_STATE_FAILED",
            vec![],
            Some(error("interface_unavailable", "no such skill")),
            te,
        );
    }
    if skill != SKILL {
        return task(
            "TASK_STATE_FAILED",
            vec![],
            Some(error("interface_unavailable", "no such skill")),
            te,
        );
    }
    let args = &request["arguments"];
    let input_check = || -> Option<Value> {
        let details = s.doc.input_validator().validate(args).err()?;
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
            return task("TASK_STATE_REJECTED", vec![], Some(e), te);
        }
    }
    if !f.mismatch_not_enforced {
        let version_ok = request["skill_version"] == s.doc.skill_version();
        let digest_ok =
            request["interface_digest"] == s.doc.interface_digest().to_string().as_str();
        if !version_ok || !digest_ok {
            return task(
                "TASK_STATE_REJECTED",
                vec![],
                Some(error("interface_mismatch", "not the active interface")),
                te,
            );
        }
    }
    if let Some(e) = input_check() {
        return task("TASK_STATE_REJECTED", vec![], Some(e), te);
    }
    if f.refuse_integral_floats && args["count"].is_f64() {
        return task(
            "TASK_STATE_REJECTED",
            vec![],
            Some(error(
                "input_invalid",
                "invalid type: floating point, expected u64",
            )),
            te,
        );
    }
    if f.refuse_valid_calls {
        return task(
            "TASK_STATE_REJECTED",
            vec![],
            Some(error(
                "constraint_rejected",
                "this host is not reachable from here",
            )),
            te,
        );
    }
    let record_name = if f.record_named_skill_id {
        SKILL
    } else {
        RECORD
    };
    task(
        "TASK_STATE_COMPLETED",
        vec![
            artifact(
                "a-out",
                SKILL,
                json!({"host": args["host"], "reachable": true, "supporting_record_refs": ["a-rec"]}),
            ),
            artifact(
                "a-rec",
                record_name,
                json!({"observed_at": "2026-12-02T00:00:00Z", "rtt_ms": 0.25}),
            ),
        ],
        None,
        te,
    )
}

//! A real server on 127.0.0.1:0 with test skills, and a real HTTP client.
#![allow(dead_code)]

use serde_json::{json, Value};
use skillgate_core::wire::{Authority, AuthorityMode, Constraints, Interaction, ResponseMode};
use skillgate_runtime::*;
use std::time::Duration;

pub use skillgate_testkit::poll::eventually;
// The testkit's request builders, under the names these tests have always used.
pub use skillgate_testkit::requests::{
    message_id as uuid, send_params as msg, skill_request as request,
};
pub use skillgate_testkit::server::{sse_events, TestServer as Server};

pub const EXT: &str = skillgate_core::wire::EXTENSION_URI;

pub fn observe_skill() -> Skill {
    Skill::builder("evaluate_resource_condition", "1.0")
        .name("Evaluate resource condition")
        .description("Compares a metric with a threshold")
        .tags(["netops", "observe"])
        .input_schema(
            "urn:test:observe:input",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["resource_id", "condition"], "additionalProperties": false,
                "properties": {"resource_id": {"type": "string", "minLength": 1},
                    "condition": {"type": "object", "required": ["metric", "operator", "threshold"],
                        "additionalProperties": false,
                        "properties": {"metric": {"enum": ["utilization", "rx_errors"]},
                            "operator": {"enum": [">", "<"]},
                            "threshold": {"type": "integer"},
                            "unit": {"enum": ["percent", "count"]}}}}}),
        )
        .output_schema(
            "urn:test:observe:output",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["resource_id", "condition_met", "observed_value", "supporting_record_refs"],
                "properties": {"resource_id": {"type": "string"}, "condition_met": {"type": "boolean"},
                    "observed_value": {"type": "integer"},
                    "supporting_record_refs": {"type": "array", "items": {"type": "string"}}}}),
        )
        .record_schema(
            "resource-observation",
            "urn:test:observe:record",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["observed_at", "value"],
                "properties": {"observed_at": {"type": "string", "format": "date-time"},
                    "value": {"type": "integer"}}}),
        )
        .constraints(Constraints {
            max_input_bytes: Some(400),
            max_duration_ms: Some(5000),
            ..Default::default()
        })
        .handler(|args: Value, ctx: SkillContext| async move {
            let threshold = args["condition"]["threshold"].as_f64().unwrap_or(0.0);
            let id1 = ctx.new_record_artifact_id();
            let id2 = ctx.new_record_artifact_id();
            Ok(SkillOutput {
                output: json!({"resource_id": args["resource_id"], "condition_met": 42.0 > threshold,
                    "observed_value": 42, "supporting_record_refs": [id1, id2]}),
                records: vec![
                    SupportingRecord { artifact_id: id1, kind: "resource-observation".into(),
                        data: json!({"observed_at": "2026-12-02T10:00:00Z", "value": 41}) },
                    SupportingRecord { artifact_id: id2, kind: "resource-observation".into(),
                        data: json!({"observed_at": "2026-12-02T10:00:01Z", "value": 9007199254740993u64}) },
                ],
            })
        })
        .build()
}

fn any_object() -> Value {
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"})
}

/// `{"mode": ...}` chooses: "output" bad output, "record" bad record, "kind" undeclared kind,
/// "dup" repeated artifactId, "constraint" constraint_rejected, "exec" execution_failed, "panic".
pub fn misbehaving_skill() -> Skill {
    Skill::builder("misbehave", "2.1")
        .input_schema(
            "urn:test:mis:input",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["mode"], "properties": {"mode": {"type": "string"}}}),
        )
        .output_schema(
            "urn:test:mis:output",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}),
        )
        .record_schema(
            "note",
            "urn:test:mis:note",
            "1.0",
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "required": ["text"], "properties": {"text": {"type": "string"}}}),
        )
        .handler(|args: Value, ctx: SkillContext| async move {
            let rec = |data: Value, kind: &str, id: String| SupportingRecord {
                artifact_id: id,
                kind: kind.into(),
                data,
            };
            match args["mode"].as_str().unwrap_or("") {
                "output" => Ok(SkillOutput::new(json!({"ok": "yes"}))),
                "record" => Ok(SkillOutput::new(json!({"ok": true})).with_record(rec(
                    json!({"text": 5}),
                    "note",
                    ctx.new_record_artifact_id(),
                ))),
                "kind" => Ok(SkillOutput::new(json!({"ok": true})).with_record(rec(
                    json!({"text": "x"}),
                    "other",
                    ctx.new_record_artifact_id(),
                ))),
                "dup" => Ok(SkillOutput::new(json!({"ok": true}))
                    .with_record(rec(json!({"text": "x"}), "note", "r".into()))
                    .with_record(rec(json!({"text": "y"}), "note", "r".into()))),
                "constraint" => Err(SkillError::constraint_rejected(
                    "interface eth9 has no known link speed",
                )),
                "exec" => Err(SkillError::execution_failed("counters unreadable")),
                "panic" => panic!("handler bug"),
                _ => Ok(SkillOutput::new(json!({"ok": true}))),
            }
        })
        .build()
}

/// Reports `progress` (a string, if given) as a WORKING status, then sleeps `ms`
/// milliseconds; declares max_duration_ms 300.
pub fn slow_skill() -> Skill {
    Skill::builder("slow", "1.0")
        .input_schema("urn:test:slow:input", "1.0", any_object())
        .output_schema("urn:test:slow:output", "1.0", any_object())
        .constraints(Constraints {
            max_input_bytes: None,
            max_duration_ms: Some(300),
            ..Default::default()
        })
        .handler(|args: Value, ctx: SkillContext| async move {
            if let Some(p) = args["progress"].as_str() {
                ctx.progress(p).await;
            }
            let ms = args["ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(SkillOutput::new(json!({"slept": ms})))
        })
        .build()
}

/// Cancelable; sleeps `ms` (default 10 s) unless canceled.
pub fn cancelable_skill() -> Skill {
    Skill::builder("wait", "1.0")
        .input_schema("urn:test:wait:input", "1.0", any_object())
        .output_schema("urn:test:wait:output", "1.0", any_object())
        .interaction(Interaction { response_modes: vec![ResponseMode::Sync, ResponseMode::Stream, ResponseMode::Poll], cancelable: true })
        .handler(|args: Value, ctx: SkillContext| async move {
            let ms = args["ms"].as_u64().unwrap_or(10_000);
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(SkillOutput::new(json!({"waited": ms}))),
                _ = ctx.cancelled() => Err(SkillError::execution_failed("canceled")),
            }
        })
        .build()
}

pub fn execute_skill() -> Skill {
    Skill::builder("restart_interface", "1.0")
        .input_schema("urn:test:exec:input", "1.0", any_object())
        .output_schema("urn:test:exec:output", "1.0", any_object())
        .authority(Authority {
            default_mode: AuthorityMode::Execute,
            approval_may_be_required: true,
        })
        .handler(|_a: Value, _c: SkillContext| async move {
            Ok(SkillOutput::new(json!({"done": true})))
        })
        .build()
}

pub fn agent() -> Agent {
    Agent::builder("test-agent", "An agent for tests", "0.1.0")
        .provider("skillgate tests", "https://example.invalid")
        .skill(observe_skill())
        .skill(misbehaving_skill())
        .skill(slow_skill())
        .skill(cancelable_skill())
        .skill(execute_skill())
        .build()
        .unwrap()
}

/// The test agent with every test skill above, on the default configuration.
pub async fn start_server() -> Server {
    Server::start(agent(), ServerConfig::default()).await
}

/// The task of a SendMessage JSON-RPC result.
pub fn task_of(resp: &Value) -> &Value {
    &resp["result"]["task"]
}

/// The error object in a task's final status message.
pub fn error_object(task: &Value) -> &Value {
    let parts = task["status"]["message"]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 1, "exactly one part: {task}");
    assert_eq!(task["status"]["message"]["role"], "ROLE_AGENT");
    &parts[0]["data"]
}

pub fn observe_args() -> Value {
    json!({"resource_id": "eth0", "condition": {"metric": "utilization", "operator": ">", "threshold": 80, "unit": "percent"}})
}

//! The schema gate's own cost per Appendix-B-shaped request (interface_mismatch check, input
//! validation, output and record validation; no HTTP), and in-process describe_skill throughput.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a bench, not reachable by input
#![allow(missing_docs)] // criterion_group! defines an undocumented public function

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};
use skillgate_core::wire::Constraints;
use skillgate_runtime::a2a::SendMessageRequest;
use skillgate_runtime::*;
use std::hint::black_box;

fn schema(v: Value) -> Value {
    let mut v = v;
    v["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    v
}

fn agent() -> Agent {
    let skill = Skill::builder("evaluate_resource_condition", "1.0")
        .tags(["netops"])
        .input_schema("urn:bench:erc:input", "1.0", schema(json!({
            "type": "object", "additionalProperties": false, "required": ["resource_id", "condition"],
            "properties": {
                "resource_id": {"type": "string", "minLength": 1, "maxLength": 64},
                "condition": {"type": "object", "additionalProperties": false,
                    "required": ["metric", "operator", "threshold", "unit"],
                    "properties": {
                        "metric": {"enum": ["utilization", "rx_bytes_per_second", "tx_bytes_per_second", "rx_errors", "rx_dropped"]},
                        "operator": {"enum": [">", ">=", "<", "<=", "=="]},
                        "threshold": {"type": "number", "minimum": 0},
                        "unit": {"enum": ["percent", "bytes_per_second", "count"]}}},
                "window_seconds": {"type": "integer", "minimum": 1, "maximum": 60}}})))
        .output_schema("urn:bench:erc:output", "1.0", schema(json!({
            "type": "object", "additionalProperties": false,
            "required": ["resource_id", "condition_met", "observed_value", "unit", "supporting_record_refs"],
            "properties": {
                "resource_id": {"type": "string"}, "condition_met": {"type": "boolean"},
                "observed_value": {"type": "number"}, "unit": {"enum": ["percent", "bytes_per_second", "count"]},
                "supporting_record_refs": {"type": "array", "items": {"type": "string"}, "minItems": 1}}})))
        .record_schema("resource-observation", "urn:bench:erc:observation", "1.0", schema(json!({
            "type": "object", "additionalProperties": false,
            "required": ["resource_id", "metric", "value", "unit", "observed_at"],
            "properties": {
                "resource_id": {"type": "string"}, "metric": {"type": "string"},
                "value": {"type": "number"}, "unit": {"type": "string"},
                "observed_at": {"type": "string", "format": "date-time"}}})))
        .constraints(Constraints { max_input_bytes: Some(65536), max_duration_ms: Some(5000), ..Default::default() })
        .handler(|_a: Value, _c: SkillContext| async move { Ok(SkillOutput::new(json!({}))) })
        .build();
    Agent::builder("bench", "bench agent", "1.0")
        .skill(skill)
        .build()
        .expect("valid bench agent")
}

fn bench(c: &mut Criterion) {
    let agent = agent();
    let gate = agent
        .gate("evaluate_resource_condition")
        .expect("gate")
        .clone();
    let request = json!({
        "skill": "evaluate_resource_condition",
        "skill_version": gate.skill_version(),
        "interface_digest": gate.interface_digest_str(),
        "arguments": {"resource_id": "eth0",
            "condition": {"metric": "utilization", "operator": ">", "threshold": 80.0, "unit": "percent"},
            "window_seconds": 2}});
    let output = SkillOutput {
        output: json!({"resource_id": "eth0", "condition_met": false, "observed_value": 12.5,
            "unit": "percent", "supporting_record_refs": ["record-1"]}),
        records: vec![SupportingRecord {
            artifact_id: "record-1".into(),
            kind: "resource-observation".into(),
            data: json!({"resource_id": "eth0", "metric": "utilization", "value": 12.5,
                "unit": "percent", "observed_at": "2026-12-02T10:00:00.000Z"}),
        }],
    };
    assert!(gate.check_request(&request).is_ok());
    assert!(gate.check_output(&output).is_ok());
    let mut g = c.benchmark_group("gate");
    g.throughput(Throughput::Elements(1));
    g.bench_function("appendix_b_request", |b| {
        b.iter(|| {
            let args = gate.check_request(black_box(&request)).is_ok();
            let out = gate.check_output(black_box(&output)).is_ok();
            black_box((args, out))
        })
    });
    g.bench_function("check_request_only", |b| {
        b.iter(|| gate.check_request(black_box(&request)).is_ok())
    });
    g.bench_function("check_output_only", |b| {
        b.iter(|| gate.check_output(black_box(&output)).is_ok())
    });
    g.bench_function("clone_document_value", |b| {
        b.iter(|| black_box(gate.document().value().clone()))
    });
    g.finish();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let svc = A2aService::new(agent, &ServerConfig::default());
    let req: SendMessageRequest = serde_json::from_value(json!({"message": {"messageId": "m", "role": "ROLE_USER",
        "parts": [{"data": {"skill": "describe_skill", "arguments": {"skill_id": "evaluate_resource_condition"}}}]}}))
        .expect("request");
    let ctx = RequestContext::default();
    let mut g = c.benchmark_group("service");
    g.throughput(Throughput::Elements(1));
    g.bench_function("describe_skill", |b| {
        b.iter(|| {
            rt.block_on(svc.send_message(black_box(req.clone()), &ctx))
                .is_ok()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

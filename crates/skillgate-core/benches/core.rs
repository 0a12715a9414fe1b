//! Canonicalization, digest and validation throughput, beside the published JCS crates and the
//! physical limit (plain `serde_json::to_vec` + SHA-256 of the same value).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a bench, not reachable by input
#![allow(missing_docs)] // criterion_group! defines an undocumented public function

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::{json, Value};
use sha2::{Digest as _, Sha256};
use skillgate_core::{digest, jcs};

/// A document shaped like real interface/telemetry JSON: nested objects, mixed numbers, text.
fn document(target_bytes: usize) -> Value {
    let mut items = Vec::new();
    let mut size = 0;
    let mut i: u64 = 0;
    while size < target_bytes {
        let item = json!({
            "interface": format!("eth{}", i % 48),
            "description": "uplink to the aggregation layer, façade № ".to_owned() + &i.to_string(),
            "counters": {
                "rx_bytes": i * 1_234_567 + 89,
                "tx_bytes": i * 7_654_321 + 1,
                "rx_errors": i % 7,
                "utilization": (i as f64) * 0.37 + 0.001,
                "ratio": 1.0 / ((i % 13) as f64 + 3.0),
            },
            "tags": ["core", "monitored", format!("site-{}", i % 5)],
            "up": !i.is_multiple_of(3),
            "note": null,
        });
        size += serde_json::to_vec(&item).map(|v| v.len()).unwrap_or(0) + 1;
        items.push(item);
        i += 1;
    }
    json!({"schema": "urn:example:bench", "items": items})
}

fn sha(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn canonicalize_and_digest(c: &mut Criterion) {
    for (label, size) in [("100KB", 100 * 1024), ("1MB", 1024 * 1024)] {
        let value = document(size);
        let text = serde_json::to_vec_pretty(&value).unwrap_or_default();
        let canonical_len = jcs::to_canonical_vec(&value).len() as u64;

        let mut g = c.benchmark_group(format!("digest_of_value/{label}"));
        g.throughput(Throughput::Bytes(canonical_len));
        g.bench_function("skillgate", |b| b.iter(|| digest(black_box(&value))));
        g.bench_function("serde_json_canonicalizer", |b| {
            b.iter(|| sha(&serde_json_canonicalizer::to_vec(black_box(&value)).unwrap_or_default()))
        });
        g.bench_function("serde_jcs", |b| {
            b.iter(|| sha(&serde_jcs::to_vec(black_box(&value)).unwrap_or_default()))
        });
        g.bench_function("limit_serde_json_to_vec_sha256", |b| {
            b.iter(|| sha(&serde_json::to_vec(black_box(&value)).unwrap_or_default()))
        });
        g.finish();

        let mut g = c.benchmark_group(format!("digest_of_text/{label}"));
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function("skillgate_strict_parse", |b| {
            b.iter(|| sha(&jcs::canonicalize(black_box(&text)).unwrap_or_default()))
        });
        g.bench_function("serde_json_canonicalizer", |b| {
            b.iter(|| {
                let v: Value = serde_json::from_slice(black_box(&text)).unwrap_or_default();
                sha(&serde_json_canonicalizer::to_vec(&v).unwrap_or_default())
            })
        });
        g.bench_function("limit_serde_json_parse_to_vec_sha256", |b| {
            b.iter(|| {
                let v: Value = serde_json::from_slice(black_box(&text)).unwrap_or_default();
                sha(&serde_json::to_vec(&v).unwrap_or_default())
            })
        });
        g.finish();
    }
}

fn appendix_b(c: &mut Criterion) {
    let doc_text = include_str!("../../../examples/interfaces/evaluate_resource_condition.json");
    let doc_value: Value = serde_json::from_str(doc_text).unwrap_or_default();
    let Ok(doc) =
        skillgate_core::document::ValidatedDocument::from_value(&doc_value, &Default::default())
    else {
        panic!("example document must be valid");
    };
    let input = json!({
        "resource_id": "network-resource-123",
        "condition": {"metric": "utilization", "operator": "gte", "threshold": 80, "unit": "percent"}
    });
    let bad = json!({
        "resource_id": "network-resource-123",
        "condition": {"metric": "utilization", "operator": "gte", "threshold": "80"}
    });
    let mut g = c.benchmark_group("appendix_b_input");
    g.throughput(Throughput::Elements(1));
    g.bench_with_input(BenchmarkId::new("is_valid", "valid"), &input, |b, i| {
        b.iter(|| doc.input_validator().is_valid(black_box(i)))
    });
    g.bench_with_input(BenchmarkId::new("validate", "valid"), &input, |b, i| {
        b.iter(|| doc.input_validator().validate(black_box(i)).is_ok())
    });
    g.bench_with_input(BenchmarkId::new("validate", "invalid"), &bad, |b, i| {
        b.iter(|| doc.input_validator().validate(black_box(i)).is_err())
    });
    g.finish();

    let mut g = c.benchmark_group("document");
    g.bench_function("validate_appendix_b_document", |b| {
        b.iter(|| {
            skillgate_core::document::validate_document(black_box(&doc_value), &Default::default())
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = canonicalize_and_digest, appendix_b
}
criterion_main!(benches);

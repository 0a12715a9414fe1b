//! Time to diff the largest pair of the corpus (the draft's Appendix B document and its 2.0):
//! `diff` on two validated documents (the walk and the schema algebra on input, output and the
//! record kind), and `diff_values` (validation of both documents included).
//! Run: `cargo bench -p skillgate-evolve --bench diff`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::Value;
use skillgate_core::document::{Expectations, ValidatedDocument};

fn load(version: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/evolution/documents/evaluate_resource_condition-{version}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn bench(c: &mut Criterion) {
    let (old, new) = (load("1.0"), load("2.0"));
    let o = ValidatedDocument::from_value(&old, &Expectations::default()).unwrap();
    let n = ValidatedDocument::from_value(&new, &Expectations::default()).unwrap();
    c.bench_function("diff validated documents (largest corpus pair)", |b| {
        b.iter(|| skillgate_evolve::diff(black_box(&o), black_box(&n)))
    });
    c.bench_function("diff_values incl. validation (largest corpus pair)", |b| {
        b.iter(|| skillgate_evolve::diff_values(black_box(&old), black_box(&new)).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);

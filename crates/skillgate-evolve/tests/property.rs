//! Soundness of the verdict: whenever a schema comparison says "compatible", no instance
//! contradicts it. Input: every generated instance OLD accepts, NEW accepts. Output: every
//! instance NEW accepts, OLD accepts. Instances are checked with the validator the runtime
//! uses (`skillgate_core::instance::CompiledSchema`: 2020-12, formats asserted).
//!
//! Schema pairs are generated as OLD plus an edit of it (keywords kept, replaced from a second
//! generated schema, or dropped, at the top level and inside `properties`), so most pairs
//! differ by a few keywords, as two versions of one skill do. The case count is
//! `PROPTEST_CASES` (default 256).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Map, Value};
use skillgate_core::instance::CompiledSchema;
use skillgate_evolve::{compare_schema, compare_schema_structural, Side};

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(false)),
        (-3i64..6).prop_map(|n| json!(n)),
        Just(json!(1.5)),
        Just(json!(-0.5)),
        prop::sample::select(vec!["", "a", "ab", "ba", "abc", "b", "2024-01-01", "x@y.z"])
            .prop_map(|s| json!(s)),
    ]
}

fn instance() -> impl Strategy<Value = Value> {
    let leaf = scalar();
    leaf.prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c"]), inner, 0..4)
                .prop_map(|m| {
                    Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                }),
        ]
    })
}

fn leaf_schema() -> impl Strategy<Value = Value> {
    let ty = prop::sample::select(vec![
        "string", "integer", "number", "boolean", "null", "object", "array",
    ]);
    prop_oneof![
        ty.clone().prop_map(|t| json!({"type": t})),
        (ty.clone(), ty).prop_map(|(a, b)| json!({"type": [a, b]})),
        (-2i64..4, 0i64..5)
            .prop_map(|(a, b)| json!({"type": "integer", "minimum": a, "maximum": a + b})),
        (-2i64..4).prop_map(|a| json!({"exclusiveMinimum": a})),
        (0i64..4).prop_map(|a| json!({"exclusiveMaximum": a})),
        (0u64..3, 0u64..3)
            .prop_map(|(a, b)| json!({"type": "string", "minLength": a, "maxLength": a + b})),
        prop::collection::vec(scalar(), 1..4).prop_map(|v| json!({"enum": v})),
        scalar().prop_map(|v| json!({"const": v})),
        prop::sample::select(vec!["^a", "b$", "^[ab]+$"])
            .prop_map(|p| json!({"type": "string", "pattern": p})),
        prop::sample::select(vec!["date", "email"]).prop_map(|f| json!({"format": f})),
        prop::sample::select(vec![1u64, 2, 3, 4]).prop_map(|m| json!({"multipleOf": m})),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        Just(json!({"description": "annotated"})),
        // Every generated document has a root `$defs/d` (see `document`).
        Just(json!({"$ref": "#/$defs/d"})),
        (0u64..3).prop_map(|n| json!({"minItems": n, "uniqueItems": true})),
        (0u64..3).prop_map(|n| json!({"maxProperties": n})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf_schema().prop_recursive(2, 16, 3, |inner| {
        let names = prop::sample::subsequence(vec!["a", "b", "c"], 0..=3);
        prop_oneof![
            (
                prop::collection::btree_map(prop::sample::select(vec!["a", "b"]), inner.clone(), 0..3),
                names,
                prop_oneof![Just(None), Just(Some(json!(false))), Just(Some(json!(true))), inner.clone().prop_map(Some)],
            )
                .prop_map(|(props, required, additional)| {
                    let mut m = Map::new();
                    m.insert("type".into(), json!("object"));
                    m.insert("properties".into(), Value::Object(props.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()));
                    m.insert("required".into(), json!(required));
                    if let Some(a) = additional {
                        m.insert("additionalProperties".into(), a);
                    }
                    Value::Object(m)
                }),
            (inner.clone(), prop::collection::vec(inner.clone(), 0..2), 0u64..3)
                .prop_map(|(items, prefix, max)| json!({"type": "array", "items": items, "prefixItems": prefix, "maxItems": max + 1})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"anyOf": v})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"allOf": v})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"oneOf": v})),
            inner.clone().prop_map(|v| json!({"not": v})),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({"if": a, "then": b})),
        ]
    })
}

/// A whole schema: a root `$defs/d` (a leaf, so it cannot refer to itself) beside the
/// generated schema, so `{"$ref": "#/$defs/d"}` leaves resolve and an edit of `$defs` changes
/// what every reference reads.
fn document() -> impl Strategy<Value = Value> {
    (leaf_schema(), schema()).prop_map(|(d, s)| match s {
        Value::Object(mut m) => {
            m.insert("$defs".into(), json!({"d": d}));
            Value::Object(m)
        }
        other => json!({"$defs": {"d": d}, "allOf": [other]}),
    })
}

/// NEW as an edit of OLD: per member, keep OLD's (0), take OTHER's (1), or drop it (2);
/// `properties` edited the same way one level down.
fn edit(old: &Value, other: &Value, picks: &[u8]) -> Value {
    let (Some(o), Some(x)) = (old.as_object(), other.as_object()) else {
        return if picks.first().copied().unwrap_or(0) == 1 {
            other.clone()
        } else {
            old.clone()
        };
    };
    let mut out = Map::new();
    let keys: std::collections::BTreeSet<&String> = o.keys().chain(x.keys()).collect();
    for (i, k) in keys.into_iter().enumerate() {
        let pick = picks.get(i % picks.len().max(1)).copied().unwrap_or(0);
        let v = match (pick, o.get(k), x.get(k)) {
            (_, Some(a), Some(b)) if k == "properties" => {
                Some(edit(a, b, &picks[1.min(picks.len())..]))
            }
            (0, Some(a), _) => Some(a.clone()),
            (1, _, Some(b)) => Some(b.clone()),
            (0, None, _) | (1, _, None) => None,
            _ => None,
        };
        if let Some(v) = v {
            out.insert(k.clone(), v);
        }
    }
    Value::Object(out)
}

thread_local! {
    /// Whether this thread's test holds the walk alone (no algebra) to the property.
    static STRUCTURAL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

thread_local! {
    /// Compatible verdicts between different schemas: input, output, proven by the algebra.
    static COUNTS: std::cell::Cell<(usize, usize, usize)> = const { std::cell::Cell::new((0, 0, 0)) };
}

fn count(input: bool, proven: bool) {
    COUNTS.with(|c| {
        let (i, o, p) = c.get();
        c.set((
            i + usize::from(input),
            o + usize::from(!input),
            p + usize::from(proven),
        ));
    });
}

fn check(old: &Value, new: &Value, instances: &[Value]) -> Result<(), TestCaseError> {
    let (Ok(vo), Ok(vn)) = (CompiledSchema::compile(old), CompiledSchema::compile(new)) else {
        return Ok(());
    };
    for side in [Side::Input, Side::Output] {
        let callers_send = side == Side::Input;
        let d = if STRUCTURAL.with(|s| s.get()) {
            compare_schema_structural(side, old, new)
        } else {
            compare_schema(side, old, new, "", "")
        };
        if !d.compatible() {
            continue;
        }
        if old != new {
            count(
                callers_send,
                d.algebra == skillgate_evolve::Decision::Included,
            );
        }
        for i in instances {
            let (accepted_before, accepted_now) = (vo.is_valid(i), vn.is_valid(i));
            let contradiction = if callers_send {
                accepted_before && !accepted_now
            } else {
                accepted_now && !accepted_before
            };
            prop_assert!(
                !contradiction,
                "{} said compatible, but {i} contradicts it\nold: {old}\nnew: {new}\nfindings: {:#?}\nalgebra: {:?}",
                if callers_send { "input" } else { "output" },
                d.findings,
                d.algebra
            );
        }
    }
    Ok(())
}

#[test]
fn a_compatible_verdict_is_never_contradicted() {
    run_property(false);
}

/// The walk alone must be sound too: it decides whenever the algebra cannot.
#[test]
fn the_walk_alone_is_never_contradicted() {
    run_property(true);
}

fn run_property(structural: bool) {
    STRUCTURAL.with(|s| s.set(structural));
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let fixed: Vec<Value> = vec![
        json!(null),
        json!(0),
        json!(1),
        json!(2),
        json!(3),
        json!(-1),
        json!(1.5),
        json!(""),
        json!("a"),
        json!("ab"),
        json!("ba"),
        json!("2024-01-01"),
        json!([]),
        json!([1, 1]),
        json!({}),
        json!({"a": 1}),
        json!({"a": "ab"}),
        json!({"a": 1, "b": "ab"}),
        json!({"c": null}),
        json!({"a": "a", "b": 2, "c": true}),
    ];
    let strategy = (
        document(),
        document(),
        prop::collection::vec(0u8..3, 1..6),
        prop::collection::vec(instance(), 0..24),
    );
    let result = runner.run(&strategy, |(old, other, picks, mut instances)| {
        let new = edit(&old, &other, &picks);
        instances.extend(fixed.iter().cloned());
        check(&old, &new, &instances)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // The property is only worth something if "compatible" was actually said about schemas
    // that differ.
    let (i, o, p) = COUNTS.with(|c| c.get());
    eprintln!("compatible verdicts between different schemas over {cases} cases: input {i}, output {o} ({p} proven by the algebra)");
    assert!(
        i * 100 >= cases as usize && o * 100 >= cases as usize,
        "too few compatible verdicts: input {i}, output {o}"
    );
}

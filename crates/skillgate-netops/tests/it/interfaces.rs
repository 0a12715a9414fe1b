//! The three Skill Interface Documents: they assemble and validate with the core builder, the
//! example instances of the draft's Appendix B pass (and its failure notes fail) the compiled
//! schemas, and collect's output composes directly with assess's input.

use serde_json::{json, Value};
use skillgate_core::compose::{direct_composition, CompositionField};
use skillgate_core::document::{validate_document, Expectations, ValidatedDocument};
use skillgate_netops::interfaces;
use skillgate_runtime::SkillBuilder;

fn build(spec: &SkillBuilder) -> ValidatedDocument {
    spec.document()
        .unwrap_or_else(|e| panic!("{}: {e}", spec.id()))
}

#[test]
fn every_document_is_valid_and_round_trips() {
    for spec in interfaces::all() {
        let doc = build(&spec);
        assert_eq!(doc.skill_id(), spec.id());
        assert_eq!(doc.skill_version(), "1.0");
        let expect = Expectations {
            skill_id: Some(spec.id().to_owned()),
            skill_version: Some("1.0".to_owned()),
            interface_digest: Some(doc.interface_digest()),
        };
        assert_eq!(
            validate_document(doc.value(), &expect),
            vec![],
            "{}",
            spec.id()
        );
        // What a client rebuilds from a describe_skill response is the same document.
        let again = ValidatedDocument::from_value(doc.value(), &expect).unwrap();
        assert_eq!(again.interface_digest(), doc.interface_digest());
        let d = doc.document();
        assert_eq!(d.constraints.max_input_bytes, Some(4096));
        assert_eq!(d.constraints.max_duration_ms, Some(10_000));
        assert!(!d.authority.approval_may_be_required);
        assert_eq!(d.interaction.response_modes.len(), 3);
    }
}

#[test]
fn skill_ids_and_digests_are_distinct() {
    let docs: Vec<_> = interfaces::all().iter().map(build).collect();
    assert_eq!(
        docs.iter()
            .map(|d| d.skill_id().to_owned())
            .collect::<Vec<_>>(),
        [
            "evaluate_resource_condition",
            "collect_interface_counters",
            "assess_interface_health"
        ]
    );
    assert_ne!(docs[0].interface_digest(), docs[1].interface_digest());
    assert_ne!(docs[1].interface_digest(), docs[2].interface_digest());
}

#[test]
fn collect_output_composes_with_assess_input() {
    let collect = build(&interfaces::collect_interface_counters());
    let assess = build(&interfaces::assess_interface_health());
    let evaluate = build(&interfaces::evaluate_resource_condition());
    direct_composition(
        &collect.document().output_schema,
        &assess.document().input_schema,
    )
    .unwrap();
    assert_eq!(
        collect.document().output_schema,
        assess.document().input_schema
    );
    // The check can fail: evaluate's output is not the measurement.
    let err = direct_composition(
        &evaluate.document().output_schema,
        &assess.document().input_schema,
    )
    .unwrap_err();
    assert_eq!(err.field, CompositionField::SchemaUri);
    // Nor does it compose backwards (assess's output into collect's input).
    assert!(direct_composition(
        &assess.document().output_schema,
        &collect.document().input_schema
    )
    .is_err());
}

fn appendix_b_input() -> Value {
    json!({
        "resource_id": "network-resource-123",
        "condition": {"metric": "utilization", "operator": "gte", "threshold": 80, "unit": "percent"}
    })
}

#[test]
fn appendix_b_instances_pass() {
    let doc = build(&interfaces::evaluate_resource_condition());
    doc.input_validator().validate(&appendix_b_input()).unwrap();
    doc.output_validator()
        .validate(&json!({
            "result": "condition_not_met",
            "observed_value": 42,
            "unit": "percent",
            "supporting_record_refs": ["observation-7"]
        }))
        .unwrap();
    doc.record_validator("resource-observation")
        .unwrap()
        .validate(&json!({
            "record_id": "observation-7",
            "resource_id": "network-resource-123",
            "metric": "utilization",
            "value": 42,
            "unit": "percent",
            "observed_at": "2026-08-11T12:00:01Z",
            "window_ms": 500
        }))
        .unwrap();
}

fn first_detail(r: Result<(), Vec<skillgate_core::wire::ErrorDetail>>) -> (String, String) {
    let d = r.unwrap_err();
    (
        d[0].instance_path.clone(),
        d[0].keyword.clone().unwrap_or_default(),
    )
}

#[test]
fn appendix_b_failure_notes_fail() {
    let doc = build(&interfaces::evaluate_resource_condition());
    let mut no_unit = appendix_b_input();
    no_unit["condition"].as_object_mut().unwrap().remove("unit");
    let (path, kw) = first_detail(doc.input_validator().validate(&no_unit));
    // Core names the missing member itself, as the draft's details do.
    assert_eq!(
        (path.as_str(), kw.as_str()),
        ("/condition/unit", "required")
    );

    let bad_result = json!({
        "result": "maybe", "observed_value": 42, "unit": "percent",
        "supporting_record_refs": ["observation-7"]
    });
    let (path, kw) = first_detail(doc.output_validator().validate(&bad_result));
    assert_eq!((path.as_str(), kw.as_str()), ("/result", "enum"));

    let no_time = json!({
        "record_id": "observation-7", "resource_id": "r", "metric": "utilization",
        "value": 42, "unit": "percent", "window_ms": 500
    });
    let rec = doc.record_validator("resource-observation").unwrap();
    let (path, kw) = first_detail(rec.validate(&no_time));
    assert_eq!((path.as_str(), kw.as_str()), ("/observed_at", "required"));

    // observed_at is asserted as RFC 3339, not merely a string.
    let mut bad_time = no_time.clone();
    bad_time["observed_at"] = json!("11 Aug 2026 12:00");
    let (path, kw) = first_detail(rec.validate(&bad_time));
    assert_eq!((path.as_str(), kw.as_str()), ("/observed_at", "format"));

    let no_refs = json!({
        "result": "condition_met", "observed_value": 1, "unit": "count",
        "supporting_record_refs": []
    });
    assert!(!doc.output_validator().is_valid(&no_refs));
}

#[test]
fn unit_must_fit_metric_in_the_schema() {
    let v = build(&interfaces::evaluate_resource_condition());
    let v = v.input_validator();
    let case = |metric: &str, unit: &str| {
        json!({"resource_id": "lo",
               "condition": {"metric": metric, "operator": "gt", "threshold": 0, "unit": unit}})
    };
    for (metric, unit) in [
        ("utilization", "percent"),
        ("rx_bytes_per_second", "bytes_per_second"),
        ("tx_bytes_per_second", "bytes_per_second"),
        ("rx_errors", "count"),
        ("rx_dropped", "count"),
    ] {
        assert!(v.is_valid(&case(metric, unit)), "{metric} {unit}");
        for other in ["percent", "bytes_per_second", "count"] {
            if other != unit {
                let (path, kw) = first_detail(v.validate(&case(metric, other)));
                assert_eq!(path, "/condition/unit", "{metric} {other}");
                assert_eq!(kw, "const", "{metric} {other}");
            }
        }
    }
    let mut extra = case("rx_errors", "count");
    extra["condition"]["scale"] = json!(2);
    assert!(!v.is_valid(&extra));
    let mut w = case("rx_errors", "count");
    for (window, ok) in [
        (100, true),
        (5000, true),
        (99, false),
        (5001, false),
        (250, true),
    ] {
        w["window_ms"] = json!(window);
        assert_eq!(v.is_valid(&w), ok, "window {window}");
    }
    w["window_ms"] = json!(250.5);
    assert!(!v.is_valid(&w));
    assert!(!v.is_valid(
        &json!({"resource_id": "", "condition": case("rx_errors", "count")["condition"]})
    ));
}

fn measurement() -> Value {
    json!({
        "interface": "eth0", "observed_at": "2026-12-02T13:40:00.123Z", "window_ms": 500,
        "rx_bytes": 9876543210u64, "tx_bytes": 123456789, "rx_packets": 1000000, "tx_packets": 900000,
        "rx_errors": 7, "tx_errors": 0, "rx_dropped": 12, "tx_dropped": 0,
        "rx_bytes_per_second": 1250.5, "tx_bytes_per_second": 0,
        "operstate": "up", "mtu": 1500, "speed_mbps": 1000
    })
}

#[test]
fn measurement_schema_examples() {
    let collect = build(&interfaces::collect_interface_counters());
    let out = collect.output_validator();
    out.validate(&measurement()).unwrap();
    let mut m = measurement();
    m["speed_mbps"] = Value::Null;
    out.validate(&m).unwrap();
    m["speed_mbps"] = json!(-1);
    assert!(
        !out.is_valid(&m),
        "-1 is the kernel's 'unknown', never a speed"
    );
    let mut m = measurement();
    m["operstate"] = json!("sideways");
    assert!(!out.is_valid(&m));
    let mut m = measurement();
    m.as_object_mut().unwrap().remove("mtu");
    assert!(!out.is_valid(&m));
    let mut m = measurement();
    m["rx_errors"] = json!(-1);
    assert!(!out.is_valid(&m));
    let mut m = measurement();
    m["extra"] = json!(1);
    assert!(!out.is_valid(&m));

    let collect_in = collect.input_validator();
    assert!(collect_in.is_valid(&json!({"interface": "lo"})));
    assert!(collect_in.is_valid(&json!({"interface": "lo", "window_ms": 100})));
    assert!(!collect_in.is_valid(&json!({"interface": "lo", "window_ms": 10})));
    assert!(!collect_in.is_valid(&json!({})));

    let assess = build(&interfaces::assess_interface_health());
    let out = assess.output_validator();
    out.validate(&json!({
        "interface": "eth0", "health": "degraded",
        "reasons": ["rx error ratio 4.7619% is above 0.1000%"],
        "assessed_at": "2026-12-02T13:40:00Z"
    }))
    .unwrap();
    assert!(!out.is_valid(&json!({
        "interface": "eth0", "health": "ok", "reasons": ["x"], "assessed_at": "2026-12-02T13:40:00Z"
    })));
}

//! The agent's domain schemas, embedded from `schemas/*.json` (kept as files so users can read
//! them) and parsed once.
//!
//! Every schema is published under one `schema_uri` and `version`; the constants here are the
//! only place those identities are spelled.

use std::sync::LazyLock;

use serde_json::Value;

/// Version of every schema this crate publishes.
pub const SCHEMA_VERSION: &str = "1.0";

/// Input of `evaluate_resource_condition`.
pub const EVALUATE_INPUT_URI: &str = "urn:skillgate:netops:evaluate-resource-condition:input";
/// Output of `evaluate_resource_condition`.
pub const EVALUATE_OUTPUT_URI: &str = "urn:skillgate:netops:evaluate-resource-condition:output";
/// The `resource-observation` supporting record.
pub const RESOURCE_OBSERVATION_URI: &str = "urn:skillgate:netops:resource-observation";
/// Input of `collect_interface_counters`.
pub const COLLECT_INPUT_URI: &str = "urn:skillgate:netops:collect-interface-counters:input";
/// The counters measurement: output of `collect_interface_counters`, input of
/// `assess_interface_health`.
pub const INTERFACE_COUNTERS_URI: &str = "urn:skillgate:netops:interface-counters";
/// Output of `assess_interface_health`.
pub const ASSESS_OUTPUT_URI: &str = "urn:skillgate:netops:assess-interface-health:output";

/// Every embedded schema: (file name, text).
pub const SOURCES: [(&str, &str); 6] = [
    (
        "evaluate-resource-condition.input.json",
        include_str!("../schemas/evaluate-resource-condition.input.json"),
    ),
    (
        "evaluate-resource-condition.output.json",
        include_str!("../schemas/evaluate-resource-condition.output.json"),
    ),
    (
        "resource-observation.json",
        include_str!("../schemas/resource-observation.json"),
    ),
    (
        "collect-interface-counters.input.json",
        include_str!("../schemas/collect-interface-counters.input.json"),
    ),
    (
        "interface-counters.json",
        include_str!("../schemas/interface-counters.json"),
    ),
    (
        "assess-interface-health.output.json",
        include_str!("../schemas/assess-interface-health.output.json"),
    ),
];

/// The parsed schemas, in the order of [`SOURCES`].
struct Parsed([Value; 6]);

/// Parses with the core's strict I-JSON parser, so a duplicate key in a schema file is caught
/// here instead of silently changing the schema (and its digest). The files are part of the
/// crate, not input: a failure is a build defect, caught by `every_embedded_schema_parses`.
#[allow(clippy::panic)] // not reachable by input: see above
static PARSED: LazyLock<Parsed> = LazyLock::new(|| {
    Parsed(SOURCES.map(|(name, text)| {
        skillgate_core::jcs::parse_strict(text.as_bytes())
            .unwrap_or_else(|e| panic!("embedded schema {name} is not strict JSON: {e}"))
    }))
});

/// Input schema of `evaluate_resource_condition`.
pub fn evaluate_input() -> &'static Value {
    &PARSED.0[0]
}

/// Output schema of `evaluate_resource_condition`.
pub fn evaluate_output() -> &'static Value {
    &PARSED.0[1]
}

/// Schema of the `resource-observation` record.
pub fn resource_observation() -> &'static Value {
    &PARSED.0[2]
}

/// Input schema of `collect_interface_counters`.
pub fn collect_input() -> &'static Value {
    &PARSED.0[3]
}

/// The counters measurement schema.
pub fn interface_counters() -> &'static Value {
    &PARSED.0[4]
}

/// Output schema of `assess_interface_health`.
pub fn assess_output() -> &'static Value {
    &PARSED.0[5]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_schema_parses() {
        for (name, text) in SOURCES {
            let v = skillgate_core::jcs::parse_strict(text.as_bytes())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(v.is_object(), "{name}");
            assert_eq!(
                v["$schema"],
                skillgate_core::wire::DIALECT_2020_12,
                "{name} must declare 2020-12"
            );
        }
        assert_eq!(
            interface_counters()["title"],
            "interface counters measurement"
        );
    }
}

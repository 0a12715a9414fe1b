//! The declaration of each skill (ids, schemas, interaction, authority, constraints and its
//! Agent Card entry), made once with the runtime's [`SkillBuilder`], so the Skill the runtime
//! serves and the document the tests check ([`SkillBuilder::document`]) are the same
//! declaration. [`crate::skills`] adds the handlers.

use skillgate_core::document::InterfaceBuilder;
use skillgate_core::wire::{Authority, AuthorityMode, Constraints, Interaction, ResponseMode};
use skillgate_runtime::{Skill, SkillBuilder};

use crate::domain::{
    ASSESS_INTERFACE_HEALTH, COLLECT_INTERFACE_COUNTERS, EVALUATE_RESOURCE_CONDITION,
    RESOURCE_OBSERVATION,
};
use crate::schemas::{self, SCHEMA_VERSION};

/// Version of every netops skill.
pub const SKILL_VERSION: &str = "1.0";
/// `constraints.max_input_bytes` of every netops skill: the largest valid argument object is
/// well under 1 KiB.
pub const MAX_INPUT_BYTES: u64 = 4096;
/// `constraints.max_duration_ms` of every netops skill: twice the largest sampling window.
pub const MAX_DURATION_MS: u64 = 10_000;

/// Observe-only, no approval: these skills only read counters.
fn observe_only() -> Authority {
    Authority {
        default_mode: AuthorityMode::ObserveOnly,
        approval_may_be_required: false,
    }
}

/// All three modes; not cancelable, since a run is bounded by a 5 s window and has no side
/// effect that a cancel could prevent.
fn interaction() -> Interaction {
    Interaction {
        response_modes: vec![ResponseMode::Sync, ResponseMode::Stream, ResponseMode::Poll],
        cancelable: false,
    }
}

/// The declared limits, which the runtime enforces before and while the handler runs.
fn constraints() -> Constraints {
    Constraints {
        max_input_bytes: Some(MAX_INPUT_BYTES),
        max_duration_ms: Some(MAX_DURATION_MS),
        ..Constraints::default()
    }
}

/// The interface every netops skill starts from: its id, [`SKILL_VERSION`] and the shared
/// interaction, authority and constraints.
fn netops_interface(id: &str) -> InterfaceBuilder {
    InterfaceBuilder::new(id, SKILL_VERSION)
        .interaction(interaction())
        .authority(observe_only())
        .constraints(constraints())
}

/// `evaluate_resource_condition`, without its handler.
pub fn evaluate_resource_condition() -> SkillBuilder {
    let interface = netops_interface(EVALUATE_RESOURCE_CONDITION)
        .input(
            schemas::EVALUATE_INPUT_URI,
            SCHEMA_VERSION,
            schemas::evaluate_input().clone(),
        )
        .output(
            schemas::EVALUATE_OUTPUT_URI,
            SCHEMA_VERSION,
            schemas::evaluate_output().clone(),
        )
        .record(
            RESOURCE_OBSERVATION,
            schemas::RESOURCE_OBSERVATION_URI,
            SCHEMA_VERSION,
            schemas::resource_observation().clone(),
        );
    Skill::declare(interface)
        .name("Evaluate resource condition")
        .description(
            "Observes one metric of one network interface on the agent's host (utilization, \
            rx/tx bytes per second over a short window, rx errors or drops) and says whether it meets \
            a threshold; returns the observation as a resource-observation record.",
        )
        .tags(["netops", "observe", "interface", "threshold"])
        .examples([
            r#"{"resource_id":"eth0","condition":{"metric":"utilization","operator":"gte","threshold":80,"unit":"percent"}}"#,
        ])
}

/// `collect_interface_counters`, without its handler. Its output Schema Reference is the
/// counters measurement, which `assess_interface_health` takes verbatim as input.
pub fn collect_interface_counters() -> SkillBuilder {
    let interface = netops_interface(COLLECT_INTERFACE_COUNTERS)
        .input(
            schemas::COLLECT_INPUT_URI,
            SCHEMA_VERSION,
            schemas::collect_input().clone(),
        )
        .output(
            schemas::INTERFACE_COUNTERS_URI,
            SCHEMA_VERSION,
            schemas::interface_counters().clone(),
        );
    Skill::declare(interface)
        .name("Collect interface counters")
        .description(
            "Reads the /proc/net/dev counters of one interface twice, a short window apart, \
            and returns them with byte rates and the sysfs link attributes (operstate, mtu, speed) \
            as an interface-counters measurement.",
        )
        .tags(["netops", "observe", "interface", "counters"])
        .examples([r#"{"interface":"lo","window_ms":500}"#])
}

/// `assess_interface_health`, without its handler. Its input Schema Reference is the counters
/// measurement collect returns, so the two compose directly.
pub fn assess_interface_health() -> SkillBuilder {
    let interface = netops_interface(ASSESS_INTERFACE_HEALTH)
        .input(
            schemas::INTERFACE_COUNTERS_URI,
            SCHEMA_VERSION,
            schemas::interface_counters().clone(),
        )
        .output(
            schemas::ASSESS_OUTPUT_URI,
            SCHEMA_VERSION,
            schemas::assess_output().clone(),
        );
    Skill::declare(interface)
        .name("Assess interface health")
        .description(
            "Judges an interface-counters measurement (as returned by \
            collect_interface_counters) as healthy, degraded or down, with reasons.",
        )
        .tags(["netops", "observe", "interface", "health"])
        .examples(["the output of collect_interface_counters, unchanged"])
}

/// The three declarations, in advertisement order, waiting for their handlers.
pub fn all() -> [SkillBuilder; 3] {
    [
        evaluate_resource_condition(),
        collect_interface_counters(),
        assess_interface_health(),
    ]
}

//! The declared interface of each skill (ids, schemas, interaction, authority, constraints), in
//! one place, so the Skill the runtime serves and the document the tests check are built from
//! the same declaration.

use serde_json::Value;
use skillgate_core::document::InterfaceBuilder;
use skillgate_core::wire::{Authority, AuthorityMode, Constraints, Interaction, ResponseMode};

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

/// One Schema Reference's ingredients.
#[derive(Debug, Clone, Copy)]
pub struct SchemaSpec {
    /// Identity URI (never fetched).
    pub schema_uri: &'static str,
    /// Schema version.
    pub version: &'static str,
    /// The schema.
    pub schema: &'static Value,
}

/// Everything a skill declares besides its handler.
#[derive(Debug, Clone)]
pub struct SkillSpec {
    /// Skill id.
    pub id: &'static str,
    /// Skill version.
    pub version: &'static str,
    /// Human-readable name for the Agent Card.
    pub name: &'static str,
    /// Description for the Agent Card.
    pub description: &'static str,
    /// Agent Card tags.
    pub tags: &'static [&'static str],
    /// Agent Card example prompts.
    pub examples: &'static [&'static str],
    /// Input schema.
    pub input: SchemaSpec,
    /// Output schema.
    pub output: SchemaSpec,
    /// Record kind -> schema.
    pub records: Vec<(&'static str, SchemaSpec)>,
    /// Interaction behaviour.
    pub interaction: Interaction,
    /// Authority posture.
    pub authority: Authority,
    /// Constraints.
    pub constraints: Constraints,
}

impl SkillSpec {
    /// The core builder for this skill's Skill Interface Document.
    pub fn interface_builder(&self) -> InterfaceBuilder {
        let mut b = InterfaceBuilder::new(self.id, self.version)
            .input(
                self.input.schema_uri,
                self.input.version,
                self.input.schema.clone(),
            )
            .output(
                self.output.schema_uri,
                self.output.version,
                self.output.schema.clone(),
            )
            .interaction(self.interaction.clone())
            .authority(self.authority.clone())
            .constraints(self.constraints.clone());
        for (kind, s) in &self.records {
            b = b.record(*kind, s.schema_uri, s.version, s.schema.clone());
        }
        b
    }
}

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

fn constraints() -> Constraints {
    Constraints {
        max_input_bytes: Some(MAX_INPUT_BYTES),
        max_duration_ms: Some(MAX_DURATION_MS),
        ..Constraints::default()
    }
}

/// The counters measurement, shared verbatim by collect's output and assess's input.
fn measurement() -> SchemaSpec {
    SchemaSpec {
        schema_uri: schemas::INTERFACE_COUNTERS_URI,
        version: SCHEMA_VERSION,
        schema: schemas::interface_counters(),
    }
}

/// `evaluate_resource_condition`.
pub fn evaluate_resource_condition() -> SkillSpec {
    SkillSpec {
        id: EVALUATE_RESOURCE_CONDITION,
        version: SKILL_VERSION,
        name: "Evaluate resource condition",
        description: "Observes one metric of one network interface on the agent's host (utilization, \
            rx/tx bytes per second over a short window, rx errors or drops) and says whether it meets \
            a threshold; returns the observation as a resource-observation record.",
        tags: &["netops", "observe", "interface", "threshold"],
        examples: &[
            r#"{"resource_id":"eth0","condition":{"metric":"utilization","operator":"gte","threshold":80,"unit":"percent"}}"#,
        ],
        input: SchemaSpec {
            schema_uri: schemas::EVALUATE_INPUT_URI,
            version: SCHEMA_VERSION,
            schema: schemas::evaluate_input(),
        },
        output: SchemaSpec {
            schema_uri: schemas::EVALUATE_OUTPUT_URI,
            version: SCHEMA_VERSION,
            schema: schemas::evaluate_output(),
        },
        records: vec![(
            RESOURCE_OBSERVATION,
            SchemaSpec {
                schema_uri: schemas::RESOURCE_OBSERVATION_URI,
                version: SCHEMA_VERSION,
                schema: schemas::resource_observation(),
            },
        )],
        interaction: interaction(),
        authority: observe_only(),
        constraints: constraints(),
    }
}

/// `collect_interface_counters`.
pub fn collect_interface_counters() -> SkillSpec {
    SkillSpec {
        id: COLLECT_INTERFACE_COUNTERS,
        version: SKILL_VERSION,
        name: "Collect interface counters",
        description:
            "Reads the /proc/net/dev counters of one interface twice, a short window apart, \
            and returns them with byte rates and the sysfs link attributes (operstate, mtu, speed) \
            as an interface-counters measurement.",
        tags: &["netops", "observe", "interface", "counters"],
        examples: &[r#"{"interface":"lo","window_ms":500}"#],
        input: SchemaSpec {
            schema_uri: schemas::COLLECT_INPUT_URI,
            version: SCHEMA_VERSION,
            schema: schemas::collect_input(),
        },
        output: measurement(),
        records: Vec::new(),
        interaction: interaction(),
        authority: observe_only(),
        constraints: constraints(),
    }
}

/// `assess_interface_health`.
pub fn assess_interface_health() -> SkillSpec {
    SkillSpec {
        id: ASSESS_INTERFACE_HEALTH,
        version: SKILL_VERSION,
        name: "Assess interface health",
        description: "Judges an interface-counters measurement (as returned by \
            collect_interface_counters) as healthy, degraded or down, with reasons.",
        tags: &["netops", "observe", "interface", "health"],
        examples: &["the output of collect_interface_counters, unchanged"],
        input: measurement(),
        output: SchemaSpec {
            schema_uri: schemas::ASSESS_OUTPUT_URI,
            version: SCHEMA_VERSION,
            schema: schemas::assess_output(),
        },
        records: Vec::new(),
        interaction: interaction(),
        authority: observe_only(),
        constraints: constraints(),
    }
}

/// The three declarations, in advertisement order.
pub fn all() -> [SkillSpec; 3] {
    [
        evaluate_resource_condition(),
        collect_interface_counters(),
        assess_interface_health(),
    ]
}

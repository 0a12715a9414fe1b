//! The check catalogue: every check's stable id, requirement and whether it is required.
//!
//! Ids never change meaning once published; a new requirement gets a new id.

/// One entry of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckDef {
    /// Stable id.
    pub id: &'static str,
    /// The requirement, in the draft's words.
    pub title: &'static str,
    /// Whether a failure fails the run.
    pub required: bool,
    /// Whether the check runs once per advertised skill.
    pub per_skill: bool,
}

const fn def(id: &'static str, title: &'static str, required: bool, per_skill: bool) -> CheckDef {
    CheckDef {
        id,
        title,
        required,
        per_skill,
    }
}

/// The Agent Card is served at the well-known path and parses as an A2A card (1.0, or 0.3 read into the 1.0 model).
pub const CARD_FETCH: CheckDef = def(
    "SI-CARD-001",
    "Agent Card served at /.well-known/agent-card.json and parses as an A2A AgentCard (1.0 or 0.3)",
    true,
    false,
);
/// The card offers an interface this checker can probe.
pub const CARD_INTERFACE: CheckDef = def(
    "SI-CARD-002",
    "card offers a JSONRPC or HTTP+JSON interface with protocolVersion 1.0 (or, on a 0.3-only agent, a 0.3 interface)",
    true,
    false,
);
/// The extension is advertised under its exact URI.
pub const EXT_ADVERTISED: CheckDef = def(
    "SI-EXT-001",
    "capabilities.extensions[] advertises the schema-interface extension under its exact URI",
    true,
    false,
);
/// `params.interface_version` is `"1.0"`.
pub const EXT_INTERFACE_VERSION: CheckDef = def(
    "SI-EXT-002",
    "extension params.interface_version is \"1.0\"",
    true,
    false,
);
/// `params.skills` is well formed.
pub const EXT_SKILLS_WELL_FORMED: CheckDef = def(
    "SI-EXT-003",
    "extension params.skills is a list of {skill_id, skill_version (Major.Minor), interface_digest (sha256:)}",
    true,
    false,
);
/// One binding per skill id, and describe_skill is not a domain binding.
pub const EXT_ONE_BINDING: CheckDef = def(
    "SI-EXT-004",
    "params.skills has one binding per skill id and does not list describe_skill",
    true,
    false,
);
/// Advertised skills are card skills.
pub const EXT_SKILLS_IN_CARD: CheckDef = def(
    "SI-EXT-005",
    "every advertised skill_id is also in the card's skills[]",
    true,
    false,
);
/// describe_skill is a card skill.
pub const EXT_DESCRIBE_IN_CARD: CheckDef = def(
    "SI-EXT-006",
    "describe_skill is in the card's skills[]",
    true,
    false,
);
/// describe_skill result shape.
pub const DESCRIBE_RESULT: CheckDef = def(
    "SI-DESC-001",
    "describe_skill completes with one Artifact named describe_skill holding one Data Part {interface_digest, skill_interface}",
    true,
    true,
);
/// Three-way digest agreement.
pub const DESCRIBE_DIGEST: CheckDef = def(
    "SI-DESC-002",
    "three-way digest: advertised interface_digest = returned interface_digest = digest(skill_interface)",
    true,
    true,
);
/// The document validates.
pub const DESCRIBE_DOCUMENT: CheckDef = def(
    "SI-DESC-003",
    "skill_interface validates against the trusted Skill Interface Schema and matches the advertised skill_id and skill_version",
    true,
    true,
);
/// Unknown skill in describe_skill.
pub const DESCRIBE_UNKNOWN: CheckDef = def(
    "SI-DESC-004",
    "describe_skill for an unknown skill answers interface_unavailable with TASK_STATE_FAILED",
    true,
    false,
);
/// Probe generation from the input schema.
pub const PROBE_GENERATION: CheckDef = def(
    "SI-GEN-001",
    "valid and invalid probe arguments could be generated from input_schema",
    false,
    true,
);
/// Wrong skill_version is a mismatch, checked before input.
pub const MISMATCH_VERSION: CheckDef = def(
    "SI-MISMATCH-001",
    "a wrong skill_version (sent with invalid arguments) gets interface_mismatch with TASK_STATE_REJECTED, before input checks",
    true,
    true,
);
/// Wrong interface_digest is a mismatch, checked before input.
pub const MISMATCH_DIGEST: CheckDef = def(
    "SI-MISMATCH-002",
    "a wrong interface_digest (sent with invalid arguments) gets interface_mismatch with TASK_STATE_REJECTED, before input checks",
    true,
    true,
);
/// Missing required member.
pub const INPUT_MISSING_REQUIRED: CheckDef = def(
    "SI-INPUT-001",
    "arguments missing a required member get input_invalid with TASK_STATE_REJECTED and details[].instance_path",
    true,
    true,
);
/// Wrong type.
pub const INPUT_WRONG_TYPE: CheckDef = def(
    "SI-INPUT-002",
    "arguments with a member of the wrong type get input_invalid with TASK_STATE_REJECTED and details[].instance_path",
    true,
    true,
);
/// No echo of input values.
pub const INPUT_NO_ECHO: CheckDef = def(
    "SI-INPUT-003",
    "input_invalid errors never echo the offending input value",
    true,
    true,
);
/// A valid call completes.
pub const CALL_COMPLETES: CheckDef = def(
    "SI-CALL-001",
    "a valid call (generated from input_schema) completes with TASK_STATE_COMPLETED",
    true,
    true,
);
/// Primary artifact.
pub const CALL_PRIMARY: CheckDef = def(
    "SI-CALL-002",
    "exactly one Artifact is named the skill id; its single Data Part validates against output_schema",
    true,
    true,
);
/// Record artifacts.
pub const CALL_RECORDS: CheckDef = def(
    "SI-CALL-003",
    "every other Artifact is named a declared record kind (never the skill id) and validates against that kind's schema",
    true,
    true,
);
/// Integers written as floats are integers.
pub const CALL_INTEGRAL_FLOATS: CheckDef = def(
    "SI-CALL-004",
    "the valid call with its integers written as floats (2 as 2.0, as protobuf-based peers send them) is served like the original, never input_invalid",
    false,
    true,
);
/// Error results are well formed.
pub const ERROR_SHAPE: CheckDef = def(
    "SI-ERR-001",
    "error results carry a ROLE_AGENT status message with exactly one Data Part {code, message?, details?} naming one of the ten codes",
    true,
    false,
);
/// The extension is echoed.
pub const EXTENSION_ECHO: CheckDef = def(
    "SI-ECHO-001",
    "every response to a request activating the extension echoes its URI in A2A-Extensions",
    true,
    false,
);

/// Every check, in run order.
pub const CATALOGUE: &[CheckDef] = &[
    CARD_FETCH,
    CARD_INTERFACE,
    EXT_ADVERTISED,
    EXT_INTERFACE_VERSION,
    EXT_SKILLS_WELL_FORMED,
    EXT_ONE_BINDING,
    EXT_SKILLS_IN_CARD,
    EXT_DESCRIBE_IN_CARD,
    DESCRIBE_RESULT,
    DESCRIBE_DIGEST,
    DESCRIBE_DOCUMENT,
    DESCRIBE_UNKNOWN,
    PROBE_GENERATION,
    MISMATCH_VERSION,
    MISMATCH_DIGEST,
    INPUT_MISSING_REQUIRED,
    INPUT_WRONG_TYPE,
    INPUT_NO_ECHO,
    CALL_COMPLETES,
    CALL_PRIMARY,
    CALL_RECORDS,
    CALL_INTEGRAL_FLOATS,
    ERROR_SHAPE,
    EXTENSION_ECHO,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = std::collections::BTreeSet::new();
        for c in CATALOGUE {
            assert!(seen.insert(c.id), "duplicate id {}", c.id);
            let parts: Vec<&str> = c.id.split('-').collect();
            assert_eq!(parts.len(), 3, "{}", c.id);
            assert_eq!(parts[0], "SI");
            assert!(parts[1].chars().all(|ch| ch.is_ascii_uppercase()));
            assert_eq!(parts[2].len(), 3);
            assert!(parts[2].chars().all(|ch| ch.is_ascii_digit()));
        }
    }
}

//! The rule catalogue: every id a finding can carry, what it names and why it matters.
//! `docs/interface-diff.md` documents each one with an example (a test keeps the two in step).

/// One rule of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable id; rules are retired, never renumbered.
    pub id: &'static str,
    /// What the rule names, in one line.
    pub what: &'static str,
}

macro_rules! rules {
    ($($id:literal => $what:literal,)*) => {
        /// Every rule, in documentation order.
        pub const RULES: &[Rule] = &[$(Rule { id: $id, what: $what },)*];
    };
}

rules! {
    "EVO-SCHEMA-001" => "A type is no longer accepted (type narrowed).",
    "EVO-SCHEMA-002" => "A type is newly accepted (type widened).",
    "EVO-SCHEMA-003" => "Enum values removed, or an enum introduced.",
    "EVO-SCHEMA-004" => "Enum values added, or the enum removed.",
    "EVO-SCHEMA-005" => "const introduced, removed or changed.",
    "EVO-SCHEMA-006" => "A bound tightened or introduced (minimum, maximum, exclusive bounds, lengths, item and property counts, contains counts, multipleOf).",
    "EVO-SCHEMA-007" => "A bound loosened or removed.",
    "EVO-SCHEMA-008" => "pattern introduced.",
    "EVO-SCHEMA-009" => "pattern removed.",
    "EVO-SCHEMA-010" => "pattern changed (one regular expression is not compared with another).",
    "EVO-SCHEMA-011" => "A member became required.",
    "EVO-SCHEMA-012" => "A member is no longer required.",
    "EVO-SCHEMA-013" => "additionalProperties closed, narrowed or changed.",
    "EVO-SCHEMA-014" => "additionalProperties opened or widened.",
    "EVO-SCHEMA-015" => "A property's schema removed from properties.",
    "EVO-SCHEMA-016" => "A property's schema added to properties.",
    "EVO-SCHEMA-017" => "format introduced (formats are asserted).",
    "EVO-SCHEMA-018" => "format removed.",
    "EVO-SCHEMA-019" => "format changed.",
    "EVO-SCHEMA-020" => "uniqueItems required or no longer required.",
    "EVO-SCHEMA-021" => "A subschema added to or removed from allOf, anyOf, not or contains.",
    "EVO-SCHEMA-022" => "oneOf or if changed (not decided by the walk).",
    "EVO-SCHEMA-023" => "A $ref does not resolve inside the schema.",
    "EVO-SCHEMA-024" => "A recursive $ref target changed.",
    "EVO-SCHEMA-025" => "A keyword the walk does not judge changed (patternProperties, dependent*, unevaluated*, $id, $anchor, dynamic references, content*, a changed contains, a non-integer multipleOf).",
    "EVO-SCHEMA-026" => "A schema became false, or stopped being false.",
    "EVO-SCHEMA-027" => "An annotation changed (title, description, default, examples, ...).",
    "EVO-SCHEMA-028" => "The schema algebra proves values are lost (input) or gained (output, record) where no keyword rule says so.",
    "EVO-SCHEMA-029" => "A keyword JSON Schema 2020-12 does not define changed (possibly breaking even when the values are provably the same).",
    "EVO-REF-001" => "A Schema Reference's schema_uri changed.",
    "EVO-REF-002" => "A Schema Reference's version changed.",
    "EVO-SET-001" => "A supporting record kind removed.",
    "EVO-SET-002" => "A supporting record kind added.",
    "EVO-MODE-001" => "A response mode removed.",
    "EVO-MODE-002" => "A response mode added.",
    "EVO-MODE-003" => "cancelable withdrawn.",
    "EVO-MODE-004" => "cancelable granted.",
    "EVO-AUTH-001" => "The default authority mode widened (observe_only < recommend_only < execute).",
    "EVO-AUTH-002" => "The default authority mode narrowed.",
    "EVO-AUTH-003" => "approval_may_be_required withdrawn.",
    "EVO-AUTH-004" => "approval_may_be_required introduced.",
    "EVO-LIMIT-001" => "max_input_bytes lowered or introduced.",
    "EVO-LIMIT-002" => "max_input_bytes raised or removed.",
    "EVO-LIMIT-003" => "max_duration_ms raised or removed.",
    "EVO-LIMIT-004" => "max_duration_ms lowered or introduced.",
    "EVO-LIMIT-005" => "A constraint this profile does not define changed.",
    "EVO-ID-001" => "The documents describe different skills.",
    "EVO-VER-001" => "NEW's skill_version does not carry the bump the changes need.",
}

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

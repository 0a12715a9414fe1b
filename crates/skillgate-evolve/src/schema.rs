//! One schema of one side: the structural walk for the per-keyword findings, the schema
//! algebra for a proof, and the rule that joins them (docs/design.md, D212).

use serde::Serialize;
use serde_json::Value;

use crate::algebra::{includes, Decision};
use crate::finding::{Class, Finding, Side};
use crate::walk::Walk;

/// The comparison of one schema between OLD and NEW.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaDiff {
    /// The side (input, output or a record kind); it sets the direction.
    pub side: Side,
    /// What the schema algebra proved for that direction, or why it could not.
    pub algebra: Decision,
    /// Every change, classified for the side.
    pub findings: Vec<Finding>,
}

impl SchemaDiff {
    /// The worst class of any finding, `None` without findings.
    pub fn worst(&self) -> Option<Class> {
        self.findings.iter().map(|f| f.class).max()
    }

    /// True when no existing caller (input) or consumer (output, record) can fail: no finding
    /// is breaking or possibly breaking.
    pub fn compatible(&self) -> bool {
        self.worst().is_none_or(|c| c < Class::PossiblyBreaking)
    }
}

fn join(base: &str, rel: Option<String>) -> Option<String> {
    rel.map(|r| format!("{base}{r}"))
}

/// Compares the schema of one side. `old_base` and `new_base` are the pointers of the two
/// schemas inside their documents (prefixed to every finding's pointers). A `side` without a
/// schema is read as input (callers send).
pub fn compare_schema(
    side: Side,
    old: &Value,
    new: &Value,
    old_base: &str,
    new_base: &str,
) -> SchemaDiff {
    compare(side, old, new, old_base, new_base, true)
}

/// [`compare_schema`] without the schema algebra: the structural walk alone (its `algebra`
/// is `Undecided`). For the property test, which holds the walk to the same soundness rule.
#[doc(hidden)]
pub fn compare_schema_structural(side: Side, old: &Value, new: &Value) -> SchemaDiff {
    compare(side, old, new, "", "", false)
}

fn compare(
    side: Side,
    old: &Value,
    new: &Value,
    old_base: &str,
    new_base: &str,
    use_algebra: bool,
) -> SchemaDiff {
    let callers_send = side.callers_send().unwrap_or(true);
    let mut findings: Vec<Finding> = Walk::run(old, new)
        .into_iter()
        .map(|c| Finding {
            rule: c.rule,
            side: side.clone(),
            class: c.effect.class_for(callers_send),
            old_pointer: join(old_base, c.old),
            new_pointer: join(new_base, c.new),
            reason: c.reason,
        })
        .collect();
    // Input: NEW must include OLD. Output and records: OLD must include NEW.
    let algebra = if old == new {
        Decision::Included
    } else if !use_algebra {
        Decision::Undecided("the schema algebra was not asked".to_owned())
    } else if callers_send {
        includes(new, old)
    } else {
        includes(old, new)
    };
    match &algebra {
        Decision::Included => {
            // A proof beats the walk's suspicion: the keyword changes are real, but no value
            // crosses the line in the direction that hurts.
            for f in &mut findings {
                // EVO-SCHEMA-029 is about meaning, not values: the proof does not reach it.
                if f.class >= Class::PossiblyBreaking && f.rule != "EVO-SCHEMA-029" {
                    f.class = Class::Compatible;
                    f.reason
                        .push_str(" (the schema algebra proves no caller or consumer is affected)");
                }
            }
        }
        Decision::NotIncluded => {
            if !findings.iter().any(|f| f.class == Class::Breaking) {
                let what = if callers_send {
                    "NEW rejects some value OLD accepts"
                } else {
                    "NEW admits some value OLD rejects"
                };
                findings.push(Finding {
                    rule: "EVO-SCHEMA-028",
                    side: side.clone(),
                    class: Class::Breaking,
                    old_pointer: Some(old_base.to_owned()),
                    new_pointer: Some(new_base.to_owned()),
                    reason: format!("the schema algebra proves it: {what}"),
                });
            }
        }
        Decision::Undecided(_) => {}
    }
    SchemaDiff {
        side,
        algebra,
        findings,
    }
}

/// Whether a value produced under `upstream_output` is always accepted by
/// `downstream_input`: the profile extension `interface compose` reports beside the draft's
/// exact rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "inclusion", rename_all = "snake_case")]
pub enum Inclusion {
    /// Every value the upstream output schema accepts, the downstream input schema accepts.
    Included,
    /// Some upstream value is refused downstream; the findings say where.
    NotIncluded {
        /// What differs, as findings of an input-side comparison (upstream as OLD).
        findings: Vec<Finding>,
    },
    /// Neither could be shown; the findings say what could not be judged.
    Undecided {
        /// What could not be judged.
        findings: Vec<Finding>,
    },
}

/// Decides [`Inclusion`] with the same walk and algebra as a diff: upstream output plays OLD,
/// downstream input plays NEW, on the input side (NEW must accept what OLD accepts).
pub fn inclusion(upstream_output: &Value, downstream_input: &Value) -> Inclusion {
    let d = compare_schema(
        Side::Input,
        upstream_output,
        downstream_input,
        "/output_schema/resolution/schema",
        "/input_schema/resolution/schema",
    );
    let relevant = |min: Class| -> Vec<Finding> {
        d.findings
            .iter()
            .filter(|f| f.class >= min)
            .cloned()
            .collect()
    };
    match d.worst() {
        Some(Class::Breaking) => Inclusion::NotIncluded {
            findings: relevant(Class::PossiblyBreaking),
        },
        Some(Class::PossiblyBreaking) => Inclusion::Undecided {
            findings: relevant(Class::PossiblyBreaking),
        },
        _ => Inclusion::Included,
    }
}

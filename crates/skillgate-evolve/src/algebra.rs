//! The schema algebra of `jsonschema` (`jsonschema::canonical`, experimental; pinned to
//! 0.61.2 in this crate's manifest): a containment decision between two whole schemas.
//!
//! Only a proof counts. `covers` answering `Yes` proves every value of one schema is a value
//! of the other; `No` proves a value that is not; `Unknown`, an error, or an operand the
//! canonical form keeps verbatim (`Raw`) decide nothing, and the caller falls back to the
//! structural walk. The options match how the runtime validates (draft 2020-12, `format`
//! asserted, nothing fetched), so the algebra reasons about the same sets the gate enforces.

use jsonschema::canonical::{self, CanonicalSchema, Containment};
use jsonschema::Draft;
use serde::Serialize;
use serde_json::Value;

/// What the algebra decided about "OUTER accepts every value INNER accepts".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", content = "reason", rename_all = "snake_case")]
pub enum Decision {
    /// Proven: every value INNER accepts, OUTER accepts.
    Included,
    /// Proven: some value INNER accepts, OUTER rejects.
    NotIncluded,
    /// Not decided, and why (kept for the report: a user sees what the algebra could not do).
    Undecided(String),
}

fn canonicalize(schema: &Value) -> Result<CanonicalSchema, String> {
    canonical::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .offline()
        .canonicalize(schema)
        .map_err(|e| e.to_string())
}

/// Whether `outer` accepts every value `inner` accepts, by the schema algebra alone.
pub fn includes(outer: &Value, inner: &Value) -> Decision {
    if outer == inner {
        return Decision::Included;
    }
    let (o, i) = match (canonicalize(outer), canonicalize(inner)) {
        (Ok(o), Ok(i)) => (o, i),
        (Err(e), _) | (_, Err(e)) => {
            return Decision::Undecided(format!("canonicalization failed: {e}"))
        }
    };
    match o.covers(&i) {
        Ok(Containment::Yes) => Decision::Included,
        Ok(Containment::No) => Decision::NotIncluded,
        Ok(Containment::Unknown) => {
            Decision::Undecided("the schema algebra could not decide".to_owned())
        }
        Err(e) => Decision::Undecided(format!("the schema algebra declined: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decides_the_plain_cases_and_declines_the_rest() {
        let s = json!({"type": "string"});
        let short = json!({"type": "string", "maxLength": 5});
        assert_eq!(includes(&s, &short), Decision::Included);
        assert_eq!(includes(&short, &s), Decision::NotIncluded);
        let raw = json!({"type": "object", "unevaluatedProperties": false, "dependencies": {}});
        assert!(matches!(includes(&raw, &s), Decision::Undecided(_)));
    }
}

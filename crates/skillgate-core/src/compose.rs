//! Direct composition: may one skill's output feed another skill's input as-is?
//!
//! The draft's rule is deliberately conservative: the two Schema References must agree on
//! `schema_uri`, `version`, `dialect` and `digest`, and both embedded schemas must hash to that
//! digest. Structural similarity is never enough.

use std::fmt;

use crate::digest::digest;
use crate::wire::SchemaReference;

/// Which part of the comparison failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompositionField {
    /// `schema_uri` differs.
    SchemaUri,
    /// `version` differs.
    Version,
    /// `dialect` differs.
    Dialect,
    /// `digest` differs.
    Digest,
    /// The upstream embedded schema does not hash to its declared digest.
    UpstreamContent,
    /// The downstream embedded schema does not hash to its declared digest.
    DownstreamContent,
}

impl CompositionField {
    /// The wire name of the field (or a description of the content check).
    pub fn as_str(self) -> &'static str {
        match self {
            CompositionField::SchemaUri => "schema_uri",
            CompositionField::Version => "version",
            CompositionField::Dialect => "dialect",
            CompositionField::Digest => "digest",
            CompositionField::UpstreamContent => "upstream resolution.schema",
            CompositionField::DownstreamContent => "downstream resolution.schema",
        }
    }
}

impl fmt::Display for CompositionField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why two references do not compose directly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "not directly composable: {field} differs (upstream {upstream:?}, downstream {downstream:?})"
)]
pub struct CompositionError {
    /// The first field that differs.
    pub field: CompositionField,
    /// The upstream side's value.
    pub upstream: String,
    /// The downstream side's value.
    pub downstream: String,
}

/// Holds when the upstream output reference and the downstream input reference are identical
/// in all four identity fields and both embedded schemas match their digest.
pub fn direct_composition(
    upstream_output: &SchemaReference,
    downstream_input: &SchemaReference,
) -> Result<(), CompositionError> {
    let differ = |field, upstream: &dyn ToString, downstream: &dyn ToString| CompositionError {
        field,
        upstream: upstream.to_string(),
        downstream: downstream.to_string(),
    };
    let (u, d) = (upstream_output, downstream_input);
    if u.schema_uri != d.schema_uri {
        return Err(differ(
            CompositionField::SchemaUri,
            &u.schema_uri,
            &d.schema_uri,
        ));
    }
    if u.version != d.version {
        return Err(differ(CompositionField::Version, &u.version, &d.version));
    }
    if u.dialect != d.dialect {
        return Err(differ(CompositionField::Dialect, &u.dialect, &d.dialect));
    }
    if u.digest != d.digest {
        return Err(differ(CompositionField::Digest, &u.digest, &d.digest));
    }
    let ud = digest(&u.resolution.schema);
    if ud != u.digest {
        return Err(differ(CompositionField::UpstreamContent, &ud, &u.digest));
    }
    let dd = digest(&d.resolution.schema);
    if dd != d.digest {
        return Err(differ(CompositionField::DownstreamContent, &d.digest, &dd));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::schema_reference;
    use serde_json::json;

    fn measurement() -> SchemaReference {
        schema_reference(
            "urn:example:measurement",
            "1.0",
            json!({"type": "object", "required": ["value"]}),
        )
    }

    #[test]
    fn identical_references_compose() {
        assert!(direct_composition(&measurement(), &measurement()).is_ok());
    }

    #[test]
    fn each_differing_field_is_named() {
        let base = measurement();
        let mut uri = base.clone();
        uri.schema_uri = "urn:example:other".into();
        let mut version = base.clone();
        version.version = "1.1".into();
        let mut dialect = base.clone();
        dialect.dialect = "http://json-schema.org/draft-07/schema#".into();
        let same_shape_other_meaning = schema_reference(
            "urn:example:measurement",
            "1.0",
            json!({"type": "object", "required": ["value"], "description": "capacity"}),
        );
        let mut tampered = base.clone();
        tampered.resolution.schema = json!({"type": "object"});
        for (down, field) in [
            (uri, CompositionField::SchemaUri),
            (version, CompositionField::Version),
            (dialect, CompositionField::Dialect),
            (same_shape_other_meaning, CompositionField::Digest),
            (tampered.clone(), CompositionField::DownstreamContent),
        ] {
            assert_eq!(direct_composition(&base, &down).unwrap_err().field, field);
        }
        assert_eq!(
            direct_composition(&tampered, &base).unwrap_err().field,
            CompositionField::UpstreamContent
        );
    }
}

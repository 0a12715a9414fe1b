//! Skill Interface Documents: assembly, validation, and the immutable validated form.
//!
//! Every document, whether we assembled it or a peer returned it, goes through the same
//! [`validate_document`] checks: the trusted copy of `skill-interface-v1.json`, the version
//! rules, every embedded schema's digest, meta-schema and self-containment, record kinds, and
//! the caller's expectations. Only a document without findings becomes a
//! [`ValidatedDocument`], whose digest and canonical bytes are computed exactly once.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::digest::{digest, Digest};
use crate::instance::{CompiledSchema, SchemaError};
use crate::jcs;
use crate::refs;
use crate::version::Version;
use crate::wire::{
    self, names, Authority, AuthorityMode, Constraints, Interaction, Resolution, ResponseMode,
    SchemaReference, SkillInterfaceDocument,
};

/// The project's Skill Interface Schema (JSON Schema 2020-12), the trusted local copy.
pub const SKILL_INTERFACE_SCHEMA: &str = include_str!("../schemas/skill-interface-v1.json");

mod finding;
pub use finding::{Finding, FindingKind, InterfaceError};

/// What the caller expects the document to be (client steps 4 and 5).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    /// The selected skill id.
    pub skill_id: Option<String>,
    /// The selected (advertised) skill version.
    pub skill_version: Option<String>,
    /// The advertised interface digest.
    pub interface_digest: Option<Digest>,
}

fn trusted_validator() -> Option<&'static CompiledSchema> {
    static TRUSTED: OnceLock<Option<CompiledSchema>> = OnceLock::new();
    TRUSTED
        .get_or_init(|| {
            let value: Value = serde_json::from_str(SKILL_INTERFACE_SCHEMA).ok()?;
            CompiledSchema::compile(&value).ok()
        })
        .as_ref()
}

fn record_kind_ok(k: &str) -> bool {
    let mut bytes = k.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z' | b'0'..=b'9'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-'))
}

fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Compiled validators for one document, produced while checking it.
struct Compiled {
    input: Option<CompiledSchema>,
    output: Option<CompiledSchema>,
    records: BTreeMap<String, CompiledSchema>,
}

/// Validates a document and returns every finding (empty means valid).
pub fn validate_document(value: &Value, expect: &Expectations) -> Vec<Finding> {
    check(value, expect).0
}

fn check(value: &Value, expect: &Expectations) -> (Vec<Finding>, Compiled) {
    let mut findings = Vec::new();
    let mut compiled = Compiled {
        input: None,
        output: None,
        records: BTreeMap::new(),
    };

    match trusted_validator() {
        Some(trusted) => {
            if let Err(details) = trusted.validate(value) {
                for d in details {
                    let what = match (&d.keyword, &d.expected) {
                        (Some(k), Some(e)) => format!("{k}: expected {e}"),
                        (Some(k), None) => format!("fails {k}"),
                        _ => "does not match the Skill Interface Schema".to_owned(),
                    };
                    let found = d.actual.as_deref().unwrap_or("?");
                    findings.push(Finding::new(
                        FindingKind::TrustedSchema,
                        d.instance_path,
                        format!("{what}, found {found} (skill-interface-v1.json)"),
                    ));
                }
            }
        }
        None => findings.push(Finding::new(
            FindingKind::TrustedSchemaUnavailable,
            "",
            "the built-in Skill Interface Schema failed to load",
        )),
    }

    let Some(doc) = value.as_object() else {
        return (findings, compiled);
    };

    let str_at = |name: &str| doc.get(name).and_then(Value::as_str);
    if let Some(v) = str_at(names::INTERFACE_VERSION) {
        if v != wire::INTERFACE_VERSION {
            findings.push(Finding::new(
                FindingKind::InterfaceVersion,
                format!("/{}", names::INTERFACE_VERSION),
                format!("interface_version is {v:?}; only \"1.0\" is supported"),
            ));
        }
    }
    if let Some(v) = str_at(names::SKILL_VERSION) {
        if !Version::is_valid(v) {
            findings.push(Finding::new(
                FindingKind::VersionSyntax,
                format!("/{}", names::SKILL_VERSION),
                format!("skill_version {v:?} is not Major.Minor without leading zeros"),
            ));
        }
    }
    let skill_id = str_at(names::SKILL_ID);

    for (name, slot) in [
        (names::INPUT_SCHEMA, &mut compiled.input),
        (names::OUTPUT_SCHEMA, &mut compiled.output),
    ] {
        if let Some(reference) = doc.get(name) {
            *slot = check_reference(reference, &format!("/{name}"), &mut findings);
        }
    }
    if let Some(Value::Object(records)) = doc.get(names::SUPPORTING_RECORD_SCHEMAS) {
        for (kind, reference) in records {
            let path = format!(
                "/{}/{}",
                names::SUPPORTING_RECORD_SCHEMAS,
                escape_token(kind)
            );
            if !record_kind_ok(kind) {
                findings.push(Finding::new(
                    FindingKind::RecordKindSyntax,
                    path.clone(),
                    format!("record kind {kind:?} does not match ^[a-z0-9][a-z0-9_.-]*$"),
                ));
            }
            if Some(kind.as_str()) == skill_id {
                findings.push(Finding::new(
FindingKind::RecordKindIsSkillId,
                    path.clone(),
                    format!("record kind {kind:?} equals the skill id; a record must never be confusable with the primary result"),
                ));
            }
            if let Some(c) = check_reference(reference, &path, &mut findings) {
                compiled.records.insert(kind.clone(), c);
            }
        }
    }

    if let (Some(want), Some(got)) = (&expect.skill_id, skill_id) {
        if want != got {
            findings.push(Finding::new(
                FindingKind::SkillIdMismatch,
                format!("/{}", names::SKILL_ID),
                format!("document describes skill {got:?}, expected {want:?}"),
            ));
        }
    }
    if let (Some(want), Some(got)) = (&expect.skill_version, str_at(names::SKILL_VERSION)) {
        if want != got {
            findings.push(Finding::new(
                FindingKind::SkillVersionMismatch,
                format!("/{}", names::SKILL_VERSION),
                format!("document is skill version {got:?}, expected {want:?}"),
            ));
        }
    }
    if let Some(want) = &expect.interface_digest {
        let got = digest(value);
        if &got != want {
            findings.push(Finding::new(
                FindingKind::DigestMismatch,
                "",
                format!("document digest is {got}, expected {want}"),
            ));
        }
    }
    (findings, compiled)
}

/// Checks one Schema Reference and compiles its schema when it is usable.
fn check_reference(
    reference: &Value,
    path: &str,
    findings: &mut Vec<Finding>,
) -> Option<CompiledSchema> {
    let obj = reference.as_object()?;
    if let Some(v) = obj.get(names::VERSION).and_then(Value::as_str) {
        if !Version::is_valid(v) {
            findings.push(Finding::new(
                FindingKind::VersionSyntax,
                format!("{path}/{}", names::VERSION),
                format!("schema version {v:?} is not Major.Minor without leading zeros"),
            ));
        }
    }
    let schema = obj.get(names::RESOLUTION)?.get(names::SCHEMA)?;
    let schema_path = format!("{path}/{}/{}", names::RESOLUTION, names::SCHEMA);
    let actual = digest(schema);
    if let Some(declared) = obj.get(names::DIGEST).and_then(Value::as_str) {
        match Digest::parse(declared) {
            Ok(d) if d == actual => {}
            Ok(d) => findings.push(Finding::new(
FindingKind::EmbeddedDigestMismatch,
                format!("{path}/{}", names::DIGEST),
                format!("declared digest {d} does not match the embedded schema, which hashes to {actual}"),
            )),
            Err(e) => findings.push(Finding::new(FindingKind::MalformedDigest, format!("{path}/{}", names::DIGEST), e.to_string())),
        }
    }
    let meta = jsonschema::draft202012::meta::validator();
    let mut meta_ok = true;
    for e in meta.iter_errors(schema) {
        meta_ok = false;
        findings.push(Finding::new(
            FindingKind::NotJsonSchema,
            format!("{schema_path}{}", e.instance_path().as_str()),
            format!("not a valid JSON Schema 2020-12: {}", e.kind().keyword()),
        ));
    }
    let external = refs::external_references(schema);
    for ext in &external {
        findings.push(Finding::new(
FindingKind::ExternalReference,
            format!("{schema_path}{}", ext.path),
            format!(
                "reference {:?} leaves the embedded schema; version 1.0 schemas are self-contained and nothing is fetched",
                ext.reference
            ),
        ));
    }
    if !meta_ok || !external.is_empty() {
        return None;
    }
    match CompiledSchema::compile(schema) {
        Ok(c) => Some(c),
        Err(SchemaError::WrongDialect(d)) => {
            findings.push(Finding::new(
                FindingKind::WrongDialect,
                format!("{schema_path}/$schema"),
                format!("$schema {d:?} is not JSON Schema 2020-12"),
            ));
            None
        }
        Err(e) => {
            findings.push(Finding::new(
                FindingKind::SchemaCompile,
                schema_path,
                e.to_string(),
            ));
            None
        }
    }
}

struct Inner {
    document: SkillInterfaceDocument,
    value: Value,
    digest: Digest,
    canonical: Vec<u8>,
    input: CompiledSchema,
    output: CompiledSchema,
    records: BTreeMap<String, CompiledSchema>,
}

/// An immutable, validated Skill Interface Document with its digest and compiled schemas.
#[derive(Clone)]
pub struct ValidatedDocument(Arc<Inner>);

impl fmt::Debug for ValidatedDocument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValidatedDocument")
            .field("skill_id", &self.0.document.skill_id)
            .field("skill_version", &self.0.document.skill_version)
            .field("interface_digest", &self.0.digest)
            .finish()
    }
}

impl ValidatedDocument {
    /// Validates a received or loaded document; the only way in from untrusted JSON.
    pub fn from_value(value: &Value, expect: &Expectations) -> Result<Self, InterfaceError> {
        let (findings, compiled) = check(value, expect);
        if !findings.is_empty() {
            return Err(InterfaceError { findings });
        }
        let fail = |m: String| InterfaceError {
            findings: vec![Finding::new(FindingKind::Unreadable, "", m)],
        };
        // Peers that send 5000.0 for 5000 describe the same document (same digest).
        let mut typed = value.clone();
        crate::instance::normalize_integral_floats(&mut typed);
        let document: SkillInterfaceDocument =
            serde_json::from_value(typed).map_err(|e| fail(e.to_string()))?;
        let (Some(input), Some(output)) = (compiled.input, compiled.output) else {
            return Err(fail("input or output schema did not compile".to_owned()));
        };
        let canonical = jcs::to_canonical_vec(value);
        let digest = Digest::of_bytes(&canonical);
        Ok(Self(Arc::new(Inner {
            document,
            value: value.clone(),
            digest,
            canonical,
            input,
            output,
            records: compiled.records,
        })))
    }

    /// The typed document.
    pub fn document(&self) -> &SkillInterfaceDocument {
        &self.0.document
    }

    /// The document as JSON.
    pub fn value(&self) -> &Value {
        &self.0.value
    }

    /// `digest(document)`, computed once.
    pub fn interface_digest(&self) -> Digest {
        self.0.digest
    }

    /// The RFC 8785 bytes the digest was computed over.
    pub fn canonical_bytes(&self) -> &[u8] {
        &self.0.canonical
    }

    /// The skill id.
    pub fn skill_id(&self) -> &str {
        &self.0.document.skill_id
    }

    /// The skill version.
    pub fn skill_version(&self) -> &str {
        &self.0.document.skill_version
    }

    /// Validator for `arguments`.
    pub fn input_validator(&self) -> &CompiledSchema {
        &self.0.input
    }

    /// Validator for the primary output.
    pub fn output_validator(&self) -> &CompiledSchema {
        &self.0.output
    }

    /// Validator for a supporting record kind, if declared.
    pub fn record_validator(&self, kind: &str) -> Option<&CompiledSchema> {
        self.0.records.get(kind)
    }
}

/// Assembles a Skill Interface Document from domain schemas, computing every digest.
#[derive(Debug, Clone)]
pub struct InterfaceBuilder {
    skill_id: String,
    skill_version: String,
    input: Option<(String, String, Value)>,
    output: Option<(String, String, Value)>,
    records: BTreeMap<String, (String, String, Value)>,
    interaction: Interaction,
    authority: Authority,
    constraints: Constraints,
}

/// A schema reference assembled from its parts, with its digest computed.
pub fn schema_reference(
    schema_uri: impl Into<String>,
    version: impl Into<String>,
    schema: Value,
) -> SchemaReference {
    SchemaReference {
        schema_uri: schema_uri.into(),
        version: version.into(),
        dialect: wire::DIALECT_2020_12.to_owned(),
        digest: digest(&schema),
        resolution: Resolution {
            kind: wire::RESOLUTION_INLINE.to_owned(),
            schema,
        },
    }
}

impl InterfaceBuilder {
    /// Starts a document for one version of one skill.
    ///
    /// Defaults: all three response modes, not cancelable, `observe_only` without approval,
    /// no constraints.
    pub fn new(skill_id: impl Into<String>, skill_version: impl Into<String>) -> Self {
        Self {
            skill_id: skill_id.into(),
            skill_version: skill_version.into(),
            input: None,
            output: None,
            records: BTreeMap::new(),
            interaction: Interaction {
                response_modes: vec![ResponseMode::Sync, ResponseMode::Stream, ResponseMode::Poll],
                cancelable: false,
            },
            authority: Authority {
                default_mode: AuthorityMode::ObserveOnly,
                approval_may_be_required: false,
            },
            constraints: Constraints::default(),
        }
    }

    /// A builder holding everything a validated document says, so a runtime can host a
    /// document that was written by hand or generated elsewhere (a declarative agent's
    /// `interface = "file.json"`). Building it again yields the same document and digest,
    /// because [`SkillInterfaceDocument`] refuses unknown members and every member is kept.
    pub fn from_document(doc: &ValidatedDocument) -> Self {
        let d = doc.document();
        let part = |r: &SchemaReference| {
            (
                r.schema_uri.clone(),
                r.version.clone(),
                r.resolution.schema.clone(),
            )
        };
        Self {
            skill_id: d.skill_id.clone(),
            skill_version: d.skill_version.clone(),
            input: Some(part(&d.input_schema)),
            output: Some(part(&d.output_schema)),
            records: d
                .supporting_record_schemas
                .iter()
                .map(|(k, r)| (k.clone(), part(r)))
                .collect(),
            interaction: d.interaction.clone(),
            authority: d.authority.clone(),
            constraints: d.constraints.clone(),
        }
    }

    /// The skill id the document will carry (also the key a runtime hosts it under).
    pub fn skill_id(&self) -> &str {
        &self.skill_id
    }

    /// The `Major.Minor` skill version the document will carry; checked by [`Self::build`].
    pub fn skill_version(&self) -> &str {
        &self.skill_version
    }

    /// Sets the input schema.
    pub fn input(
        mut self,
        schema_uri: impl Into<String>,
        version: impl Into<String>,
        schema: Value,
    ) -> Self {
        self.input = Some((schema_uri.into(), version.into(), schema));
        self
    }

    /// Sets the output schema.
    pub fn output(
        mut self,
        schema_uri: impl Into<String>,
        version: impl Into<String>,
        schema: Value,
    ) -> Self {
        self.output = Some((schema_uri.into(), version.into(), schema));
        self
    }

    /// Adds a supporting record kind and its schema.
    pub fn record(
        mut self,
        kind: impl Into<String>,
        schema_uri: impl Into<String>,
        version: impl Into<String>,
        schema: Value,
    ) -> Self {
        self.records
            .insert(kind.into(), (schema_uri.into(), version.into(), schema));
        self
    }

    /// Sets interaction behaviour.
    pub fn interaction(mut self, interaction: Interaction) -> Self {
        self.interaction = interaction;
        self
    }

    /// Sets the authority posture.
    pub fn authority(mut self, authority: Authority) -> Self {
        self.authority = authority;
        self
    }

    /// Sets constraints.
    pub fn constraints(mut self, constraints: Constraints) -> Self {
        self.constraints = constraints;
        self
    }

    /// Computes digests, validates the whole document and freezes it.
    pub fn build(self) -> Result<ValidatedDocument, InterfaceError> {
        let missing = |name: &str| InterfaceError {
            findings: vec![Finding::new(
                FindingKind::Unreadable,
                format!("/{name}"),
                format!("{name} was not given to the builder"),
            )],
        };
        let (iu, iv, is) = self.input.ok_or_else(|| missing(names::INPUT_SCHEMA))?;
        let (ou, ov, os) = self.output.ok_or_else(|| missing(names::OUTPUT_SCHEMA))?;
        let document = SkillInterfaceDocument {
            interface_version: wire::INTERFACE_VERSION.to_owned(),
            skill_id: self.skill_id.clone(),
            skill_version: self.skill_version.clone(),
            input_schema: schema_reference(iu, iv, is),
            output_schema: schema_reference(ou, ov, os),
            supporting_record_schemas: self
                .records
                .into_iter()
                .map(|(k, (u, v, s))| (k, schema_reference(u, v, s)))
                .collect(),
            interaction: self.interaction,
            authority: self.authority,
            constraints: self.constraints,
        };
        let value = serde_json::to_value(&document).map_err(|e| InterfaceError {
            findings: vec![Finding::new(FindingKind::Unreadable, "", e.to_string())],
        })?;
        ValidatedDocument::from_value(
            &value,
            &Expectations {
                skill_id: Some(self.skill_id),
                skill_version: Some(self.skill_version),
                interface_digest: None,
            },
        )
    }
}

/// One Schema Reference digest that [`fix_digests`] rewrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DigestChange {
    /// JSON Pointer of the `digest` member that changed.
    pub path: String,
    /// What the member held before (`None` if it was absent or not a string).
    pub before: Option<String>,
    /// The digest of the embedded schema, now in the member.
    pub after: Digest,
}

/// Recomputes, in place, the `digest` of every Schema Reference a document embeds (input,
/// output and each supporting record kind) from its `resolution.schema`, and reports each
/// one that changed. Meant for authors who edited a schema by hand; it does not validate the
/// rest of the document (run [`validate_document`] afterwards). References without an
/// embedded schema are left alone.
pub fn fix_digests(document: &mut Value) -> Vec<DigestChange> {
    let mut changes = Vec::new();
    let mut fix = |reference: &mut Value, path: String| {
        let Some(obj) = reference.as_object_mut() else {
            return;
        };
        let Some(schema) = obj
            .get(names::RESOLUTION)
            .and_then(|r| r.get(names::SCHEMA))
        else {
            return;
        };
        let after = digest(schema);
        let before = obj
            .get(names::DIGEST)
            .and_then(Value::as_str)
            .map(str::to_owned);
        if before.as_deref() != Some(after.to_string().as_str()) {
            obj.insert(names::DIGEST.to_owned(), Value::String(after.to_string()));
            changes.push(DigestChange {
                path: format!("{path}/{}", names::DIGEST),
                before,
                after,
            });
        }
    };
    let Some(doc) = document.as_object_mut() else {
        return changes;
    };
    for name in [names::INPUT_SCHEMA, names::OUTPUT_SCHEMA] {
        if let Some(r) = doc.get_mut(name) {
            fix(r, format!("/{name}"));
        }
    }
    if let Some(Value::Object(records)) = doc.get_mut(names::SUPPORTING_RECORD_SCHEMAS) {
        for (kind, r) in records.iter_mut() {
            let path = format!(
                "/{}/{}",
                names::SUPPORTING_RECORD_SCHEMAS,
                escape_token(kind)
            );
            fix(r, path);
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error_code::ErrorCode;
    use serde_json::json;

    const APPENDIX_B: &str =
        include_str!("../../../examples/interfaces/evaluate_resource_condition.json");

    #[test]
    fn from_document_rebuilds_the_same_document() {
        let value: Value = serde_json::from_str(APPENDIX_B).unwrap();
        let doc = ValidatedDocument::from_value(&value, &Expectations::default()).unwrap();
        let again = InterfaceBuilder::from_document(&doc).build().unwrap();
        assert_eq!(again.interface_digest(), doc.interface_digest());
        assert_eq!(again.value(), doc.value());
    }

    #[test]
    fn fix_digests_rewrites_only_stale_digests() {
        let mut value: Value = serde_json::from_str(APPENDIX_B).unwrap();
        assert!(
            fix_digests(&mut value.clone()).is_empty(),
            "the example is consistent"
        );
        value["output_schema"]["resolution"]["schema"]["title"] = json!("edited");
        value["input_schema"]["digest"] = json!("nonsense");
        let changes = fix_digests(&mut value);
        let paths: Vec<_> = changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["/input_schema/digest", "/output_schema/digest"]);
        assert_eq!(changes[0].before.as_deref(), Some("nonsense"));
        assert!(validate_document(&value, &Expectations::default()).is_empty());
    }

    fn builder() -> InterfaceBuilder {
        InterfaceBuilder::new("probe", "1.0")
            .input(
                "urn:example:probe:input",
                "1.0",
                json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}),
            )
            .output("urn:example:probe:output", "1.0", json!({"type": "object"}))
            .record("probe-record", "urn:example:probe:record", "1.0", json!({"type": "object"}))
    }

    fn paths(findings: &[Finding]) -> Vec<&str> {
        findings.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn built_document_is_valid_and_digest_is_of_canonical_bytes() {
        let doc = builder().build().unwrap();
        assert_eq!(doc.interface_digest(), digest(doc.value()));
        assert_eq!(doc.canonical_bytes(), jcs::to_canonical_vec(doc.value()));
        assert!(validate_document(doc.value(), &Expectations::default()).is_empty());
        assert!(doc.input_validator().is_valid(&json!({"n": 1})));
        assert!(!doc.input_validator().is_valid(&json!({"n": "1"})));
        assert!(doc.record_validator("probe-record").is_some());
        assert!(doc.record_validator("other").is_none());
    }

    #[test]
    fn every_problem_is_reported_with_a_pointer() {
        let doc = builder().build().unwrap();
        let mut v = doc.value().clone();
        v["interface_version"] = json!("2.0");
        v["skill_version"] = json!("01.0");
        v["input_schema"]["digest"] = json!(format!("sha256:{}", "0".repeat(64)));
        v["output_schema"]["resolution"]["schema"] = json!({"type": 12});
        v["supporting_record_schemas"]["probe"] =
            v["supporting_record_schemas"]["probe-record"].clone();
        v["extra"] = json!(true);
        let f = validate_document(&v, &Expectations::default());
        let p = paths(&f);
        for want in [
            "/interface_version",
            "/skill_version",
            "/input_schema/digest",
            "/output_schema/resolution/schema/type",
            "/output_schema/digest",
            "/supporting_record_schemas/probe",
            "/extra",
        ] {
            assert!(p.contains(&want), "missing finding at {want}: {f:#?}");
        }
        assert!(f.iter().all(|f| f.code == ErrorCode::InterfaceInvalid));
        // A member may break the trusted schema and a rule of its own: both are reported.
        let has = |path: &str, kind| f.iter().any(|f| f.path == path && f.kind == kind);
        assert!(has("/interface_version", FindingKind::InterfaceVersion));
        assert!(has("/skill_version", FindingKind::VersionSyntax));
        assert!(has(
            "/input_schema/digest",
            FindingKind::EmbeddedDigestMismatch
        ));
        assert!(has("/extra", FindingKind::TrustedSchema));
    }

    #[test]
    fn stale_embedded_digests_alone_are_told_apart_by_kind() {
        let doc = builder().build().unwrap();
        let mut v = doc.value().clone();
        v["input_schema"]["resolution"]["schema"]["properties"]["n"] = json!({"type": "string"});
        let e = ValidatedDocument::from_value(&v, &Expectations::default()).unwrap_err();
        assert!(e.only(FindingKind::EmbeddedDigestMismatch), "{e}");
        // A malformed declared digest is another kind, so it is not "only stale digests".
        v["output_schema"]["digest"] = json!("sha256:NOT-HEX");
        let e = ValidatedDocument::from_value(&v, &Expectations::default()).unwrap_err();
        assert!(!e.only(FindingKind::EmbeddedDigestMismatch), "{e}");
        let kinds: Vec<FindingKind> = e.findings.iter().map(|f| f.kind).collect();
        assert!(kinds.contains(&FindingKind::MalformedDigest), "{kinds:?}");
        assert!(!InterfaceError { findings: vec![] }.only(FindingKind::EmbeddedDigestMismatch));
    }

    #[test]
    fn remote_ref_in_an_embedded_schema_is_a_finding() {
        let r = InterfaceBuilder::new("s", "1.0")
            .input(
                "urn:x:in",
                "1.0",
                json!({"properties": {"a": {"$ref": "https://evil.example/a.json"}}}),
            )
            .output("urn:x:out", "1.0", json!({}))
            .build()
            .unwrap_err();
        assert_eq!(
            paths(&r.findings),
            vec!["/input_schema/resolution/schema/properties/a/$ref"]
        );
    }

    #[test]
    fn expectations_are_checked() {
        let doc = builder().build().unwrap();
        let other = Digest::of_bytes(b"x");
        let f = validate_document(
            doc.value(),
            &Expectations {
                skill_id: Some("other".into()),
                skill_version: Some("2.0".into()),
                interface_digest: Some(other),
            },
        );
        assert_eq!(paths(&f), vec!["/skill_id", "/skill_version", ""]);
        let ok = Expectations {
            skill_id: Some("probe".into()),
            skill_version: Some("1.0".into()),
            interface_digest: Some(doc.interface_digest()),
        };
        assert!(ValidatedDocument::from_value(doc.value(), &ok).is_ok());
    }

    #[test]
    fn non_objects_and_garbage_do_not_panic() {
        for v in [
            json!(null),
            json!([]),
            json!("x"),
            json!({"input_schema": 3}),
            json!({"input_schema": {"resolution": {"schema": {"$ref": 1}}}}),
        ] {
            assert!(!validate_document(&v, &Expectations::default()).is_empty());
        }
    }

    #[test]
    fn a_document_with_float_integers_is_the_same_document() {
        let doc = InterfaceBuilder::new("probe", "1.0")
            .input("urn:x:in", "1.0", json!({"type": "object"}))
            .output("urn:x:out", "1.0", json!({"type": "object"}))
            .constraints(Constraints {
                max_input_bytes: Some(5000),
                ..Default::default()
            })
            .build()
            .unwrap();
        let mut v = doc.value().clone();
        v["constraints"]["max_input_bytes"] = json!(5000.0);
        let again = ValidatedDocument::from_value(&v, &Expectations::default()).unwrap();
        assert_eq!(again.interface_digest(), doc.interface_digest());
        assert_eq!(again.document().constraints.max_input_bytes, Some(5000));
    }

    #[test]
    fn version_rule() {
        for ok in ["0.0", "1.0", "10.25"] {
            assert!(Version::is_valid(ok), "{ok}");
        }
        for bad in [
            "1", "1.0.0", "01.0", "1.01", "a.b", "", ".", "1.", "-1.0", "1.0 ",
        ] {
            assert!(!Version::is_valid(bad), "{bad}");
        }
    }
}

//! Authoring commands: `interface new` (a complete document from schema files), `interface
//! validate` (an instance against a document, offline, with the gate's details) and
//! `interface fix` (recompute embedded digests after a schema was edited).

use anyhow::{bail, Context, Result};
use clap::{ArgGroup, Args};
use serde_json::{json, Value};
use skillgate_core::document::{
    fix_digests, validate_document, Expectations, InterfaceBuilder, ValidatedDocument,
};
use skillgate_core::instance::normalize_integral_floats;
use skillgate_core::wire::{Constraints, ErrorDetail, Interaction, ResponseMode};
use skillgate_core::ErrorCode;

use super::interface::Format;
use super::io::read_json;
use crate::exit;

/// Arguments of `interface new`.
#[derive(Args)]
pub struct NewArgs {
    /// The skill id.
    #[arg(long)]
    skill_id: String,
    /// The skill version (`Major.Minor`).
    #[arg(long)]
    skill_version: String,
    /// JSON Schema (2020-12) of the arguments.
    #[arg(long, value_name = "SCHEMA.json")]
    input: String,
    /// JSON Schema (2020-12) of the primary output.
    #[arg(long, value_name = "SCHEMA.json")]
    output: String,
    /// A supporting record kind and its schema (repeatable).
    #[arg(long, value_name = "KIND=SCHEMA.json")]
    record: Vec<String>,
    /// The schema_uri of `input`, `output` or a record kind (repeatable)
    /// [default: urn:skillgate:<skill id>:<input|output|record kind>].
    #[arg(long, value_name = "ROLE=URI")]
    schema_uri: Vec<String>,
    /// Version of every Schema Reference.
    #[arg(long, default_value = "1.0")]
    schema_version: String,
    /// Declare the skill cancelable (exec skills get SIGTERM, then SIGKILL).
    #[arg(long)]
    cancelable: bool,
    /// constraints.max_duration_ms.
    #[arg(long)]
    max_duration_ms: Option<u64>,
    /// constraints.max_input_bytes.
    #[arg(long)]
    max_input_bytes: Option<u64>,
}

/// Arguments of `interface validate`.
#[derive(Args)]
#[command(group(ArgGroup::new("instance").required(true).args(["input", "output", "record"])))]
pub struct ValidateArgs {
    /// The Skill Interface Document.
    file: String,
    /// Arguments to check against input_schema (and max_input_bytes).
    #[arg(long, value_name = "ARGS.json")]
    input: Option<String>,
    /// A primary output to check against output_schema.
    #[arg(long, value_name = "OUT.json")]
    output: Option<String>,
    /// A supporting record to check against its kind's schema.
    #[arg(long, value_name = "KIND=REC.json")]
    record: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

impl ValidateArgs {
    /// The output format.
    pub fn format(&self) -> Format {
        self.format
    }
}

/// Arguments of `interface fix`.
#[derive(Args)]
pub struct FixArgs {
    /// The Skill Interface Document.
    file: String,
    /// Write the fixed document back to FILE (pretty-printed); otherwise only report.
    #[arg(long)]
    write: bool,
}

/// `KIND=VALUE` split at the first `=`.
fn pair(s: &str) -> Result<(&str, &str)> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() && !v.is_empty() => Ok((k, v)),
        _ => bail!("{s:?} is not KIND=VALUE"),
    }
}

/// `interface new`: prints the assembled, validated document on stdout, its digest on stderr.
pub fn new(a: NewArgs) -> Result<u8> {
    let mut uris = std::collections::BTreeMap::new();
    for s in &a.schema_uri {
        let (role, uri) = pair(s)?;
        uris.insert(role.to_owned(), uri.to_owned());
    }
    let id = a.skill_id.clone();
    let uri = |role: &str| {
        uris.get(role)
            .cloned()
            .unwrap_or_else(|| format!("urn:skillgate:{id}:{role}"))
    };
    let v = &a.schema_version;
    let mut b = InterfaceBuilder::new(&a.skill_id, &a.skill_version)
        .input(uri("input"), v, read_json(&a.input)?)
        .output(uri("output"), v, read_json(&a.output)?)
        .interaction(Interaction {
            response_modes: vec![ResponseMode::Sync, ResponseMode::Stream, ResponseMode::Poll],
            cancelable: a.cancelable,
        })
        .constraints(Constraints {
            max_input_bytes: a.max_input_bytes,
            max_duration_ms: a.max_duration_ms,
            ..Default::default()
        });
    for r in &a.record {
        let (kind, file) = pair(r)?;
        b = b.record(kind, uri(kind), v, read_json(file)?);
    }
    match b.build() {
        Ok(doc) => {
            outln!("{}", serde_json::to_string_pretty(doc.value())?);
            errln!("interface_digest: {}", doc.interface_digest());
            Ok(exit::OK)
        }
        Err(e) => {
            errln!("invalid: {} finding(s)", e.findings.len());
            for f in &e.findings {
                errln!("  {f}");
            }
            Ok(exit::INVALID)
        }
    }
}

fn detail_line(d: &ErrorDetail) -> String {
    let path = if d.instance_path.is_empty() {
        "/"
    } else {
        &d.instance_path
    };
    format!(
        "{path}: {}{}, found {}",
        d.keyword.as_deref().unwrap_or("schema"),
        d.expected
            .as_deref()
            .map(|e| format!(": expected {e}"))
            .unwrap_or_default(),
        d.actual.as_deref().unwrap_or("?")
    )
}

/// `interface validate`: the document first, then the one instance, as the gate would.
pub fn validate(a: ValidateArgs) -> Result<u8> {
    let value = read_json(&a.file)?;
    let doc = match ValidatedDocument::from_value(&value, &Expectations::default()) {
        Ok(d) => d,
        Err(e) => {
            outln!("invalid document: {} finding(s)", e.findings.len());
            for f in &e.findings {
                outln!("  {f}");
            }
            return Ok(exit::INVALID);
        }
    };
    let (what, code, mut instance, validator) = if let Some(f) = &a.input {
        let v = read_json(f)?;
        if let Some(max) = doc.document().constraints.max_input_bytes {
            let size = skillgate_runtime::gate::canonical_size(&v);
            if size > max {
                return report(
                    &a,
                    "input",
                    ErrorCode::ResourceLimitExceeded,
                    Some(format!(
                        "the arguments are {size} canonical bytes, over max_input_bytes {max}"
                    )),
                    &[],
                );
            }
        }
        ("input", ErrorCode::InputInvalid, v, doc.input_validator())
    } else if let Some(f) = &a.output {
        (
            "output",
            ErrorCode::OutputInvalid,
            read_json(f)?,
            doc.output_validator(),
        )
    } else if let Some(r) = &a.record {
        let (kind, f) = pair(r)?;
        let validator = doc
            .record_validator(kind)
            .with_context(|| format!("the document declares no record kind {kind:?}"))?;
        ("record", ErrorCode::OutputInvalid, read_json(f)?, validator)
    } else {
        bail!("give one of --input, --output or --record");
    };
    // The gate validates integers sent as 2.0 as integers (protobuf-based peers send them).
    normalize_integral_floats(&mut instance);
    match validator.validate(&instance) {
        Ok(()) => report(&a, what, code, None, &[]),
        Err(details) => report(
            &a,
            what,
            code,
            Some(format!("the {what} does not conform to its schema")),
            &details,
        ),
    }
}

/// Prints the verdict; `message: None` is valid.
fn report(
    a: &ValidateArgs,
    what: &str,
    code: ErrorCode,
    message: Option<String>,
    details: &[ErrorDetail],
) -> Result<u8> {
    let valid = message.is_none();
    match a.format {
        Format::Json => {
            let out = if valid {
                json!({"valid": true, "instance": what})
            } else {
                json!({"valid": false, "instance": what, "code": code, "message": message, "details": details})
            };
            outln!("{out}");
        }
        Format::Text => match &message {
            None => outln!("valid: {what}"),
            Some(m) => {
                outln!("{code}: {m}");
                for d in details {
                    outln!("  {}", detail_line(d));
                }
            }
        },
    }
    Ok(if valid { exit::OK } else { exit::INVALID })
}

/// `interface fix`: recompute every embedded schema digest and report each change.
pub fn fix(a: FixArgs) -> Result<u8> {
    if a.write && a.file == "-" {
        bail!("--write needs a file, not stdin");
    }
    let mut value: Value = read_json(&a.file)?;
    let changes = fix_digests(&mut value);
    for c in &changes {
        outln!(
            "{}: {} -> {}",
            c.path,
            c.before.as_deref().unwrap_or("(none)"),
            c.after
        );
    }
    if changes.is_empty() {
        outln!("every embedded digest is current");
    } else if a.write {
        let mut text = serde_json::to_string_pretty(&value)?;
        text.push('\n');
        std::fs::write(&a.file, text).with_context(|| format!("cannot write {}", a.file))?;
        outln!("wrote {}", a.file);
    } else {
        outln!("not written (add --write to update {})", a.file);
    }
    let findings = validate_document(&value, &Expectations::default());
    if findings.is_empty() {
        outln!("interface_digest: {}", skillgate_core::digest(&value));
        // Like a formatter's check mode: a stale file left as it is, is a finding.
        Ok(if changes.is_empty() || a.write {
            exit::OK
        } else {
            exit::INVALID
        })
    } else {
        outln!("still invalid: {} finding(s)", findings.len());
        for f in &findings {
            outln!("  {f}");
        }
        Ok(exit::INVALID)
    }
}

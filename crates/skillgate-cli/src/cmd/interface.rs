//! `skillgate interface check` and `skillgate interface compose`; the authoring commands
//! (`new`, `validate`, `fix`) are in [`super::authoring`].

use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{json, Value};
use skillgate_core::compose::direct_composition;
use skillgate_core::document::{validate_document, Expectations, Finding, ValidatedDocument};
use skillgate_core::{digest, Digest};
use skillgate_evolve::output::json_finding;
use skillgate_evolve::{inclusion, Finding as Change, Inclusion};

use super::io::read_json;
use crate::exit;

/// Output format of the interface commands.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// Human-readable lines.
    Text,
    /// One JSON object on stdout.
    Json,
}

/// `skillgate interface ...`
#[derive(Subcommand)]
pub enum InterfaceCommand {
    /// Validate a Skill Interface Document (exit 0 valid, 1 invalid, 2 unreadable).
    ///
    /// Checks the document against the built-in skill-interface-v1.json, the version rules,
    /// every embedded schema's digest, meta-schema and self-containment (no $ref leaves a
    /// schema; nothing is fetched), record kinds, and the optional expectations.
    Check(CheckArgs),
    /// Decide whether UPSTREAM's output feeds DOWNSTREAM's input by direct composition
    /// (exit 0 composable, 1 not, 2 unreadable).
    Compose(ComposeArgs),
    /// Compare two versions of one skill's document: every change classified for callers
    /// (input) and consumers (output, records), the Major.Minor bump it needs, and whether
    /// NEW's version carries it (exit 0 it does, 1 it does not or a document is invalid, 2
    /// unreadable). Rules: docs/interface-diff.md.
    Diff(super::evolve::DiffArgs),
    /// Print a complete, valid Skill Interface Document (digests computed) assembled from
    /// schema files (exit 0, or 1 with the findings).
    New(super::authoring::NewArgs),
    /// Validate one instance (arguments, output or a record) against a document offline, with
    /// the details the gate gives (exit 0 valid, 1 invalid).
    Validate(super::authoring::ValidateArgs),
    /// Recompute every embedded schema digest after a schema was edited and show what changed
    /// (exit 0 if nothing was stale or --write fixed it and the document is valid; 1 if a
    /// stale digest was left unwritten or other findings remain).
    Fix(super::authoring::FixArgs),
    /// Write one Skill Interface Document per tool of an MCP server (stdio command or
    /// Streamable HTTP URL): input from inputSchema, output from outputSchema or, for a tool
    /// without one, its content blocks as {"content": [...]}; every digest computed (exit 0
    /// every tool has its document, 1 one has not, 2 the server could not be read).
    FromMcp(super::from_mcp::FromMcpArgs),
}

/// Arguments of `interface check`.
#[derive(Args)]
pub struct CheckArgs {
    /// The document (JSON file, or `-` for stdin).
    file: String,
    /// Require this skill id.
    #[arg(long)]
    skill_id: Option<String>,
    /// Require this skill version.
    #[arg(long)]
    skill_version: Option<String>,
    /// Require this interface digest (`sha256:` + 64 lowercase hex).
    #[arg(long, value_parser = parse_digest)]
    digest: Option<Digest>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Arguments of `interface compose`.
#[derive(Args)]
pub struct ComposeArgs {
    /// Document of the skill whose output is transferred.
    upstream: String,
    /// Document of the skill that receives it as input.
    downstream: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

impl InterfaceCommand {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        let f = match self {
            InterfaceCommand::Check(a) => a.format,
            InterfaceCommand::Compose(a) => a.format,
            InterfaceCommand::Validate(a) => a.format(),
            InterfaceCommand::Diff(a) => return a.json(),
            InterfaceCommand::FromMcp(a) => a.format(),
            InterfaceCommand::New(_) | InterfaceCommand::Fix(_) => Format::Text,
        };
        f == Format::Json
    }
}

fn parse_digest(s: &str) -> Result<Digest, String> {
    Digest::parse(s).map_err(|e| e.to_string())
}

/// Runs an interface subcommand.
pub fn run(cmd: InterfaceCommand) -> Result<u8> {
    match cmd {
        InterfaceCommand::Check(a) => check(a),
        InterfaceCommand::Compose(a) => compose(a),
        InterfaceCommand::Diff(a) => super::evolve::interface_diff(a),
        InterfaceCommand::New(a) => super::authoring::new(a),
        InterfaceCommand::Validate(a) => super::authoring::validate(a),
        InterfaceCommand::Fix(a) => super::authoring::fix(a),
        InterfaceCommand::FromMcp(a) => super::from_mcp::run(a),
    }
}

fn findings_json(findings: &[Finding]) -> Vec<Value> {
    findings
        .iter()
        .map(|f| json!({"code": f.code, "path": f.path, "message": f.message}))
        .collect()
}

fn check(a: CheckArgs) -> Result<u8> {
    let value = read_json(&a.file)?;
    let expect = Expectations {
        skill_id: a.skill_id,
        skill_version: a.skill_version,
        interface_digest: a.digest,
    };
    let findings = validate_document(&value, &expect);
    let valid = findings.is_empty();
    let interface_digest = valid.then(|| digest(&value));
    match a.format {
        Format::Json => {
            let out = json!({
                "valid": valid,
                "interface_digest": interface_digest.map(|d| d.to_string()),
                "findings": findings_json(&findings),
            });
            outln!("{out}");
        }
        Format::Text => {
            if let Some(d) = interface_digest {
                let id = value.get("skill_id").and_then(Value::as_str).unwrap_or("?");
                let v = value
                    .get("skill_version")
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                outln!("valid: {id} {v}");
                outln!("interface_digest: {d}");
            } else {
                outln!("invalid: {} finding(s)", findings.len());
                for f in &findings {
                    outln!("  {f}");
                }
            }
        }
    }
    Ok(if valid { exit::OK } else { exit::INVALID })
}

fn load(path: &str) -> Result<std::result::Result<ValidatedDocument, Vec<Finding>>> {
    let value = read_json(path)?;
    Ok(ValidatedDocument::from_value(&value, &Expectations::default()).map_err(|e| e.findings))
}

fn side(doc: &ValidatedDocument) -> Value {
    json!({
        "skill_id": doc.skill_id(),
        "skill_version": doc.skill_version(),
        "interface_digest": doc.interface_digest().to_string(),
    })
}

fn compose(a: ComposeArgs) -> Result<u8> {
    let up = load(&a.upstream).with_context(|| "upstream document".to_owned())?;
    let down = load(&a.downstream).with_context(|| "downstream document".to_owned())?;
    let (up, down) = match (up, down) {
        (Ok(u), Ok(d)) => (u, d),
        (u, d) => {
            let mut all = Vec::new();
            for (which, r) in [("upstream", u), ("downstream", d)] {
                if let Err(findings) = r {
                    for f in findings {
                        all.push((which, f));
                    }
                }
            }
            match a.format {
                Format::Json => {
                    let list: Vec<Value> = all
                        .iter()
                        .map(|(w, f)| json!({"document": w, "code": f.code, "path": f.path, "message": f.message}))
                        .collect();
                    outln!(
                        "{}",
                        json!({"composable": false, "reason": "invalid_document", "findings": list})
                    );
                }
                Format::Text => {
                    outln!("not composable: a document is invalid");
                    for (w, f) in &all {
                        outln!("  {w}: {f}");
                    }
                }
            }
            return Ok(exit::INVALID);
        }
    };
    let result = direct_composition(&up.document().output_schema, &down.document().input_schema);
    // The profile extension beside the draft's verdict: never changes it or the exit code.
    let included = inclusion(
        &up.document().output_schema.resolution.schema,
        &down.document().input_schema.resolution.schema,
    );
    match a.format {
        Format::Json => {
            let mut out = json!({
                "composable": result.is_ok(),
                "upstream": side(&up),
                "downstream": side(&down),
                "inclusion": inclusion_json(&included),
            });
            if let Err(e) = &result {
                out["field"] = json!(e.field.as_str());
                out["upstream_value"] = json!(e.upstream);
                out["downstream_value"] = json!(e.downstream);
                out["message"] = json!(e.to_string());
            }
            outln!("{out}");
        }
        Format::Text => match &result {
            Ok(()) => outln!(
                "composable: {} output -> {} input ({} {})",
                up.skill_id(),
                down.skill_id(),
                up.document().output_schema.schema_uri,
                up.document().output_schema.version
            ),
            Err(e) => {
                outln!("not composable: {} differs", e.field);
                outln!("  upstream   {}: {}", up.skill_id(), e.upstream);
                outln!("  downstream {}: {}", down.skill_id(), e.downstream);
            }
        },
    }
    if a.format == Format::Text {
        inclusion_text(&included);
    }
    Ok(if result.is_ok() {
        exit::OK
    } else {
        exit::INVALID
    })
}

/// What `inclusion` means, said once for both formats: it is this profile's reading, not the
/// draft's composition rule.
const INCLUSION_NOTE: &str = "profile extension, not the draft's rule: whether every value the \
    upstream output schema accepts, the downstream input schema accepts";

fn inclusion_parts(i: &Inclusion) -> (&'static str, &[Change]) {
    match i {
        Inclusion::Included => ("included", &[]),
        Inclusion::NotIncluded { findings } => ("not_included", findings),
        Inclusion::Undecided { findings } => ("undecided", findings),
    }
}

fn inclusion_json(i: &Inclusion) -> Value {
    let (result, findings) = inclusion_parts(i);
    json!({
        "extension": "skillgate-inclusion",
        "note": INCLUSION_NOTE,
        "result": result,
        "findings": findings.iter().map(json_finding).collect::<Vec<_>>(),
    })
}

fn inclusion_text(i: &Inclusion) {
    let (result, findings) = inclusion_parts(i);
    let said = match result {
        "included" => {
            "upstream output is included in downstream input (a chain works without transformation)"
        }
        "not_included" => "upstream output is NOT included in downstream input",
        _ => "inclusion of upstream output in downstream input is undecided",
    };
    outln!("inclusion (profile extension, not the draft's rule): {said}");
    for f in findings {
        let at = f
            .new_pointer
            .as_deref()
            .or(f.old_pointer.as_deref())
            .unwrap_or("");
        outln!("  {} {at}: {}", f.rule, f.reason);
    }
}

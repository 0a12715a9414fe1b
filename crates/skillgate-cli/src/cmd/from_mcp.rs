//! `skillgate interface from-mcp`: one Skill Interface Document per tool of an MCP server
//! (see `skillgate_mcp::import_server`); this file parses the flags, writes the files and
//! prints the summary.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{ArgGroup, Args};
use serde_json::{json, Value};
use skillgate_core::wire::AuthorityMode;
use skillgate_mcp::{Bounds, ImportOptions, Imported, McpEndpoint};

use super::interface::Format;
use crate::exit;

/// Arguments of `interface from-mcp`.
#[derive(Args)]
#[command(group(ArgGroup::new("server").required(true).args(["url", "command"])))]
pub struct FromMcpArgs {
    /// The server's Streamable HTTP endpoint (e.g. http://127.0.0.1:8000/mcp).
    url: Option<String>,
    /// Start the server as this command and speak MCP over its stdin and stdout; split on
    /// whitespace, no shell (e.g. --command "python3 server.py").
    #[arg(long, value_name = "CMD ARGS")]
    command: Option<String>,
    /// Write the documents here, one `<skill id>.json` per tool.
    #[arg(long, value_name = "DIR", default_value = ".")]
    out: PathBuf,
    /// Overwrite a document file that exists.
    #[arg(long)]
    force: bool,
    /// Import only this tool (repeatable; default: every tool listed).
    #[arg(long, value_name = "NAME")]
    tool: Vec<String>,
    /// The skill id of a tool (repeatable) [default: the tool's name].
    #[arg(long, value_name = "TOOL=ID")]
    skill_id: Vec<String>,
    /// The skill version (`Major.Minor`) of every tool, or of one with TOOL=VERSION
    /// (repeatable) [default: 1.0].
    #[arg(long, value_name = "[TOOL=]VERSION")]
    skill_version: Vec<String>,
    /// The authority mode (observe_only, recommend_only, execute) of every tool, or of one
    /// with TOOL=MODE (repeatable) [default: observe_only for a tool hinted readOnlyHint,
    /// else execute, which a gateway runs only when approved].
    #[arg(long, value_name = "[TOOL=]MODE")]
    authority: Vec<String>,
    /// The version of every Schema Reference.
    #[arg(long, default_value = "1.0")]
    schema_version: String,
    /// Seconds the server has to start and answer initialize.
    #[arg(long, value_name = "SECONDS", default_value_t = 20.0)]
    start_timeout: f64,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

impl FromMcpArgs {
    /// The output format.
    pub fn format(&self) -> Format {
        self.format
    }
}

/// `TOOL=VALUE` pairs by tool, and the one bare value if any.
fn by_tool(flag: &str, values: &[String]) -> Result<(BTreeMap<String, String>, Option<String>)> {
    let mut map = BTreeMap::new();
    let mut all = None;
    for v in values {
        match v.split_once('=') {
            Some((t, x)) if !t.is_empty() && !x.is_empty() => {
                map.insert(t.to_owned(), x.to_owned());
            }
            Some(_) => bail!("--{flag} {v:?} is not TOOL=VALUE"),
            None if all.is_none() => all = Some(v.clone()),
            None => bail!("--{flag} without TOOL= is given twice"),
        }
    }
    Ok((map, all))
}

/// An authority mode as documents spell it.
fn mode(s: &str) -> Result<AuthorityMode> {
    Ok(match s {
        "observe_only" => AuthorityMode::ObserveOnly,
        "recommend_only" => AuthorityMode::RecommendOnly,
        "execute" => AuthorityMode::Execute,
        other => bail!("--authority {other:?}: expected observe_only, recommend_only or execute"),
    })
}

/// A skill id that can name a file in DIR: ASCII letters, digits, `_`, `-`, `.`, not
/// starting with `.` (no path separators, no hidden or parent names).
fn file_name_for(id: &str) -> Option<String> {
    let ok = !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    ok.then(|| format!("{id}.json"))
}

/// What happened to one tool: the file written, or why not.
fn write_one(i: &Imported, dir: &Path, force: bool) -> Result<(Value, String), String> {
    let doc = i.document.as_ref().map_err(ToString::to_string)?;
    let name = file_name_for(doc.skill_id()).ok_or_else(|| {
        format!(
            "tool {}: skill id {:?} cannot name a file (use --skill-id {}=ID)",
            i.tool.name,
            doc.skill_id(),
            i.tool.name
        )
    })?;
    let path = dir.join(&name);
    if path.exists() && !force {
        return Err(format!(
            "tool {}: {} exists (--force to overwrite)",
            i.tool.name,
            path.display()
        ));
    }
    let text = serde_json::to_string_pretty(doc.value()).map_err(|e| e.to_string())?;
    std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    let d = doc.document();
    let fallback = if i.output_fallback() {
        " (no outputSchema: content fallback)"
    } else {
        ""
    };
    let line = format!(
        "{} -> {}: {} {} {}\n  input {}, output {}{fallback}",
        i.tool.name,
        path.display(),
        doc.skill_id(),
        doc.skill_version(),
        doc.interface_digest(),
        d.input_schema.digest,
        d.output_schema.digest
    );
    let entry = json!({
        "tool": i.tool.name,
        "file": path.display().to_string(),
        "skill_id": doc.skill_id(),
        "skill_version": doc.skill_version(),
        "interface_digest": doc.interface_digest().to_string(),
        "input_schema_digest": d.input_schema.digest.to_string(),
        "output_schema_digest": d.output_schema.digest.to_string(),
        "output_fallback": i.output_fallback(),
    });
    Ok((entry, line))
}

/// `interface from-mcp`: exit 0 when every tool got its document, 1 when one did not (the
/// others are still written), 2 when the server could not be read.
pub fn run(a: FromMcpArgs) -> Result<u8> {
    if !(a.start_timeout.is_finite() && (0.1..=600.0).contains(&a.start_timeout)) {
        bail!("--start-timeout is in seconds, from 0.1 to 600");
    }
    let endpoint = match (&a.url, &a.command) {
        (Some(u), None) => McpEndpoint::Url(u.clone()),
        (None, Some(c)) => McpEndpoint::command_line(c)?,
        _ => bail!("give the server's URL or --command, not both"),
    };
    let (ids, _) = by_tool("skill-id", &a.skill_id)?;
    let (versions, version) = by_tool("skill-version", &a.skill_version)?;
    let (modes, all_modes) = by_tool("authority", &a.authority)?;
    let modes: BTreeMap<String, AuthorityMode> = modes
        .iter()
        .map(|(t, m)| Ok((t.clone(), mode(m)?)))
        .collect::<Result<_>>()?;
    let all_modes = all_modes.as_deref().map(mode).transpose()?;
    let options = |tool: &str| ImportOptions {
        skill_id: ids.get(tool).cloned(),
        skill_version: versions.get(tool).cloned().or_else(|| version.clone()),
        schema_version: Some(a.schema_version.clone()),
        authority: modes.get(tool).copied().or(all_modes),
    };
    if !a.out.is_dir() {
        bail!("--out {}: not a directory", a.out.display());
    }
    let bounds = Bounds {
        start: Duration::from_secs_f64(a.start_timeout),
        ..Bounds::default()
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let imported = match rt.block_on(skillgate_mcp::import_server(
        &endpoint, bounds, &a.tool, options,
    )) {
        Ok(i) => i,
        // The error names the server already; its code says what kind of failure it is.
        Err(e) => {
            let message = skillgate_transport::redact_text(&e.to_string());
            errln!("skillgate: {message}");
            if a.format == Format::Json {
                crate::fail::print(crate::fail::json(e.code(), &message));
            }
            return Ok(exit::USAGE);
        }
    };
    let (mut written, mut failed) = (Vec::new(), Vec::new());
    for i in &imported {
        match write_one(i, &a.out, a.force) {
            Ok((entry, line)) => {
                if a.format == Format::Text {
                    outln!("{line}");
                }
                written.push(entry);
            }
            Err(why) => {
                if a.format == Format::Text {
                    errln!("no document: {why}");
                }
                failed.push(json!({"tool": i.tool.name, "message": why}));
            }
        }
    }
    if a.format == Format::Json {
        outln!(
            "{}",
            json!({"server": endpoint.shown(), "documents": written, "failed": failed})
        );
    } else {
        outln!(
            "{} document(s) written, {} tool(s) without one",
            written.len(),
            failed.len()
        );
    }
    Ok(if failed.is_empty() {
        exit::OK
    } else {
        exit::INVALID
    })
}

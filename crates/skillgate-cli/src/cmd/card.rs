//! `skillgate card lint`: the Agent Card linter (crate `skillgate-lint`) on a file, stdin or URL.

use std::io::Read;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use skillgate_lint::remote::{lint_card_bytes, lint_card_url, LintOptions, Unlintable};
use skillgate_lint::{output, ProfileChoice, Report, MAX_CARD_BYTES};
use skillgate_transport::{looks_like_url, redact_str, redact_text};

use super::net::NetArgs;
use crate::exit;

/// `skillgate card ...`.
#[derive(Subcommand)]
pub enum CardCommand {
    /// Lint an Agent Card: A2A 1.0, legacy A2A 0.3, AgentVault v1.0 and the schema-interface
    /// extension. Exit 0 without errors, 1 with errors, 2 when the input is unreadable or not
    /// JSON.
    Lint(LintArgs),
    /// Sign an Agent Card (JWS, A2A 1.0 section 8.4): prints the card with one more
    /// `signatures` entry per reader view (1.0: over its RFC 8785 form; 0.3: over the view
    /// a2a-sdk 0.3 checks).
    Sign(super::signing::SignArgs),
    /// Verify an Agent Card's signatures against your JWK set: exit 0 and each signature that
    /// verified with its key and the readers' view (1.0 or 0.3), or exit 1 and why none did.
    Verify(super::signing::VerifyArgs),
    /// Compare two Agent Cards of one agent: skills added, removed and re-versioned, each
    /// re-versioned skill with its interface verdict when both documents are given with
    /// --interface (exit 0 no problem, 1 a skill removed, re-published under the same
    /// version or without the bump it needs, 2 unreadable).
    Diff(super::evolve::CardDiffArgs),
}

impl CardCommand {
    /// Whether `--format json` was asked for (SARIF has its own failure document).
    pub fn json(&self) -> bool {
        match self {
            CardCommand::Lint(a) => matches!(a.format, Format::Json),
            CardCommand::Verify(a) => a.format == super::signing::VerifyFormat::Json,
            CardCommand::Sign(_) => false,
            CardCommand::Diff(a) => a.json(),
        }
    }
}

/// Output format of `card lint`.
#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    /// Human-readable findings with line and column.
    Text,
    /// `{"profile", "errors", "warnings", "findings": [...]}`.
    Json,
    /// SARIF 2.1.0 for code-scanning UIs.
    Sarif,
}

/// Arguments of `skillgate card lint`.
#[derive(Args)]
pub struct LintArgs {
    /// Card file, http(s) URL, or `-` for stdin.
    input: String,
    /// Profile to lint with; `auto` detects it from the card's members.
    #[arg(long, default_value = "auto",
          value_parser = ["auto", "a2a-1.0", "a2a-0.3", "agentvault-1.0"])]
    profile: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// With a URL: call describe_skill for every advertised skill and check the three-way
    /// digest and the returned document.
    #[arg(long)]
    deep: bool,
    /// With a URL: the whole run (card fetch plus every --deep call) must end within this many
    /// seconds.
    #[arg(long, value_name = "SECONDS", default_value = "120", value_parser = parse_deadline)]
    deadline: std::time::Duration,
    /// Check every signature made by a key of this JWK set (CARD-SIGN-004 when one does not
    /// verify); signatures by other keys are not judged.
    #[arg(long, value_name = "JWKS.json")]
    jwks: Option<String>,
    #[command(flatten)]
    net: NetArgs,
}

fn parse_deadline(s: &str) -> Result<std::time::Duration, String> {
    match s.parse::<u64>() {
        Ok(v) if (1..=3600).contains(&v) => Ok(std::time::Duration::from_secs(v)),
        _ => Err(format!(
            "{s:?} is not a whole number of seconds between 1 and 3600"
        )),
    }
}

/// Runs a `card` subcommand and returns its exit code.
pub fn run(cmd: CardCommand) -> Result<u8> {
    match cmd {
        CardCommand::Lint(args) => lint(args),
        CardCommand::Sign(args) => super::signing::sign(args),
        CardCommand::Verify(args) => super::signing::verify_card(args),
        CardCommand::Diff(args) => super::evolve::card_diff(args),
    }
}

fn read_local(input: &str) -> Result<Vec<u8>> {
    let reader: Box<dyn Read> = if input == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(input).with_context(|| format!("cannot read {input}"))?)
    };
    let mut buf = Vec::new();
    reader
        .take(MAX_CARD_BYTES as u64 + 1)
        .read_to_end(&mut buf)
        .with_context(|| format!("cannot read {input}"))?;
    Ok(buf)
}

/// The artifact URI for SARIF: the URL, `stdin`, an absolute path as a `file:` URL, or a
/// relative path as a relative URI reference (percent-encoded, `/`-separated).
pub(crate) fn artifact_uri(input: &str) -> String {
    if input == "-" {
        return "stdin".to_string();
    }
    if looks_like_url(input) {
        return input.to_string();
    }
    let mut out = String::new();
    if std::path::Path::new(input).is_absolute() {
        out.push_str("file://");
        if !input.starts_with('/') {
            // A Windows drive path: file:///C:/...
            out.push('/');
        }
    }
    for b in input.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The card's lint: a URL through the shared pipeline (fetch, signatures, `--deep`, all within
/// the deadline), a file or stdin read here and linted the same way.
fn obtain(args: &LintArgs, options: &LintOptions) -> Result<Report, Unlintable> {
    if !looks_like_url(&args.input) {
        let bytes =
            read_local(&args.input).map_err(|e| Unlintable::new("unreadable", format!("{e:#}")))?;
        return lint_card_bytes(&bytes, options);
    }
    let config = args
        .net
        .transport(&[&args.input])
        .map_err(|e| Unlintable::new("bad_config", e))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Unlintable::new("runtime", format!("cannot start the async runtime: {e}")))?;
    rt.block_on(lint_card_url(&args.input, config, options))
}

fn lint(args: LintArgs) -> Result<u8> {
    let profile: ProfileChoice = args.profile.parse().map_err(|e| anyhow!("{e}"))?;
    if args.deep && !looks_like_url(&args.input) {
        bail!("--deep needs the card's URL (describe_skill is called on the agent)");
    }
    let shown = redact_str(&args.input);
    let source = if args.input == "-" {
        "stdin"
    } else {
        shown.as_str()
    };
    let trusted_keys = match &args.jwks {
        None => None,
        Some(path) => Some(
            skillgate_sign::TrustedKeys::from_json(&super::io::read_input(path)?)
                .with_context(|| format!("--jwks {path}"))?,
        ),
    };
    let options = LintOptions {
        profile,
        trusted_keys,
        deep: args.deep,
        deadline: args.deadline,
    };
    let report = match obtain(&args, &options) {
        Ok(r) => r,
        Err(u) => return unlintable(&args, source, u),
    };
    let text = match args.format {
        Format::Text => output::to_text(&report, source),
        Format::Json => pretty(&json_report(&report)?)?,
        Format::Sarif => pretty(&output::to_sarif(&report, &artifact_uri(&args.input)))?,
    };
    write_stdout(&text)?;
    Ok(exit::lint(&report))
}

/// The JSON report, each finding with the `line` and `column` the text report shows.
fn json_report(report: &skillgate_lint::Report) -> Result<serde_json::Value> {
    let mut v = serde_json::to_value(output::to_json(report))?;
    if let Some(list) = v.get_mut("findings").and_then(|f| f.as_array_mut()) {
        for (json, f) in list.iter_mut().zip(&report.findings) {
            if let (Some(p), Some(o)) = (f.position, json.as_object_mut()) {
                o.insert("line".into(), p.line.into());
                o.insert("column".into(), p.column.into());
            }
        }
    }
    Ok(v)
}

/// Exit 2: the reason on stderr, and for json/sarif also a machine-readable document on stdout
/// (so that CI steps that parse stdout see the failure instead of an empty file).
fn unlintable(args: &LintArgs, source: &str, u: Unlintable) -> Result<u8> {
    errln!(
        "{}",
        redact_text(&format!("skillgate: {source}: {}", u.message))
    );
    let doc = match args.format {
        Format::Text => None,
        Format::Json => {
            let mut m = crate::fail::json(u.code, &u.message);
            if let Some((line, column)) = u.position {
                m.insert("line".into(), line.into());
                m.insert("column".into(), column.into());
            }
            Some(serde_json::Value::Object(m))
        }
        Format::Sarif => Some(output::input_error_sarif(
            u.code,
            &u.message,
            u.position,
            &artifact_uri(&args.input),
            exit::USAGE,
        )),
    };
    if let Some(doc) = doc {
        write_stdout(&pretty(&doc)?)?;
    }
    Ok(exit::USAGE)
}

/// Writes a report; every URL password in it is replaced (whichever way the URL came in: the
/// argument, a redirect, the card itself).
fn write_stdout(text: &str) -> Result<()> {
    out!("{}", redact_text(text));
    Ok(())
}

fn pretty(v: &serde_json::Value) -> Result<String> {
    Ok(serde_json::to_string_pretty(v).context("cannot serialize the report")? + "\n")
}

#[cfg(test)]
mod tests {
    use super::artifact_uri;

    #[test]
    fn artifact_uris_are_uri_references() {
        assert_eq!(artifact_uri("-"), "stdin");
        assert_eq!(artifact_uri("cards/a.json"), "cards/a.json");
        assert_eq!(artifact_uri("my card%.json"), "my%20card%25.json");
        assert_eq!(artifact_uri("/tmp/é.json"), "file:///tmp/%C3%A9.json");
        assert_eq!(
            artifact_uri("https://a.example/c.json"),
            "https://a.example/c.json"
        );
    }
}

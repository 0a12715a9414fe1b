//! `skillgate card lint`: the Agent Card linter (crate `skillgate-lint`) on a file, stdin or URL.

use std::io::Read;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use skillgate_client::{audit_card, AuditKind, AuditedSkill, ClientConfig, Http};
use skillgate_lint::{
    extend_report, lint_bytes, output, rules, InputError, ProfileChoice, MAX_CARD_BYTES,
};
use skillgate_transport::{
    looks_like_url, redact_str, redact_text, Transport, TransportConfig, TransportError,
};

use super::net::NetArgs;
use crate::exit;

/// `skillgate card ...`.
#[derive(Subcommand)]
pub enum CardCommand {
    /// Lint an Agent Card: A2A 1.0, legacy A2A 0.3, AgentVault v1.0 and the schema-interface
    /// extension. Exit 0 without errors, 1 with errors, 2 when the input is unreadable or not
    /// JSON.
    Lint(LintArgs),
    /// Sign an Agent Card (JWS over its RFC 8785 form, A2A 1.0 section 8.4): prints the card
    /// with one more `signatures` entry.
    Sign(super::signing::SignArgs),
    /// Verify an Agent Card's signatures against your JWK set: exit 0 and the key that
    /// verified, or exit 1 and why no signature did.
    Verify(super::signing::VerifyArgs),
}

impl CardCommand {
    /// Whether `--format json` was asked for (SARIF has its own failure document).
    pub fn json(&self) -> bool {
        match self {
            CardCommand::Lint(a) => matches!(a.format, Format::Json),
            CardCommand::Verify(a) => a.format == super::signing::VerifyFormat::Json,
            CardCommand::Sign(_) => false,
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
fn artifact_uri(input: &str) -> String {
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

/// Why the input could not be linted (exit 2), with a machine-readable code.
struct Unlintable {
    code: &'static str,
    message: String,
    position: Option<(usize, usize)>,
}

impl Unlintable {
    fn new(code: &'static str, message: String) -> Self {
        Self {
            code,
            message,
            position: None,
        }
    }
}

/// Fetches the card at the URL through the shared transport (its scheme policy, limits and
/// credentials); a non-success status is a fetch failure.
async fn fetch(transport: &Transport, input: &str) -> Result<Vec<u8>, Unlintable> {
    let failed = |e: TransportError| {
        let code = match e {
            TransportError::TooLarge { .. } => "too_large",
            _ => "fetch_failed",
        };
        Unlintable::new(code, format!("cannot fetch the card: {e}"))
    };
    let url = skillgate_transport::card_url(input).map_err(failed)?;
    let reply = transport.get_card(&url).await.map_err(failed)?;
    if !reply.status.is_success() {
        return Err(Unlintable::new(
            "fetch_failed",
            format!(
                "cannot fetch the card: HTTP status {} from {}",
                reply.status.as_u16(),
                skillgate_transport::redact(&reply.url)
            ),
        ));
    }
    Ok(reply.bytes)
}

/// The card's bytes, plus (with `--deep`) the audit findings, within the overall deadline.
fn obtain(args: &LintArgs) -> Result<(Vec<u8>, Vec<skillgate_client::AuditFinding>), Unlintable> {
    if !looks_like_url(&args.input) {
        let bytes =
            read_local(&args.input).map_err(|e| Unlintable::new("unreadable", format!("{e:#}")))?;
        return Ok((bytes, Vec::new()));
    }
    let config = args
        .net
        .transport(&[&args.input])
        .map_err(|e| Unlintable::new("bad_config", e))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Unlintable::new("runtime", format!("cannot start the async runtime: {e}")))?;
    let work = remote(args, config);
    match rt.block_on(async { tokio::time::timeout(args.deadline, work).await }) {
        Ok(r) => r,
        Err(_) => Err(Unlintable::new(
            "timeout",
            format!(
                "card lint of {} did not finish within the {} s deadline",
                redact_str(&args.input),
                args.deadline.as_secs()
            ),
        )),
    }
}

async fn remote(
    args: &LintArgs,
    config: TransportConfig,
) -> Result<(Vec<u8>, Vec<skillgate_client::AuditFinding>), Unlintable> {
    let transport =
        Transport::new(config.clone()).map_err(|e| Unlintable::new(e.code(), e.to_string()))?;
    let bytes = fetch(&transport, &args.input).await?;
    if !args.deep {
        return Ok((bytes, Vec::new()));
    }
    // Only a card that parses is audited; lint_bytes reports the parse error otherwise.
    let Ok(card) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Ok((bytes, Vec::new()));
    };
    let skills: Vec<AuditedSkill> = skillgate_lint::advertised_skills(&card)
        .into_iter()
        .map(|a| AuditedSkill {
            skill_id: a.skill_id,
            pointer: a.pointer,
        })
        .collect();
    let client = ClientConfig::from_transport(config);
    let http = Http::new(client).map_err(|e| Unlintable::new("bad_config", e.to_string()))?;
    let findings = audit_card(&http, &args.input, &skills).await;
    Ok((bytes, findings))
}

fn lint(args: LintArgs) -> Result<u8> {
    let choice: ProfileChoice = args.profile.parse().map_err(|e| anyhow!("{e}"))?;
    if args.deep && !looks_like_url(&args.input) {
        bail!("--deep needs the card's URL (describe_skill is called on the agent)");
    }
    let shown = redact_str(&args.input);
    let source = if args.input == "-" {
        "stdin"
    } else {
        shown.as_str()
    };
    let keys = match &args.jwks {
        None => None,
        Some(path) => Some(
            skillgate_sign::TrustedKeys::from_json(&super::io::read_input(path)?)
                .with_context(|| format!("--jwks {path}"))?,
        ),
    };
    let linted = obtain(&args).and_then(|(bytes, audit)| match lint_bytes(&bytes, choice) {
        _ if super::io::is_blank(&bytes) => Err(Unlintable {
            code: "not_json",
            message: super::io::EMPTY.to_owned(),
            position: Some((1, 1)),
        }),
        Ok(mut r) => {
            if let (Some(keys), Ok(card)) = (&keys, skillgate_core::jcs::parse_strict(&bytes)) {
                skillgate_lint::check_signatures(&mut r, &card, keys);
            }
            Ok((r, audit))
        }
        Err(InputError::NotJson {
            message,
            line,
            column,
        }) => Err(Unlintable {
            code: "not_json",
            message: format!("not JSON: {message} at line {line}, column {column}"),
            position: Some((line, column)),
        }),
        Err(e @ InputError::TooLarge { .. }) => Err(Unlintable::new("too_large", e.to_string())),
    });
    let (mut report, audit) = match linted {
        Ok(x) => x,
        Err(u) => return unlintable(&args, source, u),
    };
    for f in audit {
        let rule = match f.kind {
            AuditKind::Unusable => &rules::SI_DEEP_001,
            AuditKind::DigestMismatch => &rules::SI_DEEP_002,
            AuditKind::InvalidDocument => &rules::SI_DEEP_003,
        };
        extend_report(&mut report, rule, f.pointer, f.message);
    }
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

//! `skillgate card lint`: the Agent Card linter (crate `skillgate-lint`) on a file, stdin or URL.

use std::io::{Read, Write};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use skillgate_client::a2a::A2aConn;
use skillgate_client::http::Http;
use skillgate_client::{steps, ClientConfig};
use skillgate_lint::fetch::{fetch_card, looks_like_url, FetchError, FetchLimits};
use skillgate_lint::{
    extend_report, lint_bytes, output, rules, AdvertisedSkill, InputError, ProfileChoice, Report,
    MAX_CARD_BYTES,
};

use crate::exit;

/// `skillgate card ...`.
#[derive(Subcommand)]
pub enum CardCommand {
    /// Lint an Agent Card: A2A 1.0, legacy A2A 0.3, AgentVault v1.0 and the schema-interface
    /// extension. Exit 0 without errors, 1 with errors, 2 when the input is unreadable or not
    /// JSON.
    Lint(LintArgs),
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
}

/// Runs a `card` subcommand and returns its exit code.
pub fn run(cmd: CardCommand) -> Result<u8> {
    match cmd {
        CardCommand::Lint(args) => lint(args),
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

fn obtain(input: &str) -> Result<Vec<u8>, Unlintable> {
    if looks_like_url(input) {
        fetch_card(input, FetchLimits::default()).map_err(|e| {
            let code = match e {
                FetchError::TooLarge { .. } => "too_large",
                _ => "fetch_failed",
            };
            Unlintable::new(code, format!("cannot fetch the card: {e}"))
        })
    } else {
        read_local(input).map_err(|e| Unlintable::new("unreadable", format!("{e:#}")))
    }
}

fn lint(args: LintArgs) -> Result<u8> {
    let choice: ProfileChoice = args.profile.parse().map_err(|e| anyhow!("{e}"))?;
    if args.deep && !looks_like_url(&args.input) {
        bail!("--deep needs the card's URL (describe_skill is called on the agent)");
    }
    let source = if args.input == "-" {
        "stdin"
    } else {
        args.input.as_str()
    };
    let linted = obtain(&args.input).and_then(|bytes| match lint_bytes(&bytes, choice) {
        Ok(r) => Ok((bytes, r)),
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
    let (bytes, mut report) = match linted {
        Ok(x) => x,
        Err(u) => return unlintable(&args, source, u),
    };
    if args.deep {
        // lint_bytes accepted the bytes, so they parse.
        let card: serde_json::Value =
            serde_json::from_slice(&bytes).context("the card does not parse")?;
        deep(&mut report, &args.input, &card)?;
    }
    let text = match args.format {
        Format::Text => output::to_text(&report, source),
        Format::Json => pretty(&serde_json::to_value(output::to_json(&report))?)?,
        Format::Sarif => pretty(&output::to_sarif(&report, &artifact_uri(&args.input)))?,
    };
    write_stdout(&text)?;
    Ok(exit::lint(&report))
}

/// Exit 2: the reason on stderr, and for json/sarif also a machine-readable document on stdout
/// (so that CI steps that parse stdout see the failure instead of an empty file).
fn unlintable(args: &LintArgs, source: &str, u: Unlintable) -> Result<u8> {
    eprintln!("skillgate: {source}: {}", u.message);
    let doc = match args.format {
        Format::Text => None,
        Format::Json => Some(output::input_error_json(u.code, &u.message, u.position)),
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

fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to stdout")
}

fn pretty(v: &serde_json::Value) -> Result<String> {
    Ok(serde_json::to_string_pretty(v).context("cannot serialize the report")? + "\n")
}

/// `--deep`: for every advertised skill, runs the client's steps 1 to 6 against the live agent
/// (describe_skill, three-way digest, document validation, embedded schema digests) and adds a
/// `SI-DEEP-*` finding for each failure. Nothing but describe_skill is sent.
fn deep(report: &mut Report, url: &str, card: &serde_json::Value) -> Result<()> {
    let advertised = skillgate_lint::advertised_skills(card);
    if advertised.is_empty() {
        return Ok(());
    }
    let http = Http::new(ClientConfig::default()).map_err(|e| anyhow!("{e}"))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let target = match rt.block_on(steps::step1_fetch_card(&http, url)) {
        Ok(t) => t,
        Err(e) => {
            extend_report(
                report,
                &rules::SI_DEEP_001,
                "/supportedInterfaces".into(),
                format!("the client cannot use this card: {e}"),
            );
            return Ok(());
        }
    };
    let conn = A2aConn::new(http.clone(), target.interface.clone());
    for a in &advertised {
        rt.block_on(deep_one(report, &target, &conn, a));
    }
    Ok(())
}

async fn deep_one(
    report: &mut Report,
    target: &steps::Target,
    conn: &A2aConn,
    a: &AdvertisedSkill,
) {
    let at = format!("{}/interface_digest", a.pointer);
    let selection = match steps::step2_select_skill(&target.card, &a.skill_id) {
        Ok(s) => s,
        Err(e) => {
            let msg = format!("skill {:?} cannot be selected: {e}", a.skill_id);
            extend_report(report, &rules::SI_DEEP_001, a.pointer.clone(), msg);
            return;
        }
    };
    let described = match steps::step3_describe_skill(conn, &selection).await {
        Ok(d) => d,
        Err(e) => {
            let msg = format!("describe_skill for {:?} failed: {e}", a.skill_id);
            extend_report(report, &rules::SI_DEEP_001, a.pointer.clone(), msg);
            return;
        }
    };
    if let Err(e) = steps::step4_check_digests(&selection, &described.response) {
        let msg = format!("skill {:?}: {e}", a.skill_id);
        extend_report(report, &rules::SI_DEEP_002, at, msg);
        return;
    }
    let doc = match steps::step5_validate_document(&described.response.skill_interface, &selection)
    {
        Ok(d) => d,
        Err(e) => {
            let msg = format!("skill {:?}: {e}", a.skill_id);
            extend_report(report, &rules::SI_DEEP_003, a.pointer.clone(), msg);
            return;
        }
    };
    if let Err(e) = steps::step6_verify_schema_digests(&doc) {
        let msg = format!("skill {:?}: {e}", a.skill_id);
        extend_report(report, &rules::SI_DEEP_003, a.pointer.clone(), msg);
    }
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

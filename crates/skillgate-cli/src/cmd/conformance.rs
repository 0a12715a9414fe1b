//! `skillgate conformance URL`: probe an agent for the schema-interface draft.

use std::io::IsTerminal;
use std::time::Duration;

use clap::{Args, ValueEnum};
use skillgate_conformance::{Binding, Fatal, Options, ProbeConfig, UsageError};

use super::net::{BindingArg, NetArgs};
use crate::exit;
use skillgate_transport::{redact_text, SchemeRefused};

/// Report format.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    /// One line per check plus its evidence.
    Text,
    /// The whole report as one JSON object.
    Json,
}

/// Arguments of `conformance`.
#[derive(Args)]
pub struct ConformanceArgs {
    /// The agent's base URL (its card is at /.well-known/agent-card.json) or its card URL.
    pub url: String,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Probe this binding (default: JSONRPC if the card offers it, else HTTP+JSON).
    #[arg(long, value_enum)]
    pub binding: Option<BindingArg>,
    #[command(flatten)]
    pub net: NetArgs,
    /// Deprecated spelling of --timeout, in milliseconds.
    #[arg(long, hide = true, value_name = "MS", conflicts_with = "timeout",
          value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    timeout_ms: Option<u64>,
}

impl ConformanceArgs {
    /// Whether `--format json` was asked for.
    pub fn json(&self) -> bool {
        matches!(self.format, Format::Json)
    }
}

/// How the CLI ends the reason of an [`Fatal::Unauthorized`] stop (the library's reason names
/// no flag).
const TOKEN_HINT: &str = " with --token or SKILLGATE_TOKEN";

/// Exit 0 when every required check passed, 1 when one failed, 2 when the agent could not be
/// reached or is not an A2A agent it may probe (or the URL is unusable).
pub fn run(a: ConformanceArgs) -> anyhow::Result<u8> {
    let transport = match a.net.transport(&[&a.url]) {
        Ok(t) => t,
        Err(message) => {
            errln!("skillgate: {message}");
            if a.json() {
                crate::fail::print(crate::fail::json("usage_error", &message));
            }
            return Ok(exit::USAGE);
        }
    };
    // Progress only for a person watching: a terminal on stderr, neither --quiet nor
    // --verbose (whose trace says more). The trace hook sees every request as it ends.
    let progress = (std::io::stderr().is_terminal() && !a.net.quiet && !a.net.verbose).then(|| {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    });
    let mut transport = transport;
    if let Some(bar) = &progress {
        let bar = bar.clone();
        transport.trace = Some(skillgate_transport::Tracer::new(move |e| {
            bar.inc(1);
            bar.set_message(format!(
                "request {}: {}",
                bar.position(),
                redact_text(&e.to_string())
            ));
        }));
    }
    if let Some(ms) = a.timeout_ms {
        let timeout = Duration::from_millis(ms);
        transport.connect_timeout = transport.connect_timeout.min(timeout);
        transport.timeout = timeout;
    }
    let options = Options {
        probe: ProbeConfig::from_transport(transport),
        binding: a.binding.map(Binding::from),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = match rt.block_on(skillgate_conformance::check(&a.url, &options)) {
        Ok(r) => r,
        Err(e) => {
            let message = redact_text(&match &e {
                UsageError::Scheme(SchemeRefused::PlainHttp { host }) => format!(
                    "bad target URL: refusing plain HTTP to non-loopback host {host} (HTTPS is \
                     required; --allow-http overrides)"
                ),
                _ => e.to_string(),
            });
            errln!("skillgate: {message}");
            if a.json() {
                crate::fail::print(crate::fail::json("usage_error", &message));
            }
            return Ok(exit::USAGE);
        }
    };
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    let code = report.outcome().exit_code();
    let fatal = report.fatal.zip(report.no_agent_reason()).map(|(f, why)| {
        let hint = if f == Fatal::Unauthorized {
            TOKEN_HINT
        } else {
            ""
        };
        let reason = redact_text(&format!("{why}{hint}"));
        errln!("skillgate: {reason}");
        (f, reason)
    });
    // Every URL password in the report is replaced, whichever way the URL came in.
    match a.format {
        Format::Text => {
            let text = redact_text(&report.to_text_with_exit(code));
            if a.net.quiet {
                // The summary: the counts line and the result line.
                let lines: Vec<&str> = text.lines().collect();
                for l in &lines[lines.len().saturating_sub(2)..] {
                    outln!("{l}");
                }
            } else {
                out!("{text}");
            }
        }
        // Through a Value so members print sorted, as they always have.
        Format::Json => {
            let mut v =
                serde_json::to_value(report.output()).unwrap_or_else(|_| serde_json::json!({}));
            // Exit 2: the one failure shape, the report's members beside it.
            if let (Some((f, reason)), Some(o)) = (&fatal, v.as_object_mut()) {
                o.extend(crate::fail::json(f.code(), reason));
            }
            outln!(
                "{}",
                redact_text(&serde_json::to_string_pretty(&v).unwrap_or_default())
            )
        }
    }
    Ok(code)
}

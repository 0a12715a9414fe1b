//! `skillgate conformance URL`: probe an agent for the schema-interface draft.

use std::io::IsTerminal;
use std::time::Duration;

use clap::{Args, ValueEnum};
use skillgate_conformance::{
    Binding, Fatal, Options, Outcome, ProbeConfig, Report, UsageError, Verdict,
};

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

/// Why the run found no agent, in one line: the fatal kind and the last evidence of the last
/// failed check.
fn no_agent_reason(report: &Report, fatal: Fatal) -> String {
    let evidence = report
        .checks
        .iter()
        .rev()
        .find(|c| c.verdict == Verdict::Fail)
        .and_then(|c| c.evidence.last())
        .map(|e| format!(": {}", e.trim_start_matches("no answer: ")))
        .unwrap_or_default();
    match fatal {
        Fatal::Unreachable => match evidence.strip_prefix(": ") {
            Some(why) => why.to_owned(),
            None => format!("no Agent Card from {}", report.target),
        },
        Fatal::Unauthorized => format!(
            "the agent at {} refused the request (HTTP 401 or 403): send a bearer token it \
             accepts with --token or SKILLGATE_TOKEN",
            report.target
        ),
        Fatal::NotA2aAgent => format!(
            "{} does not answer as an A2A 1.0 agent{evidence}",
            report.target
        ),
        Fatal::Untrusted => match evidence.strip_prefix(": ") {
            Some(why) => format!("{why}; nothing else was requested"),
            None => format!("the Agent Card of {} is not trusted", report.target),
        },
    }
}

/// Exit 0 when every required check passed, 1 when one failed, 2 when the agent could not be
/// reached or is not an A2A 1.0 agent (or the URL is unusable).
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
    // The checker bounds each request as a whole (a stalled read is caught by that) and
    // names itself to the agent; everything else is the transport the flags describe, the
    // trusted card keys included.
    transport.read_timeout = transport.timeout;
    transport.user_agent = skillgate_conformance::probe::USER_AGENT.to_owned();
    let options = Options {
        probe: ProbeConfig {
            task_deadline: transport.timeout,
            transport,
            ..ProbeConfig::default()
        },
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
    let code = exit::conformance(report.outcome());
    let fatal = match report.outcome() {
        Outcome::NoAgent(f) => {
            let reason = redact_text(&no_agent_reason(&report, f));
            errln!("skillgate: {reason}");
            Some((f, reason))
        }
        _ => None,
    };
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
            let mut v = serde_json::to_value(exit::ConformanceJson::new(&report))
                .unwrap_or_else(|_| serde_json::json!({}));
            // Exit 2: the one failure shape, the report's members beside it.
            if let (Some((f, reason)), Some(o)) = (&fatal, v.as_object_mut()) {
                let code = match f {
                    Fatal::Unreachable => "unreachable",
                    Fatal::NotA2aAgent => "not_a2a_agent",
                    Fatal::Unauthorized => "unauthorized",
                    Fatal::Untrusted => "card_untrusted",
                };
                o.extend(crate::fail::json(code, reason));
            }
            outln!(
                "{}",
                redact_text(&serde_json::to_string_pretty(&v).unwrap_or_default())
            )
        }
    }
    Ok(code)
}

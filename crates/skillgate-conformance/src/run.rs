//! The run: fetch the card, then every check of the catalogue in order.

use url::Url;

use crate::checks::{card, describe, extension, skill, summary, Run, Target};
use crate::probe::{Binding, ProbeConfig, Probed, Prober};
use crate::report::{Fatal, Report};

/// Most skills probed in one run.
pub const MAX_SKILLS: usize = 64;

/// Options of one run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// HTTP bounds and credentials.
    pub probe: ProbeConfig,
    /// Force a binding instead of the first usable one in the card.
    pub binding: Option<Binding>,
}

/// A run that could not start: the target URL or the options are unusable.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UsageError {
    /// The target is not an absolute http(s) URL, or violates the scheme policy.
    #[error("bad target URL: {0}")]
    Target(String),
    /// The target's scheme is refused by the scheme policy (plain HTTP to another host
    /// without `allow_http`, or neither http nor https).
    #[error("bad target URL: {0}")]
    Scheme(#[from] skillgate_transport::SchemeRefused),
    /// The transport could not be built from the options (a bad CA certificate, say).
    #[error(transparent)]
    Client(#[from] skillgate_transport::TransportError),
}

/// The Agent Card URL for a target: the target itself when it names a `.json` file, else the
/// well-known path under the target's path. The transport's rule, so the checker probes the
/// card the client would fetch.
pub fn card_url(target: &str) -> Result<Url, UsageError> {
    skillgate_transport::card_url(target).map_err(|e| UsageError::Target(e.to_string()))
}

/// Runs every check against `target` (a base URL or an Agent Card URL).
pub async fn check(target: &str, options: &Options) -> Result<Report, UsageError> {
    let card_url = card_url(target)?;
    crate::probe::check_scheme(&card_url, options.probe.transport.allow_http)?;
    let prober = Prober::new(options.probe.clone())?;
    let mut run = Run {
        prober,
        report: Report {
            // The report may be printed or stored: URL passwords stay out of it.
            target: skillgate_transport::redact_str(target),
            card_url: skillgate_transport::redact(&card_url),
            binding: None,
            interface_url: None,
            a2a_version: None,
            fatal: None,
            checks: Vec::new(),
            notes: Vec::new(),
        },
        echoes: Vec::new(),
        error_shapes: Vec::new(),
    };
    let Some(card) = card::fetch_card(&mut run, &card_url).await else {
        return Ok(run.report);
    };
    let Some((binding, url, version)) = card::choose_interface(&mut run, &card, options.binding)
    else {
        run.report.fatal = Some(if card::only_v03(&card) {
            Fatal::NeedsA2a1x
        } else {
            Fatal::NotA2aAgent
        });
        return Ok(run.report);
    };
    let Some(advertised) = extension::extension_checks(&mut run, &card) else {
        return Ok(run.report);
    };
    if advertised.len() > MAX_SKILLS {
        // Each skill costs about a dozen requests: a card listing thousands must not turn the
        // checker into a load generator.
        run.report.notes.push(format!(
            "{} skills are advertised; only the first {MAX_SKILLS} were probed",
            advertised.len()
        ));
    }
    let probed = Probed {
        binding,
        url,
        version,
    };
    let to: Target<'_> = &probed;
    for a in advertised.iter().take(MAX_SKILLS) {
        skill::skill_checks(&mut run, to, a).await;
    }
    describe::unknown_skill_check(&mut run, to, &card).await;
    summary::summary_checks(&mut run);
    if run.prober.auth_refused().is_some() {
        run.report.fatal = Some(Fatal::Unauthorized);
    }
    Ok(run.report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_urls() {
        assert_eq!(
            card_url("http://127.0.0.1:8080").unwrap().as_str(),
            "http://127.0.0.1:8080/.well-known/agent-card.json"
        );
        assert_eq!(
            card_url("http://127.0.0.1:8080/agents/x/")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:8080/agents/x/.well-known/agent-card.json"
        );
        assert_eq!(
            card_url("https://h/.well-known/agent-card.json")
                .unwrap()
                .as_str(),
            "https://h/.well-known/agent-card.json"
        );
        assert!(card_url("ftp://h/").is_err());
        assert!(card_url("not a url").is_err());
    }
}

//! The whole lint of a card as `skillgate card lint` and `skillgate inspect` run it: the card's
//! bytes (read locally, or fetched through the shared transport within a deadline), the
//! signature check against trusted keys, and with `deep` the audit of every advertised skill
//! against the live agent (describe_skill, three-way digest, document validity).
//!
//! One pipeline, so that the inspector shows the same signature and deep findings the command
//! line does.

use std::time::Duration;

use skillgate_client::{audit_card, AuditKind, AuditedSkill, ClientConfig, Http};
use skillgate_sign::TrustedKeys;
use skillgate_transport::{Transport, TransportConfig, TransportError};

use crate::{extend_report, lint_bytes, rules, InputError, ProfileChoice, Report};

/// What a lint runs with besides the card.
#[derive(Debug, Clone)]
pub struct LintOptions {
    /// The profile to lint against, or detection.
    pub profile: ProfileChoice,
    /// Check every signature made by one of these keys (CARD-SIGN-004 when one does not
    /// verify); signatures by other keys are not judged.
    pub trusted_keys: Option<TrustedKeys>,
    /// Call describe_skill for every advertised skill and report what fails (SI-DEEP-*). Only
    /// for a fetched card: a local file has no agent to ask.
    pub deep: bool,
    /// The whole remote run (card fetch plus every deep call) must end within this.
    pub deadline: Duration,
}

impl Default for LintOptions {
    fn default() -> Self {
        Self {
            profile: ProfileChoice::Auto,
            trusted_keys: None,
            deep: false,
            deadline: Duration::from_secs(120),
        }
    }
}

/// Why a card could not be linted at all (the CLI's exit 2), with a machine-readable code
/// (`not_json`, `too_large`, `fetch_failed`, `timeout`, `bad_config`, or a transport code) and,
/// for JSON errors, the line and column.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct Unlintable {
    /// The machine-readable reason.
    pub code: &'static str,
    /// What happened, for a person.
    pub message: String,
    /// Line and column (1-based) of a JSON syntax error.
    pub position: Option<(usize, usize)>,
    /// The HTTP status of a card fetch the agent answered without success (`fetch_failed`
    /// without it: the agent was not reached at all).
    pub status: Option<u16>,
}

impl Unlintable {
    /// An error without a position.
    pub fn new(code: &'static str, message: String) -> Self {
        Self {
            code,
            message,
            position: None,
            status: None,
        }
    }
}

/// Lints a card's bytes, then checks its signatures against `options.trusted_keys`. `deep` is
/// ignored here (see [`lint_card_url`]).
pub fn lint_card_bytes(bytes: &[u8], options: &LintOptions) -> Result<Report, Unlintable> {
    if skillgate_core::jcs::is_blank(bytes) {
        return Err(Unlintable {
            code: "not_json",
            message: skillgate_core::jcs::EMPTY_INPUT.to_owned(),
            position: Some((1, 1)),
            status: None,
        });
    }
    let mut report = match lint_bytes(bytes, options.profile) {
        Ok(r) => r,
        Err(InputError::NotJson {
            message,
            line,
            column,
        }) => {
            return Err(Unlintable {
                code: "not_json",
                message: format!("not JSON: {message} at line {line}, column {column}"),
                position: Some((line, column)),
                status: None,
            })
        }
        Err(e @ InputError::TooLarge { .. }) => {
            return Err(Unlintable::new("too_large", e.to_string()))
        }
    };
    if let (Some(keys), Ok(card)) = (
        &options.trusted_keys,
        skillgate_core::jcs::parse_strict(bytes),
    ) {
        crate::check_signatures(&mut report, &card, keys);
    }
    Ok(report)
}

/// Fetches the card at `url` (an agent's base URL or its card's URL) through a transport built
/// from `transport` (its scheme policy, limits and credentials), lints it, and with
/// `options.deep` audits every advertised skill, all within `options.deadline`.
pub async fn lint_card_url(
    url: &str,
    transport: TransportConfig,
    options: &LintOptions,
) -> Result<Report, Unlintable> {
    let run = remote(url, transport, options);
    match tokio::time::timeout(options.deadline, run).await {
        Ok(r) => r,
        Err(_) => Err(Unlintable::new(
            "timeout",
            format!(
                "card lint of {} did not finish within the {} s deadline",
                skillgate_transport::redact_str(url),
                options.deadline.as_secs()
            ),
        )),
    }
}

async fn remote(
    url: &str,
    config: TransportConfig,
    options: &LintOptions,
) -> Result<Report, Unlintable> {
    let transport =
        Transport::new(config.clone()).map_err(|e| Unlintable::new(e.code(), e.to_string()))?;
    let bytes = fetch(&transport, url).await?;
    let mut report = lint_card_bytes(&bytes, options)?;
    if !options.deep {
        return Ok(report);
    }
    // Only a card that parses is audited; the lint above already reported why not otherwise.
    let Ok(card) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Ok(report);
    };
    let skills: Vec<AuditedSkill> = crate::advertised_skills(&card)
        .into_iter()
        .map(|a| AuditedSkill {
            skill_id: a.skill_id,
            pointer: a.pointer,
        })
        .collect();
    let http = Http::new(ClientConfig::from_transport(config))
        .map_err(|e| Unlintable::new("bad_config", e.to_string()))?;
    for f in audit_card(&http, url, &skills).await {
        let rule = match f.kind {
            AuditKind::Unusable => &rules::SI_DEEP_001,
            AuditKind::DigestMismatch => &rules::SI_DEEP_002,
            AuditKind::InvalidDocument => &rules::SI_DEEP_003,
        };
        extend_report(&mut report, rule, f.pointer, f.message);
    }
    Ok(report)
}

/// The card's bytes; a non-success status is a fetch failure.
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
        let status = reply.status.as_u16();
        return Err(Unlintable {
            status: Some(status),
            ..Unlintable::new(
                "fetch_failed",
                format!(
                    "cannot fetch the card: HTTP status {status} from {}",
                    skillgate_transport::redact(&reply.url)
                ),
            )
        });
    }
    Ok(reply.bytes)
}

//! Agent Card linter for skillgate: A2A 1.0, legacy A2A 0.3, AgentVault v1.0 and the
//! schema-interface extension.
//!
//! ```
//! use skillgate_lint::{lint_bytes, ProfileChoice, Profile};
//! let card = br#"{"name":"x","description":"d","version":"1.0.0",
//!   "supportedInterfaces":[{"url":"https://a.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
//!   "capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
//!   "skills":[{"id":"s","name":"S","description":"d","tags":["t"]}]}"#;
//! let report = lint_bytes(card, ProfileChoice::Auto).unwrap();
//! assert_eq!(report.profile, Profile::A2a10);
//! assert_eq!(report.errors(), 0);
//! ```
//!
//! Findings carry a stable rule id (see [`rules`]), a fixed severity, a JSON Pointer, a message
//! and a fix hint. The linter never panics and never recurses without a depth bound.

mod a2a03;
mod a2a10;
mod agentvault;
mod common;
mod extension;
pub mod output;
#[cfg(feature = "remote")]
pub mod remote;
pub mod rules;
pub mod scan;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;

pub use rules::{Rule, Severity};

/// Largest card accepted at all (files, stdin and URLs).
pub const MAX_CARD_BYTES: usize = 1024 * 1024;
/// Size above which a card (or one description) earns a warning.
pub const SIZE_WARNING_BYTES: usize = 10 * 1024;
/// Deepest nesting the linter reads; deeper cards are one `CARD-002` error.
pub const MAX_DEPTH: usize = 100;

/// A card format with its own rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Profile {
    /// A2A 1.0 / 1.0.1 (the proto is normative).
    #[serde(rename = "a2a-1.0")]
    A2a10,
    /// Legacy A2A 0.3 (the 0.3.0 JSON Schema).
    #[serde(rename = "a2a-0.3")]
    A2a03,
    /// AgentVault Agent Card v1.0.
    #[serde(rename = "agentvault-1.0")]
    AgentVault10,
}

impl Profile {
    /// The name used on the command line and in every output.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::A2a10 => "a2a-1.0",
            Profile::A2a03 => "a2a-0.3",
            Profile::AgentVault10 => "agentvault-1.0",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `--profile`: a fixed profile or auto-detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileChoice {
    /// Detect from the card's members.
    Auto,
    /// Use this profile.
    Fixed(Profile),
}

/// An unknown profile name.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown profile {0:?} (expected auto, a2a-1.0, a2a-0.3 or agentvault-1.0)")]
pub struct UnknownProfile(pub String);

impl FromStr for ProfileChoice {
    type Err = UnknownProfile;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "auto" => ProfileChoice::Auto,
            "a2a-1.0" => ProfileChoice::Fixed(Profile::A2a10),
            "a2a-0.3" => ProfileChoice::Fixed(Profile::A2a03),
            "agentvault-1.0" => ProfileChoice::Fixed(Profile::AgentVault10),
            other => return Err(UnknownProfile(other.to_string())),
        })
    }
}

/// One problem found in a card.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Rule id, e.g. `A2A-REQ-001`.
    pub rule: &'static str,
    /// The rule's severity.
    pub severity: Severity,
    /// JSON Pointer of the offending (or missing) member.
    pub path: String,
    /// What is wrong here.
    pub message: String,
    /// How to fix it.
    pub hint: String,
    /// Line and column of the member (or its nearest present ancestor), when known.
    #[serde(skip)]
    pub position: Option<scan::Pos>,
}

/// The result of linting one card.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The profile the card was linted with.
    pub profile: Profile,
    /// Whether the profile was auto-detected.
    #[serde(skip)]
    pub detected: bool,
    /// Findings, in document order.
    pub findings: Vec<Finding>,
    /// Where each member starts in the bytes (empty for [`lint_value`]).
    #[serde(skip)]
    positions: std::collections::HashMap<String, scan::Pos>,
}

impl Report {
    /// Number of error findings.
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }
    /// Number of warning findings.
    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }
    /// Number of info findings.
    pub fn infos(&self) -> usize {
        self.count(Severity::Info)
    }
    fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }
    /// The sorted, de-duplicated rule ids of the findings.
    pub fn rule_ids(&self) -> Vec<&'static str> {
        let mut ids: Vec<_> = self.findings.iter().map(|f| f.rule).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// Input that cannot be linted at all: there is no report, only this reason.
#[derive(Debug, Clone, thiserror::Error)]
pub enum InputError {
    /// Not JSON, with the position where parsing failed.
    #[error("not JSON: {message} at line {line}, column {column}")]
    NotJson {
        /// What is wrong.
        message: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// Larger than [`MAX_CARD_BYTES`].
    #[error("card is larger than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
}

/// Picks the profile for `--profile auto`: AgentVault by `schemaVersion` + `humanReadableId`,
/// 1.0 by `supportedInterfaces` (even when 0.3 members are present too), 0.3 by top-level `url` +
/// `protocolVersion`. `None` when nothing matches.
pub fn detect_profile(card: &Value) -> Option<Profile> {
    let obj = card.as_object()?;
    if obj.contains_key("schemaVersion") && obj.contains_key("humanReadableId") {
        Some(Profile::AgentVault10)
    } else if obj.contains_key("supportedInterfaces") || obj.contains_key("supported_interfaces") {
        Some(Profile::A2a10)
    } else if obj.contains_key("url") && obj.contains_key("protocolVersion") {
        Some(Profile::A2a03)
    } else {
        None
    }
}

/// Lints card bytes: size, syntax, duplicate members anywhere, then the profile's rules.
pub fn lint_bytes(bytes: &[u8], choice: ProfileChoice) -> Result<Report, InputError> {
    if bytes.len() > MAX_CARD_BYTES {
        return Err(InputError::TooLarge {
            limit: MAX_CARD_BYTES,
        });
    }
    let (scan, too_deep) = match scan::scan(bytes, MAX_DEPTH) {
        Ok(s) => (s, None),
        Err(scan::ScanError::Syntax { message, pos }) => {
            return Err(InputError::NotJson {
                message,
                line: pos.line,
                column: pos.column,
            })
        }
        Err(scan::ScanError::TooDeep { pointer, pos }) => {
            (scan::Scan::default(), Some((pointer, pos)))
        }
    };
    if let Some((pointer, pos)) = too_deep {
        let profile = match choice {
            ProfileChoice::Fixed(p) => p,
            ProfileChoice::Auto => Profile::A2a10,
        };
        let mut ctx = common::Ctx::new(None);
        ctx.report_at(
            &rules::CARD_002,
            pointer,
            format!("nesting exceeds {MAX_DEPTH} levels; the card was not linted further"),
            Some(pos),
        );
        return Ok(ctx.finish(profile, choice == ProfileChoice::Auto));
    }
    let value = parse_value(bytes)?;
    let mut ctx = common::Ctx::new(Some(&scan));
    for d in &scan.duplicates {
        ctx.report_at(
            &rules::CARD_001,
            d.pointer.clone(),
            format!(
                "member {:?} repeats the one at line {}, column {}",
                d.pointer.rsplit('/').next().unwrap_or(""),
                d.first.line,
                d.first.column
            ),
            Some(d.pos),
        );
    }
    if bytes.len() > SIZE_WARNING_BYTES {
        ctx.report(
            &rules::CARD_003,
            "",
            format!(
                "the card is {} bytes (warning above {SIZE_WARNING_BYTES})",
                bytes.len()
            ),
        );
    }
    Ok(lint_with(&value, choice, ctx))
}

/// Lints an already-parsed card (no duplicate-member or size checks: the bytes are gone).
pub fn lint_value(card: &Value, choice: ProfileChoice) -> Report {
    lint_with(card, choice, common::Ctx::new(None))
}

fn lint_with(card: &Value, choice: ProfileChoice, mut ctx: common::Ctx) -> Report {
    let (profile, detected) = match choice {
        ProfileChoice::Fixed(p) => (p, false),
        ProfileChoice::Auto => match detect_profile(card) {
            Some(p) => (p, true),
            None => {
                if card.is_object() {
                    ctx.report(
                        &rules::CARD_006,
                        "",
                        "no profile's identifying members found".to_string(),
                    );
                }
                // Assumed, not detected: the report must not claim otherwise.
                (Profile::A2a10, false)
            }
        },
    };
    let Some(obj) = card.as_object() else {
        ctx.report(
            &rules::CARD_005,
            "",
            format!("the card is {}", common::type_name(card)),
        );
        return ctx.finish(profile, detected);
    };
    common::check_descriptions(&mut ctx, card);
    match profile {
        Profile::A2a10 => a2a10::lint(&mut ctx, obj),
        Profile::A2a03 => a2a03::lint(&mut ctx, card, obj),
        Profile::AgentVault10 => agentvault::lint(&mut ctx, obj),
    }
    extension::lint(&mut ctx, obj);
    ctx.finish(profile, detected)
}

fn parse_value(bytes: &[u8]) -> Result<Value, InputError> {
    use serde::Deserialize;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // The scanner has already bounded the depth to MAX_DEPTH.
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    v.map_err(|e| InputError::NotJson {
        message: e
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or("")
            .to_string(),
        line: e.line(),
        column: e.column(),
    })
}

/// The advertisement of the schema-interface extension found in a card, for `--deep`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdvertisedSkill {
    /// `skill_id`.
    pub skill_id: String,
    /// `skill_version`.
    pub skill_version: String,
    /// `interface_digest` as written in the card.
    pub interface_digest: String,
    /// JSON Pointer of the entry in the card.
    pub pointer: String,
}

/// The well-formed `params.skills` entries of the exact schema-interface extension.
pub fn advertised_skills(card: &Value) -> Vec<AdvertisedSkill> {
    extension::advertised(card)
}

/// The first interface URL of a card (1.0 `supportedInterfaces[0].url`, else 0.3 `url`).
pub fn primary_interface_url(card: &Value) -> Option<String> {
    card.pointer("/supportedInterfaces/0/url")
        .or_else(|| card.get("url"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// CARD-SIGN-004: adds a finding for every signature whose `kid` names one of `keys` but
/// which does not verify with it (the card changed after signing, or was signed over another
/// canonical form). Signatures by other keys are not judged: the linter cannot know them. A
/// signature verifies for either version's readers (a card served to A2A 0.3 readers carries
/// one over their view, D235).
pub fn check_signatures(
    report: &mut Report,
    card: &serde_json::Value,
    keys: &skillgate_sign::TrustedKeys,
) {
    let views = [skillgate_sign::View::V1_0, skillgate_sign::View::V0_3];
    let Ok(results) = skillgate_sign::verify_each_for(card, keys, &views) else {
        return;
    };
    for (i, r) in results.into_iter().enumerate() {
        if let Err(why @ skillgate_sign::SignatureError::Mismatch { .. }) = r {
            extend_report(
                report,
                &rules::CARD_SIGN_004,
                format!("/signatures/{i}"),
                why.to_string(),
            );
        }
    }
}

/// Adds findings produced outside the linter (e.g. by `--deep`) and keeps the order.
pub fn extend_report(report: &mut Report, rule: &'static Rule, path: String, message: String) {
    let position = common::position_in(&report.positions, &path);
    report.findings.push(Finding {
        rule: rule.id,
        severity: rule.severity,
        path,
        message,
        hint: rule.fix.to_string(),
        position,
    });
}

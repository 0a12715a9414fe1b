//! What the client's results and failures look like as JSON (`--format json`): typed
//! `Serialize` structs, so the shape is visible in one place and cannot drift between
//! commands. Which exit code a failure means is the CLI's decision ([`Outcome`] says what kind
//! of failure it is, nothing more).

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;
use skillgate_core::wire::ErrorDetail;

use crate::chain::{ChainFailure, ChainReport, ChainStepResult, Correlation};
use crate::client::{InterfaceSource, Resolved};
use crate::error::ClientError;
use crate::steps::{Record, SkillResult};

/// What kind of failure a client error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The draft said no: a draft error code (local or remote) or a non-composable link.
    Finding,
    /// The exchange could not be made: usage, transport or protocol failure.
    Failure,
}

impl ClientError {
    /// The kind of failure.
    pub fn outcome(&self) -> Outcome {
        match self {
            ClientError::Local { .. } | ClientError::Remote { .. } => Outcome::Finding,
            _ => Outcome::Failure,
        }
    }

    /// The failure object: `{"ok": false, "where", "code", "message", "details", "step"?,
    /// "task_id"?, "state"?}`.
    pub fn output(&self) -> FailureOutput<'_> {
        let details = match self {
            ClientError::Local { details, .. } | ClientError::Remote { details, .. } => details,
            _ => &[][..],
        };
        let state = match self {
            ClientError::Remote { state, .. } => Some(*state),
            ClientError::Protocol { state, .. } => *state,
            _ => None,
        };
        FailureOutput {
            ok: false,
            where_: self.where_().as_str(),
            code: self.code_str(),
            message: Cow::Borrowed(self.message()),
            details,
            step: self.step().map(|s| StepRef {
                number: s.number(),
                name: s.name(),
            }),
            task_id: self.task_id(),
            state: state.map(|s| s.as_str()),
            chain: ChainFields::default(),
        }
    }
}

impl ChainFailure {
    /// The kind of failure.
    pub fn outcome(&self) -> Outcome {
        match self {
            ChainFailure::NotComposable { .. } => Outcome::Finding,
            ChainFailure::InvalidPlan(_) => Outcome::Failure,
            ChainFailure::Step { error, .. } => error.outcome(),
        }
    }

    /// The failure object, with the chain's own members (`field`, `upstream_step`,
    /// `downstream_step`, `failed_step`).
    pub fn output(&self) -> FailureOutput<'_> {
        match self {
            ChainFailure::NotComposable {
                upstream,
                downstream,
                error,
            } => FailureOutput {
                ok: false,
                where_: "local",
                code: "not_composable",
                message: Cow::Owned(self.to_string()),
                details: &[],
                step: None,
                task_id: None,
                state: None,
                chain: ChainFields {
                    field: Some(error.field.as_str()),
                    upstream_step: Some(upstream),
                    downstream_step: Some(downstream),
                    failed_step: None,
                },
            },
            ChainFailure::InvalidPlan(m) => FailureOutput {
                ok: false,
                where_: "local",
                code: "usage_error",
                message: Cow::Owned(m.to_string()),
                details: &[],
                step: None,
                task_id: None,
                state: None,
                chain: ChainFields::default(),
            },
            ChainFailure::Step { name, error, .. } => {
                let mut out = error.output();
                out.chain.failed_step = Some(name);
                out
            }
        }
    }
}

/// A step of the client's eleven, by number and name.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct StepRef {
    /// 1 to 11.
    pub number: u8,
    /// The step's name.
    pub name: &'static str,
}

/// Members only a chain failure has; absent otherwise.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ChainFields<'a> {
    /// The output field that does not compose.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<&'a str>,
    /// The upstream step of a non-composable link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream_step: Option<&'a str>,
    /// The downstream step of a non-composable link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub downstream_step: Option<&'a str>,
    /// The plan step that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_step: Option<&'a str>,
}

/// The failure object of every client command's JSON output.
#[derive(Debug, Clone, Serialize)]
pub struct FailureOutput<'a> {
    /// Always `false`.
    pub ok: bool,
    /// `local` or `remote`.
    #[serde(rename = "where")]
    pub where_: &'static str,
    /// A draft error code, or `transport_error` / `protocol_error` / `usage_error` /
    /// `not_composable`.
    pub code: &'a str,
    /// The bare message.
    pub message: Cow<'a, str>,
    /// Draft-style details (may be empty).
    pub details: &'a [ErrorDetail],
    /// The step that failed, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<StepRef>,
    /// The remote task the failure refers to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<&'a str>,
    /// That task's state, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<&'static str>,
    /// Chain-only members.
    #[serde(flatten)]
    pub chain: ChainFields<'a>,
}

/// The success object of `call`: `{"ok": true, "task_id", "state", "interface_digest",
/// "output", "records"}`.
#[derive(Debug, Clone, Serialize)]
pub struct CallOutput<'a> {
    /// Always `true`.
    pub ok: bool,
    /// The remote task id.
    pub task_id: &'a str,
    /// Its terminal state.
    pub state: &'static str,
    /// The digest the request carried.
    pub interface_digest: String,
    /// The validated output.
    pub output: &'a Value,
    /// The validated supporting records.
    pub records: &'a [Record],
}

impl SkillResult {
    /// The success object of the JSON output.
    pub fn output(&self) -> CallOutput<'_> {
        CallOutput {
            ok: true,
            task_id: &self.task_id,
            state: self.state.as_str(),
            interface_digest: self.interface_digest.to_string(),
            output: &self.output,
            records: &self.records,
        }
    }
}

/// The success object of `describe`: the resolved interface, where it came from, and the
/// validated document itself.
#[derive(Debug, Clone, Serialize)]
pub struct DescribeOutput<'a> {
    /// Always `true`.
    pub ok: bool,
    /// The skill the document describes.
    pub skill_id: &'a str,
    /// Its version.
    pub skill_version: &'a str,
    /// The digest that agreed three ways (or bound the cache entry).
    pub interface_digest: String,
    /// The URL the card came from.
    pub card_url: String,
    /// The interface the client selected.
    pub interface_url: String,
    /// `describe_skill` when the agent was asked, `cache` when a cached document was used.
    pub source: &'static str,
    /// The describe_skill task id; `null` when the document came from the cache.
    pub describe_task_id: Option<&'a str>,
    /// The validated Skill Interface Document, as received.
    pub document: &'a Value,
    /// Present when the cache held this skill under another digest: what the new document
    /// changed against the cached one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update: Option<UpdateOutput<'a>>,
}

/// What a redeployed skill's new document changed against the one the cache held.
#[derive(Debug, Clone, Serialize)]
pub struct UpdateOutput<'a> {
    /// The cached document's `skill_version`.
    pub previous_version: &'a str,
    /// The cached document's digest.
    pub previous_digest: String,
    /// The worst class of change (`breaking`, `possibly_breaking`, `compatible`, `cosmetic`),
    /// `null` when only the version moved.
    pub class: Option<&'static str>,
    /// The bump the changes need (`major`, `minor`, `none`).
    pub required: &'static str,
    /// Whether the new `skill_version` carries that bump.
    pub carried: bool,
    /// The verdict in one line, as the step output gives it.
    pub verdict: String,
}

impl Resolved {
    /// The success object of `describe`'s JSON output.
    pub fn output(&self) -> DescribeOutput<'_> {
        let (source, describe_task_id) = match &self.source {
            InterfaceSource::Described { task_id } => ("describe_skill", Some(task_id.as_str())),
            InterfaceSource::Cache(_) => ("cache", None),
        };
        DescribeOutput {
            ok: true,
            skill_id: self.document.skill_id(),
            skill_version: self.document.skill_version(),
            interface_digest: self.document.interface_digest().to_string(),
            card_url: self.target.card_url.to_string(),
            interface_url: self.target.interface.url.to_string(),
            source,
            describe_task_id,
            document: self.document.value(),
            update: self.update.as_ref().map(|r| UpdateOutput {
                previous_version: &r.old_version,
                previous_digest: r.old_digest.to_string(),
                class: r.worst().map(skillgate_evolve::Class::as_str),
                required: r.required.as_str(),
                carried: r.carried,
                verdict: r.verdict(),
            }),
        }
    }
}

/// One executed chain step: the call's object plus the plan's names.
#[derive(Debug, Clone, Serialize)]
pub struct ChainStepOutput<'a> {
    /// The call's result.
    #[serde(flatten)]
    pub call: CallOutput<'a>,
    /// The plan step's name.
    pub name: &'a str,
    /// The card URL of the agent.
    pub agent: &'a str,
    /// The endpoint the task ran on.
    pub interface_url: &'a str,
    /// The skill id.
    pub skill: &'a str,
}

impl ChainStepResult {
    /// This step as JSON output.
    pub fn output(&self) -> ChainStepOutput<'_> {
        ChainStepOutput {
            call: self.result.output(),
            name: &self.name,
            agent: &self.result.card_url,
            interface_url: &self.result.interface_url,
            skill: &self.skill,
        }
    }
}

/// A chain's JSON output: the steps that ran and their task correlations, plus the failure's
/// members when it stopped.
#[derive(Debug, Clone, Serialize)]
pub struct ChainOutput<'a> {
    /// `{"ok": true}`, or the failure object when the chain stopped.
    #[serde(flatten)]
    pub status: ChainStatus<'a>,
    /// Every step that ran, in order.
    pub steps: Vec<ChainStepOutput<'a>>,
    /// Upstream/downstream task pairs.
    pub correlations: &'a [Correlation],
}

/// Whether the chain finished.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ChainStatus<'a> {
    /// Every step completed.
    Done {
        /// Always `true`.
        ok: bool,
    },
    /// The chain stopped.
    Stopped(FailureOutput<'a>),
}

impl ChainReport {
    /// The JSON output of a chain that finished (`failure = None`) or stopped.
    pub fn output<'a>(&'a self, failure: Option<&'a ChainFailure>) -> ChainOutput<'a> {
        ChainOutput {
            status: match failure {
                None => ChainStatus::Done { ok: true },
                Some(f) => ChainStatus::Stopped(f.output()),
            },
            steps: self.steps.iter().map(ChainStepResult::output).collect(),
            correlations: &self.correlations,
        }
    }
}

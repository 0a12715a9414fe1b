//! Chains: a plan of skill calls where a step's input may be an earlier step's output.
//!
//! Before anything is delegated every step's interface is resolved (steps 1-6), every `from`
//! link is checked for direct composition (upstream `output_schema` vs downstream
//! `input_schema`, all four identity fields plus embedded digests) and every literal input is
//! validated. Each step then runs as its own A2A task; the upstream -> downstream task
//! correlation is recorded with both agents' endpoints.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use skillgate_core::compose::{direct_composition, CompositionError};

use crate::a2a::Mode;
use crate::client::{Client, Resolved};
use crate::error::{ClientError, Step};
use crate::steps::{self, SkillResult};

/// A chain plan: `{"steps": [...]}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The steps, run in order.
    pub steps: Vec<PlanStep>,
}

/// One step: `{name, agent, skill, arguments}` or `{name, agent, skill, from}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    /// Unique step name.
    pub name: String,
    /// Base URL or card URL of the agent.
    pub agent: String,
    /// Skill id.
    pub skill: String,
    /// Literal arguments.
    #[serde(default)]
    pub arguments: Option<Value>,
    /// Name of an earlier step whose output becomes this step's arguments.
    #[serde(default)]
    pub from: Option<String>,
}

impl Plan {
    /// Parses and checks a plan: unique non-empty names, exactly one of `arguments`/`from`
    /// per step, every `from` naming an earlier step.
    pub fn from_value(v: Value) -> Result<Self, PlanError> {
        if !v.is_object() {
            let found = match &v {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            };
            return Err(PlanError::NotAnObject { found });
        }
        let plan: Plan =
            serde_json::from_value(v).map_err(|e| PlanError::Malformed(e.to_string()))?;
        plan.check()?;
        Ok(plan)
    }

    /// The structural checks of [`Plan::from_value`], for plans built in code.
    pub fn check(&self) -> Result<(), PlanError> {
        let plan = self;
        if plan.steps.is_empty() {
            return Err(PlanError::NoSteps);
        }
        let mut seen: Vec<&str> = Vec::new();
        for s in &plan.steps {
            if s.name.is_empty() {
                return Err(PlanError::EmptyName);
            }
            if seen.contains(&s.name.as_str()) {
                return Err(PlanError::DuplicateName {
                    name: s.name.clone(),
                });
            }
            match (&s.arguments, &s.from) {
                (Some(_), None) => {}
                (None, Some(f)) if seen.contains(&f.as_str()) => {}
                (None, Some(f)) => {
                    return Err(PlanError::NotEarlier {
                        step: s.name.clone(),
                        from: f.clone(),
                    })
                }
                _ => {
                    return Err(PlanError::Input {
                        step: s.name.clone(),
                    })
                }
            }
            seen.push(&s.name);
        }
        Ok(())
    }
}

/// Why a chain plan is malformed (see [`Plan::from_value`]); found before anything is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The plan's JSON is not an object.
    #[error(
        "invalid plan: a plan is an object with \"steps\" ({{\"steps\": [...]}}), found {found}"
    )]
    NotAnObject {
        /// What it is instead: "an array", "a string", "a number", "a boolean" or "null".
        found: &'static str,
    },
    /// The object does not have the plan's shape (a missing or unknown member, a wrong type);
    /// the JSON reader's reason.
    #[error("invalid plan: {0}")]
    Malformed(String),
    /// `steps` is empty.
    #[error("invalid plan: no steps")]
    NoSteps,
    /// A step's `name` is empty.
    #[error("invalid plan: a step has an empty name")]
    EmptyName,
    /// Two steps share a name, so `from` could not say which it means.
    #[error("invalid plan: step name {name:?} is used twice")]
    DuplicateName {
        /// The repeated name.
        name: String,
    },
    /// A step's `from` names no step before it (a later step, itself, or no step at all).
    #[error(
        "invalid plan: step {step:?} takes its input from {from:?}, which is not an earlier step"
    )]
    NotEarlier {
        /// The step with the `from`.
        step: String,
        /// The name it gives.
        from: String,
    },
    /// A step has both `arguments` and `from`, or neither.
    #[error("invalid plan: step {step:?} needs exactly one of \"arguments\" and \"from\"")]
    Input {
        /// The step's name.
        step: String,
    },
}

/// One executed step.
#[derive(Debug, Clone, Serialize)]
pub struct ChainStepResult {
    /// Step name.
    pub name: String,
    /// Agent as given in the plan.
    pub agent: String,
    /// Skill id.
    pub skill: String,
    /// The validated result.
    pub result: SkillResult,
}

/// One end of a correlation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskRef {
    /// Step name.
    pub step: String,
    /// Agent card URL.
    pub agent: String,
    /// Endpoint the task ran on (task ids are scoped to it).
    pub interface_url: String,
    /// Task id.
    pub task_id: String,
}

/// `upstream task -> downstream task`, qualified by agent endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Correlation {
    /// Upstream end.
    pub upstream: TaskRef,
    /// Downstream end.
    pub downstream: TaskRef,
}

/// The outcome of a whole plan.
#[derive(Debug, Clone, Serialize)]
pub struct ChainReport {
    /// Executed steps, in order.
    pub steps: Vec<ChainStepResult>,
    /// One entry per `from` link that ran.
    pub correlations: Vec<Correlation>,
}

/// Why a plan stopped.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ChainFailure {
    /// A `from` link does not compose directly; nothing was delegated.
    #[error("step {downstream:?} cannot take step {upstream:?}'s output: {error}")]
    NotComposable {
        /// Upstream step name.
        upstream: String,
        /// Downstream step name.
        downstream: String,
        /// The differing field.
        error: CompositionError,
    },
    /// The plan itself is malformed; nothing was sent.
    #[error("{0}")]
    InvalidPlan(#[from] PlanError),
    /// A step failed (its resolution, input validation or call).
    #[error("step {name:?}: {error}")]
    Step {
        /// The step.
        name: String,
        /// Its error.
        error: ClientError,
        /// Whether any domain task had been delegated before the failure.
        delegated: bool,
    },
}

/// What a chain reports as it goes.
#[derive(Debug)]
pub enum ChainEvent<'a> {
    /// A step of the eleven passed for a plan step.
    Step {
        /// Plan step name.
        name: &'a str,
        /// Which of the eleven.
        step: Step,
        /// Summary.
        summary: &'a str,
    },
    /// A `from` link composes directly.
    Composes {
        /// Upstream step.
        upstream: &'a str,
        /// Downstream step.
        downstream: &'a str,
        /// The shared schema identity (`uri version digest`).
        schema: String,
    },
    /// Resolution and pre-flight checks are complete; delegation starts.
    Ready,
    /// An upstream task fed a downstream task.
    Correlated(&'a Correlation),
}

/// A step's failure, tagged with the step and whether delegation had started.
fn step_failed(s: &PlanStep, delegated: bool) -> impl FnOnce(ClientError) -> ChainFailure + '_ {
    move |error| ChainFailure::Step {
        name: s.name.clone(),
        error,
        delegated,
    }
}

/// The steps resolved, in plan order, and each step's index by name.
type Prepared<'p> = (Vec<Resolved>, HashMap<&'p str, usize>);

/// Everything before delegation: checks the plan, resolves every step (steps 1-6), validates
/// literal arguments (step 7) and checks that every `from` link composes directly. Nothing is
/// delegated, so a failure here leaves no remote task behind.
async fn prepare_chain<'p>(
    client: &Client,
    plan: &'p Plan,
    obs: &mut (dyn FnMut(ChainEvent<'_>) + Send),
) -> Result<Prepared<'p>, ChainFailure> {
    plan.check().map_err(ChainFailure::InvalidPlan)?;
    let mut resolved: Vec<Resolved> = Vec::with_capacity(plan.steps.len());
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, s) in plan.steps.iter().enumerate() {
        let mut step_obs = |step: Step, summary: &str| {
            obs(ChainEvent::Step {
                name: &s.name,
                step,
                summary,
            })
        };
        let r = client
            .resolve(&s.agent, &s.skill, &mut step_obs)
            .await
            .map_err(step_failed(s, false))?;
        if let Some(a) = &s.arguments {
            steps::step7_validate_input(&r.document, a).map_err(step_failed(s, false))?;
        }
        resolved.push(r);
        index.insert(&s.name, i);
    }
    for (i, s) in plan.steps.iter().enumerate() {
        let Some(from) = &s.from else { continue };
        let u = index[from.as_str()];
        let up = &resolved[u].document.document().output_schema;
        let down = &resolved[i].document.document().input_schema;
        direct_composition(up, down).map_err(|error| ChainFailure::NotComposable {
            upstream: from.clone(),
            downstream: s.name.clone(),
            error,
        })?;
        obs(ChainEvent::Composes {
            upstream: from,
            downstream: &s.name,
            schema: format!("{} {} {}", up.schema_uri, up.version, up.digest),
        });
    }
    Ok((resolved, index))
}

impl TaskRef {
    /// The task a finished step created.
    fn of(step: &ChainStepResult) -> Self {
        TaskRef {
            step: step.name.clone(),
            agent: step.result.card_url.clone(),
            interface_url: step.result.interface_url.clone(),
            task_id: step.result.task_id.clone(),
        }
    }
}

/// Runs a plan; stops at the first failure (a composition failure stops before any delegation).
pub async fn run_chain(
    client: &Client,
    plan: &Plan,
    mode: Mode,
    obs: &mut (dyn FnMut(ChainEvent<'_>) + Send),
) -> Result<ChainReport, (ChainFailure, ChainReport)> {
    let mut report = ChainReport {
        steps: Vec::new(),
        correlations: Vec::new(),
    };
    let (resolved, index) = match prepare_chain(client, plan, obs).await {
        Ok(p) => p,
        Err(f) => return Err((f, report)),
    };
    obs(ChainEvent::Ready);
    for (i, s) in plan.steps.iter().enumerate() {
        let arguments = match (&s.arguments, &s.from) {
            (Some(a), _) => a.clone(),
            (None, Some(f)) => report.steps[index[f.as_str()]].result.output.clone(),
            (None, None) => Value::Null,
        };
        let mut step_obs = |step: Step, summary: &str| {
            obs(ChainEvent::Step {
                name: &s.name,
                step,
                summary,
            })
        };
        let result = match client
            .invoke(&resolved[i], &arguments, mode, &mut step_obs)
            .await
        {
            Ok(r) => r,
            Err(error) => return Err((step_failed(s, true)(error), report)),
        };
        report.steps.push(ChainStepResult {
            name: s.name.clone(),
            agent: s.agent.clone(),
            skill: s.skill.clone(),
            result,
        });
        if let Some(f) = &s.from {
            let c = Correlation {
                upstream: TaskRef::of(&report.steps[index[f.as_str()]]),
                downstream: TaskRef::of(&report.steps[i]),
            };
            obs(ChainEvent::Correlated(&c));
            report.correlations.push(c);
        }
    }
    Ok(report)
}

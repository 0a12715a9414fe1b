//! The three netops skills as runtime [`Skill`]s: each handler is a thin wrapper that runs a
//! [`crate::domain`] function and maps its error onto a draft error code.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::Value;
use skillgate_runtime::{Skill, SkillContext, SkillError, SkillOutput, SupportingRecord};

use crate::domain::{self, CollectArgs, Measurement, RESOURCE_OBSERVATION};
use crate::error::NetopsError;
use crate::host::HostSource;
use crate::interfaces;

impl From<NetopsError> for SkillError {
    fn from(e: NetopsError) -> Self {
        SkillError::new(e.code(), e.to_string())
    }
}

/// Runs `evaluate_resource_condition` for the runtime: the record's id is a fresh artifactId,
/// so the output's `supporting_record_refs` names the record's Artifact.
pub async fn evaluate_handler(
    source: Arc<dyn HostSource>,
    args: Value,
    ctx: SkillContext,
) -> Result<SkillOutput, SkillError> {
    let artifact_id = ctx.new_record_artifact_id();
    let (output, record) = domain::evaluate(&args, source.as_ref(), artifact_id.clone()).await?;
    Ok(SkillOutput::new(output).with_record(SupportingRecord {
        artifact_id,
        kind: RESOURCE_OBSERVATION.to_owned(),
        data: record,
    }))
}

/// Runs `collect_interface_counters` for the runtime, on typed arguments and output.
pub async fn collect_handler(
    source: Arc<dyn HostSource>,
    args: CollectArgs,
    _ctx: SkillContext,
) -> Result<Measurement, NetopsError> {
    domain::collect_measurement(args, source.as_ref()).await
}

/// Runs `assess_interface_health` for the runtime, on a typed measurement; the time of the
/// assessment is the time the handler runs.
pub async fn assess_handler(m: Measurement, _ctx: SkillContext) -> Result<Value, NetopsError> {
    Ok(domain::assess_measurement(&m, SystemTime::now()))
}

/// The three skills, reading the host through `source`: the declarations of
/// [`crate::interfaces`] with their handlers.
pub fn skills(source: Arc<dyn HostSource>) -> Vec<Skill> {
    let evaluate_source = Arc::clone(&source);
    let evaluate = interfaces::evaluate_resource_condition()
        .handler(move |args, ctx| evaluate_handler(Arc::clone(&evaluate_source), args, ctx))
        .build();
    let collect = interfaces::collect_interface_counters()
        .typed_handler(move |args, ctx| collect_handler(Arc::clone(&source), args, ctx))
        .build();
    let assess = interfaces::assess_interface_health()
        .typed_handler(assess_handler)
        .build();
    vec![evaluate, collect, assess]
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillgate_core::ErrorCode;

    #[test]
    fn errors_keep_their_code_and_message() {
        let e: SkillError = NetopsError::UnknownLinkSpeed {
            interface: "lo".into(),
        }
        .into();
        assert_eq!(e.code, ErrorCode::ConstraintRejected);
        assert!(e.message.starts_with("link speed of lo is unknown"));
        let e: SkillError = NetopsError::Vanished("eth9".into()).into();
        assert_eq!(e.code, ErrorCode::ExecutionFailed);
        let e: SkillError = NetopsError::InvalidArguments {
            skill: "assess_interface_health",
        }
        .into();
        assert_eq!(e.code, ErrorCode::InputInvalid);
    }

    #[test]
    fn skills_are_declared_in_order_and_the_agent_builds() {
        let source: Arc<dyn HostSource> = Arc::new(crate::SysfsHost::new());
        let ids: Vec<String> = skills(Arc::clone(&source))
            .iter()
            .map(|s| s.id().to_owned())
            .collect();
        assert_eq!(
            ids,
            [
                "evaluate_resource_condition",
                "collect_interface_counters",
                "assess_interface_health"
            ]
        );
        let agent = crate::agent_with(source).build().unwrap();
        for id in ids {
            let gate = agent.gate(&id).unwrap();
            assert!(!gate.cancelable());
            assert!(!gate.is_execute());
            assert_eq!(
                gate.max_duration(),
                Some(std::time::Duration::from_secs(10))
            );
        }
    }
}

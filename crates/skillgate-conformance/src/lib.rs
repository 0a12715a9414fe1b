//! `skillgate-conformance`: a checker for the schema-interface draft
//! (draft-huang-ainetops-agent-schema-interfaces-00, skillgate wire profile) that probes any
//! A2A agent: the card's extension advertisement, `describe_skill` for every advertised skill,
//! three-way digests, document validation, deliberately wrong requests that must produce the
//! right error code and task state, a valid call with artifact naming and output/record
//! validation, and the extension echo. An agent that offers only A2A 0.3 is probed over 0.3
//! through the transport's 0.3 layer, which reads its answers strictly into the 1.0 model, so
//! every check is the same rule whatever the version.
//!
//! Probe arguments are generated from each skill's input schema ([`generate`]), so the checker
//! needs no knowledge of the agent. Each check has a stable id ([`catalogue`]), a verdict and
//! evidence; [`Report::outcome`] says whether every required check passed, one failed, or no
//! A2A agent could be reached, and with which exit status a program reports that
//! ([`Outcome::exit_code`]; a stop's failure code is [`Fatal::code`], its one-line reason
//! [`Report::no_agent_reason`]).
//!
//! ```no_run
//! # async fn demo() -> Result<(), skillgate_conformance::UsageError> {
//! let report = skillgate_conformance::check("http://127.0.0.1:8080", &Default::default()).await?;
//! print!("{}", report.to_text());
//! assert_eq!(report.outcome(), skillgate_conformance::Outcome::Conformant);
//! # Ok(())
//! # }
//! ```

pub mod catalogue;
mod checks;
pub mod generate;
pub mod probe;
pub mod report;
mod run;

pub use probe::{Binding, ProbeConfig};
pub use report::{CheckResult, Fatal, Outcome, Report, ReportOutput, Summary, Verdict};
pub use run::{card_url, check, Options, UsageError, MAX_SKILLS};

//! The exit-code contract shared by every subcommand, and the one place where library
//! outcomes become exit codes (the libraries report outcomes and never choose a code).

use serde::Serialize;
use skillgate_conformance::{Fatal, Outcome, Report, ReportOutput};

/// Success: valid, composable, call completed.
pub const OK: u8 = 0;
/// A finding: invalid document or card, not composable, or a draft error code.
pub const INVALID: u8 = 1;
/// Usage error, unreadable input, transport or protocol failure.
pub const USAGE: u8 = 2;

/// A conformance outcome: a failed required check is a finding; no reachable agent is a
/// transport failure.
pub fn conformance(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Conformant => OK,
        Outcome::NotConformant => INVALID,
        Outcome::NoAgent(
            Fatal::Unreachable | Fatal::NotA2aAgent | Fatal::Unauthorized | Fatal::Untrusted,
        ) => USAGE,
    }
}

/// A client failure: a draft error code (local or remote) is a finding; usage, transport
/// and protocol failures are not.
pub fn client(outcome: skillgate_client::output::Outcome) -> u8 {
    match outcome {
        skillgate_client::output::Outcome::Finding => INVALID,
        skillgate_client::output::Outcome::Failure => USAGE,
    }
}

/// A lint report: any error finding makes the card invalid; warnings and infos do not.
pub fn lint(report: &skillgate_lint::Report) -> u8 {
    if report.errors() > 0 {
        INVALID
    } else {
        OK
    }
}

/// `skillgate conformance --format json`: the library's output plus the exit code the
/// process returns, so scripts reading stdout see it too.
#[derive(Debug, Serialize)]
pub struct ConformanceJson<'a> {
    /// The report and its summary.
    #[serde(flatten)]
    pub output: ReportOutput<'a>,
    /// [`conformance`] of the report's outcome.
    pub exit_code: u8,
}

impl<'a> ConformanceJson<'a> {
    /// The JSON document for `report`.
    pub fn new(report: &'a Report) -> Self {
        Self {
            output: report.output(),
            exit_code: conformance(report.outcome()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_map_to_the_contract() {
        assert_eq!(conformance(Outcome::Conformant), OK);
        assert_eq!(conformance(Outcome::NotConformant), INVALID);
        assert_eq!(conformance(Outcome::NoAgent(Fatal::Unreachable)), USAGE);
        assert_eq!(conformance(Outcome::NoAgent(Fatal::NotA2aAgent)), USAGE);
        assert_eq!(conformance(Outcome::NoAgent(Fatal::Unauthorized)), USAGE);
        assert_eq!(conformance(Outcome::NoAgent(Fatal::Untrusted)), USAGE);
        assert_eq!(client(skillgate_client::output::Outcome::Finding), INVALID);
        assert_eq!(client(skillgate_client::output::Outcome::Failure), USAGE);
    }
}

//! The exit-code contract shared by every subcommand, and where library outcomes become exit
//! codes. The conformance checker states its run's exit status itself (it is part of its
//! report, `exit_code` in the JSON): the test below holds it to this contract.

/// Success: valid, composable, call completed.
pub const OK: u8 = 0;
/// A finding: invalid document or card, not composable, or a draft error code.
pub const INVALID: u8 = 1;
/// Usage error, unreadable input, transport or protocol failure.
pub const USAGE: u8 = 2;

/// A client failure: a draft error code (local or remote) is a finding; usage, transport
/// and protocol failures are not.
pub fn client(outcome: skillgate_client::Outcome) -> u8 {
    match outcome {
        skillgate_client::Outcome::Finding => INVALID,
        skillgate_client::Outcome::Failure => USAGE,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_map_to_the_contract() {
        use skillgate_conformance::{Fatal, Outcome};
        assert_eq!(Outcome::Conformant.exit_code(), OK);
        assert_eq!(Outcome::NotConformant.exit_code(), INVALID);
        assert_eq!(Outcome::NoAgent(Fatal::Unreachable).exit_code(), USAGE);
        assert_eq!(Outcome::NoAgent(Fatal::NotA2aAgent).exit_code(), USAGE);
        assert_eq!(Outcome::NoAgent(Fatal::Unauthorized).exit_code(), USAGE);
        assert_eq!(Outcome::NoAgent(Fatal::Untrusted).exit_code(), USAGE);
        assert_eq!(Outcome::NoAgent(Fatal::NeedsA2a1x).exit_code(), USAGE);
        assert_eq!(client(skillgate_client::Outcome::Finding), INVALID);
        assert_eq!(client(skillgate_client::Outcome::Failure), USAGE);
    }
}

//! Checks, verdicts and the report: what the checker found, in text or JSON.

use std::fmt::Write as _;

use serde::Serialize;

/// Outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The agent behaved as the draft requires.
    Pass,
    /// The agent did not.
    Fail,
    /// The check could not be run; the evidence says why.
    Skip,
}

impl Verdict {
    /// `Pass` when the check held, `Fail` when it did not: the verdict of every check that
    /// has no reason to be skipped.
    pub fn from_ok(ok: bool) -> Self {
        if ok {
            Verdict::Pass
        } else {
            Verdict::Fail
        }
    }

    /// Upper-case label used in the text report.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Skip => "SKIP",
        }
    }
}

/// The result of one check, with what was sent and seen.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    /// Stable check id, e.g. `SI-CARD-001`.
    pub id: &'static str,
    /// The skill the check is about, for per-skill checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    /// One-line statement of the requirement.
    pub title: &'static str,
    /// Whether a failure makes the run fail.
    pub required: bool,
    /// Pass, fail or skip.
    pub verdict: Verdict,
    /// What was sent and seen, one fact per line.
    pub evidence: Vec<String>,
}

/// Why a run stopped before the schema-interface checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fatal {
    /// No Agent Card could be fetched (connection, timeout, HTTP error).
    Unreachable,
    /// Something answered, but not as an A2A agent (1.0 or 0.3) we can talk to.
    NotA2aAgent,
    /// The agent refused the run's credentials (HTTP 401 or 403): nothing can be said about
    /// its conformance.
    Unauthorized,
    /// The Agent Card is not signed by a trusted key (`trusted_keys` is set): nothing the
    /// card says is believed, so nothing else is requested.
    Untrusted,
    /// The agent is an A2A agent, but offers only A2A 0.3 interfaces while the run was
    /// narrowed to A2A 1.x (`a2a_version` 1.0): nothing was probed. Not
    /// [`Fatal::NotA2aAgent`]: an unnarrowed run probes such an agent over 0.3.
    #[serde(rename = "needs_a2a_1x")]
    NeedsA2a1x,
}

impl Fatal {
    /// The stable failure code of a run that stopped here: the `code` of the failure object
    /// a program prints for it (`skillgate conformance --format json` on exit 2).
    pub fn code(self) -> &'static str {
        match self {
            Fatal::Unreachable => "unreachable",
            Fatal::NotA2aAgent => "not_a2a_agent",
            Fatal::Unauthorized => "unauthorized",
            Fatal::Untrusted => "card_untrusted",
            Fatal::NeedsA2a1x => "needs_a2a_1x",
        }
    }
}

/// The verdict on a whole run, with the exit status it calls for ([`Outcome::exit_code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every required check passed (optional ones may have failed).
    Conformant,
    /// At least one required check failed.
    NotConformant,
    /// The run stopped early: no reachable A2A agent it may probe.
    NoAgent(Fatal),
}

impl Outcome {
    /// The exit status of a program that reports this run, by the contract every
    /// `skillgate` command keeps: 0 conformant; 1 a finding (the agent answered and a
    /// required check failed); 2 nothing could be judged: every [`Fatal`] stop is a failure
    /// to reach or talk to the agent, never a finding about it.
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Conformant => 0,
            Outcome::NotConformant => 1,
            Outcome::NoAgent(
                Fatal::Unreachable
                | Fatal::NotA2aAgent
                | Fatal::Unauthorized
                | Fatal::Untrusted
                | Fatal::NeedsA2a1x,
            ) => 2,
        }
    }
}

/// What `--format json` prints: the report plus its verdict counts and exit status, as one
/// serializable value (a caller may flatten it into a larger document).
#[derive(Debug, Clone, Serialize)]
pub struct ReportOutput<'a> {
    /// The report itself.
    #[serde(flatten)]
    pub report: &'a Report,
    /// Counts of verdicts.
    pub summary: Summary,
    /// [`Outcome::exit_code`] of the report's outcome, so a script reading the JSON sees the
    /// exit status too.
    pub exit_code: u8,
}

/// Counts of verdicts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Checks that passed.
    pub pass: usize,
    /// Checks that failed (required or not).
    pub fail: usize,
    /// Checks that were skipped.
    pub skip: usize,
    /// Required checks that failed.
    pub required_failed: usize,
}

/// Everything one run found.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The URL the user gave.
    pub target: String,
    /// The Agent Card URL fetched.
    pub card_url: String,
    /// The binding probed (`JSONRPC` or `HTTP+JSON`), once chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// The interface URL probed, once chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interface_url: Option<String>,
    /// The A2A version spoken to that interface (`1.0`, or `0.3` on an agent that offers
    /// only 0.3 or when the run was narrowed to it), once chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub a2a_version: Option<String>,
    /// Set when the run stopped early for want of a reachable A2A agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fatal: Option<Fatal>,
    /// Every check, in the order run.
    pub checks: Vec<CheckResult>,
    /// Remarks about the run itself (e.g. skills left out by a bound).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Report {
    /// Counts of verdicts.
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for c in &self.checks {
            match c.verdict {
                Verdict::Pass => s.pass += 1,
                Verdict::Fail => {
                    s.fail += 1;
                    if c.required {
                        s.required_failed += 1;
                    }
                }
                Verdict::Skip => s.skip += 1,
            }
        }
        s
    }

    /// The verdict on the run: a fatal stop, a failed required check, or conformant.
    pub fn outcome(&self) -> Outcome {
        if let Some(f) = self.fatal {
            Outcome::NoAgent(f)
        } else if self.summary().required_failed > 0 {
            Outcome::NotConformant
        } else {
            Outcome::Conformant
        }
    }

    /// Ids of the checks that failed (required or not), in order, without repeats.
    pub fn failed_ids(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for c in self.checks.iter().filter(|c| c.verdict == Verdict::Fail) {
            if !out.contains(&c.id) {
                out.push(c.id);
            }
        }
        out
    }

    /// The results of one check id (one per skill for per-skill checks).
    pub fn results(&self, id: &str) -> impl Iterator<Item = &CheckResult> {
        let id = id.to_owned();
        self.checks.iter().filter(move |c| c.id == id)
    }

    /// The serializable JSON output (`--format json`).
    pub fn output(&self) -> ReportOutput<'_> {
        ReportOutput {
            report: self,
            summary: self.summary(),
            exit_code: self.outcome().exit_code(),
        }
    }

    /// Why the run found no agent, in one line (`None` when it did): the fatal stop and the
    /// last evidence of the last failed check. Names no flag: a front end that knows how its
    /// user passes a token may add that to an [`Fatal::Unauthorized`] reason.
    pub fn no_agent_reason(&self) -> Option<String> {
        let fatal = self.fatal?;
        let evidence = self
            .checks
            .iter()
            .rev()
            .find(|c| c.verdict == Verdict::Fail)
            .and_then(|c| c.evidence.last())
            .map(|e| e.trim_start_matches("no answer: "));
        Some(match fatal {
            Fatal::Unreachable => match evidence {
                Some(why) => why.to_owned(),
                None => format!("no Agent Card from {}", self.target),
            },
            Fatal::Unauthorized => format!(
                "the agent at {} refused the request (HTTP 401 or 403): send a bearer token it \
                 accepts",
                self.target
            ),
            Fatal::NotA2aAgent => format!(
                "{} does not answer as an A2A agent{}",
                self.target,
                evidence.map(|e| format!(": {e}")).unwrap_or_default()
            ),
            Fatal::Untrusted => match evidence {
                Some(why) => format!("{why}; nothing else was requested"),
                None => format!("the Agent Card of {} is not trusted", self.target),
            },
            Fatal::NeedsA2a1x => format!(
                "{} offers only A2A 0.3 interfaces, and the run was narrowed to A2A 1.x (an \
                 unnarrowed run probes it over 0.3)",
                self.target
            ),
        })
    }

    /// The human-readable report (`--format text`), ending in a result line.
    pub fn to_text(&self) -> String {
        self.render_text(None)
    }

    /// [`Report::to_text`] with an exit code stated in the result line, as the CLI prints it
    /// (normally [`Outcome::exit_code`] of [`Report::outcome`]).
    pub fn to_text_with_exit(&self, exit_code: u8) -> String {
        self.render_text(Some(exit_code))
    }

    fn render_text(&self, exit_code: Option<u8>) -> String {
        let code = exit_code
            .map(|c| format!(" (exit {c})"))
            .unwrap_or_default();
        let mut out = String::new();
        let _ = writeln!(out, "skillgate conformance {}", self.target);
        let _ = writeln!(out, "  card: {}", self.card_url);
        if let (Some(b), Some(u)) = (&self.binding, &self.interface_url) {
            let version = self
                .a2a_version
                .as_deref()
                .map(|v| format!(" (A2A {v})"))
                .unwrap_or_default();
            let _ = writeln!(out, "  interface: {b} {u}{version}");
        }
        for c in &self.checks {
            let req = if c.required { "required" } else { "optional" };
            let skill = c
                .skill
                .as_deref()
                .map(|s| format!(" [{s}]"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{} {}{} ({req}): {}",
                c.verdict.label(),
                c.id,
                skill,
                c.title
            );
            for e in &c.evidence {
                let _ = writeln!(out, "     - {e}");
            }
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        let s = self.summary();
        let _ = writeln!(
            out,
            "{} passed, {} failed ({} required), {} skipped",
            s.pass, s.fail, s.required_failed, s.skip
        );
        match self.fatal {
            Some(Fatal::Unreachable) => {
                let _ = writeln!(out, "result: agent unreachable{code}");
            }
            Some(Fatal::NotA2aAgent) => {
                let _ = writeln!(out, "result: not an A2A agent{code}");
            }
            Some(Fatal::Unauthorized) => {
                let _ = writeln!(
                    out,
                    "result: authentication failed, conformance unknown{code}"
                );
            }
            Some(Fatal::Untrusted) => {
                let _ = writeln!(out, "result: Agent Card not trusted{code}");
            }
            Some(Fatal::NeedsA2a1x) => {
                let _ = writeln!(
                    out,
                    "result: A2A 0.3 only; the run was narrowed to A2A 1.x{code}"
                );
            }
            None if s.required_failed > 0 => {
                let _ = writeln!(
                    out,
                    "result: NOT conformant: {}{code}",
                    self.failed_ids().join(", ")
                );
            }
            None if s.fail > 0 => {
                let _ = writeln!(
                    out,
                    "result: conformant{code}; optional checks failed: {}",
                    self.failed_ids().join(", ")
                );
            }
            None => {
                let _ = writeln!(out, "result: conformant{code}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(fatal: Option<Fatal>, failed_evidence: &[&str]) -> Report {
        Report {
            target: "http://127.0.0.1:9".into(),
            card_url: "http://127.0.0.1:9/.well-known/agent-card.json".into(),
            binding: None,
            interface_url: None,
            a2a_version: None,
            fatal,
            checks: vec![CheckResult {
                id: "SI-CARD-001",
                skill: None,
                title: "t",
                required: true,
                verdict: Verdict::Fail,
                evidence: failed_evidence.iter().map(|e| (*e).to_owned()).collect(),
            }],
            notes: Vec::new(),
        }
    }

    #[test]
    fn outcomes_carry_their_exit_status() {
        assert_eq!(Outcome::Conformant.exit_code(), 0);
        assert_eq!(Outcome::NotConformant.exit_code(), 1);
        for f in [
            Fatal::Unreachable,
            Fatal::NotA2aAgent,
            Fatal::Unauthorized,
            Fatal::Untrusted,
        ] {
            assert_eq!(Outcome::NoAgent(f).exit_code(), 2, "{f:?}");
        }
        let r = report(None, &["x"]);
        assert_eq!(r.output().exit_code, 1);
        assert_eq!(report(Some(Fatal::Untrusted), &[]).output().exit_code, 2);
    }

    #[test]
    fn fatal_stops_have_stable_codes() {
        let codes = [
            Fatal::Unreachable,
            Fatal::NotA2aAgent,
            Fatal::Unauthorized,
            Fatal::Untrusted,
        ]
        .map(Fatal::code);
        assert_eq!(
            codes,
            [
                "unreachable",
                "not_a2a_agent",
                "unauthorized",
                "card_untrusted"
            ]
        );
    }

    #[test]
    fn the_no_agent_reason_is_the_last_evidence_of_the_fatal_stop() {
        assert_eq!(report(None, &["x"]).no_agent_reason(), None);
        let r = report(
            Some(Fatal::Unreachable),
            &["sent x", "no answer: connection refused"],
        );
        assert_eq!(r.no_agent_reason().as_deref(), Some("connection refused"));
        let r = report(Some(Fatal::Unreachable), &[]);
        assert_eq!(
            r.no_agent_reason().as_deref(),
            Some("no Agent Card from http://127.0.0.1:9")
        );
        let r = report(Some(Fatal::NotA2aAgent), &["HTTP 200 text/html"]);
        assert_eq!(
            r.no_agent_reason().as_deref(),
            Some("http://127.0.0.1:9 does not answer as an A2A agent: HTTP 200 text/html")
        );
        let r = report(Some(Fatal::Untrusted), &["signature invalid"]);
        assert_eq!(
            r.no_agent_reason().as_deref(),
            Some("signature invalid; nothing else was requested")
        );
        let why = report(Some(Fatal::Unauthorized), &[]).no_agent_reason();
        let why = why.unwrap_or_default();
        assert!(why.ends_with("send a bearer token it accepts"), "{why}");
        assert!(!why.contains("--"), "a library reason names no flag: {why}");
    }
}

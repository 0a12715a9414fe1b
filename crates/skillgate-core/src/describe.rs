//! The answer to `describe_skill`, read and judged once for every reader: which artifact of
//! the completed task holds it ([`result_artifact`]), its one Data Part as a typed
//! [`DescribeSkillResponse`] ([`read_result`]), and the three-way digest agreement
//! ([`check_digests`]: the digest the card advertises = the digest describe_skill returned =
//! the digest of the returned `skill_interface` over RFC 8785 canonical JSON).
//!
//! The client runs these as its steps 3 and 4 and refuses the skill at the first error; the
//! conformance checker runs the same functions and reports each error as evidence. What the
//! profile's answer has that a reader can do without (other artifacts beside the result,
//! members beside the two defined ones) is reported, not refused, so each caller decides what
//! that means for it: the client ignores it, the checker judges the server by it.
//!
//! No I/O: the artifacts and parts are A2A types the caller unpacks (this crate knows nothing
//! of A2A); only names and the Data Part's value come in.
//!
//! ```
//! use serde_json::json;
//! use skillgate_core::describe::{check_digests, read_result, result_artifact};
//! let doc = json!({"skill_id": "ping"});
//! let d = skillgate_core::digest(&doc);
//! let data = json!({"interface_digest": d.to_string(), "skill_interface": doc});
//! // (name, Data Part value) stands in for the caller's A2A artifacts.
//! let artifacts = [("describe_skill", data)];
//! let picked = result_artifact(&artifacts, |a| a.0).unwrap();
//! assert_eq!(picked.others, 0);
//! let read = read_result(&picked.artifact.1).unwrap();
//! assert_eq!(check_digests(d, &read.response).unwrap(), d);
//! ```

use std::fmt;

use serde_json::Value;

use crate::digest::{digest, Digest, DigestParseError};
use crate::wire::{names, DescribeSkillResponse, DESCRIBE_SKILL_ARTIFACT};

/// The describe_skill result among a completed task's artifacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultArtifact<'a, T> {
    /// The one artifact named `describe_skill`.
    pub artifact: &'a T,
    /// How many other artifacts the task carries. The profile's answer has none; a reader
    /// does not need them to be absent.
    pub others: usize,
}

/// Why a describe_skill answer cannot be read. The variant is the machine-readable kind;
/// the message names the member or count at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResultError {
    /// Not exactly one artifact is named `describe_skill` (the count is given).
    #[error("completed with {0} artifacts named \"describe_skill\"; exactly one is required")]
    ArtifactCount(usize),
    /// The Data Part's value is not a JSON object.
    #[error("the Data Part is not a JSON object")]
    NotAnObject,
    /// A member the draft defines is absent (`interface_digest` or `skill_interface`).
    #[error("the Data Part has no {0} member")]
    MissingMember(&'static str),
    /// `interface_digest` is present but not a string.
    #[error("interface_digest is not a string")]
    DigestNotAString,
    /// `interface_digest` is a string but not a `sha256:` digest.
    #[error("interface_digest: {0}")]
    MalformedDigest(DigestParseError),
}

/// A readable describe_skill answer: the typed response and what it carries beyond it.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeResult {
    /// The returned digest and the document, kept as received so it is hashed exactly as
    /// sent.
    pub response: DescribeSkillResponse,
    /// Members of the Data Part other than `interface_digest` and `skill_interface`, in
    /// received order. Ignored by readers; a checker may note them.
    pub extra_members: Vec<String>,
}

/// Picks the result among a completed describe_skill task's artifacts (`name` reads an
/// artifact's name): exactly one must be named `describe_skill`; the others are counted, not
/// refused.
pub fn result_artifact<'a, T>(
    artifacts: &'a [T],
    name: impl Fn(&T) -> &str,
) -> Result<ResultArtifact<'a, T>, ResultError> {
    let mut named = artifacts
        .iter()
        .filter(|a| name(a) == DESCRIBE_SKILL_ARTIFACT);
    match (named.next(), named.count()) {
        (Some(artifact), 0) => Ok(ResultArtifact {
            artifact,
            others: artifacts.len() - 1,
        }),
        (first, more) => Err(ResultError::ArtifactCount(
            usize::from(first.is_some()) + more,
        )),
    }
}

/// Reads the value of the result artifact's Data Part: an object with a string
/// `interface_digest` that parses as a `sha256:` digest and a `skill_interface` of any JSON
/// type (the document checks judge it next).
pub fn read_result(data: &Value) -> Result<DescribeResult, ResultError> {
    let obj = data.as_object().ok_or(ResultError::NotAnObject)?;
    let returned = obj
        .get(names::INTERFACE_DIGEST)
        .ok_or(ResultError::MissingMember(names::INTERFACE_DIGEST))?;
    let skill_interface = obj
        .get(names::SKILL_INTERFACE)
        .ok_or(ResultError::MissingMember(names::SKILL_INTERFACE))?;
    let returned = returned.as_str().ok_or(ResultError::DigestNotAString)?;
    let interface_digest = Digest::parse(returned).map_err(ResultError::MalformedDigest)?;
    let extra_members = obj
        .keys()
        .filter(|k| k.as_str() != names::INTERFACE_DIGEST && k.as_str() != names::SKILL_INTERFACE)
        .cloned()
        .collect();
    Ok(DescribeResult {
        response: DescribeSkillResponse {
            interface_digest,
            skill_interface: skill_interface.clone(),
        },
        extra_members,
    })
}

/// Which of the three digests disagrees with the other two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MismatchKind {
    /// The card's digest is the odd one: the served document hashes to the returned digest,
    /// but the card advertises another (a stale or wrong card).
    Advertised,
    /// The returned digest is the odd one: the served document hashes to what the card
    /// advertises, but describe_skill names another digest next to it.
    Returned,
    /// The document is the odd one: card and describe_skill agree, the document served
    /// hashes to something else (tampered or re-encoded in transit).
    Computed,
    /// All three differ.
    AllDiffer,
}

/// The three digests of a describe_skill answer that do not all agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub struct DigestMismatch {
    /// What the Agent Card advertises for the skill.
    pub advertised: Digest,
    /// What describe_skill returned as `interface_digest`.
    pub returned: Digest,
    /// The digest of the returned `skill_interface` (RFC 8785, SHA-256).
    pub computed: Digest,
}

impl DigestMismatch {
    /// Which digest is the odd one out.
    pub fn kind(&self) -> MismatchKind {
        let (a, r, c) = (self.advertised, self.returned, self.computed);
        if r == c {
            MismatchKind::Advertised
        } else if a == c {
            MismatchKind::Returned
        } else if a == r {
            MismatchKind::Computed
        } else {
            MismatchKind::AllDiffer
        }
    }
}

impl fmt::Display for DigestMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (a, r, c) = (self.advertised, self.returned, self.computed);
        match self.kind() {
            MismatchKind::Advertised => write!(
                f,
                "describe_skill returned interface_digest {r} but the card advertises {a}: \
                 the served document does not hash to the advertised digest"
            ),
            MismatchKind::Returned => write!(
                f,
                "describe_skill returned interface_digest {r} but the card advertises {a}, \
                 which is what the served document hashes to"
            ),
            MismatchKind::Computed => write!(
                f,
                "the returned document hashes to {c}, not to the advertised and returned {r}"
            ),
            MismatchKind::AllDiffer => write!(
                f,
                "describe_skill returned interface_digest {r} but the card advertises {a}, \
                 and the served document hashes to {c}"
            ),
        }
    }
}

/// The three-way check: `advertised` = `response.interface_digest` =
/// digest(`response.skill_interface`). Returns the one digest on agreement.
pub fn check_digests(
    advertised: Digest,
    response: &DescribeSkillResponse,
) -> Result<Digest, DigestMismatch> {
    let computed = digest(&response.skill_interface);
    let returned = response.interface_digest;
    if advertised == returned && returned == computed {
        Ok(computed)
    } else {
        Err(DigestMismatch {
            advertised,
            returned,
            computed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({"skill_id": "ping", "constraints": {"max_input_bytes": 10}})
    }

    fn response(returned: Digest, skill_interface: Value) -> DescribeSkillResponse {
        DescribeSkillResponse {
            interface_digest: returned,
            skill_interface,
        }
    }

    #[test]
    fn the_result_is_the_one_artifact_named_describe_skill() {
        let pick = |names: &[&'static str]| {
            result_artifact(names, |n| *n).map(|r| (*r.artifact, r.others))
        };
        assert_eq!(pick(&["describe_skill"]), Ok(("describe_skill", 0)));
        let arts = ["log", "describe_skill", "x"];
        let picked = result_artifact(&arts, |n| *n).unwrap();
        assert!(
            std::ptr::eq(picked.artifact, &arts[1]),
            "the named one, by reference"
        );
        assert_eq!(picked.others, 2);
        assert_eq!(pick(&[]), Err(ResultError::ArtifactCount(0)));
        assert_eq!(
            pick(&["something_else"]),
            Err(ResultError::ArtifactCount(0))
        );
        assert_eq!(
            pick(&["describe_skill", "x", "describe_skill"]),
            Err(ResultError::ArtifactCount(2))
        );
    }

    #[test]
    fn a_well_formed_result_reads_with_its_extra_members() {
        let d = digest(&doc());
        let read = read_result(&json!({
            "interface_digest": d.to_string(),
            "skill_interface": doc(),
            "note": 1,
        }))
        .unwrap();
        assert_eq!(read.response.interface_digest, d);
        assert_eq!(read.response.skill_interface, doc());
        assert_eq!(read.extra_members, vec!["note".to_owned()]);
        // skill_interface of another type is read; the document checks refuse it later.
        let read = read_result(&json!({"interface_digest": d.to_string(), "skill_interface": 3}));
        assert!(read.unwrap().extra_members.is_empty());
    }

    #[test]
    fn a_malformed_result_is_refused_with_its_kind() {
        let d = digest(&doc()).to_string();
        let cases = [
            (json!([d, doc()]), ResultError::NotAnObject),
            (
                json!({"skill_interface": doc()}),
                ResultError::MissingMember("interface_digest"),
            ),
            (
                json!({"interface_digest": d}),
                ResultError::MissingMember("skill_interface"),
            ),
            (
                json!({"interface_digest": 7, "skill_interface": doc()}),
                ResultError::DigestNotAString,
            ),
        ];
        for (data, want) in cases {
            assert_eq!(read_result(&data), Err(want), "{data}");
        }
        let e =
            read_result(&json!({"interface_digest": "sha256:NOT-HEX", "skill_interface": doc()}))
                .unwrap_err();
        assert!(matches!(e, ResultError::MalformedDigest(_)), "{e:?}");
        assert!(
            e.to_string()
                .starts_with("interface_digest: invalid digest"),
            "{e}"
        );
    }

    #[test]
    fn matching_digests_pass() {
        let d = digest(&doc());
        assert_eq!(check_digests(d, &response(d, doc())), Ok(d));
        // The digest is of the canonical form: member order and 10.0 for 10 do not change it.
        let reordered = json!({"constraints": {"max_input_bytes": 10.0}, "skill_id": "ping"});
        assert_eq!(check_digests(d, &response(d, reordered)), Ok(d));
    }

    #[test]
    fn each_mismatch_is_reported_distinctly() {
        let d = digest(&doc());
        let other = digest(&json!("other"));
        let third = digest(&json!("third"));
        let tampered = json!({"skill_id": "pong"});
        let t = digest(&tampered);

        // A stale card: the document hashes to what describe_skill returned.
        let e = check_digests(other, &response(d, doc())).unwrap_err();
        assert_eq!(e.kind(), MismatchKind::Advertised);
        assert!(e.to_string().contains("card advertises"), "{e}");
        assert!(
            e.to_string()
                .contains("does not hash to the advertised digest"),
            "{e}"
        );

        // A wrong returned digest next to the advertised document.
        let e = check_digests(d, &response(other, doc())).unwrap_err();
        assert_eq!(e.kind(), MismatchKind::Returned);
        assert!(
            e.to_string()
                .contains("which is what the served document hashes to"),
            "{e}"
        );

        // A tampered document under the advertised and returned digest.
        let e = check_digests(d, &response(d, tampered.clone())).unwrap_err();
        assert_eq!(e.kind(), MismatchKind::Computed);
        assert_eq!(
            (e.advertised, e.returned, e.computed),
            (d, d, t),
            "the three digests are kept"
        );
        assert!(e.to_string().contains(&format!("hashes to {t}")), "{e}");

        let e = check_digests(third, &response(other, tampered)).unwrap_err();
        assert_eq!(e.kind(), MismatchKind::AllDiffer);
        for shown in [third, other, t] {
            assert!(e.to_string().contains(&shown.to_string()), "{e}");
        }
    }
}

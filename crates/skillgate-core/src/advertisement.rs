//! The rules of the schema-interface extension advertisement (`capabilities.extensions[].params`
//! of an Agent Card), judged per entry.
//!
//! A card can advertise many skills; one malformed entry must not make the others unusable, so
//! every rule here reports against one entry and leaves the verdict on the whole card to the
//! caller (the linter reports every finding, the conformance checker fails a check, the client
//! looks only at the entry of the skill it selected).

use std::fmt;

use serde_json::{Map, Value};

use crate::digest::Digest;
use crate::version::Version;
use crate::wire::{names, AdvertisedSkill, ExtensionParams, INTERFACE_VERSION};

/// The JSON type of a value with its article (`"an object"`), as findings print it.
pub fn described_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The three members an advertised entry must carry, in the order findings are reported.
pub const ENTRY_MEMBERS: [&str; 3] = [
    names::SKILL_ID,
    names::SKILL_VERSION,
    names::INTERFACE_DIGEST,
];

/// What is wrong with one `params.skills[]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryFinding {
    /// The entry is not a JSON object (`found` is its [`described_type`]).
    NotAnObject {
        /// The type found instead.
        found: &'static str,
    },
    /// One of [`ENTRY_MEMBERS`] is absent.
    MissingMember {
        /// Its wire name.
        member: &'static str,
    },
    /// One of [`ENTRY_MEMBERS`] is present but not a string.
    NotAString {
        /// Its wire name.
        member: &'static str,
        /// The type found instead.
        found: &'static str,
    },
    /// A member the profile does not define; receivers ignore it, so it does not make the
    /// entry unusable.
    UndefinedMember {
        /// Its name as sent.
        member: String,
    },
    /// `skill_version` does not match the `Major.Minor` pattern.
    BadVersion {
        /// The value as sent.
        value: String,
    },
    /// `interface_digest` is not `sha256:` and 64 lowercase hex digits.
    BadDigest {
        /// The value as sent.
        value: String,
    },
}

impl EntryFinding {
    /// Whether the finding makes the entry unusable for selecting a skill.
    pub fn is_fatal(&self) -> bool {
        !matches!(self, EntryFinding::UndefinedMember { .. })
    }

    /// The entry member the finding points at, if any (for JSON Pointers).
    pub fn member(&self) -> Option<&str> {
        match self {
            EntryFinding::NotAnObject { .. } => None,
            EntryFinding::MissingMember { member } | EntryFinding::NotAString { member, .. } => {
                Some(member)
            }
            EntryFinding::UndefinedMember { member } => Some(member),
            EntryFinding::BadVersion { .. } => Some(names::SKILL_VERSION),
            EntryFinding::BadDigest { .. } => Some(names::INTERFACE_DIGEST),
        }
    }
}

impl fmt::Display for EntryFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EntryFinding::NotAnObject { found } => {
                write!(f, "an advertised skill must be an object, found {found}")
            }
            EntryFinding::MissingMember { member } => write!(f, "the entry has no {member}"),
            EntryFinding::NotAString { member, found } => {
                write!(f, "{member} must be a string, found {found}")
            }
            EntryFinding::UndefinedMember { member } => {
                write!(f, "entry member {member:?} is not defined by the profile")
            }
            EntryFinding::BadVersion { value } => write!(
                f,
                "skill_version {value:?} does not match {}",
                crate::wire::VERSION_PATTERN
            ),
            EntryFinding::BadDigest { value } => write!(
                f,
                "interface_digest {value:?} does not match {}",
                crate::wire::DIGEST_PATTERN
            ),
        }
    }
}

/// The verdict on one `params.skills[]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryCheck<'a> {
    /// Position in `params.skills`.
    pub index: usize,
    /// `skill_id` when it is a string, even if other members are wrong, so a caller can tell
    /// whose entry is broken.
    pub skill_id: Option<&'a str>,
    /// Every finding, in report order.
    pub findings: Vec<EntryFinding>,
    /// The typed entry when no finding is fatal.
    pub advertised: Option<AdvertisedSkill>,
}

/// Checks one `params.skills[]` entry on its own (no cross-entry or card rules).
pub fn check_entry(index: usize, entry: &Value) -> EntryCheck<'_> {
    let mut out = EntryCheck {
        index,
        skill_id: None,
        findings: Vec::new(),
        advertised: None,
    };
    let Some(o) = entry.as_object() else {
        out.findings.push(EntryFinding::NotAnObject {
            found: described_type(entry),
        });
        return out;
    };
    let mut strs: [Option<&str>; 3] = [None; 3];
    for (slot, member) in strs.iter_mut().zip(ENTRY_MEMBERS) {
        match o.get(member) {
            Some(Value::String(s)) => *slot = Some(s),
            Some(other) => out.findings.push(EntryFinding::NotAString {
                member,
                found: described_type(other),
            }),
            None => out.findings.push(EntryFinding::MissingMember { member }),
        }
    }
    for k in o.keys() {
        if !ENTRY_MEMBERS.contains(&k.as_str()) {
            out.findings
                .push(EntryFinding::UndefinedMember { member: k.clone() });
        }
    }
    let [id, version, digest] = strs;
    out.skill_id = id;
    if let Some(v) = version.filter(|v| !Version::is_valid(v)) {
        out.findings.push(EntryFinding::BadVersion {
            value: v.to_owned(),
        });
    }
    let parsed = digest.map(|d| (d, Digest::parse(d)));
    if let Some((d, Err(_))) = parsed {
        out.findings.push(EntryFinding::BadDigest {
            value: d.to_owned(),
        });
    }
    if let (Some(id), Some(v), Some((_, Ok(d)))) = (id, version, parsed) {
        if !out.findings.iter().any(EntryFinding::is_fatal) {
            out.advertised = Some(AdvertisedSkill {
                skill_id: id.to_owned(),
                skill_version: v.to_owned(),
                interface_digest: d,
            });
        }
    }
    out
}

/// What is wrong with `params` as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamsFinding {
    /// `interface_version` is absent.
    NoInterfaceVersion,
    /// `interface_version` is not the string `"1.0"` (`found` is the value as JSON text).
    WrongInterfaceVersion {
        /// The value, serialized.
        found: String,
    },
    /// A `params` member the profile does not define (receivers ignore it).
    UndefinedMember {
        /// Its name as sent.
        member: String,
    },
    /// `skills` is absent.
    NoSkills,
    /// `skills` is not an array.
    SkillsNotAnArray {
        /// The type found instead.
        found: &'static str,
    },
}

impl fmt::Display for ParamsFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamsFinding::NoInterfaceVersion => f.write_str("params has no interface_version"),
            ParamsFinding::WrongInterfaceVersion { found } => write!(
                f,
                "interface_version is {found}, expected \"{INTERFACE_VERSION}\""
            ),
            ParamsFinding::UndefinedMember { member } => {
                write!(f, "params member {member:?} is not defined by the profile")
            }
            ParamsFinding::NoSkills => f.write_str("params has no skills"),
            ParamsFinding::SkillsNotAnArray { found } => {
                write!(f, "skills must be an array, found {found}")
            }
        }
    }
}

/// The verdict on a whole `params` object: its own findings, then one check per entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamsCheck<'a> {
    /// Findings on `params` itself, in report order.
    pub findings: Vec<ParamsFinding>,
    /// One check per `skills[]` entry; empty when `skills` is not an array.
    pub entries: Vec<EntryCheck<'a>>,
}

impl ParamsCheck<'_> {
    /// The check of the one entry advertising `skill_id`, or how many entries do (0 or more
    /// than one) when that is not exactly one. Other skills' entries are not looked at.
    pub fn entry_of(&self, skill_id: &str) -> Result<&EntryCheck<'_>, usize> {
        let mut found = self.entries.iter().filter(|e| e.skill_id == Some(skill_id));
        match (found.next(), found.count()) {
            (Some(one), 0) => Ok(one),
            (None, _) => Err(0),
            (Some(_), more) => Err(more + 1),
        }
    }
}

impl ExtensionParams {
    /// Checks `params` member by member and entry by entry instead of deserializing it whole,
    /// so that one bad entry is reported as that entry's finding and nothing else.
    pub fn check(params: &Map<String, Value>) -> ParamsCheck<'_> {
        let mut findings = Vec::new();
        match params.get(names::INTERFACE_VERSION) {
            Some(Value::String(v)) if v == INTERFACE_VERSION => {}
            Some(v) => findings.push(ParamsFinding::WrongInterfaceVersion {
                found: v.to_string(),
            }),
            None => findings.push(ParamsFinding::NoInterfaceVersion),
        }
        for k in params.keys() {
            if k != names::INTERFACE_VERSION && k != names::SKILLS {
                findings.push(ParamsFinding::UndefinedMember { member: k.clone() });
            }
        }
        let entries = match params.get(names::SKILLS) {
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, e)| check_entry(i, e))
                .collect(),
            Some(other) => {
                findings.push(ParamsFinding::SkillsNotAnArray {
                    found: described_type(other),
                });
                Vec::new()
            }
            None => {
                findings.push(ParamsFinding::NoSkills);
                Vec::new()
            }
        };
        ParamsCheck { findings, entries }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const D: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

    #[test]
    fn each_entry_is_judged_alone() {
        let p = json!({"interface_version": "1.0", "skills": [
            {"skill_id": "a", "skill_version": "1.0", "interface_digest": D, "x": 1},
            {"skill_id": "b", "skill_version": "01", "interface_digest": "sha256:no"},
            {"skill_version": 3},
            7
        ]});
        let c = ExtensionParams::check(p.as_object().unwrap());
        assert!(c.findings.is_empty());
        let a = c.entry_of("a").unwrap();
        assert!(a.advertised.is_some());
        assert_eq!(
            a.findings,
            vec![EntryFinding::UndefinedMember { member: "x".into() }]
        );
        let b = c.entry_of("b").unwrap();
        assert!(b.advertised.is_none());
        assert_eq!(b.findings.len(), 2);
        assert_eq!(
            c.entries[2].findings,
            vec![
                EntryFinding::MissingMember { member: "skill_id" },
                EntryFinding::NotAString {
                    member: "skill_version",
                    found: "a number"
                },
                EntryFinding::MissingMember {
                    member: "interface_digest"
                },
            ]
        );
        assert_eq!(
            c.entries[3].findings[0].to_string(),
            "an advertised skill must be an object, found a number"
        );
        assert_eq!(c.entry_of("zz"), Err(0));
    }

    #[test]
    fn params_findings() {
        let p = json!({"interface_version": 1, "skills": {}, "extra": true});
        let c = ExtensionParams::check(p.as_object().unwrap());
        assert_eq!(
            c.findings,
            vec![
                ParamsFinding::WrongInterfaceVersion { found: "1".into() },
                ParamsFinding::UndefinedMember {
                    member: "extra".into()
                },
                ParamsFinding::SkillsNotAnArray { found: "an object" },
            ]
        );
        let p = json!({"skills": [{"skill_id": "a"}, {"skill_id": "a"}]});
        let c = ExtensionParams::check(p.as_object().unwrap());
        assert_eq!(c.findings, vec![ParamsFinding::NoInterfaceVersion]);
        assert_eq!(c.entry_of("a"), Err(2));
    }
}

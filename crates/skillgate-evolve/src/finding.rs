//! What a comparison reports: the side of the interface a change is on, what it does to the
//! set of accepted values, how that is classified for that side, and the bump it needs.

use std::fmt;

use serde::Serialize;

/// The part of a Skill Interface Document a finding is about. The side decides the direction
/// of compatibility: callers send input, consumers read output and records.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// `input_schema`: what callers send. Compatible when NEW accepts every value OLD accepts.
    Input,
    /// `output_schema`: what consumers read. Compatible when OLD accepts every value NEW may
    /// produce.
    Output,
    /// One supporting record kind (its name): read by consumers, judged like the output.
    Record(String),
    /// `interaction`: response modes and cancelation.
    Interaction,
    /// `authority`: the advertised default mode and approval.
    Authority,
    /// `constraints`: size and duration limits.
    Constraints,
    /// The document as a whole: skill id and version.
    Document,
}

impl Side {
    /// Whether a value lost by NEW breaks this side (input) rather than a value gained
    /// (output, records). `None` for sides that carry no schema.
    pub fn callers_send(&self) -> Option<bool> {
        match self {
            Side::Input => Some(true),
            Side::Output | Side::Record(_) => Some(false),
            _ => None,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Side::Input => f.write_str("input"),
            Side::Output => f.write_str("output"),
            Side::Record(kind) => write!(f, "record {kind}"),
            Side::Interaction => f.write_str("interaction"),
            Side::Authority => f.write_str("authority"),
            Side::Constraints => f.write_str("constraints"),
            Side::Document => f.write_str("document"),
        }
    }
}

/// What a schema change does to the set of values the schema accepts, before any side is
/// applied. The walk reports an effect; [`Effect::class_for`] turns it into a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// No value changes side (annotations, reordering).
    Neutral,
    /// NEW may reject values OLD accepts, and accepts nothing new.
    Narrows,
    /// NEW may accept values OLD rejects, and rejects nothing OLD accepts.
    Widens,
    /// Both: some values are lost and others gained.
    Both,
    /// The walk cannot tell (pattern against pattern, `oneOf`, an unknown keyword, ...).
    Unknown,
}

impl Effect {
    /// The effect seen through `not`: what NEW loses, its negation gains.
    pub fn flipped(self) -> Self {
        match self {
            Effect::Narrows => Effect::Widens,
            Effect::Widens => Effect::Narrows,
            other => other,
        }
    }

    /// Two effects of changes that apply together, as one.
    pub fn join(self, other: Self) -> Self {
        use Effect::*;
        match (self, other) {
            (Unknown, _) | (_, Unknown) => Unknown,
            (Neutral, e) | (e, Neutral) => e,
            (a, b) if a == b => a,
            _ => Both,
        }
    }

    /// How this effect is classified on a side whose callers send the values
    /// (`callers_send`) or read them.
    pub fn class_for(self, callers_send: bool) -> Class {
        match (self, callers_send) {
            (Effect::Neutral, _) => Class::Cosmetic,
            (Effect::Unknown, _) => Class::PossiblyBreaking,
            (Effect::Both, _) => Class::Breaking,
            (Effect::Narrows, true) | (Effect::Widens, false) => Class::Breaking,
            (Effect::Widens, true) | (Effect::Narrows, false) => Class::Compatible,
        }
    }
}

/// How a change affects the skill's existing callers and consumers. Ordered from harmless to
/// harmful, so the worst class of a report is its maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Changes no accepted value and no behaviour (a description, a title).
    Cosmetic,
    /// A compatible addition: existing callers and consumers keep working.
    Compatible,
    /// Nothing could decide; treated as breaking for the bump.
    PossiblyBreaking,
    /// Some existing caller or consumer can fail.
    Breaking,
}

impl Class {
    /// The stable name used in text, JSON and SARIF.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Cosmetic => "cosmetic",
            Class::Compatible => "compatible",
            Class::PossiblyBreaking => "possibly_breaking",
            Class::Breaking => "breaking",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `Major.Minor` bump a change needs under the draft's versioning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bump {
    /// The documents are the same bytes (equal digests).
    None,
    /// Any change to the document that breaks nobody: the digest moved, so the version must.
    Minor,
    /// A breaking or possibly breaking change.
    Major,
}

impl Bump {
    /// The stable name used in text, JSON and SARIF.
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

impl fmt::Display for Bump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One change between OLD and NEW.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule that names the change (`EVO-SCHEMA-001`, ...; see [`crate::rules::RULES`]).
    pub rule: &'static str,
    /// The part of the interface the change is on.
    pub side: Side,
    /// Classification for that side.
    pub class: Class,
    /// JSON Pointer into OLD, `None` when the member exists only in NEW.
    pub old_pointer: Option<String>,
    /// JSON Pointer into NEW, `None` when the member exists only in OLD.
    pub new_pointer: Option<String>,
    /// One line saying what changed.
    pub reason: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self
            .new_pointer
            .as_deref()
            .or(self.old_pointer.as_deref())
            .unwrap_or("");
        write!(
            f,
            "{} {} [{}] {}: {}",
            self.class, self.rule, self.side, at, self.reason
        )
    }
}

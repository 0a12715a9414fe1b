//! The two A2A wire versions skillgate speaks, and how a version string names one of them.
//!
//! This module only parses; which versions a server serves, and what it answers to a version it
//! does not serve, is decided by the caller (`docs/a2a-0.3.md` 3.3).

use std::fmt;

/// An A2A protocol version as far as the wire is concerned: `1.x` requests all get 1.0
/// semantics and every `0.3.x` (or no version at all) gets 0.3 semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WireVersion {
    /// A2A 0.3 (`kind` discriminators, `category/action` method names, no version header).
    V0_3,
    /// A2A 1.0 (ProtoJSON shapes, PascalCase methods, `A2A-Version` header).
    V1_0,
}

impl WireVersion {
    /// Reads an `A2A-Version` value (or an interface's `protocolVersion`): `Major.Minor` with an
    /// optional numeric patch that is ignored, both compared as numbers without leading zeros.
    /// Empty or blank means 0.3 (the spec: a request without the header is 0.3). `0.3[.x]` is
    /// 0.3, `1.<n>[.x]` is 1.0; anything else (`0.2`, `2.0`, `1`, `01.0`, `1.0.0.0`, a list
    /// such as `0.3, 1.0`) is `None`, which the caller answers with VersionNotSupported.
    pub fn parse(s: &str) -> Option<WireVersion> {
        let s = s.trim();
        if s.is_empty() {
            return Some(Self::V0_3);
        }
        let parts: Vec<&str> = s.split('.').collect();
        if !(2..=3).contains(&parts.len()) || !parts.iter().all(|p| is_number(p)) {
            return None;
        }
        match (parts[0], parts[1]) {
            ("0", "3") => Some(Self::V0_3),
            ("1", _) => Some(Self::V1_0),
            _ => None,
        }
    }

    /// The `Major.Minor` text: `"0.3"` or `"1.0"`, as written in an interface's
    /// `protocolVersion` and in the `A2A-Version` header skillgate sends.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V0_3 => "0.3",
            Self::V1_0 => "1.0",
        }
    }
}

/// A version component: ASCII digits, no sign, no leading zero (so `01.0` is not `1.0`; the
/// spec's versions are plain numbers and a padded one is more likely a typo than a version).
fn is_number(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= 9
        && p.bytes().all(|b| b.is_ascii_digit())
        && (p == "0" || !p.starts_with('0'))
}

impl fmt::Display for WireVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

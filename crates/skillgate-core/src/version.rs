//! The draft's `Major.Minor` version strings (skill versions, schema versions).
//!
//! The one parser of [`crate::wire::VERSION_PATTERN`]; the document validator, the linter and
//! the conformance checker all ask it, so they cannot disagree on what a version is.

use std::fmt;

/// A well-formed `Major.Minor` version, borrowed from the string it was parsed from.
///
/// The parts stay text: the pattern puts no bound on their length, and a version that matches
/// it must not be refused because it overflows an integer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Version<'a> {
    /// Decimal digits, no leading zero unless it is `0` itself.
    pub major: &'a str,
    /// Decimal digits, no leading zero unless it is `0` itself.
    pub minor: &'a str,
}

/// The string does not match `^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a Major.Minor version")]
pub struct VersionError(pub String);

impl<'a> Version<'a> {
    /// Parses `s` against the draft's version pattern, without a regex engine.
    pub fn parse(s: &'a str) -> Result<Self, VersionError> {
        fn part(p: &str) -> bool {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p == "0" || !p.starts_with('0'))
        }
        match s.split_once('.') {
            Some((major, minor)) if part(major) && part(minor) => Ok(Self { major, minor }),
            _ => Err(VersionError(s.to_owned())),
        }
    }

    /// Whether `s` matches the pattern (shorthand for `parse(s).is_ok()`).
    pub fn is_valid(s: &str) -> bool {
        Version::parse(s).is_ok()
    }

    /// The major part as a number, `None` when it does not fit in a `u64`.
    pub fn major_number(&self) -> Option<u64> {
        self.major.parse().ok()
    }
}

impl fmt::Display for Version<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_and_nothing_else() {
        for ok in ["0.0", "1.0", "0.12", "10.200", "99999999999999999999999.1"] {
            assert!(Version::is_valid(ok), "{ok}");
        }
        for bad in [
            "", "1", "1.", ".1", "01.0", "1.01", "1.0.0", "a.b", "1.0 ", " 1.0", "+1.0", "1,0",
            "١.٠",
        ] {
            assert!(!Version::is_valid(bad), "{bad}");
        }
        let v = Version::parse("12.3").unwrap();
        assert_eq!((v.major, v.minor, v.major_number()), ("12", "3", Some(12)));
        assert_eq!(v.to_string(), "12.3");
    }
}

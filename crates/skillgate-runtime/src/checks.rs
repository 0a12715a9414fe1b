//! What every binding checks before a request reaches the [`crate::A2aService`], written once
//! so the HTTP layers (JSON-RPC, HTTP+JSON) and the gRPC adapter (skillgate-grpc) cannot
//! disagree: the requested protocol version, the extensions to activate, and the bearer token.

use skillgate_a2a as a2a;
use skillgate_a2a::version::WireVersion;
use skillgate_core::wire::EXTENSION_URI;

/// The A2A versions a server serves (`serve --a2a-versions`): 1.0, 0.3 or both (the default).
/// Never empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionSet {
    v0_3: bool,
    v1_0: bool,
}

impl Default for VersionSet {
    fn default() -> Self {
        Self::ALL
    }
}

/// Why a version list (`--a2a-versions`) names no served version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionListError {
    /// An entry that is not an A2A version skillgate speaks.
    #[error("{0:?} is not an A2A version skillgate serves (use 1.0 and/or 0.3)")]
    Unknown(String),
    /// Nothing listed.
    #[error("the list of A2A versions is empty (use 1.0, 0.3 or 1.0,0.3)")]
    Empty,
}

impl VersionSet {
    /// Both versions: 1.0 clients and the 0.3 clients most deployed agents still are.
    pub const ALL: VersionSet = VersionSet {
        v0_3: true,
        v1_0: true,
    };

    /// Just `v`.
    pub fn only(v: WireVersion) -> Self {
        Self {
            v0_3: v == WireVersion::V0_3,
            v1_0: v == WireVersion::V1_0,
        }
    }

    /// Reads a comma-separated list such as `1.0,0.3`; each entry is read as
    /// [`WireVersion::parse`] reads a header, except that an empty entry is refused.
    pub fn parse_list(list: &str) -> Result<Self, VersionListError> {
        let mut set = Self {
            v0_3: false,
            v1_0: false,
        };
        for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            match WireVersion::parse(entry) {
                Some(WireVersion::V0_3) => set.v0_3 = true,
                Some(WireVersion::V1_0) => set.v1_0 = true,
                None => return Err(VersionListError::Unknown(entry.to_owned())),
            }
        }
        if set.v0_3 || set.v1_0 {
            Ok(set)
        } else {
            Err(VersionListError::Empty)
        }
    }

    /// Whether `v` is served.
    pub fn contains(self, v: WireVersion) -> bool {
        match v {
            WireVersion::V0_3 => self.v0_3,
            WireVersion::V1_0 => self.v1_0,
        }
    }
}

impl std::fmt::Display for VersionSet {
    /// `1.0, 0.3`, as refusals name what is served.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let served: Vec<&str> = [WireVersion::V1_0, WireVersion::V0_3]
            .into_iter()
            .filter(|v| self.contains(*v))
            .map(WireVersion::as_str)
            .collect();
        f.write_str(&served.join(", "))
    }
}

/// A request refused with `VersionNotSupported`, and the dialect the refusal is written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionRefusal {
    /// Say it in this version's shapes: the endpoint's own when it names one, else the
    /// header's, else 1.0.
    pub answer_in: WireVersion,
    /// The message, naming what was asked and what to send instead.
    pub message: String,
}

/// Decides which A2A version a request speaks, once for every binding (`docs/a2a-0.3.md`
/// 3.3). `header` is the `A2A-Version` value (or its query parameter; empty when absent, which
/// is 0.3); `family` is the version the endpoint itself belongs to (a 0.3 or a 1.0 JSON-RPC
/// method name, path or gRPC service), `None` when it names none (an unknown method: the
/// caller then answers MethodNotFound in the returned version's dialect).
pub fn negotiate(
    header: &str,
    family: Option<WireVersion>,
    served: VersionSet,
) -> Result<WireVersion, VersionRefusal> {
    let shown = if header.trim().is_empty() {
        a2a::IMPLICIT_PROTOCOL_VERSION
    } else {
        header.trim()
    };
    let refuse = |answer_in: WireVersion, message: String| VersionRefusal { answer_in, message };
    let Some(asked) = WireVersion::parse(header) else {
        return Err(refuse(
            family.unwrap_or(WireVersion::V1_0),
            format!("A2A version '{shown}' is not supported; this agent serves {served} (send the A2A-Version header)"),
        ));
    };
    if !served.contains(asked) {
        return Err(refuse(
            family.unwrap_or(asked),
            format!("A2A version '{shown}' is not served here; this agent serves {served} (send the A2A-Version header)"),
        ));
    }
    match family {
        Some(f) if f != asked => Err(refuse(
            f,
            match f {
                WireVersion::V0_3 => format!(
                    "this is an A2A 0.3 method but the request says A2A-Version '{shown}': send no A2A-Version (or 0.3) with 0.3 methods"
                ),
                WireVersion::V1_0 => format!(
                    "this is an A2A 1.0 method but the request says A2A version '{shown}': send `A2A-Version: 1.0` with 1.0 methods"
                ),
            },
        )),
        _ => Ok(asked),
    }
}

/// The version whose shapes answer a request refused before its method is read (no token, a
/// foreign origin, the connection limit, a body that cannot be read): the one the header names
/// (no header is 0.3, as in [`negotiate`]); a header naming no version answers in 1.0. What
/// [`negotiate`] decides for an endpoint that names no version, whatever is served, so a
/// client is refused in the same shapes before and after its method is known.
pub fn version_before_method(header: &str) -> WireVersion {
    match negotiate(header, None, VersionSet::ALL) {
        Ok(v) => v,
        Err(r) => r.answer_in,
    }
}

/// The extensions to activate among those a request lists (`A2A-Extensions`, already split
/// on commas): the ones this server supports, once each, in the order asked. The response
/// echoes them.
pub fn activate_extensions<'a>(requested: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut active: Vec<String> = Vec::new();
    for r in requested {
        let r = r.trim();
        if r == EXTENSION_URI && !active.iter().any(|a| a == r) {
            active.push(r.to_owned());
        }
    }
    active
}

#[cfg(test)]
mod tests {
    use super::{negotiate, version_before_method, VersionSet};
    use skillgate_a2a::version::WireVersion::{V0_3, V1_0};

    #[test]
    fn a_request_speaks_the_version_its_header_names_when_the_endpoint_agrees() {
        assert_eq!(negotiate("1.0", Some(V1_0), VersionSet::ALL), Ok(V1_0));
        assert_eq!(negotiate("1.0.3", Some(V1_0), VersionSet::ALL), Ok(V1_0));
        assert_eq!(negotiate("1.1", None, VersionSet::ALL), Ok(V1_0));
        assert_eq!(negotiate("", Some(V0_3), VersionSet::ALL), Ok(V0_3));
        assert_eq!(negotiate("0.3", Some(V0_3), VersionSet::ALL), Ok(V0_3));
        assert_eq!(negotiate(" ", None, VersionSet::ALL), Ok(V0_3));
    }

    #[test]
    fn unknown_versions_are_refused_in_the_endpoints_dialect() {
        for bad in [
            "99.0", "0.2", "1", "1.0.", "1.0.x", "1.0.0.0", "2.0", "01.0", "0.3, 1.0",
        ] {
            let r = negotiate(bad, Some(V0_3), VersionSet::ALL).unwrap_err();
            assert_eq!(r.answer_in, V0_3, "{bad}");
            assert!(r.message.contains(bad.trim()), "{bad}: {}", r.message);
            let r = negotiate(bad, None, VersionSet::ALL).unwrap_err();
            assert_eq!(r.answer_in, V1_0, "{bad}");
        }
    }

    #[test]
    fn a_method_of_the_other_version_is_refused_and_told_what_to_send() {
        let r = negotiate("", Some(V1_0), VersionSet::ALL).unwrap_err();
        assert_eq!(r.answer_in, V1_0);
        assert!(r.message.contains("A2A-Version: 1.0"), "{}", r.message);
        assert!(r.message.contains("'0.3'"), "{}", r.message);
        let r = negotiate("1.0", Some(V0_3), VersionSet::ALL).unwrap_err();
        assert_eq!(r.answer_in, V0_3);
        assert!(r.message.contains("send no A2A-Version"), "{}", r.message);
    }

    #[test]
    fn a_version_not_served_is_refused_naming_what_is() {
        let only_1 = VersionSet::only(V1_0);
        let r = negotiate("", Some(V0_3), only_1).unwrap_err();
        assert!(r.message.contains("serves 1.0"), "{}", r.message);
        assert_eq!(r.answer_in, V0_3);
        assert_eq!(negotiate("1.0", Some(V1_0), only_1), Ok(V1_0));
        let r = negotiate("1.0", Some(V1_0), VersionSet::only(V0_3)).unwrap_err();
        assert!(r.message.contains("serves 0.3"), "{}", r.message);
    }

    #[test]
    fn before_its_method_is_read_a_request_is_answered_in_its_headers_version() {
        assert_eq!(version_before_method(""), V0_3);
        assert_eq!(version_before_method("0.3"), V0_3);
        assert_eq!(version_before_method("1.0"), V1_0);
        assert_eq!(version_before_method("1.2.3"), V1_0);
        assert_eq!(version_before_method("99.0"), V1_0);
        assert_eq!(version_before_method("0.2"), V1_0);
    }

    #[test]
    fn version_lists() {
        assert_eq!(VersionSet::parse_list("1.0,0.3"), Ok(VersionSet::ALL));
        assert_eq!(VersionSet::parse_list(" 0.3 "), Ok(VersionSet::only(V0_3)));
        assert_eq!(VersionSet::parse_list("1.0"), Ok(VersionSet::only(V1_0)));
        assert!(VersionSet::parse_list("").is_err());
        assert!(VersionSet::parse_list(",").is_err());
        assert!(VersionSet::parse_list("1.0,2.0").is_err());
        assert_eq!(VersionSet::ALL.to_string(), "1.0, 0.3");
    }

    #[test]
    fn extensions_are_filtered_and_deduplicated() {
        let uri = skillgate_core::wire::EXTENSION_URI;
        let got = super::activate_extensions(["urn:other", uri, uri]);
        assert_eq!(got, vec![uri.to_string()]);
    }
}

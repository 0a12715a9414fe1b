//! What every binding checks before a request reaches the [`crate::A2aService`], written once
//! so the HTTP layers (JSON-RPC, HTTP+JSON) and the gRPC adapter (skillgate-grpc) cannot
//! disagree: the requested protocol version, the extensions to activate, and the bearer token.

use skillgate_a2a as a2a;
use skillgate_core::wire::EXTENSION_URI;

/// Whether this server serves the `A2A-Version` a request names: `Major.Minor` with an
/// optional numeric patch, and only 1.0. An empty value (no header) is 0.3: not served.
pub fn version_supported(v: &str) -> bool {
    let mut it = v.split('.');
    matches!((it.next(), it.next()), (Some("1"), Some("0")))
        && it.clone().count() <= 1
        && it.all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The version a refusal names: what the request sent, or the implicit 0.3 when it sent none.
pub fn version_shown(requested: &str) -> &str {
    if requested.is_empty() {
        a2a::IMPLICIT_PROTOCOL_VERSION
    } else {
        requested
    }
}

/// The message of a `VersionNotSupported` refusal of version `v` (as [`version_shown`] gives).
pub fn version_message(v: &str) -> String {
    format!(
        "A2A version '{v}' is not supported; this agent serves {} (send the A2A-Version header)",
        a2a::PROTOCOL_VERSION
    )
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
    #[test]
    fn versions() {
        for ok in ["1.0", "1.0.0", "1.0.3"] {
            assert!(super::version_supported(ok), "{ok}");
        }
        for bad in [
            "", "0.3", "99.0", "1", "1.1", "1.0.", "1.0.x", "1.0.0.0", "2.0",
        ] {
            assert!(!super::version_supported(bad), "{bad}");
        }
    }

    #[test]
    fn extensions_are_filtered_and_deduplicated() {
        let uri = skillgate_core::wire::EXTENSION_URI;
        let got = super::activate_extensions(["urn:other", uri, uri]);
        assert_eq!(got, vec![uri.to_string()]);
    }
}

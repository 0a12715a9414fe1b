//! The base of every outgoing HTTP client in the workspace.

use std::sync::Once;

/// A reqwest client builder with what every skillgate client needs: the ring crypto provider
/// installed (the workspace builds reqwest with `rustls-no-provider`, to avoid an aws-lc
/// build), automatic redirects off and a `skillgate/VERSION PURPOSE` user agent.
///
/// Redirects are off because no caller may follow one blindly: the client transport follows
/// them itself and picks the credentials again at each hop, the push sender refuses them (a
/// webhook could redirect past the address guard), and an HTTP skill's endpoint is fixed by
/// configuration. Callers add their own timeouts, proxy and resolver settings.
pub fn client_builder(purpose: &str) -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(user_agent(purpose))
}

/// `skillgate/VERSION` followed by `purpose` when it is not empty.
pub fn user_agent(purpose: &str) -> String {
    let base = concat!("skillgate/", env!("CARGO_PKG_VERSION"));
    if purpose.is_empty() {
        base.to_owned()
    } else {
        format!("{base} {purpose}")
    }
}

/// Installs rustls's ring provider as the process default, once. Also needed by code that
/// builds a rustls configuration without reqwest (gRPC channels, test TLS servers).
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Ignored error: another library installed a provider first, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agent_names_version_and_purpose() {
        assert_eq!(
            user_agent("push"),
            format!("skillgate/{} push", env!("CARGO_PKG_VERSION"))
        );
        assert!(!user_agent("").ends_with(' '));
    }

    #[test]
    fn builds_a_client_twice() {
        // The provider install is idempotent: a second build must not fail on it.
        assert!(client_builder("a").build().is_ok());
        assert!(client_builder("b").build().is_ok());
    }
}

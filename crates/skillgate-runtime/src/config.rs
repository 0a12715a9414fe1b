//! Server configuration: limits, the approval policy, the task store and the public URL.

use crate::auth::TokenTable;
use skillgate_store::{StoreLimits, TaskStore};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// Runtime limits and policies.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Largest accepted request body in bytes (default 1 MiB); larger gets HTTP 413.
    pub body_limit: usize,
    /// Deepest accepted JSON nesting of a request body (default 64).
    pub max_json_depth: usize,
    /// Time to receive a request body, and the longest a blocking `SendMessage` waits before
    /// returning the still-running task for polling (default 30 s).
    pub request_timeout: Duration,
    /// Bearer tokens; `None` means no authentication.
    pub tokens: Option<TokenTable>,
    /// Decides whether `execute`-mode skills may run (default: deny).
    pub approval: ApprovalPolicy,
    /// Bounds of the default in-memory task store (ignored when `store` is set: a store
    /// opened with [`skillgate_store::open`] carries its own).
    pub task_store: StoreLimits,
    /// The task store; `None` means a fresh in-memory store with the `task_store` bounds.
    pub store: Option<Arc<dyn TaskStore>>,
    /// Base URL advertised in the Agent Card (default: `http://<bound address>`).
    pub public_url: Option<String>,
    /// Longest any handler may run when its skill declares no `max_duration_ms` (default 5 min).
    pub max_task_duration: Duration,
    /// `max-age` of the Agent Card's `Cache-Control` (default 300 s).
    pub card_max_age: Duration,
    /// Longest a connection may take to deliver a complete request head, counted from when
    /// it opens or, on a kept-alive connection, from the first byte of the next request
    /// (default 10 s). A connection that opens and sends nothing, or trickles its head one
    /// byte at a time (slowloris), is closed when it runs out.
    pub header_read_timeout: Duration,
    /// Longest a kept-alive connection may sit idle between a response and the first byte of
    /// its next request before the server closes it (default 60 s).
    pub idle_timeout: Duration,
    /// Most connections served at once (default 1024). A connection beyond it is answered
    /// `503` with a JSON body and `Connection: close` and closed at once, so the limit is
    /// reached before the process runs out of file descriptors (keep it under `ulimit -n`).
    pub max_connections: usize,
    /// On shutdown: how long in-flight requests get to finish (open event streams are ended
    /// at once) before every remaining connection is dropped and the server returns
    /// (default 10 s).
    pub shutdown_grace: Duration,
    /// Browser origins (`scheme://host[:port]`) allowed to call the agent. Empty (the
    /// default): any request carrying an `Origin` header is refused with 403.
    pub allowed_origins: Vec<String>,
    /// Skip the `Host` check (default `false`: a request must name the bound address,
    /// `localhost`, an IP address or the host of `public_url`, which defeats DNS rebinding).
    pub allow_any_host: bool,
    /// Signs the served Agent Card (once per agent, reloads included); `None` serves it
    /// unsigned.
    pub card_signer: Option<Arc<skillgate_sign::SigningKey>>,
    /// Count requests, gate outcomes, skill durations, tasks, connections and streams, and
    /// serve them at `GET /metrics` (default `false`: the path is a 404 like any unknown one).
    /// With `tokens` set, `/metrics` takes the same bearer tokens as the agent.
    pub metrics: bool,
    /// Push notifications (`serve --push`): `None` (the default) leaves them off, the card
    /// says `capabilities.pushNotifications: false` and the four push config methods answer
    /// `PushNotificationNotSupported`.
    pub push: Option<crate::push::PushPolicy>,
    /// Where the gRPC binding (skillgate-grpc) serves this same agent, as `host:port`; the
    /// card then lists a `GRPC` interface after the two HTTP ones (default `None`: no gRPC).
    pub grpc_url: Option<String>,
    /// The A2A versions served (`serve --a2a-versions`, default both): a 0.3 request (no
    /// `A2A-Version`, a 0.3 method) is served only when 0.3 is in the set, and the card then
    /// lists the 0.3 interfaces and answers header-less readers with a 0.3 card.
    pub a2a_versions: crate::checks::VersionSet,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            body_limit: 1024 * 1024,
            max_json_depth: 64,
            request_timeout: Duration::from_secs(30),
            tokens: None,
            approval: ApprovalPolicy::deny_all(),
            task_store: StoreLimits::memory(),
            store: None,
            public_url: None,
            max_task_duration: Duration::from_secs(300),
            card_max_age: Duration::from_secs(300),
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 1024,
            shutdown_grace: Duration::from_secs(10),
            allowed_origins: Vec::new(),
            allow_any_host: false,
            card_signer: None,
            metrics: false,
            push: None,
            grpc_url: None,
            a2a_versions: crate::checks::VersionSet::ALL,
        }
    }
}

/// Checks a URL to advertise in the Agent Card: absolute `http` or `https`, with a host, and
/// no credentials, query or fragment.
pub fn check_public_url(u: &str) -> Result<(), PublicUrlError> {
    let bad = |problem| {
        Err(PublicUrlError {
            url: u.to_owned(),
            problem,
        })
    };
    let Ok(p) = url::Url::parse(u) else {
        return bad(PublicUrlProblem::NotAbsolute);
    };
    if !matches!(p.scheme(), "http" | "https") {
        return bad(PublicUrlProblem::Scheme);
    }
    if p.host_str().is_none_or(str::is_empty) {
        return bad(PublicUrlProblem::NoHost);
    }
    if !p.username().is_empty() || p.password().is_some() {
        return bad(PublicUrlProblem::Credentials);
    }
    if p.query().is_some() || p.fragment().is_some() {
        return bad(PublicUrlProblem::QueryOrFragment);
    }
    Ok(())
}

/// A URL [`check_public_url`] refuses to advertise, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("public URL {url:?} {problem}")]
pub struct PublicUrlError {
    /// The URL as given.
    pub url: String,
    /// What is wrong with it.
    pub problem: PublicUrlProblem,
}

/// What makes a URL unfit for the Agent Card (see [`check_public_url`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PublicUrlProblem {
    /// Not an absolute URL: no scheme, or unparsable.
    #[error("is not an absolute URL (e.g. https://agent.example.net)")]
    NotAbsolute,
    /// A scheme other than `http` or `https`.
    #[error("must be http or https")]
    Scheme,
    /// No host (e.g. `http:///path`).
    #[error("has no host")]
    NoHost,
    /// A user name or password, which every card reader would see.
    #[error("must not carry credentials")]
    Credentials,
    /// A query (`?...`) or fragment (`#...`), which a base URL for the card must not have.
    #[error("must not have a query or fragment")]
    QueryOrFragment,
}

/// What the approval policy is asked about.
#[derive(Debug, Clone, Copy)]
pub struct ApprovalRequest<'a> {
    /// The skill id.
    pub skill_id: &'a str,
    /// The caller label, if authenticated.
    pub caller: Option<&'a str>,
}

type ApprovalFn = dyn Fn(&ApprovalRequest<'_>) -> bool + Send + Sync;

/// Decides whether an `execute`-mode skill may run for a request. Validation never grants this.
#[derive(Clone)]
pub struct ApprovalPolicy(Arc<ApprovalFn>);

impl std::fmt::Debug for ApprovalPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApprovalPolicy(..)")
    }
}

impl Default for ApprovalPolicy {
    fn default() -> Self {
        Self::deny_all()
    }
}

impl ApprovalPolicy {
    /// Never approve (the default).
    pub fn deny_all() -> Self {
        Self(Arc::new(|_| false))
    }
    /// Always approve.
    pub fn allow_all() -> Self {
        Self(Arc::new(|_| true))
    }
    /// Approve only these skill ids.
    pub fn allow_skills<I: IntoIterator<Item = S>, S: Into<String>>(skills: I) -> Self {
        let set: BTreeSet<String> = skills.into_iter().map(Into::into).collect();
        Self(Arc::new(move |r| set.contains(r.skill_id)))
    }
    /// Approve by a custom rule.
    pub fn from_fn(f: impl Fn(&ApprovalRequest<'_>) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }
    /// Asks the policy.
    pub fn approves(&self, req: &ApprovalRequest<'_>) -> bool {
        (self.0)(req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn approval_policies() {
        let r = ApprovalRequest {
            skill_id: "x",
            caller: None,
        };
        assert!(!ApprovalPolicy::default().approves(&r));
        assert!(ApprovalPolicy::allow_all().approves(&r));
        assert!(ApprovalPolicy::allow_skills(["x"]).approves(&r));
        assert!(!ApprovalPolicy::allow_skills(["y"]).approves(&r));
    }
}

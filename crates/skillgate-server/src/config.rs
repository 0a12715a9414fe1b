//! Server configuration: limits, bearer tokens, the approval policy and the task store.

use skillgate_store::{StoreLimits, TaskStore};
use std::collections::BTreeSet;
use std::path::Path;
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
    /// at once) before every remaining connection is dropped and [`crate::serve`] returns
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
        }
    }
}

/// Checks a URL to advertise in the Agent Card: absolute `http` or `https`, with a host, and
/// no credentials, query or fragment.
pub fn check_public_url(u: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("public URL {u:?} {why}"));
    let Ok(p) = url::Url::parse(u) else {
        return bad("is not an absolute URL (e.g. https://agent.example.net)");
    };
    if !matches!(p.scheme(), "http" | "https") {
        return bad("must be http or https");
    }
    if p.host_str().is_none_or(str::is_empty) {
        return bad("has no host");
    }
    if !p.username().is_empty() || p.password().is_some() {
        return bad("must not carry credentials");
    }
    if p.query().is_some() || p.fragment().is_some() {
        return bad("must not have a query or fragment");
    }
    Ok(())
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

/// One accepted bearer token. Its `Debug` shows the label and skills but never the secret, so
/// a logged configuration cannot leak a credential.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenEntry {
    token: String,
    /// Label used as the caller identity (`token-<line>`), never the secret itself.
    pub label: String,
    /// Skills this token may use; `None` means all.
    pub skills: Option<BTreeSet<String>>,
    /// Line of the token file it came from.
    line: usize,
}

impl std::fmt::Debug for TokenEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenEntry")
            .field("token", &"<redacted>")
            .field("label", &self.label)
            .field("skills", &self.skills)
            .finish()
    }
}

impl TokenEntry {
    /// Whether this token may use the skill.
    pub fn allows(&self, skill_id: &str) -> bool {
        self.skills.as_ref().is_none_or(|s| s.contains(skill_id))
    }
}

/// A malformed token file.
#[derive(Debug, thiserror::Error)]
pub enum TokenFileError {
    /// The file could not be read.
    #[error("cannot read token file {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line is malformed.
    #[error("token file line {line}: {message}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// No token at all: a server with auth on and no tokens would refuse everyone.
    #[error("token file has no tokens")]
    Empty,
}

/// Shortest accepted bearer token, in bytes: shorter ones are guessable.
pub const MIN_TOKEN_BYTES: usize = 16;

/// Accepted bearer tokens, from a file of `token` or `token skill1,skill2` lines. A line whose
/// first non-blank character is `#` is a comment; a `#` anywhere else is part of the line (a
/// token may contain one), so there are no trailing comments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenTable {
    entries: Vec<TokenEntry>,
}

impl TokenTable {
    /// Parses token file text.
    pub fn parse(text: &str) -> Result<Self, TokenFileError> {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |message: &str| TokenFileError::Line {
                line: line_no,
                message: message.to_string(),
            };
            let mut fields = line.split_whitespace();
            let token = fields.next().unwrap_or("");
            let skills = fields.next();
            if fields.next().is_some() {
                return Err(bad(
                    "expected `token` or `token skill1,skill2` (skills separated by commas, no spaces; comments only on lines of their own, starting with #)",
                ));
            }
            if !token.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(bad("a token must be printable ASCII"));
            }
            if token.len() < MIN_TOKEN_BYTES {
                return Err(bad(&format!(
                    "a token must be at least {MIN_TOKEN_BYTES} bytes (this one has {}); generate one with e.g. `openssl rand -hex 32`",
                    token.len()
                )));
            }
            if entries.iter().any(|e: &TokenEntry| e.token == token) {
                return Err(bad("duplicate token"));
            }
            let skills = match skills {
                None => None,
                Some(list) => {
                    let set: BTreeSet<String> = list
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect();
                    if set.is_empty() {
                        return Err(bad("empty skill list"));
                    }
                    Some(set)
                }
            };
            entries.push(TokenEntry {
                token: token.to_string(),
                label: format!("token-{line_no}"),
                skills,
                line: line_no,
            });
        }
        if entries.is_empty() {
            return Err(TokenFileError::Empty);
        }
        Ok(Self { entries })
    }

    /// Refuses the first line naming a skill the agent does not serve (`serves` says no), with
    /// its line number: a typo there would otherwise silently deny the token that skill.
    pub fn check_skills(&self, serves: impl Fn(&str) -> bool) -> Result<(), TokenFileError> {
        for e in &self.entries {
            if let Some(unknown) = e.skills.iter().flatten().find(|s| !serves(s)) {
                return Err(TokenFileError::Line {
                    line: e.line,
                    message: format!("the agent serves no skill `{unknown}`"),
                });
            }
        }
        Ok(())
    }

    /// Reads and parses a token file.
    pub fn from_file(path: &Path) -> Result<Self, TokenFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| TokenFileError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text)
    }

    /// The entry for a presented token; compares every entry in constant time per byte so the
    /// answer's timing does not reveal how much of a token matched.
    pub fn lookup(&self, presented: &str) -> Option<&TokenEntry> {
        let mut found = None;
        for e in &self.entries {
            if ct_eq(e.token.as_bytes(), presented.as_bytes()) {
                found = Some(e);
            }
        }
        found
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no tokens.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Equality whose time does not depend on where the bytes differ (`subtle` keeps the compiler
/// from turning it back into an early-exit compare); only a length difference shows.
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.ct_eq(b).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_entries_never_show_their_secret() {
        let t = TokenTable::parse("s3cr3t-value-0123456 observe\n").unwrap();
        let shown = format!("{t:?}");
        assert!(!shown.contains("s3cr3t-value"), "{shown}");
        assert!(shown.contains("token-1"), "{shown}");
        assert!(t.lookup("s3cr3t-value-0123456").is_some());
        assert!(t.lookup("s3cr3t-value-0123457").is_none());
        assert!(t.lookup("s3cr3t").is_none());
    }

    #[test]
    fn token_file_lines() {
        let t =
            TokenTable::parse("# c\nabc-0123456789abcdef\n\nxyz-0123456789abcdef s1,s2\n").unwrap();
        assert_eq!(t.len(), 2);
        assert!(t.lookup("abc-0123456789abcdef").unwrap().allows("anything"));
        let x = t.lookup("xyz-0123456789abcdef").unwrap();
        assert!(x.allows("s1") && !x.allows("s3"));
        assert_eq!(x.label, "token-4");
        assert!(t.lookup("abc-0123456789abcde").is_none());
        assert!(matches!(
            TokenTable::parse("a b c"),
            Err(TokenFileError::Line { line: 1, .. })
        ));
        assert!(matches!(
            TokenTable::parse("# only\n"),
            Err(TokenFileError::Empty)
        ));
        assert!(TokenTable::parse("abc-0123456789abcdef\nabc-0123456789abcdef").is_err());
    }

    #[test]
    fn a_hash_inside_a_token_is_part_of_it() {
        let t = TokenTable::parse("# operators\nh4sh#tagSecretSuffix-0001\n").unwrap();
        assert!(t.lookup("h4sh#tagSecretSuffix-0001").is_some());
        assert!(t.lookup("h4sh").is_none());
        // A comment is a line of its own; trailing text is no comment.
        assert!(matches!(
            TokenTable::parse("secret-0123456789abcdef # note\n"),
            Err(TokenFileError::Line { line: 1, .. })
        ));
        let t = TokenTable::parse("  # indented comment\nsecret-0123456789abcdef\n").unwrap();
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn short_tokens_are_refused_with_their_line() {
        let e = TokenTable::parse("# c\nsecret-0123456789abcdef\nshort-token\n").unwrap_err();
        assert!(matches!(e, TokenFileError::Line { line: 3, .. }), "{e}");
        assert!(e.to_string().contains("16 bytes"), "{e}");
        assert!(TokenTable::parse("exactly16bytes!!").is_ok());
    }

    #[test]
    fn lines_naming_skills_the_agent_does_not_serve_are_refused() {
        let t =
            TokenTable::parse("secret-0123456789abcdef\nlimited-0123456789abc s1,nope\n").unwrap();
        let e = t.check_skills(|s| s == "s1").unwrap_err();
        assert!(matches!(e, TokenFileError::Line { line: 2, .. }), "{e}");
        assert!(e.to_string().contains("nope"), "{e}");
        assert!(t.check_skills(|s| s == "s1" || s == "nope").is_ok());
    }

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

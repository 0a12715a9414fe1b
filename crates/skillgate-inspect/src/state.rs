//! What the handlers share: the outbound configuration, the Host/Origin guard, the browser
//! sessions' tokens (memory only) and the conformance runs in progress.

use crate::{InspectConfig, InspectError};
use axum::http::{header, HeaderMap};
use skillgate_client::{Client, ClientConfig, ClientError};
use skillgate_server::OriginGuard;
use skillgate_transport::{Secret, TransportConfig};
use std::sync::{Arc, Mutex, MutexGuard};

/// Most (browser session, agent) tokens held at once; the oldest is forgotten beyond it.
pub const MAX_SESSIONS: usize = 64;
/// Most conformance runs remembered (finished ones are dropped first).
pub(crate) const MAX_RUNS: usize = 16;
/// The session cookie: an unguessable id naming an in-memory token, nothing else.
pub(crate) const SESSION_COOKIE: &str = "skillgate_inspect_session";

/// One conformance run: its progress while it runs, its report once done.
#[derive(Default)]
pub(crate) struct RunState {
    /// Requests the run has made so far.
    pub(crate) requests: u64,
    /// The last request, as the transport's trace shows it (credentials removed).
    pub(crate) last: String,
    /// The finished report (or why the run could not start), as the JSON the page reads.
    pub(crate) done: Option<serde_json::Value>,
}

struct Inner {
    transport: TransportConfig,
    agent: Option<String>,
    /// The origin the configured credentials belong to: the configured agent's.
    credentials_origin: Option<url::Origin>,
    guard: OriginGuard,
    /// (session id, agent origin, token), oldest first for the bound.
    sessions: Mutex<Vec<(String, url::Origin, Secret)>>,
    runs: Mutex<Vec<(String, Arc<Mutex<RunState>>)>>,
}

/// The handlers' state. Cheap to clone.
#[derive(Clone)]
pub(crate) struct AppState(Arc<Inner>);

/// A poisoned lock still guards consistent data here (every critical section is a plain
/// assignment), so it is used rather than turned into a panic.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// The origin of an agent URL as the client resolves it (its Agent Card URL's), if it has one.
pub(crate) fn agent_origin(agent: &str) -> Option<url::Origin> {
    let origin = skillgate_transport::card_url(agent.trim()).ok()?.origin();
    origin.is_tuple().then_some(origin)
}

impl AppState {
    pub(crate) fn new(config: InspectConfig, own_url: &str) -> Result<Self, InspectError> {
        // Fail at start-up, not on the first page, when the transport cannot be built.
        Client::new(ClientConfig::from_transport(config.transport.clone()))
            .map_err(|e| InspectError::Client(e.to_string()))?;
        let has_credentials =
            config.transport.token.is_some() || !config.transport.headers.is_empty();
        let credentials_origin = config.agent.as_deref().and_then(agent_origin);
        if has_credentials && credentials_origin.is_none() {
            return Err(InspectError::Config(
                "a token or extra headers need the agent URL they are for: the inspector sends them to that agent's origin only".to_owned(),
            ));
        }
        let mut transport = config.transport;
        // The transport sends credentials to its credential origins only: the configured
        // agent's is one of them, whoever built the configuration.
        if let Some(origin) = &credentials_origin {
            if !transport.credential_origins.contains(origin) {
                transport.credential_origins.push(origin.clone());
            }
        }
        Ok(Self(Arc::new(Inner {
            transport,
            agent: config.agent,
            credentials_origin,
            // `localhost:PORT` is admitted by the guard's Host rule (its Origin then matches
            // the checked Host), so only the bound URL needs naming.
            guard: OriginGuard::new(&[own_url]),
            sessions: Mutex::new(Vec::new()),
            runs: Mutex::new(Vec::new()),
        })))
    }

    pub(crate) fn guard(&self) -> &OriginGuard {
        &self.0.guard
    }

    /// The agent shown when the browser names none.
    pub(crate) fn default_agent(&self) -> Option<&str> {
        self.0.agent.as_deref()
    }

    /// Whether the configured credentials go to `agent` (it shares the configured agent's
    /// origin).
    pub(crate) fn configured_for(&self, agent: &str) -> bool {
        self.0.credentials_origin.is_some()
            && agent_origin(agent) == self.0.credentials_origin
            && (self.0.transport.token.is_some() || !self.0.transport.headers.is_empty())
    }

    /// The outbound transport for a request to `agent`: the configured bounds and policy; the
    /// configured token and headers only when `agent` is the configured agent's origin; the
    /// browser session's token for this agent (if one was entered) in place of a token.
    /// Credentials never follow a URL that a page (or a link) named.
    pub(crate) fn transport(&self, headers: &HeaderMap, agent: &str) -> TransportConfig {
        let mut t = self.0.transport.clone();
        if !self.configured_for(agent) {
            t.token = None;
            t.headers.clear();
            t.credential_origins.clear();
        }
        if let Some(token) = self.session_token(headers, agent) {
            t.token = Some(token);
            // Entered for this agent's origin, so valid there (and never where its card points).
            t.credential_origins.extend(agent_origin(agent));
        }
        t
    }

    /// A validated client for a request to `agent` (memory cache only: the inspector writes
    /// nothing).
    pub(crate) fn client(&self, headers: &HeaderMap, agent: &str) -> Result<Client, ClientError> {
        Client::new(ClientConfig::from_transport(self.transport(headers, agent)))
    }

    /// Whether this browser session entered a token for `agent`'s origin.
    pub(crate) fn has_session_token(&self, headers: &HeaderMap, agent: &str) -> bool {
        self.session_token(headers, agent).is_some()
    }

    fn session_token(&self, headers: &HeaderMap, agent: &str) -> Option<Secret> {
        let id = session_id(headers)?;
        let origin = agent_origin(agent)?;
        lock(&self.0.sessions)
            .iter()
            .find(|(s, o, _)| *s == id && *o == origin)
            .map(|(_, _, t)| t.clone())
    }

    /// Keeps `token` for the session `id` and `agent`'s origin (replacing what it had there),
    /// forgetting the oldest entry beyond [`MAX_SESSIONS`]. `false` when `agent` has no origin.
    pub(crate) fn set_session_token(&self, id: &str, agent: &str, token: Secret) -> bool {
        let Some(origin) = agent_origin(agent) else {
            return false;
        };
        let mut s = lock(&self.0.sessions);
        s.retain(|(sid, o, _)| !(sid == id && *o == origin));
        s.push((id.to_owned(), origin, token));
        if s.len() > MAX_SESSIONS {
            s.remove(0);
        }
        true
    }

    /// Forgets every token of the request's session.
    pub(crate) fn forget_session(&self, headers: &HeaderMap) {
        if let Some(id) = session_id(headers) {
            lock(&self.0.sessions).retain(|(sid, _, _)| *sid != id);
        }
    }

    /// Registers a new conformance run and returns its id and progress cell; beyond
    /// [`MAX_RUNS`] the oldest finished run (else the oldest) is dropped.
    pub(crate) fn new_run(&self) -> (String, Arc<Mutex<RunState>>) {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let cell = Arc::new(Mutex::new(RunState::default()));
        let mut runs = lock(&self.0.runs);
        if runs.len() >= MAX_RUNS {
            let finished = runs.iter().position(|(_, r)| lock(r).done.is_some());
            runs.remove(finished.unwrap_or(0));
        }
        runs.push((id.clone(), Arc::clone(&cell)));
        (id, cell)
    }

    pub(crate) fn run(&self, id: &str) -> Option<Arc<Mutex<RunState>>> {
        lock(&self.0.runs)
            .iter()
            .find(|(r, _)| r == id)
            .map(|(_, c)| Arc::clone(c))
    }
}

/// The session id from the request's cookie, if it has one.
pub(crate) fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == SESSION_COOKIE)
        .map(|(_, v)| v.to_owned())
        .filter(|v| v.len() == 32 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use skillgate_transport::Secret;

    const A: &str = "http://127.0.0.1:7420";

    #[test]
    fn session_tokens_are_bounded_bound_to_an_origin_and_read_from_the_cookie() {
        let st = AppState::new(InspectConfig::default(), "http://127.0.0.1:1").unwrap();
        let id = |i: usize| format!("{i:032x}");
        for i in 0..=MAX_SESSIONS {
            assert!(st.set_session_token(&id(i), A, Secret::new(format!("t{i}"))));
        }
        assert!(!st.set_session_token(&id(0), "not a url", Secret::new("x")));
        let mut h = HeaderMap::new();
        let cookie = |i: usize| HeaderValue::from_str(&format!("a=b; {SESSION_COOKIE}={}", id(i)));
        h.insert(header::COOKIE, cookie(0).unwrap());
        assert!(
            !st.has_session_token(&h, A),
            "the oldest entry was forgotten"
        );
        h.insert(header::COOKIE, cookie(MAX_SESSIONS).unwrap());
        let t = st.transport(&h, &format!("{A}/.well-known/agent-card.json"));
        assert_eq!(t.token.unwrap().expose(), format!("t{MAX_SESSIONS}"));
        // Another agent does not get this agent's token.
        assert!(st.transport(&h, "http://127.0.0.1:7421").token.is_none());
        st.forget_session(&h);
        assert!(!st.has_session_token(&h, A));
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("skillgate_inspect_session=../x"),
        );
        assert_eq!(session_id(&h), None);
    }

    #[test]
    fn configured_credentials_go_to_the_configured_origin_only() {
        let transport = TransportConfig {
            token: Some(Secret::new("cli-token")),
            ..Default::default()
        };
        let config = |agent: Option<&str>| InspectConfig {
            transport: transport.clone(),
            agent: agent.map(str::to_owned),
        };
        assert!(matches!(
            AppState::new(config(None), "http://127.0.0.1:1"),
            Err(InspectError::Config(_))
        ));
        let st = AppState::new(config(Some(A)), "http://127.0.0.1:1").unwrap();
        let h = HeaderMap::new();
        assert!(st.transport(&h, &format!("{A}/")).token.is_some());
        assert!(st.transport(&h, "https://attacker.example").token.is_none());
        assert!(st.transport(&h, "http://127.0.0.1:9").token.is_none());
    }
}

//! What the handlers share: the outbound configuration, the Host/Origin guard, the browser
//! sessions' tokens (memory only) and the conformance runs in progress.

use crate::{InspectConfig, InspectError};
use axum::http::{header, HeaderMap};
use skillgate_client::{Client, ClientConfig, ClientError};
use skillgate_server::OriginGuard;
use skillgate_transport::{Secret, TransportConfig};
use std::sync::{Arc, Mutex, MutexGuard};

/// Most browser sessions holding a token at once; the oldest is forgotten beyond it.
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
    guard: OriginGuard,
    /// Session id -> token, in insertion order (oldest first) for the bound.
    sessions: Mutex<Vec<(String, Secret)>>,
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

impl AppState {
    pub(crate) fn new(config: InspectConfig, own_url: &str) -> Result<Self, InspectError> {
        // Fail at start-up, not on the first page, when the transport cannot be built.
        Client::new(ClientConfig::from_transport(config.transport.clone()))
            .map_err(|e| InspectError::Client(e.to_string()))?;
        Ok(Self(Arc::new(Inner {
            transport: config.transport,
            agent: config.agent,
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

    /// The outbound transport for a request: the configured one, with the browser session's
    /// token (if it entered one) in place of the configured token.
    pub(crate) fn transport(&self, headers: &HeaderMap) -> TransportConfig {
        let mut t = self.0.transport.clone();
        if let Some(token) = self.session_token(headers) {
            t.token = Some(token);
        }
        t
    }

    /// A validated client for this request (memory cache only: the inspector writes nothing).
    pub(crate) fn client(&self, headers: &HeaderMap) -> Result<Client, ClientError> {
        Client::new(ClientConfig::from_transport(self.transport(headers)))
    }

    /// Whether this browser session entered a token.
    pub(crate) fn has_session_token(&self, headers: &HeaderMap) -> bool {
        self.session_token(headers).is_some()
    }

    /// Whether a token was configured on the command line.
    pub(crate) fn has_configured_token(&self) -> bool {
        self.0.transport.token.is_some() || !self.0.transport.headers.is_empty()
    }

    fn session_token(&self, headers: &HeaderMap) -> Option<Secret> {
        let id = session_id(headers)?;
        lock(&self.0.sessions)
            .iter()
            .find(|(s, _)| *s == id)
            .map(|(_, t)| t.clone())
    }

    /// Keeps `token` for the session `id` (replacing what it had), forgetting the oldest
    /// session beyond [`MAX_SESSIONS`].
    pub(crate) fn set_session_token(&self, id: &str, token: Secret) {
        let mut s = lock(&self.0.sessions);
        s.retain(|(sid, _)| sid != id);
        s.push((id.to_owned(), token));
        if s.len() > MAX_SESSIONS {
            s.remove(0);
        }
    }

    /// Forgets the token of the request's session.
    pub(crate) fn forget_session(&self, headers: &HeaderMap) {
        if let Some(id) = session_id(headers) {
            lock(&self.0.sessions).retain(|(sid, _)| *sid != id);
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

    #[test]
    fn sessions_are_bounded_and_read_from_the_cookie() {
        let st = AppState::new(InspectConfig::default(), "http://127.0.0.1:1").unwrap();
        let id = |i: usize| format!("{i:032x}");
        for i in 0..=MAX_SESSIONS {
            st.set_session_token(&id(i), Secret::new(format!("t{i}")));
        }
        let mut h = HeaderMap::new();
        let cookie = |i: usize| HeaderValue::from_str(&format!("a=b; {SESSION_COOKIE}={}", id(i)));
        h.insert(header::COOKIE, cookie(0).unwrap());
        assert!(
            !st.has_session_token(&h),
            "the oldest session was forgotten"
        );
        h.insert(header::COOKIE, cookie(MAX_SESSIONS).unwrap());
        assert_eq!(
            st.transport(&h).token.unwrap().expose(),
            format!("t{MAX_SESSIONS}")
        );
        st.forget_session(&h);
        assert!(!st.has_session_token(&h));
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("skillgate_inspect_session=../x"),
        );
        assert_eq!(session_id(&h), None);
    }
}

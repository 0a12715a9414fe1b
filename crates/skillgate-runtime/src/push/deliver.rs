//! Delivery of push notifications: the webhook clients (guarded resolver, no proxy, no
//! redirects), one bounded queue and worker per config, retries with jittered backoff.

use super::guard::{Guard, GuardedResolver};
use super::{PushPolicy, CONTENT_TYPE, CONTENT_TYPE_V03, TOKEN_HEADER};
use crate::metrics::Metrics;
use crate::task::TaskHandle;
use bytes::Bytes;
use skillgate_a2a::version::WireVersion;
use skillgate_a2a::{StreamResponse, Task, TaskPushNotificationConfig};
use skillgate_store::{PushRegistration, TaskStore};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// Delivers the events of watched tasks. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Pusher(Arc<Inner>);

struct Inner {
    policy: PushPolicy,
    /// For `https://` webhooks.
    https: reqwest::Client,
    /// For `http://` webhooks: its resolver accepts loopback addresses only.
    http: reqwest::Client,
    /// Tasks this process delivers for (one hub subscription each).
    watched: Mutex<HashSet<String>>,
    store: Arc<dyn TaskStore>,
    metrics: Metrics,
}

/// How one event's delivery to one webhook ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A 2xx answer.
    Delivered,
    /// A retry after a failed attempt (counted per retry).
    Retried,
    /// Every attempt failed (transport error, timeout, 5xx, 408, 429).
    Failed,
    /// The webhook answered a final refusal (4xx) or a redirect, which is never followed.
    Rejected,
    /// The guard refused the webhook's address at delivery time.
    Refused,
    /// The webhook's queue was full: the event was not delivered.
    Dropped,
}

impl Outcome {
    /// The metric label.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Outcome::Delivered => "delivered",
            Outcome::Retried => "retried",
            Outcome::Failed => "failed",
            Outcome::Rejected => "rejected",
            Outcome::Refused => "refused",
            Outcome::Dropped => "dropped",
        }
    }
}

fn client(
    guard: &Arc<Guard>,
    loopback_only: bool,
    timeout: Duration,
) -> reqwest::Result<reqwest::Client> {
    // Redirects stay off (the platform base): one could lead past the guard.
    skillgate_platform::http::client_builder("push")
        .dns_resolver(GuardedResolver {
            guard: Arc::clone(guard),
            loopback_only,
        })
        // A proxy would connect for us, to addresses the guard never sees.
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(timeout)
        .build()
}

impl Pusher {
    /// A pusher for tasks of `store`; fails only when the HTTP client cannot be built.
    pub(crate) fn new(
        policy: PushPolicy,
        store: Arc<dyn TaskStore>,
        metrics: Metrics,
    ) -> Result<Self, String> {
        let guard = Arc::new(policy.guard.clone());
        let https = client(&guard, false, policy.timeout).map_err(|e| e.to_string())?;
        let http = client(&guard, true, policy.timeout).map_err(|e| e.to_string())?;
        Ok(Self(Arc::new(Inner {
            policy,
            https,
            http,
            watched: Mutex::new(HashSet::new()),
            store,
            metrics,
        })))
    }

    /// The delivery policy.
    pub(crate) fn policy(&self) -> &PushPolicy {
        &self.0.policy
    }

    /// Starts delivering the events of `entry` to its configs (read from the store at each
    /// event, so configs created or deleted later count), unless this process already does.
    /// The subscription is taken before this returns: events written afterwards are
    /// delivered. A task already finished gets its final Task delivered once when
    /// `deliver_final`, else nothing.
    pub(crate) async fn watch(&self, entry: Arc<TaskHandle>, deliver_final: bool) {
        {
            let mut w = self.0.watched.lock().unwrap_or_else(|p| p.into_inner());
            if !w.insert(entry.id.clone()) {
                return;
            }
        }
        let (first, seen, events) = entry.subscribe().await;
        let me = self.clone();
        tokio::spawn(async move {
            let id = entry.id.clone();
            me.dispatch(entry, first, seen, events, deliver_final).await;
            me.0.watched
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
        });
    }

    /// Reads the task's events until a terminal one, handing each to every config's queue.
    async fn dispatch(
        &self,
        entry: Arc<TaskHandle>,
        first: skillgate_a2a::Task,
        mut seen: i64,
        mut events: skillgate_store::Subscription,
        deliver_final: bool,
    ) {
        let mut queues = Queues::default();
        // The task as the events so far describe it: what a 0.3 webhook is sent.
        let mut task = first;
        if task.status.state.is_terminal() {
            if deliver_final {
                let ev = StreamResponse::Task(task.clone());
                self.fan_out(&entry.id, &ev, &task, &mut queues).await;
            }
            return;
        }
        while let Some(ev) = entry.next_event(&mut events, &mut seen).await {
            match &ev {
                StreamResponse::Task(t) => task = t.clone(),
                StreamResponse::StatusUpdate(u) => task.status = u.status.clone(),
                StreamResponse::ArtifactUpdate(u) => {
                    task.apply_artifact_update(u.artifact.clone(), u.append)
                }
                StreamResponse::Message(_) => {}
            }
            self.fan_out(&entry.id, &ev, &task, &mut queues).await;
            if ends_push(&ev) {
                return;
            }
        }
    }

    /// Queues `ev` for every current config of the task, in the version each was registered
    /// in; a full queue drops it.
    async fn fan_out(&self, task_id: &str, ev: &StreamResponse, task: &Task, queues: &mut Queues) {
        let configs = match self.0.store.push_configs(task_id).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(task_id, error = %e, "push: cannot read the task's push configs; event not delivered");
                return;
            }
        };
        queues
            .0
            .retain(|id, _| configs.iter().any(|c| &c.config.id == id));
        if configs.is_empty() {
            return;
        }
        // Each body is made at most once per event, and only if some config needs it.
        let mut bodies = Bodies::default();
        for reg in configs {
            let Some(body) = bodies.get(reg.version, ev, task) else {
                continue;
            };
            let cfg = &reg.config;
            let q = match queues.0.get(&cfg.id) {
                Some((held, tx)) if *held == reg => tx.clone(),
                _ => {
                    let tx = self.spawn_worker(reg.clone());
                    queues.0.insert(cfg.id.clone(), (reg.clone(), tx.clone()));
                    tx
                }
            };
            if q.try_send(body).is_err() {
                self.0.metrics.push_delivery(Outcome::Dropped.label());
                tracing::warn!(
                    task_id,
                    config_id = %cfg.id,
                    webhook = %webhook_host(&cfg.url),
                    "push: webhook queue full (the webhook is too slow); event dropped"
                );
            }
        }
    }

    /// The queue of one config and the worker that empties it, in order.
    fn spawn_worker(&self, reg: PushRegistration) -> mpsc::Sender<Bytes> {
        let (tx, mut rx) = mpsc::channel::<Bytes>(self.0.policy.queue.max(1));
        let me = self.clone();
        let content_type = match reg.version {
            WireVersion::V0_3 => CONTENT_TYPE_V03,
            WireVersion::V1_0 => CONTENT_TYPE,
        };
        tokio::spawn(async move {
            while let Some(body) = rx.recv().await {
                let outcome = me.deliver(&reg.config, content_type, body).await;
                me.0.metrics.push_delivery(outcome.label());
            }
        });
        tx
    }

    /// One event to one webhook, with retries.
    async fn deliver(
        &self,
        cfg: &TaskPushNotificationConfig,
        content_type: &'static str,
        body: Bytes,
    ) -> Outcome {
        let p = &self.0.policy;
        let url = match p.guard.check_url(&cfg.url) {
            Ok(u) => u,
            Err(e) => {
                self.failed(cfg, Outcome::Refused, &e.to_string(), 0);
                return Outcome::Refused;
            }
        };
        let client = if url.scheme() == "http" {
            &self.0.http
        } else {
            &self.0.https
        };
        let attempts = p.attempts.max(1);
        for attempt in 1..=attempts {
            let mut req = client
                .post(url.clone())
                .header(reqwest::header::CONTENT_TYPE, content_type)
                .body(body.clone());
            if let Some(a) = &cfg.authentication {
                let value = if a.credentials.is_empty() {
                    a.scheme.clone()
                } else {
                    format!("{} {}", a.scheme, a.credentials)
                };
                req = req.header(reqwest::header::AUTHORIZATION, value);
            }
            if !cfg.token.is_empty() {
                req = req.header(TOKEN_HEADER, cfg.token.as_str());
            }
            let why = match req.send().await {
                Ok(r) if r.status().is_success() => return Outcome::Delivered,
                Ok(r) if is_final_refusal(r.status()) => {
                    self.failed(
                        cfg,
                        Outcome::Rejected,
                        &format!("HTTP {}", r.status()),
                        attempt,
                    );
                    return Outcome::Rejected;
                }
                Ok(r) => format!("HTTP {}", r.status()),
                // Without the URL: it may carry a secret in its query.
                Err(e) => e.without_url().to_string(),
            };
            if attempt == attempts {
                self.failed(cfg, Outcome::Failed, &why, attempt);
                return Outcome::Failed;
            }
            self.0.metrics.push_delivery(Outcome::Retried.label());
            tokio::time::sleep(backoff(p.backoff, attempt)).await;
        }
        Outcome::Failed
    }

    /// The log line of a delivery that did not succeed: never the token or credentials.
    fn failed(&self, cfg: &TaskPushNotificationConfig, outcome: Outcome, why: &str, attempts: u32) {
        tracing::warn!(
            task_id = %cfg.task_id,
            config_id = %cfg.id,
            webhook = %webhook_host(&cfg.url),
            outcome = outcome.label(),
            attempts,
            error = why,
            "push: delivery failed"
        );
    }
}

/// Whether an event is a task's last: a terminal status. Unlike a stream, delivery goes on
/// through interrupted states (the next turn moves the task on).
fn ends_push(ev: &StreamResponse) -> bool {
    match ev {
        StreamResponse::StatusUpdate(s) => s.status.state.is_terminal(),
        StreamResponse::Task(t) => t.status.state.is_terminal(),
        StreamResponse::Message(_) => true,
        StreamResponse::ArtifactUpdate(_) => false,
    }
}

/// Each config's queue, with the config it was made for (a changed config gets a new worker).
#[derive(Default)]
struct Queues(HashMap<String, (PushRegistration, mpsc::Sender<Bytes>)>);

/// One event's bodies, made on first need: the 1.0 StreamResponse, and for 0.3 webhooks the
/// task as the events so far leave it, in 0.3 JSON, since 0.3 push notifications carry the
/// whole Task (what a2a-sdk 0.3 servers send and its receivers parse). `None` when a body
/// cannot be made.
#[derive(Default)]
struct Bodies {
    v1: Option<Option<Bytes>>,
    v03: Option<Option<Bytes>>,
}

impl Bodies {
    fn get(&mut self, version: WireVersion, ev: &StreamResponse, task: &Task) -> Option<Bytes> {
        match version {
            WireVersion::V1_0 => self
                .v1
                .get_or_insert_with(|| serde_json::to_vec(ev).ok().map(Bytes::from))
                .clone(),
            WireVersion::V0_3 => self.v03.get_or_insert_with(|| v03_body(task)).clone(),
        }
    }
}

/// A task as an A2A 0.3 push body: 0.3 JSON with `kind: "task"`, without its history, which
/// would make every body grow with the task (`tasks/get` has it).
fn v03_body(task: &Task) -> Option<Bytes> {
    let task = Task {
        history: Vec::new(),
        ..task.clone()
    };
    let t = skillgate_a2a::v03::translate::task_to_v03(&task).ok()?;
    serde_json::to_vec(&t).ok().map(Bytes::from)
}

/// A status the webhook will answer again: 3xx (redirects are never followed) and 4xx other
/// than 408 and 429.
fn is_final_refusal(s: reqwest::StatusCode) -> bool {
    s.is_redirection()
        || (s.is_client_error()
            && s != reqwest::StatusCode::REQUEST_TIMEOUT
            && s != reqwest::StatusCode::TOO_MANY_REQUESTS)
}

/// The wait after failed attempt `attempt` (1-based): `base * 2^(attempt-1)` plus up to half
/// of that again at random, so webhooks that failed together are not retried together.
fn backoff(base: Duration, attempt: u32) -> Duration {
    let exp = base.saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let jitter_ms = u64::try_from(exp.as_millis() / 2).unwrap_or(u64::MAX);
    let jitter = if jitter_ms == 0 {
        0
    } else {
        random % (jitter_ms + 1)
    };
    exp.saturating_add(Duration::from_millis(jitter))
}

/// `scheme://host[:port]` of a webhook URL, for logs (its path or query may carry a secret).
pub(crate) fn webhook_host(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(u) => format!(
            "{}://{}{}",
            u.scheme(),
            u.host_str().unwrap_or_default(),
            u.port().map(|p| format!(":{p}")).unwrap_or_default()
        ),
        Err(_) => "(invalid url)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_bounded_jitter() {
        let base = Duration::from_millis(100);
        for attempt in 1..=4u32 {
            let exp = 100u64 << (attempt - 1);
            for _ in 0..20 {
                let d = backoff(base, attempt).as_millis() as u64;
                assert!((exp..=exp + exp / 2).contains(&d), "{attempt}: {d}");
            }
        }
    }

    #[test]
    fn logs_name_the_webhook_host_only() {
        assert_eq!(
            webhook_host("https://user@hooks.example:8443/p?token=s3cret"),
            "https://hooks.example:8443"
        );
        assert_eq!(webhook_host("http://127.0.0.1/x"), "http://127.0.0.1");
    }

    #[test]
    fn redirects_and_client_errors_are_final_but_timeouts_are_retried() {
        use reqwest::StatusCode as S;
        assert!(is_final_refusal(S::FOUND));
        assert!(is_final_refusal(S::NOT_FOUND));
        assert!(!is_final_refusal(S::TOO_MANY_REQUESTS));
        assert!(!is_final_refusal(S::REQUEST_TIMEOUT));
        assert!(!is_final_refusal(S::INTERNAL_SERVER_ERROR));
    }
}

//! `GET /metrics`: the server's counters in the OpenMetrics text format (which Prometheus
//! scrapes), on `prometheus-client` (docs/design.md, 2026-12-03 "Logs and metrics").
//!
//! One registry per server, never a process-global one, so two servers in one process (tests,
//! an embedding application) keep their own figures. Off by default ([`Metrics::disabled`]):
//! then every hook is a branch on `None` and nothing is counted. Enabled, a hook costs a label
//! lookup at most: label values are `&'static str` or integers (no allocation), the task and
//! connection series are resolved once at start-up, and a skill's histogram is looked up by
//! `&str` in a map filled the first time the skill runs.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use skillgate_a2a::TaskState;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// Content type of the scrape: the OpenMetrics text format `prometheus-client` writes.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Upper bounds (seconds) of the skill duration buckets: from a counter read (sub-millisecond)
/// to the 5 min default task limit.
const DURATION_BUCKETS: [f64; 16] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0,
    300.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    binding: &'static str,
    method: &'static str,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct GateLabels {
    phase: &'static str,
    code: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SkillLabels {
    skill: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    state: &'static str,
}

/// The series of tasks by state, resolved once.
struct TaskCounters {
    created: Counter,
    completed: Counter,
    failed: Counter,
    canceled: Counter,
    rejected: Counter,
}

struct Inner {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    gate: Family<GateLabels, Counter>,
    skill_seconds: Family<SkillLabels, Histogram, fn() -> Histogram>,
    /// `skill_seconds` series by skill id, so a lookup needs no owned label.
    skill_cache: RwLock<HashMap<Box<str>, Histogram>>,
    tasks: TaskCounters,
    connections: Gauge,
    connections_refused: Counter,
    streams: Gauge,
    // Registered either way (a scrape has the same families); counted only with delivery.
    #[cfg_attr(not(feature = "push"), allow(dead_code))]
    push: Family<OutcomeLabels, Counter>,
}

fn duration_histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

/// The server's metrics, or nothing when they are off; cheap to clone (one `Arc`).
#[derive(Clone, Default)]
pub struct Metrics(Option<Arc<Inner>>);

/// Which draft check produced a gate outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GatePhase {
    /// Before the handler runs: digest, version, size, input schema, authorization.
    Admission,
    /// After it ran: its outcome and the output and record schemas.
    Processing,
}

impl Metrics {
    /// Metrics that count nothing (`--metrics` not given).
    pub fn disabled() -> Self {
        Self(None)
    }

    /// A fresh registry with every series of the server.
    pub fn enabled() -> Self {
        let mut registry = Registry::with_prefix("skillgate");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "requests",
            "HTTP requests answered, by A2A binding, A2A method and HTTP status",
            requests.clone(),
        );
        let gate = Family::<GateLabels, Counter>::default();
        registry.register(
            "gate_outcomes",
            "Schema-gate outcomes of skill requests, by phase and draft error code (ok: passed)",
            gate.clone(),
        );
        let skill_seconds: Family<SkillLabels, Histogram, fn() -> Histogram> =
            Family::new_with_constructor(duration_histogram);
        registry.register_with_unit(
            "skill_duration",
            "Time skill handlers ran, by skill id (admitted requests only)",
            prometheus_client::registry::Unit::Seconds,
            skill_seconds.clone(),
        );
        let task_family = Family::<StateLabels, Counter>::default();
        registry.register(
            "tasks",
            "Tasks created, and tasks this process moved to a terminal state, by state",
            task_family.clone(),
        );
        let state = |s: &'static str| task_family.get_or_create_owned(&StateLabels { state: s });
        let tasks = TaskCounters {
            created: state("created"),
            completed: state("completed"),
            failed: state("failed"),
            canceled: state("canceled"),
            rejected: state("rejected"),
        };
        let connections = Gauge::default();
        registry.register(
            "open_connections",
            "HTTP connections being served",
            connections.clone(),
        );
        let connections_refused = Counter::default();
        registry.register(
            "connections_refused",
            "Connections answered 503 or closed because the connection limit was reached",
            connections_refused.clone(),
        );
        let streams = Gauge::default();
        registry.register(
            "open_streams",
            "Server-sent event streams open (SendStreamingMessage, SubscribeToTask)",
            streams.clone(),
        );
        let push = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "push_deliveries",
            "Push notification deliveries of one event to one webhook, by outcome (delivered, failed, rejected, refused, dropped; retried counts retries)",
            push.clone(),
        );
        Self(Some(Arc::new(Inner {
            registry,
            requests,
            gate,
            skill_seconds,
            skill_cache: RwLock::new(HashMap::new()),
            tasks,
            connections,
            connections_refused,
            streams,
            push,
        })))
    }

    /// Whether the metrics are on (and `/metrics` is served).
    pub fn is_enabled(&self) -> bool {
        self.0.is_some()
    }

    /// One answered request.
    pub fn request(&self, binding: &'static str, method: &'static str, status: u16) {
        if let Some(m) = &self.0 {
            m.requests
                .get_or_create(&RequestLabels {
                    binding,
                    method,
                    status,
                })
                .inc();
        }
    }

    /// A gate outcome: `code` is a draft error code, or `ok` when the check passed.
    pub(crate) fn gate(&self, phase: GatePhase, code: &'static str) {
        if let Some(m) = &self.0 {
            let phase = match phase {
                GatePhase::Admission => "admission",
                GatePhase::Processing => "processing",
            };
            m.gate.get_or_create(&GateLabels { phase, code }).inc();
        }
    }

    /// How long a skill's handler ran.
    pub(crate) fn skill_duration(&self, skill: &str, took: Duration) {
        let Some(m) = &self.0 else { return };
        let cached = match m.skill_cache.read() {
            Ok(c) => c.get(skill).cloned(),
            Err(p) => p.into_inner().get(skill).cloned(),
        };
        let h = match cached {
            Some(h) => h,
            None => {
                // First run of this skill (start-up or after a reload): resolve its series.
                let h = m.skill_seconds.get_or_create_owned(&SkillLabels {
                    skill: skill.to_owned(),
                });
                let mut c = match m.skill_cache.write() {
                    Ok(c) => c,
                    Err(p) => p.into_inner(),
                };
                c.insert(skill.into(), h.clone());
                h
            }
        };
        h.observe(took.as_secs_f64());
    }

    /// A task was created.
    pub(crate) fn task_created(&self) {
        if let Some(m) = &self.0 {
            m.tasks.created.inc();
        }
    }

    /// This process wrote a task's terminal state (other states are not counted).
    pub(crate) fn task_ended(&self, state: TaskState) {
        let Some(m) = &self.0 else { return };
        let c = match state {
            TaskState::Completed => &m.tasks.completed,
            TaskState::Failed => &m.tasks.failed,
            TaskState::Canceled => &m.tasks.canceled,
            TaskState::Rejected => &m.tasks.rejected,
            _ => return,
        };
        c.inc();
    }

    /// A connection is served until the guard drops.
    pub fn connection(&self) -> GaugeGuard {
        GaugeGuard::of(self.0.as_ref().map(|m| &m.connections))
    }

    /// A connection was refused at the connection limit.
    pub fn connection_refused(&self) {
        if let Some(m) = &self.0 {
            m.connections_refused.inc();
        }
    }

    /// An event stream is open until the guard drops.
    pub fn stream(&self) -> GaugeGuard {
        GaugeGuard::of(self.0.as_ref().map(|m| &m.streams))
    }

    /// One push notification delivery outcome (`push::Outcome::label`).
    #[cfg_attr(not(feature = "push"), allow(dead_code))]
    pub(crate) fn push_delivery(&self, outcome: &'static str) {
        if let Some(m) = &self.0 {
            m.push.get_or_create(&OutcomeLabels { outcome }).inc();
        }
    }

    /// The scrape, or `None` when the metrics are off.
    pub fn encode(&self) -> Option<String> {
        let m = self.0.as_ref()?;
        let mut out = String::with_capacity(4096);
        // Writing to a String cannot fail.
        prometheus_client::encoding::text::encode(&mut out, &m.registry).ok()?;
        Some(out)
    }
}

/// Holds one unit of a gauge (an open connection or stream) and gives it back when dropped.
pub struct GaugeGuard(Option<Gauge>);

impl GaugeGuard {
    fn of(g: Option<&Gauge>) -> Self {
        Self(g.map(|g| {
            g.inc();
            g.clone()
        }))
    }
}

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        if let Some(g) = &self.0 {
            g.dec();
        }
    }
}

/// A duration in milliseconds with microsecond resolution, as logs and metrics report it.
pub fn millis(d: std::time::Duration) -> f64 {
    // Exact below 2^53 µs (285 years).
    d.as_micros() as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disabled_metrics_encode_nothing_and_count_nothing() {
        let m = Metrics::disabled();
        m.request("jsonrpc", "SendMessage", 200);
        m.task_ended(TaskState::Completed);
        let _g = m.connection();
        assert!(m.encode().is_none());
    }

    #[test]
    fn series_appear_with_their_labels() {
        let m = Metrics::enabled();
        m.request("jsonrpc", "SendMessage", 200);
        m.gate(GatePhase::Admission, "input_invalid");
        m.skill_duration("echo", Duration::from_millis(3));
        m.skill_duration("echo", Duration::from_millis(4));
        m.task_created();
        m.task_ended(TaskState::Rejected);
        m.task_ended(TaskState::Working);
        m.push_delivery("delivered");
        let conn = m.connection();
        let text = m.encode().unwrap();
        for line in [
            "skillgate_requests_total{binding=\"jsonrpc\",method=\"SendMessage\",status=\"200\"} 1",
            "skillgate_gate_outcomes_total{phase=\"admission\",code=\"input_invalid\"} 1",
            "skillgate_skill_duration_seconds_count{skill=\"echo\"} 2",
            "skillgate_tasks_total{state=\"created\"} 1",
            "skillgate_tasks_total{state=\"rejected\"} 1",
            "skillgate_tasks_total{state=\"completed\"} 0",
            "skillgate_open_connections 1",
            "skillgate_push_deliveries_total{outcome=\"delivered\"} 1",
            // As docs/operations.md shows it.
            "# HELP skillgate_push_deliveries Push notification deliveries of one event to one webhook, by outcome (delivered, failed, rejected, refused, dropped; retried counts retries).\n# TYPE skillgate_push_deliveries counter",
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
        drop(conn);
        assert!(m.encode().unwrap().contains("skillgate_open_connections 0"));
    }
}

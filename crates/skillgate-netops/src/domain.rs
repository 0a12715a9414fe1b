//! The domain logic of the three skills, as plain async functions over a [`HostSource`].
//!
//! They know nothing about A2A: they take the (already schema-validated) arguments and return
//! the output and records as JSON. The runtime's handlers in [`crate::skills`] wrap them.

use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::error::NetopsError;
use crate::host::{self, HostError, HostSource, InterfaceCounters, OperState, Rates};
use skillgate_runtime::a2a::timestamp::rfc3339_utc;

/// Skill id of the Appendix B skill.
pub const EVALUATE_RESOURCE_CONDITION: &str = "evaluate_resource_condition";
/// Skill id of the counters collector.
pub const COLLECT_INTERFACE_COUNTERS: &str = "collect_interface_counters";
/// Skill id of the health assessment.
pub const ASSESS_INTERFACE_HEALTH: &str = "assess_interface_health";
/// Record kind of an observation behind an evaluation.
pub const RESOURCE_OBSERVATION: &str = "resource-observation";

/// Sampling window when the caller gives none, in milliseconds.
pub const DEFAULT_WINDOW_MS: u64 = 500;
/// Smallest sampling window the schemas allow, in milliseconds.
pub const MIN_WINDOW_MS: u64 = 100;
/// Largest sampling window the schemas allow (half the skills' `max_duration_ms`).
pub const MAX_WINDOW_MS: u64 = 5000;

/// Error ratio (errors / (packets + errors), either direction) above which an interface is degraded.
pub const ERROR_RATIO_THRESHOLD: f64 = 0.001;
/// Drop ratio (dropped / (packets + dropped), either direction) above which an interface is degraded.
pub const DROP_RATIO_THRESHOLD: f64 = 0.01;
/// Utilization (fraction of a known link speed) above which an interface is degraded.
pub const SATURATION_THRESHOLD: f64 = 0.95;

/// A metric of `evaluate_resource_condition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// max(rx, tx) bit rate as a percentage of link speed.
    Utilization,
    /// Received bytes per second over the window.
    RxBytesPerSecond,
    /// Transmitted bytes per second over the window.
    TxBytesPerSecond,
    /// The kernel's cumulative receive error counter.
    RxErrors,
    /// The kernel's cumulative receive drop counter.
    RxDropped,
}

impl Metric {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Utilization => "utilization",
            Metric::RxBytesPerSecond => "rx_bytes_per_second",
            Metric::TxBytesPerSecond => "tx_bytes_per_second",
            Metric::RxErrors => "rx_errors",
            Metric::RxDropped => "rx_dropped",
        }
    }

    /// The one unit this metric is measured in.
    pub fn unit(self) -> Unit {
        match self {
            Metric::Utilization => Unit::Percent,
            Metric::RxBytesPerSecond | Metric::TxBytesPerSecond => Unit::BytesPerSecond,
            Metric::RxErrors | Metric::RxDropped => Unit::Count,
        }
    }
}

/// A unit of `evaluate_resource_condition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Percent of link speed.
    Percent,
    /// Bytes per second.
    BytesPerSecond,
    /// A plain count.
    Count,
}

impl Unit {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Percent => "percent",
            Unit::BytesPerSecond => "bytes_per_second",
            Unit::Count => "count",
        }
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// `>`
    Gt,
    /// `>=`
    Gte,
    /// `<`
    Lt,
    /// `<=`
    Lte,
}

impl Operator {
    /// Applies the operator as `observed <op> threshold`.
    pub fn holds(self, observed: f64, threshold: f64) -> bool {
        match self {
            Operator::Gt => observed > threshold,
            Operator::Gte => observed >= threshold,
            Operator::Lt => observed < threshold,
            Operator::Lte => observed <= threshold,
        }
    }
}

/// The `condition` member of the input.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Condition {
    /// What to observe.
    pub metric: Metric,
    /// How to compare.
    pub operator: Operator,
    /// What to compare against.
    pub threshold: f64,
    /// Unit of the threshold; must be the metric's unit.
    pub unit: Unit,
}

/// Arguments of `evaluate_resource_condition`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluateArgs {
    /// Interface name.
    pub resource_id: String,
    /// The condition.
    pub condition: Condition,
    /// Sampling window for rate metrics.
    #[serde(default = "default_window")]
    pub window_ms: u64,
}

/// Arguments of `collect_interface_counters`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectArgs {
    /// Interface name.
    pub interface: String,
    /// Time between the two readings.
    #[serde(default = "default_window")]
    pub window_ms: u64,
}

fn default_window() -> u64 {
    DEFAULT_WINDOW_MS
}

/// A `resource-observation` record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observation {
    /// The record's id; also its artifactId, so the output's reference finds it.
    pub record_id: String,
    /// The interface.
    pub resource_id: String,
    /// What was observed.
    pub metric: Metric,
    /// The observed value.
    pub value: Value,
    /// Its unit.
    pub unit: Unit,
    /// When the (last) reading was taken, RFC 3339 UTC.
    pub observed_at: String,
    /// The sampling window; 0 for a cumulative counter read once.
    pub window_ms: u64,
}

/// The counters measurement (output of collect, input of assess).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measurement {
    /// Interface name.
    pub interface: String,
    /// Time of the second reading, RFC 3339 UTC.
    pub observed_at: String,
    /// Nominal window between the readings.
    pub window_ms: u64,
    /// Cumulative received bytes.
    pub rx_bytes: u64,
    /// Cumulative transmitted bytes.
    pub tx_bytes: u64,
    /// Cumulative received packets.
    pub rx_packets: u64,
    /// Cumulative transmitted packets.
    pub tx_packets: u64,
    /// Cumulative receive errors.
    pub rx_errors: u64,
    /// Cumulative transmit errors.
    pub tx_errors: u64,
    /// Cumulative receive drops.
    pub rx_dropped: u64,
    /// Cumulative transmit drops.
    pub tx_dropped: u64,
    /// Received bytes per second over the window.
    pub rx_bytes_per_second: f64,
    /// Transmitted bytes per second over the window.
    pub tx_bytes_per_second: f64,
    /// Operational state (kernel spelling).
    pub operstate: String,
    /// MTU in bytes.
    pub mtu: u64,
    /// Link speed in Mbit/s, if known.
    pub speed_mbps: Option<u64>,
}

/// Deserializes arguments without quoting them back: serde's messages can contain the value.
fn parse_args<T: for<'de> Deserialize<'de>>(
    skill: &'static str,
    args: &Value,
) -> Result<T, NetopsError> {
    T::deserialize(args).map_err(|_| NetopsError::InvalidArguments { skill })
}

/// Refuses a window outside the schema's range (defence for direct callers).
fn window(skill: &'static str, window_ms: u64) -> Result<Duration, NetopsError> {
    if (MIN_WINDOW_MS..=MAX_WINDOW_MS).contains(&window_ms) {
        Ok(Duration::from_millis(window_ms))
    } else {
        Err(NetopsError::InvalidArguments { skill })
    }
}

/// One reading of one interface, with both clocks: `Instant` for the rate, wall time for
/// `observed_at`.
struct Reading {
    counters: InterfaceCounters,
    at: Instant,
    wall: SystemTime,
}

/// Reads the counters of `interface`, or says which interfaces exist.
fn read_one(source: &dyn HostSource, interface: &str) -> Result<Reading, NetopsError> {
    let text = source.net_dev()?;
    let at = Instant::now();
    let wall = SystemTime::now();
    match host::find_net_dev(&text, interface).map_err(HostError::from)? {
        Some(counters) => Ok(Reading { counters, at, wall }),
        // Only a call that is refused pays for reading every line.
        None => Err(NetopsError::unknown_interface(
            interface,
            host::parse_net_dev(&text)
                .map_err(HostError::from)?
                .into_iter()
                .map(|c| c.interface)
                .collect(),
        )),
    }
}

/// Reads twice, `window` apart, and computes byte rates from the measured elapsed time.
async fn sample(
    source: &dyn HostSource,
    interface: &str,
    window: Duration,
) -> Result<(Reading, Rates), NetopsError> {
    let first = read_one(source, interface)?;
    tokio::time::sleep(window).await;
    let second = match read_one(source, interface) {
        Ok(r) => r,
        Err(NetopsError::UnknownInterface { .. }) => {
            return Err(NetopsError::Vanished(interface.to_owned()))
        }
        Err(e) => return Err(e),
    };
    let rates = host::rates(
        &first.counters,
        &second.counters,
        second.at.duration_since(first.at),
    )?;
    Ok((second, rates))
}

/// A JSON number from a finite float (rates and ratios are finite by construction).
fn number(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// `evaluate_resource_condition`: observes one metric of one interface and compares it with the
/// threshold. Returns the output (referencing `record_id`) and the `resource-observation` record.
pub async fn evaluate(
    args: &Value,
    source: &dyn HostSource,
    record_id: String,
) -> Result<(Value, Value), NetopsError> {
    let args: EvaluateArgs = parse_args(EVALUATE_RESOURCE_CONDITION, args)?;
    let c = &args.condition;
    if c.unit != c.metric.unit() {
        return Err(NetopsError::UnitMismatch {
            metric: c.metric.as_str(),
            unit: c.unit.as_str(),
            expected: c.metric.unit().as_str(),
        });
    }
    let interface = args.resource_id.as_str();
    let (observed, observed_at, window_ms) = match c.metric {
        Metric::RxErrors | Metric::RxDropped => {
            let r = read_one(source, interface)?;
            let v = if c.metric == Metric::RxErrors {
                r.counters.rx_errors
            } else {
                r.counters.rx_dropped
            };
            (Value::from(v), r.wall, 0)
        }
        Metric::RxBytesPerSecond | Metric::TxBytesPerSecond => {
            let w = window(EVALUATE_RESOURCE_CONDITION, args.window_ms)?;
            let (r, rates) = sample(source, interface, w).await?;
            let v = if c.metric == Metric::RxBytesPerSecond {
                rates.rx_bytes_per_second
            } else {
                rates.tx_bytes_per_second
            };
            (number(v), r.wall, args.window_ms)
        }
        Metric::Utilization => {
            let w = window(EVALUATE_RESOURCE_CONDITION, args.window_ms)?;
            // Check the interface exists before asking sysfs about it, and the speed before
            // spending the window.
            read_one(source, interface)?;
            let speed = host::read_link(source, interface)?
                .speed_mbps
                .ok_or_else(|| NetopsError::UnknownLinkSpeed {
                    interface: interface.to_owned(),
                })?;
            let (r, rates) = sample(source, interface, w).await?;
            (
                number(utilization_percent(&rates, speed)),
                r.wall,
                args.window_ms,
            )
        }
    };
    let met = c
        .operator
        .holds(observed.as_f64().unwrap_or(f64::NAN), c.threshold);
    let output = json!({
        "result": if met { "condition_met" } else { "condition_not_met" },
        "observed_value": observed,
        "unit": c.unit,
        "supporting_record_refs": [record_id],
    });
    let record = Observation {
        record_id,
        resource_id: args.resource_id.clone(),
        metric: c.metric,
        value: observed,
        unit: c.unit,
        observed_at: rfc3339_utc(observed_at),
        window_ms,
    };
    let record = serde_json::to_value(record).map_err(|e| NetopsError::Encode(e.to_string()))?;
    Ok((output, record))
}

/// max(rx, tx) bits per second as a percentage of the link speed.
pub fn utilization_percent(rates: &Rates, speed_mbps: u64) -> f64 {
    let bits = rates.rx_bytes_per_second.max(rates.tx_bytes_per_second) * 8.0;
    bits / (speed_mbps as f64 * 1_000_000.0) * 100.0
}

/// `collect_interface_counters`: one counters measurement of one interface.
pub async fn collect(args: &Value, source: &dyn HostSource) -> Result<Value, NetopsError> {
    let args: CollectArgs = parse_args(COLLECT_INTERFACE_COUNTERS, args)?;
    let m = collect_measurement(args, source).await?;
    serde_json::to_value(m).map_err(|e| NetopsError::Encode(e.to_string()))
}

/// [`collect`] on typed arguments, returning the typed measurement (the runtime's typed
/// handler serializes it).
pub async fn collect_measurement(
    args: CollectArgs,
    source: &dyn HostSource,
) -> Result<Measurement, NetopsError> {
    let w = window(COLLECT_INTERFACE_COUNTERS, args.window_ms)?;
    let (r, rates) = sample(source, &args.interface, w).await?;
    let link = host::read_link(source, &args.interface)?;
    let c = r.counters;
    let m = Measurement {
        interface: c.interface,
        observed_at: rfc3339_utc(r.wall),
        window_ms: args.window_ms,
        rx_bytes: c.rx_bytes,
        tx_bytes: c.tx_bytes,
        rx_packets: c.rx_packets,
        tx_packets: c.tx_packets,
        rx_errors: c.rx_errors,
        tx_errors: c.tx_errors,
        rx_dropped: c.rx_dropped,
        tx_dropped: c.tx_dropped,
        rx_bytes_per_second: rates.rx_bytes_per_second,
        tx_bytes_per_second: rates.tx_bytes_per_second,
        operstate: link.operstate.as_str().to_owned(),
        mtu: link.mtu,
        speed_mbps: link.speed_mbps,
    };
    Ok(m)
}

/// `part / (part + base)`, 0 when both are 0; in f64 so u64 sums cannot overflow.
fn ratio(part: u64, base: u64) -> f64 {
    let total = part as f64 + base as f64;
    if total == 0.0 {
        0.0
    } else {
        part as f64 / total
    }
}

/// `assess_interface_health`: judges a counters measurement. Pure: it reads nothing from the
/// host, so it assesses whatever measurement it is given (typically collect's output).
///
/// Rules, in order: operstate other than `up` or `unknown` → `down` (loopback and many virtual
/// devices report `unknown` while working); otherwise any error ratio above
/// [`ERROR_RATIO_THRESHOLD`], drop ratio above [`DROP_RATIO_THRESHOLD`], or (with a known link
/// speed) utilization above [`SATURATION_THRESHOLD`] → `degraded`, one reason each; else `healthy`.
pub fn assess(args: &Value, assessed_at: SystemTime) -> Result<Value, NetopsError> {
    let m: Measurement = parse_args(ASSESS_INTERFACE_HEALTH, args)?;
    Ok(assess_measurement(&m, assessed_at))
}

/// [`assess`] on a typed measurement; it cannot fail once the measurement has its type.
pub fn assess_measurement(m: &Measurement, assessed_at: SystemTime) -> Value {
    let state = OperState::parse(&m.operstate);
    let mut reasons = Vec::new();
    let health = if !matches!(state, OperState::Up | OperState::Unknown) {
        reasons.push(format!("operstate is {}", m.operstate));
        "down"
    } else {
        let checks = [
            (
                "rx error",
                ratio(m.rx_errors, m.rx_packets),
                ERROR_RATIO_THRESHOLD,
            ),
            (
                "tx error",
                ratio(m.tx_errors, m.tx_packets),
                ERROR_RATIO_THRESHOLD,
            ),
            (
                "rx drop",
                ratio(m.rx_dropped, m.rx_packets),
                DROP_RATIO_THRESHOLD,
            ),
            (
                "tx drop",
                ratio(m.tx_dropped, m.tx_packets),
                DROP_RATIO_THRESHOLD,
            ),
        ];
        for (what, r, limit) in checks {
            if r > limit {
                reasons.push(format!(
                    "{what} ratio {:.4}% is above {:.4}%",
                    r * 100.0,
                    limit * 100.0
                ));
            }
        }
        if let Some(speed) = m.speed_mbps.filter(|s| *s > 0) {
            let rates = Rates {
                rx_bytes_per_second: m.rx_bytes_per_second,
                tx_bytes_per_second: m.tx_bytes_per_second,
            };
            let u = utilization_percent(&rates, speed);
            if u > SATURATION_THRESHOLD * 100.0 {
                reasons.push(format!(
                    "utilization {u:.1}% of {speed} Mbit/s is above {:.0}%",
                    SATURATION_THRESHOLD * 100.0
                ));
            }
        }
        if reasons.is_empty() {
            reasons.push(format!(
                "operstate {}; error ratios at most {}%, drop ratios at most {}%",
                m.operstate,
                ERROR_RATIO_THRESHOLD * 100.0,
                DROP_RATIO_THRESHOLD * 100.0
            ));
            "healthy"
        } else {
            "degraded"
        }
    };
    json!({
        "interface": m.interface,
        "health": health,
        "reasons": reasons,
        "assessed_at": rfc3339_utc(assessed_at),
    })
}

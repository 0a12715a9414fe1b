//! The domain functions against the fixture tree, a fixture rewritten during the sampling
//! window, and the real host. Every output and record is checked against the published schemas.

use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};
use skillgate_core::document::ValidatedDocument;
use skillgate_core::ErrorCode;
use skillgate_netops::domain::{self, ERROR_RATIO_THRESHOLD};
use skillgate_netops::interfaces;
use skillgate_netops::{HostSource, NetopsError, SysfsHost};

fn fixture() -> SysfsHost {
    SysfsHost::with_root(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host-a"))
}

fn doc(skill: skillgate_runtime::SkillBuilder) -> ValidatedDocument {
    skill.document().unwrap()
}

fn args(interface: &str, metric: &str, operator: &str, threshold: f64, unit: &str) -> Value {
    json!({"resource_id": interface, "window_ms": 100,
           "condition": {"metric": metric, "operator": operator, "threshold": threshold, "unit": unit}})
}

/// Runs evaluate and checks output and record against the document, as the runtime would.
async fn evaluate_ok(source: &dyn HostSource, a: Value) -> (Value, Value) {
    let d = doc(interfaces::evaluate_resource_condition());
    d.input_validator().validate(&a).unwrap();
    let (out, rec) = domain::evaluate(&a, source, "observation-1".into())
        .await
        .unwrap();
    d.output_validator().validate(&out).unwrap();
    d.record_validator("resource-observation")
        .unwrap()
        .validate(&rec)
        .unwrap();
    assert_eq!(out["supporting_record_refs"], json!(["observation-1"]));
    assert_eq!(rec["record_id"], "observation-1");
    (out, rec)
}

#[tokio::test]
async fn counters_from_fixture_are_exact() {
    let host = fixture();
    let (out, rec) = evaluate_ok(&host, args("eth0", "rx_errors", "gt", 5.0, "count")).await;
    assert_eq!(out["result"], "condition_met");
    assert_eq!(out["observed_value"], 7);
    assert_eq!(rec["window_ms"], 0);
    assert_eq!(rec["metric"], "rx_errors");
    let (out, _) = evaluate_ok(&host, args("eth0", "rx_dropped", "lte", 11.0, "count")).await;
    assert_eq!(
        (out["result"].as_str(), out["observed_value"].as_u64()),
        (Some("condition_not_met"), Some(12))
    );
    let (out, _) = evaluate_ok(&host, args("eth0", "rx_dropped", "gte", 12.0, "count")).await;
    assert_eq!(out["result"], "condition_met");
    let (out, _) = evaluate_ok(&host, args("eth0", "rx_dropped", "lt", 12.0, "count")).await;
    assert_eq!(out["result"], "condition_not_met");
}

#[tokio::test]
async fn static_fixture_has_zero_rates_and_utilization() {
    let host = fixture();
    let (out, rec) = evaluate_ok(&host, args("eth0", "utilization", "gte", 80.0, "percent")).await;
    assert_eq!(out["result"], "condition_not_met");
    assert_eq!(out["observed_value"].as_f64(), Some(0.0));
    assert_eq!(rec["window_ms"], 100);
    let (out, _) = evaluate_ok(
        &host,
        args(
            "eth0",
            "tx_bytes_per_second",
            "lte",
            0.0,
            "bytes_per_second",
        ),
    )
    .await;
    assert_eq!(out["result"], "condition_met");
}

async fn rejected(source: &dyn HostSource, a: Value) -> NetopsError {
    let e = domain::evaluate(&a, source, "r".into()).await.unwrap_err();
    assert_eq!(e.code(), ErrorCode::ConstraintRejected, "{e}");
    e
}

#[tokio::test]
async fn unknown_link_speed_is_constraint_rejected() {
    let host = fixture();
    for interface in ["lo", "veth0", "wlan0"] {
        let e = rejected(&host, args(interface, "utilization", "gt", 1.0, "percent")).await;
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("link speed of {interface} is unknown")),
            "{msg}"
        );
    }
}

#[tokio::test]
async fn unknown_interface_lists_known_ones() {
    let host = fixture();
    let e = rejected(
        &host,
        args("network-resource-123", "rx_errors", "gt", 1.0, "count"),
    )
    .await;
    assert_eq!(
        e.to_string(),
        "no interface named network-resource-123 on this host; known: lo, eth0, veth0, wlan0, eth1"
    );
    // The name is checked against /proc/net/dev before any sysfs path is built from it.
    let e = rejected(
        &host,
        args("../../../etc", "utilization", "gt", 1.0, "percent"),
    )
    .await;
    assert!(matches!(e, NetopsError::UnknownInterface { .. }), "{e}");
    let long = "x".repeat(200);
    let e = rejected(&host, args(&long, "rx_errors", "gt", 1.0, "count")).await;
    assert!(
        e.to_string().len() < 200,
        "long names are shortened in the message"
    );
}

#[tokio::test]
async fn unit_mismatch_and_bad_arguments_are_refused_without_echo() {
    let host = fixture();
    let e = rejected(&host, args("eth0", "utilization", "gt", 1.0, "count")).await;
    assert_eq!(
        e.to_string(),
        "metric utilization is measured in percent, not count"
    );
    let secret = json!({"resource_id": "eth0", "condition": {"metric": "s3cr3t"}});
    let e = domain::evaluate(&secret, &host, "r".into())
        .await
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InputInvalid);
    assert!(!e.to_string().contains("s3cr3t"));
    let mut a = args("eth0", "rx_bytes_per_second", "gt", 1.0, "bytes_per_second");
    a["window_ms"] = json!(60_000);
    let e = domain::evaluate(&a, &host, "r".into()).await.unwrap_err();
    assert_eq!(
        e.code(),
        ErrorCode::InputInvalid,
        "an hour-long window must not be accepted"
    );
}

#[tokio::test]
async fn missing_proc_file_is_execution_failed() {
    let host = SysfsHost::with_root("/nonexistent-skillgate-root");
    let e = domain::evaluate(
        &args("lo", "rx_errors", "gt", 0.0, "count"),
        &host,
        "r".into(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::ExecutionFailed);
    assert!(
        e.to_string()
            .contains("/nonexistent-skillgate-root/proc/net/dev"),
        "{e}"
    );
}

/// A writable copy of the fixture tree, removed when the guard drops.
fn scratch_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host-a");
    copy_tree(&src, dir.path());
    dir
}

/// The real sysfs reader over a tree, announcing each `/proc/net/dev` read: a test rewrites the
/// counters once the first sample is taken, instead of sleeping and hoping it was.
#[derive(Debug)]
struct ObservedHost {
    inner: SysfsHost,
    reads: tokio::sync::watch::Sender<usize>,
}

impl ObservedHost {
    fn new(root: &Path) -> Self {
        Self {
            inner: SysfsHost::with_root(root),
            reads: tokio::sync::watch::channel(0).0,
        }
    }

    /// Resolves once `/proc/net/dev` has been read at least `n` times in total.
    async fn read_at_least(&self, n: usize) {
        let mut rx = self.reads.subscribe();
        rx.wait_for(|r| *r >= n).await.unwrap();
    }
}

impl HostSource for ObservedHost {
    fn net_dev(&self) -> Result<String, skillgate_netops::host::HostError> {
        let text = self.inner.net_dev();
        self.reads.send_modify(|r| *r += 1);
        text
    }

    fn link_attribute(
        &self,
        interface: &str,
        attribute: skillgate_netops::host::LinkAttribute,
    ) -> Result<Option<String>, skillgate_netops::host::HostError> {
        self.inner.link_attribute(interface, attribute)
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

const DEV_HEADER: &str = "Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
";

/// Rewrites eth1's counters in the copied tree once the skill has taken its first sample
/// (`/proc/net/dev` read `reads` times in total), so the change lands inside the window.
async fn rewrite_eth1(
    host: &ObservedHost,
    root: &Path,
    reads: usize,
    rx_bytes: u64,
    tx_bytes: u64,
) {
    host.read_at_least(reads).await;
    let text =
        format!("{DEV_HEADER}  eth1: {rx_bytes} 1000 50 0 0 0 0 0 {tx_bytes} 900 0 20 0 0 0 0\n");
    std::fs::write(root.join("proc/net/dev"), text).unwrap();
}

#[tokio::test]
async fn rates_and_utilization_follow_the_counters() {
    let scratch = scratch_copy();
    let root = scratch.path();
    let host = ObservedHost::new(root);
    // eth1 is a 100 Mbit/s link; +3,000,000 bytes rx over a ~400 ms window is ~60 Mbit/s.
    let mut a = args("eth1", "utilization", "gte", 50.0, "percent");
    a["window_ms"] = json!(400);
    let reads = *host.reads.borrow();
    let ((out, rec), ()) = tokio::join!(
        evaluate_ok(&host, a),
        rewrite_eth1(&host, root, reads + 1, 100_000 + 3_000_000, 90_000 + 1000)
    );
    let u = out["observed_value"].as_f64().unwrap();
    // 3e6 B * 8 / 0.4 s / 1e8 bit/s = 60 %; the measured elapsed time is at least the window.
    assert!(u > 40.0 && u <= 60.0 + 1e-9, "utilization {u}");
    assert_eq!(out["result"], "condition_met");
    assert_eq!(rec["unit"], "percent");

    // A counter that goes backwards is a failure, never a zero rate.
    let mut a = args("eth1", "rx_bytes_per_second", "gt", 0.0, "bytes_per_second");
    a["window_ms"] = json!(400);
    let reads = *host.reads.borrow();
    let (e, ()) = tokio::join!(
        domain::evaluate(&a, &host, "r".into()),
        rewrite_eth1(&host, root, reads + 1, 5, 5)
    );
    let e = e.unwrap_err();
    assert_eq!(e.code(), ErrorCode::ExecutionFailed);
    assert!(e.to_string().contains("rx_bytes went backwards"), "{e}");

    // The interface disappearing mid-window is a failure too.
    std::fs::write(
        root.join("proc/net/dev"),
        format!("{DEV_HEADER}  eth1: 1 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0\n"),
    )
    .unwrap();
    let reads = *host.reads.borrow();
    let vanish = async {
        host.read_at_least(reads + 1).await;
        std::fs::write(root.join("proc/net/dev"), DEV_HEADER).unwrap();
    };
    let gone = json!({"interface": "eth1", "window_ms": 200});
    let (e, ()) = tokio::join!(domain::collect(&gone, &host), vanish);
    let e = e.unwrap_err();
    assert!(matches!(e, NetopsError::Vanished(_)), "{e}");
}

#[tokio::test]
async fn collect_then_assess_on_fixture() {
    let host = fixture();
    let collect = doc(interfaces::collect_interface_counters());
    let assess = doc(interfaces::assess_interface_health());
    let mut seen = Vec::new();
    for interface in ["lo", "eth0", "veth0", "wlan0", "eth1"] {
        let m = domain::collect(&json!({"interface": interface, "window_ms": 100}), &host)
            .await
            .unwrap();
        collect.output_validator().validate(&m).unwrap();
        // Direct composition in practice: the output is a valid input, unchanged.
        assess.input_validator().validate(&m).unwrap();
        let h = domain::assess(&m, SystemTime::now()).unwrap();
        assess.output_validator().validate(&h).unwrap();
        seen.push((
            interface,
            h["health"].as_str().unwrap().to_owned(),
            h["reasons"].clone(),
        ));
    }
    let health: Vec<_> = seen.iter().map(|(i, h, _)| (*i, h.as_str())).collect();
    assert_eq!(
        health,
        [
            ("lo", "healthy"),
            ("eth0", "healthy"),
            ("veth0", "healthy"),
            ("wlan0", "down"),
            ("eth1", "degraded")
        ]
    );
    let eth1_reasons = &seen[4].2;
    assert_eq!(eth1_reasons.as_array().unwrap().len(), 2, "{eth1_reasons}");
    assert!(
        eth1_reasons[0]
            .as_str()
            .unwrap()
            .starts_with("rx error ratio 4.7619%"),
        "{eth1_reasons}"
    );
    assert!(
        eth1_reasons[1]
            .as_str()
            .unwrap()
            .starts_with("tx drop ratio"),
        "{eth1_reasons}"
    );
    assert_eq!(seen[3].2, json!(["operstate is down"]));

    let m = domain::collect(&json!({"interface": "eth0", "window_ms": 100}), &host)
        .await
        .unwrap();
    assert_eq!(m["rx_bytes"], 9_876_543_210u64);
    assert_eq!(m["speed_mbps"], 1000);
    assert_eq!(m["mtu"], 1500);
    let lo = domain::collect(&json!({"interface": "lo", "window_ms": 100}), &host)
        .await
        .unwrap();
    assert_eq!(lo["speed_mbps"], Value::Null);
    assert_eq!(lo["operstate"], "unknown");
}

fn measurement(operstate: &str) -> Value {
    json!({
        "interface": "x", "observed_at": "2026-12-02T13:40:00Z", "window_ms": 500,
        "rx_bytes": 0, "tx_bytes": 0, "rx_packets": 10000, "tx_packets": 10000,
        "rx_errors": 0, "tx_errors": 0, "rx_dropped": 0, "tx_dropped": 0,
        "rx_bytes_per_second": 0.0, "tx_bytes_per_second": 0.0,
        "operstate": operstate, "mtu": 1500, "speed_mbps": 10
    })
}

#[test]
fn health_rules_at_their_thresholds() {
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_786_449_601);
    let h = |m: &Value| domain::assess(m, at).unwrap();
    assert_eq!(h(&measurement("up"))["health"], "healthy");
    assert_eq!(
        h(&measurement("up"))["assessed_at"],
        "2026-08-11T12:00:01.000Z"
    );
    for s in ["down", "lowerlayerdown", "notpresent", "dormant", "testing"] {
        assert_eq!(h(&measurement(s))["health"], "down", "{s}");
    }
    assert_eq!(h(&measurement("unknown"))["health"], "healthy");
    // 10 errors in 10010 attempts is 0.0999 %: not above 0.1 %; 11 is.
    let mut m = measurement("up");
    m["tx_errors"] = json!(10);
    const { assert!(10.0 / 10010.0 <= ERROR_RATIO_THRESHOLD) };
    assert_eq!(h(&m)["health"], "healthy");
    m["tx_errors"] = json!(11);
    assert_eq!(h(&m)["health"], "degraded");
    // Saturation of a known 10 Mbit/s link: 1.2 MB/s is 96 %.
    let mut m = measurement("up");
    m["rx_bytes_per_second"] = json!(1_200_000.0);
    let r = h(&m);
    assert_eq!(r["health"], "degraded");
    assert!(
        r["reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("utilization 96.0% of 10 Mbit/s"),
        "{r}"
    );
    m["speed_mbps"] = Value::Null;
    assert_eq!(
        h(&m)["health"],
        "healthy",
        "no saturation judgement without a link speed"
    );
    // Errors with no packets at all still count.
    let mut m = measurement("up");
    m["rx_packets"] = json!(0);
    m["rx_errors"] = json!(3);
    assert_eq!(h(&m)["health"], "degraded");
    assert_eq!(
        domain::assess(&json!({"interface": "x"}), at)
            .unwrap_err()
            .code(),
        ErrorCode::InputInvalid
    );
}

/// Sends `bytes` over loopback TCP while the skill samples, so lo's counters must move.
async fn loopback_traffic(bytes: usize) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let reader = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).await.unwrap();
        buf.len()
    });
    // The listener is bound, so the connection queues until the reader accepts it.
    let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
    c.write_all(&vec![7u8; bytes]).await.unwrap();
    c.shutdown().await.unwrap();
    assert_eq!(reader.await.unwrap(), bytes);
}

#[tokio::test]
async fn real_host_loopback() {
    let host = SysfsHost::new();
    let a = args(
        "lo",
        "rx_bytes_per_second",
        "gt",
        100_000.0,
        "bytes_per_second",
    );
    let traffic = tokio::spawn(loopback_traffic(1_000_000));
    let mut a2 = a.clone();
    a2["window_ms"] = json!(500);
    let (out, rec) = evaluate_ok(&host, a2).await;
    traffic.await.unwrap();
    // 1 MB over a ~0.5 s window: well above 100 kB/s.
    assert_eq!(out["result"], "condition_met", "{out}");
    assert!(
        out["observed_value"].as_f64().unwrap() > 1_000_000.0,
        "{out}"
    );
    assert_eq!(rec["resource_id"], "lo");

    let e = domain::evaluate(
        &args("lo", "utilization", "gt", 1.0, "percent"),
        &host,
        "r".into(),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::ConstraintRejected);
    let e = domain::evaluate(
        &args("no-such-if0", "rx_errors", "gt", 1.0, "count"),
        &host,
        "r".into(),
    )
    .await
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("no interface named no-such-if0 on this host; known: "),
        "{msg}"
    );
    assert!(msg.contains("lo"), "{msg}");

    let m = domain::collect(&json!({"interface": "lo", "window_ms": 100}), &host)
        .await
        .unwrap();
    doc(interfaces::collect_interface_counters())
        .output_validator()
        .validate(&m)
        .unwrap();
    assert_eq!(m["speed_mbps"], Value::Null);
    assert!(m["rx_packets"].as_u64().unwrap() > 0);
    let h = domain::assess(&m, SystemTime::now()).unwrap();
    assert_eq!(h["health"], "healthy", "{h}");
}

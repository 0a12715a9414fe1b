//! The added latency of the MCP hop, measured (ignored by default; docs/benchmarks.md has the
//! figures and the command): one `evaluate_resource_condition` call (`rx_errors`, a counter read
//! once: no sampling window) to the netops agent on
//! 127.0.0.1, N times directly through `Client::call` and N times as an MCP `tools/call` from
//! the SDK's client through `SkillServer` over an in-memory pipe. Both paths run the same
//! eleven steps (the interface cached after the first call); the difference is the MCP
//! framing, the SDK's dispatch and this crate's mapping. Run in release:
//! `cargo test --release -p skillgate-mcp --test latency -- --ignored --nocapture`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::ServiceExt;
use serde_json::json;
use skillgate_client::{Client, ClientConfig, Mode};
use skillgate_mcp::SkillServer;

const N: usize = 400;
const SKILL: &str = "evaluate_resource_condition";
const WARMUP: usize = 20;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(what: &str, mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let (p50, p99) = (percentile(&samples, 0.50), percentile(&samples, 0.99));
    println!("{what}: n={} p50={p50:?} p99={p99:?}", samples.len());
    (p50, p99)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run in release with --ignored --nocapture"]
async fn mcp_hop_latency() {
    let agent = skillgate_netops::agent().build().unwrap();
    let agent = skillgate_testkit::server::TestServer::start(agent, Default::default()).await;
    let url = agent.base.as_str().to_owned();
    let args = json!({"resource_id": "lo",
        "condition": {"metric": "rx_errors", "operator": "gte", "threshold": 0, "unit": "count"}});

    let direct = Client::new(ClientConfig::default()).unwrap();
    let mut quiet = |_: skillgate_client::Step, _: &str| {};
    let mut samples = Vec::with_capacity(N);
    for i in 0..WARMUP + N {
        let t = Instant::now();
        direct
            .call(&url, SKILL, &args, Mode::Sync, &mut quiet)
            .await
            .unwrap();
        if i >= WARMUP {
            samples.push(t.elapsed());
        }
    }
    let (d50, d99) = report("direct Client::call", samples);

    let server = SkillServer::new(Client::new(ClientConfig::default()).unwrap(), url);
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let c = ().serve(client_io).await.unwrap();
    c.list_all_tools().await.unwrap();
    let map = match args {
        serde_json::Value::Object(m) => m,
        _ => unreachable!(),
    };
    let mut samples = Vec::with_capacity(N);
    for i in 0..WARMUP + N {
        let t = Instant::now();
        let r = c
            .call_tool(CallToolRequestParams::new(SKILL).with_arguments(map.clone()))
            .await
            .unwrap();
        assert_ne!(r.is_error, Some(true));
        if i >= WARMUP {
            samples.push(t.elapsed());
        }
    }
    let (m50, m99) = report("MCP tools/call via SkillServer", samples);
    println!(
        "added by the MCP hop: p50 {:?}, p99 {:?}",
        m50.saturating_sub(d50),
        m99.saturating_sub(d99)
    );
    c.cancel().await.unwrap();
}

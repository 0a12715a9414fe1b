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
    // The same call streamed (SendStreamingMessage): what `SkillServer` sends for a skill
    // that offers stream (D288), to tell the transport's share from the MCP hop's.
    let mut samples = Vec::with_capacity(N);
    for i in 0..WARMUP + N {
        let t = Instant::now();
        direct
            .call(&url, SKILL, &args, Mode::Stream, &mut quiet)
            .await
            .unwrap();
        if i >= WARMUP {
            samples.push(t.elapsed());
        }
    }
    report("direct Client::call, streamed", samples);

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

/// Times `N` `tools/call`s of `SKILL` (after `WARMUP`) through the MCP client `c`.
async fn time_tool_calls<H: rmcp::ClientHandler>(
    c: &rmcp::service::RunningService<rmcp::RoleClient, H>,
    args: &serde_json::Map<String, serde_json::Value>,
) -> Vec<Duration> {
    c.list_all_tools().await.unwrap();
    let mut samples = Vec::with_capacity(N);
    for i in 0..WARMUP + N {
        let t = Instant::now();
        let r = c
            .call_tool(CallToolRequestParams::new(SKILL).with_arguments(args.clone()))
            .await
            .unwrap();
        assert_ne!(r.is_error, Some(true), "{r:?}");
        if i >= WARMUP {
            samples.push(t.elapsed());
        }
    }
    samples
}

/// `serve --mcp-listen`'s path: the agent launched as `skillgate serve` launches it (HTTP
/// bindings plus the MCP app over the same service), then N direct validated A2A calls
/// (`Client::call` over HTTP), N `tools/call`s to the agent's own MCP endpoint over Streamable
/// HTTP on loopback (what a host pays), and N to its `AgentTools` over an in-memory pipe (the
/// method of the `skillgate mcp` figures: no transport). Run in release:
/// `cargo test --release -p skillgate-mcp --test latency in_process -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run in release with --ignored --nocapture"]
async fn in_process_mcp_latency() {
    let agent = skillgate_netops::agent().build().unwrap();
    let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mcp = skillgate_mcp::bind_loopback("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let mcp_url = format!("http://{}/mcp", mcp.local_addr().unwrap());
    let config = skillgate_runtime::ServerConfig::default();
    let body_limit = config.body_limit;
    let launch = skillgate_server::Launch::new(agent, http, config)
        .unwrap()
        .with_app(
            mcp,
            Box::new(move |swap, stop| {
                skillgate_mcp::agent_router(
                    skillgate_mcp::AgentTools::new(swap),
                    None,
                    body_limit,
                    stop,
                )
            }),
        );
    let url = launch.base_url().to_owned();
    let (swap_tx, swap_rx) = tokio::sync::oneshot::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(launch.serve(
        async move {
            let _ = stop_rx.await;
        },
        move |swap| {
            let _ = swap_tx.send(swap);
        },
    ));
    let swap = swap_rx.await.unwrap();
    let args = json!({"resource_id": "lo",
        "condition": {"metric": "rx_errors", "operator": "gte", "threshold": 0, "unit": "count"}});
    let map = match &args {
        serde_json::Value::Object(m) => m.clone(),
        _ => unreachable!(),
    };

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
    let (d50, d99) = report("direct Client::call (A2A over HTTP)", samples);

    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(mcp_url);
    let c = ().serve(transport).await.unwrap();
    let (h50, h99) = report(
        "tools/call to --mcp-listen (Streamable HTTP)",
        time_tool_calls(&c, &map).await,
    );
    c.cancel().await.unwrap();

    let tools = skillgate_mcp::AgentTools::new(swap);
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = tools.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let c = ().serve(client_io).await.unwrap();
    let (p50, p99) = report(
        "tools/call to AgentTools (in-memory pipe)",
        time_tool_calls(&c, &map).await,
    );
    c.cancel().await.unwrap();
    println!(
        "MCP over HTTP minus direct: p50 {:+.0} µs, p99 {:+.0} µs; MCP in memory minus direct: p50 {:+.0} µs, p99 {:+.0} µs",
        h50.as_secs_f64() * 1e6 - d50.as_secs_f64() * 1e6,
        h99.as_secs_f64() * 1e6 - d99.as_secs_f64() * 1e6,
        p50.as_secs_f64() * 1e6 - d50.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6 - d99.as_secs_f64() * 1e6,
    );
    let _ = stop_tx.send(());
    served.await.unwrap().unwrap();
}

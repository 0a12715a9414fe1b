//! `skillgate demo`: the netops example agent in-process on 127.0.0.1, driven by the validated
//! client: describe, a valid call, a deliberately invalid call, and a two-skill chain.

use clap::Args;
use serde_json::json;
use skillgate_client::{
    run_chain, ChainEvent, ChainFailure, Client, ClientConfig, ClientError, Mode, Plan, Step,
};
use skillgate_core::ErrorCode;

use super::client::{
    print_chain_event, print_chain_report, print_error_text, print_result_text, print_step,
};
use crate::exit;

/// Arguments of `demo` (none).
#[derive(Args, Debug)]
pub struct DemoArgs {}

fn heading(s: &str) {
    outln!();
    outln!("── {s}");
}

/// `skillgate demo`
pub fn run(_: DemoArgs) -> anyhow::Result<u8> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(demo())
}

async fn demo() -> anyhow::Result<u8> {
    let agent = skillgate_netops::agent()
        .build()
        .map_err(|e| anyhow::anyhow!("the netops agent refused to start: {e}"))?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(skillgate_server::serve(
        agent,
        listener,
        skillgate_runtime::ServerConfig::default(),
        async {
            let _ = stopped.await;
        },
    ));
    // The walk-through is read in a terminal: no line wider than 100 columns.
    crate::out::wrap_at(DEMO_WIDTH);
    outln!("netops agent listening on {base} (in-process, loopback only)");
    let outcome = scenes(&base).await;
    let _ = stop.send(());
    let _ = server.await;
    outcome
}

async fn scenes(base: &str) -> anyhow::Result<u8> {
    let client = Client::new(ClientConfig::default())?;
    let mut show = |step: Step, summary: &str| print_step("  ", step, summary);
    let mut ok = true;

    heading("1. describe evaluate_resource_condition (steps 1-6)");
    let resolved = match client
        .resolve(base, "evaluate_resource_condition", &mut show)
        .await
    {
        Ok(r) => r,
        Err(e) => return Ok(failed(&e)),
    };
    let doc = resolved.document.document();
    outln!(
        "  interface {} {}: input {} {}, output {} {}, records [{}]",
        doc.skill_id,
        doc.skill_version,
        doc.input_schema.schema_uri,
        doc.input_schema.version,
        doc.output_schema.schema_uri,
        doc.output_schema.version,
        doc.supporting_record_schemas
            .keys()
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );

    heading("2. call evaluate_resource_condition on lo: rx_bytes_per_second >= 0 (steps 7-11; describe comes from the cache)");
    let args = json!({
        "resource_id": "lo",
        "condition": {"metric": "rx_bytes_per_second", "operator": "gte", "threshold": 0, "unit": "bytes_per_second"},
        "window_ms": 200
    });
    match client
        .call(
            base,
            "evaluate_resource_condition",
            &args,
            Mode::Sync,
            &mut show,
        )
        .await
    {
        Ok(r) => print_result_text("  ", &r),
        Err(e) => {
            print_error_text("  ", &e);
            ok = false;
        }
    }

    heading(
        "3. a deliberately invalid call: threshold as a string (refused locally, nothing sent)",
    );
    let bad = json!({
        "resource_id": "lo",
        "condition": {"metric": "rx_bytes_per_second", "operator": "gte", "threshold": "zero", "unit": "bytes_per_second"}
    });
    match client
        .call(
            base,
            "evaluate_resource_condition",
            &bad,
            Mode::Sync,
            &mut show,
        )
        .await
    {
        Err(e) if e.code() == Some(ErrorCode::InputInvalid) => {
            print_error_text("  ", &e);
            outln!("  (as expected: the client stopped at step 7; no task was created)");
        }
        Err(e) => {
            print_error_text("  ", &e);
            ok = false;
        }
        Ok(r) => {
            outln!("  unexpected success: task {}", r.task_id);
            ok = false;
        }
    }

    heading("4. chain collect_interface_counters -> assess_interface_health on lo");
    let plan = Plan::from_value(json!({"steps": [
        {"name": "collect", "agent": base, "skill": "collect_interface_counters",
         "arguments": {"interface": "lo", "window_ms": 200}},
        {"name": "assess", "agent": base, "skill": "assess_interface_health", "from": "collect"}
    ]}))
    .map_err(anyhow::Error::msg)?;
    let mut obs = |e: ChainEvent<'_>| print_chain_event("  ", e);
    match run_chain(&client, &plan, Mode::Sync, &mut obs).await {
        Ok(report) => print_chain_report(&report, true),
        Err((failure, report)) => {
            print_chain_report(&report, true);
            match &failure {
                ChainFailure::Step { error, .. } => print_error_text("  ", error),
                other => outln!("  ✗ {other}"),
            }
            ok = false;
        }
    }

    outln!();
    if ok {
        outln!("demo complete: every check passed where it should and refused where it should");
        Ok(exit::OK)
    } else {
        outln!("demo failed: see the ✗ lines above");
        Ok(exit::INVALID)
    }
}

fn failed(e: &ClientError) -> u8 {
    print_error_text("  ", e);
    exit::client(e.outcome())
}

/// The demo's widest line, in characters.
const DEMO_WIDTH: usize = 100;

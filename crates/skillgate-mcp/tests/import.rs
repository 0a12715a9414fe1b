//! MCP tools as governed skills, the client side: a session with a real MCP server (the
//! testkit's rmcp server on 127.0.0.1, real processes for the stdio failures), each tool's
//! Skill Interface Document, drift, and how a tool result reads as an output.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use skillgate_core::digest::digest;
use skillgate_core::document::FindingKind;
use skillgate_core::wire::AuthorityMode;
use skillgate_mcp::{
    check_tool, document_for, fallback_output_schema, outcome, Bounds, CallToolResult, ImportError,
    ImportOptions, McpEndpoint, McpUpstream, Tool, ToolOutcome, UpstreamError,
};
use skillgate_testkit::mcp_tools::{lookup_input_schema, lookup_output_schema, McpToolServer};

fn tool(name: &str, input: Value) -> Tool {
    let Value::Object(m) = input else {
        panic!("object")
    };
    Tool::new(name.to_owned(), "t", Arc::new(m))
}

fn kinds(e: &ImportError) -> Vec<FindingKind> {
    let ImportError::Invalid { findings, .. } = e;
    findings.iter().map(|f| f.kind).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_of_a_real_server_becomes_a_valid_document() {
    let server = McpToolServer::start().await;
    let up = McpUpstream::connect(&McpEndpoint::Url(server.url()), Bounds::default())
        .await
        .unwrap();
    let tools = up.tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["lookup", "echo", "fails", "slow"]);

    let lookup = document_for(&tools[0], &ImportOptions::default()).unwrap();
    let d = lookup.document();
    assert_eq!(lookup.skill_id(), "lookup");
    assert_eq!(lookup.skill_version(), "1.0");
    assert_eq!(d.input_schema.resolution.schema, lookup_input_schema(false));
    assert_eq!(d.input_schema.digest, digest(&lookup_input_schema(false)));
    assert_eq!(d.output_schema.resolution.schema, lookup_output_schema());
    assert_eq!(d.output_schema.digest, digest(&lookup_output_schema()));
    assert_eq!(d.input_schema.schema_uri, "urn:skillgate:mcp:lookup:input");
    // Hinted read-only: observe_only; every MCP request can be cancelled.
    assert_eq!(d.authority.default_mode, AuthorityMode::ObserveOnly);
    assert!(d.interaction.cancelable);
    assert!(check_tool(&tools[0], &lookup).is_ok());

    // No outputSchema: the documented fallback; no read-only hint: execute.
    let echo = document_for(&tools[1], &ImportOptions::default()).unwrap();
    assert_eq!(
        echo.document().output_schema.resolution.schema,
        fallback_output_schema()
    );
    assert_eq!(
        echo.document().authority.default_mode,
        AuthorityMode::Execute
    );

    // Overrides.
    let opts = ImportOptions {
        skill_id: Some("net.lookup".into()),
        skill_version: Some("2.3".into()),
        schema_version: Some("1.1".into()),
        authority: Some(AuthorityMode::Execute),
    };
    let renamed = document_for(&tools[0], &opts).unwrap();
    assert_eq!(
        renamed.document().authority.default_mode,
        AuthorityMode::Execute
    );
    assert_eq!(renamed.skill_id(), "net.lookup");
    assert_eq!(renamed.skill_version(), "2.3");
    assert_eq!(renamed.document().output_schema.version, "1.1");
    assert_ne!(renamed.interface_digest(), lookup.interface_digest());

    // Drift: the listed tool no longer matches the document made before.
    server.drift();
    let now = up.tools().await.unwrap();
    let drift = check_tool(&now[0], &lookup).unwrap_err();
    assert_eq!(drift.role, "input");
    assert_eq!(drift.pinned, digest(&lookup_input_schema(false)));
    assert_eq!(drift.now, digest(&lookup_input_schema(true)));
}

#[test]
fn a_bad_tool_schema_has_no_document() {
    let remote = tool(
        "remote",
        json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
    );
    let e = document_for(&remote, &ImportOptions::default()).unwrap_err();
    assert!(kinds(&e).contains(&FindingKind::ExternalReference), "{e}");
    assert!(e.to_string().starts_with("tool remote: "), "{e}");

    let old = tool(
        "old",
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
    );
    let e = document_for(&old, &ImportOptions::default()).unwrap_err();
    assert!(kinds(&e).contains(&FindingKind::WrongDialect), "{e}");

    let broken = tool(
        "broken",
        json!({"type": "object", "properties": {"a": {"type": 5}}}),
    );
    let e = document_for(&broken, &ImportOptions::default()).unwrap_err();
    assert!(kinds(&e).contains(&FindingKind::NotJsonSchema), "{e}");

    let e = document_for(
        &tool("fine", json!({"type": "object"})),
        &ImportOptions {
            skill_version: Some("v1".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(kinds(&e).contains(&FindingKind::VersionSyntax), "{e}");
}

#[test]
fn results_read_as_outputs() {
    let ok = CallToolResult::structured(json!({"rtt_ms": 1.0}));
    assert_eq!(
        outcome(ok.clone(), true),
        ToolOutcome::Output(json!({"rtt_ms": 1.0}))
    );
    let text = CallToolResult::success(vec![rmcp::model::ContentBlock::text("hi")]);
    assert!(matches!(
        outcome(text.clone(), true),
        ToolOutcome::Unusable(_)
    ));
    let ToolOutcome::Output(v) = outcome(text, false) else {
        panic!("fallback output")
    };
    assert_eq!(v, json!({"content": [{"type": "text", "text": "hi"}]}));
    let failed = CallToolResult::error(vec![rmcp::model::ContentBlock::text("down")]);
    assert_eq!(outcome(failed, true), ToolOutcome::Failed("down".into()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_does_not_start_is_a_clear_error() {
    let quick = Bounds {
        start: Duration::from_millis(500),
        ..Bounds::default()
    };
    let missing = McpEndpoint::command_line("/nonexistent/mcp-server --x").unwrap();
    let e = McpUpstream::connect(&missing, quick).await.unwrap_err();
    assert!(matches!(e, UpstreamError::Spawn { .. }), "{e}");

    let exits = McpEndpoint::command_line("true").unwrap();
    let e = McpUpstream::connect(&exits, quick).await.unwrap_err();
    assert!(matches!(e, UpstreamError::Handshake { .. }), "{e}");

    let silent = McpEndpoint::command_line("sleep 5").unwrap();
    let e = McpUpstream::connect(&silent, quick).await.unwrap_err();
    assert!(matches!(e, UpstreamError::StartTimeout { .. }), "{e}");

    assert!(matches!(
        McpEndpoint::command_line("  "),
        Err(UpstreamError::EmptyCommand)
    ));
    let e = McpUpstream::connect(&McpEndpoint::Url("ftp://x/mcp".into()), quick)
        .await
        .unwrap_err();
    assert!(matches!(e, UpstreamError::NotHttp(_)), "{e}");

    // An A2A agent is an HTTP server, not an MCP endpoint.
    let agent = skillgate_testkit::fake::FakeAgent::start();
    let e = McpUpstream::connect(&McpEndpoint::Url(format!("{}/mcp", agent.base)), quick)
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            UpstreamError::Handshake { .. } | UpstreamError::StartTimeout { .. }
        ),
        "{e}"
    );
}

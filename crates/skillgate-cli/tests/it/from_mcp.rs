//! `skillgate interface from-mcp` as a real process against real MCP servers: `skillgate mcp`
//! started by it over stdio (in front of a real `skillgate serve`), and the testkit's rmcp
//! server over Streamable HTTP; and `skillgate gateway` serving what it wrote.

use std::process::Stdio;

use serde_json::Value;
use skillgate_testkit::cli::{code, stderr, stdout, stdout_json, stop};
use skillgate_testkit::mcp_tools::McpToolServer;

use super::skillgate;

fn read(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn from_mcp_over_stdio_keeps_the_schema_digests_of_the_governed_skills() {
    let (server, url) = skillgate().spawn_server(
        &["serve", "--listen", "127.0.0.1:0", "--store", "memory"],
        Stdio::null(),
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let command = format!("{} mcp {url}", env!("CARGO_BIN_EXE_skillgate"));
    let o = skillgate().run(&[
        "interface",
        "from-mcp",
        "--command",
        &command,
        "--out",
        out,
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let summary = stdout_json(&o);
    let docs = summary["documents"].as_array().unwrap();
    assert!(!docs.is_empty(), "{summary}");
    for d in docs {
        let id = d["skill_id"].as_str().unwrap();
        // The A2A skill's own document, through describe: the same embedded schemas.
        let described = skillgate().run(&["describe", &url, id, "--format", "json"]);
        assert_eq!(code(&described), 0, "{}", stderr(&described));
        let original = &stdout_json(&described)["document"];
        let written = read(&dir.path().join(format!("{id}.json")));
        for role in ["input_schema", "output_schema"] {
            assert_eq!(
                written[role]["digest"], original[role]["digest"],
                "{id} {role}"
            );
            assert_eq!(
                written[role]["resolution"]["schema"], original[role]["resolution"]["schema"],
                "{id} {role}"
            );
        }
        assert_eq!(d["output_fallback"], false);
        // The written document is valid on its own.
        let check = skillgate().run(&[
            "interface",
            "check",
            dir.path().join(format!("{id}.json")).to_str().unwrap(),
        ]);
        assert_eq!(code(&check), 0, "{}", stdout(&check));
    }
    // A second run does not overwrite without --force.
    let again = skillgate().run(&["interface", "from-mcp", "--command", &command, "--out", out]);
    assert_eq!(code(&again), 1, "{}", stderr(&again));
    assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
    stop(server);
}

#[test]
fn from_mcp_over_http_selects_renames_and_uses_the_fallback() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(McpToolServer::start());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = skillgate().run(&[
        "interface",
        "from-mcp",
        &server.url(),
        "--out",
        out,
        "--tool",
        "lookup",
        "--tool",
        "echo",
        "--skill-id",
        "lookup=net.lookup",
        "--skill-version",
        "2.1",
        "--skill-version",
        "echo=1.4",
        "--authority",
        "echo=recommend_only",
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("lookup -> "), "{text}");
    assert!(text.contains("no outputSchema: content fallback"), "{text}");
    assert!(
        text.contains("2 document(s) written, 0 tool(s) without one"),
        "{text}"
    );
    let lookup = read(&dir.path().join("net.lookup.json"));
    assert_eq!(lookup["skill_version"], "2.1");
    let echo = read(&dir.path().join("echo.json"));
    assert_eq!(echo["skill_version"], "1.4");
    assert_eq!(echo["authority"]["default_mode"], "recommend_only");
    assert_eq!(lookup["authority"]["default_mode"], "observe_only");
    assert_eq!(
        echo["output_schema"]["resolution"]["schema"],
        skillgate_mcp::fallback_output_schema()
    );
    assert!(!dir.path().join("fails.json").exists());
    // No tool was called to make the documents.
    assert_eq!(server.calls("lookup") + server.calls("echo"), 0);

    let unknown = skillgate().run(&[
        "interface",
        "from-mcp",
        &server.url(),
        "--out",
        out,
        "--tool",
        "nope",
    ]);
    assert_eq!(code(&unknown), 2);
    assert!(
        stderr(&unknown).contains("lists no tool `nope`"),
        "{}",
        stderr(&unknown)
    );
    drop(server);
}

#[test]
fn from_mcp_says_why_a_server_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = skillgate().run(&[
        "interface",
        "from-mcp",
        "--command",
        "/nonexistent/server",
        "--out",
        out,
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("cannot start the MCP server"),
        "{}",
        stderr(&o)
    );
    let o = skillgate().run(&[
        "interface",
        "from-mcp",
        "--command",
        "/nonexistent/server",
        "--out",
        out,
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(stdout_json(&o)["code"], "transport_error", "{}", stdout(&o));
    let o = skillgate().run(&[
        "interface",
        "from-mcp",
        "--command",
        "true",
        "--out",
        out,
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(stdout_json(&o)["code"], "protocol_error", "{}", stdout(&o));
    let o = skillgate().run(&[
        "interface",
        "from-mcp",
        "--command",
        "sleep 10",
        "--out",
        out,
        "--start-timeout",
        "0.5",
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("did not complete initialize within 500 ms"),
        "{}",
        stderr(&o)
    );
    let o = skillgate().run(&["interface", "from-mcp", "--out", out]);
    assert_eq!(code(&o), 2, "neither a URL nor --command");
}

/// The documents `from-mcp` wrote, behind `skillgate gateway` with an `[mcp]` url and no
/// `--upstream`: the tool's output through our client; a config with neither upstream, and
/// one with both, stop start-up with the reason.
#[test]
fn gateway_serves_the_imported_tools_with_an_mcp_table_and_no_upstream_flag() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(McpToolServer::start());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = skillgate().run(&[
        "interface",
        "from-mcp",
        &server.url(),
        "--out",
        out,
        "--tool",
        "lookup",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let config = dir.path().join("gateway.toml");
    let table = "[[skills]]\ninterface = \"lookup.json\"\ntool = \"lookup\"\n";
    std::fs::write(
        &config,
        format!("[mcp]\nurl = \"{}\"\n\n{table}", server.url()),
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let (gw, url) = skillgate().spawn_server(
        &[
            "gateway",
            "--config",
            config,
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
        ],
        Stdio::null(),
    );
    let o = skillgate().run(&[
        "call",
        &url,
        "lookup",
        "--args",
        r#"{"host": "ab"}"#,
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout_json(&o)["output"],
        serde_json::json!({"rtt_ms": 3.0})
    );
    assert_eq!(server.calls("lookup"), 1);
    stop(gw);

    let both = skillgate().run(&[
        "gateway",
        "--config",
        config,
        "--upstream",
        "http://127.0.0.1:9",
        "--listen",
        "127.0.0.1:0",
    ]);
    assert_eq!(code(&both), 2);
    assert!(
        stderr(&both).contains("a gateway fronts one upstream"),
        "{}",
        stderr(&both)
    );
    let plain = dir.path().join("plain.toml");
    std::fs::write(&plain, "[[skills]]\ninterface = \"lookup.json\"\n").unwrap();
    let neither = skillgate().run(&[
        "gateway",
        "--config",
        plain.to_str().unwrap(),
        "--listen",
        "127.0.0.1:0",
    ]);
    assert_eq!(code(&neither), 2);
    assert!(
        stderr(&neither).contains("no upstream: give --upstream URL"),
        "{}",
        stderr(&neither)
    );
}

/// A gateway whose `[mcp]` command is `skillgate mcp` in front of `skillgate serve`: the
/// netops skills, imported by `from-mcp` from the same command, are A2A skills again behind
/// the gateway (stdio upstream, started in the config's directory).
#[test]
fn gateway_over_a_stdio_mcp_upstream_serves_the_netops_skills_again() {
    let (agent, agent_url) = skillgate().spawn_server(
        &["serve", "--listen", "127.0.0.1:0", "--store", "memory"],
        Stdio::null(),
    );
    let dir = tempfile::tempdir().unwrap();
    let bin = env!("CARGO_BIN_EXE_skillgate");
    let skill = "collect_interface_counters";
    let o = skillgate().run(&[
        "interface",
        "from-mcp",
        "--command",
        &format!("{bin} mcp {agent_url}"),
        "--out",
        dir.path().to_str().unwrap(),
        "--tool",
        skill,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let config = dir.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[mcp]\ncommand = [{bin:?}, \"mcp\", {agent_url:?}]\n\n[[skills]]\ninterface = \"{skill}.json\"\ntool = \"{skill}\"\n"
        ),
    )
    .unwrap();
    let (gw, url) = skillgate().spawn_server(
        &[
            "gateway",
            "--config",
            config.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
        ],
        Stdio::null(),
    );
    let o = skillgate().run(&[
        "call",
        &url,
        skill,
        "--args",
        r#"{"interface":"lo","window_ms":100}"#,
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout_json(&o)["output"]["interface"], "lo");
    let bad = skillgate().run(&[
        "call",
        &url,
        skill,
        "--args",
        r#"{"interface":5}"#,
        "--format",
        "json",
    ]);
    assert_eq!(code(&bad), 1, "{}", stdout(&bad));
    assert!(stdout(&bad).contains("input_invalid"), "{}", stdout(&bad));
    stop(gw);
    stop(agent);
}

#[test]
fn gateway_sends_an_mcp_url_its_token_and_headers_and_never_shows_them() {
    const TOKEN: &str = "tools-token-0123456789abcdef";
    let rt = tokio::runtime::Runtime::new().unwrap();
    let open = rt.block_on(McpToolServer::start());
    let guarded = rt.block_on(McpToolServer::start_with_credentials(
        TOKEN, "x-tenant", "acme",
    ));
    let dir = tempfile::tempdir().unwrap();
    // The documents come from the same tools served without credentials.
    let o = skillgate().run(&[
        "interface",
        "from-mcp",
        &open.url(),
        "--out",
        dir.path().to_str().unwrap(),
        "--tool",
        "lookup",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let write = |name: &str, extra: &str| {
        let config = dir.path().join(name);
        std::fs::write(
            &config,
            format!(
                "[mcp]\nurl = \"{}\"\n{extra}\n[[skills]]\ninterface = \"lookup.json\"\ntool = \"lookup\"\n",
                guarded.url()
            ),
        )
        .unwrap();
        config.to_str().unwrap().to_owned()
    };
    let gateway = |config: &str| {
        vec![
            "gateway".to_owned(),
            "--config".to_owned(),
            config.to_owned(),
            "--listen".to_owned(),
            "127.0.0.1:0".to_owned(),
            "--store".to_owned(),
            "memory".to_owned(),
        ]
    };
    let with_creds = write(
        "with-credentials.toml",
        "token_env = \"TOOLS_TOKEN\"\nheaders = [\"X-Tenant: acme\"]\n",
    );
    let args = gateway(&with_creds);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();

    // The variable it names is not set: refused before anything is sent, naming it.
    let o = skillgate()
        .env_remove("TOOLS_TOKEN")
        .env_remove("SKILLGATE_UPSTREAM_TOKEN")
        .run(&args);
    assert_ne!(code(&o), 0);
    assert!(
        stderr(&o).contains("TOOLS_TOKEN is not set"),
        "{}",
        stderr(&o)
    );
    assert_eq!(guarded.refused(), 0);

    // A wrong token: the server answers 401, start-up stops, the value is never printed.
    let wrong = "wrong-token-value-987654321";
    let o = skillgate()
        .env("TOOLS_TOKEN", wrong)
        .env_remove("SKILLGATE_UPSTREAM_TOKEN")
        .run(&args);
    assert_ne!(code(&o), 0);
    assert!(!stderr(&o).contains(wrong) && !stdout(&o).contains(wrong));
    assert!(guarded.refused() > 0);

    // No token at all (no token_env, no SKILLGATE_UPSTREAM_TOKEN): 401 too.
    let bare = write("bare.toml", "headers = [\"X-Tenant: acme\"]\n");
    let bare_args = gateway(&bare);
    let bare_args: Vec<&str> = bare_args.iter().map(String::as_str).collect();
    let refused_before = guarded.refused();
    let o = skillgate()
        .env_remove("SKILLGATE_UPSTREAM_TOKEN")
        .run(&bare_args);
    assert_ne!(code(&o), 0, "{}", stderr(&o));
    assert!(guarded.refused() > refused_before);

    // The right token, from the A2A upstream's variable when token_env names none.
    let log = dir.path().join("gateway.stderr");
    let (gw, url) = skillgate()
        .env("SKILLGATE_UPSTREAM_TOKEN", TOKEN)
        .spawn_server(
            &bare_args,
            Stdio::from(std::fs::File::create(&log).unwrap()),
        );
    let o = skillgate().run(&[
        "call",
        &url,
        "lookup",
        "--args",
        r#"{"host": "ab"}"#,
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(guarded.calls("lookup"), 1);
    stop(gw);
    // And from token_env.
    let (gw, url) = skillgate()
        .env("TOOLS_TOKEN", TOKEN)
        .env_remove("SKILLGATE_UPSTREAM_TOKEN")
        .spawn_server(&args, Stdio::null());
    let o = skillgate().run(&["call", &url, "lookup", "--args", r#"{"host": "ab"}"#]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(guarded.calls("lookup"), 2);
    stop(gw);
    let logs = std::fs::read_to_string(&log).unwrap();
    assert!(!logs.contains(TOKEN), "the token is never logged");
}

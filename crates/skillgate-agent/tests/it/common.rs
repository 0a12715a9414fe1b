//! Fixtures: a scratch agent directory with documents assembled by core's builder, and
//! calls through the real server.

use serde_json::{json, Value};
use skillgate_core::document::InterfaceBuilder;
use skillgate_core::wire::{Constraints, Interaction, ResponseMode};
use skillgate_runtime::ServerConfig;
use skillgate_testkit::server::TestServer;
use std::path::{Path, PathBuf};

/// The test skills' input: a mode that picks the script's behaviour, and a number.
pub fn input_schema() -> Value {
    json!({"type": "object", "additionalProperties": false, "required": ["mode"],
        "properties": {"mode": {"type": "string"}, "n": {"type": "integer"}}})
}

/// Writes the document of `id` into `dir/interfaces/ID.json` and returns its relative path.
pub fn write_document(
    dir: &Path,
    id: &str,
    cancelable: bool,
    max_duration_ms: Option<u64>,
) -> String {
    let doc = InterfaceBuilder::new(id, "1.0")
        .input("urn:test:agent:input", "1.0", input_schema())
        .output(
            "urn:test:agent:output",
            "1.0",
            json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}),
        )
        .record(
            "note",
            "urn:test:agent:note",
            "1.0",
            json!({"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}),
        )
        .interaction(Interaction {
            response_modes: vec![ResponseMode::Sync, ResponseMode::Stream, ResponseMode::Poll],
            cancelable,
        })
        .constraints(Constraints {
            max_duration_ms,
            ..Default::default()
        })
        .build()
        .unwrap();
    let rel = format!("interfaces/{id}.json");
    std::fs::create_dir_all(dir.join("interfaces")).unwrap();
    std::fs::write(
        dir.join(&rel),
        serde_json::to_vec_pretty(doc.value()).unwrap(),
    )
    .unwrap();
    rel
}

/// `agent.toml` with `[agent]` and the given `[[skills]]` tables (TOML text).
pub fn write_config(dir: &Path, skills: &str) -> PathBuf {
    let text = format!(
        "[agent]\nname = \"test agent\"\ndescription = \"declarative test agent\"\nversion = \"0.0.1\"\n\n{skills}"
    );
    let path = dir.join("agent.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Loads the config and serves it.
pub async fn serve(config: &Path) -> TestServer {
    let declared = skillgate_agent::load(config).unwrap();
    TestServer::start(declared.agent, ServerConfig::default()).await
}

pub use skillgate_testkit::requests::skill_request as request;

/// SendMessage params for a request; `immediately` returns the task before it finishes.
pub fn message(data: Value, immediately: bool) -> Value {
    let mut p = skillgate_testkit::requests::send_params(data);
    if immediately {
        p["configuration"] = json!({"returnImmediately": true});
    }
    p
}

/// A blocking call; returns the terminal task.
pub async fn call(s: &TestServer, skill: &str, arguments: Value) -> Value {
    let card = s.card().await;
    let r = s
        .rpc(
            "SendMessage",
            message(request(&card, skill, arguments), false),
        )
        .await;
    let task = r["result"]["task"].clone();
    assert!(task.is_object(), "no task: {r}");
    task
}

/// The task's state name.
pub fn state(task: &Value) -> &str {
    task["status"]["state"].as_str().unwrap_or("?")
}

/// The error object of a refused or failed task.
pub fn error(task: &Value) -> &Value {
    &task["status"]["message"]["parts"][0]["data"]
}

/// The single Data Part of the artifact named `name`.
pub fn artifact<'a>(task: &'a Value, name: &str) -> Option<&'a Value> {
    task["artifacts"]
        .as_array()?
        .iter()
        .find(|a| a["name"] == name)
        .map(|a| &a["parts"][0]["data"])
}

/// Whether a process is running (a zombie counts as gone: it can do nothing).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .chars()
                .next();
            state.is_some_and(|c| c != 'Z' && c != 'X')
        }
        Err(_) => false,
    }
}

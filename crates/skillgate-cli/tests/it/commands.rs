//! The commands a user of a2acli, curl and jq expects (`skills`, `task`, `send`,
//! `completions`, `man`, `--version`, examples in every `--help`), run as the built binary
//! against the real netops agent on 127.0.0.1, on both bindings.

use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use skillgate_testkit::cli::{code, stderr, stdout, stdout_json};
use skillgate_testkit::poll::eventually_sync;
use skillgate_testkit::server::TestServer;

use super::skillgate;

fn run(args: &[&str]) -> Output {
    let cache = tempfile::tempdir().unwrap();
    skillgate()
        .env_remove("SKILLGATE_TOKEN")
        .env("XDG_CACHE_HOME", cache.path())
        .run(args)
}

fn netops() -> TestServer {
    TestServer::on_thread(
        || skillgate_netops::agent().build().unwrap(),
        skillgate_runtime::ServerConfig::default(),
    )
}

const BINDINGS: [&str; 2] = ["jsonrpc", "http-json"];

fn completed_call(base: &str) -> String {
    let o = run(&[
        "call",
        base,
        "collect_interface_counters",
        "--args",
        r#"{"interface":"lo","window_ms":100}"#,
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    stdout_json(&o)["task_id"].as_str().unwrap().to_owned()
}

#[test]
fn skills_lists_id_version_digest_modes_and_tags() {
    let agent = netops();
    let o = run(&["skills", &agent.base]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    let header = text.lines().next().unwrap();
    for col in ["ID", "VERSION", "DIGEST", "MODES", "TAGS"] {
        assert!(header.contains(col), "{text}");
    }
    let row = text
        .lines()
        .find(|l| l.starts_with("collect_interface_counters "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.contains(" 1.0 ") && row.contains("sha256:"), "{row}");
    assert!(
        row.contains("application/json -> application/json"),
        "{row}"
    );
    assert!(row.contains("counters"), "{row}");

    for binding in BINDINGS {
        let o = run(&[
            "skills",
            &agent.base,
            "--format",
            "json",
            "--binding",
            binding,
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let v = stdout_json(&o);
        assert_eq!(v["ok"], true);
        let skills = v["skills"].as_array().unwrap();
        let s = skills
            .iter()
            .find(|s| s["id"] == "assess_interface_health")
            .unwrap();
        assert_eq!(s["version"], "1.0");
        assert!(s["interface_digest"]
            .as_str()
            .unwrap()
            .starts_with("sha256:"));
        assert!(
            s["tags"].as_array().unwrap().contains(&"health".into()),
            "{s}"
        );
        // describe_skill is in the card but has no advertised interface of its own.
        let d = skills.iter().find(|s| s["id"] == "describe_skill").unwrap();
        assert_eq!(d["interface_digest"], Value::Null);
    }

    let o = run(&["skills", "http://127.0.0.1:1", "--format", "json"]);
    assert_eq!(code(&o), 2);
    assert_eq!(stdout_json(&o)["ok"], false);
}

#[test]
fn task_get_list_and_cancel_on_both_bindings() {
    let agent = netops();
    let id = completed_call(&agent.base);
    for binding in BINDINGS {
        let o = run(&["task", "get", &agent.base, &id, "--binding", binding]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let text = stdout(&o);
        assert!(
            text.starts_with(&format!("task {id} TASK_STATE_COMPLETED")),
            "{text}"
        );
        assert!(text.contains("artifact "), "{text}");

        let o = run(&[
            "task",
            "get",
            &agent.base,
            &id,
            "--binding",
            binding,
            "--format",
            "json",
        ]);
        let v = stdout_json(&o);
        assert_eq!(
            (v["ok"].clone(), v["task"]["id"].clone()),
            (true.into(), id.clone().into())
        );
        assert_eq!(v["task"]["status"]["state"], "TASK_STATE_COMPLETED");

        let o = run(&[
            "task",
            "list",
            &agent.base,
            "--binding",
            binding,
            "--state",
            "completed",
            "--page-size",
            "5",
            "--format",
            "json",
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let v = stdout_json(&o);
        let ids: Vec<&str> = v["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap())
            .collect();
        assert!(ids.contains(&id.as_str()), "{v}");
        assert!(v["total_size"].as_i64().unwrap() >= 1, "{v}");

        let o = run(&["task", "list", &agent.base, "--binding", binding]);
        assert!(stdout(&o).contains(&id), "{}", stdout(&o));

        // netops skills are not cancelable: the agent's refusal is exit 2 with its reason.
        let o = run(&[
            "task",
            "cancel",
            &agent.base,
            &id,
            "--binding",
            binding,
            "--format",
            "json",
        ]);
        assert_eq!(code(&o), 2);
        let v = stdout_json(&o);
        assert_eq!(v["ok"], false);
        assert!(v.get("step").is_none(), "{v}");
        assert!(stderr(&o).contains("not cancelable"), "{}", stderr(&o));

        let o = run(&[
            "task",
            "get",
            &agent.base,
            "no-such-task",
            "--binding",
            binding,
        ]);
        assert_eq!(code(&o), 2);
        assert!(stderr(&o).contains("not found"), "{}", stderr(&o));
        assert!(stdout(&o).is_empty());
    }
}

#[test]
fn task_subscribe_prints_each_event_then_the_task() {
    let agent = netops();
    for binding in BINDINGS {
        // A 1.5 s task started by another process, followed while it runs.
        let mut caller = skillgate()
            .command()
            .args([
                "call",
                &agent.base,
                "collect_interface_counters",
                "--args",
                r#"{"interface":"lo","window_ms":1500}"#,
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let id = eventually_sync(Duration::from_secs(10), || {
            let o = run(&[
                "task",
                "list",
                &agent.base,
                "--state",
                "working",
                "--format",
                "json",
            ]);
            stdout_json(&o)["tasks"][0]["id"]
                .as_str()
                .map(str::to_owned)
        });
        let o = run(&[
            "task",
            "subscribe",
            &agent.base,
            &id,
            "--binding",
            binding,
            "--format",
            "json",
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let lines: Vec<Value> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(lines.len() >= 2, "{lines:?}");
        let last = lines.last().unwrap();
        assert_eq!(last["ok"], true);
        assert_eq!(last["task"]["status"]["state"], "TASK_STATE_COMPLETED");
        // Every line before the task is one A2A stream event, the final status among them.
        assert!(lines[..lines.len() - 1]
            .iter()
            .all(|e| e.get("ok").is_none()));
        assert!(lines
            .iter()
            .any(|e| e["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"));
        assert!(caller.wait().unwrap().success());

        // A finished task has no stream to follow: the agent's error, exit 2.
        let o = run(&["task", "subscribe", &agent.base, &id, "--binding", binding]);
        assert_eq!(code(&o), 2);
        assert!(stderr(&o).contains("terminal"), "{}", stderr(&o));
    }
}

#[test]
fn send_delivers_a_plain_message_without_the_extension() {
    let agent = netops();
    for binding in BINDINGS {
        let o = run(&[
            "send",
            &agent.base,
            "--text",
            "hello",
            "--binding",
            binding,
            "--format",
            "json",
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let v = stdout_json(&o);
        // The netops agent serves governed requests only: it answers, and says why not.
        assert_eq!(v["task"]["status"]["state"], "TASK_STATE_REJECTED", "{v}");
        assert_eq!(v["task"]["history"][0]["parts"][0]["text"], "hello", "{v}");
        assert!(v["task"]["history"][0].get("extensions").is_none(), "{v}");
    }
    let o = run(&["send", &agent.base, "--data", r#"{"a":1}"#]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("TASK_STATE_REJECTED"), "{}", stdout(&o));
    assert!(stdout(&o).contains("schema-governed"), "{}", stdout(&o));

    let o = run(&["send", &agent.base]);
    assert_eq!(code(&o), 2);
    let o = run(&["send", &agent.base, "--data", "{nope", "--format", "json"]);
    assert_eq!(code(&o), 2);
    assert_eq!(stdout_json(&o)["code"], "usage_error");
}

#[test]
fn completions_man_and_version() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let o = run(&["completions", shell]);
        assert_eq!(code(&o), 0, "{shell}: {}", stderr(&o));
        let s = stdout(&o);
        assert!(
            s.contains("skillgate") && s.contains("conformance"),
            "{shell}"
        );
        assert!(s.contains("subscribe"), "{shell}: nested commands missing");
    }
    assert_eq!(code(&run(&["completions", "tcsh"])), 2);

    let o = run(&["man"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let roff = stdout(&o);
    assert!(roff.contains(".TH skillgate"), "{roff}");
    for section in [
        "SKILLGATE CALL",
        "SKILLGATE TASK SUBSCRIBE",
        "SKILLGATE CARD LINT",
    ] {
        assert!(roff.contains(section), "{section} missing");
    }
    assert!(roff.contains("Examples:"));

    let o = run(&["--version"]);
    assert_eq!(code(&o), 0);
    let v = stdout(&o);
    assert!(
        v.starts_with(&format!("skillgate {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{v}"
    );
    let commit = v
        .split("(commit ")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    assert!(
        commit == "unknown" || commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{v}"
    );
    assert!(
        v.contains("draft-huang-ainetops-agent-schema-interfaces-00"),
        "{v}"
    );
    assert!(v.contains("A2A protocol: 1.0"), "{v}");
}

/// Every command a user can run (the leaves of `skillgate --help`).
const COMMANDS: &[&[&str]] = &[
    &["canonicalize"],
    &["digest"],
    &["interface", "check"],
    &["interface", "compose"],
    &["interface", "new"],
    &["interface", "validate"],
    &["interface", "fix"],
    &["interface", "diff"],
    &["interface", "from-mcp"],
    &["card", "lint"],
    &["card", "diff"],
    &["card", "sign"],
    &["card", "verify"],
    &["describe"],
    &["call"],
    &["chain"],
    &["demo"],
    &["serve"],
    &["gateway"],
    &["inspect"],
    &["init"],
    &["store", "migrate"],
    &["conformance"],
    &["skills"],
    &["task", "get"],
    &["task", "list"],
    &["task", "cancel"],
    &["task", "subscribe"],
    &["send"],
    &["mcp"],
    &["completions"],
    &["man"],
];

#[test]
fn the_readme_command_list_names_every_command() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    // Each line's first code span, as words: `skillgate task get|list` is [skillgate, task, get, list].
    let list: Vec<Vec<String>> = readme
        .split("## Commands")
        .nth(1)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("- `skillgate "))
        .filter_map(|l| l.split('`').nth(1))
        .map(|span| span.split([' ', '|']).map(str::to_owned).collect())
        .collect();
    for cmd in COMMANDS {
        // A group's subcommands share its line.
        let listed = list
            .iter()
            .find(|words| words[1] == cmd[0])
            .is_some_and(|words| {
                cmd[1..]
                    .iter()
                    .all(|sub| words[2..].contains(&sub.to_string()))
            });
        assert!(listed, "README command list lacks {}", cmd.join(" "));
    }
    // The top-level list agrees with the binary's.
    let help = stdout(&run(&["--help"]));
    let listed = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .count();
    let top: std::collections::BTreeSet<&str> = COMMANDS.iter().map(|c| c[0]).collect();
    assert_eq!(listed, top.len(), "{help}");
}

#[test]
fn every_help_has_examples() {
    let top = stdout(&run(&["--help"]));
    assert!(top.contains("Examples:"), "{top}");
    for cmd in COMMANDS {
        let mut args = cmd.to_vec();
        args.push("--help");
        let o = run(&args);
        assert_eq!(code(&o), 0, "{cmd:?}");
        let help = stdout(&o);
        let examples = help
            .split("Examples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{cmd:?} has no examples:\n{help}"));
        assert!(
            examples.contains(&format!("skillgate {}", cmd.join(" "))),
            "{cmd:?}: {examples}"
        );
    }
}

#[test]
fn the_example_chain_plan_runs() {
    let agent = netops();
    let plan = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/chains/interface_health.json"
    ))
    .unwrap();
    // The plan names `skillgate serve`'s default address; the test agent has its own port.
    assert!(plan.contains("http://127.0.0.1:7420"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plan.json");
    std::fs::write(&path, plan.replace("http://127.0.0.1:7420", &agent.base)).unwrap();
    let o = run(&["chain", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = stdout_json(&o);
    assert_eq!(v["ok"], true);
    assert_eq!(v["steps"].as_array().unwrap().len(), 2);
    assert_eq!(v["correlations"].as_array().unwrap().len(), 1);
}

//! docs/architecture.md's crate graph is the workspace's: the block between its
//! `crate-graph` markers must equal what `cargo metadata` says, line for line, so the map a
//! newcomer reads cannot go stale. Also: the runtime carries no HTTP server framework.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .unwrap()
}

/// Runs `cargo ARGS` in the workspace root and returns its stdout (it must succeed).
fn cargo(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(workspace_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `crate -> dep, dep` lines of the normal dependencies between workspace members.
fn graph_from_cargo() -> Vec<String> {
    let m: Value =
        serde_json::from_slice(&cargo(&["metadata", "--format-version", "1", "--no-deps"]))
            .unwrap();
    let packages = m["packages"].as_array().unwrap();
    let members: BTreeSet<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for p in packages {
        let deps = graph.entry(p["name"].as_str().unwrap()).or_default();
        for d in p["dependencies"].as_array().unwrap() {
            let name = d["name"].as_str().unwrap();
            if d["kind"].is_null() && members.contains(name) {
                deps.insert(name);
            }
        }
    }
    graph
        .into_iter()
        .map(|(name, deps)| {
            let deps = if deps.is_empty() {
                "(none)".to_owned()
            } else {
                deps.into_iter().collect::<Vec<_>>().join(", ")
            };
            format!("{name} -> {deps}")
        })
        .collect()
}

fn graph_from_docs() -> Vec<String> {
    let text = std::fs::read_to_string(workspace_root().join("docs/architecture.md")).unwrap();
    let start = text.find("<!-- crate-graph:begin -->").unwrap();
    let end = text.find("<!-- crate-graph:end -->").unwrap();
    text[start..end]
        .lines()
        .filter(|l| l.starts_with("skillgate-"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_documented_crate_graph_is_the_workspaces() {
    let cargo = graph_from_cargo();
    let docs = graph_from_docs();
    assert!(cargo.len() > 10, "{cargo:?}");
    for line in &cargo {
        assert!(
            docs.contains(line),
            "docs/architecture.md's crate graph lacks this line (cargo metadata has it):\n{line}"
        );
    }
    for line in &docs {
        assert!(
            cargo.contains(line),
            "docs/architecture.md's crate graph has a line cargo metadata does not:\n{line}"
        );
    }
}

/// Every package in the normal-dependency closure of `package` built with `features`.
fn closure(package: &str, features: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["tree", "-p", package, "-e", "normal", "--prefix", "none"];
    args.extend(features);
    String::from_utf8_lossy(&cargo(&args))
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// The runtime knows no wire: without its optional features nothing HTTP is below it, and
/// with them (push delivery, the SQL stores) only a webhook client, never a server framework.
#[test]
fn the_runtime_has_no_http_framework() {
    let bare = closure("skillgate-runtime", &["--no-default-features"]);
    assert!(bare.contains("skillgate-store"), "{bare:?}");
    for banned in [
        "axum",
        "hyper",
        "tower-http",
        "reqwest",
        "sqlx",
        "tonic",
        "maud",
    ] {
        assert!(
            !bare.contains(banned),
            "skillgate-runtime without features depends on {banned}"
        );
    }
    let full = closure("skillgate-runtime", &["--all-features"]);
    assert!(
        full.contains("reqwest") && full.contains("sqlx"),
        "{full:?}"
    );
    for banned in ["axum", "maud", "tonic", "skillgate-server"] {
        assert!(
            !full.contains(banned),
            "skillgate-runtime depends on {banned}"
        );
    }
    // An embedder's build: the netops agent as a library takes the runtime without features.
    let netops = closure("skillgate-netops", &[]);
    for banned in ["axum", "hyper", "sqlx", "reqwest", "tonic"] {
        assert!(
            !netops.contains(banned),
            "skillgate-netops depends on {banned}"
        );
    }
}

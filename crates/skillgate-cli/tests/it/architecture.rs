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

fn metadata(extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1"])
        .args(extra)
        .current_dir(workspace_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `crate -> dep, dep` lines of the normal dependencies between workspace members.
fn graph_from_cargo() -> Vec<String> {
    let m = metadata(&["--no-deps"]);
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

#[test]
fn the_runtime_has_no_http_server_framework() {
    let m = metadata(&[]);
    let packages = m["packages"].as_array().unwrap();
    let id_of = |name: &str| {
        packages
            .iter()
            .find(|p| p["name"] == name)
            .map(|p| p["id"].as_str().unwrap().to_owned())
            .unwrap()
    };
    let nodes: BTreeMap<String, &Value> = m["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap().to_owned(), n))
        .collect();
    // Every crate reachable from the runtime through normal dependencies.
    let mut seen = BTreeSet::new();
    let mut todo = vec![id_of("skillgate-runtime")];
    while let Some(id) = todo.pop() {
        if !seen.insert(id.clone()) {
            continue;
        }
        for d in nodes[&id]["deps"].as_array().unwrap() {
            let normal = d["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null());
            if normal {
                todo.push(d["pkg"].as_str().unwrap().to_owned());
            }
        }
    }
    let names: BTreeSet<String> = seen
        .iter()
        .filter_map(|id| packages.iter().find(|p| p["id"] == id.as_str()))
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    for banned in [
        "axum",
        "axum-core",
        "tower-http",
        "maud",
        "skillgate-server",
        "tonic",
    ] {
        assert!(
            !names.contains(banned),
            "skillgate-runtime depends on {banned} (runtime crates know no wire)"
        );
    }
}

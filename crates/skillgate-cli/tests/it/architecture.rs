//! docs/architecture.md's crate graph is the workspace's: the block between its
//! `crate-graph` markers must equal what `cargo metadata` says, line for line, so the map a
//! newcomer reads cannot go stale. Also: the runtime carries no HTTP server framework, and
//! the modules of the runtime and of the bindings have no cycle.

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

/// The top-level modules of `crate_dir/src` and, for each, the others its code names through
/// `crate::` (or `super::` from a file directly under `src/`). Unit tests and comments are
/// left out: a test module or a doc link may name anything without making a layer depend on
/// another.
fn module_graph(crate_dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    fn idents(s: &str) -> impl Iterator<Item = &str> {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
    }
    let src = crate_dir.join("src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let top = |p: &Path| -> (String, bool) {
        let rel = p.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let name = first.trim_end_matches(".rs").to_owned();
        let direct = rel.components().count() == 1 || rel.ends_with("mod.rs");
        (name, direct && rel.components().count() <= 2)
    };
    let names: BTreeSet<String> = all
        .iter()
        .map(|p| top(p).0)
        .filter(|n| n != "lib" && n != "main")
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> =
        names.iter().map(|n| (n.clone(), BTreeSet::new())).collect();
    for p in &all {
        let (m, direct) = top(p);
        if !names.contains(&m) {
            continue;
        }
        let text = std::fs::read_to_string(p).unwrap();
        // Comments may name any module (intra-doc links) without depending on it.
        let code: String = text
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap()
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut named = Vec::new();
        for (prefix, counts) in [("crate::", true), ("super::", direct)] {
            for (i, _) in code.match_indices(prefix).filter(|_| counts) {
                let rest = &code[i + prefix.len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    // `crate::{a, b::c}`: every first segment of the group.
                    let inner = &group[..group.find('}').unwrap_or(group.len())];
                    for item in inner.split(',') {
                        named.extend(idents(item).next());
                    }
                } else {
                    named.extend(idents(rest).next());
                }
            }
        }
        let deps = graph.get_mut(&m).unwrap();
        deps.extend(
            named
                .into_iter()
                .filter(|n| *n != m && names.contains(*n))
                .map(str::to_owned),
        );
    }
    graph
}

/// A cycle among the modules of `graph`, if there is one (as the path that closes it).
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        at: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == at) {
            let mut c = path[i..].to_vec();
            c.push(at.to_owned());
            return Some(c);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_owned());
        for next in &g[at] {
            if let Some(c) = visit(g, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(at.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(graph, m, &mut Vec::new(), &mut done))
}

/// The runtime's and the server's modules depend on each other one way: a cycle (the server
/// had console <-> http, gate <-> service, skill <-> service before the split) means two
/// layers that cannot be understood, or moved, one without the other.
#[test]
fn no_module_cycles_in_the_runtime_or_the_bindings() {
    for name in ["skillgate-runtime", "skillgate-server", "skillgate-grpc"] {
        let graph = module_graph(&workspace_root().join("crates").join(name));
        assert!(graph.len() >= 3, "{name}: {graph:?}");
        assert_eq!(cycle(&graph), None, "{name}: module cycle; graph {graph:?}");
    }
    // The check itself finds a cycle when there is one.
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("a".into(), ["b".to_owned()].into());
    g.insert("b".into(), ["c".to_owned()].into());
    g.insert("c".into(), ["a".to_owned()].into());
    assert_eq!(cycle(&g).map(|c| c.len()), Some(4));
}

//! `skillgate card lint` end to end: the built binary on real files, stdin and a real HTTP
//! server on 127.0.0.1 (ephemeral port).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;

use serde_json::Value;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_skillgate")
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../skillgate-lint/tests/fixtures")
        .join(rel)
}

fn run(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().unwrap()
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap()
}

fn json_out(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn clean_card_exits_0_with_the_json_shape() {
    let p = fixture("a2a-1.0/seed003-good.json");
    let o = run(&["card", "lint", path_str(&p), "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["profile"], "a2a-1.0");
    assert_eq!(v["errors"], 0);
    assert_eq!(v["warnings"], 0);
    assert_eq!(v["findings"], Value::Array(vec![]));
    let mut keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["errors", "findings", "profile", "warnings"]);
}

#[test]
fn negative_card_exits_1_and_lists_each_defect() {
    let p = fixture("mixed/seed003-negative.json");
    let o = run(&["card", "lint", path_str(&p), "--format", "json"]);
    assert_eq!(code(&o), 1);
    let v = json_out(&o);
    assert_eq!(v["profile"], "a2a-1.0");
    assert_eq!(v["errors"], 5);
    let findings = v["findings"].as_array().unwrap();
    let mut rules: Vec<&str> = findings
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    rules.sort_unstable();
    assert_eq!(
        rules,
        [
            "A2A-LEGACY-001",
            "A2A-LEGACY-002",
            "A2A-LEGACY-006",
            "A2A-LEGACY-008",
            "A2A-REQ-001"
        ]
    );
    for f in findings {
        let mut keys: Vec<&String> = f.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["hint", "message", "path", "rule", "severity"]);
        assert_eq!(f["severity"], "error");
        assert!(f["path"].as_str().unwrap().starts_with('/'));
        assert!(!f["hint"].as_str().unwrap().is_empty());
    }
}

#[test]
fn warnings_alone_exit_0() {
    let p = fixture("a2a-1.0/bindings.json");
    let o = run(&["card", "lint", path_str(&p), "--format", "json"]);
    assert_eq!(code(&o), 0);
    let v = json_out(&o);
    assert_eq!(v["errors"], 0);
    assert_eq!(v["warnings"], 2);
}

#[test]
fn text_output_names_the_detected_profile_and_positions() {
    let p = fixture("agentvault-1.0/example-poc-agents-secops-pipeline-mcp-tool-proxy-agent.json");
    let o = run(&["card", "lint", path_str(&p)]);
    assert_eq!(code(&o), 1);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("profile agentvault-1.0 (detected)"), "{text}");
    assert!(
        text.contains("AV-URL-001 /url (line 7, column 3)"),
        "{text}"
    );
    assert!(text.contains("hint: "), "{text}");

    let o = run(&["card", "lint", path_str(&p), "--profile", "agentvault-1.0"]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("profile agentvault-1.0\n"), "{text}");
}

#[test]
fn forced_profile_is_used() {
    let p = fixture("a2a-1.0/seed003-good.json");
    let o = run(&[
        "card",
        "lint",
        path_str(&p),
        "--profile",
        "a2a-0.3",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1);
    let v = json_out(&o);
    assert_eq!(v["profile"], "a2a-0.3");
    assert!(v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "A2A03-SCHEMA-001"));
}

#[test]
fn sarif_has_the_2_1_0_structure() {
    let p = fixture("mixed/seed003-negative.json");
    let o = run(&["card", "lint", path_str(&p), "--format", "sarif"]);
    assert_eq!(code(&o), 1);
    let v = json_out(&o);
    assert_eq!(v["version"], "2.1.0");
    assert!(v["$schema"].as_str().unwrap().contains("sarif"));
    let run0 = &v["runs"][0];
    let driver = &run0["tool"]["driver"];
    assert_eq!(driver["name"], "skillgate");
    let rules = driver["rules"].as_array().unwrap();
    assert!(rules.len() > 50);
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let results = run0["results"].as_array().unwrap();
    assert_eq!(results.len(), 5);
    for r in results {
        let id = r["ruleId"].as_str().unwrap();
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(ids[index], id);
        assert_eq!(r["level"], "error");
        assert!(!r["message"]["text"].as_str().unwrap().is_empty());
        let loc = &r["locations"][0];
        assert_eq!(
            loc["physicalLocation"]["artifactLocation"]["uri"],
            format!("file://{}", path_str(&p))
        );
        assert!(
            loc["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
                >= 1
        );
        assert!(loc["logicalLocations"][0]["fullyQualifiedName"]
            .as_str()
            .unwrap()
            .starts_with('/'));
    }
    for r in rules {
        assert!(["error", "warning", "note"]
            .contains(&r["defaultConfiguration"]["level"].as_str().unwrap()));
        assert!(!r["shortDescription"]["text"].as_str().unwrap().is_empty());
    }
}

#[test]
fn not_json_exits_2_with_the_position() {
    let dir = std::env::temp_dir().join(format!("skillgate-card-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\n  \"name\": \"x\",\n}\n").unwrap();
    let o = run(&["card", "lint", path_str(&bad)]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("line 3, column 1"), "{err}");
    assert!(o.stdout.is_empty());

    let o = run(&["card", "lint", path_str(&dir.join("missing.json"))]);
    assert_eq!(code(&o), 2);

    let o = run_stdin(&["card", "lint", "-"], b"[1,");
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("stdin"));
}

#[test]
fn usage_errors_exit_2() {
    let p = fixture("a2a-1.0/seed003-good.json");
    assert_eq!(
        code(&run(&[
            "card",
            "lint",
            path_str(&p),
            "--profile",
            "a2a-2.0"
        ])),
        2
    );
    assert_eq!(
        code(&run(&["card", "lint", path_str(&p), "--format", "xml"])),
        2
    );
    assert_eq!(code(&run(&["card", "lint"])), 2);
    let o = run(&["card", "lint", path_str(&p), "--deep"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--deep"));
}

#[test]
fn stdin_is_linted() {
    let card = std::fs::read(fixture("a2a-1.0/server-card.json")).unwrap();
    let o = run_stdin(&["card", "lint", "-", "--format", "json"], &card);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stdout));
    let o = run_stdin(&["card", "lint", "-", "--format", "sarif"], &card);
    let v = json_out(&o);
    assert_eq!(v["runs"][0]["results"], Value::Array(vec![]));
}

/// A one-thread HTTP/1.1 server on 127.0.0.1 that answers each path from `routes`.
fn serve(routes: Vec<(&'static str, String, Vec<u8>)>, connections: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || {
        for stream in listener.incoming().take(connections) {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap() == 0 || h == "\r\n" {
                    break;
                }
            }
            let (status, body) = routes
                .iter()
                .find(|(p, _, _)| *p == path)
                .map(|(_, s, b)| (s.clone(), b.clone()))
                .unwrap_or(("404 Not Found".into(), b"nope".to_vec()));
            let head = if let Some(loc) = status.strip_prefix("302 ") {
                format!("HTTP/1.1 302 Found\r\nLocation: {loc}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            } else {
                format!(
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                )
            };
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    format!("http://{addr}")
}

#[test]
fn cards_are_fetched_from_a_url_with_limits() {
    let good = std::fs::read(fixture("a2a-1.0/server-card.json")).unwrap();
    let neg = std::fs::read(fixture("mixed/seed003-negative.json")).unwrap();
    let big = {
        let mut b = b"{\"name\":\"".to_vec();
        b.extend(std::iter::repeat_n(b'x', 1024 * 1024 + 10));
        b.extend(b"\"}");
        b
    };
    let base = serve(
        vec![
            ("/.well-known/agent-card.json", "200 OK".into(), good),
            ("/neg", "200 OK".into(), neg),
            ("/notjson", "200 OK".into(), b"<html>".to_vec()),
            ("/big", "200 OK".into(), big),
            ("/r1", "302 /r2".into(), vec![]),
            ("/r2", "302 /r3".into(), vec![]),
            ("/r3", "302 /.well-known/agent-card.json".into(), vec![]),
            ("/l1", "302 /l2".into(), vec![]),
            ("/l2", "302 /l3".into(), vec![]),
            ("/l3", "302 /l4".into(), vec![]),
            ("/l4", "302 /.well-known/agent-card.json".into(), vec![]),
        ],
        64,
    );
    let url = |p: &str| format!("{base}{p}");

    let o = run(&[
        "card",
        "lint",
        &url("/.well-known/agent-card.json"),
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(json_out(&o)["profile"], "a2a-1.0");

    let o = run(&["card", "lint", &url("/neg"), "--format", "sarif"]);
    assert_eq!(code(&o), 1);
    assert_eq!(
        json_out(&o)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
            ["artifactLocation"]["uri"],
        url("/neg")
    );

    let o = run(&["card", "lint", &url("/notjson")]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 1, column 1"));

    let o = run(&["card", "lint", &url("/big")]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("larger than"));

    // Three redirects are followed, a fourth is refused.
    assert_eq!(code(&run(&["card", "lint", &url("/r1")])), 0);
    assert_eq!(code(&run(&["card", "lint", &url("/l1")])), 2);

    let o = run(&["card", "lint", &url("/missing")]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("404"));
}

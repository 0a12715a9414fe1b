//! `skillgate card lint` end to end: the built binary on real files, stdin and a real HTTP
//! server on 127.0.0.1 (ephemeral port).

use skillgate_testkit::requests::advertisements_mut;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::thread;

use serde_json::Value;
use skillgate_testkit::cli::{code, stdout_json};
use skillgate_testkit::server::TestServer;

use super::skillgate;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../skillgate-lint/tests/fixtures")
        .join(rel)
}

fn run(args: &[&str]) -> Output {
    skillgate().run(args)
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    skillgate().run_stdin(args, input)
}

fn json_out(o: &Output) -> Value {
    stdout_json(o)
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
        let mut keys: Vec<&str> = f
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .filter(|k| !["line", "column"].contains(k)) // present when the text shows them
            .collect();
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
    assert_eq!(run0["invocations"][0]["executionSuccessful"], true);
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
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\n  \"name\": \"x\",\n}\n").unwrap();
    let o = run(&["card", "lint", path_str(&bad)]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("line 3, column 1"), "{err}");
    assert!(o.stdout.is_empty());

    // Machine-readable failure documents for CI steps that parse stdout.
    let o = run(&["card", "lint", path_str(&bad), "--format", "json"]);
    assert_eq!(code(&o), 2);
    let v = json_out(&o);
    assert_eq!(v["ok"], false);
    assert_eq!(v["code"], "not_json");
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(3), Some(1))
    );
    let o = run(&["card", "lint", path_str(&bad), "--format", "sarif"]);
    assert_eq!(code(&o), 2);
    let v = json_out(&o);
    assert_eq!(v["version"], "2.1.0");
    let inv = &v["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let note = &inv["toolExecutionNotifications"][0];
    assert_eq!(note["descriptor"]["id"], "not_json");
    assert_eq!(
        note["locations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    assert_eq!(v["runs"][0]["results"], Value::Array(vec![]));

    let o = run(&["card", "lint", path_str(&dir.path().join("missing.json"))]);
    assert_eq!(code(&o), 2);
    let o = run(&[
        "card",
        "lint",
        path_str(&dir.path().join("missing.json")),
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(json_out(&o)["code"], "unreadable");

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
    // --deep calls the agent, so it needs a URL, not a file.
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
            ("/neg.json", "200 OK".into(), neg),
            ("/notjson.json", "200 OK".into(), b"<html>".to_vec()),
            ("/big.json", "200 OK".into(), big),
            ("/r1.json", "302 /r2.json".into(), vec![]),
            ("/r2.json", "302 /r3.json".into(), vec![]),
            (
                "/r3.json",
                "302 /.well-known/agent-card.json".into(),
                vec![],
            ),
            ("/l1.json", "302 /l2.json".into(), vec![]),
            ("/l2.json", "302 /l3.json".into(), vec![]),
            ("/l3.json", "302 /l4.json".into(), vec![]),
            (
                "/l4.json",
                "302 /.well-known/agent-card.json".into(),
                vec![],
            ),
        ],
        64,
    );
    let url = |p: &str| format!("{base}{p}");

    // A base URL resolves to the well-known card path, as in the client.
    for u in [base.clone(), url("/.well-known/agent-card.json")] {
        let o = run(&["card", "lint", &u, "--format", "json"]);
        assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(json_out(&o)["profile"], "a2a-1.0");
    }

    let o = run(&["card", "lint", &url("/neg.json"), "--format", "sarif"]);
    assert_eq!(code(&o), 1);
    assert_eq!(
        json_out(&o)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
            ["artifactLocation"]["uri"],
        url("/neg.json")
    );

    let o = run(&["card", "lint", &url("/notjson.json")]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 1, column 1"));

    let o = run(&["card", "lint", &url("/big.json")]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("larger than"));

    // Three redirects are followed, a fourth is refused.
    assert_eq!(code(&run(&["card", "lint", &url("/r1.json")])), 0);
    assert_eq!(code(&run(&["card", "lint", &url("/l1.json")])), 2);

    let o = run(&["card", "lint", &url("/missing.json"), "--format", "json"]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("404"));
    assert_eq!(json_out(&o)["code"], "fetch_failed");
    let o = run(&["card", "lint", &url("/big.json"), "--format", "json"]);
    assert_eq!(json_out(&o)["code"], "too_large");
}

/// The real netops agent on the real server runtime, on 127.0.0.1:0 (stopped on drop).
fn start_agent() -> TestServer {
    TestServer::on_thread(
        || skillgate_netops::agent().build().unwrap(),
        skillgate_runtime::ServerConfig::default(),
    )
}

#[test]
fn the_card_the_server_generates_lints_clean_also_with_deep() {
    let agent = start_agent();
    let base = agent.base.clone();
    let o = run(&["card", "lint", &base, "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let v = json_out(&o);
    assert_eq!(v["profile"], "a2a-1.0");
    assert_eq!(v["findings"], Value::Array(vec![]), "{v:#}");

    let o = run(&["card", "lint", &base, "--deep", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(json_out(&o)["findings"], Value::Array(vec![]));
}

fn deep_rules(o: &Output) -> Vec<String> {
    json_out(o)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .filter(|r| r.starts_with("SI-DEEP"))
        .collect()
}

#[test]
fn deep_reports_digest_document_and_call_failures() {
    let agent = start_agent();
    let base = agent.base.clone();
    let card_bytes = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let t = skillgate_transport::Transport::new(Default::default()).unwrap();
        let url = skillgate_transport::card_url(&base).unwrap();
        t.get_card(&url).await.unwrap().bytes
    });
    let mut card: Value = serde_json::from_slice(&card_bytes).unwrap();
    let entries = advertisements_mut(&mut card).len();
    assert!(entries >= 1);

    // A card advertising a different (well-formed) digest for the first skill.
    let mut wrong_digest = card.clone();
    advertisements_mut(&mut wrong_digest)[0]["interface_digest"] =
        Value::String(format!("sha256:{}", "0".repeat(64)));
    // A card advertising another version with the true digest: the document disagrees.
    let mut wrong_version = card.clone();
    advertisements_mut(&mut wrong_version)[0]["skill_version"] = Value::String("9.9".into());
    // A card whose interfaces point at a server that does not speak A2A.
    let mut dead = card.clone();
    let dead_base = serve(vec![], 16);
    for i in dead["supportedInterfaces"].as_array_mut().unwrap() {
        i["url"] = Value::String(format!("{dead_base}/"));
    }
    let body = |v: &Value| serde_json::to_vec(v).unwrap();
    let cards = serve(
        vec![
            ("/digest.json", "200 OK".into(), body(&wrong_digest)),
            ("/version.json", "200 OK".into(), body(&wrong_version)),
            ("/dead.json", "200 OK".into(), body(&dead)),
        ],
        16,
    );

    let o = run(&[
        "card",
        "lint",
        &format!("{cards}/digest.json"),
        "--deep",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1);
    assert_eq!(deep_rules(&o), ["SI-DEEP-002"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains(&format!("sha256:{}", "0".repeat(64))), "{out}");
    assert!(out.contains("/params/skills/0/interface_digest"), "{out}");
    // Without --deep the card is well-formed: the lie is only visible on the wire.
    let o = run(&[
        "card",
        "lint",
        &format!("{cards}/digest.json"),
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0);

    let o = run(&[
        "card",
        "lint",
        &format!("{cards}/version.json"),
        "--deep",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1);
    assert_eq!(deep_rules(&o), ["SI-DEEP-003"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("/skill_version") && out.contains("9.9"),
        "{out}"
    );

    let o = run(&[
        "card",
        "lint",
        &format!("{cards}/dead.json"),
        "--deep",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1);
    assert_eq!(deep_rules(&o), vec!["SI-DEEP-001".to_string(); entries]);
}

#[test]
fn url_policy_applies_to_card_lint_and_its_redirects() {
    let good = std::fs::read(fixture("a2a-1.0/server-card.json")).unwrap();
    let base = serve(
        vec![
            ("/ok.json", "200 OK".into(), good),
            (
                "/away.json",
                "302 http://example.com/card.json".into(),
                vec![],
            ),
        ],
        4,
    );
    // Plain HTTP to a host that is not loopback is refused before anything is sent.
    let o = run(&[
        "card",
        "lint",
        "http://example.com/card.json",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("refusing plain HTTP"));
    assert_eq!(json_out(&o)["code"], "fetch_failed");
    // ... and so is a redirect there from a loopback agent.
    let o = run(&["card", "lint", &format!("{base}/away.json")]);
    assert_eq!(code(&o), 2);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("redirect refused"), "{stderr}");
    // A password in the URL never reaches the output.
    let with_password = base.replace("http://", "http://alice:S3cret@");
    let o = run(&["card", "lint", &format!("{with_password}/missing.json")]);
    assert_eq!(code(&o), 2);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!all.contains("S3cret"), "{all}");
    assert_eq!(
        code(&run(&[
            "card",
            "lint",
            &format!("{base}/ok.json"),
            "--timeout",
            "5"
        ])),
        0
    );
}

#[test]
fn card_lint_sends_the_token() {
    use axum::http::HeaderMap;
    let card = std::fs::read(fixture("a2a-1.0/server-card.json")).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let app = axum::Router::new().fallback(move |h: HeaderMap| {
                let card = card.clone();
                async move {
                    let ok = h
                        .get("authorization")
                        .is_some_and(|v| v == "Bearer tok-0123456789abcdef");
                    if ok {
                        (axum::http::StatusCode::OK, card)
                    } else {
                        (axum::http::StatusCode::UNAUTHORIZED, b"{}".to_vec())
                    }
                }
            });
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(format!("http://{}", l.local_addr().unwrap()))
                .unwrap();
            axum::serve(l, app).await.unwrap();
        });
    });
    let base = rx.recv().unwrap();
    let o = run(&["card", "lint", &base]);
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("401"));
    let o = run(&["card", "lint", &base, "--token", "tok-0123456789abcdef"]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let o = skillgate()
        .command()
        .args(["card", "lint", &base])
        .env("SKILLGATE_TOKEN", "tok-0123456789abcdef")
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
}

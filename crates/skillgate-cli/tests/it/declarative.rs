//! `skillgate init` and `skillgate serve --config`: the starter directory served by the real
//! binary passes `skillgate conformance` as written; invalid configs and documents are refused
//! at start-up with the file, line and finding.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use skillgate_testkit::cli::{code, stderr, stdout, stop};
use skillgate_testkit::poll::eventually_sync;

use super::skillgate;

/// `skillgate serve --config CONFIG --store memory` on an ephemeral port: the child and its
/// address.
fn serve(config: &Path) -> (Child, String) {
    serve_with_stderr(config, Stdio::null())
}

/// [`serve`] with the child's stderr going to `err`.
fn serve_with_stderr(config: &Path, err: Stdio) -> (Child, String) {
    let config = config.to_str().unwrap();
    skillgate().spawn_server(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--config",
            config,
        ],
        err,
    )
}

#[test]
fn init_writes_an_agent_that_serves_and_passes_conformance() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("agent");
    let out = skillgate().run(&["init", target.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("agent.toml"));
    let (child, url) = serve(&target.join("agent.toml"));
    let conf = skillgate().run(&["conformance", &url]);
    let report = stdout(&conf);
    stop(child);
    assert_eq!(code(&conf), 0, "{report}\n{}", stderr(&conf));
    assert!(
        report.contains("PASS SI-CALL-001 [echo_latency]"),
        "{report}"
    );
    assert!(
        report.contains("PASS SI-CALL-003 [echo_latency]"),
        "{report}"
    );
    // A second init into the same directory writes nothing.
    let again = skillgate().run(&["init", target.to_str().unwrap()]);
    assert_eq!(code(&again), 2);
    assert!(stderr(&again).contains("not empty"), "{}", stderr(&again));
}

#[test]
fn an_invalid_config_is_refused_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("agent");
    assert_eq!(
        code(&skillgate().run(&["init", target.to_str().unwrap()])),
        0
    );
    let config = target.join("agent.toml");
    let good = std::fs::read_to_string(&config).unwrap();
    // An unknown key on the line after `exec = ...`.
    let exec_line = good.lines().position(|l| l.starts_with("exec =")).unwrap() + 1;
    let typo = good.replace("env = [\"PATH\"]", "envv = [\"PATH\"]");
    std::fs::write(&config, &typo).unwrap();
    let out = skillgate().run(&[
        "serve",
        "--store",
        "memory",
        "--listen",
        "127.0.0.1:0",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.contains(&format!("agent.toml:{}:", exec_line + 2)),
        "{err}"
    );
    assert!(err.contains("envv"), "{err}");
    assert!(
        stdout(&out).is_empty(),
        "nothing listened: {}",
        stdout(&out)
    );

    // A schema edited without its digest: the document's finding, at the interface line.
    std::fs::write(&config, &good).unwrap();
    let doc_path = target.join("interfaces/echo_latency.json");
    let doc = std::fs::read_to_string(&doc_path).unwrap();
    std::fs::write(
        &doc_path,
        doc.replace("\"maxLength\": 253", "\"maxLength\": 254"),
    )
    .unwrap();
    let out = skillgate().run(&[
        "serve",
        "--store",
        "memory",
        "--listen",
        "127.0.0.1:0",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    let interface_line = good
        .lines()
        .position(|l| l.starts_with("interface ="))
        .unwrap()
        + 1;
    assert!(
        err.contains(&format!("agent.toml:{interface_line}:")),
        "{err}"
    );
    assert!(err.contains("/input_schema/digest"), "{err}");
}

/// The interface digest the card at `url` advertises for the starter skill.
fn advertised_digest(url: &str) -> String {
    let addr = url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let body = text.split_once("\r\n\r\n").unwrap().1;
    let card: serde_json::Value = serde_json::from_str(body).unwrap();
    card["capabilities"]["extensions"][0]["params"]["skills"][0]["interface_digest"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn hup(child: &Child) {
    let status = Command::new("kill")
        .args(["-HUP", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn sighup_reloads_a_valid_config_and_keeps_serving_on_an_invalid_one() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("agent");
    assert_eq!(
        code(&skillgate().run(&["init", target.to_str().unwrap()])),
        0
    );
    let config = target.join("agent.toml");
    let (mut child, url) = serve_with_stderr(&config, Stdio::piped());
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let wait_for = |needle: &str| loop {
        let line = rx.recv_timeout(Duration::from_secs(10)).expect(needle);
        if line.contains(needle) {
            return line;
        }
    };
    let before = advertised_digest(&url);

    // A schema edit, digests repaired: the card changes after SIGHUP.
    let doc = target.join("interfaces/echo_latency.json");
    let text = std::fs::read_to_string(&doc).unwrap();
    std::fs::write(
        &doc,
        text.replace("\"maxLength\": 253", "\"maxLength\": 200"),
    )
    .unwrap();
    let fixed = skillgate().run(&["interface", "fix", doc.to_str().unwrap(), "--write"]);
    assert_eq!(code(&fixed), 0, "{}", stdout(&fixed));
    let written: serde_json::Value = serde_json::from_slice(&std::fs::read(&doc).unwrap()).unwrap();
    let expected = skillgate_core::digest(&written).to_string();
    assert_ne!(before, expected);
    hup(&child);
    wait_for("reloaded");
    let after = eventually_sync(Duration::from_secs(10), || {
        let d = advertised_digest(&url);
        (d != before).then_some(d)
    });
    assert_eq!(after, expected);

    // An invalid config: refused on stderr with file and line, the previous agent serves on.
    let good = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, good.replace("[agent]", "[agent")).unwrap();
    hup(&child);
    let refused = wait_for("reload refused");
    assert!(refused.contains("agent.toml:"), "{refused}");
    assert_eq!(
        advertised_digest(&url),
        expected,
        "still the previous agent"
    );
    let conf = skillgate().run(&["conformance", &url]);
    assert_eq!(code(&conf), 0, "{}", stdout(&conf));
    stop(child);
}

#[test]
fn an_extended_skill_is_reached_through_the_extended_card_with_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("agent");
    assert_eq!(
        code(&skillgate().run(&["init", target.to_str().unwrap()])),
        0
    );
    let config = target.join("agent.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace("env = [\"PATH\"]", "env = [\"PATH\"]\nextended = true"),
    )
    .unwrap();
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, "operator-secret-0123456789\n").unwrap();
    let (child, url) = skillgate().spawn_server(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--token-file",
            tokens.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
        Stdio::null(),
    );
    let args = r#"{"host": "localhost", "samples": 1}"#;
    let hidden = skillgate().run(&[
        "call",
        &url,
        "echo_latency",
        "--args",
        args,
        "--format",
        "json",
    ]);
    let shown = skillgate()
        .env("SKILLGATE_TOKEN", "operator-secret-0123456789")
        .run(&[
            "call",
            &url,
            "echo_latency",
            "--args",
            args,
            "--format",
            "json",
        ]);
    stop(child);
    assert_eq!(code(&hidden), 1, "{}", stdout(&hidden));
    assert!(
        stdout(&hidden).contains("skill_not_advertised"),
        "{}",
        stdout(&hidden)
    );
    assert_eq!(code(&shown), 0, "{}{}", stdout(&shown), stderr(&shown));
}

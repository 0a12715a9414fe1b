//! `skillgate init` and `skillgate serve --config`: the starter directory served by the real
//! binary passes `skillgate conformance` as written; invalid configs and documents are refused
//! at start-up with the file, line and finding.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use skillgate_testkit::cli::{code, stderr, stdout};

use super::skillgate;

/// `skillgate serve --config CONFIG --store memory` on an ephemeral port: the child and its
/// address.
fn serve(config: &Path) -> (Child, String) {
    let mut child = skillgate()
        .command()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--config",
        ])
        .arg(config)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line: {first:?}"))
        .to_owned();
    (child, addr)
}

fn stop(mut child: Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.wait().unwrap().success(), "clean shutdown");
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

//! `skillgate serve`: the real binary on an ephemeral port, driven over raw HTTP, stopped with
//! SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::skillgate;

fn http(addr: &str, request: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn serve_prints_its_address_serves_the_card_and_stops_on_sigterm() {
    let mut child = skillgate()
        .command()
        .args(["serve", "--listen", "127.0.0.1:0", "--store", "memory"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("first line: {first:?}"))
        .to_string();
    let card = http(
        &addr,
        &format!("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    );
    assert!(card.starts_with("HTTP/1.1 200"), "{card}");
    assert!(card.contains("evaluate_resource_condition"));
    assert!(card.contains(&format!("http://{addr}/")));
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":{"skill":"describe_skill","arguments":{"skill_id":"evaluate_resource_condition"}}}]}}}"#;
    let resp = http(
        &addr,
        &format!(
            "POST / HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    assert!(resp.contains("TASK_STATE_COMPLETED"), "{resp}");
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "clean shutdown: {exit:?}");
}

#[test]
fn serve_refuses_a_bad_token_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("tokens");
    std::fs::write(&f, "a b c\n").unwrap();
    let out = skillgate()
        .command()
        .args([
            "serve",
            "--store",
            "memory",
            "--listen",
            "127.0.0.1:0",
            "--token-file",
        ])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1"));
}

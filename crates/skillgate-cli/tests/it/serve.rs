//! `skillgate serve`: the real binary on an ephemeral port, driven over raw HTTP, stopped with
//! SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use skillgate_testkit::poll::{
    eventually_sync, eventually_sync_every, within_sync, PROBE_INTERVAL,
};
use skillgate_testkit::rawhttp;

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
    // A browser gets the console: the skills with their pages.
    let page = http(
        &addr,
        &format!(
            "GET / HTTP/1.1\r\nHost: {addr}\r\nAccept: text/html\r\nConnection: close\r\n\r\n"
        ),
    );
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("href=\"/console/skills/evaluate_resource_condition\""),
        "{page}"
    );
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

fn spawn_serve(extra: &[&str]) -> (std::process::Child, String) {
    spawn_serve_on("127.0.0.1:0", extra)
}

fn spawn_serve_on(listen: &str, extra: &[&str]) -> (std::process::Child, String) {
    let mut child = skillgate()
        .command()
        .args(["serve", "--listen", listen, "--store", "memory"])
        .args(extra)
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
    (child, addr)
}

fn sigterm(child: &std::process::Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn sigterm_right_after_start_exits_zero() {
    for _ in 0..5 {
        let (mut child, _addr) = spawn_serve(&[]);
        sigterm(&child);
        let exit = child.wait().unwrap();
        assert_eq!(
            exit.code(),
            Some(0),
            "exit 0, not death by signal: {exit:?}"
        );
    }
}

#[test]
fn sigterm_exits_within_the_grace_whatever_clients_do() {
    let (mut child, addr) = spawn_serve(&["--shutdown-grace", "1s", "--metrics"]);
    // A kept-alive probe of its own counts the server's open connections, so the hostile
    // ones below are waited for, not slept on.
    let mut probe = TcpStream::connect(&addr).unwrap();
    let open = |probe: &mut TcpStream| {
        let (head, scrape) = rawhttp::get(probe, &addr, "/metrics");
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        rawhttp::metric(&scrape, "skillgate_open_connections").unwrap()
    };
    let before = open(&mut probe);
    // A half-sent head and a half-sent body hold the server's connections.
    let mut half_head = TcpStream::connect(&addr).unwrap();
    half_head.write_all(b"POST / HTTP/1.1\r\nHost: x").unwrap();
    let mut half_body = TcpStream::connect(&addr).unwrap();
    half_body
        .write_all(format!("POST / HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{").as_bytes())
        .unwrap();
    eventually_sync(Duration::from_secs(10), || {
        (open(&mut probe) >= before + 2.0).then_some(())
    });
    let t0 = std::time::Instant::now();
    sigterm(&child);
    let exit = child.wait().unwrap();
    let took = t0.elapsed();
    assert_eq!(exit.code(), Some(0), "{exit:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[test]
fn serve_help_states_the_connection_defaults() {
    let out = skillgate().run(&["serve", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    for want in [
        "--header-read-timeout",
        "[default: 10s]",
        "--idle-timeout",
        "[default: 60s]",
        "--max-connections",
        "[default: 1024]",
        "--shutdown-grace",
    ] {
        assert!(help.contains(want), "{want} in {help}");
    }
}

#[test]
fn sigterm_during_start_up_exits_zero() {
    // SIGTERM while the SQLite store is being created (before the server listens) must end
    // the start-up with exit 0, not kill the process by signal. The store's file appearing
    // shows the process is in start-up.
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("tasks.db");
        let store = format!("sqlite:{}", db.display());
        let mut child = skillgate()
            .command()
            .args(["serve", "--listen", "127.0.0.1:0", "--store", &store])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Probed every 200 µs: start-up is short, and the signal must land inside it.
        eventually_sync_every(Duration::from_secs(20), Duration::from_micros(200), || {
            db.exists().then_some(())
        });
        sigterm(&child);
        let exit = child.wait().unwrap();
        assert_eq!(exit.code(), Some(0), "SIGTERM during start-up: {exit:?}");
    }
}

#[test]
fn serve_refuses_token_lines_naming_skills_it_does_not_serve() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("tokens");
    std::fs::write(
        &f,
        "# operators\noperator-secret-0123456789\nlimited-secret-0123456789 evaluate_resource_condition,no_such_skill\n",
    )
    .unwrap();
    let out = output_within(
        skillgate()
            .command()
            .args([
                "serve",
                "--store",
                "memory",
                "--listen",
                "127.0.0.1:0",
                "--token-file",
            ])
            .arg(&f),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 3") && err.contains("no_such_skill"),
        "{err}"
    );
}

#[test]
fn serve_refuses_a_short_token_and_keeps_a_hash_inside_one() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("tokens");
    std::fs::write(&f, "h4sh#tag\n").unwrap();
    let out = output_within(
        skillgate()
            .command()
            .args([
                "serve",
                "--store",
                "memory",
                "--listen",
                "127.0.0.1:0",
                "--token-file",
            ])
            .arg(&f),
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "h4sh#tag is 8 bytes, not a 4-byte token"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 1") && err.contains("16 bytes"), "{err}");
}

/// Runs `cmd` to completion, killing it (and failing) if it is still running after 20 s: a
/// `serve` that should have refused to start would otherwise hang the test.
fn output_within(cmd: &mut Command) -> std::process::Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let exited = within_sync(Duration::from_secs(20), PROBE_INTERVAL, || {
        child.try_wait().unwrap()
    });
    if exited.is_none() {
        child.kill().unwrap();
        panic!(
            "still running after 20 s: {:?}",
            child.wait_with_output().unwrap()
        );
    }
    child.wait_with_output().unwrap()
}

#[test]
fn serve_refuses_a_public_url_that_is_not_absolute_http() {
    for bad in ["agent.example:7420", "/a2a", "ftp://agent.example/"] {
        let out = output_within(skillgate().command().args([
            "serve",
            "--store",
            "memory",
            "--listen",
            "127.0.0.1:0",
            "--public-url",
            bad,
        ]));
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--public-url"), "{bad}: {err}");
    }
}

#[test]
fn serve_on_every_interface_needs_a_public_url() {
    let out = output_within(skillgate().command().args([
        "serve",
        "--store",
        "memory",
        "--listen",
        "0.0.0.0:0",
    ]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--public-url"), "{err}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("0.0.0.0"),
        "nothing advertised"
    );
    // With one, the card advertises it (and its host passes the Host check).
    let (mut child, addr) = spawn_serve_on(
        "0.0.0.0:0",
        &["--public-url", "http://agent.example.net:7420"],
    );
    let port = addr.rsplit(':').next().unwrap();
    let card = http(
        &format!("127.0.0.1:{port}"),
        "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: agent.example.net:7420\r\nConnection: close\r\n\r\n",
    );
    assert!(card.starts_with("HTTP/1.1 200"), "{card}");
    assert!(card.contains("http://agent.example.net:7420/"), "{card}");
    assert!(!card.contains("0.0.0.0"), "{card}");
    sigterm(&child);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn serve_allows_the_origins_it_is_told() {
    let (mut child, addr) = spawn_serve(&[
        "--allow-origin",
        "https://console.example",
        "--allow-origin",
        "http://localhost:3000",
    ]);
    let get = |origin: &str| {
        http(
            &addr,
            &format!("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\nConnection: close\r\n\r\n"),
        )
    };
    assert!(get("https://console.example").starts_with("HTTP/1.1 200"));
    assert!(get("http://localhost:3000").starts_with("HTTP/1.1 200"));
    assert!(get("https://evil.example").starts_with("HTTP/1.1 403"));
    sigterm(&child);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// The body of a raw HTTP/1.1 response, as JSON.
fn json_body(resp: &str) -> serde_json::Value {
    let body = resp.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {resp}"))
}

fn rpc(addr: &str, body: &str) -> serde_json::Value {
    json_body(&http(
        addr,
        &format!(
            "POST / HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    ))
}

#[test]
fn push_flags_turn_push_notifications_on_and_the_guard_follows_them() {
    let (child, url) = skillgate().spawn_server(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--push",
            "--push-allow-cidr",
            "10.9.0.0/16",
        ],
        Stdio::null(),
    );
    let addr = url.trim_start_matches("http://").to_owned();
    let card = json_body(&http(
        &addr,
        &format!("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    ));
    assert_eq!(card["capabilities"]["pushNotifications"], true);
    let sent = rpc(
        &addr,
        r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"data":{"skill":"describe_skill","arguments":{"skill_id":"evaluate_resource_condition"}}}]}}}"#,
    );
    let task = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let create = |webhook: &str| {
        rpc(
            &addr,
            &format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"CreateTaskPushNotificationConfig","params":{{"taskId":"{task}","url":"{webhook}"}}}}"#
            ),
        )
    };
    let allowed = create("https://10.9.1.1/hook");
    assert_eq!(
        allowed["result"]["url"], "https://10.9.1.1/hook",
        "{allowed}"
    );
    let refused = create("https://10.8.1.1/hook");
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("10.8.1.1 is private"),
        "{refused}"
    );
    let plain = create("http://127.0.0.1:9/hook");
    assert!(
        plain["error"]["message"]
            .as_str()
            .unwrap()
            .contains("https"),
        "{plain}"
    );
    skillgate_testkit::cli::stop(child);
    // The push flags need --push; a bad range is a usage error naming it.
    let o = skillgate().run(&["serve", "--allow-http-push"]);
    assert_eq!(skillgate_testkit::cli::code(&o), 2);
    let o = skillgate().run(&["serve", "--push", "--push-allow-cidr", "10.0.0.0/99"]);
    assert_eq!(skillgate_testkit::cli::code(&o), 2);
    assert!(skillgate_testkit::cli::stderr(&o).contains("CIDR"));
    let help = skillgate().run(&["serve", "--help"]);
    let help = skillgate_testkit::cli::stdout(&help);
    for flag in ["--push", "--allow-http-push", "--push-allow-cidr <CIDR>"] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn serve_grpc_listen_serves_the_grpc_binding_and_stops_on_sigterm() {
    let (child, url) = skillgate().spawn_server(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--grpc-listen",
            "127.0.0.1:0",
            "--store",
            "memory",
        ],
        Stdio::null(),
    );
    let addr = url.strip_prefix("http://").unwrap().to_owned();
    let card = http(
        &addr,
        &format!("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"),
    );
    let body = &card[card.find("\r\n\r\n").unwrap() + 4..];
    let card: serde_json::Value = serde_json::from_str(body).unwrap();
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    // The GRPC interface comes after the HTTP ones (the 0.3 interfaces, when served, follow
    // the 1.0 ones).
    let grpc = interfaces
        .iter()
        .find(|i| i["protocolBinding"] == "GRPC")
        .unwrap_or_else(|| panic!("no GRPC interface: {card}"));
    let http_after = interfaces
        .iter()
        .position(|i| i["protocolBinding"] == "GRPC")
        .is_some_and(|g| {
            interfaces[..g]
                .iter()
                .any(|i| i["protocolBinding"] == "JSONRPC")
        });
    assert!(http_after, "{card}");
    let grpc_addr = grpc["url"].as_str().unwrap().to_owned();
    assert!(grpc_addr.starts_with("127.0.0.1:"), "{grpc_addr}");

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let state = rt.block_on(async {
        use skillgate_grpc::pb;
        let mut c =
            pb::a2a_service_client::A2aServiceClient::connect(format!("http://{grpc_addr}"))
                .await
                .unwrap();
        let m: pb::SendMessageRequest = serde_json::from_value(serde_json::json!({"message": {
            "messageId": "g1", "role": "ROLE_USER", "parts": [{"data": {"skill": "describe_skill",
            "arguments": {"skill_id": "evaluate_resource_condition"}}}]}}))
        .unwrap();
        let mut r = tonic::Request::new(m);
        r.metadata_mut()
            .insert("a2a-version", "1.0".parse().unwrap());
        let out = c.send_message(r).await.unwrap().into_inner();
        serde_json::to_value(&out).unwrap()["task"]["status"]["state"].clone()
    });
    assert_eq!(state, "TASK_STATE_COMPLETED");
    skillgate_testkit::cli::stop(child);
}

#[test]
fn client_commands_speak_grpc_with_binding_grpc() {
    let (child, url) = skillgate().spawn_server(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--grpc-listen",
            "127.0.0.1:0",
            "--store",
            "memory",
        ],
        Stdio::null(),
    );
    let skill = "evaluate_resource_condition";
    let describe = skillgate().run(&["describe", &url, skill, "--binding", "grpc", "-v"]);
    let err = String::from_utf8_lossy(&describe.stderr).to_string();
    let out = String::from_utf8_lossy(&describe.stdout).to_string();
    assert!(describe.status.success(), "{out}{err}");
    assert!(out.contains("interface GRPC http://127.0.0.1:"), "{out}");
    assert!(
        err.contains("gRPC http://127.0.0.1:"),
        "the calls went over gRPC: {err}"
    );

    let args = r#"{"resource_id":"lo","condition":{"metric":"rx_bytes_per_second","operator":"gte","threshold":0,"unit":"bytes_per_second"},"window_ms":200}"#;
    for stream in [false, true] {
        let mut a = vec![
            "call",
            &url,
            skill,
            "--binding",
            "grpc",
            "--args",
            args,
            "--format",
            "json",
        ];
        if stream {
            a.push("--stream");
        }
        let call = skillgate().run(&a);
        let out = String::from_utf8_lossy(&call.stdout).to_string();
        assert!(call.status.success(), "stream {stream}: {out}");
        let last: serde_json::Value =
            serde_json::from_str(out.trim().lines().last().unwrap()).unwrap();
        assert_eq!(last["ok"], true, "{out}");
    }

    let missing = skillgate().run(&["task", "get", &url, "no-such-task", "--binding", "grpc"]);
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr).to_string();
    assert!(
        err.contains("gRPC NOT_FOUND") && err.contains("no-such-task"),
        "{err}"
    );

    let conf = skillgate().run(&["conformance", &url, "--binding", "grpc", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&conf.stdout).unwrap();
    assert_eq!(report["binding"], "GRPC", "{report}");
    assert_eq!(report["summary"]["fail"], 0, "{report}");
    assert!(conf.status.success());
    skillgate_testkit::cli::stop(child);
}

//! URL passwords never reach the output of `card lint` or `conformance`, in any format, also
//! when they come from a redirect or from the card itself.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::thread;

use skillgate_testkit::server::TestServer;

use super::skillgate;

const SECRETS: [&str; 3] = ["S3cret", "R3dir", "C4rd"];

/// A tiny HTTP server answering `routes` (path, status line or `302 <location>`, body).
fn serve(routes: Vec<(String, String, Vec<u8>)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                    break;
                }
            }
            let (status, body) = routes
                .iter()
                .find(|(p, _, _)| *p == path)
                .map(|(_, s, b)| (s.clone(), b.clone()))
                .unwrap_or(("404 Not Found".into(), b"{}".to_vec()));
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

fn assert_no_secret(what: &str, o: &std::process::Output) {
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    for s in SECRETS {
        assert!(!all.contains(s), "{what} printed {s}:\n{all}");
    }
}

fn with_password(url: &str, user: &str, pass: &str) -> String {
    url.replace("http://", &format!("http://{user}:{pass}@"))
}

#[test]
fn card_lint_never_prints_url_passwords() {
    let agent = TestServer::on_thread(
        || skillgate_netops::agent().build().unwrap(),
        skillgate_runtime::ServerConfig::default(),
    );
    // The agent's own card, with a password in an interface URL, and a card with a defect.
    let card: serde_json::Value = serde_json::from_str(&reqwest_free_get(&format!(
        "{}/.well-known/agent-card.json",
        agent.base
    )))
    .unwrap();
    let mut leaky = card.clone();
    leaky["supportedInterfaces"][0]["url"] =
        serde_json::json!(with_password(&agent.base, "carol", "C4rd"));
    let mut broken = leaky.clone();
    broken["supportedInterfaces"][0]["url"] = serde_json::json!("http://carol:C4rd@[bad");
    let fake = serve(vec![
        (
            "/card.json".into(),
            "200 OK".into(),
            serde_json::to_vec(&leaky).unwrap(),
        ),
        (
            "/broken.json".into(),
            "200 OK".into(),
            serde_json::to_vec(&broken).unwrap(),
        ),
        ("/missing.json".into(), "404 Not Found".into(), vec![]),
    ]);
    let redirector = serve(vec![
        (
            "/r.json".into(),
            format!("302 {}/card.json", with_password(&fake, "bob", "R3dir")),
            vec![],
        ),
        (
            "/r404.json".into(),
            format!("302 {}/missing.json", with_password(&fake, "bob", "R3dir")),
            vec![],
        ),
    ]);
    for target in [
        format!("{}/card.json", with_password(&fake, "alice", "S3cret")),
        format!("{}/broken.json", with_password(&fake, "alice", "S3cret")),
        format!("{}/missing.json", with_password(&fake, "alice", "S3cret")),
        format!("{redirector}/r.json"),
        format!("{redirector}/r404.json"),
        with_password(&agent.base, "alice", "S3cret"),
    ] {
        for format in ["text", "json", "sarif"] {
            for deep in [false, true] {
                let mut args = vec!["card", "lint", &target, "--format", format];
                if deep {
                    args.push("--deep");
                }
                let o = skillgate().run(&args);
                assert_no_secret(&format!("card lint {target} {format} deep={deep}"), &o);
            }
        }
    }
}

#[test]
fn conformance_never_prints_url_passwords() {
    let agent = TestServer::on_thread(
        || skillgate_netops::agent().build().unwrap(),
        skillgate_runtime::ServerConfig::default(),
    );
    let redirector = serve(vec![(
        "/.well-known/agent-card.json".into(),
        format!(
            "302 {}/.well-known/agent-card.json",
            with_password(&agent.base, "bob", "R3dir")
        ),
        vec![],
    )]);
    let dead = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let a = l.local_addr().unwrap();
        drop(l);
        format!("http://alice:S3cret@{a}")
    };
    for target in [
        with_password(&agent.base, "alice", "S3cret"),
        redirector.clone(),
        dead,
    ] {
        for format in ["text", "json"] {
            let o = skillgate().run(&["conformance", &target, "--format", format]);
            assert_no_secret(&format!("conformance {target} {format}"), &o);
        }
    }
}

/// GET with std only (the CLI crate has no HTTP client among its test dependencies).
fn reqwest_free_get(url: &str) -> String {
    use std::io::Read;
    let rest = url.trim_start_matches("http://");
    let (host, path) = rest.split_once('/').unwrap();
    let mut s = std::net::TcpStream::connect(host).unwrap();
    s.write_all(
        format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out.split("\r\n\r\n").nth(1).unwrap().to_string()
}

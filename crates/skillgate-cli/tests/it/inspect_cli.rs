//! `skillgate inspect`: the real binary serving the inspector on an ephemeral loopback port,
//! pointed at a real netops agent, read over raw HTTP, stopped with SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::Duration;

use skillgate_testkit::cli::{code, stderr, stop};
use skillgate_testkit::server::TestServer;

use super::skillgate;

fn get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(
        format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/html\r\nConnection: close\r\n\r\n"
        )
        .as_bytes(),
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn inspect_prints_the_url_to_open_and_shows_the_agent() {
    let agent = TestServer::on_thread(
        || skillgate_netops::agent().build().unwrap(),
        skillgate_runtime::ServerConfig::default(),
    );
    let mut child = skillgate()
        .command()
        .args(["inspect", &agent.base])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (mut first, mut second) = (String::new(), String::new());
    stdout.read_line(&mut first).unwrap();
    stdout.read_line(&mut second).unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("first line: {first:?}"))
        .to_owned();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    let open = second.trim();
    assert!(
        open.starts_with(&format!(
            "open http://{addr}/?agent=http%3A%2F%2F127.0.0.1%3A"
        )),
        "{open}"
    );
    // The URL given on the command line is the default agent.
    let page = get(&addr, "/");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("collect_interface_counters"), "{page}");
    assert!(page.contains("Card lint"), "{page}");
    stop(child);
}

#[test]
fn inspect_refuses_to_listen_beyond_loopback() {
    let o = skillgate().run(&["inspect", "--listen", "0.0.0.0:0"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("loopback only"), "{}", stderr(&o));
    let o = skillgate().run(&["inspect", "--token-file", "/nonexistent/token"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--token-file"), "{}", stderr(&o));
}

#[test]
fn inspect_shows_an_a2a_0_3_agent_with_both_0_3_interfaces() {
    let config = skillgate_runtime::ServerConfig {
        a2a_versions: skillgate_runtime::checks::VersionSet::only(
            skillgate_a2a::version::WireVersion::V0_3,
        ),
        ..skillgate_runtime::ServerConfig::default()
    };
    let agent = TestServer::on_thread(|| skillgate_netops::agent().build().unwrap(), config);
    let mut child = skillgate()
        .command()
        .args(["inspect", &agent.base])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("first line: {first:?}"))
        .to_owned();
    let page = get(&addr, "/");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    // The 0.3 card read: both 0.3 interfaces listed with their version, and the skills.
    for iface in ["<code>JSONRPC</code>", "<code>HTTP+JSON</code>"] {
        let at = page
            .find(iface)
            .unwrap_or_else(|| panic!("{iface}: {page}"));
        assert!(page[at..].contains("A2A 0.3"), "{iface}");
    }
    assert!(page.contains("collect_interface_counters"), "{page}");
    stop(child);
}

//! `skillgate gateway` as a process in front of testkit's plain upstream agent: conformance
//! passes on it, a drifted upstream skill is refused until SIGHUP, start-up refuses an
//! unknown upstream skill with the config's line.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use skillgate_testkit::cli::{code, stderr, stdout, stdout_json};
use skillgate_testkit::plain::{sum_document, PlainAgent, SUM_SKILL};

use super::skillgate;

fn write_config(dir: &Path, extra: &str) -> PathBuf {
    let doc = sum_document();
    std::fs::write(
        dir.join("sum.json"),
        serde_json::to_vec_pretty(doc.value()).unwrap(),
    )
    .unwrap();
    let path = dir.join("gateway.toml");
    std::fs::write(
        &path,
        format!("[gateway]\nrefresh = \"1s\"\n\n[[skills]]\ninterface = \"sum.json\"\n{extra}\n"),
    )
    .unwrap();
    path
}

/// Starts the gateway; returns the child, its URL and its stderr lines.
fn gateway(upstream: &str, config: &Path) -> (Child, String, mpsc::Receiver<String>) {
    let config = config.to_str().unwrap();
    let (mut child, url) = skillgate().spawn_server(
        &[
            "gateway",
            "--upstream",
            upstream,
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--config",
            config,
        ],
        Stdio::piped(),
    );
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, url, rx)
}

fn wait_for(rx: &mpsc::Receiver<String>, needle: &str) -> String {
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("no {needle:?} on stderr"));
        if line.contains(needle) {
            return line;
        }
    }
}

fn signal(child: &Child, sig: &str) {
    assert!(Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success());
}

fn call(url: &str) -> std::process::Output {
    skillgate().run(&[
        "call",
        url,
        SUM_SKILL,
        "--args",
        r#"{"a": 2, "b": 3}"#,
        "--format",
        "json",
    ])
}

#[test]
fn the_gateway_passes_conformance_and_refuses_a_drifted_skill_until_sighup() {
    let up = PlainAgent::start();
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "output = { artifact = \"result\" }");
    let (mut child, url, err) = gateway(&up.base, &config);
    wait_for(&err, "gateway in front of");

    let conf = skillgate().run(&["conformance", &url]);
    assert_eq!(code(&conf), 0, "{}", stdout(&conf));
    let ok = call(&url);
    assert_eq!(code(&ok), 0, "{}", stdout(&ok));
    assert_eq!(stdout_json(&ok)["output"]["sum"], 5.0);

    // The upstream changes its skill: reported within a refresh, then refused.
    up.state.lock().unwrap().description = "Now multiplies".into();
    let line = wait_for(&err, "changed in the upstream card");
    assert!(line.contains("`sum`"), "{line}");
    let before = up.calls();
    let refused = call(&url);
    assert_eq!(code(&refused), 1);
    assert!(
        stdout(&refused).contains("execution_failed"),
        "{}",
        stdout(&refused)
    );
    assert_eq!(up.calls(), before, "a drifted skill reached upstream");

    // SIGHUP re-reads the upstream card: served again.
    signal(&child, "-HUP");
    wait_for(&err, "reloaded");
    let again = call(&url);
    assert_eq!(code(&again), 0, "{}", stdout(&again));

    signal(&child, "-TERM");
    assert!(child.wait().unwrap().success());
}

#[test]
fn the_gateway_shows_the_web_console() {
    use std::io::{Read, Write};
    let up = PlainAgent::start();
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "output = { artifact = \"result\" }");
    let (mut child, url, _err) = gateway(&up.base, &config);
    let addr = url.trim_start_matches("http://").to_owned();
    let get = |path: &str| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/html\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    let index = get("/");
    assert!(index.starts_with("HTTP/1.1 200"), "{index}");
    assert!(
        index.contains(&format!("href=\"/console/skills/{SUM_SKILL}\"")),
        "{index}"
    );
    let skill = get(&format!("/console/skills/{SUM_SKILL}"));
    assert!(skill.starts_with("HTTP/1.1 200"), "{skill}");
    assert!(skill.contains("urn:test:sum:input"), "{skill}");
    signal(&child, "-TERM");
    assert!(child.wait().unwrap().success());
}

#[test]
fn start_up_refuses_an_unknown_upstream_skill_and_an_unreachable_upstream() {
    let up = PlainAgent::start();
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "upstream_skill = \"nope\"");
    let args = |upstream: &str| {
        skillgate().run(&[
            "gateway",
            "--upstream",
            upstream,
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--config",
            config.to_str().unwrap(),
        ])
    };
    let out = args(&up.base);
    assert_eq!(code(&out), 2);
    let e = stderr(&out);
    assert!(
        e.contains("gateway.toml:4") && e.contains("`nope`") && e.contains("sum, hidden"),
        "{e}"
    );
    assert!(stdout(&out).is_empty(), "nothing listened");

    // An upstream whose card is not signed by a trusted key is refused.
    let good = write_config(dir.path(), "");
    let jwks = format!(
        "{}/../skillgate-sign/tests/data/jwks.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = skillgate().run(&[
        "gateway",
        "--upstream",
        &up.base,
        "--listen",
        "127.0.0.1:0",
        "--store",
        "memory",
        "--config",
        good.to_str().unwrap(),
        "--upstream-trust-jwks",
        &jwks,
    ]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("is not trusted"), "{}", stderr(&out));

    // (The file `args` names is now the valid config: only the unreachable upstream fails.)
    up.stop();
    std::thread::sleep(Duration::from_millis(100));
    let out = args(&up.base);
    assert_eq!(code(&out), 2);
    let e = stderr(&out);
    assert!(e.contains("upstream agent"), "{e}");
    assert_eq!(
        e.matches("not reachable").count(),
        1,
        "the reason is said once: {e}"
    );
}

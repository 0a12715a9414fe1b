//! A real headless browser for the console tests: Debian's chromium driven over chromedriver
//! (WebDriver) on a free loopback port. Needs `chromium` and `chromedriver` on the PATH
//! (`.ci/run` installs them); the tests using it are `#[ignore]`d by default.

use crate::poll::eventually;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// chromedriver in a process group of its own, which is killed when the test ends however it
/// ends: a failing test never closes its WebDriver session, and killing chromedriver alone
/// would leave the browser it started running.
pub struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts chromedriver and a headless chromium session (1200x1000) through it.
pub async fn browser() -> (Driver, Client) {
    let port = free_port();
    let driver = Driver(
        Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver on the PATH (apt-get install chromium chromium-driver)"),
    );
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({"args": ["--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-dev-shm-usage", "--window-size=1200,1000"]}),
    );
    let url = format!("http://127.0.0.1:{port}");
    let client = eventually(Duration::from_secs(30), || {
        let caps = caps.clone();
        let url = url.clone();
        async move {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            ClientBuilder::new(connector)
                .capabilities(caps)
                .connect(&url)
                .await
                .ok()
        }
    })
    .await;
    (driver, client)
}

/// The text of the first element matching `css`.
pub async fn text(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// The text of the first element matching `css`, or `None` while there is none (or the page
/// is being replaced, so the element went stale): for polling across a navigation.
pub async fn try_text(c: &Client, css: &str) -> Option<String> {
    c.find(Locator::Css(css)).await.ok()?.text().await.ok()
}

/// Waits (20 s at most) until the element has text that does not start with any of `busy`.
pub async fn settled(c: &Client, css: &str, busy: &[&str]) -> String {
    eventually(Duration::from_secs(20), || async {
        let t = text(c, css).await;
        (!t.is_empty() && !busy.iter().any(|b| t.starts_with(b))).then_some(t)
    })
    .await
}

/// Writes a screenshot as `name` into `$SKILLGATE_SCREENSHOTS` when that is set.
pub async fn screenshot(c: &Client, name: &str) {
    if let Ok(dir) = std::env::var("SKILLGATE_SCREENSHOTS") {
        let png = c.screenshot().await.unwrap();
        std::fs::write(std::path::Path::new(&dir).join(name), png).unwrap();
    }
}

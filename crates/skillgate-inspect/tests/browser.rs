//! The inspector in a real browser: headless chromium over chromedriver against a real
//! inspector and a real netops agent, both on ephemeral loopback ports. The test enters the
//! agent's URL, runs conformance and watches its progress finish, opens a skill, sends a valid
//! and an invalid call through the validated client, follows the task link, and follows and
//! cancels a running task.
//!
//! Ignored by default (it needs `chromium` and `chromedriver` on the PATH); run it with
//! `cargo test -p skillgate-inspect --test browser -- --ignored`. With
//! `SKILLGATE_SCREENSHOTS=DIR` it writes `console-inspect.png` there.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point

use fantoccini::{Client, Locator};
use serde_json::Value;
use skillgate_inspect::{serve, InspectConfig};
use skillgate_runtime::ServerConfig;
use skillgate_testkit::browser::{browser, screenshot, settled, text, try_text};
use skillgate_testkit::poll::eventually;
use skillgate_testkit::server::TestServer;
use std::time::Duration;

async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

async fn type_into(c: &Client, css: &str, keys: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .send_keys(keys)
        .await
        .unwrap();
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver; .ci/run installs them and runs it"]
async fn inspector_in_a_real_browser() {
    let agent = TestServer::start(
        skillgate_netops::agent().build().unwrap(),
        ServerConfig::default(),
    )
    .await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let inspector = tokio::spawn(serve(listener, InspectConfig::default(), async move {
        let _ = stopped.await;
    }));
    let (_driver, c) = browser().await;

    // Enter the agent's URL: card, lint findings and skills.
    c.goto(&format!("{base}/")).await.unwrap();
    type_into(&c, "input#agent", &agent.base).await;
    click(&c, "form#agent-form button[type='submit']").await;
    c.wait()
        .for_element(Locator::Css("section#findings"))
        .await
        .unwrap();
    assert!(
        text(&c, "h1").await.contains("netops"),
        "{}",
        text(&c, "h1").await
    );
    assert!(text(&c, "section#findings").await.contains("Card lint"));

    // Conformance with live progress, until the verdict.
    click(&c, "#conformance-start").await;
    let saw_running = std::sync::atomic::AtomicBool::new(false);
    let finished = eventually(Duration::from_secs(120), || async {
        let t = text(&c, "#conformance-progress").await;
        if t.starts_with("running: ") {
            saw_running.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        t.starts_with("finished").then_some(t)
    })
    .await;
    assert!(
        saw_running.load(std::sync::atomic::Ordering::Relaxed),
        "the progress was shown while the run went on"
    );
    assert!(finished.contains("finished: conformant"), "{finished}");
    let rows = c
        .find_all(Locator::Css("#conformance-checks tr"))
        .await
        .unwrap();
    assert!(rows.len() > 10, "{} rows", rows.len());
    c.execute(
        "document.querySelector('section#conformance').scrollIntoView()",
        vec![],
    )
    .await
    .unwrap();
    screenshot(&c, "console-inspect.png").await;

    // A skill: the client's verdict on its document, then a validated call.
    click(&c, "a[href$='id=collect_interface_counters']").await;
    c.wait()
        .for_element(Locator::Css("form#try"))
        .await
        .unwrap();
    assert!(text(&c, "#digest-verdict")
        .await
        .starts_with("Three-way digest check passed"));
    type_into(&c, "input[name='interface']", "lo").await;
    type_into(&c, "input[name='window_ms']", "100").await;
    click(&c, "form#try button[type='submit']").await;
    assert_eq!(
        settled(&c, "#state", &["sending"]).await,
        "TASK_STATE_COMPLETED"
    );
    let output: Value = serde_json::from_str(&text(&c, "#output").await).unwrap();
    assert_eq!(output["interface"], "lo");

    // The result links the remote task's view on the inspector.
    click(&c, "#task-link").await;
    c.wait()
        .for_element(Locator::Css("section#task"))
        .await
        .unwrap();
    assert_eq!(text(&c, "#task-state").await, "TASK_STATE_COMPLETED");
    c.back().await.unwrap();
    c.wait()
        .for_element(Locator::Css("form#try"))
        .await
        .unwrap();

    // An invalid call is refused by the client before anything is sent.
    type_into(&c, "textarea[name='__arguments']", r#"{"interface": ""}"#).await;
    click(&c, "form#try button[type='submit']").await;
    let state = settled(&c, "#state", &["sending", "TASK_STATE"]).await;
    assert!(state.starts_with("refused (local, step 7"), "{state}");
    assert_eq!(text(&c, "#code").await, "input_invalid");
    assert!(text(&c, "#paths")
        .await
        .contains("instance_path \"/interface\""));

    // A running remote task (on a second agent: conformance above would wait for `hold`):
    // live events relayed by the inspector, Cancel as a plain form.
    let holder = TestServer::start(
        skillgate_runtime::Agent::builder("holder", "holds tasks open", "1.0")
            .skill(skillgate_testkit::server::hold_skill())
            .build()
            .unwrap(),
        ServerConfig::default(),
    )
    .await;
    let id = holder.start_task("hold", serde_json::json!({})).await;
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    c.goto(&format!(
        "{base}/task?agent={}&id={}",
        enc(&holder.base),
        enc(&id)
    ))
    .await
    .unwrap();
    eventually(Duration::from_secs(20), || async {
        text(&c, "#events")
            .await
            .contains("task TASK_STATE_WORKING")
            .then_some(())
    })
    .await;
    click(&c, "form#cancel-form button[type='submit']").await;
    eventually(Duration::from_secs(20), || async {
        // The cancel form posts and the browser loads the task view again.
        (try_text(&c, "#task-state").await? == "TASK_STATE_CANCELED").then_some(())
    })
    .await;
    assert_eq!(
        text(&c, "#events-note").await,
        "The task is in a terminal state: no more events."
    );

    c.close().await.unwrap();
    let _ = stop.send(());
    inspector.await.unwrap().unwrap();
    holder.shutdown().await;
    agent.shutdown().await;
}

//! The web console in a real browser: Debian's headless chromium driven over chromedriver
//! (WebDriver) against a real server on an ephemeral loopback port. The test opens the
//! console, clicks through to a skill, submits a valid call, follows the result's link to the
//! task view, submits an invalid call and checks what each page shows.
//!
//! Ignored by default (it needs `chromium` and `chromedriver` on the PATH); `.ci/run` installs
//! them and runs it with `cargo test -p skillgate-server --test browser -- --ignored`. With
//! `SKILLGATE_SCREENSHOTS=DIR` it writes the skill page after the refused call there
//! as `console-skill.png` and the canceled task's page as `console-task.png` (the ones in docs/).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure is the point
#![cfg(feature = "console")]

use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use skillgate_runtime::*;
use skillgate_testkit::browser::{browser, screenshot, text};
use skillgate_testkit::poll::eventually;
use skillgate_testkit::server::TestServer;
use std::time::Duration;

fn check_skill() -> Skill {
    let schema = "https://json-schema.org/draft/2020-12/schema";
    Skill::builder("check_link", "1.0")
        .name("Check link")
        .description("Says whether a link's error count is under a limit")
        .tags(["netops"])
        .input_schema(
            "urn:test:browser:input",
            "1.0",
            json!({"$schema": schema, "type": "object", "required": ["link", "limit"],
                "additionalProperties": false,
                "properties": {"link": {"type": "string", "minLength": 1, "description": "interface name"},
                    "limit": {"type": "integer", "minimum": 0}}}),
        )
        .output_schema(
            "urn:test:browser:output",
            "1.0",
            json!({"$schema": schema, "type": "object", "required": ["link", "ok"],
                "properties": {"link": {"type": "string"}, "ok": {"type": "boolean"}}}),
        )
        .record_schema(
            "observation",
            "urn:test:browser:record",
            "1.0",
            json!({"$schema": schema, "type": "object", "required": ["errors"],
                "properties": {"errors": {"type": "integer"}}}),
        )
        .handler(|args: Value, ctx: SkillContext| async move {
            let id = ctx.new_record_artifact_id();
            Ok(SkillOutput::new(json!({"link": args["link"], "ok": args["limit"].as_i64() > Some(3), "supporting_record_refs": [id]}))
                .with_record(SupportingRecord {
                    artifact_id: id,
                    kind: "observation".into(),
                    data: json!({"errors": 3}),
                }))
        })
        .build()
}

/// Waits until the element has text and the call is no longer being sent.
async fn settled(c: &Client, css: &str) -> String {
    skillgate_testkit::browser::settled(c, css, &["sending"]).await
}

#[tokio::test]
#[ignore = "needs chromium and chromedriver; .ci/run installs them and runs it"]
async fn console_in_a_real_browser() {
    let agent = Agent::builder("browser-agent", "An agent for the browser test", "0.1.0")
        .provider("skillgate tests", "https://example.invalid")
        .skill(check_skill())
        .skill(skillgate_testkit::server::hold_skill())
        .build()
        .unwrap();
    let s = TestServer::start(agent, ServerConfig::default()).await;
    let (_driver, c) = browser().await;

    c.goto(&format!("{}/", s.base)).await.unwrap();
    assert_eq!(text(&c, "h1").await, "browser-agent 0.1.0");
    c.find(Locator::Css("a[href='/console/skills/check_link']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait()
        .for_element(Locator::Css("form#try"))
        .await
        .unwrap();
    assert!(c
        .current_url()
        .await
        .unwrap()
        .path()
        .ends_with("/check_link"));
    assert!(text(&c, "table.fields").await.contains("interface name"));

    // A valid call through the generated inputs.
    c.find(Locator::Css("input[name='link']"))
        .await
        .unwrap()
        .send_keys("eth0")
        .await
        .unwrap();
    c.find(Locator::Css("input[name='limit']"))
        .await
        .unwrap()
        .send_keys("5")
        .await
        .unwrap();
    c.find(Locator::Css("form#try button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(settled(&c, "#state").await, "TASK_STATE_COMPLETED");
    let output: Value = serde_json::from_str(&text(&c, "#output").await).unwrap();
    assert_eq!(output["link"], "eth0");
    assert_eq!(output["ok"], true);
    let records: Value = serde_json::from_str(&text(&c, "#records").await).unwrap();
    assert_eq!(records[0]["kind"], "observation");
    assert_eq!(records[0]["data"]["errors"], 3);

    // The result links the task view, which reads the task back through GetTask.
    let task_id = text(&c, "#task-link").await;
    assert!(!task_id.is_empty());
    c.find(Locator::Css("#task-link"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    c.wait()
        .for_element(Locator::Css("section#task"))
        .await
        .unwrap();
    assert_eq!(text(&c, "#task-state").await, "TASK_STATE_COMPLETED");
    let page = text(&c, "section#task").await;
    assert!(
        page.contains("\"ok\": true") && page.contains("observation"),
        "{page}"
    );
    assert!(text(&c, "#events-note").await.contains("terminal state"));
    c.back().await.unwrap();
    c.wait()
        .for_element(Locator::Css("form#try"))
        .await
        .unwrap();

    // An invalid call through the JSON fallback: refused by the gate, code and paths shown.
    c.find(Locator::Css("textarea[name='__arguments']"))
        .await
        .unwrap()
        .send_keys(r#"{"link": "", "limit": -1}"#)
        .await
        .unwrap();
    c.find(Locator::Css("form#try button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    eventually(Duration::from_secs(20), || async {
        (text(&c, "#state").await == "TASK_STATE_REJECTED").then_some(())
    })
    .await;
    assert_eq!(text(&c, "#code").await, "input_invalid");
    let paths = text(&c, "#paths").await;
    assert!(paths.contains("instance_path \"/link\""), "{paths}");
    assert!(paths.contains("instance_path \"/limit\""), "{paths}");
    c.execute(
        "document.querySelector('form#try').scrollIntoView()",
        vec![],
    )
    .await
    .unwrap();
    screenshot(&c, "console-skill.png").await;

    // A running task: the page follows its live events and cancels it.
    let id = s.start_task("hold", json!({})).await;
    c.goto(&format!("{}/console/tasks/{id}", s.base))
        .await
        .unwrap();
    eventually(Duration::from_secs(20), || async {
        (text(&c, "#events-note").await == "following the task…").then_some(())
    })
    .await;
    eventually(Duration::from_secs(20), || async {
        // The subscription starts with the task itself.
        text(&c, "#events")
            .await
            .contains("task TASK_STATE_WORKING")
            .then_some(())
    })
    .await;
    c.find(Locator::Css("#cancel"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    eventually(Duration::from_secs(20), || async {
        (text(&c, "#cancel-outcome").await == "cancel answered: TASK_STATE_CANCELED").then_some(())
    })
    .await;
    eventually(Duration::from_secs(20), || async {
        text(&c, "#events")
            .await
            .contains("status TASK_STATE_CANCELED")
            .then_some(())
    })
    .await;
    assert_eq!(text(&c, "#task-state").await, "TASK_STATE_CANCELED");
    assert_eq!(settled(&c, "#events-note").await, "the stream ended.");
    let cancel = c.find(Locator::Css("#cancel")).await.unwrap();
    assert!(
        !cancel.is_displayed().await.unwrap(),
        "no Cancel on a canceled task"
    );
    screenshot(&c, "console-task.png").await;

    c.close().await.unwrap();
    s.shutdown().await;
}

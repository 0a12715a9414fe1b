//! Credentials stay on the origin the user named: `--token` and `--header` reach the agent
//! URL given, never another origin that its card names or that a redirect leads to, unless
//! `--allow-credentials-to` names that origin. Two fake agents on two loopback ports are the
//! two origins; each records the headers it received.

use serde_json::json;
use skillgate_testkit::cli::{code, stderr, stdout};
use skillgate_testkit::fake::{CardMode, FakeAgent, Received, SKILL};

use super::skillgate;

const TOKEN: &str = "tok-0123456789abcdef";

/// Every request of `log` as (path, carried the token, carried the extra header).
fn credentials(log: &[Received]) -> Vec<(String, bool, bool)> {
    log.iter()
        .map(|r| {
            let token = r
                .headers
                .get("authorization")
                .is_some_and(|v| v.to_str().unwrap_or("").contains(TOKEN));
            (r.path.clone(), token, r.headers.contains_key("x-api-key"))
        })
        .collect()
}

fn describe(url: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "describe",
        url,
        SKILL,
        "--token",
        TOKEN,
        "--header",
        "X-Api-Key: key-0123456789",
    ];
    args.extend_from_slice(extra);
    skillgate().run(&args)
}

/// A card at `home` whose interface is on the other agent's origin.
fn pointing_to(other: &FakeAgent) -> FakeAgent {
    let iface = format!("{}/rpc", other.base);
    FakeAgent::start_with(move |s| {
        s.interfaces = Some(json!([
            {"url": iface, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ]));
    })
}

#[test]
fn a_card_naming_another_origin_does_not_get_the_credentials() {
    let other = FakeAgent::start();
    let home = pointing_to(&other);
    let out = describe(&home.base, &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        credentials(&home.log()).iter().all(|(_, t, h)| *t && *h),
        "the origin given gets both: {:?}",
        credentials(&home.log())
    );
    let sent = credentials(&other.log());
    assert!(
        !sent.is_empty(),
        "describe_skill went to the card's interface"
    );
    assert!(
        sent.iter().all(|(_, t, h)| !*t && !*h),
        "credentials reached another origin: {sent:?}"
    );
    assert!(
        stderr(&out).contains(&format!("note: {} is another origin", other.base))
            && stderr(&out).contains("--allow-credentials-to"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_allowed_origin_gets_the_credentials() {
    let other = FakeAgent::start();
    let home = pointing_to(&other);
    let out = describe(&home.base, &["--allow-credentials-to", &other.base]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let sent = credentials(&other.log());
    assert!(
        !sent.is_empty() && sent.iter().all(|(_, t, h)| *t && *h),
        "{sent:?}"
    );
    assert!(!stderr(&out).contains("another origin"), "{}", stderr(&out));
}

#[test]
fn a_redirect_to_another_origin_drops_every_credential() {
    // The card request is redirected to another origin, whose card then names itself.
    let other = FakeAgent::start();
    let card = format!("{}/.well-known/agent-card.json", other.base);
    let home = FakeAgent::start_with(move |s| s.card = CardMode::RedirectTo(card));
    let out = describe(&home.base, &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        credentials(&home.log()),
        vec![("/.well-known/agent-card.json".to_owned(), true, true)]
    );
    let sent = credentials(&other.log());
    assert!(sent.len() >= 2, "card and describe_skill: {sent:?}");
    assert!(
        sent.iter().all(|(_, t, h)| !*t && !*h),
        "credentials followed the redirect: {sent:?}"
    );

    let allowed = describe(&home.base, &["--allow-credentials-to", &other.base]);
    assert_eq!(code(&allowed), 0, "{}", stderr(&allowed));
    let sent = credentials(&other.log());
    assert!(sent.last().is_some_and(|(_, t, h)| *t && *h), "{sent:?}");
}

#[test]
fn a_bad_allowed_origin_is_a_usage_error() {
    let out = skillgate().run(&[
        "describe",
        "http://127.0.0.1:9",
        SKILL,
        "--allow-credentials-to",
        "not an origin",
    ]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--allow-credentials-to") && stderr(&out).contains("not an origin"),
        "{}",
        stderr(&out)
    );
}

//! Signed Agent Cards from the command line: `card sign`/`card verify` on files, `serve
//! --signing-key` verified over HTTP, and `--trust-jwks` refusing an unsigned card before
//! anything else is requested.

use std::process::{Child, Stdio};

use skillgate_testkit::cli::{code, stderr, stdout, stdout_json, stop};
use skillgate_testkit::fake::{FakeAgent, Faults, SKILL};

use super::skillgate;

fn key(name: &str) -> String {
    format!(
        "{}/../skillgate-sign/tests/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn serve(extra: &[&str]) -> (Child, String) {
    let mut args = vec!["serve", "--listen", "127.0.0.1:0", "--store", "memory"];
    args.extend_from_slice(extra);
    skillgate().spawn_server(&args, Stdio::null())
}

#[test]
fn sign_then_verify_a_card_file_and_refuse_a_tampered_one() {
    let dir = tempfile::tempdir().unwrap();
    let card = dir.path().join("card.json");
    std::fs::write(
        &card,
        r#"{"name": "a", "description": "d", "version": "1", "skills": []}"#,
    )
    .unwrap();
    let jwks = key("jwks.json");
    let unsigned = skillgate().run(&["card", "verify", card.to_str().unwrap(), "--jwks", &jwks]);
    assert_eq!(code(&unsigned), 1);
    assert!(
        stdout(&unsigned).contains("not signed"),
        "{}",
        stdout(&unsigned)
    );

    let signed = skillgate().run(&[
        "card",
        "sign",
        card.to_str().unwrap(),
        "--key",
        &key("eddsa.pem"),
        "--kid",
        "eddsa",
    ]);
    assert_eq!(code(&signed), 0, "{}", stderr(&signed));
    let signed_path = dir.path().join("signed.json");
    std::fs::write(&signed_path, stdout(&signed)).unwrap();
    let ok = skillgate().run(&[
        "card",
        "verify",
        signed_path.to_str().unwrap(),
        "--jwks",
        &jwks,
        "--format",
        "json",
    ]);
    assert_eq!(code(&ok), 0, "{}", stdout(&ok));
    assert_eq!(stdout_json(&ok)["kid"], "eddsa");
    assert_eq!(stdout_json(&ok)["alg"], "EdDSA");

    let tampered = stdout(&signed).replace("\"name\": \"a\"", "\"name\": \"b\"");
    std::fs::write(&signed_path, tampered).unwrap();
    let bad = skillgate().run(&[
        "card",
        "verify",
        signed_path.to_str().unwrap(),
        "--jwks",
        &jwks,
    ]);
    assert_eq!(code(&bad), 1);
    assert!(stdout(&bad).contains("does not match"), "{}", stdout(&bad));

    // The linter names the signature that no longer matches, with the key set.
    let lint =
        |path: &str| skillgate().run(&["card", "lint", path, "--jwks", &jwks, "--format", "json"]);
    let linted = stdout(&lint(signed_path.to_str().unwrap()));
    assert!(
        linted.contains("CARD-SIGN-004") && linted.contains("/signatures/0"),
        "{linted}"
    );
    std::fs::write(&signed_path, stdout(&signed)).unwrap();
    assert!(!stdout(&lint(signed_path.to_str().unwrap())).contains("CARD-SIGN-004"));

    let no_key = skillgate().run(&[
        "card",
        "sign",
        card.to_str().unwrap(),
        "--key",
        &jwks,
        "--kid",
        "x",
    ]);
    assert_eq!(code(&no_key), 2);
    assert!(stderr(&no_key).contains("not a PEM"), "{}", stderr(&no_key));
}

#[test]
fn a_served_signed_card_verifies_and_satisfies_trust_jwks() {
    let (child, url) = serve(&["--signing-key", &key("es256.pem"), "--kid", "es256"]);
    let jwks = key("jwks.json");
    let v = skillgate().run(&["card", "verify", &url, "--jwks", &jwks]);
    let d = skillgate().run(&[
        "describe",
        &url,
        "evaluate_resource_condition",
        "--trust-jwks",
        &jwks,
        "--format",
        "json",
    ]);
    stop(child);
    assert_eq!(code(&v), 0, "{}", stdout(&v));
    assert!(stdout(&v).contains("\"es256\" (ES256)"), "{}", stdout(&v));
    assert_eq!(code(&d), 0, "{}{}", stdout(&d), stderr(&d));
}

#[test]
fn trust_jwks_refuses_an_unsigned_card_before_anything_else_is_requested() {
    let fake = FakeAgent::start();
    let out = skillgate().run(&[
        "call",
        &fake.base,
        SKILL,
        "--args",
        r#"{"metric": "rx", "threshold": 1}"#,
        "--trust-jwks",
        &key("jwks.json"),
    ]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("not trusted") && stderr(&out).contains("not signed"),
        "{}",
        stderr(&out)
    );
    assert!(
        fake.posts().is_empty(),
        "a request followed the untrusted card"
    );
    // Without the flag the same call goes through: the refusal was the signature check.
    let ok = skillgate().run(&[
        "call",
        &fake.base,
        SKILL,
        "--args",
        r#"{"metric": "rx", "threshold": 1}"#,
    ]);
    assert_eq!(code(&ok), 0, "{}", stdout(&ok));
}

#[test]
fn conformance_with_trust_jwks_refuses_an_unsigned_card() {
    // A conformant agent whose card is unsigned: without the flag the run is conformant, so
    // a refusal can only come from the key set.
    let fake = FakeAgent::start_conformant(Faults::default());
    let jwks = key("jwks.json");
    let out = skillgate().run(&["conformance", &fake.base, "--trust-jwks", &jwks]);
    assert_eq!(code(&out), 2, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("not trusted") && stderr(&out).contains("not signed"),
        "{}",
        stderr(&out)
    );
    assert!(
        fake.posts().is_empty(),
        "a probe followed the untrusted card"
    );
    let json = skillgate().run(&[
        "conformance",
        &fake.base,
        "--trust-jwks",
        &jwks,
        "--format",
        "json",
    ]);
    assert_eq!(code(&json), 2, "{}", stdout(&json));
    assert_eq!(stdout_json(&json)["code"], "card_untrusted");

    let plain = skillgate().run(&["conformance", &fake.base]);
    assert_eq!(code(&plain), 0, "{}", stdout(&plain));
}

fn fixture(path: &str) -> String {
    format!(
        "{}/../skillgate-lint/tests/fixtures/{path}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// Signs `card` with the EdDSA test key and `extra` arguments; returns the signed card's path.
fn sign_into(dir: &std::path::Path, card: &str, extra: &[&str]) -> (i32, String, String) {
    let pem = key("eddsa.pem");
    let mut args = vec!["card", "sign", card, "--key", &pem, "--kid", "eddsa"];
    args.extend_from_slice(extra);
    let out = skillgate().run(&args);
    let path = dir.join(format!("signed-{}.json", extra.join("-")));
    std::fs::write(&path, stdout(&out)).unwrap();
    (code(&out), path.to_str().unwrap().to_owned(), stderr(&out))
}

/// The views `card verify --format json` reports, one per verified signature.
fn verified_views(path: &str) -> (i32, Vec<String>) {
    let out = skillgate().run(&[
        "card",
        "verify",
        path,
        "--jwks",
        &key("jwks.json"),
        "--format",
        "json",
    ]);
    let v = stdout_json(&out);
    let views = v["signatures"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| s["view"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default();
    (code(&out), views)
}

#[test]
fn card_sign_signs_for_the_readers_of_the_card_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = fixture("a2a-1.0/seed003-good.json");
    let hybrid = fixture("mixed/dual-version.json");
    let v03 = fixture("a2a-0.3/good.json");
    // By default: a 1.0 card for 1.0 readers; a 0.3 card and a hybrid one for both.
    for (card, want) in [
        (&v1, vec!["1.0"]),
        (&hybrid, vec!["1.0", "0.3"]),
        (&v03, vec!["1.0", "0.3"]),
    ] {
        let (c, signed, err) = sign_into(dir.path(), card, &[]);
        assert_eq!(c, 0, "{card}: {err}");
        let (c, views) = verified_views(&signed);
        assert_eq!(c, 0, "{card}");
        assert_eq!(views, want, "{card}");
    }
    // Named views.
    let (c, signed, _) = sign_into(dir.path(), &hybrid, &["--view", "1.0"]);
    assert_eq!(c, 0);
    assert_eq!(verified_views(&signed).1, ["1.0"]);
    let (c, only03, _) = sign_into(dir.path(), &hybrid, &["--view", "0.3"]);
    assert_eq!(c, 0);
    assert_eq!(verified_views(&only03).1, ["0.3"]);
    let text = skillgate().run(&["card", "verify", &only03, "--jwks", &key("jwks.json")]);
    assert_eq!(code(&text), 0, "{}", stdout(&text));
    assert!(
        stdout(&text).contains("for A2A 0.3 readers") && stdout(&text).contains("--trust-jwks"),
        "{}",
        stdout(&text)
    );
    let (c, both, _) = sign_into(dir.path(), &v1, &["--view", "both"]);
    assert_ne!(c, 0, "a 1.0 card has no 0.3 reader: {both}");
    let out = skillgate().run(&[
        "card",
        "sign",
        &v1,
        "--key",
        &key("eddsa.pem"),
        "--kid",
        "eddsa",
        "--view",
        "0.3",
    ]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("url"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "nothing printed: {}", stdout(&out));
}

#[test]
fn a_card_signed_for_both_readers_lints_clean_and_tampering_shows_per_view() {
    let dir = tempfile::tempdir().unwrap();
    let (c, signed, err) = sign_into(dir.path(), &fixture("mixed/dual-version.json"), &[]);
    assert_eq!(c, 0, "{err}");
    let jwks = key("jwks.json");
    let lint = skillgate().run(&["card", "lint", &signed, "--jwks", &jwks, "--format", "json"]);
    assert!(
        !stdout(&lint).contains("CARD-SIGN-004"),
        "the 0.3-view signature is not a mismatch: {}",
        stdout(&lint)
    );
    // `url` is read by 0.3 readers only: changing it breaks their signature, not 1.0's.
    let mut card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&signed).unwrap()).unwrap();
    card["url"] = serde_json::json!("https://elsewhere.example/");
    std::fs::write(&signed, card.to_string()).unwrap();
    assert_eq!(verified_views(&signed), (0, vec!["1.0".to_owned()]));
    let lint = skillgate().run(&["card", "lint", &signed, "--jwks", &jwks, "--format", "json"]);
    assert!(stdout(&lint).contains("/signatures/1"), "{}", stdout(&lint));
    card["name"] = serde_json::json!("someone else");
    std::fs::write(&signed, card.to_string()).unwrap();
    let (c, views) = verified_views(&signed);
    assert_eq!((c, views.len()), (1, 0));
}

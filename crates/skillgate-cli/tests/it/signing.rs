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

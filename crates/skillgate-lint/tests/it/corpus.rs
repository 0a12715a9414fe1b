//! Data-driven fixture corpus: every `fixtures/<dir>/NAME.json` has a `NAME.expect.json` with
//! the detected profile and the exact sorted list of rule ids (one entry per finding).
//! `SKILLGATE_BLESS=1` rewrites the expectations (review the diff before committing).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use skillgate_lint::{lint_bytes, ProfileChoice};

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for dir in ["a2a-1.0", "a2a-0.3", "agentvault-1.0", "mixed"] {
        let mut files: Vec<PathBuf> = fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_string_lossy().to_string();
                name.ends_with(".json") && !name.ends_with(".expect.json")
            })
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

fn expect_path(card: &Path) -> PathBuf {
    card.with_extension("expect.json")
}

#[test]
fn corpus_has_at_least_40_cards_in_every_profile() {
    let all = fixtures();
    assert!(all.len() >= 40, "only {} fixtures", all.len());
    for dir in ["a2a-1.0", "a2a-0.3", "agentvault-1.0", "mixed"] {
        let n = all
            .iter()
            .filter(|p| p.parent().unwrap().ends_with(dir))
            .count();
        assert!(n >= 5, "{dir} has only {n} fixtures");
    }
}

#[test]
fn every_fixture_yields_exactly_its_expected_rules() {
    let bless = std::env::var_os("SKILLGATE_BLESS").is_some();
    let mut failures = Vec::new();
    for card in fixtures() {
        let bytes = fs::read(&card).unwrap();
        let exp_path = expect_path(&card);
        let expected: Option<Value> = fs::read(&exp_path)
            .ok()
            .map(|b| serde_json::from_slice(&b).unwrap());
        let choice = match expected
            .as_ref()
            .and_then(|e| e.get("lint_profile"))
            .and_then(Value::as_str)
        {
            Some(p) => p.parse().unwrap(),
            None => ProfileChoice::Auto,
        };
        let report = lint_bytes(&bytes, choice).unwrap_or_else(|e| panic!("{card:?}: {e}"));
        let mut rules: Vec<&str> = report.findings.iter().map(|f| f.rule).collect();
        rules.sort_unstable();
        let got = json!({"profile": report.profile.as_str(), "rules": rules});
        if bless {
            let mut out = got.clone();
            if let Some(lp) = expected.as_ref().and_then(|e| e.get("lint_profile")) {
                out["lint_profile"] = lp.clone();
            }
            if let Some(n) = expected.as_ref().and_then(|e| e.get("note")) {
                out["note"] = n.clone();
            }
            fs::write(
                &exp_path,
                serde_json::to_string_pretty(&out).unwrap() + "\n",
            )
            .unwrap();
            continue;
        }
        let Some(expected) = expected else {
            failures.push(format!("{card:?}: no expectation file"));
            continue;
        };
        if expected["profile"] != got["profile"] || expected["rules"] != got["rules"] {
            let detail: Vec<String> = report
                .findings
                .iter()
                .map(|f| format!("  {} {} {}", f.rule, f.path, f.message))
                .collect();
            failures.push(format!(
                "{}:\n expected {} {}\n got      {} {}\n{}",
                card.display(),
                expected["profile"],
                expected["rules"],
                got["profile"],
                got["rules"],
                detail.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The seed cards, spelled out here too so that a careless bless cannot weaken them.
#[test]
fn seed_cards_behave_as_the_issue_requires() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let lint = |p: &str| lint_bytes(&fs::read(root.join(p)).unwrap(), ProfileChoice::Auto).unwrap();

    let good = lint("a2a-1.0/seed003-good.json");
    assert_eq!(good.profile.as_str(), "a2a-1.0");
    assert!(good.findings.is_empty(), "{:?}", good.findings);

    let neg = lint("mixed/seed003-negative.json");
    assert_eq!(neg.profile.as_str(), "a2a-1.0");
    let found: Vec<(&str, &str)> = neg
        .findings
        .iter()
        .map(|f| (f.rule, f.path.as_str()))
        .collect();
    for want in [
        ("A2A-LEGACY-001", "/url"),
        ("A2A-LEGACY-002", "/protocolVersion"),
        ("A2A-LEGACY-006", "/capabilities/stateTransitionHistory"),
        ("A2A-REQ-001", "/skills/0/tags"),
        ("A2A-LEGACY-008", "/skills/0/inputSchema"),
    ] {
        assert!(found.contains(&want), "missing {want:?} in {found:?}");
    }
    assert_eq!(neg.errors(), 5, "{found:?}");

    let av = lint("agentvault-1.0/seed002-complete.json");
    assert_eq!(av.profile.as_str(), "agentvault-1.0");
    assert!(av.findings.is_empty(), "{:?}", av.findings);

    for server in [
        "a2a-1.0/server-card.json",
        "a2a-1.0/server-card-with-auth.json",
    ] {
        let r = lint(server);
        assert!(r.findings.is_empty(), "{server}: {:?}", r.findings);
    }
}

/// URLs with userinfo are reported, but no message or hint repeats the password.
#[test]
fn no_finding_echoes_a_password() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for (file, secret) in [
        ("a2a-1.0/url-credentials-and-host-port.json", ":s3cret@"),
        ("a2a-1.0/url-credentials-and-host-port.json", ":pw@"),
        ("agentvault-1.0/url-credentials.json", ":pw@"),
    ] {
        let bytes = fs::read(root.join(file)).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.contains(secret), "{file} lost its secret {secret}");
        let report = lint_bytes(&bytes, ProfileChoice::Auto).unwrap();
        assert!(report.warnings() >= 2);
        let out = skillgate_lint::output::to_json(&report).to_string()
            + &skillgate_lint::output::to_text(&report, file);
        assert!(!out.contains(secret), "{file}: {out}");
        assert!(out.contains(":***@"), "{out}");
    }
    // A 1.0 card with credentials in a legacy top-level url: the migration hint redacts too.
    let card = br#"{"url":"http://u:topsecret@h.example/a2a","protocolVersion":"0.3.0","supportedInterfaces":[]}"#;
    let report = lint_bytes(card, ProfileChoice::Fixed(skillgate_lint::Profile::A2a10)).unwrap();
    let out = skillgate_lint::output::to_json(&report).to_string();
    assert!(!out.contains("topsecret"), "{out}");
    let report = lint_bytes(card, ProfileChoice::Fixed(skillgate_lint::Profile::A2a03)).unwrap();
    let out = skillgate_lint::output::to_json(&report).to_string();
    assert!(!out.contains("topsecret"), "{out}");
}

/// The server-shaped fixtures advertise the real digest of a real, valid Skill Interface
/// Document (kept beside them), not a placeholder.
#[test]
fn server_card_fixture_digest_is_real() {
    use skillgate_core::document::{validate_document, Expectations};
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let doc: Value = serde_json::from_slice(
        &fs::read(data.join("evaluate_resource_condition.interface.json")).unwrap(),
    )
    .unwrap();
    let findings = validate_document(&doc, &Expectations::default());
    assert!(findings.is_empty(), "{findings:?}");
    let digest = skillgate_core::digest(&doc).to_string();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/a2a-1.0");
    for f in [
        "server-card.json",
        "server-card-with-auth.json",
        "si-two-skills.json",
    ] {
        let card: Value = serde_json::from_slice(&fs::read(root.join(f)).unwrap()).unwrap();
        let advertised = skillgate_lint::advertised_skills(&card);
        let erc = advertised
            .iter()
            .find(|a| a.skill_id == "evaluate_resource_condition")
            .unwrap();
        assert_eq!(erc.interface_digest, digest, "{f}");
        assert_eq!(erc.skill_version, doc["skill_version"], "{f}");
    }
}

//! `docs/lint-rules.md` is the rendered catalogue; every rule is documented and reachable.

use std::path::Path;

use skillgate_lint::rules;

#[test]
fn docs_match_the_catalogue() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/lint-rules.md");
    let want = rules::catalogue_markdown();
    if std::env::var_os("SKILLGATE_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "docs/lint-rules.md is stale: run with SKILLGATE_BLESS=1"
    );
}

#[test]
fn ids_are_unique_and_well_formed() {
    let mut seen = std::collections::HashSet::new();
    for r in rules::ALL {
        assert!(seen.insert(r.id), "duplicate id {}", r.id);
        assert!(
            r.id.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-'),
            "{}",
            r.id
        );
        assert!(r.id.rsplit('-').next().unwrap().len() == 3, "{}", r.id);
        assert!(!r.what.is_empty() && !r.why.is_empty() && !r.fix.is_empty());
        assert_eq!(rules::by_id(r.id).map(|x| x.id), Some(r.id));
    }
}

/// Every rule except the `--deep` ones is produced by at least one fixture, so no rule is dead.
#[test]
fn every_rule_is_exercised_by_the_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut used = std::collections::HashSet::new();
    for dir in ["a2a-1.0", "a2a-0.3", "agentvault-1.0", "mixed"] {
        for f in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = f.unwrap().path();
            if p.to_string_lossy().ends_with(".expect.json") {
                let v: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
                for r in v["rules"].as_array().unwrap() {
                    used.insert(r.as_str().unwrap().to_string());
                }
            }
        }
    }
    let missing: Vec<&str> = rules::ALL
        .iter()
        .map(|r| r.id)
        // SI-DEEP needs a live agent and CARD-SIGN-004 a key set: the CLI tests cover them.
        .filter(|id| !id.starts_with("SI-DEEP") && *id != "CARD-SIGN-004" && !used.contains(*id))
        .collect();
    assert!(missing.is_empty(), "rules without a fixture: {missing:?}");
}

//! `docs/interface-diff.md` documents exactly the rules of the catalogue, each under its own
//! heading and in the table.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use skillgate_evolve::rules::RULES;

#[test]
fn the_rule_page_documents_exactly_the_catalogue() {
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/interface-diff.md"
    ))
    .unwrap();
    let headings: Vec<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix("## EVO-"))
        .collect();
    let ids: Vec<String> = RULES.iter().map(|r| r.id.replacen("EVO-", "", 1)).collect();
    assert_eq!(headings, ids, "headings of docs/interface-diff.md vs RULES");
    for r in RULES {
        let row = format!("| [`{}`](#{}) | {} |", r.id, r.id.to_lowercase(), r.what);
        assert!(page.contains(&row), "table row missing or stale: {row}");
    }
    assert!(page.contains(&format!("{} rules.", RULES.len())));
}

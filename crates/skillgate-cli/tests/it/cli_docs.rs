//! docs/cli.md is exactly what `skillgate docs markdown` prints, so the committed flag
//! reference cannot fall behind the clap definitions.

use std::path::Path;

use skillgate_testkit::cli::{code, stderr, stdout};

use super::skillgate;

const REGENERATE: &str = "cargo run -q -p skillgate-cli -- docs markdown > docs/cli.md \
     (or SKILLGATE_BLESS=1 cargo test -p skillgate-cli --test it cli_md)";

#[test]
fn cli_md_is_what_docs_markdown_prints() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md");
    let o = skillgate().run(&["docs", "markdown"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let fresh = stdout(&o);
    if std::env::var_os("SKILLGATE_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == fresh {
        return;
    }
    let (line, old, new) = committed
        .lines()
        .map(Some)
        .chain(std::iter::repeat(None))
        .zip(fresh.lines().map(Some).chain(std::iter::repeat(None)))
        .enumerate()
        .map(|(i, (a, b))| (i + 1, a, b))
        .find(|(_, a, b)| a != b)
        .unwrap_or((0, None, None));
    panic!(
        "docs/cli.md is stale: it differs from `skillgate docs markdown` at line {line}\n  \
         committed: {}\n  generated: {}\nregenerate it with: {REGENERATE}",
        old.unwrap_or("(end of file)"),
        new.unwrap_or("(end of file)"),
    );
}

#[test]
fn docs_is_hidden_from_help_and_the_man_page() {
    let help = stdout(&skillgate().run(&["--help"]));
    assert!(!help.contains("docs"), "{help}");
    let man = stdout(&skillgate().run(&["man"]));
    assert!(
        !man.contains("docs markdown"),
        "man page names the hidden command"
    );
    let markdown = stdout(&skillgate().run(&["docs", "markdown"]));
    assert!(!markdown.contains("## skillgate docs"), "{markdown}");
    assert!(markdown.contains("## skillgate task get\n"), "{markdown}");
}

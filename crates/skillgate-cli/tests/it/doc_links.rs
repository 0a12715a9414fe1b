//! Every relative link in README.md and docs/*.md leads somewhere: the file exists and, for
//! `#anchor`, the target Markdown file has a heading with that GitHub slug.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// GitHub's anchor for a heading: lowercase, spaces to `-`, every character that is not a
/// letter, digit, `-` or `_` dropped (no collapsing of repeated `-`).
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The lines of `text` outside fenced code blocks, with their 1-based numbers.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// Every anchor a Markdown text defines: its headings' slugs, a repeated slug getting `-1`,
/// `-2`, ... as on GitHub.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let Some(rest) = line.strip_prefix('#') else {
            continue;
        };
        let title = rest.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let base = slug(title);
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// The targets of the inline links on a line (`[text](target)`, images too), code spans left
/// out; `in_code` carries a code span that goes on from the previous line.
fn link_targets(line: &str, in_code: &mut bool) -> Vec<String> {
    let mut plain = String::new();
    for (i, part) in line.split('`').enumerate() {
        if i > 0 {
            *in_code = !*in_code;
        }
        // Link text in backticks leaves `[](target)`.
        if !*in_code {
            plain.push_str(part);
        }
    }
    let mut out = Vec::new();
    let mut rest = plain.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        match after.find(')') {
            Some(end) => {
                out.push(after[..end].trim().to_owned());
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
    out
}

/// Broken relative links of the Markdown file `file` (relative to `root`), each as
/// `file:line: target: reason`.
fn broken_links(root: &Path, file: &str) -> Vec<String> {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let dir = path.parent().unwrap();
    let mut broken = Vec::new();
    let mut in_code = false;
    for (n, line) in prose_lines(&text) {
        // A code span ends with its paragraph at the latest.
        if line.trim().is_empty() {
            in_code = false;
        }
        for target in link_targets(line, &mut in_code) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file_part, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let linked = if file_part.is_empty() {
                path.clone()
            } else {
                dir.join(file_part)
            };
            let mut problem = None;
            if !linked.exists() {
                problem = Some("no such file".to_owned());
            } else if let Some(anchor) = anchor {
                if linked.extension().is_some_and(|e| e == "md") {
                    let defined = anchors(&std::fs::read_to_string(&linked).unwrap());
                    if !defined.contains(anchor) {
                        problem = Some(format!("no heading with anchor #{anchor}"));
                    }
                }
            }
            if let Some(problem) = problem {
                broken.push(format!("{file}:{n}: ({target}): {problem}"));
            }
        }
    }
    broken
}

/// README.md and every docs/*.md, relative to the workspace root.
fn documents(root: &Path) -> Vec<String> {
    let mut files = vec!["README.md".to_owned()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let root = workspace_root();
    let broken: Vec<String> = documents(&root)
        .iter()
        .flat_map(|f| broken_links(&root, f))
        .collect();
    assert!(
        broken.is_empty(),
        "broken links:\n  {}",
        broken.join("\n  ")
    );
}

#[test]
fn github_slugs() {
    assert_eq!(slug("Task store"), "task-store");
    assert_eq!(
        slug("Inspect any agent: `skillgate inspect`"),
        "inspect-any-agent-skillgate-inspect"
    );
    assert_eq!(
        slug("Exit codes (every command)"),
        "exit-codes-every-command"
    );
    assert_eq!(slug("A2A-SEC_001 and 2^53"), "a2a-sec_001-and-253");
    assert_eq!(slug("From curl: the headers"), "from-curl-the-headers");
}

/// The checker finds a missing file, a missing anchor in another file and in the same file,
/// and ignores links in code.
#[test]
fn the_checker_finds_broken_links() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(
        dir.path().join("docs/a.md"),
        "# A\n\n## Task store\n\n## Task store\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("README.md"),
        "# R\n\n## Here\n\n[ok](docs/a.md#task-store) [dup](docs/a.md#task-store-1) \
         [self](#here) [web](https://x.example/#nope)\n\
         [gone](docs/b.md) [anchor](docs/a.md#tasks) [local](#there)\n\
         `[code](#nope)` `a code span\n[across](#nope) lines` [after](#gone)\n\
         ```\n[fenced](#nope)\n```\n",
    )
    .unwrap();
    assert_eq!(
        broken_links(dir.path(), "README.md"),
        [
            "README.md:6: (docs/b.md): no such file",
            "README.md:6: (docs/a.md#tasks): no heading with anchor #tasks",
            "README.md:6: (#there): no heading with anchor #there",
            "README.md:8: (#gone): no heading with anchor #gone",
        ]
    );
}

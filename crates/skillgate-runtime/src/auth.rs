//! Who a request comes from: the bearer token table, the caller it authenticates, and why a
//! request was refused. Written once so every binding (JSON-RPC, HTTP+JSON, gRPC) agrees.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// Name of the bearer scheme in the card's `securitySchemes`.
pub const BEARER_SCHEME_NAME: &str = "bearer";

/// One accepted bearer token. Its `Debug` shows the label and skills but never the secret, so
/// a logged configuration cannot leak a credential.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenEntry {
    token: String,
    /// The caller identity and task owner: the line's `label=NAME`, or else `sha256:` and 32
    /// hex digits of a hash of the token. Never the secret itself, and never where the token
    /// sits in the file, so editing the file cannot hand one token's tasks to another.
    pub label: String,
    /// Skills this token may use; `None` means all.
    pub skills: Option<BTreeSet<String>>,
    /// Line of the token file it came from.
    line: usize,
}

impl std::fmt::Debug for TokenEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenEntry")
            .field("token", &"<redacted>")
            .field("label", &self.label)
            .field("skills", &self.skills)
            .finish()
    }
}

impl TokenEntry {
    /// Whether this token may use the skill.
    pub fn allows(&self, skill_id: &str) -> bool {
        self.skills.as_ref().is_none_or(|s| s.contains(skill_id))
    }
}

/// A malformed token file.
#[derive(Debug, thiserror::Error)]
pub enum TokenFileError {
    /// The file could not be read.
    #[error("cannot read token file {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line is malformed.
    #[error("token file line {line}: {message}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// No token at all: a server with auth on and no tokens would refuse everyone.
    #[error("token file has no tokens")]
    Empty,
}

/// Shortest accepted bearer token, in bytes: shorter ones are guessable.
pub const MIN_TOKEN_BYTES: usize = 16;

/// What a token file line may hold, said in every refusal of a malformed one.
const LINE_FORMAT: &str = "expected `token [skill1,skill2] [label=NAME]` (skills separated by commas, no spaces; comments only on lines of their own, starting with #)";

/// Longest explicit label, in bytes.
const MAX_LABEL_BYTES: usize = 64;

/// An explicit `label=NAME`, checked: 1 to 64 of `A-Z a-z 0-9 . _ -`, and not `token-N` (the
/// line-number owners of earlier versions: taking one would inherit another token's tasks).
fn check_label(l: &str) -> Result<String, String> {
    if l.is_empty()
        || l.len() > MAX_LABEL_BYTES
        || !l
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        return Err(format!(
            "a label is 1 to {MAX_LABEL_BYTES} letters, digits, `.`, `_` or `-`"
        ));
    }
    if l.strip_prefix("token-")
        .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(format!(
            "`{l}` is reserved: earlier versions named owners by token line, and a task stored under it belongs to whichever token had that line"
        ));
    }
    Ok(l.to_owned())
}

/// The owner of a token without an explicit label: a domain-separated SHA-256 of the token,
/// cut to 128 bits. Stable across edits of the file and across replicas; it reveals nothing
/// useful about a token of the required length and randomness, but a guessable token could be
/// confirmed against it, which is one more reason to generate tokens (`openssl rand -hex 32`).
fn owner_of(token: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"skillgate task owner\0");
    h.update(token.as_bytes());
    let hex: String = h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// Accepted bearer tokens, from a file of `token [skill1,skill2] [label=NAME]` lines. A line whose
/// first non-blank character is `#` is a comment; a `#` anywhere else is part of the line (a
/// token may contain one), so there are no trailing comments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenTable {
    entries: Vec<TokenEntry>,
}

impl TokenTable {
    /// Parses token file text.
    pub fn parse(text: &str) -> Result<Self, TokenFileError> {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |message: &str| TokenFileError::Line {
                line: line_no,
                message: message.to_string(),
            };
            let mut fields = line.split_whitespace();
            let token = fields.next().unwrap_or("");
            let mut skills = None;
            let mut label = None;
            for f in fields {
                match f.strip_prefix("label=") {
                    Some(l) if label.is_none() => label = Some(l),
                    None if skills.is_none() => skills = Some(f),
                    _ => return Err(bad(LINE_FORMAT)),
                }
            }
            if !token.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(bad("a token must be printable ASCII"));
            }
            if token.len() < MIN_TOKEN_BYTES {
                return Err(bad(&format!(
                    "a token must be at least {MIN_TOKEN_BYTES} bytes (this one has {}); generate one with e.g. `openssl rand -hex 32`",
                    token.len()
                )));
            }
            if entries.iter().any(|e: &TokenEntry| e.token == token) {
                return Err(bad("duplicate token"));
            }
            let label = match label {
                Some(l) => check_label(l).map_err(|m| bad(&m))?,
                None => owner_of(token),
            };
            if entries.iter().any(|e: &TokenEntry| e.label == label) {
                return Err(bad(&format!(
                    "duplicate label `{label}`: two tokens would own the same tasks"
                )));
            }
            let skills = match skills {
                None => None,
                Some(list) => {
                    let set: BTreeSet<String> = list
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect();
                    if set.is_empty() {
                        return Err(bad("empty skill list"));
                    }
                    Some(set)
                }
            };
            entries.push(TokenEntry {
                token: token.to_string(),
                label,
                skills,
                line: line_no,
            });
        }
        if entries.is_empty() {
            return Err(TokenFileError::Empty);
        }
        Ok(Self { entries })
    }

    /// Refuses the first line naming a skill the agent does not serve (`serves` says no), with
    /// its line number: a typo there would otherwise silently deny the token that skill.
    pub fn check_skills(&self, serves: impl Fn(&str) -> bool) -> Result<(), TokenFileError> {
        for e in &self.entries {
            if let Some(unknown) = e.skills.iter().flatten().find(|s| !serves(s)) {
                return Err(TokenFileError::Line {
                    line: e.line,
                    message: format!("the agent serves no skill `{unknown}`"),
                });
            }
        }
        Ok(())
    }

    /// Reads and parses a token file.
    pub fn from_file(path: &Path) -> Result<Self, TokenFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| TokenFileError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text)
    }

    /// The entry for a presented token; compares every entry in constant time per byte so the
    /// answer's timing does not reveal how much of a token matched.
    pub fn lookup(&self, presented: &str) -> Option<&TokenEntry> {
        let mut found = None;
        for e in &self.entries {
            if ct_eq(e.token.as_bytes(), presented.as_bytes()) {
                found = Some(e);
            }
        }
        found
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are no tokens.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Equality whose time does not depend on where the bytes differ (`subtle` keeps the compiler
/// from turning it back into an early-exit compare); only a length difference shows.
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.ct_eq(b).into()
}

/// An authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// Identity label (never the secret).
    pub label: Arc<str>,
    /// Skills this caller may use; `None` means all.
    pub skills: Option<Arc<BTreeSet<String>>>,
}

impl Caller {
    /// Whether this caller may use the skill.
    pub fn allows(&self, skill_id: &str) -> bool {
        self.skills.as_ref().is_none_or(|s| s.contains(skill_id))
    }
}

/// Why a request was not authenticated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AuthRefusal {
    /// No bearer credentials were presented.
    #[error("authentication required: send Authorization: Bearer <token>")]
    Missing,
    /// A bearer token was presented that is not in the token table.
    #[error("the bearer token is not valid")]
    Invalid,
    /// More than one `Authorization` value: first-wins or last-wins would let a proxy and the
    /// server disagree on the caller.
    #[error("send exactly one Authorization header")]
    Ambiguous,
}

/// The caller that the `Authorization` values of a request (every occurrence, as sent)
/// authenticate against `tokens`: exactly one `Bearer <token>` value naming a known token.
pub fn authenticate<'a>(
    tokens: &TokenTable,
    authorization: impl IntoIterator<Item = &'a str>,
) -> Result<Caller, AuthRefusal> {
    let mut values = authorization.into_iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(AuthRefusal::Ambiguous);
    }
    let presented = first.and_then(|v| {
        let (scheme, rest) = v.trim().split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| rest.trim().to_string())
    });
    let Some(token) = presented else {
        return Err(AuthRefusal::Missing);
    };
    let entry = tokens.lookup(&token).ok_or(AuthRefusal::Invalid)?;
    Ok(Caller {
        label: entry.label.as_str().into(),
        skills: entry.skills.clone().map(Arc::new),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_entries_never_show_their_secret() {
        let t = TokenTable::parse("s3cr3t-value-0123456 observe\n").unwrap();
        let shown = format!("{t:?}");
        assert!(!shown.contains("s3cr3t-value"), "{shown}");
        assert!(shown.contains("sha256:"), "{shown}");
        assert!(t.lookup("s3cr3t-value-0123456").is_some());
        assert!(t.lookup("s3cr3t-value-0123457").is_none());
        assert!(t.lookup("s3cr3t").is_none());
    }

    #[test]
    fn token_file_lines() {
        let t =
            TokenTable::parse("# c\nabc-0123456789abcdef\n\nxyz-0123456789abcdef s1,s2\n").unwrap();
        assert_eq!(t.len(), 2);
        assert!(t.lookup("abc-0123456789abcdef").unwrap().allows("anything"));
        let x = t.lookup("xyz-0123456789abcdef").unwrap();
        assert!(x.allows("s1") && !x.allows("s3"));
        assert_eq!(x.label, owner_of("xyz-0123456789abcdef"));
        assert!(t.lookup("abc-0123456789abcde").is_none());
        assert!(matches!(
            TokenTable::parse("a b c"),
            Err(TokenFileError::Line { line: 1, .. })
        ));
        assert!(matches!(
            TokenTable::parse("# only\n"),
            Err(TokenFileError::Empty)
        ));
        assert!(TokenTable::parse("abc-0123456789abcdef\nabc-0123456789abcdef").is_err());
    }

    #[test]
    fn owners_are_labels_or_token_hashes_never_line_numbers() {
        let a = "aaaa-0123456789abcdef";
        let b = "bbbb-0123456789abcdef";
        let t1 = TokenTable::parse(&format!("{a}\n{b} s1 label=ops.team-2\n")).unwrap();
        let t2 =
            TokenTable::parse(&format!("# rotated\n{b} label=ops.team-2 s1\n\n{a}\n")).unwrap();
        for t in [&t1, &t2] {
            assert_eq!(t.lookup(b).unwrap().label, "ops.team-2");
            assert!(t.lookup(b).unwrap().allows("s1") && !t.lookup(b).unwrap().allows("s2"));
            assert_eq!(t.lookup(a).unwrap().label, owner_of(a));
        }
        let owner = owner_of(a);
        assert!(
            owner.starts_with("sha256:") && owner.len() == 7 + 32,
            "{owner}"
        );
        assert!(!owner.contains(a) && owner != owner_of(b));
        for bad in [
            format!("{a} label=token-3"),
            format!("{a} label="),
            format!("{a} label=has/slash"),
            format!("{a} label=x label=y"),
            format!("{a} s1 s2"),
            format!("{a} label=same\n{b} label=same"),
        ] {
            assert!(
                matches!(TokenTable::parse(&bad), Err(TokenFileError::Line { .. })),
                "{bad}"
            );
        }
        let e = TokenTable::parse(&format!("{a} label=token-7")).unwrap_err();
        assert!(e.to_string().contains("reserved"), "{e}");
    }

    #[test]
    fn a_hash_inside_a_token_is_part_of_it() {
        let t = TokenTable::parse("# operators\nh4sh#tagSecretSuffix-0001\n").unwrap();
        assert!(t.lookup("h4sh#tagSecretSuffix-0001").is_some());
        assert!(t.lookup("h4sh").is_none());
        // A comment is a line of its own; trailing text is no comment.
        assert!(matches!(
            TokenTable::parse("secret-0123456789abcdef # note\n"),
            Err(TokenFileError::Line { line: 1, .. })
        ));
        let t = TokenTable::parse("  # indented comment\nsecret-0123456789abcdef\n").unwrap();
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn short_tokens_are_refused_with_their_line() {
        let e = TokenTable::parse("# c\nsecret-0123456789abcdef\nshort-token\n").unwrap_err();
        assert!(matches!(e, TokenFileError::Line { line: 3, .. }), "{e}");
        assert!(e.to_string().contains("16 bytes"), "{e}");
        assert!(TokenTable::parse("exactly16bytes!!").is_ok());
    }

    #[test]
    fn lines_naming_skills_the_agent_does_not_serve_are_refused() {
        let t =
            TokenTable::parse("secret-0123456789abcdef\nlimited-0123456789abc s1,nope\n").unwrap();
        let e = t.check_skills(|s| s == "s1").unwrap_err();
        assert!(matches!(e, TokenFileError::Line { line: 2, .. }), "{e}");
        assert!(e.to_string().contains("nope"), "{e}");
        assert!(t.check_skills(|s| s == "s1" || s == "nope").is_ok());
    }
}

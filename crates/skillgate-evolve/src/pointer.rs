//! JSON Pointers (RFC 6901) as the findings carry them, and local `$ref` resolution.

use serde_json::Value;

/// `parent` extended by one reference token, escaped (`~` as `~0`, `/` as `~1`).
pub(crate) fn child(parent: &str, token: &str) -> String {
    let mut out = String::with_capacity(parent.len() + token.len() + 1);
    out.push_str(parent);
    out.push('/');
    for ch in token.chars() {
        match ch {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// The subschema a local `$ref` (`#` or `#/json/pointer`) names inside `root`, with its
/// pointer. `None` for anything else (an anchor, a URI, percent-encoding, a missing member):
/// the caller reports it as not judged rather than guessing.
pub(crate) fn resolve_local<'v>(root: &'v Value, reference: &str) -> Option<(&'v Value, String)> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.contains('%') || !(fragment.is_empty() || fragment.starts_with('/')) {
        return None;
    }
    let target = root.pointer(fragment)?;
    Some((target, fragment.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_are_escaped_and_local_refs_resolve() {
        assert_eq!(child("/properties", "a/b~c"), "/properties/a~1b~0c");
        let root = json!({"$defs": {"a/b": {"type": "string"}}});
        let (v, p) = resolve_local(&root, "#/$defs/a~1b").unwrap();
        assert_eq!((v, p.as_str()), (&json!({"type": "string"}), "/$defs/a~1b"));
        assert_eq!(resolve_local(&root, "#").map(|x| x.1), Some(String::new()));
        for bad in ["#anchor", "urn:x#/a", "#/$defs/missing", "#/%24defs"] {
            assert!(resolve_local(&root, bad).is_none(), "{bad}");
        }
    }
}

//! Checks and plumbing shared by every profile.

use std::collections::HashMap;

use serde_json::{Map, Value};
use url::Url;

use crate::rules::{self, Rule};
use crate::scan::{escape_token, Pos, Scan};
use crate::{Finding, Profile, Report, SIZE_WARNING_BYTES};

/// Collects findings and resolves pointers to positions.
pub(crate) struct Ctx<'s> {
    scan: Option<&'s Scan>,
    findings: Vec<Finding>,
}

impl<'s> Ctx<'s> {
    pub(crate) fn new(scan: Option<&'s Scan>) -> Self {
        Self {
            scan,
            findings: Vec::new(),
        }
    }

    /// Reports with the rule's own hint.
    pub(crate) fn report(&mut self, rule: &'static Rule, path: impl Into<String>, message: String) {
        self.report_hint(rule, path, message, rule.fix.to_string());
    }

    /// Reports with a hint specific to this occurrence.
    pub(crate) fn report_hint(
        &mut self,
        rule: &'static Rule,
        path: impl Into<String>,
        message: String,
        hint: String,
    ) {
        let path = path.into();
        let position = self.position_of(&path);
        self.findings.push(Finding {
            rule: rule.id,
            severity: rule.severity,
            path,
            message,
            hint,
            position,
        });
    }

    /// The paths at which errors were reported so far.
    pub(crate) fn error_paths(&self) -> std::collections::HashSet<String> {
        self.findings
            .iter()
            .filter(|f| f.severity == crate::Severity::Error)
            .map(|f| f.path.clone())
            .collect()
    }

    pub(crate) fn report_at(
        &mut self,
        rule: &'static Rule,
        path: String,
        message: String,
        pos: Option<Pos>,
    ) {
        self.findings.push(Finding {
            rule: rule.id,
            severity: rule.severity,
            path,
            message,
            hint: rule.fix.to_string(),
            position: pos,
        });
    }

    /// The position of a pointer, or of its nearest ancestor that exists (a missing member is
    /// reported where its object starts).
    fn position_of(&self, path: &str) -> Option<Pos> {
        position_in(&self.scan?.positions, path)
    }

    pub(crate) fn finish(mut self, profile: Profile, detected: bool) -> Report {
        // Document order first, so that text output reads top to bottom; ties by rule and path
        // keep the order deterministic.
        self.findings.sort_by(|a, b| {
            let ka = a.position.map(|p| (p.line, p.column));
            let kb = b.position.map(|p| (p.line, p.column));
            ka.cmp(&kb)
                .then_with(|| a.path.cmp(&b.path))
                .then_with(|| a.rule.cmp(b.rule))
                .then_with(|| a.message.cmp(&b.message))
        });
        Report {
            profile,
            detected,
            findings: self.findings,
            positions: self.scan.map(|s| s.positions.clone()).unwrap_or_default(),
        }
    }
}

/// The position of a pointer, or of its nearest ancestor that exists.
pub(crate) fn position_in(positions: &HashMap<String, Pos>, path: &str) -> Option<Pos> {
    let mut p = path;
    loop {
        if let Some(pos) = positions.get(p) {
            return Some(*pos);
        }
        match p.rfind('/') {
            Some(i) => p = &p[..i],
            None => return positions.get("").copied(),
        }
    }
}

/// Appends one reference token to a pointer.
pub(crate) fn ptr(base: &str, token: &str) -> String {
    format!("{base}/{}", escape_token(token))
}

/// Appends an array index to a pointer.
pub(crate) fn idx(base: &str, i: usize) -> String {
    format!("{base}/{i}")
}

/// The JSON type name used in messages: core's wording, so the linter and the advertisement
/// checks name types alike.
pub(crate) use skillgate_core::advertisement::described_type as type_name;

/// The JSON types a member may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    Str,
    Bool,
    Arr,
    Obj,
}

impl Ty {
    pub(crate) fn matches(self, v: &Value) -> bool {
        matches!(
            (self, v),
            (Ty::Str, Value::String(_))
                | (Ty::Bool, Value::Bool(_))
                | (Ty::Arr, Value::Array(_))
                | (Ty::Obj, Value::Object(_))
        )
    }
    pub(crate) fn name(self) -> &'static str {
        match self {
            Ty::Str => "a string",
            Ty::Bool => "a boolean",
            Ty::Arr => "an array",
            Ty::Obj => "an object",
        }
    }
}

/// Checks a value's type, reporting `rule` on mismatch. Returns whether it matched.
pub(crate) fn check_type(
    ctx: &mut Ctx,
    rule: &'static Rule,
    path: &str,
    v: &Value,
    ty: Ty,
) -> bool {
    if ty.matches(v) {
        true
    } else {
        ctx.report(
            rule,
            path,
            format!("must be {}, found {}", ty.name(), type_name(v)),
        );
        false
    }
}

/// Whether a value is empty for "required and non-empty" purposes.
pub(crate) fn is_empty(v: &Value) -> bool {
    match v {
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

pub(crate) use skillgate_a2a::url_policy::is_loopback;

/// Parses an absolute URL with a host; the error says why not.
pub(crate) fn parse_absolute_url(s: &str) -> Result<Url, String> {
    if s.trim() != s {
        return Err("has leading or trailing whitespace".to_string());
    }
    match Url::parse(s) {
        Ok(u) if u.cannot_be_a_base() => Err(format!("{s:?} has no authority (host)")),
        Ok(u) if u.host().is_none() && matches!(u.scheme(), "http" | "https") => {
            Err(format!("{s:?} has no host"))
        }
        Ok(u) => Ok(u),
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            Err(format!("{s:?} is relative (no scheme)"))
        }
        Err(e) => Err(format!("{s:?} does not parse: {e}")),
    }
}

/// Whether `s` is an absolute URI (scheme followed by ':'), e.g. `urn:x:y` or `https://a/b`.
pub(crate) fn is_absolute_uri(s: &str) -> bool {
    Url::parse(s).is_ok() && s.trim() == s && !s.contains(char::is_whitespace)
}

/// How an endpoint URL must be served.
pub(crate) enum Transport {
    /// https, or http on loopback.
    Secure,
    /// plain http on a non-loopback host.
    Insecure,
    /// another scheme entirely.
    OtherScheme,
}

/// Classifies an endpoint's scheme and host.
pub(crate) fn transport_of(url: &Url) -> Transport {
    match url.scheme() {
        "https" => Transport::Secure,
        "http" if is_loopback(url) => Transport::Secure,
        "http" => Transport::Insecure,
        _ => Transport::OtherScheme,
    }
}

/// The URL as shown in messages: a password is never echoed, also from a URL that does not
/// parse (skillgate-a2a's one redaction).
pub(crate) use skillgate_a2a::redact::redact_str as redact;

/// `rule` when the URL has userinfo.
pub(crate) fn check_credentials(ctx: &mut Ctx, rule: &'static Rule, path: &str, u: &Url) {
    if !u.username().is_empty() || u.password().is_some() {
        ctx.report(
            rule,
            path,
            format!(
                "{:?} carries credentials in its userinfo",
                redact(u.as_str())
            ),
        );
    }
}

/// Whether `s` is a bare `host:port`, as gRPC targets are often written.
fn is_host_port(s: &str) -> bool {
    !s.contains("://")
        && s.rsplit_once(':').is_some_and(|(h, p)| {
            !h.is_empty() && !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())
        })
}

/// A2A endpoint URL: absolute (A2A-URL-001), https outside loopback (A2A-URL-002), no
/// credentials (A2A-URL-003).
pub(crate) fn check_endpoint_url(ctx: &mut Ctx, path: &str, raw: &str) {
    let s = &redact(raw);
    match parse_absolute_url(raw) {
        Err(_) if is_host_port(raw) => ctx.report_hint(
            &rules::A2A_URL_001,
            path,
            format!("endpoint {s:?} is a bare host:port, not a URL"),
            format!(
                "Write \"https://{raw}\": A2A 1.0.1 requires an absolute URL (bare host:port for gRPC appears only in the unreleased specification)."
            ),
        ),
        Err(_) => {
            let why = parse_absolute_url(s).err().unwrap_or_default();
            ctx.report(&rules::A2A_URL_001, path, format!("endpoint URL {why}"))
        }
        Ok(u) => {
            check_credentials(ctx, &rules::A2A_URL_003, path, &u);
            check_transport(ctx, path, s, &u)
        }
    }
}

fn check_transport(ctx: &mut Ctx, path: &str, s: &str, u: &Url) {
    match transport_of(u) {
        Transport::Secure => {}
        Transport::Insecure => ctx.report(
            &rules::A2A_URL_002,
            path,
            format!(
                "endpoint {s:?} uses plain http and host {:?} is not loopback",
                u.host_str().unwrap_or("")
            ),
        ),
        Transport::OtherScheme => ctx.report(
            &rules::A2A_URL_002,
            path,
            format!("endpoint {s:?} uses scheme {:?}, not https", u.scheme()),
        ),
    }
}

/// A2A link URL (provider, documentation, icon): absolute, no credentials.
pub(crate) fn check_link_url(ctx: &mut Ctx, path: &str, raw: &str) {
    match parse_absolute_url(raw) {
        Err(_) => {
            let why = parse_absolute_url(&redact(raw)).err().unwrap_or_default();
            ctx.report(&rules::A2A_URL_001, path, format!("URL {why}"));
        }
        Ok(u) => check_credentials(ctx, &rules::A2A_URL_003, path, &u),
    }
}

/// RFC 9110 token character.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Whether `s` is `type/subtype` with optional `; name=value` parameters.
pub(crate) fn is_media_type(s: &str) -> bool {
    let mut parts = s.split(';');
    let essence = parts.next().unwrap_or("").trim();
    let Some((t, sub)) = essence.split_once('/') else {
        return false;
    };
    let token = |x: &str| !x.is_empty() && x.chars().all(is_tchar);
    if !token(t) || !token(sub) || s.trim() != s {
        return false;
    }
    parts.all(|p| {
        p.trim()
            .split_once('=')
            .is_some_and(|(n, v)| token(n.trim()) && !v.trim().is_empty())
    })
}

/// A2A-MEDIA-001 over an array of modes (non-strings are reported with `type_rule`, if any).
pub(crate) fn check_modes(
    ctx: &mut Ctx,
    type_rule: Option<&'static Rule>,
    path: &str,
    modes: &[Value],
) {
    for (i, m) in modes.iter().enumerate() {
        let p = idx(path, i);
        match m.as_str() {
            None => {
                if let Some(rule) = type_rule {
                    ctx.report(
                        rule,
                        p,
                        format!("a mode must be a string, found {}", type_name(m)),
                    );
                }
            }
            Some(s) if !is_media_type(s) => {
                let hint = match suggest_media_type(s) {
                    Some(t) => format!("Did you mean {t:?}? Modes are media types (type/subtype)."),
                    None => rules::A2A_MEDIA_001.fix.to_string(),
                };
                ctx.report_hint(
                    &rules::A2A_MEDIA_001,
                    p,
                    format!("{s:?} is not a media type of the form type/subtype"),
                    hint,
                );
            }
            Some(_) => {}
        }
    }
}

fn suggest_media_type(s: &str) -> Option<&'static str> {
    Some(
        match s.trim_start_matches('.').to_ascii_lowercase().as_str() {
            "text" | "txt" | "plain" => "text/plain",
            "json" | "data" => "application/json",
            "pdf" => "application/pdf",
            "png" => "image/png",
            "jpg" | "jpeg" | "image" => "image/jpeg",
            "html" => "text/html",
            "csv" => "text/csv",
            "md" | "markdown" => "text/markdown",
            "xml" => "application/xml",
            _ => return None,
        },
    )
}

/// CARD-004 for the card's and every skill's description.
pub(crate) fn check_descriptions(ctx: &mut Ctx, card: &Value) {
    let check = |ctx: &mut Ctx, path: String, v: Option<&Value>| {
        if let Some(s) = v.and_then(Value::as_str) {
            if s.len() > SIZE_WARNING_BYTES {
                ctx.report(
                    &rules::CARD_004,
                    path,
                    format!(
                        "description is {} bytes (warning above {SIZE_WARNING_BYTES})",
                        s.len()
                    ),
                );
            }
        }
    };
    check(ctx, "/description".into(), card.get("description"));
    if let Some(skills) = card.get("skills").and_then(Value::as_array) {
        for (i, s) in skills.iter().enumerate() {
            check(
                ctx,
                format!("/skills/{i}/description"),
                s.get("description"),
            );
        }
    }
}

/// Skill ids: whitespace (A2A-SKILL-001) and duplicates (`dup_rule`).
pub(crate) fn check_skill_ids(
    ctx: &mut Ctx,
    skills: &[Value],
    whitespace_rule: Option<&'static Rule>,
    dup_rule: &'static Rule,
) {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, s) in skills.iter().enumerate() {
        let Some(id) = s.get("id").and_then(Value::as_str) else {
            continue;
        };
        let p = format!("/skills/{i}/id");
        if let Some(rule) = whitespace_rule {
            if id.chars().any(char::is_whitespace) {
                ctx.report(
                    rule,
                    p.clone(),
                    format!("skill id {id:?} contains whitespace"),
                );
            }
        }
        if let Some(first) = seen.get(id) {
            ctx.report(
                dup_rule,
                p,
                format!("skill id {id:?} is also the id of /skills/{first}"),
            );
        } else {
            seen.insert(id, i);
        }
    }
}

/// A member looked up by its JSON name or its proto (snake_case) alias.
pub(crate) struct Member<'v> {
    pub(crate) value: &'v Value,
    pub(crate) path: String,
}

/// Looks up `camel` (or `snake`, reporting A2A-NAME-001) in `obj` at `base`.
pub(crate) fn member<'v>(
    ctx: &mut Ctx,
    obj: &'v Map<String, Value>,
    base: &str,
    camel: &str,
    snake: &str,
) -> Option<Member<'v>> {
    if let Some(v) = obj.get(camel) {
        return Some(Member {
            value: v,
            path: ptr(base, camel),
        });
    }
    if camel != snake {
        if let Some(v) = obj.get(snake) {
            let path = ptr(base, snake);
            ctx.report(
                &rules::A2A_NAME_001,
                path.clone(),
                format!("{snake:?} is the proto name; the JSON name is {camel:?}"),
            );
            return Some(Member { value: v, path });
        }
    }
    None
}

/// The snake_case proto name of a camelCase JSON name.
pub(crate) fn snake(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_decided_from_the_parsed_host() {
        for (u, want) in [
            ("http://localhost:8080/", true),
            ("http://LOCALHOST/", true),
            ("http://127.0.0.1/", true),
            ("http://127.255.1.2:9/", true),
            ("http://[::1]:8000/a2a", true),
            ("http://[::ffff:127.0.0.1]/", true),
            ("http://a.localhost/", false),
            ("http://127.0.0.1.evil.com/", false),
            ("http://localhost.evil.com/a2a", false),
            ("http://128.0.0.1/", false),
            ("http://[::2]/", false),
            ("http://0x7f.1/", true), // the URL standard parses this as 127.0.0.1
            ("http://evil.com/?localhost", false),
            ("http://localhost@evil.com/", false),
        ] {
            let url = Url::parse(u).unwrap();
            assert_eq!(is_loopback(&url), want, "{u}");
        }
    }

    #[test]
    fn media_types() {
        for ok in [
            "text/plain",
            "application/json",
            "application/a2a+json",
            "text/plain; charset=utf-8",
            "*/*",
            "image/*",
        ] {
            assert!(is_media_type(ok), "{ok}");
        }
        for bad in [
            "text",
            ".json",
            "json",
            "application/",
            "/json",
            "text/plain;",
            " text/plain",
            "a/b/c",
            "text plain/x",
            "",
        ] {
            assert!(!is_media_type(bad), "{bad}");
        }
    }

    #[test]
    fn snake_names() {
        assert_eq!(snake("supportedInterfaces"), "supported_interfaces");
        assert_eq!(snake("name"), "name");
    }

    #[test]
    fn a_password_in_a_url_that_does_not_parse_is_not_shown() {
        assert_eq!(
            redact("https://bob:S3 cret@[bad/card"),
            "https://***@[bad/card"
        );
        assert_eq!(
            redact("https://bob:S3cret@h.example/x"),
            "https://bob:***@h.example/x"
        );
    }
}

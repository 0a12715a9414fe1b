//! The run: fetch the card, then every check of the catalogue in order.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};
use skillgate_a2a as a2a;
use skillgate_a2a::{PartContent, Role, Task, TaskState};
use skillgate_core::document::{Expectations, ValidatedDocument};
use skillgate_core::wire::{self, names};
use skillgate_core::{digest, Digest, ErrorCode};
use url::Url;

use crate::catalogue::{self as cat, CheckDef};
use crate::generate::{self, InvalidProbe, ECHO_MARKER};
use crate::probe::{show, Binding, Exchange, ProbeConfig, Prober};
use crate::report::{CheckResult, Fatal, Report, Verdict};

/// Most skills probed in one run.
pub const MAX_SKILLS: usize = 64;

/// Options of one run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// HTTP bounds and credentials.
    pub probe: ProbeConfig,
    /// Force a binding instead of the first usable one in the card.
    pub binding: Option<Binding>,
}

/// A run that could not start: the target URL or the options are unusable.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UsageError {
    /// The target is not an absolute http(s) URL, or violates the scheme policy.
    #[error("bad target URL: {0}")]
    Target(String),
    /// The HTTP client could not be built.
    #[error("{0}")]
    Client(String),
}

/// The Agent Card URL for a target: the target itself when it names a `.json` file, else the
/// well-known path under the target's path.
pub fn card_url(target: &str) -> Result<Url, UsageError> {
    let url = Url::parse(target).map_err(|e| UsageError::Target(format!("{target:?}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(UsageError::Target(format!(
            "{target:?}: only http and https URLs can be probed"
        )));
    }
    if url.path().ends_with(".json") {
        return Ok(url);
    }
    let rel = a2a::AGENT_CARD_PATH.trim_start_matches('/');
    crate::probe::join(&url, rel).map_err(|e| UsageError::Target(e.0))
}

struct Run {
    prober: Prober,
    report: Report,
    /// Every exchange that activated the extension: (label, echoed?).
    echoes: Vec<(String, bool)>,
    /// Every error result seen: (label, problem if malformed).
    error_shapes: Vec<(String, Option<String>)>,
}

/// The error object of a failed or rejected task, as seen on the wire.
#[derive(Debug, Clone)]
struct SeenError {
    code: String,
    details: Vec<Value>,
}

impl Run {
    fn push(
        &mut self,
        def: CheckDef,
        skill: Option<&str>,
        verdict: Verdict,
        evidence: Vec<String>,
    ) {
        self.report.checks.push(CheckResult {
            id: def.id,
            skill: skill.map(str::to_owned),
            title: def.title,
            required: def.required,
            verdict,
            evidence,
        });
    }

    async fn send(
        &mut self,
        binding: Binding,
        endpoint: &Url,
        label: String,
        payload: Value,
    ) -> Result<Exchange, String> {
        match self
            .prober
            .send_data(binding, endpoint, payload, true)
            .await
        {
            Ok(ex) => {
                self.echoes.push((label, ex.echoed(wire::EXTENSION_URI)));
                Ok(ex)
            }
            Err(e) => Err(format!("request failed: {e}")),
        }
    }

    /// Extracts the error object of a task's final status, recording its shape for SI-ERR-001.
    fn error_of(&mut self, label: &str, task: &Task) -> Result<SeenError, String> {
        let r = parse_error(task);
        self.error_shapes
            .push((label.to_owned(), r.as_ref().err().cloned()));
        r
    }

    /// Checks an exchange against an expected error code and terminal state.
    fn expect_error(
        &mut self,
        label: &str,
        ex: &Exchange,
        code: ErrorCode,
        state: TaskState,
        ev: &mut Vec<String>,
    ) -> (bool, Option<SeenError>) {
        ev.push(format!("got {}", ex.describe()));
        let Some(task) = ex.task() else {
            ev.push(format!("expected a Task in {state} with code {code}"));
            return (false, None);
        };
        let seen = if is_error_state(task.status.state) {
            match self.error_of(label, task) {
                Ok(s) => Some(s),
                Err(e) => {
                    ev.push(format!("error result malformed: {e}"));
                    None
                }
            }
        } else {
            None
        };
        let code_ok = seen.as_ref().is_some_and(|s| s.code == code.as_str());
        if let Some(s) = &seen {
            ev.push(format!(
                "error code {:?}, {} detail(s)",
                s.code,
                s.details.len()
            ));
        }
        let state_ok = task.status.state == state;
        if !state_ok {
            ev.push(format!("expected state {state}, got {}", task.status.state));
        }
        if !code_ok {
            ev.push(format!("expected code {code}"));
        }
        (state_ok && code_ok, seen)
    }
}

/// Parses the draft's error object out of a task's final status message.
fn parse_error(task: &Task) -> Result<SeenError, String> {
    let msg = task
        .status
        .message
        .as_ref()
        .ok_or("the final status has no message")?;
    if msg.role != Role::Agent {
        return Err(format!(
            "status message role is {}, not ROLE_AGENT",
            msg.role
        ));
    }
    if msg.parts.len() != 1 {
        return Err(format!(
            "status message has {} parts, not exactly one Data Part",
            msg.parts.len()
        ));
    }
    let data = msg.parts[0].as_data().ok_or_else(|| {
        format!(
            "status message part is a {} part, not data",
            msg.parts[0].content.member()
        )
    })?;
    let obj = data
        .as_object()
        .ok_or("the error Data Part is not an object")?;
    let code = obj
        .get("code")
        .and_then(Value::as_str)
        .ok_or("the error object has no string `code`")?;
    if code.parse::<ErrorCode>().is_err() {
        return Err(format!("{code:?} is not one of the ten error codes"));
    }
    if obj.get("message").is_some_and(|m| !m.is_string()) {
        return Err("`message` is not a string".into());
    }
    let details = match obj.get("details") {
        None => Vec::new(),
        Some(Value::Array(d)) => d.clone(),
        Some(_) => return Err("`details` is not an array".into()),
    };
    Ok(SeenError {
        code: code.to_owned(),
        details,
    })
}

/// How many numbers in `v` are doubles with an exact integer value (`5000.0`), which core's
/// `ValidatedDocument::from_value` reads as integers; reported as evidence.
fn integral_float_count(v: &Value) -> usize {
    match v {
        Value::Number(n) => {
            usize::from(n.as_f64().is_some_and(|f| {
                n.is_f64() && f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0
            }))
        }
        Value::Array(a) => a.iter().map(integral_float_count).sum(),
        Value::Object(o) => o.values().map(integral_float_count).sum(),
        _ => 0,
    }
}

/// A copy of `v` with every integer written as a float (what protobuf-based peers send), and
/// how many were rewritten; integers beyond 2^53 are left alone (a float cannot hold them).
fn integers_as_floats(v: &Value) -> (Value, usize) {
    fn walk(v: &Value, n: &mut usize) -> Value {
        match v {
            Value::Number(num) if !num.is_f64() => match num.as_f64() {
                Some(f) if f.abs() < 9_007_199_254_740_992.0 => {
                    match serde_json::Number::from_f64(f) {
                        Some(x) => {
                            *n += 1;
                            Value::Number(x)
                        }
                        None => v.clone(),
                    }
                }
                _ => v.clone(),
            },
            Value::Array(a) => Value::Array(a.iter().map(|x| walk(x, n)).collect()),
            Value::Object(o) => {
                Value::Object(o.iter().map(|(k, x)| (k.clone(), walk(x, n))).collect())
            }
            _ => v.clone(),
        }
    }
    let mut n = 0;
    let out = walk(v, &mut n);
    (out, n)
}

/// Failed and rejected tasks carry the draft's error object.
fn is_error_state(s: TaskState) -> bool {
    matches!(s, TaskState::Failed | TaskState::Rejected)
}

fn is_pointer(s: &str) -> bool {
    s.is_empty() || s.starts_with('/')
}

fn version_ok(v: &str) -> bool {
    let mut parts = v.split('.');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p == "0" || !p.starts_with('0'))
        })
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

/// A version that is well formed and differs from `v`.
fn other_version(v: &str) -> String {
    let major = v
        .split('.')
        .next()
        .and_then(|m| m.parse::<u64>().ok())
        .unwrap_or(0);
    format!("{}.0", major.saturating_add(1000))
}

/// A well-formed digest that differs from `d`.
fn other_digest(d: &Digest) -> Digest {
    let mut bytes = *d.as_bytes();
    bytes[31] ^= 0x01;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Digest::parse(&format!("sha256:{hex}")).unwrap_or(*d)
}

/// Runs every check against `target` (a base URL or an Agent Card URL).
pub async fn check(target: &str, options: &Options) -> Result<Report, UsageError> {
    let card_url = card_url(target)?;
    crate::probe::check_scheme(&card_url, options.probe.allow_http).map_err(UsageError::Target)?;
    let prober = Prober::new(options.probe.clone()).map_err(|e| UsageError::Client(e.0))?;
    let mut run = Run {
        prober,
        report: Report {
            target: target.to_owned(),
            card_url: card_url.to_string(),
            binding: None,
            interface_url: None,
            fatal: None,
            checks: Vec::new(),
            notes: Vec::new(),
        },
        echoes: Vec::new(),
        error_shapes: Vec::new(),
    };
    let Some(card) = fetch_card(&mut run, &card_url).await else {
        return Ok(run.report);
    };
    let Some((binding, endpoint)) = choose_interface(&mut run, &card, options.binding) else {
        run.report.fatal = Some(Fatal::NotA2aAgent);
        return Ok(run.report);
    };
    let Some(advertised) = extension_checks(&mut run, &card) else {
        return Ok(run.report);
    };
    if advertised.len() > MAX_SKILLS {
        // Each skill costs about a dozen requests: a card listing thousands must not turn the
        // checker into a load generator.
        run.report.notes.push(format!(
            "{} skills are advertised; only the first {MAX_SKILLS} were probed",
            advertised.len()
        ));
    }
    for (skill_id, version, adv_digest) in advertised.into_iter().take(MAX_SKILLS) {
        skill_checks(
            &mut run, binding, &endpoint, &skill_id, &version, adv_digest,
        )
        .await;
    }
    unknown_skill_check(&mut run, binding, &endpoint, &card).await;
    summary_checks(&mut run);
    Ok(run.report)
}

async fn fetch_card(run: &mut Run, url: &Url) -> Option<a2a::AgentCard> {
    let mut ev = vec![format!(
        "GET {url} with A2A-Version: {}",
        a2a::PROTOCOL_VERSION
    )];
    let fetched = match run.prober.get_card(url).await {
        Ok(f) => f,
        Err(e) => {
            ev.push(format!("no answer: {e}"));
            run.push(cat::CARD_FETCH, None, Verdict::Fail, ev);
            run.report.fatal = Some(Fatal::Unreachable);
            return None;
        }
    };
    ev.push(format!(
        "HTTP {} {} ({} bytes)",
        fetched.status,
        fetched.content_type,
        fetched.bytes.len()
    ));
    let fail = |run: &mut Run, mut ev: Vec<String>, why: String| {
        ev.push(why);
        run.push(cat::CARD_FETCH, None, Verdict::Fail, ev);
        run.report.fatal = Some(Fatal::NotA2aAgent);
        None
    };
    if fetched.status != 200 {
        return fail(run, ev, "expected HTTP 200".into());
    }
    let v = match run.prober.parse(&fetched.bytes) {
        Ok(v) => v,
        Err(e) => return fail(run, ev, format!("not strict JSON: {e}")),
    };
    let card: a2a::AgentCard = match serde_json::from_value(v) {
        Ok(c) => c,
        Err(e) => return fail(run, ev, format!("not an A2A 1.0 AgentCard: {e}")),
    };
    if card.supported_interfaces.is_empty() {
        return fail(
            run,
            ev,
            "supportedInterfaces is empty or missing (an A2A 0.3 card?)".into(),
        );
    }
    ev.push(format!(
        "card {:?} version {:?}: {} interface(s), {} skill(s), {} extension(s)",
        card.name,
        card.version,
        card.supported_interfaces.len(),
        card.skills.len(),
        card.capabilities.extensions.len()
    ));
    run.push(cat::CARD_FETCH, None, Verdict::Pass, ev);
    Some(card)
}

fn choose_interface(
    run: &mut Run,
    card: &a2a::AgentCard,
    forced: Option<Binding>,
) -> Option<(Binding, Url)> {
    let mut ev = Vec::new();
    for i in &card.supported_interfaces {
        ev.push(format!(
            "interface {} {} protocolVersion {:?}",
            i.protocol_binding, i.url, i.protocol_version
        ));
    }
    let wanted: Vec<Binding> = match forced {
        Some(b) => vec![b],
        None => vec![Binding::JsonRpc, Binding::HttpJson],
    };
    for b in wanted {
        let found = card.supported_interfaces.iter().find(|i| {
            i.protocol_binding == b.as_str() && i.protocol_version == a2a::PROTOCOL_VERSION
        });
        if let Some(i) = found {
            match Url::parse(&i.url) {
                Ok(u) => match crate::probe::check_scheme(&u, run.prober.config().allow_http) {
                    Ok(()) => {
                        ev.push(format!("probing {} at {u}", b.as_str()));
                        run.report.binding = Some(b.as_str().to_owned());
                        run.report.interface_url = Some(u.to_string());
                        run.push(cat::CARD_INTERFACE, None, Verdict::Pass, ev);
                        return Some((b, u));
                    }
                    Err(e) => ev.push(format!("{} interface refused: {e}", b.as_str())),
                },
                Err(e) => ev.push(format!(
                    "{} interface URL {:?} is not absolute: {e}",
                    b.as_str(),
                    i.url
                )),
            }
        }
    }
    ev.push(match forced {
        Some(b) => format!(
            "no usable {} interface with protocolVersion 1.0",
            b.as_str()
        ),
        None => "no usable JSONRPC or HTTP+JSON interface with protocolVersion 1.0".into(),
    });
    run.push(cat::CARD_INTERFACE, None, Verdict::Fail, ev);
    None
}

/// The extension checks; returns the well-formed, deduplicated advertised skills.
fn extension_checks(run: &mut Run, card: &a2a::AgentCard) -> Option<Vec<(String, String, Digest)>> {
    let Some(ext) = card.extension(wire::EXTENSION_URI) else {
        let mut ev = vec![format!(
            "no capabilities.extensions[] entry with uri {}",
            wire::EXTENSION_URI
        )];
        for e in &card.capabilities.extensions {
            ev.push(format!("extension present: {:?}", e.uri));
        }
        ev.push("the remaining schema-interface checks were not run".into());
        run.push(cat::EXT_ADVERTISED, None, Verdict::Fail, ev);
        return None;
    };
    run.push(
        cat::EXT_ADVERTISED,
        None,
        Verdict::Pass,
        vec![format!("uri {} required={}", ext.uri, ext.required)],
    );
    let params = ext.params.clone().unwrap_or_default();
    match params.get(names::INTERFACE_VERSION) {
        Some(Value::String(v)) if v == wire::INTERFACE_VERSION => run.push(
            cat::EXT_INTERFACE_VERSION,
            None,
            Verdict::Pass,
            vec![format!("interface_version {v:?}")],
        ),
        other => run.push(
            cat::EXT_INTERFACE_VERSION,
            None,
            Verdict::Fail,
            vec![format!(
                "params.interface_version is {}, expected \"1.0\"",
                other
                    .map(|v| show(v, 80))
                    .unwrap_or_else(|| "absent".into())
            )],
        ),
    }
    let mut ev = Vec::new();
    let mut good: Vec<(String, String, Digest)> = Vec::new();
    let mut all_ok = true;
    match params.get(names::SKILLS) {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let id = item.get(names::SKILL_ID).and_then(Value::as_str);
                let ver = item.get(names::SKILL_VERSION).and_then(Value::as_str);
                let dig = item
                    .get(names::INTERFACE_DIGEST)
                    .and_then(Value::as_str)
                    .map(Digest::parse);
                match (id, ver, dig) {
                    (Some(id), Some(ver), Some(Ok(d))) if !id.is_empty() && version_ok(ver) => {
                        ev.push(format!("skills[{i}]: {id} {ver} {d}"));
                        good.push((id.to_owned(), ver.to_owned(), d));
                    }
                    _ => {
                        all_ok = false;
                        ev.push(format!("skills[{i}] is malformed: {}", show(item, 200)));
                    }
                }
            }
            if items.is_empty() {
                ev.push("params.skills is empty: no schema-governed skill is advertised".into());
            }
        }
        other => {
            all_ok = false;
            ev.push(format!(
                "params.skills is {}, expected an array",
                other
                    .map(|v| show(v, 80))
                    .unwrap_or_else(|| "absent".into())
            ));
        }
    }
    run.push(
        cat::EXT_SKILLS_WELL_FORMED,
        None,
        if all_ok { Verdict::Pass } else { Verdict::Fail },
        ev,
    );
    let mut ev = Vec::new();
    let mut seen = BTreeSet::new();
    let mut unique = Vec::new();
    let mut ok = true;
    for (id, ver, d) in good {
        if id == wire::DESCRIBE_SKILL {
            ok = false;
            ev.push("describe_skill is listed in params.skills".into());
            continue;
        }
        if !seen.insert(id.clone()) {
            ok = false;
            ev.push(format!("{id} has more than one binding"));
            continue;
        }
        unique.push((id, ver, d));
    }
    if ok {
        ev.push(format!("{} distinct skill binding(s)", unique.len()));
    }
    run.push(
        cat::EXT_ONE_BINDING,
        None,
        if ok { Verdict::Pass } else { Verdict::Fail },
        ev,
    );
    let card_ids: BTreeSet<&str> = card.skills.iter().map(|s| s.id.as_str()).collect();
    let missing: Vec<&str> = unique
        .iter()
        .map(|(id, _, _)| id.as_str())
        .filter(|id| !card_ids.contains(id))
        .collect();
    run.push(
        cat::EXT_SKILLS_IN_CARD,
        None,
        if missing.is_empty() {
            Verdict::Pass
        } else {
            Verdict::Fail
        },
        if missing.is_empty() {
            vec![format!(
                "card skills[]: {}",
                card_ids.iter().copied().collect::<Vec<_>>().join(", ")
            )]
        } else {
            vec![format!(
                "advertised but not in skills[]: {}",
                missing.join(", ")
            )]
        },
    );
    let has_describe = card_ids.contains(wire::DESCRIBE_SKILL);
    run.push(
        cat::EXT_DESCRIBE_IN_CARD,
        None,
        if has_describe {
            Verdict::Pass
        } else {
            Verdict::Fail
        },
        vec![if has_describe {
            "describe_skill is in skills[]".into()
        } else {
            "describe_skill is not in skills[]".into()
        }],
    );
    Some(unique)
}

fn describe_payload(skill_id: &str) -> Value {
    json!({names::SKILL: wire::DESCRIBE_SKILL, names::ARGUMENTS: {names::SKILL_ID: skill_id}})
}

/// SI-DESC-001: the describe_skill result, as (interface_digest string, skill_interface).
fn describe_result(ex: &Exchange, ev: &mut Vec<String>) -> Option<(Value, Value)> {
    ev.push(format!("got {}", ex.describe()));
    let task = ex.task()?;
    if task.status.state != TaskState::Completed {
        ev.push(format!(
            "expected TASK_STATE_COMPLETED, got {}",
            task.status.state
        ));
        if let Ok(e) = parse_error(task) {
            ev.push(format!("error code {:?}", e.code));
        }
        return None;
    }
    if task.artifacts.len() != 1 {
        ev.push(format!(
            "expected exactly one Artifact, got {}",
            task.artifacts.len()
        ));
        return None;
    }
    let art = &task.artifacts[0];
    if art.name != wire::DESCRIBE_SKILL_ARTIFACT {
        ev.push(format!(
            "the Artifact is named {:?}, not \"describe_skill\"",
            art.name
        ));
        return None;
    }
    if art.parts.len() != 1 {
        ev.push(format!(
            "the Artifact has {} parts, not one Data Part",
            art.parts.len()
        ));
        return None;
    }
    let Some(data) = art.parts[0].as_data() else {
        ev.push(format!(
            "the Artifact part is a {} part, not data",
            art.parts[0].content.member()
        ));
        return None;
    };
    let (Some(d), Some(doc)) = (
        data.get(names::INTERFACE_DIGEST),
        data.get(names::SKILL_INTERFACE),
    ) else {
        ev.push("the Data Part lacks interface_digest or skill_interface".into());
        return None;
    };
    if let Some(obj) = data.as_object() {
        let extra: Vec<&String> = obj
            .keys()
            .filter(|k| {
                k.as_str() != names::INTERFACE_DIGEST && k.as_str() != names::SKILL_INTERFACE
            })
            .collect();
        if !extra.is_empty() {
            ev.push(format!("note: extra members {extra:?}"));
        }
    }
    Some((d.clone(), doc.clone()))
}

#[allow(clippy::too_many_lines)]
async fn skill_checks(
    run: &mut Run,
    binding: Binding,
    endpoint: &Url,
    skill_id: &str,
    adv_version: &str,
    adv_digest: Digest,
) {
    let skill = Some(skill_id);
    let skip_rest = |run: &mut Run, from: &[CheckDef], why: &str| {
        for d in from {
            run.push(*d, Some(skill_id), Verdict::Skip, vec![why.to_owned()]);
        }
    };
    const AFTER_DESCRIBE: [CheckDef; 9] = [
        cat::PROBE_GENERATION,
        cat::MISMATCH_VERSION,
        cat::MISMATCH_DIGEST,
        cat::INPUT_MISSING_REQUIRED,
        cat::INPUT_WRONG_TYPE,
        cat::INPUT_NO_ECHO,
        cat::CALL_COMPLETES,
        cat::CALL_PRIMARY,
        cat::CALL_RECORDS,
    ];
    // SI-DESC-001
    let payload = describe_payload(skill_id);
    let mut ev = vec![format!("sent {}", show(&payload, 300))];
    let ex = match run
        .send(
            binding,
            endpoint,
            format!("describe_skill {skill_id}"),
            payload,
        )
        .await
    {
        Ok(ex) => ex,
        Err(e) => {
            ev.push(e);
            run.push(cat::DESCRIBE_RESULT, skill, Verdict::Fail, ev);
            skip_rest(
                run,
                &[cat::DESCRIBE_DIGEST, cat::DESCRIBE_DOCUMENT],
                "no describe_skill result",
            );
            skip_rest(run, &AFTER_DESCRIBE, "no describe_skill result");
            return;
        }
    };
    let Some((returned, doc_value)) = describe_result(&ex, &mut ev) else {
        if let Some(t) = ex.task() {
            if is_error_state(t.status.state) {
                let _ = run.error_of(&format!("describe_skill {skill_id}"), t);
            }
        }
        run.push(cat::DESCRIBE_RESULT, skill, Verdict::Fail, ev);
        skip_rest(
            run,
            &[cat::DESCRIBE_DIGEST, cat::DESCRIBE_DOCUMENT],
            "no describe_skill result",
        );
        skip_rest(run, &AFTER_DESCRIBE, "no describe_skill result");
        return;
    };
    run.push(cat::DESCRIBE_RESULT, skill, Verdict::Pass, ev);

    // SI-DESC-002
    let computed = digest(&doc_value);
    let returned_d = returned.as_str().map(Digest::parse);
    let mut ev = vec![
        format!("advertised {adv_digest}"),
        format!("returned   {}", show(&returned, 80)),
        format!("computed   {computed} (RFC 8785 over skill_interface)"),
    ];
    let ok = matches!(&returned_d, Some(Ok(r)) if *r == adv_digest && *r == computed);
    if !ok {
        if !matches!(returned_d, Some(Ok(_))) {
            ev.push("returned interface_digest is not a sha256: digest string".into());
        }
        if computed != adv_digest {
            ev.push("the served document does not hash to the advertised digest".into());
        }
    }
    run.push(
        cat::DESCRIBE_DIGEST,
        skill,
        if ok { Verdict::Pass } else { Verdict::Fail },
        ev,
    );

    // SI-DESC-003
    let expect = Expectations {
        skill_id: Some(skill_id.to_owned()),
        skill_version: Some(adv_version.to_owned()),
        interface_digest: None,
    };
    // Peers that transcode Data Parts through protobuf send every integer as a float
    // (`5000.0`); JSON Schema and RFC 8785 treat that as the integer, so the document is read
    // the same way (the digest above is over what was received and is unaffected).
    let rewritten = integral_float_count(&doc_value);
    let doc = match ValidatedDocument::from_value(&doc_value, &expect) {
        Ok(doc) => {
            run.push(
                cat::DESCRIBE_DOCUMENT,
                skill,
                Verdict::Pass,
                {
                    let mut ev = vec![format!(
                        "valid document {} {} with {} record kind(s)",
                        doc.skill_id(),
                        doc.skill_version(),
                        doc.document().supporting_record_schemas.len()
                    )];
                    if rewritten > 0 {
                        ev.push(format!(
                            "note: {rewritten} integral number(s) arrived as floats (e.g. 5000.0) and were read as integers"
                        ));
                    }
                    ev
                },
            );
            doc
        }
        Err(e) => {
            let ev = e
                .findings
                .iter()
                .map(|f| format!("{} at {:?}: {}", f.code, f.path, f.message))
                .collect();
            run.push(cat::DESCRIBE_DOCUMENT, skill, Verdict::Fail, ev);
            skip_rest(run, &AFTER_DESCRIBE, "the served document is not valid");
            return;
        }
    };

    // SI-GEN-001
    let input_schema = &doc.document().input_schema.resolution.schema;
    let validator = doc.input_validator();
    let valid = generate::valid_candidates(input_schema, validator);
    let missing = valid
        .first()
        .and_then(|v| generate::missing_required(input_schema, v, validator));
    let wrong = valid
        .first()
        .and_then(|v| generate::wrong_type(input_schema, v, validator))
        .or_else(|| generate::wrong_type(input_schema, &json!({}), validator));
    let mut ev = Vec::new();
    match valid.first() {
        Some(v) => ev.push(format!("{} valid candidate(s), first {}", valid.len(), show(v, 200))),
        None => ev.push("no valid instance could be generated (the schema needs a pattern, or is unsatisfiable)".into()),
    }
    match &missing {
        Some(p) => ev.push(format!("missing-required probe: {}", p.change)),
        None => ev.push("no missing-required probe (no required members)".into()),
    }
    match &wrong {
        Some(p) => ev.push(format!("wrong-type probe: {}", p.change)),
        None => ev.push("no wrong-type probe (the schema accepts every type)".into()),
    }
    let gen_verdict = if !valid.is_empty() && (missing.is_some() || wrong.is_some()) {
        Verdict::Pass
    } else {
        Verdict::Skip
    };
    run.push(cat::PROBE_GENERATION, skill, gen_verdict, ev);

    let version = doc.skill_version().to_owned();
    let served_digest = doc.interface_digest();
    let invalid: Option<&InvalidProbe> = wrong.as_ref().or(missing.as_ref());
    let bad_args = invalid
        .map(|p| p.instance.clone())
        .or_else(|| valid.first().cloned());

    // SI-MISMATCH-001 / -002
    let mismatch_cases = [
        (
            cat::MISMATCH_VERSION,
            other_version(&version),
            served_digest.to_string(),
            "skill_version",
        ),
        (
            cat::MISMATCH_DIGEST,
            version.clone(),
            other_digest(&served_digest).to_string(),
            "interface_digest",
        ),
    ];
    for (def, ver, dig, what) in mismatch_cases {
        let Some(args) = bad_args.clone() else {
            run.push(
                def,
                skill,
                Verdict::Skip,
                vec!["no arguments could be generated".into()],
            );
            continue;
        };
        let payload = json!({names::SKILL: skill_id, names::SKILL_VERSION: ver, names::INTERFACE_DIGEST: dig, names::ARGUMENTS: args});
        let mut ev = vec![format!("sent wrong {what}: {}", show(&payload, 300))];
        match invalid {
            Some(p) => ev.push(format!("arguments are deliberately invalid ({})", p.change)),
            None => ev.push(
                "note: no invalid arguments could be generated; the order of checks is not proven"
                    .into(),
            ),
        }
        let label = format!("{skill_id} wrong {what}");
        match run.send(binding, endpoint, label.clone(), payload).await {
            Ok(ex) => {
                let (ok, seen) = run.expect_error(
                    &label,
                    &ex,
                    ErrorCode::InterfaceMismatch,
                    TaskState::Rejected,
                    &mut ev,
                );
                if seen
                    .as_ref()
                    .is_some_and(|s| s.code == ErrorCode::InputInvalid.as_str())
                {
                    ev.push(
                        "the agent validated arguments before checking the interface selection"
                            .into(),
                    );
                }
                if ex
                    .task()
                    .is_some_and(|t| t.status.state == TaskState::Completed)
                {
                    ev.push("the agent ran the skill under an interface it does not serve".into());
                }
                run.push(
                    def,
                    skill,
                    if ok { Verdict::Pass } else { Verdict::Fail },
                    ev,
                );
            }
            Err(e) => {
                ev.push(e);
                run.push(def, skill, Verdict::Fail, ev);
            }
        }
    }

    // SI-INPUT-001 / -002 / -003
    let mut echo_probe: Option<(String, bool)> = None;
    for (def, probe) in [
        (cat::INPUT_MISSING_REQUIRED, &missing),
        (cat::INPUT_WRONG_TYPE, &wrong),
    ] {
        let Some(p) = probe else {
            run.push(
                def,
                skill,
                Verdict::Skip,
                vec!["no such invalid instance can be generated from input_schema".into()],
            );
            continue;
        };
        let payload = json!({names::SKILL: skill_id, names::SKILL_VERSION: version, names::INTERFACE_DIGEST: served_digest.to_string(), names::ARGUMENTS: p.instance});
        let mut ev = vec![format!("sent {} ({})", show(&payload, 300), p.change)];
        let label = format!("{skill_id} {}", def.id);
        match run.send(binding, endpoint, label.clone(), payload).await {
            Ok(ex) => {
                let (mut ok, seen) = run.expect_error(
                    &label,
                    &ex,
                    ErrorCode::InputInvalid,
                    TaskState::Rejected,
                    &mut ev,
                );
                if let Some(s) = &seen {
                    if s.code == ErrorCode::InputInvalid.as_str() {
                        if s.details.is_empty() {
                            ok = false;
                            ev.push("details[] is empty: input_invalid must say where".into());
                        }
                        for d in &s.details {
                            match d.get("instance_path").and_then(Value::as_str) {
                                Some(ip) if is_pointer(ip) => ev.push(format!(
                                    "detail instance_path {ip:?} keyword {}",
                                    d.get("keyword")
                                        .map(|k| show(k, 40))
                                        .unwrap_or_else(|| "-".into())
                                )),
                                _ => {
                                    ok = false;
                                    ev.push(format!(
                                        "detail without a JSON Pointer instance_path: {}",
                                        show(d, 160)
                                    ));
                                }
                            }
                        }
                    }
                }
                if p.carries_marker {
                    if let Some(t) = ex.task() {
                        let seen_text = serde_json::to_string(&t.status).unwrap_or_default();
                        echo_probe = Some((label.clone(), seen_text.contains(ECHO_MARKER)));
                    }
                }
                run.push(
                    def,
                    skill,
                    if ok { Verdict::Pass } else { Verdict::Fail },
                    ev,
                );
            }
            Err(e) => {
                ev.push(e);
                run.push(def, skill, Verdict::Fail, ev);
            }
        }
    }
    if echo_probe.is_none() {
        if let Some(p) = valid
            .first()
            .and_then(|v| generate::echo_probe(v, validator))
        {
            let payload = json!({names::SKILL: skill_id, names::SKILL_VERSION: version, names::INTERFACE_DIGEST: served_digest.to_string(), names::ARGUMENTS: p.instance});
            let label = format!("{skill_id} echo probe ({})", p.change);
            if let Ok(ex) = run.send(binding, endpoint, label.clone(), payload).await {
                if let Some(t) = ex.task() {
                    if is_error_state(t.status.state) {
                        let _ = run.error_of(&label, t);
                    }
                    let seen_text = serde_json::to_string(&t.status).unwrap_or_default();
                    echo_probe = Some((label, seen_text.contains(ECHO_MARKER)));
                }
            }
        }
    }
    match echo_probe {
        Some((label, true)) => run.push(
            cat::INPUT_NO_ECHO,
            skill,
            Verdict::Fail,
            vec![format!(
                "the error for {label} repeats the probe value {ECHO_MARKER:?}"
            )],
        ),
        Some((label, false)) => run.push(
            cat::INPUT_NO_ECHO,
            skill,
            Verdict::Pass,
            vec![format!(
                "the error for {label} does not repeat the probe value"
            )],
        ),
        None => run.push(
            cat::INPUT_NO_ECHO,
            skill,
            Verdict::Skip,
            vec!["no probe could carry a recognisable string value".into()],
        ),
    }

    // SI-CALL-001 / -002 / -003
    call_checks(run, binding, endpoint, &doc, &valid).await;
}

async fn call_checks(
    run: &mut Run,
    binding: Binding,
    endpoint: &Url,
    doc: &ValidatedDocument,
    valid: &[Value],
) {
    let skill_id = doc.skill_id();
    let skill = Some(skill_id);
    let skip_after = |run: &mut Run, why: &str| {
        run.push(
            cat::CALL_PRIMARY,
            Some(skill_id),
            Verdict::Skip,
            vec![why.to_owned()],
        );
        run.push(
            cat::CALL_RECORDS,
            Some(skill_id),
            Verdict::Skip,
            vec![why.to_owned()],
        );
        run.push(
            cat::CALL_INTEGRAL_FLOATS,
            Some(skill_id),
            Verdict::Skip,
            vec![why.to_owned()],
        );
    };
    if valid.is_empty() {
        run.push(
            cat::CALL_COMPLETES,
            skill,
            Verdict::Skip,
            vec!["no valid arguments could be generated".into()],
        );
        skip_after(run, "no valid call was made");
        return;
    }
    let mut ev = Vec::new();
    let mut completed: Option<Task> = None;
    let mut completed_args: Option<Value> = None;
    for args in valid {
        let payload = json!({names::SKILL: skill_id, names::SKILL_VERSION: doc.skill_version(), names::INTERFACE_DIGEST: doc.interface_digest().to_string(), names::ARGUMENTS: args});
        ev.push(format!("sent {}", show(&payload, 300)));
        let label = format!("{skill_id} valid call");
        let ex = match run.send(binding, endpoint, label.clone(), payload).await {
            Ok(ex) => ex,
            Err(e) => {
                ev.push(e);
                run.push(cat::CALL_COMPLETES, skill, Verdict::Fail, ev);
                skip_after(run, "no valid call completed");
                return;
            }
        };
        ev.push(format!("got {}", ex.describe()));
        let Some(task) = ex.task() else {
            run.push(cat::CALL_COMPLETES, skill, Verdict::Fail, ev);
            skip_after(run, "no valid call completed");
            return;
        };
        if task.status.state == TaskState::Completed {
            completed = Some(task.clone());
            completed_args = Some(args.clone());
            break;
        }
        let err = if is_error_state(task.status.state) {
            run.error_of(&label, task).ok()
        } else {
            None
        };
        match err {
            Some(e)
                if e.code == ErrorCode::ConstraintRejected.as_str()
                    && task.status.state == TaskState::Rejected =>
            {
                ev.push("refused with constraint_rejected: valid input the skill will not accept; trying the next candidate".into());
            }
            Some(e) => {
                ev.push(format!("error code {:?}", e.code));
                run.push(cat::CALL_COMPLETES, skill, Verdict::Fail, ev);
                skip_after(run, "no valid call completed");
                return;
            }
            None => {
                ev.push("expected TASK_STATE_COMPLETED".into());
                run.push(cat::CALL_COMPLETES, skill, Verdict::Fail, ev);
                skip_after(run, "no valid call completed");
                return;
            }
        }
    }
    let Some(task) = completed else {
        ev.push("every generated valid instance was refused with constraint_rejected".into());
        run.push(cat::CALL_COMPLETES, skill, Verdict::Skip, ev);
        skip_after(run, "no valid call completed");
        return;
    };
    run.push(cat::CALL_COMPLETES, skill, Verdict::Pass, ev);

    // SI-CALL-002
    let named: Vec<&a2a::Artifact> = task
        .artifacts
        .iter()
        .filter(|a| a.name == skill_id)
        .collect();
    let mut ev = Vec::new();
    let mut ok = true;
    if named.len() != 1 {
        ok = false;
        ev.push(format!(
            "{} Artifact(s) named {skill_id:?}, expected exactly one",
            named.len()
        ));
    }
    if let Some(primary) = named.first() {
        match single_data(primary) {
            Ok(data) => match doc.output_validator().validate(data) {
                Ok(()) => ev.push(format!(
                    "primary Artifact {} validates against output_schema",
                    primary.artifact_id
                )),
                Err(details) => {
                    ok = false;
                    for d in details.iter().take(5) {
                        ev.push(format!(
                            "output_invalid at {:?}: {}",
                            d.instance_path,
                            d.keyword.as_deref().unwrap_or("-")
                        ));
                    }
                }
            },
            Err(e) => {
                ok = false;
                ev.push(format!("primary Artifact: {e}"));
            }
        }
    }
    run.push(
        cat::CALL_PRIMARY,
        skill,
        if ok { Verdict::Pass } else { Verdict::Fail },
        ev,
    );

    // SI-CALL-003
    let declared: BTreeMap<&str, ()> = doc
        .document()
        .supporting_record_schemas
        .keys()
        .map(|k| (k.as_str(), ()))
        .collect();
    let mut ev = Vec::new();
    let mut ok = true;
    if named.len() > 1 {
        ok = false;
        ev.push(format!(
            "{} Artifacts are named the skill id: a supporting record must be named its record kind, never the skill id",
            named.len()
        ));
    }
    let mut records = 0;
    for art in task.artifacts.iter().filter(|a| a.name != skill_id) {
        records += 1;
        if !declared.contains_key(art.name.as_str()) {
            ok = false;
            ev.push(format!(
                "Artifact {} is named {:?}, which is not a declared record kind ({})",
                art.artifact_id,
                art.name,
                declared.keys().copied().collect::<Vec<_>>().join(", ")
            ));
            continue;
        }
        let Some(validator) = doc.record_validator(&art.name) else {
            continue;
        };
        match single_data(art) {
            Ok(data) => match validator.validate(data) {
                Ok(()) => ev.push(format!(
                    "record {} ({}) validates",
                    art.artifact_id, art.name
                )),
                Err(details) => {
                    ok = false;
                    for d in details.iter().take(5) {
                        ev.push(format!(
                            "record {} ({}) invalid at {:?}: {}",
                            art.artifact_id,
                            art.name,
                            d.instance_path,
                            d.keyword.as_deref().unwrap_or("-")
                        ));
                    }
                }
            },
            Err(e) => {
                ok = false;
                ev.push(format!("record {} ({}): {e}", art.artifact_id, art.name));
            }
        }
    }
    if records == 0 && ok {
        ev.push("no supporting-record Artifacts were returned".into());
    }
    run.push(
        cat::CALL_RECORDS,
        skill,
        if ok { Verdict::Pass } else { Verdict::Fail },
        ev,
    );

    // SI-CALL-004
    let args = completed_args.unwrap_or_default();
    let (floats, n) = integers_as_floats(&args);
    if n == 0 {
        run.push(
            cat::CALL_INTEGRAL_FLOATS,
            skill,
            Verdict::Skip,
            vec!["the completed arguments hold no integer".into()],
        );
        return;
    }
    let payload = json!({names::SKILL: skill_id, names::SKILL_VERSION: doc.skill_version(), names::INTERFACE_DIGEST: doc.interface_digest().to_string(), names::ARGUMENTS: floats});
    let mut ev = vec![format!(
        "sent the completed call again with {n} integer(s) written as floats: {}",
        show(&payload, 300)
    )];
    let label = format!("{skill_id} integral floats");
    match run.send(binding, endpoint, label.clone(), payload).await {
        Ok(ex) => {
            ev.push(format!("got {}", ex.describe()));
            let verdict = match ex.task() {
                Some(t) if t.status.state == TaskState::Completed => Verdict::Pass,
                Some(t) if is_error_state(t.status.state) => {
                    match run.error_of(&label, t) {
                        Ok(e) => {
                            ev.push(format!("error code {:?}", e.code));
                            if e.code == ErrorCode::InputInvalid.as_str() {
                                ev.push("JSON Schema reads 2.0 as the integer 2: valid arguments were refused".into());
                            }
                        }
                        Err(e) => ev.push(format!("error result malformed: {e}")),
                    }
                    Verdict::Fail
                }
                _ => Verdict::Fail,
            };
            run.push(cat::CALL_INTEGRAL_FLOATS, skill, verdict, ev);
        }
        Err(e) => {
            ev.push(e);
            run.push(cat::CALL_INTEGRAL_FLOATS, skill, Verdict::Fail, ev);
        }
    }
}

fn single_data(art: &a2a::Artifact) -> Result<&Value, String> {
    if art.parts.len() != 1 {
        return Err(format!("{} parts, expected one Data Part", art.parts.len()));
    }
    match &art.parts[0].content {
        PartContent::Data(v) => Ok(v),
        other => Err(format!("a {} part, expected a Data Part", other.member())),
    }
}

async fn unknown_skill_check(
    run: &mut Run,
    binding: Binding,
    endpoint: &Url,
    card: &a2a::AgentCard,
) {
    let mut unknown = "skillgate_conformance_no_such_skill".to_owned();
    while card.skills.iter().any(|s| s.id == unknown) {
        unknown.push('_');
    }
    let payload = describe_payload(&unknown);
    let mut ev = vec![format!("sent {}", show(&payload, 300))];
    let label = "describe_skill unknown skill".to_owned();
    match run.send(binding, endpoint, label.clone(), payload).await {
        Ok(ex) => {
            let (ok, _) = run.expect_error(
                &label,
                &ex,
                ErrorCode::InterfaceUnavailable,
                TaskState::Failed,
                &mut ev,
            );
            run.push(
                cat::DESCRIBE_UNKNOWN,
                None,
                if ok { Verdict::Pass } else { Verdict::Fail },
                ev,
            );
        }
        Err(e) => {
            ev.push(e);
            run.push(cat::DESCRIBE_UNKNOWN, None, Verdict::Fail, ev);
        }
    }
}

fn summary_checks(run: &mut Run) {
    // SI-ERR-001
    let shapes = std::mem::take(&mut run.error_shapes);
    let bad: Vec<String> = shapes
        .iter()
        .filter_map(|(l, p)| p.as_ref().map(|p| format!("{l}: {p}")))
        .collect();
    if shapes.is_empty() {
        run.push(
            cat::ERROR_SHAPE,
            None,
            Verdict::Skip,
            vec!["no error result was seen".into()],
        );
    } else if bad.is_empty() {
        run.push(
            cat::ERROR_SHAPE,
            None,
            Verdict::Pass,
            vec![format!("{} error result(s), all well formed", shapes.len())],
        );
    } else {
        run.push(cat::ERROR_SHAPE, None, Verdict::Fail, bad);
    }
    // SI-ECHO-001
    let echoes = std::mem::take(&mut run.echoes);
    let missing: Vec<String> = echoes
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(l, _)| format!("no A2A-Extensions echo on {l}"))
        .collect();
    if echoes.is_empty() {
        run.push(
            cat::EXTENSION_ECHO,
            None,
            Verdict::Skip,
            vec!["no request activated the extension".into()],
        );
    } else if missing.is_empty() {
        run.push(
            cat::EXTENSION_ECHO,
            None,
            Verdict::Pass,
            vec![format!(
                "{} response(s), each with A2A-Extensions: {}",
                echoes.len(),
                wire::EXTENSION_URI
            )],
        );
    } else {
        let mut ev = vec![format!(
            "{} of {} response(s) lacked the echo",
            missing.len(),
            echoes.len()
        )];
        ev.extend(missing.into_iter().take(10));
        run.push(cat::EXTENSION_ECHO, None, Verdict::Fail, ev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_urls() {
        assert_eq!(
            card_url("http://127.0.0.1:8080").unwrap().as_str(),
            "http://127.0.0.1:8080/.well-known/agent-card.json"
        );
        assert_eq!(
            card_url("http://127.0.0.1:8080/agents/x/")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:8080/agents/x/.well-known/agent-card.json"
        );
        assert_eq!(
            card_url("https://h/.well-known/agent-card.json")
                .unwrap()
                .as_str(),
            "https://h/.well-known/agent-card.json"
        );
        assert!(card_url("ftp://h/").is_err());
        assert!(card_url("not a url").is_err());
    }

    #[test]
    fn integral_floats_are_counted() {
        let v: Value =
            serde_json::from_str(r#"{"a": 5000.0, "b": [1.5, -2.0, 1e300], "c": 3}"#).unwrap();
        assert_eq!(integral_float_count(&v), 2);
        assert_eq!(integral_float_count(&json!({"a": 1, "b": "2.0"})), 0);
    }

    #[test]
    fn integers_are_written_as_floats() {
        let v = json!({"a": 2, "b": [1.5, -3], "c": "7", "d": 18446744073709551615u64});
        let (out, n) = integers_as_floats(&v);
        assert_eq!(n, 2);
        assert!(out["a"].is_f64());
        assert_eq!(
            out.to_string(),
            r#"{"a":2.0,"b":[1.5,-3.0],"c":"7","d":18446744073709551615}"#
        );
        assert_eq!(digest(&out), digest(&v));
    }

    #[test]
    fn versions_and_wrong_values() {
        assert!(version_ok("1.0") && version_ok("0.12"));
        assert!(
            !version_ok("01.0") && !version_ok("1") && !version_ok("1.0.0") && !version_ok("a.b")
        );
        assert!(version_ok(&other_version("1.0")));
        assert_ne!(other_version("1.0"), "1.0");
        let d = digest(&json!({}));
        assert_ne!(other_digest(&d), d);
    }
}

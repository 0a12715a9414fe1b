//! The inspector's pages, drawn with the served console's building blocks
//! (`skillgate_server::console::render`). Everything shown comes from a remote agent and is
//! untrusted: maud escapes it; no page ever contains the bearer token.

use maud::{html, Markup};
use serde_json::Value;
use skillgate_a2a::AgentCard;
use skillgate_client::{ClientError, Resolved, SkillSummary};
use skillgate_server::console::render::{self, encode, CallTarget, Composition, TaskSource};

const BRAND: &str = "skillgate inspect";

/// How the agent's token is known, for the session box (never the token itself).
#[derive(Clone, Copy)]
pub(crate) enum TokenSource {
    None,
    CommandLine,
    Session,
}

/// The link of a skill's page.
pub(crate) fn skill_href(agent: &str, id: &str) -> String {
    format!("/skill?agent={}&id={}", encode(agent), encode(id))
}

/// The task view's path up to the task id (which the caller appends, encoded).
pub(crate) fn task_href_prefix(agent: &str) -> String {
    format!("/task?agent={}&id=", encode(agent))
}

/// The page frame: the agent URL form, the token box, then `body`.
pub(crate) fn frame(title: &str, agent: Option<&str>, token: TokenSource, body: Markup) -> Markup {
    render::layout(
        BRAND,
        title,
        html! {
            form.inline #agent-form method="get" action="/" {
                label for="agent" { "Agent URL" }
                input #agent type="url" name="agent" value=[agent] placeholder="https://agent.example or http://127.0.0.1:7420" required;
                button type="submit" { "Inspect" }
            }
            @if let TokenSource::Session = token {
                form.inline method="post" action="/session/forget" {
                    span.muted { "Bearer token: entered for this browser session (kept in the inspector's memory only)." }
                    @if let Some(a) = agent { input type="hidden" name="agent" value=(a); }
                    button type="submit" { "Forget it" }
                }
            } @else {
                @if let TokenSource::CommandLine = token { p.muted { "Credentials for the agent: from the command line." } }
                details #token-box {
                    summary { "Agent needs a bearer token?" }
                    form.inline method="post" action="/session/token" {
                        input type="password" name="token" autocomplete="off" placeholder="bearer token";
                        @if let Some(a) = agent { input type="hidden" name="agent" value=(a); }
                        button type="submit" { "Use for this session" }
                        span.muted { "Kept in the inspector's memory for this browser session only (it replaces a token given on the command line); never shown or logged." }
                    }
                }
            }
            (body)
        },
    )
}

/// What the index shows of an agent.
pub(crate) struct AgentView<'a> {
    pub(crate) agent: &'a str,
    pub(crate) card_url: String,
    /// The linter's report on the card bytes, or why there is none.
    pub(crate) lint: Result<skillgate_lint::Report, String>,
    /// The card as the validated client's step 1 reads it, or its refusal.
    pub(crate) card: Result<(AgentCard, String), ClientError>,
    pub(crate) skills: Vec<SkillSummary>,
}

fn findings(lint: &Result<skillgate_lint::Report, String>) -> Markup {
    html! {
        section #findings {
            @match lint {
                Err(e) => { h2 { "Card lint" } p.verdict-bad { "The card could not be linted: " (e) } }
                Ok(r) => {
                    h2 { "Card lint " span.muted { "(" (r.profile.as_str()) ": " (r.errors()) " errors, " (r.warnings()) " warnings, " (r.infos()) " notes)" } }
                    @if r.findings.is_empty() { p.verdict-ok { "No findings." } }
                    @else {
                        table.findings {
                            thead { tr { th { "rule" } th { "severity" } th { "where" } th { "finding" } th { "fix" } } }
                            tbody { @for f in &r.findings {
                                tr {
                                    td { code { (f.rule) } }
                                    td class=(f.severity.as_str()) { (f.severity.as_str()) }
                                    td { code { (f.path) } }
                                    td { (f.message) }
                                    td.muted { (f.hint) }
                                }
                            } }
                        }
                    }
                }
            }
        }
    }
}

fn card_summary(card: &AgentCard, interface: &str) -> Markup {
    let caps = &card.capabilities;
    let yes_no = |b: Option<bool>| if b == Some(true) { "yes" } else { "no" };
    html! {
        h1 { (card.name) " " span.version { (card.version) } }
        p.description { (card.description) }
        dl.card {
            @if let Some(p) = &card.provider { dt { "Provider" } dd { (p.organization) " " span.muted { (p.url) } } }
            dt { "Interfaces" }
            dd { ul { @for i in &card.supported_interfaces {
                li { code { (i.protocol_binding) } " " (i.url) " " span.muted { "A2A " (i.protocol_version) } }
            } } }
            dt { "Used by the client" } dd { (interface) }
            dt { "Capabilities" }
            dd { "streaming: " (yes_no(caps.streaming)) ", push notifications: " (yes_no(caps.push_notifications)) ", extended card: " (yes_no(caps.extended_agent_card)) }
            dt { "Extensions" } dd { ul { @for e in &caps.extensions { li { code { (e.uri) } } } } }
        }
    }
}

/// The index for one agent: card, lint findings, skills, conformance, task lookup.
pub(crate) fn agent(v: &AgentView<'_>, token: TokenSource) -> Markup {
    let body = html! {
        @match &v.card {
            Ok((card, interface)) => (card_summary(card, interface)),
            Err(e) => {
                h1 { "Agent at " code { (v.agent) } }
                p.verdict-bad #card-error { "The validated client refuses this card: " (client_error(e)) }
            }
        }
        p.muted { "Agent Card: " code { (v.card_url) } }
        (findings(&v.lint))
        h2 { "Skills" }
        @if v.skills.is_empty() { p.muted { "None listed." } }
        @else {
            table.skills {
                thead { tr { th { "id" } th { "version" } th { "interface digest" } th { "modes" } th { "tags" } } }
                tbody { @for s in &v.skills {
                    tr {
                        td { a href=(skill_href(v.agent, &s.id)) { code { (s.id) } } br; span.muted { (s.name) } }
                        td { (s.version.as_deref().unwrap_or("—")) }
                        td { code.digest { (s.interface_digest.as_deref().unwrap_or("not governed")) } }
                        td { (s.input_modes.join(", ")) " → " (s.output_modes.join(", ")) }
                        td { @for t in &s.tags { span.tag { (t) } " " } }
                    }
                } }
            }
        }
        section #conformance data-action="/api/conformance" data-agent=(v.agent) {
            h2 { "Conformance" }
            p.muted { "Probes the agent for the schema-interface draft: about a dozen requests per skill, some deliberately wrong." }
            noscript { p.muted { "The run shows its progress with JavaScript; `skillgate conformance URL` runs it from a shell." } }
            button #conformance-start type="button" hidden { "Run conformance" }
            p #conformance-progress {}
            table #conformance-results hidden {
                thead { tr { th { "check" } th { "skill" } th { "verdict" } th { "requirement" } } }
                tbody #conformance-checks {}
            }
        }
        h2 { "Tasks" }
        form.inline method="get" action="/task" {
            input type="hidden" name="agent" value=(v.agent);
            input type="text" name="id" placeholder="task id" required;
            button type="submit" { "Show task" }
        }
    };
    frame("agent", Some(v.agent), token, body)
}

/// The index without an agent: only the URL form.
pub(crate) fn start(token: TokenSource) -> Markup {
    frame(
        "start",
        None,
        token,
        html! {
            h1 { "Inspect an A2A agent" }
            p { "Enter the agent's base URL or the URL of its Agent Card. The inspector fetches the card, lints it, obtains every skill's Skill Interface Document through the validated client, and lets you call skills and follow tasks." }
        },
    )
}

/// One line for a client error: where and at which step it happened, its code, the message.
pub(crate) fn client_error(e: &ClientError) -> String {
    let step = e
        .step()
        .map(|s| format!(", step {} {}", s.number(), s.name()))
        .unwrap_or_default();
    format!(
        "{} ({}{step}): {}",
        e.code_str(),
        e.where_().as_str(),
        e.message()
    )
}

/// A skill as the validated client resolved it.
pub(crate) struct SkillView<'a> {
    pub(crate) agent: &'a str,
    pub(crate) skill_id: &'a str,
    /// Each step that passed: number, name, what it checked.
    pub(crate) steps: Vec<(u8, &'static str, String)>,
    pub(crate) resolved: Result<&'a Resolved, ClientError>,
    pub(crate) composition: Option<Composition>,
}

/// A skill's page: the client's steps, the digest verdict, the document and the call form.
pub(crate) fn skill(v: &SkillView<'_>, token: TokenSource) -> Markup {
    let body = html! {
        p.crumbs { a href={ "/?agent=" (encode(v.agent)) } { (v.agent) } " / skills" }
        h1 { code { (v.skill_id) } }
        h2 { "Skill Interface Document, as the validated client obtained it" }
        ol #client-steps { @for (n, name, summary) in &v.steps { li value=(n) { strong { (name) } " — " (summary) } } }
        @match &v.resolved {
            Err(e) => {
                p.verdict-bad #digest-verdict { "Refused: " (client_error(e)) }
                p.muted { "Nothing from this skill is trusted or callable until describe_skill returns a document whose digest matches the card's." }
            }
            Ok(r) => {
                @let d = r.document.document();
                p.verdict-ok #digest-verdict {
                    "Three-way digest check passed: advertised = returned = computed = " code.digest { (r.document.interface_digest().to_string()) }
                }
                dl.card {
                    dt { "Version" } dd { (d.skill_version) }
                    dt { "Response modes" } dd { (modes(d)) }
                    dt { "Cancelable" } dd { @if d.interaction.cancelable { "yes" } @else { "no" } }
                    dt { "Constraints" } dd { code { (serde_json::to_value(&d.constraints).unwrap_or_default().to_string()) } }
                }
                @if let Some(c) = &v.composition {
                    (render::composition_section(c, &|id| skill_href(v.agent, id)))
                }
                h2 { "Schemas" }
                (render::schemas(d))
                details.raw { summary { "Skill Interface Document (raw JSON)" } pre { code { (serde_json::to_string_pretty(r.document.value()).unwrap_or_default()) } } }
                (render::try_form(d, &r.document.interface_digest().to_string(),
                    &CallTarget::Inspector { action: "/api/call", agent: v.agent }, &task_href_prefix(v.agent)))
            }
        }
    };
    frame(v.skill_id, Some(v.agent), token, body)
}

fn modes(d: &skillgate_core::wire::SkillInterfaceDocument) -> String {
    d.interaction
        .response_modes
        .iter()
        .map(|m| match serde_json::to_value(m) {
            Ok(Value::String(s)) => s,
            _ => format!("{m:?}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A remote task as `GetTask` returned it.
pub(crate) fn task(agent: &str, task: &Value, token: TokenSource) -> Markup {
    let id = task.get("id").and_then(Value::as_str).unwrap_or("");
    let source = TaskSource::Inspector {
        events: format!("/api/task/events?agent={}&id={}", encode(agent), encode(id)),
        cancel: "/task/cancel",
        fields: vec![("agent", agent.to_owned()), ("id", id.to_owned())],
    };
    frame(
        &format!("task {id}"),
        Some(agent),
        token,
        html! {
            p.crumbs { a href={ "/?agent=" (encode(agent)) } { (agent) } " / tasks" }
            (render::task_view(task, &source))
        },
    )
}

/// A page saying what could not be done (an unreachable agent, a refused request).
pub(crate) fn error(title: &str, agent: Option<&str>, message: &str, token: TokenSource) -> Markup {
    frame(
        title,
        agent,
        token,
        html! {
            h1 { (title) }
            p.verdict-bad #error { (message) }
        },
    )
}

/// The answer to a request from a foreign host or origin.
pub(crate) fn refused(reason: &str) -> Markup {
    render::layout(
        BRAND,
        "refused",
        html! { h1 { "Refused" } p #error { (reason) } },
    )
}

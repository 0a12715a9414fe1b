//! The served console's own pages (index, skill, task, not found), made of the shared
//! building blocks in [`super::render`]. Card and document text is untrusted and only ever
//! inserted escaped.

use super::render::{self, CallTarget, Composition, TaskSource};
use maud::{html, Markup};
use serde_json::Value;
use skillgate_a2a as a2a;
use skillgate_core::wire::SkillInterfaceDocument;

const BRAND: &str = "skillgate console";

/// What the skills table shows of one skill.
pub(crate) struct SkillSummary {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) version: String,
    pub(crate) digest: String,
    pub(crate) response_modes: Vec<String>,
    pub(crate) tags: Vec<String>,
}

/// Everything the skill page shows.
pub(crate) struct SkillPage<'a> {
    pub(crate) agent_name: &'a str,
    pub(crate) summary: SkillSummary,
    pub(crate) document: &'a SkillInterfaceDocument,
    pub(crate) authority: String,
    pub(crate) constraints: Value,
    pub(crate) raw: String,
    pub(crate) auth: bool,
    pub(crate) composition: Composition,
}

/// `/`: the card summary and the skills table.
pub(crate) fn index(card: &a2a::AgentCard, skills: &[SkillSummary], auth: bool) -> Markup {
    let caps = &card.capabilities;
    let yes_no = |b: Option<bool>| if b == Some(true) { "yes" } else { "no" };
    render::layout(
        BRAND,
        &card.name,
        html! {
            h1 { (card.name) " " span.version { (card.version) } }
            p.description { (card.description) }
            dl.card {
                @if let Some(p) = &card.provider {
                    dt { "Provider" } dd { (p.organization) " " span.muted { (p.url) } }
                }
                dt { "Interfaces" }
                dd { ul { @for i in &card.supported_interfaces {
                    li { code { (i.protocol_binding) } " " (i.url) " " span.muted { "A2A " (i.protocol_version) } }
                } } }
                dt { "Capabilities" }
                dd {
                    "streaming: " (yes_no(caps.streaming))
                    ", push notifications: " (yes_no(caps.push_notifications))
                    ", extended card: " (yes_no(caps.extended_agent_card))
                }
                dt { "Extensions" }
                dd { ul { @for e in &caps.extensions { li { code { (e.uri) } } } } }
                dt { "Authentication" }
                dd { @if auth { "bearer token (skill pages and calls need one)" } @else { "none" } }
                dt { "Agent Card" }
                dd { a href=(a2a::AGENT_CARD_PATH) { (a2a::AGENT_CARD_PATH) } }
            }
            h2 { "Skills" }
            table.skills {
                thead { tr { th { "id" } th { "version" } th { "interface digest" } th { "response modes" } th { "tags" } } }
                tbody { @for s in skills {
                    tr {
                        td { a href=(skill_href(&s.id)) { code { (s.id) } } br; span.muted { (s.name) } }
                        td { (s.version) }
                        td { code.digest { (s.digest) } }
                        td { (s.response_modes.join(", ")) }
                        td { @for t in &s.tags { span.tag { (t) } " " } }
                    }
                } }
            }
        },
    )
}

/// The page path of a skill; the id is percent-encoded so any id makes one path segment.
pub(crate) fn skill_href(id: &str) -> String {
    format!("{}{}", super::SKILL_PREFIX, render::encode(id))
}

/// `/console/skills/{id}`: the Skill Interface Document, what it composes with, and the
/// "try it" form.
pub(crate) fn skill(p: &SkillPage<'_>) -> Markup {
    let s = &p.summary;
    render::layout(
        BRAND,
        &s.id,
        html! {
            p.crumbs { a href="/" { (p.agent_name) } " / skills" }
            h1 { code { (s.id) } " " span.version { (s.version) } }
            p.description { (s.name) " — " (s.description) }
            dl.card {
                dt { "Interface digest" } dd { code.digest { (s.digest) } }
                dt { "Response modes" } dd { (s.response_modes.join(", ")) }
                dt { "Cancelable" } dd { @if p.document.interaction.cancelable { "yes" } @else { "no" } }
                dt { "Authority" } dd { (p.authority) }
                dt { "Constraints" } dd { code { (p.constraints.to_string()) } }
                dt { "Tags" } dd { @for t in &s.tags { span.tag { (t) } " " } }
            }
            (render::composition_section(&p.composition, &|id| skill_href(id)))
            h2 { "Schemas" }
            (render::schemas(p.document))
            details.raw { summary { "Skill Interface Document (raw JSON)" } pre { code { (p.raw) } } }
            (render::try_form(p.document, &s.digest, &CallTarget::SameAgent { token_field: p.auth }, super::TASK_PREFIX))
        },
    )
}

/// `/console/tasks/{id}`: the task as `GetTask` read it, with Cancel and live events.
pub(crate) fn task(agent_name: &str, task: &Value) -> Markup {
    let id = task.get("id").and_then(Value::as_str).unwrap_or("");
    render::layout(
        BRAND,
        &format!("task {id}"),
        html! {
            p.crumbs { a href="/" { (agent_name) } " / tasks" }
            (render::task_view(task, &TaskSource::SameAgent))
        },
    )
}

/// A console page for something this agent does not show to this caller (a skill or a task).
pub(crate) fn not_found(what: &str, id: &str) -> Markup {
    render::layout(
        BRAND,
        "not found",
        html! {
            h1 { "No such " (what) }
            p { "This agent has no " (what) " " code { (id) } " that it shows here. " a href="/" { "Back to the agent" } }
        },
    )
}

/// A console page for a read that failed on the agent's side (a store error, say).
pub(crate) fn error(what: &str, message: &str) -> Markup {
    render::layout(
        BRAND,
        "error",
        html! {
            h1 { "Cannot show this " (what) }
            p { (message) }
        },
    )
}

//! The console's HTML, as compile-time maud templates. Everything inserted with `(…)` is
//! escaped by maud; the only unescaped text is the page chrome written here. Card and
//! document text is untrusted (an operator's config, a skill author's schema), so no page
//! ever uses `PreEscaped` on it.

use super::schema::{self, FieldRow};
use maud::{html, Markup, DOCTYPE};
use serde_json::Value;
use skillgate_a2a as a2a;
use skillgate_core::wire::SchemaReference;

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
    pub(crate) cancelable: bool,
    pub(crate) authority: String,
    pub(crate) input: &'a SchemaReference,
    pub(crate) output: &'a SchemaReference,
    pub(crate) records: Vec<(&'a str, &'a SchemaReference)>,
    pub(crate) constraints: Value,
    pub(crate) raw: String,
    pub(crate) auth: bool,
}

fn layout(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                title { (title) " · skillgate console" }
                link rel="stylesheet" href=(super::CSS_PATH);
            }
            body {
                header { a href="/" { "skillgate console" } }
                main { (body) }
            }
        }
    }
}

/// `/`: the card summary and the skills table.
pub(crate) fn index(card: &a2a::AgentCard, skills: &[SkillSummary], auth: bool) -> Markup {
    let caps = &card.capabilities;
    let yes_no = |b: Option<bool>| if b == Some(true) { "yes" } else { "no" };
    layout(
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
    let enc: String = url::form_urlencoded::byte_serialize(id.as_bytes()).collect();
    format!("{}{}", super::SKILL_PREFIX, enc.replace('+', "%20"))
}

fn field_table(rows: &[FieldRow]) -> Markup {
    html! {
        @if rows.is_empty() {
            p.muted { "No declared properties: see the raw schema." }
        } @else {
            table.fields {
                thead { tr { th { "name" } th { "type" } th { "required" } th { "enum" } th { "bounds" } th { "description" } } }
                tbody { @for r in rows {
                    tr {
                        td { code { (r.name) } }
                        td { (r.kind) }
                        td { @if r.required { "yes" } @else { span.muted { "no" } } }
                        td { @for a in &r.allowed { code { (a) } " " } }
                        td { @for b in &r.bounds { span.bound { (b) } " " } }
                        td { (r.description) }
                    }
                } }
            }
            @if rows.len() >= schema::MAX_ROWS { p.muted { "Cut at " (schema::MAX_ROWS) " fields." } }
        }
    }
}

fn schema_section(title: &str, r: &SchemaReference) -> Markup {
    let raw = serde_json::to_string_pretty(&r.resolution.schema).unwrap_or_default();
    html! {
        section.schema {
            h3 { (title) }
            p.muted { code { (r.schema_uri) } " version " (r.version) " · digest " code.digest { (r.digest.to_string()) } }
            (field_table(&schema::rows(&r.resolution.schema)))
            details { summary { "JSON Schema" } pre { code { (raw) } } }
        }
    }
}

/// One input of the "try it" form for a top-level property.
fn input_for(name: &str, s: &Value, required: bool) -> Markup {
    let kind = schema::kind_of(s);
    let choices: Vec<String> = s
        .get("enum")
        .and_then(Value::as_array)
        .map(|e| e.iter().map(Value::to_string).collect())
        .unwrap_or_default();
    // One span: the label's grid puts the text on one row and the input under it.
    let label = html! { span { code { (name) } @if required { " *" } " " span.muted { (kind) } } };
    html! {
        label.field {
            (label)
            @if !choices.is_empty() {
                select name=(name) data-kind="json" {
                    @if !required { option value="" { "(omit)" } }
                    @for c in &choices { option value=(c) { (c) } }
                }
            } @else if kind == "boolean" {
                select name=(name) data-kind="json" {
                    @if !required { option value="" { "(omit)" } }
                    option value="true" { "true" } option value="false" { "false" }
                }
            } @else if kind == "string" {
                input type="text" name=(name) data-kind="string";
            } @else if kind == "integer" || kind == "number" {
                input type="text" inputmode="decimal" name=(name) data-kind="json";
            } @else {
                textarea name=(name) data-kind="json" rows="3" placeholder="JSON" {}
            }
        }
    }
}

/// `/console/skills/{id}`: the Skill Interface Document and the "try it" form.
pub(crate) fn skill(p: &SkillPage<'_>) -> Markup {
    let s = &p.summary;
    let top = schema::top_level(&p.input.resolution.schema);
    layout(
        &s.id,
        html! {
            p.crumbs { a href="/" { (p.agent_name) } " / skills" }
            h1 { code { (s.id) } " " span.version { (s.version) } }
            p.description { (s.name) " — " (s.description) }
            dl.card {
                dt { "Interface digest" } dd { code.digest { (s.digest) } }
                dt { "Response modes" } dd { (s.response_modes.join(", ")) }
                dt { "Cancelable" } dd { @if p.cancelable { "yes" } @else { "no" } }
                dt { "Authority" } dd { (p.authority) }
                dt { "Constraints" } dd { code { (p.constraints.to_string()) } }
                dt { "Tags" } dd { @for t in &s.tags { span.tag { (t) } " " } }
            }
            h2 { "Schemas" }
            (schema_section("Input (arguments)", p.input))
            (schema_section("Output", p.output))
            @for (kind, r) in &p.records { (schema_section(&format!("Supporting record: {kind}"), r)) }
            details.raw { summary { "Skill Interface Document (raw JSON)" } pre { code { (p.raw) } } }
            h2 { "Try it" }
            noscript { p.muted { "Sending a call needs JavaScript; everything above reads without it." } }
            form #try data-skill=(s.id) data-version=(s.version) data-digest=(s.digest) data-extension=(skillgate_core::wire::EXTENSION_URI) {
                @for (name, sub, required) in &top { (input_for(name, sub, *required)) }
                label.field {
                    span { "Arguments as JSON " span.muted { "(when filled, used instead of the fields above)" } }
                    textarea name="__arguments" rows="5" placeholder="{ }" {}
                }
                @if p.auth {
                    label.field { span { "Bearer token " span.muted { "(sent with this call only, never stored)" } }
                        input type="password" name="__token" autocomplete="off"; }
                }
                button type="submit" { "Send" }
            }
            section #outcome hidden {
                h3 { "Result " span #state {} }
                div #refusal hidden { p { "Error code " code #code {} } p #message {} ul #paths {} }
                h4 { "Output" } pre { code #output {} }
                h4 { "Records" } pre { code #records {} }
                details { summary { "Raw JSON-RPC response" } pre { code #raw {} } }
            }
            script src=(super::JS_PATH) {}
        },
    )
}

/// A console page for a skill this agent does not show.
pub(crate) fn not_found(id: &str) -> Markup {
    layout(
        "not found",
        html! {
            h1 { "No such skill" }
            p { "This agent serves no skill " code { (id) } " that it shows here. " a href="/" { "All skills" } }
        },
    )
}

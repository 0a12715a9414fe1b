//! The console's building blocks, public so that `skillgate inspect` (crate
//! `skillgate-inspect`) draws the same pages for any agent instead of a second copy: the page
//! layout, the response headers (the strict CSP), the embedded assets, a Schema Reference as a
//! field table, the "try it" form, the "composes with" lists and the task view.
//!
//! Everything inserted with `(…)` is escaped by maud; card, document and task text is
//! untrusted, so nothing here uses `PreEscaped` on it.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use maud::{html, Markup, DOCTYPE};
use serde_json::Value;
use skillgate_core::compose::direct_composition;
use skillgate_core::fields::{self as schema, FieldRow};
use skillgate_core::wire::{SchemaReference, SkillInterfaceDocument};

/// Where the style sheet is served (same path on the agent and on the inspector).
pub const CSS_PATH: &str = "/console/assets/console.css";
/// Where the one script is served.
pub const JS_PATH: &str = "/console/assets/console.js";

const CSS: &str = include_str!("console.css");
const JS: &str = include_str!("console.js");

/// No inline script or style, nothing from another origin, no framing: an escaping mistake
/// in a page cannot run script.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
                       connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; \
                       frame-ancestors 'none'";

/// `router` with the two embedded assets routed at [`CSS_PATH`] and [`JS_PATH`].
pub fn with_assets<S: Clone + Send + Sync + 'static>(router: Router<S>) -> Router<S> {
    router.route(CSS_PATH, get(css)).route(JS_PATH, get(js))
}

/// A rendered page as a response: HTML with the console's CSP, `nosniff` and `no-cache`
/// (pages show live state, never to be served stale).
pub fn page(status: StatusCode, markup: Markup) -> Response {
    let mut r = (status, markup.into_string()).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=300"),
    );
    r
}

async fn css() -> Response {
    asset("text/css; charset=utf-8", CSS)
}

async fn js() -> Response {
    asset("text/javascript; charset=utf-8", JS)
}

/// The page frame: `brand` is the header's link text (to `/`), `title` the document title.
/// The script is loaded on every page; it only acts on the elements a page has.
pub fn layout(brand: &str, title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                title { (title) " · " (brand) }
                link rel="stylesheet" href=(CSS_PATH);
            }
            body {
                header { a href="/" { (brand) } }
                main { (body) }
                script src=(JS_PATH) {}
            }
        }
    }
}

/// A value of `path` percent-encoded as one path segment or query value (any id, any URL).
pub fn encode(value: &str) -> String {
    let enc: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
    enc.replace('+', "%20")
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
                        td { @for a in &r.allowed { code { (a.to_string()) } " " } }
                        td { @for b in &r.bounds { span.bound { (b) } " " } }
                        td { (r.description) }
                    }
                } }
            }
            @if rows.len() >= schema::MAX_ROWS { p.muted { "Cut at " (schema::MAX_ROWS) " fields." } }
        }
    }
}

/// One Schema Reference: its identity and digest, its fields as a table, the raw schema.
pub fn schema_section(title: &str, r: &SchemaReference) -> Markup {
    let raw = serde_json::to_string_pretty(&r.resolution.schema).unwrap_or_default();
    html! {
        section.schema {
            h3 { (title) }
            p.muted { code { (r.schema_uri) } " version " (r.version) " · digest " code.digest { (r.digest.to_string()) } }
            (field_table(&schema::field_rows(&r.resolution.schema)))
            details { summary { "JSON Schema" } pre { code { (raw) } } }
        }
    }
}

/// The input, output and supporting record schemas of a document, each as [`schema_section`].
pub fn schemas(d: &SkillInterfaceDocument) -> Markup {
    html! {
        (schema_section("Input (arguments)", &d.input_schema))
        (schema_section("Output", &d.output_schema))
        @for (kind, r) in &d.supporting_record_schemas {
            (schema_section(&format!("Supporting record: {kind}"), r))
        }
    }
}

/// Which skills one skill composes with directly (the draft's rule: identical Schema
/// References, see `skillgate_core::compose`): those its output can feed, and those whose
/// output can feed it. Ids in the order the candidates were given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Composition {
    /// Skills whose input this skill's output matches.
    pub feeds: Vec<String>,
    /// Skills whose output matches this skill's input.
    pub fed_by: Vec<String>,
}

/// The [`Composition`] of `this` among `others` (pairs of skill id and document; `this`
/// itself may be among them and is then checked like any other, so a skill whose output is
/// its own input lists itself).
pub fn composition<'a>(
    this: &SkillInterfaceDocument,
    others: impl IntoIterator<Item = (&'a str, &'a SkillInterfaceDocument)>,
) -> Composition {
    let mut c = Composition::default();
    for (id, other) in others {
        if direct_composition(&this.output_schema, &other.input_schema).is_ok() {
            c.feeds.push(id.to_owned());
        }
        if direct_composition(&other.output_schema, &this.input_schema).is_ok() {
            c.fed_by.push(id.to_owned());
        }
    }
    c
}

/// The "Composes with" section; `href` makes a skill's page link from its id.
pub fn composition_section(c: &Composition, href: &dyn Fn(&str) -> String) -> Markup {
    let list = |ids: &[String]| {
        html! {
            @if ids.is_empty() { span.muted { "none" } }
            @else { ul.compose { @for id in ids { li { a href=(href(id)) { code { (id) } } } } } }
        }
    };
    html! {
        section #composes {
            h2 { "Composes with" }
            p.muted { "Direct composition: the Schema References are identical (URI, version, dialect, digest). Structural likeness is not enough." }
            dl.card {
                dt { "Its output feeds" } dd #feeds { (list(&c.feeds)) }
                dt { "Its input is fed by" } dd #fed-by { (list(&c.fed_by)) }
            }
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

/// Where the "try it" form sends its call.
pub enum CallTarget<'a> {
    /// The served console: a JSON-RPC `SendMessage` to this agent's own `/`.
    SameAgent {
        /// Show a bearer token field (the agent authenticates callers).
        token_field: bool,
    },
    /// The inspector: a JSON `POST` to `action` naming the remote agent `agent`, which the
    /// inspector turns into a validated client call.
    Inspector {
        /// The inspector's call path.
        action: &'a str,
        /// The remote agent's URL.
        agent: &'a str,
    },
}

/// The "try it" section for a skill: one input per top-level property of the input schema,
/// a JSON fallback, and the result area the script fills. `task_href` is the task view's
/// path up to the (percent-encoded) task id, linked from the result.
pub fn try_form(
    d: &SkillInterfaceDocument,
    digest: &str,
    target: &CallTarget<'_>,
    task_href: &str,
) -> Markup {
    let top = schema::top_level(&d.input_schema.resolution.schema);
    let (action, agent, token_field) = match target {
        CallTarget::SameAgent { token_field } => (None, None, *token_field),
        CallTarget::Inspector { action, agent } => (Some(*action), Some(*agent), false),
    };
    html! {
        h2 { "Try it" }
        noscript { p.muted { "Sending a call needs JavaScript; everything above reads without it." } }
        form #try data-skill=(d.skill_id) data-version=(d.skill_version) data-digest=(digest)
            data-extension=(skillgate_core::wire::EXTENSION_URI) data-task-href=(task_href)
            data-action=[action] data-agent=[agent] {
            @for (name, sub, required) in &top { (input_for(name, sub, *required)) }
            label.field {
                span { "Arguments as JSON " span.muted { "(when filled, used instead of the fields above)" } }
                textarea name="__arguments" rows="5" placeholder="{ }" {}
            }
            @if token_field {
                label.field { span { "Bearer token " span.muted { "(sent with this call only, never stored)" } }
                    input type="password" name="__token" autocomplete="off"; }
            }
            button type="submit" { "Send" }
        }
        section #outcome hidden {
            h3 { "Result " span #state {} }
            p #task-line hidden { "Task " a #task-link href="#" {} }
            div #refusal hidden { p { "Error code " code #code {} } p #message {} ul #paths {} }
            h4 { "Output" } pre { code #output {} }
            h4 { "Records" } pre { code #records {} }
            details { summary { "Raw response" } pre { code #raw {} } }
        }
    }
}

/// How the task view's live events and Cancel reach the task.
pub enum TaskSource<'a> {
    /// The served console: JSON-RPC `SubscribeToTask` and `CancelTask` on this agent's own
    /// `/` (the script's `fetch`, with the page's credentials rules).
    SameAgent,
    /// The inspector: server-sent events relayed from `events`; Cancel is a plain form
    /// `POST` to `cancel` with the hidden fields `fields` (works without JavaScript).
    Inspector {
        /// The relay of the remote `SubscribeToTask`.
        events: String,
        /// The cancel action.
        cancel: &'a str,
        /// Hidden form fields (name, value) the cancel action needs.
        fields: Vec<(&'a str, String)>,
    },
}

fn parts_text(parts: Option<&Value>) -> String {
    let Some(parts) = parts.and_then(Value::as_array) else {
        return String::new();
    };
    parts
        .iter()
        .map(|p| {
            if let Some(t) = p.get("text").and_then(Value::as_str) {
                t.to_owned()
            } else if let Some(d) = p.get("data") {
                serde_json::to_string_pretty(d).unwrap_or_default()
            } else {
                serde_json::to_string(p).unwrap_or_default()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The task view: state, status message, artifacts (the primary result and the supporting
/// records), history, a Cancel control and the live event log. `task` is the A2A `Task` as
/// JSON (what `GetTask` returned at render time); the page reads completely without script.
pub fn task_view(task: &Value, source: &TaskSource<'_>) -> Markup {
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let id = str_of(task, "id");
    let status = task.get("status").cloned().unwrap_or(Value::Null);
    let state = str_of(&status, "state");
    let message = parts_text(status.get("message").and_then(|m| m.get("parts")));
    let empty = Vec::new();
    let artifacts = task
        .get("artifacts")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let history = task
        .get("history")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let terminal = matches!(
        state.as_str(),
        "TASK_STATE_COMPLETED"
            | "TASK_STATE_FAILED"
            | "TASK_STATE_CANCELED"
            | "TASK_STATE_REJECTED"
    );
    let events = match source {
        TaskSource::SameAgent => None,
        TaskSource::Inspector { events, .. } => Some(events.as_str()),
    };
    html! {
        section #task data-task-id=(id) data-terminal=(terminal) data-events=[events]
            data-extension=(skillgate_core::wire::EXTENSION_URI) {
            h1 { "Task " code { (id) } }
            dl.card {
                dt { "State" } dd { code #task-state { (state) } }
                dt { "Context" } dd { code { (str_of(task, "contextId")) } }
                dt { "Updated" } dd { (str_of(&status, "timestamp")) }
                dt { "Status message" } dd { pre { code #task-message { @if message.is_empty() { "(none)" } @else { (message) } } } }
            }
            @match source {
                TaskSource::SameAgent => {
                    @if !terminal { button #cancel type="button" hidden { "Cancel task" } }
                }
                TaskSource::Inspector { cancel, fields, .. } => {
                    @if !terminal {
                        form #cancel-form method="post" action=(cancel) {
                            @for (n, v) in fields { input type="hidden" name=(n) value=(v); }
                            button type="submit" { "Cancel task" }
                        }
                    }
                }
            }
            p #cancel-outcome hidden {}
            h2 { "Artifacts" }
            @if artifacts.is_empty() { p.muted { "none" } }
            @for a in artifacts {
                section.artifact {
                    h3 {
                        @if str_of(a, "artifactId") == "result" { "Result " } @else { "Record " }
                        code { (str_of(a, "name")) } " " span.muted { (str_of(a, "artifactId")) }
                    }
                    pre { code { (parts_text(a.get("parts"))) } }
                }
            }
            h2 { "Live events" }
            @if terminal { p.muted #events-note { "The task is in a terminal state: no more events." } }
            @else { p.muted #events-note { "Live events need JavaScript; reload the page to read the task again." } }
            ol #events {}
            h2 { "History" }
            @if history.is_empty() { p.muted { "none" } }
            @else { ol.history { @for m in history {
                li { span.muted { (str_of(m, "role")) } pre { code { (parts_text(m.get("parts"))) } } }
            } } }
            details.raw { summary { "Task (raw JSON)" } pre { code { (serde_json::to_string_pretty(task).unwrap_or_default()) } } }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use skillgate_core::document::InterfaceBuilder;

    fn doc(id: &str, input: &str, output: &str) -> SkillInterfaceDocument {
        let schema = |uri: &str| {
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object", "description": uri})
        };
        InterfaceBuilder::new(id, "1.0")
            .input(input, "1.0", schema(input))
            .output(output, "1.0", schema(output))
            .build()
            .unwrap()
            .document()
            .clone()
    }

    #[test]
    fn composition_lists_both_directions() {
        let collect = doc("collect", "urn:t:query", "urn:t:measurement");
        let assess = doc("assess", "urn:t:measurement", "urn:t:verdict");
        let other = doc("other", "urn:t:other", "urn:t:query");
        let all = [
            ("collect", &collect),
            ("assess", &assess),
            ("other", &other),
        ];
        let c = composition(&collect, all);
        assert_eq!(c.feeds, ["assess"]);
        assert_eq!(c.fed_by, ["other"]);
        let a = composition(&assess, all);
        assert!(a.feeds.is_empty());
        assert_eq!(a.fed_by, ["collect"]);
    }

    #[test]
    fn task_view_escapes_and_hides_cancel_when_terminal() {
        let t = json!({"id": "t<1>", "status": {"state": "TASK_STATE_COMPLETED",
            "message": {"role": "ROLE_AGENT", "parts": [{"text": "<script>x</script>"}]}},
            "artifacts": [{"artifactId": "result", "name": "out", "parts": [{"data": {"a": 1}}]}]});
        let html = task_view(&t, &TaskSource::SameAgent).into_string();
        assert!(
            html.contains("t&lt;1&gt;") && !html.contains("<script>x"),
            "{html}"
        );
        assert!(!html.contains("id=\"cancel\""));
        assert!(html.contains("Result "));
        let running = json!({"id": "t2", "status": {"state": "TASK_STATE_WORKING"}});
        let html = task_view(&running, &TaskSource::SameAgent).into_string();
        assert!(html.contains("id=\"cancel\""), "{html}");
    }
}

//! The web console every served agent shows to a browser: `GET /` with `Accept: text/html`
//! (the card summary and skills table) and `GET /console/skills/{id}` (a skill's Skill
//! Interface Document as field tables, and a "try it" form). Pages are rendered on the
//! server; the one script and the style sheet are embedded in the binary and served under
//! `/console/assets/`, so the console works offline and a strict Content-Security-Policy
//! (no inline script, same-origin only) holds on every page.
//!
//! The index shows only what the public Agent Card shows and is public like it; skill pages
//! and every call the form makes go through the normal endpoints and checks (bearer auth,
//! Host and Origin, version).

mod pages;
mod schema;

use crate::agent::HostedSkill;
use crate::http::AppState;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::to_value;

/// Every console path but `/` starts with this.
pub(crate) const PREFIX: &str = "/console/";
/// Where a skill's page lives (followed by the percent-encoded id).
pub(crate) const SKILL_PREFIX: &str = "/console/skills/";
/// The embedded assets (public: they hold nothing of the agent).
pub(crate) const ASSET_PREFIX: &str = "/console/assets/";
const CSS_PATH: &str = "/console/assets/console.css";
const JS_PATH: &str = "/console/assets/console.js";

const CSS: &str = include_str!("console.css");
const JS: &str = include_str!("console.js");

/// No inline script or style, nothing from another origin, no framing: an escaping mistake
/// in a page cannot run script.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                   img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// The console routes other than `/` (which shares its path with the JSON-RPC binding).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    router
        .route(CSS_PATH, get(css))
        .route(JS_PATH, get(js))
        .route("/console/skills/{id}", get(skill_page))
}

/// Whether the request prefers a page: `Accept` names `text/html` with a non-zero quality.
/// Browsers navigating send it; A2A clients never do.
pub(crate) fn wants_html(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|range| {
            let mut parts = range.split(';').map(str::trim);
            let ty = parts.next().unwrap_or("");
            let zero = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            ty.eq_ignore_ascii_case("text/html") && !zero
        })
}

/// Whether the request is for a console page the auth layer lets through without a token:
/// the index (the public card's content) and the assets.
pub(crate) fn is_public(method: &Method, path: &str, headers: &HeaderMap) -> bool {
    *method == Method::GET
        && ((path == "/" && wants_html(headers)) || path.starts_with(ASSET_PREFIX))
}

fn page(status: StatusCode, markup: maud::Markup) -> Response {
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

fn summary(h: &HostedSkill) -> pages::SkillSummary {
    let doc = h.gate.document().document();
    pages::SkillSummary {
        id: h.card_skill.id.clone(),
        name: h.card_skill.name.clone(),
        description: h.card_skill.description.clone(),
        version: h.gate.skill_version().to_owned(),
        digest: h.gate.interface_digest_str().to_owned(),
        response_modes: doc
            .interaction
            .response_modes
            .iter()
            .map(|m| match to_value(m) {
                Ok(serde_json::Value::String(s)) => s,
                _ => format!("{m:?}"),
            })
            .collect(),
        tags: h.card_skill.tags.clone(),
    }
}

/// `GET /` for a browser (the router sends other `GET /` requests to today's 405).
pub(crate) async fn index(State(st): State<AppState>) -> Response {
    let agent = st.service.agent();
    let auth = st.auth_enabled();
    let card = agent.card(st.base_url(), auth);
    // The public card's skills, in its order: extended-only skills are not shown here.
    let skills: Vec<pages::SkillSummary> = card
        .skills
        .iter()
        .filter_map(|s| agent.0.skills.get(&s.id))
        .map(summary)
        .collect();
    page(StatusCode::OK, pages::index(&card, &skills, auth))
}

async fn skill_page(
    State(st): State<AppState>,
    crate::http::Ctx(ctx): crate::http::Ctx,
    Path(id): Path<String>,
) -> Response {
    let agent = st.service.agent();
    let hosted = agent
        .0
        .skills
        .get(&id)
        .filter(|_| agent.visible(&id, ctx.caller.as_ref()));
    let Some(h) = hosted else {
        return page(StatusCode::NOT_FOUND, pages::not_found(&id));
    };
    let doc = h.gate.document();
    let d = doc.document();
    let authority = format!(
        "{} (approval may be required: {})",
        match to_value(d.authority.default_mode) {
            Ok(serde_json::Value::String(s)) => s,
            _ => format!("{:?}", d.authority.default_mode),
        },
        if d.authority.approval_may_be_required {
            "yes"
        } else {
            "no"
        }
    );
    let p = pages::SkillPage {
        agent_name: &agent.0.name,
        summary: summary(h),
        cancelable: d.interaction.cancelable,
        authority,
        input: &d.input_schema,
        output: &d.output_schema,
        records: d
            .supporting_record_schemas
            .iter()
            .map(|(k, v)| (k.as_str(), v))
            .collect(),
        constraints: to_value(&d.constraints).unwrap_or_default(),
        raw: serde_json::to_string_pretty(doc.value()).unwrap_or_default(),
        auth: st.auth_enabled(),
    };
    page(StatusCode::OK, pages::skill(&p))
}

//! The web console every served agent shows to a browser: `GET /` with `Accept: text/html`
//! (the card summary and skills table), `GET /console/skills/{id}` (a skill's Skill
//! Interface Document as field tables, the skills it composes with directly, and a "try it"
//! form) and `GET /console/tasks/{id}` (a task as `GetTask` reads it, with Cancel and live
//! events). Pages are rendered on the
//! server; the one script and the style sheet are embedded in the binary and served under
//! `/console/assets/`, so the console works offline and a strict Content-Security-Policy
//! (no inline script, same-origin only) holds on every page.
//!
//! The index shows only what the public Agent Card shows and is public like it; skill pages
//! and every call the form makes go through the normal endpoints and checks (bearer auth,
//! Host and Origin, version); a task page is rendered from `GetTask` itself, so it shows
//! exactly the tasks its caller could `GetTask`.
//!
//! [`render`] is public: `skillgate inspect` draws the same pages for any agent.

mod pages;
pub mod render;

use crate::state::{AppState, Ctx};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use render::page;
use serde_json::to_value;
use skillgate_a2a::GetTaskRequest;
use skillgate_runtime::agent::HostedSkill;

/// Every console path but `/` starts with this.
const PREFIX: &str = "/console/";
/// Where a skill's page lives (followed by the percent-encoded id).
pub(crate) const SKILL_PREFIX: &str = "/console/skills/";
/// Where a task's page lives (followed by the percent-encoded id).
pub(crate) const TASK_PREFIX: &str = "/console/tasks/";
/// The embedded assets (public: they hold nothing of the agent).
pub(crate) const ASSET_PREFIX: &str = "/console/assets/";

/// The console routes other than `/` (which shares its path with the JSON-RPC binding).
pub(crate) fn routes(router: Router<AppState>) -> Router<AppState> {
    render::with_assets(router)
        .route("/console/skills/{id}", get(skill_page))
        .route("/console/tasks/{id}", get(task_page))
}

/// Whether the request prefers a page: `Accept` names `text/html` with a non-zero quality.
/// Browsers navigating send it; A2A clients never do.
fn wants_html(headers: &HeaderMap) -> bool {
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

/// Whether the request is for the console's index: a browser's `GET /` (any other request to
/// `/` is the JSON-RPC endpoint's).
pub(crate) fn is_index(method: &Method, path: &str, headers: &HeaderMap) -> bool {
    *method == Method::GET && path == "/" && wants_html(headers)
}

/// Whether `path` is one of the console's own (pages and assets), which clients that speak no
/// A2A version read.
pub(crate) fn is_console_path(path: &str) -> bool {
    path.starts_with(PREFIX)
}

/// Whether the request is for a console page the auth layer lets through without a token:
/// the index (the public card's content) and the assets.
pub(crate) fn is_public(method: &Method, path: &str, headers: &HeaderMap) -> bool {
    is_index(method, path, headers) || (*method == Method::GET && path.starts_with(ASSET_PREFIX))
}

fn summary(h: &HostedSkill) -> pages::SkillSummary {
    let doc = h.gate().document().document();
    pages::SkillSummary {
        id: h.card_skill().id.clone(),
        name: h.card_skill().name.clone(),
        description: h.card_skill().description.clone(),
        version: h.gate().skill_version().to_owned(),
        digest: h.gate().interface_digest_str().to_owned(),
        response_modes: doc
            .interaction
            .response_modes
            .iter()
            .map(|m| match to_value(m) {
                Ok(serde_json::Value::String(s)) => s,
                _ => format!("{m:?}"),
            })
            .collect(),
        tags: h.card_skill().tags.clone(),
    }
}

/// The page `GET /` answers: the index for a browser, `None` for any other client (which gets
/// the JSON-RPC endpoint's 405).
pub(crate) async fn root_page(
    st: State<AppState>,
    method: &Method,
    headers: &HeaderMap,
) -> Option<Response> {
    if !is_index(method, "/", headers) {
        return None;
    }
    Some(index(st).await)
}

/// `GET /` for a browser.
async fn index(State(st): State<AppState>) -> Response {
    let agent = st.service.agent();
    let auth = st.swap.auth_enabled();
    let card = agent.card(st.swap.base_url(), auth);
    // The public card's skills, in its order: extended-only skills are not shown here.
    let skills: Vec<pages::SkillSummary> = card
        .skills
        .iter()
        .filter_map(|s| agent.hosted(&s.id))
        .map(summary)
        .collect();
    page(StatusCode::OK, pages::index(&card, &skills, auth))
}

async fn skill_page(State(st): State<AppState>, Ctx(ctx): Ctx, Path(id): Path<String>) -> Response {
    let agent = st.service.agent();
    let caller = ctx.caller.as_ref();
    let hosted = agent.hosted(&id).filter(|_| agent.visible(&id, caller));
    let Some(h) = hosted else {
        return page(StatusCode::NOT_FOUND, pages::not_found("skill", &id));
    };
    let doc = h.gate().document();
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
    // Only skills this caller may know of, in the agent's order.
    let others = agent
        .skill_ids()
        .filter(|o| agent.visible(o, caller))
        .filter_map(|o| agent.hosted(o).map(|s| (o, s.gate().document().document())));
    let p = pages::SkillPage {
        agent_name: agent.name(),
        summary: summary(h),
        document: d,
        authority,
        constraints: to_value(&d.constraints).unwrap_or_default(),
        raw: serde_json::to_string_pretty(doc.value()).unwrap_or_default(),
        auth: st.swap.auth_enabled(),
        composition: render::composition(d, others),
    };
    page(StatusCode::OK, pages::skill(&p))
}

/// `GET /console/tasks/{id}`: the service's own `GetTask` with the caller's context, so the
/// page exists exactly when the caller could read the task over A2A.
async fn task_page(State(st): State<AppState>, Ctx(ctx): Ctx, Path(id): Path<String>) -> Response {
    let req = GetTaskRequest {
        id: id.clone(),
        ..Default::default()
    };
    let agent = st.service.agent();
    match st.service.get_task(&req, &ctx).await {
        Ok(task) => {
            let value = to_value(&task).unwrap_or_default();
            page(StatusCode::OK, pages::task(agent.name(), &value))
        }
        Err(e) if e.kind == skillgate_a2a::A2aError::TaskNotFound => {
            page(StatusCode::NOT_FOUND, pages::not_found("task", &id))
        }
        Err(e) => page(
            StatusCode::INTERNAL_SERVER_ERROR,
            pages::error("task", &e.message),
        ),
    }
}

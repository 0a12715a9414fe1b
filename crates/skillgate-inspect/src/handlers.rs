//! The page handlers: each reads the remote agent through the validated client and renders
//! what it saw, or a page saying what failed (never a bare status).

use crate::pages::{self, AgentView, SkillView, TokenSource};
use crate::state::{session_id, AppState, SESSION_COOKIE};
use axum::extract::{Form, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use skillgate_client::{ClientError, Step};
use skillgate_lint::remote::{lint_card_url, LintOptions};
use skillgate_server::console::render::{composition, encode, page};
use skillgate_transport::Secret;

/// How long the index's card lint (fetch plus one describe_skill per skill) may take.
const LINT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

/// Most skills resolved to compute a skill's "Composes with" (one describe_skill each).
const MAX_COMPOSE_SKILLS: usize = 32;

#[derive(Deserialize)]
pub(crate) struct AgentQuery {
    agent: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct ItemQuery {
    agent: String,
    id: String,
}

/// Where the credentials for `agent` would come from (for the page; never the token).
pub(crate) fn token_source(st: &AppState, headers: &HeaderMap, agent: Option<&str>) -> TokenSource {
    match agent {
        Some(a) if st.has_session_token(headers, a) => TokenSource::Session,
        Some(a) if st.configured_for(a) => TokenSource::CommandLine,
        _ => TokenSource::None,
    }
}

fn error_page(
    status: StatusCode,
    title: &str,
    agent: Option<&str>,
    message: &str,
    token: TokenSource,
) -> Response {
    page(status, pages::error(title, agent, message, token))
}

/// The status of a page about a failed client operation: the caller's mistake is 400, the
/// remote agent's (or the network's) 502.
fn status_of(e: &ClientError) -> StatusCode {
    match e {
        ClientError::Usage { .. } => StatusCode::BAD_REQUEST,
        _ => StatusCode::BAD_GATEWAY,
    }
}

/// `GET /`: the URL form, and with an agent (`?agent=` or the configured one) its card, lint
/// findings and skills.
pub(crate) async fn index(
    State(st): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<AgentQuery>,
) -> Response {
    let agent = q
        .agent
        .filter(|a| !a.trim().is_empty())
        .or_else(|| st.default_agent().map(str::to_owned));
    let Some(agent) = agent else {
        return page(StatusCode::OK, pages::start(TokenSource::None));
    };
    let agent = agent.trim();
    let token = token_source(&st, &headers, Some(agent));
    let fail = |status, title: &str, message: String| {
        error_page(status, title, Some(agent), &message, token)
    };
    let client = match st.client(&headers, agent) {
        Ok(c) => c,
        Err(e) => return fail(status_of(&e), "Cannot inspect", pages::client_error(&e)),
    };
    let http = client.http();
    let card_url = match skillgate_client::card_url(http, agent) {
        Ok(u) => u,
        Err(e) => {
            return fail(
                status_of(&e),
                "Cannot inspect this URL",
                e.message().to_owned(),
            )
        }
    };
    let shown_url = skillgate_transport::redact(&card_url);
    // The same lint as `skillgate card lint URL --deep` with the keys this inspector trusts:
    // the card's own bytes (positions, unknown members), its signatures and every skill's
    // describe_skill.
    let transport = st.transport(&headers, agent);
    let options = LintOptions {
        trusted_keys: transport.trusted_keys.clone(),
        deep: true,
        deadline: LINT_DEADLINE,
        ..LintOptions::default()
    };
    let lint = match lint_card_url(agent, transport, &options).await {
        Err(u) if u.code == "fetch_failed" && u.status.is_none() => {
            return fail(
                StatusCode::BAD_GATEWAY,
                "Agent unreachable",
                format!("Agent Card at {shown_url}: {}", u.message),
            )
        }
        other => other.map_err(|u| u.message),
    };
    let card = client.fetch_target(agent, &mut |_, _| {}).await.map(|t| {
        let used = format!("{} {}", t.interface.binding.as_str(), t.interface.url);
        (t.card, used)
    });
    let skills = card
        .as_ref()
        .map(|(c, _)| skillgate_client::skills(c))
        .unwrap_or_default();
    let view = AgentView {
        agent,
        card_url: shown_url,
        lint,
        card,
        skills,
    };
    page(StatusCode::OK, pages::agent(&view, token))
}

/// `GET /skill?agent=&id=`: steps 1 to 6 of the validated client, the document, what it
/// composes with among the agent's other governed skills, and the call form.
pub(crate) async fn skill(
    State(st): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<ItemQuery>,
) -> Response {
    let token = token_source(&st, &headers, Some(&q.agent));
    let client = match st.client(&headers, &q.agent) {
        Ok(c) => c,
        Err(e) => {
            let m = pages::client_error(&e);
            return error_page(status_of(&e), "Cannot inspect", Some(&q.agent), &m, token);
        }
    };
    let mut seen: Vec<(u8, &'static str, String)> = Vec::new();
    let mut obs = |s: Step, summary: &str| seen.push((s.number(), s.name(), summary.to_owned()));
    let resolved = match client.fetch_target(&q.agent, &mut obs).await {
        Ok(target) => client.resolve_target(target, &q.id, &mut obs).await,
        Err(e) => Err(e),
    };
    let composition = match &resolved {
        Ok(r) => {
            let mut docs = Vec::new();
            let governed = skillgate_client::skills(&r.target.card)
                .into_iter()
                .filter(|s| s.version.is_some() && s.id != r.selection.skill_id)
                .take(MAX_COMPOSE_SKILLS);
            for s in governed {
                // A sibling that does not resolve is simply not listed: only validated
                // documents may be compared.
                if let Ok(o) = client
                    .resolve_target(r.target.clone(), &s.id, &mut |_, _| {})
                    .await
                {
                    docs.push((s.id, o.document));
                }
            }
            let this = r.document.document();
            let mut all = vec![(r.selection.skill_id.as_str(), this)];
            all.extend(docs.iter().map(|(id, d)| (id.as_str(), d.document())));
            Some(composition(this, all))
        }
        Err(_) => None,
    };
    let view = SkillView {
        agent: &q.agent,
        skill_id: &q.id,
        steps: seen,
        resolved: resolved.as_ref().map_err(Clone::clone),
        composition,
    };
    let status = match &resolved {
        Ok(_) => StatusCode::OK,
        Err(e) => status_of(e),
    };
    page(status, pages::skill(&view, token))
}

/// `GET /task?agent=&id=`: the remote `GetTask`, as a task view.
pub(crate) async fn task(
    State(st): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<ItemQuery>,
) -> Response {
    let token = token_source(&st, &headers, Some(&q.agent));
    let read = async {
        let client = st.client(&headers, &q.agent)?;
        let (_, conn) = client.connect(&q.agent, &mut |_, _| {}).await?;
        conn.task(&q.id).await
    };
    match read.await {
        Ok(t) => {
            let v = serde_json::to_value(&t).unwrap_or_default();
            page(StatusCode::OK, pages::task(&q.agent, &v, token))
        }
        Err(e) => {
            let not_found =
                e.message().contains("TaskNotFound") || e.message().contains("not found");
            let status = if not_found {
                StatusCode::NOT_FOUND
            } else {
                status_of(&e)
            };
            let m = pages::client_error(&e);
            error_page(status, "Cannot read the task", Some(&q.agent), &m, token)
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct CancelForm {
    agent: String,
    id: String,
}

fn see_other(location: &str) -> Response {
    let mut r = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(location) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

fn agent_location(agent: Option<&str>) -> String {
    match agent.filter(|a| !a.is_empty()) {
        Some(a) => format!("/?agent={}", encode(a)),
        None => "/".to_owned(),
    }
}

/// `POST /task/cancel` (a plain form, so it works without script): the remote `CancelTask`,
/// then back to the task view.
pub(crate) async fn cancel(
    State(st): State<AppState>,
    headers: HeaderMap,
    Form(f): Form<CancelForm>,
) -> Response {
    let token = token_source(&st, &headers, Some(&f.agent));
    let done = async {
        let client = st.client(&headers, &f.agent)?;
        let (_, conn) = client.connect(&f.agent, &mut |_, _| {}).await?;
        conn.cancel(&f.id).await
    };
    match done.await {
        Ok(_) => see_other(&format!(
            "{}{}",
            pages::task_href_prefix(&f.agent),
            encode(&f.id)
        )),
        Err(e) => {
            let m = pages::client_error(&e);
            error_page(status_of(&e), "Cancel refused", Some(&f.agent), &m, token)
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct TokenForm {
    #[serde(default)]
    token: String,
    agent: Option<String>,
}

/// `POST /session/token`: keeps the token in memory for this browser session and the agent's
/// origin only (a fresh random cookie names the session) and goes back to the agent. The
/// token is never echoed.
pub(crate) async fn set_token(
    State(st): State<AppState>,
    headers: HeaderMap,
    Form(f): Form<TokenForm>,
) -> Response {
    let agent = f.agent.as_deref().unwrap_or("").trim();
    let mut r = see_other(&agent_location(Some(agent)));
    let token = f.token.trim();
    if token.is_empty() {
        return r;
    }
    let id = session_id(&headers).unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string());
    if !st.set_session_token(&id, agent, Secret::new(token)) {
        let message = "Enter the agent's URL first: a token is kept for one agent only.";
        return error_page(
            StatusCode::BAD_REQUEST,
            "Token not kept",
            None,
            message,
            TokenSource::None,
        );
    }
    let cookie = format!("{SESSION_COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/");
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}

#[derive(Deserialize)]
pub(crate) struct ForgetForm {
    agent: Option<String>,
}

/// `POST /session/forget`: drops this session's token.
pub(crate) async fn forget_token(
    State(st): State<AppState>,
    headers: HeaderMap,
    Form(f): Form<ForgetForm>,
) -> Response {
    st.forget_session(&headers);
    see_other(&agent_location(f.agent.as_deref()))
}

/// Any other path.
pub(crate) async fn not_found() -> Response {
    error_page(
        StatusCode::NOT_FOUND,
        "Not found",
        None,
        "The inspector has no such page.",
        TokenSource::None,
    )
}

//! skillgate-gateway: skillgate in front of an existing A2A 1.0 or 0.3 agent that knows nothing of
//! the schema-interface draft (an a2a-sdk agent, say). A `gateway.toml` ([`config`]) maps each
//! governed skill to an upstream skill and a Skill Interface Document; the gateway serves its
//! own Agent Card (the upstream's identity, the governed skills, the extension advertisement
//! and describe_skill) and runs every call through the runtime's gate: mismatches and invalid
//! input are refused before anything reaches the upstream agent, and the upstream output and
//! records are validated before completion is reported (`output_invalid` otherwise).
//!
//! Task ids: each call is a task of the gateway, whose history names the upstream task
//! (`upstream task ID accepted`, then the upstream status messages, relayed as they arrive);
//! GetTask, CancelTask (which cancels the upstream task too) and SubscribeToTask work on the
//! gateway's id. Upstream skills not in the config are not exposed.
//!
//! The upstream card is re-read every `refresh` ([`Refresh`]): a governed skill that
//! changed upstream (or vanished) is reported on stderr and refused (`execution_failed`)
//! until the gateway is reloaded ([`GatewaySource`], SIGHUP), never served silently. When
//! the upstream implements the draft, a new advertised version or digest is a change too,
//! and the report carries skillgate-evolve's verdict on the new document against the one
//! read at build time (docs/design.md, D236).
//!
//! The upstream may be an MCP server instead ([`mcp`]: an `[mcp]` table in the config, no
//! `--upstream`): its tools are served as governed skills behind the same gate, its tool list
//! re-read every `refresh` for drift (docs/design.md, D273–D276).

pub mod config;
pub mod mcp;
pub mod upstream;

use config::{GatewayConfig, GovernedSkill};
use skillgate_a2a::{AgentCard, AgentSkill};
use skillgate_agent::config::ConfigError;
use skillgate_agent::{limited, LoadError};
use skillgate_client::{A2aConn, Client, ClientConfig, ClientError, Target};
use skillgate_core::document::ValidatedDocument;
use skillgate_runtime::{Agent, AgentSource, Skill};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use upstream::UpstreamSkill;

/// Why a gateway could not be built.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The config or a document is invalid (file, line, finding).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A document would not be served as written, or the runtime refused the agent.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The upstream agent's card could not be read.
    #[error("upstream agent {url}: {source}")]
    Upstream {
        /// The upstream URL (credentials removed).
        url: String,
        /// What went wrong.
        source: ClientError,
    },
    /// Neither `--upstream` (an A2A agent) nor an `[mcp]` table names an upstream.
    #[error("{}: no upstream: give --upstream URL (an A2A agent) or an [mcp] table (an MCP server) in the config", file.display())]
    NoUpstream {
        /// The config file.
        file: PathBuf,
    },
    /// Both `--upstream` and an `[mcp]` table: a gateway fronts one upstream.
    #[error("{}: the config has an [mcp] table and --upstream was given too: a gateway fronts one upstream", file.display())]
    TwoUpstreams {
        /// The config file.
        file: PathBuf,
    },
    /// The MCP server could not be started, listed or reached.
    #[error(transparent)]
    Mcp(#[from] skillgate_mcp::UpstreamError),
    /// An MCP tool's schemas are not the ones its document pins.
    #[error("{}:{line}: MCP tool `{tool}` does not match its Skill Interface Document: {drift} (write the document again with `skillgate interface from-mcp`, or restore the tool)", file.display())]
    ToolMismatch {
        /// The config file.
        file: PathBuf,
        /// The skill table's line.
        line: usize,
        /// The tool's name.
        tool: String,
        /// Which schema differs, and both digests (boxed: the error stays small).
        drift: Box<skillgate_mcp::Drift>,
    },
    /// A governed tool is not in the MCP server's tool list.
    #[error("{}:{line}: MCP tool `{tool}` is not listed by the MCP server ({server}; it lists: {available})", file.display())]
    MissingTool {
        /// The config file.
        file: PathBuf,
        /// The skill table's line.
        line: usize,
        /// The tool's name.
        tool: String,
        /// The server, as shown.
        server: String,
        /// The tool names it lists.
        available: String,
    },
    /// A governed skill is not in the upstream card.
    #[error("{}:{line}: upstream skill `{skill}` is not in the Agent Card of {url} (it lists: {available})", file.display())]
    MissingSkill {
        /// The config file.
        file: PathBuf,
        /// The skill table's line.
        line: usize,
        /// The upstream skill id.
        skill: String,
        /// The upstream URL (credentials removed).
        url: String,
        /// The skill ids the upstream card lists.
        available: String,
    },
}

/// The upstream agent and how to reach it.
#[derive(Debug, Clone)]
pub struct Upstream {
    /// Its base URL or card URL.
    pub url: String,
    /// Token, timeouts, size limits and TLS roots for every upstream request.
    pub client: ClientConfig,
}

impl Upstream {
    fn shown(&self) -> String {
        skillgate_transport::redact_str(&self.url)
    }

    async fn card(&self, client: &Client) -> Result<Target, GatewayError> {
        client
            .fetch_target(&self.url, &mut |_, _| {})
            .await
            .map_err(|source| GatewayError::Upstream {
                url: self.shown(),
                source,
            })
    }
}

/// A built gateway: the agent to serve and what the card refresh watches.
pub struct Gateway {
    /// The runtime's agent.
    pub agent: Agent,
    /// The governed upstream skills as they were when the agent was built.
    pub watch: Watch,
}

/// The upstream skills a running gateway serves, with what they were at build time.
pub struct Watch {
    refresh: Duration,
    watching: Watching,
}

/// What a refresh re-reads: an A2A agent's card, or an MCP server's tool list.
enum Watching {
    A2a(Box<A2aWatch>),
    Mcp(mcp::McpWatch),
}

/// The A2A upstream skills, with their card entries at build time.
struct A2aWatch {
    client: Client,
    upstream: Upstream,
    skills: Vec<Watched>,
}

struct Watched {
    upstream_skill: String,
    entry: String,
    /// What the upstream card's schema-interface extension advertised for the skill
    /// (version, digest); `None` for an upstream that knows nothing of the draft.
    advertised: Option<(Option<String>, Option<String>)>,
    /// The upstream's own Skill Interface Document at build time, when it publishes one:
    /// the OLD side of the drift verdict.
    document: Option<ValidatedDocument>,
    drifted: Arc<AtomicBool>,
}

/// What the extension of `card` advertises for `skill`, if it is schema-governed there.
fn advertised_of(card: &AgentCard, skill: &str) -> Option<(Option<String>, Option<String>)> {
    skillgate_client::skills(card)
        .into_iter()
        .find(|s| s.id == skill)
        .filter(|s| s.version.is_some() || s.interface_digest.is_some())
        .map(|s| (s.version, s.interface_digest))
}

/// The card entry of a skill, as compared between refreshes.
fn entry_of(s: &AgentSkill) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Builds the gateway of `config` in front of its upstream: the MCP server of its `[mcp]`
/// table, or else the A2A agent `upstream` (exactly one of the two).
pub async fn build_any(
    config: GatewayConfig,
    upstream: Option<Upstream>,
) -> Result<Gateway, GatewayError> {
    match (config.mcp.is_some(), upstream) {
        (true, None) => mcp::build(config).await,
        (false, Some(u)) => build(config, u).await,
        (true, Some(_)) => Err(GatewayError::TwoUpstreams { file: config.file }),
        (false, None) => Err(GatewayError::NoUpstream { file: config.file }),
    }
}

/// Reads `config`, fetches the upstream A2A agent's card and builds the gateway's agent.
pub async fn build(config: GatewayConfig, upstream: Upstream) -> Result<Gateway, GatewayError> {
    let client = Client::new(upstream.client.clone()).map_err(|source| GatewayError::Upstream {
        url: upstream.shown(),
        source,
    })?;
    let target = upstream.card(&client).await?;
    let card = &target.card;
    let stream = card.capabilities.streaming == Some(true);
    let mut builder = Agent::builder(&card.name, &card.description, &card.version);
    if let Some(p) = &card.provider {
        builder = builder.provider(&p.organization, &p.url);
    }
    let mut watched = Vec::new();
    for g in &config.skills {
        let up = upstream_skill(&config, g, card, &upstream)?;
        let drifted = Arc::new(AtomicBool::new(false));
        let advertised = advertised_of(card, &g.upstream_skill);
        // Only an upstream that implements the draft has a document to compare a later one
        // with. Reading it is best effort: without it the gateway serves as before and a
        // drift report says that no verdict could be given.
        let document = match advertised {
            Some(_) => client
                .resolve_target(target.clone(), &g.upstream_skill, &mut |_, _| {})
                .await
                .ok()
                .map(|r| r.document),
            None => None,
        };
        watched.push(Watched {
            upstream_skill: g.upstream_skill.clone(),
            entry: entry_of(up),
            advertised,
            document,
            drifted: Arc::clone(&drifted),
        });
        let conn = A2aConn::new(client.http().clone(), target.interface.clone());
        builder = builder.skill(skill(&config, g, up, conn, stream, &upstream, drifted)?);
    }
    let agent = builder.build().map_err(|source| LoadError::Startup {
        file: config.file.clone(),
        source,
    })?;
    Ok(Gateway {
        agent,
        watch: Watch {
            refresh: config.refresh,
            watching: Watching::A2a(Box::new(A2aWatch {
                client,
                upstream,
                skills: watched,
            })),
        },
    })
}

fn upstream_skill<'c>(
    config: &GatewayConfig,
    g: &GovernedSkill,
    card: &'c AgentCard,
    upstream: &Upstream,
) -> Result<&'c AgentSkill, GatewayError> {
    card.skills
        .iter()
        .find(|s| s.id == g.upstream_skill)
        .ok_or_else(|| GatewayError::MissingSkill {
            file: config.file.clone(),
            line: g.line,
            skill: g.upstream_skill.clone(),
            url: upstream.shown(),
            available: card
                .skills
                .iter()
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The runtime skill of one governed skill: the document, the upstream skill's card fields,
/// and the upstream handler under the skill's concurrency limit.
fn skill(
    config: &GatewayConfig,
    g: &GovernedSkill,
    up: &AgentSkill,
    conn: A2aConn,
    stream: bool,
    upstream: &Upstream,
    drifted: Arc<AtomicBool>,
) -> Result<Skill, GatewayError> {
    let id = g.document.skill_id().to_owned();
    let b = skillgate_agent::declare(&config.file, &g.interface_path, &g.document)?
        .name(&up.name)
        .description(&up.description)
        .tags(up.tags.clone())
        .examples(up.examples.clone());
    let h = UpstreamSkill::new(g.clone(), conn, stream, upstream.shown(), drifted);
    let timeout = g.timeout;
    Ok(b.handler(limited(&id, g.max_concurrency, move |args, ctx| {
        let h = h.clone();
        async move {
            match tokio::time::timeout(timeout, h.call(args, ctx)).await {
                Ok(r) => r,
                Err(_) => Err(skillgate_runtime::SkillError::new(
                    skillgate_core::ErrorCode::ResourceLimitExceeded,
                    format!("upstream did not finish within {} ms", timeout.as_millis()),
                )),
            }
        }
    }))
    .build())
}

impl Watch {
    /// How often the upstream card is re-read.
    pub fn refresh(&self) -> Duration {
        self.refresh
    }

    /// Re-reads the upstream card (or the MCP server's tool list) once; every governed skill
    /// that changed or vanished is marked and refused from now on. Returns one line per new
    /// finding, with the interface verdict when there is one.
    pub async fn check(&self) -> Vec<String> {
        match &self.watching {
            Watching::A2a(w) => w.check().await,
            Watching::Mcp(w) => w.check().await,
        }
    }
}

impl A2aWatch {
    /// [`Watch::check`] for an A2A upstream: a card entry or advertised interface (version,
    /// digest) that changed is a change.
    async fn check(&self) -> Vec<String> {
        let target = match self.upstream.card(&self.client).await {
            Ok(t) => t,
            Err(e) => return vec![format!("cannot re-read the upstream card: {e}")],
        };
        let mut found = Vec::new();
        for w in &self.skills {
            // Reported once: it stays refused until a reload replaces this watch.
            if w.drifted.load(Ordering::Relaxed) {
                continue;
            }
            let now = target.card.skills.iter().find(|s| s.id == w.upstream_skill);
            let changed = match now {
                None => Some("is no longer in the upstream card"),
                Some(s)
                    if entry_of(s) != w.entry
                        || advertised_of(&target.card, &w.upstream_skill) != w.advertised =>
                {
                    Some("changed in the upstream card")
                }
                Some(_) => None,
            };
            let Some(how) = changed else {
                continue;
            };
            let verdict = match now {
                Some(_) => self.verdict(w, &target).await,
                None => String::new(),
            };
            if !w.drifted.swap(true, Ordering::Relaxed) {
                found.push(format!(
                    "upstream skill `{}` {how}{verdict}; calls to it are refused until the gateway is reloaded (SIGHUP)",
                    w.upstream_skill
                ));
            }
        }
        found
    }

    /// What the change did to the upstream skill's interface, as a clause of the drift
    /// report: the verdict of `skillgate interface diff` between the document read at build
    /// time and the one the upstream advertises now (skillgate-evolve decides; nothing is
    /// compared here), or why there is none.
    async fn verdict(&self, w: &Watched, target: &Target) -> String {
        let Some(old) = &w.document else {
            return match w.advertised {
                None => " (the upstream publishes no Skill Interface Document for it: no interface verdict)".into(),
                Some(_) => " (its Skill Interface Document could not be read when the gateway was built: no interface verdict)".into(),
            };
        };
        match self
            .client
            .resolve_target(target.clone(), &w.upstream_skill, &mut |_, _| {})
            .await
        {
            Ok(new) => {
                let report = skillgate_evolve::diff(old, &new.document);
                format!(
                    "; interface {} -> {}: {}",
                    report.old_version,
                    report.new_version,
                    report.verdict()
                )
            }
            Err(e) => format!(
                " (its new Skill Interface Document could not be read: {e}; no interface verdict)"
            ),
        }
    }
}

/// A gateway as the source the runtime's [`Reloader`](skillgate_runtime::Reloader) rebuilds
/// from: the config, every document and the upstream card, read again at each reload. A
/// rebuilt gateway's [`Watch`] replaces the running one's in its [`Refresh`].
pub struct GatewaySource {
    config: PathBuf,
    upstream: Option<Upstream>,
    watch: tokio::sync::watch::Sender<Arc<Watch>>,
}

impl GatewaySource {
    /// The source of the gateway built from `config` and `upstream` (`None`: the config's
    /// `[mcp]` server), whose watch is `watch`, and the refresh of its upstream, which follows
    /// every reload.
    pub fn new(config: PathBuf, upstream: Option<Upstream>, watch: Watch) -> (Self, Refresh) {
        let (tx, rx) = tokio::sync::watch::channel(Arc::new(watch));
        (
            Self {
                config,
                upstream,
                watch: tx,
            },
            Refresh { watch: rx },
        )
    }
}

impl AgentSource for GatewaySource {
    type Error = GatewayError;

    fn describe(&self) -> String {
        self.config.display().to_string()
    }

    async fn rebuild(&mut self) -> Result<Agent, GatewayError> {
        let g = reload(&self.config, self.upstream.as_ref()).await?;
        // The reloader swaps the agent in right after: the refresh watches its skills.
        self.watch.send_replace(Arc::new(g.watch));
        Ok(g.agent)
    }
}

/// Keeps a running gateway honest: re-reads the upstream card every `refresh` of the config
/// it started with and reports each governed skill that drifted, on the skills of the gateway
/// now served (the last reload's).
pub struct Refresh {
    watch: tokio::sync::watch::Receiver<Arc<Watch>>,
}

impl Refresh {
    /// Runs until its [`GatewaySource`] is dropped; `report` gets one line per finding.
    pub async fn run(mut self, report: impl Fn(&str) + Send) {
        let period = self.watch.borrow().refresh;
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        loop {
            tokio::select! {
                _ = tick.tick() => {
                    let watch = Arc::clone(&self.watch.borrow_and_update());
                    for line in watch.check().await {
                        report(&line);
                    }
                }
                changed = self.watch.changed() => {
                    if changed.is_err() {
                        return;
                    }
                }
            }
        }
    }
}

/// Reads the config (off the async workers: files and schema compilation) and builds it in
/// front of `upstream`, or of its `[mcp]` server when `upstream` is `None`.
pub async fn reload(
    path: &std::path::Path,
    upstream: Option<&Upstream>,
) -> Result<Gateway, GatewayError> {
    let p = path.to_owned();
    let config = skillgate_agent::off_workers(path, move || config::load(&p)).await?;
    build_any(config, upstream.cloned()).await
}

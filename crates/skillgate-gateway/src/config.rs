//! `gateway.toml`: which upstream skills the gateway governs, with which Skill Interface
//! Document, and how arguments and results travel between the two.
//!
//! ```toml
//! [gateway]
//! refresh = "60s"        # how often the upstream Agent Card is re-read (default 60s)
//!
//! [[skills]]
//! interface = "interfaces/latency.json" # its skill_id is the id clients call
//! upstream_skill = "latency"            # default: the document's skill_id
//! arguments = "data"                    # "data": one Data Part (default); "text": JSON text
//! output = { artifact = "result", part = 0 }
//! records = { sample = { artifact = "samples", part = 0 } }
//! max_concurrency = 8
//! timeout_ms = 30000
//! ```
//!
//! An MCP server instead of an A2A agent (docs/design.md D273): an `[mcp]` table names it
//! (a command started in the config's directory, speaking MCP on stdin/stdout, or a Streamable
//! HTTP URL), and each `[[skills]]` table names its `tool`. The tool's arguments are the
//! validated arguments object; its output is `structuredContent` (or, for a tool without an
//! `outputSchema`, `{"content": [...]}`), validated against the document like any output.
//!
//! ```toml
//! [mcp]
//! command = ["python3", "tools_server.py"]   # or: url = "http://127.0.0.1:8000/mcp"
//! start_timeout_ms = 20000                   # default 20000
//! # with url only: a bearer token from an environment variable (default: the one the A2A
//! # upstream's token comes from, SKILLGATE_UPSTREAM_TOKEN, when set) and extra headers,
//! # sent to that URL only
//! # token_env = "TOOLS_TOKEN"
//! # headers = ["X-Tenant: acme"]
//!
//! [[skills]]
//! interface = "interfaces/lookup.json"       # e.g. written by `skillgate interface from-mcp`
//! tool = "lookup"                            # default: the document's skill_id
//! ```
//!
//! Where results are read from the upstream task, by default: a record of kind `K` is part 0
//! of every artifact named `K`; the output is part 0 of the first artifact no record kind
//! reads (of the reply's parts when the upstream answers with a Message). A Data Part is the
//! value itself; a Text Part must hold JSON text.

use serde::Deserialize;
use skillgate_agent::config::{Checker, ConfigError};
use skillgate_core::document::ValidatedDocument;
use skillgate_mcp::{Credentials, McpEndpoint};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// How often the upstream card is re-read when the config does not say.
pub const DEFAULT_REFRESH: Duration = Duration::from_secs(60);
/// The shortest refresh period accepted: re-reading faster only loads the upstream agent.
pub const MIN_REFRESH: Duration = Duration::from_secs(1);

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawGateway {
    refresh: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMcp {
    command: Option<Vec<String>>,
    url: Option<String>,
    start_timeout_ms: Option<Spanned<u64>>,
    token_env: Option<Spanned<String>>,
    headers: Option<Vec<Spanned<String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSource {
    artifact: Option<String>,
    #[serde(default)]
    part: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSkill {
    interface: Spanned<String>,
    upstream_skill: Option<String>,
    tool: Option<String>,
    arguments: Option<Spanned<String>>,
    output: Option<RawSource>,
    #[serde(default)]
    records: BTreeMap<String, Spanned<RawSource>>,
    max_concurrency: Option<Spanned<usize>>,
    timeout_ms: Option<Spanned<u64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    gateway: RawGateway,
    mcp: Option<Spanned<RawMcp>>,
    #[serde(default)]
    skills: Vec<Spanned<RawSkill>>,
}

/// How long an MCP server may take to start when `[mcp]` does not say.
pub const DEFAULT_MCP_START: Duration = Duration::from_secs(20);

/// The `[mcp]` table: the gateway fronts this MCP server instead of an A2A agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpUpstreamConfig {
    /// The server: a command (its working directory the config's) or a URL.
    pub endpoint: McpEndpoint,
    /// From spawn (or first request) to the end of `initialize`.
    pub start_timeout: Duration,
    /// The bearer token and extra headers sent to a `url` server (and only to it).
    pub credentials: Credentials,
}

/// The environment variable an `[mcp]` url's bearer token is read from when `token_env`
/// names none: the one the A2A upstream's token is read from (`--upstream-token`'s default).
pub const DEFAULT_MCP_TOKEN_ENV: &str = "SKILLGATE_UPSTREAM_TOKEN";

/// How the validated arguments travel upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentsAs {
    /// One Data Part whose data is the arguments object.
    Data,
    /// One Text Part holding the arguments as JSON text (for agents that read text only).
    Text,
}

/// Where a value is read from in the upstream answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The artifact's name; `None`: the default of the module docs.
    pub artifact: Option<String>,
    /// The part's index within the artifact (or the reply message).
    pub part: usize,
}

/// One checked `[[skills]]` table.
#[derive(Debug, Clone)]
pub struct GovernedSkill {
    /// The Skill Interface Document clients are governed by.
    pub document: ValidatedDocument,
    /// The document's path (resolved).
    pub interface_path: PathBuf,
    /// 1-based line of the table, for findings against the upstream card.
    pub line: usize,
    /// The upstream skill's id (with an `[mcp]` upstream: the tool's name).
    pub upstream_skill: String,
    /// How arguments travel upstream.
    pub arguments: ArgumentsAs,
    /// Where the output is read from.
    pub output: Source,
    /// Where each record kind is read from (every kind the document declares).
    pub records: BTreeMap<String, Source>,
    /// Invocations that may run at once; one more is refused (`resource_limit_exceeded`).
    pub max_concurrency: usize,
    /// Time limit of one invocation: the smaller of the document's `max_duration_ms` and
    /// `timeout_ms`, else the default.
    pub timeout: Duration,
}

/// A checked `gateway.toml`.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    /// The config file.
    pub file: PathBuf,
    /// How often the upstream card (or an MCP server's tool list) is re-read.
    pub refresh: Duration,
    /// The MCP server fronted, when the config has an `[mcp]` table.
    pub mcp: Option<McpUpstreamConfig>,
    /// The governed skills, in file order.
    pub skills: Vec<GovernedSkill>,
}

/// Reads and checks `path`: the TOML and every document.
pub fn load(path: &Path) -> Result<GatewayConfig, ConfigError> {
    let bytes = skillgate_agent::config::read_bounded(path)?;
    let text = String::from_utf8(bytes).map_err(|_| ConfigError::Invalid {
        file: path.to_owned(),
        line: None,
        message: "the config is not UTF-8".into(),
    })?;
    parse(path, &text)
}

/// Checks the text of a config read from `path` (paths resolve against its directory).
pub fn parse(path: &Path, text: &str) -> Result<GatewayConfig, ConfigError> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Invalid {
        file: path.to_owned(),
        line: e
            .span()
            .map(|s| skillgate_agent::config::line_of(text, s.start)),
        message: e.message().trim().to_owned(),
    })?;
    let cx = Checker::new(path, text);
    let refresh = match raw.gateway.refresh {
        None => DEFAULT_REFRESH,
        Some(r) => {
            let d = humantime::parse_duration(r.get_ref()).map_err(|e| {
                cx.invalid(
                    &r.span(),
                    format!("refresh {:?}: {e} (e.g. \"60s\")", r.get_ref()),
                )
            })?;
            if d < MIN_REFRESH {
                return Err(cx.invalid(&r.span(), "refresh must be at least 1s"));
            }
            d
        }
    };
    let mcp = match raw.mcp {
        None => None,
        Some(m) => Some(mcp(&cx, path, m)?),
    };
    let mut skills: Vec<GovernedSkill> = Vec::new();
    for s in raw.skills {
        let span = s.span();
        let s = s.into_inner();
        kind_keys(&cx, &s, mcp.is_some(), &span)?;
        let skill = skill(&cx, text, s, span.clone())?;
        let id = skill.document.skill_id();
        if skills.iter().any(|k| k.document.skill_id() == id) {
            return Err(cx.invalid(&span, format!("skill `{id}` is declared twice")));
        }
        skills.push(skill);
    }
    if skills.is_empty() {
        return Err(cx.invalid(
            &(0..0),
            "no [[skills]] table: a gateway governs at least one upstream skill",
        ));
    }
    Ok(GatewayConfig {
        file: path.to_owned(),
        refresh,
        mcp,
        skills,
    })
}

/// The `[mcp]` table: exactly one of `command` (a non-empty argv) and `url`.
fn mcp(
    cx: &Checker<'_>,
    path: &Path,
    m: Spanned<RawMcp>,
) -> Result<McpUpstreamConfig, ConfigError> {
    let span = m.span();
    let m = m.into_inner();
    let endpoint = match (m.command, m.url) {
        (Some(argv), None) => {
            let mut words = argv.into_iter();
            let program = words
                .next()
                .filter(|p| !p.is_empty())
                .ok_or_else(|| cx.invalid(&span, "[mcp] command is empty: give the program and its arguments"))?;
            McpEndpoint::Command {
                program,
                args: words.collect(),
                dir: path.parent().map(Path::to_owned),
            }
        }
        (None, Some(url)) if url.starts_with("http://") || url.starts_with("https://") => {
            McpEndpoint::Url(url)
        }
        (None, Some(_)) => {
            return Err(cx.invalid(&span, "[mcp] url must be an http:// or https:// URL"))
        }
        _ => {
            return Err(cx.invalid(
                &span,
                "[mcp] needs exactly one of command = [\"PROGRAM\", \"ARG\", ...] and url = \"http://HOST/mcp\"",
            ))
        }
    };
    let start_timeout = match m.start_timeout_ms {
        None => DEFAULT_MCP_START,
        Some(t) if (1..=600_000).contains(t.get_ref()) => Duration::from_millis(*t.get_ref()),
        Some(t) => return Err(cx.invalid(&t.span(), "start_timeout_ms must be from 1 to 600000")),
    };
    let credentials = match &endpoint {
        McpEndpoint::Url(_) => mcp_credentials(cx, m.token_env, m.headers)?,
        McpEndpoint::Command { .. } => {
            if let Some(t) = &m.token_env {
                return Err(cx.invalid(&t.span(), "[mcp] token_env is for a url server (a command's channel is its stdin and stdout)"));
            }
            if let Some(h) = m.headers.as_ref().and_then(|h| h.first()) {
                return Err(cx.invalid(&h.span(), "[mcp] headers are for a url server (a command's channel is its stdin and stdout)"));
            }
            Credentials::default()
        }
    };
    Ok(McpUpstreamConfig {
        endpoint,
        start_timeout,
        credentials,
    })
}

/// An `[mcp]` url's credentials: the bearer token from the environment variable `token_env`
/// names (it must then be set and not empty), else from [`DEFAULT_MCP_TOKEN_ENV`] when that
/// is set, and each `headers` entry (`"NAME: VALUE"`, read by the transport's parser for
/// `--header`). Errors name the variable or the header, never a value.
fn mcp_credentials(
    cx: &Checker<'_>,
    token_env: Option<Spanned<String>>,
    headers: Option<Vec<Spanned<String>>>,
) -> Result<Credentials, ConfigError> {
    let token = match token_env {
        Some(name) => {
            let span = name.span();
            let name = name.into_inner();
            let value = std::env::var(&name).ok().filter(|v| !v.is_empty());
            Some(value.ok_or_else(|| {
                cx.invalid(
                    &span,
                    format!(
                        "[mcp] token_env: the environment variable {name} is not set (or empty)"
                    ),
                )
            })?)
        }
        None => std::env::var(DEFAULT_MCP_TOKEN_ENV)
            .ok()
            .filter(|v| !v.is_empty()),
    };
    let mut parsed = Vec::new();
    for h in headers.unwrap_or_default() {
        let header = skillgate_transport::ExtraHeader::parse(h.get_ref())
            .map_err(|e| cx.invalid(&h.span(), format!("[mcp] headers: {e}")))?;
        parsed.push(header);
    }
    Ok(Credentials {
        token: token.map(skillgate_transport::Secret::from),
        headers: parsed,
    })
}

/// The keys of a `[[skills]]` table that belong to one kind of upstream only: `tool` to an
/// MCP server, the rest to an A2A agent (an MCP tool takes an arguments object and answers
/// one result, so there is nothing to map).
fn kind_keys(
    cx: &Checker<'_>,
    s: &RawSkill,
    mcp: bool,
    span: &Range<usize>,
) -> Result<(), ConfigError> {
    if mcp {
        let a2a = [
            ("upstream_skill", s.upstream_skill.is_some()),
            ("arguments", s.arguments.is_some()),
            ("output", s.output.is_some()),
            ("records", !s.records.is_empty()),
        ];
        if let Some((key, _)) = a2a.iter().find(|(_, set)| *set) {
            return Err(cx.invalid(
                span,
                format!("`{key}` is for an A2A upstream; with [mcp], a skill names its `tool`"),
            ));
        }
    } else if s.tool.is_some() {
        return Err(cx.invalid(
            span,
            "`tool` names an MCP tool: it needs an [mcp] table (an A2A upstream's skill is `upstream_skill`)",
        ));
    }
    Ok(())
}

fn skill(
    cx: &Checker<'_>,
    text: &str,
    s: RawSkill,
    span: Range<usize>,
) -> Result<GovernedSkill, ConfigError> {
    let (document, interface_path) = cx.document(&s.interface)?;
    let id = document.skill_id().to_owned();
    let arguments = match s.arguments {
        None => ArgumentsAs::Data,
        Some(a) => match a.get_ref().as_str() {
            "data" => ArgumentsAs::Data,
            "text" => ArgumentsAs::Text,
            other => {
                return Err(cx.invalid(
                    &a.span(),
                    format!("arguments = {other:?}: expected \"data\" (one Data Part) or \"text\" (JSON text)"),
                ))
            }
        },
    };
    let kinds: Vec<String> = document
        .document()
        .supporting_record_schemas
        .keys()
        .cloned()
        .collect();
    let mut records = BTreeMap::new();
    for (kind, src) in s.records {
        if !kinds.contains(&kind) {
            return Err(cx.invalid(
                &src.span(),
                format!(
                    "records.{kind}: the document of `{id}` declares no record kind `{kind}` (it declares: {})",
                    if kinds.is_empty() { "none".to_owned() } else { kinds.join(", ") }
                ),
            ));
        }
        let src = src.into_inner();
        records.insert(
            kind,
            Source {
                artifact: src.artifact,
                part: src.part,
            },
        );
    }
    for kind in kinds {
        records.entry(kind).or_insert(Source {
            artifact: None,
            part: 0,
        });
    }
    let (max_concurrency, timeout) = cx.limits(&document, s.max_concurrency, s.timeout_ms)?;
    Ok(GovernedSkill {
        upstream_skill: s.upstream_skill.or(s.tool).unwrap_or_else(|| id.clone()),
        document,
        interface_path,
        line: skillgate_agent::config::line_of(text, span.start),
        arguments,
        output: s.output.map_or(
            Source {
                artifact: None,
                part: 0,
            },
            |o| Source {
                artifact: o.artifact,
                part: o.part,
            },
        ),
        records,
        max_concurrency,
        timeout,
    })
}

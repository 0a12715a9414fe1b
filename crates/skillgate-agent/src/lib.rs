//! skillgate-agent: declarative agents. An `agent.toml` names each skill's Skill Interface
//! Document and one handler, a program (`exec`) or a URL (`http`), and the runtime
//! (`skillgate-runtime`) serves it exactly as it serves a Rust agent: the same gate order,
//! output and record validation, streaming, cancel, auth, limits, card and describe_skill.
//!
//! ```toml
//! [agent]
//! name = "latency agent"
//! description = "Measures latency"
//! version = "0.1.0"
//!
//! [[skills]]
//! interface = "interfaces/latency.json"   # relative to this file's directory
//! exec = ["python3", "skills/latency.py"] # no shell; arguments JSON on stdin
//! tags = ["network"]
//! env = ["PATH"]                          # all other variables are cleared
//! max_concurrency = 4                     # one more invocation is refused
//! # extended = true                       # listed in the extended card only (needs tokens)
//! ```
//!
//! The handler protocol is in [`protocol`], the process rules in [`exec`], the HTTP rules in
//! [`http`]; [`init`] writes a starter directory. [`load`] reads and checks a config and builds
//! the agent, refusing an invalid config or document with its file, line and finding;
//! [`AgentFile`] is the same config as the source a reload rebuilds from.
//!
//! # From a directory to a served agent
//!
//! ```
//! use skillgate_agent::{config::ConfigError, init::init, load, LoadError};
//!
//! let dir = tempfile::tempdir()?;
//! let written = init(dir.path())?; // agent.toml, one interface, one exec handler
//! assert!(written.iter().any(|p| p.ends_with("agent.toml")));
//!
//! let declared = load(&dir.path().join("agent.toml"))?;
//! assert_eq!(declared.agent.skill_ids().collect::<Vec<_>>(), ["echo_latency"]);
//! // `declared.agent` is what `skillgate_server::serve` (or the gRPC adapter) serves.
//!
//! // A broken config is refused with the file and the line to fix.
//! let broken = dir.path().join("broken.toml");
//! std::fs::write(&broken, "[agent]\nname = \"x\"\ndescription = 7\n")?;
//! match load(&broken) {
//!     Err(LoadError::Config(ConfigError::Invalid { line, .. })) => assert_eq!(line, Some(3)),
//!     other => panic!("expected a refusal with a line, got {:?}", other.map(|_| ())),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod config;
mod contain;
pub mod exec;
pub mod http;
pub mod init;
pub mod protocol;
mod reload;

use config::{AgentConfig, HandlerConfig, SkillConfig};
use serde_json::Value;
use skillgate_core::document::{InterfaceBuilder, ValidatedDocument};
use skillgate_core::ErrorCode;
use skillgate_runtime::{
    Agent, Skill, SkillBuilder, SkillContext, SkillError, SkillOutput, StartupError,
};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

pub use config::ConfigError;
pub use reload::{off_workers, AgentFile};

/// Why a declarative agent could not be built.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The config or a document is invalid (file, line, finding).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The runtime refused the assembled agent.
    #[error("{}: {source}", file.display())]
    Startup {
        /// The config file.
        file: PathBuf,
        /// The runtime's reason.
        source: StartupError,
    },
    /// A document would not be served byte for byte as written (its digest would change).
    #[error("{}: interface {}: the runtime would serve digest {served}, the file has {written}", file.display(), document.display())]
    Rebuilt {
        /// The config file.
        file: PathBuf,
        /// The document file.
        document: PathBuf,
        /// Digest of the document as written.
        written: String,
        /// Digest of the document as the runtime would serve it.
        served: String,
    },
    /// The HTTP client for an http skill could not be built.
    #[error(transparent)]
    Client(#[from] http::ClientError),
}

/// A checked config and the agent it declares.
#[derive(Debug, Clone)]
pub struct DeclaredAgent {
    /// The runtime's agent, every document validated.
    pub agent: Agent,
    /// `[agent] public_url`, if given.
    pub public_url: Option<String>,
    /// The checked config it was built from.
    pub config: AgentConfig,
}

/// Reads `path`, checks it and builds the agent.
pub fn load(path: &Path) -> Result<DeclaredAgent, LoadError> {
    build(config::load(path)?)
}

/// Builds the agent of an already checked config.
pub fn build(config: AgentConfig) -> Result<DeclaredAgent, LoadError> {
    let a = &config.agent;
    let mut builder = Agent::builder(&a.name, &a.description, &a.version);
    if let Some((org, url)) = &a.provider {
        builder = builder.provider(org, url);
    }
    for s in &config.skills {
        builder = builder.skill(skill(&config.file, s)?);
    }
    let agent = builder.build().map_err(|source| LoadError::Startup {
        file: config.file.clone(),
        source,
    })?;
    Ok(DeclaredAgent {
        agent,
        public_url: a.public_url.clone(),
        config,
    })
}

/// One permit of a skill's concurrency limit, or the refusal when all are taken. Refusing
/// (instead of queueing) keeps the number of live processes bounded by the config and tells a
/// caller at once to retry, rather than spending its time limit in a queue.
fn permit(
    permits: &Arc<Semaphore>,
    skill_id: &str,
    max: usize,
) -> Result<OwnedSemaphorePermit, SkillError> {
    Arc::clone(permits).try_acquire_owned().map_err(|_| {
        SkillError::new(
            ErrorCode::ResourceLimitExceeded,
            format!("skill {skill_id} is already running {max} invocations (max_concurrency); retry later"),
        )
    })
}

/// The boxed future the runtime's handler type takes.
pub type Invocation =
    std::pin::Pin<Box<dyn Future<Output = Result<SkillOutput, SkillError>> + Send>>;

/// Wraps an invocation in the skill's concurrency limit: past `max` running invocations, one
/// more is refused at once with `resource_limit_exceeded`.
pub fn limited<F, Fut>(
    skill_id: &str,
    max: usize,
    call: F,
) -> impl Fn(Value, SkillContext) -> Invocation + Send + Sync + 'static
where
    F: Fn(Value, SkillContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<SkillOutput, SkillError>> + Send + 'static,
{
    let permits = Arc::new(Semaphore::new(max));
    let id: Arc<str> = skill_id.into();
    let call = Arc::new(call);
    move |args, ctx| {
        let held = permit(&permits, &id, max);
        let call = Arc::clone(&call);
        Box::pin(async move {
            let _held = held?;
            call(args, ctx).await
        })
    }
}

/// The runtime's declaration of a document read from `document_path` (named in config
/// `file`), refused if the runtime would not serve it byte for byte as written.
pub fn declare(
    file: &Path,
    document_path: &Path,
    document: &ValidatedDocument,
) -> Result<SkillBuilder, LoadError> {
    let b = Skill::declare(InterfaceBuilder::from_document(document));
    // The runtime serves what the builder assembles; it must be the file as written.
    let served = b.document().map(|d| d.interface_digest());
    if served.as_ref().ok() != Some(&document.interface_digest()) {
        return Err(LoadError::Rebuilt {
            file: file.to_owned(),
            document: document_path.to_owned(),
            written: document.interface_digest().to_string(),
            served: served.map_or_else(|e| e.to_string(), |d| d.to_string()),
        });
    }
    Ok(b)
}

/// The runtime skill of one `[[skills]]` table.
fn skill(file: &Path, s: &SkillConfig) -> Result<Skill, LoadError> {
    let id = s.document.skill_id().to_owned();
    let mut b = declare(file, &s.interface_path, &s.document)?;
    if let Some(n) = &s.name {
        b = b.name(n);
    }
    if let Some(d) = &s.description {
        b = b.description(d);
    }
    b = b.tags(s.tags.clone()).examples(s.examples.clone());
    if s.extended {
        b = b.extended_only();
    }
    let max = s.max_concurrency;
    let b = match &s.handler {
        HandlerConfig::Exec(c) => {
            let h = exec::ExecHandler::new(&id, c.clone(), s.timeout);
            b.handler(limited(&id, max, move |args, ctx| {
                let h = h.clone();
                async move { h.call(args, ctx).await }
            }))
        }
        HandlerConfig::Http(c) => {
            let h = http::HttpHandler::new(&id, c, s.timeout)?;
            b.handler(limited(&id, max, move |args, ctx| {
                let h = h.clone();
                async move { h.call(args, ctx).await }
            }))
        }
    };
    Ok(b.build())
}

//! `skillgate serve`: run a declarative agent (`--config agent.toml`) or, without a config,
//! the netops example agent as an A2A 1.0 server.

use anyhow::Context;
use clap::Args;
use skillgate_server::{ServerConfig, TokenTable};
use std::io::Write;
use std::path::PathBuf;

use crate::cmd::store::StoreArgs;
use crate::exit;

/// Arguments of `serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:7420")]
    pub listen: String,
    /// Bearer token file: one `token` or `token skill1,skill2` per line, `#` comments.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// Base URL to advertise in the Agent Card (default: http://<bound address>).
    #[arg(long)]
    pub public_url: Option<String>,
    /// Also answer the A2A TCK's plain-message scenarios (keyed by messageId prefix).
    #[arg(long, conflicts_with = "config")]
    pub conformance_agent: bool,
    /// Serve the declarative agent of this agent.toml (skills as exec programs or http
    /// endpoints, see `skillgate init`) instead of the netops example.
    #[arg(long, value_name = "AGENT.TOML")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// `skillgate serve`: opens the task store, prints `listening on http://HOST:PORT` first on
/// stdout (the store in use goes to stderr), then serves until SIGINT or SIGTERM, finishing
/// in-flight requests.
pub fn run(a: ServeArgs) -> anyhow::Result<u8> {
    let tokens = a
        .token_file
        .as_deref()
        .map(TokenTable::from_file)
        .transpose()?;
    let (agent, config_url) = match &a.config {
        // Refused with the file, line and finding, before anything listens.
        Some(path) => {
            let declared = skillgate_agent::load(path)?;
            (declared.agent, declared.public_url)
        }
        None => {
            let builder = if a.conformance_agent {
                skillgate_netops::conformance_agent::agent()
            } else {
                skillgate_netops::agent()
            };
            let agent = builder
                .build()
                .map_err(|e| anyhow::anyhow!("the netops agent refused to start: {e}"))?;
            (agent, None)
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let store = a.store.open().await?;
        eprintln!("skillgate: task store {}", store.describe());
        let config = ServerConfig {
            tokens,
            public_url: a.public_url.or(config_url),
            store: Some(store),
            ..Default::default()
        };
        // Installed before the address is printed: a SIGHUP sent as soon as the server is
        // reachable must reload, not kill it (the default action).
        let reload = match &a.config {
            Some(path) => Some(Reload::install(path.clone())?),
            None => None,
        };
        let listener = tokio::net::TcpListener::bind(&a.listen)
            .await
            .with_context(|| format!("cannot listen on {}", a.listen))?;
        let addr = listener.local_addr()?;
        let mut out = std::io::stdout();
        writeln!(out, "listening on http://{addr}")?;
        out.flush()?;
        skillgate_server::serve_swappable(agent, listener, config, shutdown_signal(), |swap| {
            if let Some(r) = reload {
                tokio::spawn(r.run(swap));
            }
        })
        .await?;
        Ok(exit::OK)
    })
}

/// `SIGHUP` re-reads the config: a valid one replaces the agent (card, digests and skills at
/// once), an invalid one is refused on stderr and the previous agent keeps serving. The base
/// URL and the server flags stay as they were at start-up.
struct Reload {
    path: PathBuf,
    hup: tokio::signal::unix::Signal,
}

impl Reload {
    fn install(path: PathBuf) -> anyhow::Result<Self> {
        let hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
            .context("cannot listen for SIGHUP")?;
        Ok(Self { path, hup })
    }

    async fn run(mut self, swap: skillgate_server::AgentSwap) {
        while self.hup.recv().await.is_some() {
            let path = self.path.clone();
            // Reading files and compiling schemas is blocking work: off the async workers.
            let loaded = tokio::task::spawn_blocking(move || skillgate_agent::load(&path)).await;
            match loaded {
                Ok(Ok(declared)) => {
                    let n = declared.agent.skill_ids().count();
                    swap.replace(declared.agent);
                    eprintln!("skillgate: reloaded {}: {n} skill(s)", self.path.display());
                }
                Ok(Err(e)) => eprintln!(
                    "skillgate: reload refused, the previous configuration keeps serving: {e}"
                ),
                Err(e) => eprintln!("skillgate: reload failed: {e}"),
            }
        }
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}

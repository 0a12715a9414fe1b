//! Starting a server: one [`Launch`] takes an agent, the bound listeners and the
//! configuration, checks what the Agent Card will advertise before anything is served, then
//! serves the HTTP bindings (and, with the `grpc` feature, the gRPC binding over the same
//! service) until one shutdown signal stops them all gracefully.
//!
//! The rule of both listeners lives here: an address on every interface (`0.0.0.0`, `::`) is
//! no address a client can use, so the card then needs the public URL
//! ([`ServerConfig::public_url`]).

#[cfg(feature = "grpc")]
mod grpc;

use crate::http::Prepared;
use skillgate_runtime::store_api::TaskStore;
use skillgate_runtime::{Agent, AgentSwap, PublicUrlError, ServerConfig, TokenFileError};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// Which of a server's listeners a refusal is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listener {
    /// The HTTP bindings' (JSON-RPC, HTTP+JSON, the console).
    Http,
    /// The gRPC binding's.
    Grpc,
}

impl std::fmt::Display for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Listener::Http => "HTTP",
            Listener::Grpc => "gRPC",
        })
    }
}

/// Why a server did not start, or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// A listener is on every interface and no public URL names where clients reach it.
    #[error("the {listener} listener on {addr} (every interface) needs a public URL (ServerConfig::public_url): the Agent Card must name an address clients can reach, and {addr} is none")]
    EveryInterface {
        /// Which listener.
        listener: Listener,
        /// Its bound address.
        addr: SocketAddr,
    },
    /// The public URL is no URL to advertise.
    #[error(transparent)]
    PublicUrl(#[from] PublicUrlError),
    /// A token line names a skill the agent does not serve.
    #[error(transparent)]
    Tokens(#[from] TokenFileError),
    /// A listener's address could not be read, or serving failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The gRPC server stopped with an error.
    #[cfg(feature = "grpc")]
    #[error(transparent)]
    Grpc(#[from] skillgate_grpc::GrpcError),
}

impl From<LaunchError> for std::io::Error {
    /// For callers of [`serve`], which answers in `io::Error`s: a refused configuration is
    /// `InvalidInput`, an I/O failure stays itself.
    fn from(e: LaunchError) -> Self {
        match e {
            LaunchError::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::InvalidInput, other),
        }
    }
}

/// Builds the app of an extra listener once the server's [`AgentSwap`] exists: it gets the
/// swap (the one service every binding shares) and a token cancelled at shutdown (to end its
/// open streams), and returns the axum app to serve.
pub type AppFactory = Box<dyn FnOnce(AgentSwap, CancellationToken) -> axum::Router + Send>;

/// One agent's server before it serves: the configuration checked against the listeners
/// and the agent, the URLs its card will advertise known (so a caller can announce them).
pub struct Launch {
    agent: Agent,
    http: TcpListener,
    http_addr: SocketAddr,
    base_url: String,
    config: ServerConfig,
    #[cfg(feature = "grpc")]
    grpc: Option<grpc::GrpcListener>,
    /// One more listener, serving an app over the same service (the MCP binding).
    extra: Option<(TcpListener, AppFactory)>,
}

impl Launch {
    /// Checks that `config` can serve `agent` on `http`: the public URL, when set, is one to
    /// advertise, and is set when `http` is on every interface; every token line names skills
    /// the agent serves. Nothing is served yet.
    pub fn new(agent: Agent, http: TcpListener, config: ServerConfig) -> Result<Self, LaunchError> {
        if let Some(t) = &config.tokens {
            t.check_skills(|s| agent.serves(s))?;
        }
        let http_addr = http.local_addr()?;
        let base_url = match &config.public_url {
            Some(u) => {
                skillgate_runtime::check_public_url(u)?;
                u.clone()
            }
            None => {
                require_public_url(Listener::Http, http_addr, None)?;
                format!("http://{http_addr}")
            }
        };
        Ok(Self {
            agent,
            http,
            http_addr,
            base_url,
            config,
            #[cfg(feature = "grpc")]
            grpc: None,
            extra: None,
        })
    }

    /// Also serves the app `app` builds on `listener`, over the same service as the HTTP
    /// bindings (one gate, one task store, the same reloads), under the HTTP side's connection
    /// discipline (header-read and idle timers, connection cap, shutdown grace) and stopped by
    /// the same shutdown. The card does not list it: it is no A2A interface (the MCP listener
    /// of `serve --mcp-listen` is one). The caller decides which addresses it accepts.
    pub fn with_app(mut self, listener: TcpListener, app: AppFactory) -> Self {
        self.extra = Some((listener, app));
        self
    }

    /// Serves with `store` as the task store. A separate step so that the store, which may
    /// create a database, is opened only once the configuration passed [`Launch::new`].
    pub fn with_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.config.store = Some(store);
        self
    }

    /// The address the HTTP listener is bound to.
    pub fn http_addr(&self) -> SocketAddr {
        self.http_addr
    }

    /// The base URL the card advertises for the HTTP bindings: the public URL, else
    /// `http://<bound address>`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The `host:port` the card advertises for the gRPC binding, when it is served.
    pub fn grpc_url(&self) -> Option<&str> {
        self.config.grpc_url.as_deref()
    }

    /// Serves until `shutdown` resolves, handing `with_swap` the [`AgentSwap`] every binding
    /// shares before the first request (to reload the agent later, say). Then every listener
    /// stops: open event streams end at once, idle connections close, in-flight requests get
    /// [`ServerConfig::shutdown_grace`] and whatever is left is dropped. Returns once every
    /// binding has stopped, with the first error among them.
    pub async fn serve(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
        with_swap: impl FnOnce(AgentSwap),
    ) -> Result<(), LaunchError> {
        self.announce();
        let extra_config = self.config.clone();
        let prepared = Prepared::new(self.agent, self.config, self.base_url);
        let swap = prepared.swap.clone();
        with_swap(swap.clone());
        let stop = CancellationToken::new();
        let extra = run_extra(self.extra, swap.clone(), extra_config, stop.clone());
        let http = prepared.run(self.http, stop.clone().cancelled_owned());
        #[cfg(feature = "grpc")]
        let grpc = grpc::run(self.grpc, swap, stop.clone().cancelled_owned());
        #[cfg(not(feature = "grpc"))]
        let grpc = std::future::ready(Ok::<(), LaunchError>(()));
        let all = async { tokio::join!(http, grpc, extra) };
        tokio::pin!(all, shutdown);
        let (http, grpc, extra) = tokio::select! {
            ended = &mut all => ended,
            () = &mut shutdown => {
                stop.cancel();
                all.await
            }
        };
        http?;
        extra?;
        grpc
    }

    /// Logs (at info) each skill about to be served and one `listening` line with the
    /// addresses and URLs the card advertises and what is switched on.
    fn announce(&self) {
        self.agent.log_skills();
        tracing::info!(
            address = %self.http_addr,
            url = %self.base_url,
            metrics = self.config.metrics,
            push = self.config.push.is_some(),
            auth = self.config.tokens.is_some(),
            grpc = self.config.grpc_url.as_deref().unwrap_or("off"),
            "listening"
        );
    }
}

/// Serves the extra listener's app (nothing without one) until `stop` is cancelled, with the
/// connection limits of `config`.
async fn run_extra(
    extra: Option<(TcpListener, AppFactory)>,
    swap: AgentSwap,
    config: ServerConfig,
    stop: CancellationToken,
) -> Result<(), LaunchError> {
    let Some((listener, factory)) = extra else {
        return Ok(());
    };
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(address = %addr, "extra listener");
    }
    let app = factory(swap, stop.child_token());
    crate::http::serve_app(app, listener, &config, stop.cancelled_owned()).await?;
    Ok(())
}

/// The rule of every listener: `addr` on every interface is no address a client can use, so
/// a public URL is needed then; returns it (or `None` when `addr` itself will do).
fn require_public_url(
    listener: Listener,
    addr: SocketAddr,
    public_url: Option<&str>,
) -> Result<Option<&str>, LaunchError> {
    match public_url {
        _ if !addr.ip().is_unspecified() => Ok(None),
        Some(u) => Ok(Some(u)),
        None => Err(LaunchError::EveryInterface { listener, addr }),
    }
}

/// Serves `agent`'s HTTP bindings on `listener` until `shutdown` resolves: a [`Launch`]
/// without gRPC, for callers that need nothing but a running agent. A configuration the
/// launch refuses is an `InvalidInput` error.
pub async fn serve(
    agent: Agent,
    listener: TcpListener,
    config: ServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    Launch::new(agent, listener, config)?
        .serve(shutdown, |_| {})
        .await
        .map_err(std::io::Error::from)
}

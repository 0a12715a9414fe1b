//! `skillgate serve`: run a declarative agent (`--config agent.toml`) or, without a config,
//! the netops example agent as an A2A 1.0 server.

use anyhow::Context;
use clap::Args;
use skillgate_runtime::{Reloader, ServerConfig, TokenTable};
use skillgate_server::{Launch, LaunchError, Listener};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use crate::cmd::store::StoreArgs;
use crate::exit;

/// Arguments of `serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Also answer the A2A TCK's plain-message scenarios (keyed by messageId prefix).
    #[arg(long, conflicts_with = "config")]
    pub conformance_agent: bool,
    /// Serve the declarative agent of this agent.toml (skills as exec programs or http
    /// endpoints, see `skillgate init`) instead of the netops example; SIGHUP reloads it.
    #[arg(long, value_name = "AGENT.TOML")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub server: ServerFlags,
}

/// The flags of every command that runs an A2A server (`serve`, `gateway`): address,
/// authentication, browser and connection limits, and the task store.
#[derive(Args, Debug)]
pub struct ServerFlags {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:7420")]
    pub listen: String,
    /// Bearer token file: one `token` or `token skill1,skill2` per line (tokens of at least 16
    /// bytes; skills the agent serves); lines starting with `#` are comments.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// Base URL to advertise in the Agent Card: absolute http(s), no credentials, query or
    /// fragment (default: http://<bound address>; required with an all-interfaces --listen
    /// such as 0.0.0.0, whose address no client can use). Its host also passes the Host check.
    #[arg(long, value_name = "URL", value_parser = parse_public_url)]
    pub public_url: Option<String>,
    /// Browser origin (scheme://host[:port]) allowed to call the agent, with CORS answers;
    /// repeatable. None by default: any request carrying an Origin header gets 403.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Accept any Host header. By default a request must name the bound address, localhost,
    /// an IP address or the --public-url host, so a DNS-rebinding page cannot reach the agent.
    #[arg(long)]
    pub allow_any_host: bool,
    /// A connection must deliver a complete request head within this time of opening, or of
    /// the first byte of its next request; silent and slowloris connections are closed.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = humantime::parse_duration)]
    pub header_read_timeout: Duration,
    /// A kept-alive connection idle for this long between requests is closed.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = humantime::parse_duration)]
    pub idle_timeout: Duration,
    /// Most connections served at once; one more is answered 503 (JSON body) and closed.
    /// Keep it under the file-descriptor limit (`ulimit -n`).
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// On SIGTERM/SIGINT: open event streams end at once, in-flight requests get this long to
    /// finish, then the process exits 0 whatever clients still hold.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = humantime::parse_duration)]
    pub shutdown_grace: Duration,
    /// Sign the Agent Card with this PEM (PKCS#8) private key (EC P-256/P-384, RSA or
    /// Ed25519); the signature is made once per agent and served with the card.
    #[arg(long, value_name = "KEY.pem", requires = "kid")]
    pub signing_key: Option<PathBuf>,
    /// Key id of --signing-key, as published in your JWK set.
    #[arg(long, value_name = "ID", requires = "signing_key")]
    pub kid: Option<String>,
    /// JWS algorithm of --signing-key (default by key type: ES256, ES384, RS256, EdDSA).
    #[arg(long, value_name = "ALG", requires = "signing_key")]
    pub signing_alg: Option<String>,
    /// Logs on stderr: `text` lines or `json` objects, one per line. RUST_LOG filters them
    /// (default `info`: start-up, one access line per request, failures; `debug` adds every
    /// task's end; `skillgate::access=off` drops the access lines).
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Count requests, gate outcomes, skill durations, tasks, open connections and streams,
    /// and serve them at GET /metrics (OpenMetrics text, for Prometheus); with --token-file
    /// the scrape needs one of the tokens. Off by default (/metrics is a 404).
    #[arg(long)]
    pub metrics: bool,
    /// Also serve the A2A gRPC binding (`lf.a2a.v1.A2AService`) on this address (port 0
    /// picks a free port), over the same skills, tokens and task store; the card lists it as
    /// a GRPC interface (`host:port`) after the HTTP ones. With A2A 0.3 served, the same port
    /// also answers 0.3's `a2a.v1.A2AService`, listed as GRPC 0.3 after the other 0.3
    /// interfaces. Plain HTTP/2 (no TLS), like --listen.
    #[arg(long, value_name = "ADDR")]
    pub grpc_listen: Option<String>,
    /// Also serve the agent's own governed skills as MCP tools over Streamable HTTP at
    /// http://ADDR/mcp (a loopback address only; port 0 picks a free port, printed as a
    /// second stdout line `mcp listening on http://ADDR/mcp`). No A2A hop: each tools/call
    /// goes to the same service and gate as the A2A bindings (digest, version, size, input
    /// validated before the skill runs, output before it returns; a refusal is isError with
    /// the draft code and details), with progress notifications and notifications/cancelled
    /// cancelling the task. With --token-file every MCP request needs one of its bearer
    /// tokens, which decides the tools listed and callable. The same connection limits and
    /// body limit as --listen.
    #[arg(long, value_name = "ADDR")]
    pub mcp_listen: Option<std::net::SocketAddr>,
    /// A2A versions to serve, comma-separated: `1.0`, `0.3` or both (the default). With 0.3,
    /// 0.3 clients (a2a-sdk 0.3, CrewAI, Strands, ADK, @a2a-js/sdk 0.3) call the same skills
    /// with 0.3 JSON-RPC methods (`message/send`, ...) at the same URL and over 0.3 HTTP+JSON
    /// under `/v1`, and a card request without `A2A-Version` gets the 0.3 card (`Vary:
    /// A2A-Version`); 1.x readers get the 1.0 card, which lists the 0.3 interfaces too. `--a2a-versions 1.0` serves only 1.0 (the
    /// header-less card is then the 1.0 card, as strict 1.0 validators such as the A2A TCK
    /// expect).
    #[arg(long, value_name = "LIST", default_value = "1.0,0.3",
          value_parser = |s: &str| skillgate_runtime::checks::VersionSet::parse_list(s).map_err(|e| e.to_string()))]
    pub a2a_versions: skillgate_runtime::checks::VersionSet,
    #[command(flatten)]
    pub push: PushFlags,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Push notifications (A2A `TaskPushNotificationConfig`): off unless `--push`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PushFlags {
    /// Serve push notifications: the push config methods (create/get/list/delete, per task,
    /// seen only by whoever can see the task), SendMessage's taskPushNotificationConfig, and
    /// capabilities.pushNotifications: true in the card. Every event of such a task (status
    /// and artifact updates, the final status) is POSTed to each webhook in order, as one
    /// application/a2a+json StreamResponse, with `Authorization: <scheme> <credentials>` and
    /// `X-A2A-Notification-Token: <token>` when the config has them; 3 attempts with backoff,
    /// redirects never followed. Webhooks must be https on public addresses: loopback,
    /// private, link-local, CGNAT, multicast and cloud-metadata addresses are refused when
    /// the config is created and again at every connection, unless allowed below.
    #[arg(long)]
    pub push: bool,
    /// Allow webhooks on loopback addresses (127.0.0.0/8, ::1), plain http:// ones included
    /// (local development, tests). http:// is never allowed to any other address.
    #[arg(long, requires = "push")]
    pub allow_http_push: bool,
    /// Allow https webhooks in this range although a guard rule covers it, e.g. 10.20.0.0/16
    /// for a receiver on your private network (a bare address allows just it); repeatable.
    #[arg(long = "push-allow-cidr", value_name = "CIDR", requires = "push",
          value_parser = skillgate_runtime::push::guard::parse_cidr)]
    pub push_allow_cidrs: Vec<skillgate_runtime::push::guard::IpNet>,
}

impl PushFlags {
    /// The server's push policy, `None` without `--push`.
    pub fn policy(&self) -> Option<skillgate_runtime::PushPolicy> {
        self.push.then(|| skillgate_runtime::PushPolicy {
            guard: skillgate_runtime::push::guard::Guard {
                allow_http_loopback: self.allow_http_push,
                allow: self.push_allow_cidrs.clone(),
            },
            ..Default::default()
        })
    }
}

impl ServerFlags {
    /// The card signer of --signing-key, read before anything listens.
    fn signer(&self) -> anyhow::Result<Option<std::sync::Arc<skillgate_sign::SigningKey>>> {
        let (Some(path), Some(kid)) = (&self.signing_key, &self.kid) else {
            return Ok(None);
        };
        let pem = std::fs::read(path)
            .with_context(|| format!("--signing-key {}: cannot read", path.display()))?;
        let key =
            skillgate_sign::SigningKey::from_pem(&pem, kid, self.signing_alg.as_deref(), None)
                .with_context(|| format!("--signing-key {}", path.display()))?;
        Ok(Some(std::sync::Arc::new(key)))
    }
}

/// The format of the server's log lines (`--log-format`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines: time, level, span fields, message, event fields.
    Text,
    /// One JSON object per line (`timestamp`, `level`, `target`, the event's fields at the top
    /// level, `span` and `spans` with the fields of the request and task spans).
    Json,
}

/// Sends the `tracing` events of the server to stderr in `format`, filtered by `RUST_LOG`
/// (default `info`). An unreadable `RUST_LOG` falls back to `info` and says so.
fn init_logs(format: LogFormat) {
    use skillgate_server::logs::Form;
    let form = match format {
        LogFormat::Text => Form::Text {
            ansi: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        },
        LogFormat::Json => Form::Json,
    };
    if let Err(e) = skillgate_server::logs::install(form) {
        tracing::warn!(error = %e, "RUST_LOG is not a valid filter; logging at info");
    }
}

/// `skillgate serve`: the declarative agent of `--config`, else netops; see [`run_server`].
pub fn run(a: ServeArgs) -> anyhow::Result<u8> {
    let ServeArgs {
        conformance_agent,
        config,
        server,
    } = a;
    run_server(server, move || async move {
        match config {
            // Refused with the file, line and finding, before anything listens.
            Some(path) => {
                let declared = skillgate_agent::load(&path)?;
                let reloader = Reloader::on_sighup(skillgate_agent::AgentFile::new(path))
                    .context("cannot listen for SIGHUP")?;
                Ok(Served {
                    agent: declared.agent,
                    config_url: declared.public_url,
                    reload: Some(Box::new(move |swap| {
                        reloader.spawn(swap);
                    })),
                })
            }
            None => {
                let builder = if conformance_agent {
                    skillgate_netops::conformance_agent::agent()
                } else {
                    skillgate_netops::agent()
                };
                let agent = builder
                    .build()
                    .map_err(|e| anyhow::anyhow!("the netops agent refused to start: {e}"))?;
                Ok(Served {
                    agent,
                    config_url: None,
                    reload: None,
                })
            }
        }
    })
}

/// What a server command serves.
pub struct Served {
    /// The agent at start-up.
    pub agent: skillgate_runtime::Agent,
    /// The base URL the command's own config names (`--public-url` overrides it).
    pub config_url: Option<String>,
    /// Started once the server runs, with the handle that replaces the agent (SIGHUP reload,
    /// upstream refresh). Whatever signal handler it needs must be installed before it is
    /// returned: the address is printed next, and a signal after that must not kill.
    pub reload: Reload,
}

/// What a server command starts once it serves, given the server's agent swap.
pub type Reload = Option<Box<dyn FnOnce(skillgate_runtime::AgentSwap) + Send>>;

/// Runs an A2A server: the log subscriber is installed (`--log-format`, `RUST_LOG`), `load`
/// builds the agent (a signal meanwhile ends start-up with exit 0: the handlers are installed
/// before anything else), the task store opens, `listening on http://HOST:PORT` is printed
/// first on stdout (the store, the skills and the address are logged on stderr), then
/// [`Launch`] serves until SIGINT or SIGTERM, ending open streams and finishing in-flight
/// requests within `--shutdown-grace`.
pub fn run_server<F, Fut>(flags: ServerFlags, load: F) -> anyhow::Result<u8>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<Served>>,
{
    init_logs(flags.log_format);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let code = rt.block_on(async move {
        let signal = shutdown_signal()?;
        let (tx, rx) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            signal.await;
            let _ = tx.send(true);
        });
        // A signal during start-up (opening the store, say) ends it here ...
        let (reload, launch) = tokio::select! {
            r = start(flags, load) => r?,
            () = stopped(rx.clone()) => return Ok(exit::OK),
        };
        // ... and once listening, it starts the graceful shutdown of every binding.
        launch
            .serve(stopped(rx), |swap| {
                if let Some(r) = reload {
                    r(swap);
                }
            })
            .await?;
        Ok(exit::OK)
    });
    // Skills still running after the grace are abandoned, not awaited.
    rt.shutdown_timeout(Duration::from_secs(1));
    code
}

/// `--public-url`: see [`skillgate_runtime::check_public_url`].
fn parse_public_url(s: &str) -> Result<String, String> {
    skillgate_runtime::check_public_url(s)
        .map(|()| s.to_owned())
        .map_err(|e| e.to_string())
}

/// Resolves once the signal task has seen a signal (or is gone).
async fn stopped(mut rx: tokio::sync::watch::Receiver<bool>) {
    let _ = rx.wait_for(|s| *s).await;
}

/// Builds the agent, binds, has the launch check what the card will advertise, opens the
/// store and announces the address.
async fn start<F, Fut>(a: ServerFlags, load: F) -> anyhow::Result<(Reload, Launch)>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<Served>>,
{
    let tokens = a
        .token_file
        .as_deref()
        .map(TokenTable::from_file)
        .transpose()?;
    let card_signer = a.signer()?;
    let served = load().await?;
    let config = ServerConfig {
        tokens,
        public_url: a.public_url.clone().or(served.config_url),
        header_read_timeout: a.header_read_timeout,
        idle_timeout: a.idle_timeout,
        max_connections: a.max_connections as usize,
        shutdown_grace: a.shutdown_grace,
        allowed_origins: a.allow_origins.clone(),
        allow_any_host: a.allow_any_host,
        card_signer,
        metrics: a.metrics,
        push: a.push.policy(),
        a2a_versions: a.a2a_versions,
        ..Default::default()
    };
    // The MCP listener checks bearer tokens itself, against the same table.
    let tokens_for_mcp = config.tokens.clone().map(std::sync::Arc::new);
    let body_limit = config.body_limit;
    let http = tokio::net::TcpListener::bind(&a.listen)
        .await
        .with_context(|| format!("cannot listen on {}", a.listen))?;
    let mut launch = Launch::new(served.agent, http, config).map_err(|e| refused(e, &a))?;
    if let Some(g) = &a.grpc_listen {
        let l = tokio::net::TcpListener::bind(g)
            .await
            .with_context(|| format!("cannot listen on {g} (--grpc-listen)"))?;
        launch = launch.with_grpc(l).map_err(|e| refused(e, &a))?;
    }
    let mcp_addr = match a.mcp_listen {
        None => None,
        Some(addr) => {
            let l = skillgate_mcp::bind_loopback(addr)
                .await
                .context("--mcp-listen")?;
            let bound = l.local_addr()?;
            launch = launch.with_app(l, mcp_app(tokens_for_mcp, body_limit));
            Some(bound)
        }
    };
    let store = a.store.open().await?;
    tracing::info!(store = %store.describe(), "task store");
    let launch = launch.with_store(store);
    let mut out = std::io::stdout();
    // The HTTP address first (its one-line contract); the gRPC address is in the launch's
    // log line and in the card; the MCP endpoint, in no card, is the second line.
    writeln!(out, "listening on http://{}", launch.http_addr())?;
    if let Some(addr) = mcp_addr {
        writeln!(out, "mcp listening on http://{addr}/mcp")?;
    }
    out.flush()?;
    Ok((served.reload, launch))
}

/// The MCP binding of `--mcp-listen`, built once the server's agent swap exists.
fn mcp_app(
    tokens: Option<std::sync::Arc<TokenTable>>,
    body_limit: usize,
) -> skillgate_server::AppFactory {
    Box::new(move |swap, stop| {
        skillgate_mcp::agent_router(
            skillgate_mcp::AgentTools::new(swap),
            tokens,
            body_limit,
            stop,
        )
    })
}

/// A refused launch in the command's terms: the flag that fixes it.
fn refused(e: LaunchError, a: &ServerFlags) -> anyhow::Error {
    match e {
        LaunchError::EveryInterface {
            listener: Listener::Http,
            addr,
        } => anyhow::anyhow!(
            "--listen {} listens on every interface, so http://{addr} is no address a client can use: pass --public-url with the URL clients reach this agent at (e.g. --public-url http://agent.example.net:{})",
            a.listen,
            addr.port()
        ),
        LaunchError::EveryInterface {
            listener: Listener::Grpc,
            addr,
        } => anyhow::anyhow!(
            "--grpc-listen {addr} listens on every interface: pass --public-url so the card can name a host clients reach"
        ),
        LaunchError::Tokens(e) => match &a.token_file {
            Some(path) => anyhow::Error::new(e).context(format!("token file {}", path.display())),
            None => e.into(),
        },
        other => other.into(),
    }
}

/// Resolves on SIGINT or SIGTERM; the handlers are installed when this returns, so a signal
/// that arrives later is never the default (death by signal).
pub(crate) fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

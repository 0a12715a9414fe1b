//! `skillgate mcp URL`: the agent's governed skills as MCP tools (see `skillgate_mcp`), over
//! stdio for a desktop host or, with `--listen`, over Streamable HTTP on loopback.
//!
//! Over stdio, stdout is the protocol channel: this command writes nothing else there, and
//! its logs (skills left out and why, cancelled calls) go to stderr.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use skillgate_client::{Client, ClientConfig};
use skillgate_mcp::{serve_http, serve_stdio, SkillServer};

use super::net::{BindingArg, NetArgs};
use super::serve::shutdown_signal;
use crate::exit;

/// Arguments of `mcp`. No `Debug`: it holds the token.
#[derive(Args)]
pub struct McpArgs {
    /// Agent base URL or Agent Card URL.
    url: String,
    /// Serve MCP over Streamable HTTP at http://ADDR/mcp instead of stdio; a loopback
    /// address only (e.g. 127.0.0.1:7430, or 127.0.0.1:0 for any free port). The URL is
    /// printed on stdout as `listening on http://ADDR/mcp`.
    #[arg(long, value_name = "ADDR")]
    listen: Option<SocketAddr>,
    /// Re-read the agent's card this often (at least 1s) and send the host
    /// notifications/tools/list_changed when its governed skills, their versions or their
    /// interface digests change (sessions that began with initialize, i.e. MCP 2025-11-25
    /// and 2025-06-18; the listChanged capability is advertised). The next tools/list shows
    /// the new set. 0 turns it off.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_refresh)]
    refresh: Duration,
    /// Use this binding of the card (default: the card's first supported interface).
    #[arg(long, value_enum)]
    binding: Option<BindingArg>,
    #[command(flatten)]
    net: NetArgs,
}

/// A refresh interval: 0 (off), or a humantime duration of at least one second (a shorter
/// one would poll the agent's card faster than any host re-lists).
fn parse_refresh(s: &str) -> Result<Duration, String> {
    if s.trim() == "0" {
        return Ok(Duration::ZERO);
    }
    let d = humantime::parse_duration(s).map_err(|e| format!("{s:?}: {e} (e.g. 60s, 5m, 0)"))?;
    if !d.is_zero() && d < Duration::from_secs(1) {
        return Err(format!("{s:?} is under one second"));
    }
    Ok(d)
}

/// Logs on stderr (stdout may be the MCP channel): `RUST_LOG` if set, else this crate's
/// warnings (a skill left out) and information (a cancelled call), the SDK's warnings.
fn init_logs() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("warn,skillgate_mcp=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// `skillgate mcp`: exit 0 when the host closes the session (or on SIGINT/SIGTERM), 2 when
/// the server cannot start.
pub fn run(a: McpArgs) -> anyhow::Result<u8> {
    init_logs();
    let transport = a
        .net
        .transport(&[a.url.as_str()])
        .map_err(anyhow::Error::msg)?;
    let config = ClientConfig {
        binding: a.binding.map(Into::into),
        ..ClientConfig::from_transport(transport)
    };
    let client = Client::new(config).context("cannot set up the A2A client")?;
    let mut server = SkillServer::new(client, a.url.clone());
    if !a.refresh.is_zero() {
        server = server.with_refresh(a.refresh);
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async move {
        let signal = shutdown_signal()?;
        match a.listen {
            None => {
                tokio::select! {
                    r = serve_stdio(server) => r?,
                    () = signal => {}
                }
            }
            Some(addr) => {
                let http = serve_http(server, addr).await?;
                outln!("listening on {}", http.url());
                // Line-buffered already; flushed so a parent reading the line sees it now.
                let _ = crate::out::finish();
                signal.await;
                http.shutdown().await?;
            }
        }
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(exit::OK)
}

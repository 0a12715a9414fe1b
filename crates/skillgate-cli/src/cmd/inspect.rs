//! `skillgate inspect [URL] [--listen ADDR]`: serves the web console for any A2A agent
//! (crate `skillgate-inspect`) on loopback and prints the URL to open. This module only
//! parses flags and starts it.

use super::io::read_input;
use super::net::NetArgs;
use crate::exit;
use anyhow::Context;
use clap::Args;
use skillgate_inspect::{serve, InspectConfig};
use skillgate_transport::Secret;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;

/// `skillgate inspect`. No `Debug`: the network flags hold the token.
#[derive(Args)]
pub struct InspectArgs {
    /// Agent base URL or Agent Card URL to show first (any other can be entered in the page).
    url: Option<String>,
    /// Loopback address to serve the inspector on; port 0 picks a free one.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Read the agent's bearer token from the first line of this file (`-`: stdin), so it is
    /// not in the shell history or the process list.
    #[arg(long, value_name = "FILE", conflicts_with = "token")]
    token_file: Option<PathBuf>,
    #[command(flatten)]
    net: NetArgs,
}

/// Serves until SIGINT or SIGTERM; exit 0 then, 2 when it cannot start.
pub fn run(a: InspectArgs) -> anyhow::Result<u8> {
    if !a.listen.ip().is_loopback() {
        // The inspector sends requests to any URL its pages are given: reachable from other
        // machines it would be an open relay with the user's credentials.
        anyhow::bail!(
            "--listen {}: the inspector serves loopback only (127.0.0.1 or [::1]); it makes requests on behalf of whoever reaches it",
            a.listen
        );
    }
    let targets: Vec<&str> = a.url.iter().map(String::as_str).collect();
    let mut transport = a.net.transport(&targets).map_err(anyhow::Error::msg)?;
    if let Some(path) = &a.token_file {
        let bytes = read_input(&path.to_string_lossy())
            .with_context(|| format!("--token-file {}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("--token-file {}: not UTF-8 text", path.display()))?;
        let token = text.lines().next().unwrap_or("").trim();
        if token.is_empty() {
            anyhow::bail!("--token-file {}: the first line is empty", path.display());
        }
        transport.token = Some(Secret::new(token));
    }
    let config = InspectConfig {
        transport,
        agent: a.url.clone(),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(a.listen)
            .await
            .with_context(|| format!("cannot listen on {}", a.listen))?;
        let addr = listener.local_addr()?;
        let signal = super::serve::shutdown_signal()?;
        // First line as `serve` and `gateway` print it (scripts read it); then what to open.
        let open = match &a.url {
            Some(u) => format!(
                "http://{addr}/?agent={}",
                url::form_urlencoded::byte_serialize(u.as_bytes()).collect::<String>()
            ),
            None => format!("http://{addr}/"),
        };
        let mut out = std::io::stdout();
        writeln!(out, "listening on http://{addr}")?;
        writeln!(out, "open {open} in a browser")?;
        out.flush()?;
        serve(listener, config, signal).await?;
        Ok(exit::OK)
    })
}

//! `skillgate gateway`: serve a governed front for an existing A2A 1.0 or 0.3 agent, or for
//! the MCP server of the config's `[mcp]` table (see `skillgate_gateway`).

use anyhow::Context;
use clap::Args;
use skillgate_client::ClientConfig;
use skillgate_gateway::{GatewaySource, Upstream};
use skillgate_runtime::Reloader;
use skillgate_transport::{origin_of, Secret, TransportConfig, Withheld};
use std::path::PathBuf;
use std::time::Duration;

use super::io::read_input;
use super::serve::{run_server, Served, ServerFlags};

/// Arguments of `gateway`. No `Debug`: it holds the upstream token.
#[derive(Args)]
pub struct GatewayArgs {
    /// The upstream A2A 1.0 or 0.3 agent: its base URL or Agent Card URL (https, or http to a
    /// loopback host unless --upstream-allow-http). Not given when the config's [mcp] table
    /// names an MCP server instead.
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// The gateway.toml naming each governed skill, its Skill Interface Document and where
    /// its output is read from upstream; SIGHUP re-reads it (and the upstream card).
    #[arg(long, value_name = "GATEWAY.TOML")]
    pub config: PathBuf,
    /// Bearer token for the upstream agent (default: $SKILLGATE_UPSTREAM_TOKEN); never the
    /// gateway's own callers' tokens, which are not passed on. Sent only to the origin of
    /// --upstream, not to another origin its card names or a redirect leads to, unless
    /// allowed with --upstream-allow-credentials-to.
    #[arg(long, value_name = "TOKEN")]
    pub upstream_token: Option<String>,
    /// Also send the upstream token to this origin (repeatable), e.g. when the upstream's
    /// card names an interface on another origin than the card's.
    #[arg(long, value_name = "ORIGIN")]
    pub upstream_allow_credentials_to: Vec<String>,
    /// Time limit of each upstream request, in seconds (a call's own limit is the document's
    /// max_duration_ms or the config's timeout_ms).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub upstream_timeout: f64,
    /// Permit plain http:// to an upstream that is not on loopback.
    #[arg(long)]
    pub upstream_allow_http: bool,
    /// Also trust the root certificates in this PEM file (repeatable) for the upstream.
    #[arg(long, value_name = "PEM_FILE")]
    pub upstream_cacert: Vec<PathBuf>,
    /// Require the upstream's card to be signed by a key of this JWK set, at start-up and at
    /// every refresh.
    #[arg(long, value_name = "JWKS.json")]
    pub upstream_trust_jwks: Option<PathBuf>,
    /// Which A2A version to speak to the upstream: auto (an A2A 1.x interface if its card
    /// offers one, else A2A 0.3 over JSON-RPC, else over HTTP+JSON, else over gRPC), 1.0 or 0.3. The gateway's
    /// own callers get the versions of --a2a-versions whatever the upstream speaks.
    #[arg(
        long,
        value_name = "auto|1.0|0.3",
        default_value = "auto",
        value_parser = super::net::parse_a2a_version
    )]
    pub upstream_a2a_version: skillgate_transport::VersionChoice,
    #[command(flatten)]
    pub server: ServerFlags,
}

impl GatewayArgs {
    fn upstream(&self) -> anyhow::Result<Option<Upstream>> {
        let Some(url) = &self.upstream else {
            return Ok(None);
        };
        self.a2a_upstream(url).map(Some)
    }

    fn a2a_upstream(&self, url: &str) -> anyhow::Result<Upstream> {
        if !(self.upstream_timeout.is_finite() && (0.001..=3600.0).contains(&self.upstream_timeout))
        {
            anyhow::bail!("--upstream-timeout is in seconds, from 0.001 to 3600");
        }
        let timeout = Duration::from_secs_f64(self.upstream_timeout);
        let mut ca_certificates = Vec::new();
        for path in &self.upstream_cacert {
            ca_certificates.push(
                read_input(&path.to_string_lossy())
                    .with_context(|| format!("--upstream-cacert {}", path.display()))?,
            );
        }
        let token = self
            .upstream_token
            .clone()
            .or_else(|| std::env::var("SKILLGATE_UPSTREAM_TOKEN").ok())
            .filter(|t| !t.is_empty())
            .map(Secret::from);
        let trusted_keys = match &self.upstream_trust_jwks {
            None => None,
            Some(p) => Some(
                skillgate_sign::TrustedKeys::from_json(&read_input(&p.to_string_lossy())?)
                    .with_context(|| format!("--upstream-trust-jwks {}", p.display()))?,
            ),
        };
        // The token goes to the upstream's origin and the ones allowed, nowhere else.
        let mut credential_origins: Vec<url::Origin> = skillgate_transport::card_url(url)
            .map(|u| vec![u.origin()])
            .unwrap_or_default();
        for spec in &self.upstream_allow_credentials_to {
            credential_origins.push(
                origin_of(spec).with_context(|| "--upstream-allow-credentials-to".to_owned())?,
            );
        }
        let d = TransportConfig::default();
        Ok(Upstream {
            url: url.to_owned(),
            client: ClientConfig::from_transport(TransportConfig {
                connect_timeout: d.connect_timeout.min(timeout),
                read_timeout: timeout,
                timeout,
                allow_http: self.upstream_allow_http,
                token,
                ca_certificates,
                trusted_keys,
                credential_origins,
                withheld: Some(Withheld::new(|origin| {
                    tracing::warn!(
                        %origin,
                        "the upstream token was not sent to another origin than --upstream \
                         (allow with --upstream-allow-credentials-to)"
                    )
                })),
                a2a_version: self.upstream_a2a_version,
                ..d
            }),
        })
    }
}

/// `skillgate gateway`: builds the gateway (the config, every document and the upstream card
/// must check out, else start-up stops with the reason), then serves it like `serve`.
pub fn run(a: GatewayArgs) -> anyhow::Result<u8> {
    let upstream = a.upstream()?;
    let path = a.config;
    run_server(a.server, move || async move {
        let gateway = skillgate_gateway::reload(&path, upstream.as_ref()).await?;
        let shown = upstream.as_ref().map_or_else(
            || "the MCP server of the config".to_owned(),
            |u| skillgate_transport::redact_str(&u.url),
        );
        tracing::info!(
            upstream = %shown,
            skills = gateway.agent.skill_ids().count(),
            "gateway in front of the upstream"
        );
        let (source, refresh) = GatewaySource::new(path, upstream, gateway.watch);
        // Installed before the address is printed: an early SIGHUP must reload, not kill.
        let reloader = Reloader::on_sighup(source).context("cannot listen for SIGHUP")?;
        Ok(Served {
            agent: gateway.agent,
            config_url: None,
            reload: Some(Box::new(move |swap| {
                tokio::spawn(refresh.run(|line| tracing::warn!("{line}")));
                reloader.spawn(swap);
            })),
        })
    })
}
